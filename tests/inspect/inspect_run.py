"""One real Inspect AI eval for the tests of passhat.inspect: a mock model with scripted answers.

``run_eval`` runs ``inspect_ai.eval`` on :data:`SCRIPT`'s samples with ``mockllm/model``, whose
``custom_outputs`` callable answers the n-th call of a sample with the n-th letter of its
script (target ``A``: ``A`` passes, ``B`` fails; ``E``: the model call raises, so that epoch
errors and, with ``fail_on_error=False``, stays in the log unscored), so some samples flip
between epochs. The
epochs are reduced by passhat's reducers and Inspect's own ``pass_k`` / ``pass_at`` / ``mean``;
the metrics are ``accuracy``, ``stderr`` and ``passhat_interval``. No network: every output
carries its token usage (the mock model would otherwise count tokens with a downloaded
tokenizer). Import only after ``pytest.importorskip("inspect_ai")``.
"""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

#: Each sample's answers, epoch after epoch (target "A"): successes by hand are the A's.
SCRIPT = {
    "q1": "AAAA",  # 4 of 4
    "q2": "AABB",  # 2 of 4
    "q3": "BBBB",  # 0 of 4
    "q4": "ABAA",  # 3 of 4
    "q5": "AAAA",  # 4 of 4
    "q6": "BABB",  # 1 of 4
    "q7": "AEAB",  # 2 of 3 scored; epoch 2 errors
}
EPOCHS = 4
K = 2
CI = 0.9


def scripted_model() -> Any:
    """``mockllm/model`` answering each sample from its script, call after call."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    calls: collections.Counter[str] = collections.Counter()

    def answer(messages: Any, tools: Any, tool_choice: Any, config: Any) -> Any:
        sample = messages[-1].text.split()[0]
        letter = SCRIPT[sample][calls[sample]]
        calls[sample] += 1
        if letter == "E":
            raise RuntimeError(f"scripted model error in {sample}")
        out = ModelOutput.from_content(model="mockllm", content=letter)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=answer)


def run_eval(log_dir: Path, *, metadata: dict[str, Any] | None = None) -> Any:
    """Run the scripted eval; its log goes to ``log_dir``. Returns Inspect's EvalLog."""
    from inspect_ai import Epochs, Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import accuracy, match, stderr
    from inspect_ai.solver import generate

    from passhat.inspect import passhat_interval, passhat_reducers

    task = Task(
        dataset=[
            Sample(input=f"{sid} answer with one letter", target="A", id=sid) for sid in SCRIPT
        ],
        solver=generate(),
        scorer=match(),
        epochs=Epochs(EPOCHS, [*passhat_reducers(k=K), f"pass_k_{K}", f"pass_at_{K}", "mean"]),
        metrics=[accuracy(), stderr(), passhat_interval(ci=CI)],
        metadata=metadata,
    )
    [log] = inspect_eval(
        task,
        model=scripted_model(),
        log_dir=str(log_dir),
        display="none",
        log_format="eval",
        fail_on_error=False,
    )
    assert log.status == "success", log.error
    return log
