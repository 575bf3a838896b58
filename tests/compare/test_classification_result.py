"""The shape of :class:`passhat.Classification` (passhat.compare.classification_result): a
frozen result whose JSON document and view are those ``passhat compare --classify`` printed.

Oracles: the document's keys as the command wrote them before (plus the three header keys),
the result's own table and summary, verdicts built by hand (two builds, three tasks).
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import numpy as np
import pytest

import passhat as ph
from passhat._result import MAX_REPR

HOSTILE = "<b onmouseover=x>t</b>"


@pytest.fixture(scope="module")
def res() -> ph.Classification:
    base = ph.counts_from_arrays([10, 10, 10], [10, 10, 0], tasks=["a", HOSTILE, "c"])
    cand = ph.counts_from_arrays([10, 10, 10], [10, 0, 0], tasks=["a", HOSTILE, "c"])
    return ph.classify(base, cand)


def test_document_has_the_header_and_the_keys_the_command_wrote(
    res: ph.Classification,
) -> None:
    doc = res.to_dict(fail_on=["regression", "flaky"])
    assert list(doc) == [
        "schema", "schema_version", "passhat_version",
        "settings", "counts", "summary", "note", "verdicts", "excluded", "fail_on", "failed",
    ]  # fmt: skip
    assert doc["schema"] == "passhat.classification"
    assert doc["counts"]["regression"] == 1 and doc["counts"]["stable_pass"] == 1
    assert (doc["fail_on"], doc["failed"]) == (["regression", "flaky"], ["regression"])
    assert doc["summary"] == res.summary() and doc["note"] == res.settings_text()
    assert [r["verdict"] for r in doc["verdicts"]] == ["stable_pass", "regression", "stable_fail"]
    assert res.to_dict()["failed"] == [] and res.found(["stable_fail"]) == ["stable_fail"]


def test_frozen_and_view(res: ph.Classification) -> None:
    with pytest.raises(FrozenInstanceError):
        res.settings = {}  # type: ignore[misc]
    assert res.to_frame().equals(res.table)
    view = res.view()
    table = view.parts[0]
    assert table.title == "Tasks that changed, flaked or cannot be decided yet"
    assert table.frame["task"].tolist() == [HOSTILE]  # stable tasks are not listed
    assert table.frame.iloc[0, 2:4].tolist() == ["10/10", "0/10"]
    assert view.parts[-1].lines == (res.summary(),)
    assert view.parts[-1].notes == (res.settings_text(),)
    quiet = res.view(changed=False)
    assert all(p.frame is None for p in quiet.parts)  # -q: the summary line only
    assert len(repr(res)) <= MAX_REPR
    html = res._repr_html_()
    assert HOSTILE not in html and "&lt;b onmouseover=x&gt;t&lt;/b&gt;" in html


def test_min_runs_follows_the_one_rule() -> None:
    base = ph.counts_from_arrays([4, 4], [4, 0], tasks=["a", "b"])
    with pytest.raises(ph.OptionError, match=r"min_runs must be a whole number ≥ 1 \(got 2.0\)"):
        ph.classify(base, base, min_runs=2.0)  # type: ignore[arg-type]
    with pytest.raises(ph.OptionError, match=r"got None"):
        ph.classify(base, base, min_runs=None)  # type: ignore[arg-type]
    assert ph.classify(base, base, min_runs=np.int64(5)).settings["min_runs"] == 5
