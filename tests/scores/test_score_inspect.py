"""Partial credit end to end from a real Inspect AI log: ``P`` reads as score 0.5 (Inspect's
own mapping), success stays score ≥ 1 (the reader's default threshold), and
``estimate(scores=True)`` gives the brute-force best / worst of k of the scripted scores.
Oracle: the scripted letters per (sample, epoch) and itertools.combinations."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import passhat as ph

pytest.importorskip("inspect_ai")

#: sample → the letter of each epoch (C = 1, P = 0.5, I = 0)
SCRIPT = {"q0": "CPC", "q1": "PPI", "q2": "IIP", "q3": "CCC"}
VALUE = {"C": 1.0, "P": 0.5, "I": 0.0}


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from inspect_testdata import scripted_eval

    seen: dict[str, int] = {}

    def act(state: Any) -> None:
        sid = str(state.sample_id)
        state.output.completion = SCRIPT[sid][seen.get(sid, 0)]
        seen[sid] = seen.get(sid, 0) + 1

    return scripted_eval(tmp_path_factory.mktemp("partial"), list(SCRIPT), 3, act)


def test_partial_credit_from_an_inspect_log(log: Path) -> None:
    trials = ph.read_trials(log)
    df = trials.frame
    assert sorted(df["score"].unique().tolist()) == [0.0, 0.5, 1.0]
    assert (df["success"] == (df["score"] >= 1.0)).all()  # P is not a pass at the default cut
    est = ph.estimate(trials, k=[2, 3], scores=True)
    got = est.table.set_index(["k", "metric"])["value"]
    for k in (2, 3):
        for metric, fn in (("worst_of_k", min), ("best_of_k", max)):
            want = np.mean(
                [np.mean([fn(c) for c in itertools.combinations([VALUE[x] for x in s], k)])
                 for s in SCRIPT.values()]
            )  # fmt: skip
            assert got[(k, metric)] == pytest.approx(want)
