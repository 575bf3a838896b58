"""Tests of passhat.graders.result: the notes of a grader correction."""

from __future__ import annotations

import passhat as ph


def test_excluded_note_gives_each_reason() -> None:
    """Tasks left out for weight 0 are counted under that reason, not as 'no decided run'
    (the note said 'excluded 1 task(s) with no decided run' for a weight-0 task whose runs
    were all decided); oracle: the excluded table's reasons counted by hand."""
    data = ph.load_example("abcd")
    r = ph.correct_grader(data, sensitivity=0.9, specificity=0.9, k=[1],
                          weights={"A": 1, "B": 0, "C": 1, "D": 1})  # fmt: skip
    assert r.excluded["reason"].tolist() == ["weight 0: counts toward no average"]
    notes = [n for n in r.notes if n.startswith("excluded")]
    assert notes == ["excluded 1 task(s): weight 0: counts toward no average"]
