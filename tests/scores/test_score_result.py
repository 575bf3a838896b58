"""The threshold curve result: JSON header, view, repr, HTML escaping, frozen; the estimate's
view and document with scores."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

import passhat as ph
from passhat._result import MAX_REPR


def _est(system: str = "A<b>") -> ph.Estimate:
    df = pd.DataFrame({"system": system, "task_id": list("aabbcc"), "trial": [0, 1] * 3,
                       "success": [True, False, True, True, False, False],
                       "score": [1.0, 0.5, 0.75, 1.0, 0.0, 0.25]})  # fmt: skip
    return ph.estimate(ph.Trials.from_frame(df), k=[1, 2], scores=True)


def test_curve_document_view_repr_and_frozen() -> None:
    curve = _est().curve
    assert curve is not None
    doc = curve.to_dict()
    assert doc["schema"] == "passhat.threshold_curve" and "schema_version" in doc
    assert [r["threshold"] for r in doc["curve"] if r["k"] == 1] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert len(repr(curve)) <= MAX_REPR
    assert "A&lt;b&gt;" in curve._repr_html_() and "A<b>" not in curve._repr_html_()
    with pytest.raises(dataclasses.FrozenInstanceError):
        curve.table = pd.DataFrame()  # type: ignore[misc]


def test_estimate_with_scores_shows_and_documents_the_curve() -> None:
    est = _est("A")
    doc = est.to_dict()
    assert doc["settings"]["scores"] is True
    assert {r["metric"] for r in doc["estimates"]} >= {"mean_score", "best_of_k", "worst_of_k"}
    assert len(doc["curve"]) == 10  # 5 thresholds × 2 k
    text = repr(est)
    assert "worst of k" in text and "best of k" in text
    assert "by pass threshold" in str(est.view(curve=True).parts[-1].title)
    assert est.value("worst_of_k", k=2) == pytest.approx((0.5 + 0.75 + 0.0) / 3)


def test_estimate_without_scores_has_no_score_keys() -> None:
    df = pd.DataFrame({"task_id": list("aabb"), "success": [True, False, True, True]})
    doc = ph.estimate(ph.Trials.from_frame(df), k=[1]).to_dict()
    assert "curve" not in doc and "scores" not in doc["settings"]
