"""Real Inspect AI logs for the tests: a scripted solver, a mock model, no network.

``scripted_eval`` runs ``inspect_ai.eval`` on samples whose solver ``solve(state)`` sets the
output (and any messages) itself, scored by the output's letter (C/I/P/N), and returns the
path of the ``.eval`` log it wrote. Import it only after ``pytest.importorskip("inspect_ai")``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest


def scripted_eval(
    tmp: Path, samples: Sequence[str], epochs: int, solve: Callable[[Any], None]
) -> Path:
    """Write an Inspect ``.eval`` log into ``tmp/logs``; ``solve(state)`` scripts each run."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import Score, accuracy, scorer
    from inspect_ai.solver import solver

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("INSPECT_LOG_DIR", str(tmp / "logs"))
        mp.setenv("INSPECT_DISPLAY", "none")

        @solver
        def scripted():  # type: ignore[no-untyped-def]
            async def run(state, generate):  # type: ignore[no-untyped-def]
                solve(state)
                return state

            return run

        @scorer(metrics=[accuracy()])
        def letter():  # type: ignore[no-untyped-def]
            async def score(state, target):  # type: ignore[no-untyped-def]
                return Score(value=state.output.completion)

            return score

        task = Task(
            dataset=[Sample(id=sid, input="go", target="C") for sid in samples],
            solver=scripted(),
            scorer=letter(),
            epochs=epochs,
        )
        [log] = inspect_eval(task, model="mockllm/model", display="none", log_format="eval")
    return Path(log.location)
