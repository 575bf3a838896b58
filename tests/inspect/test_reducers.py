"""passhat's epoch reducers against Inspect's own and against brute force.

Oracles: Inspect AI's ``pass_k`` / ``pass_at`` / ``mean`` reducers on the same scores (every
C/I sequence of 1 to 6 epochs, every k ≤ n), and the share of k-subsets of the epochs that all
succeed / hold a success (:func:`itertools.combinations`, written out here).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

pytest.importorskip(
    "inspect_ai", reason="inspect_ai is not installed (pip install 'passhat[inspect]')"
)

from inspect_ai.scorer import Score, mean_score, pass_at, pass_k

from passhat.errors import FormatError, OptionError
from passhat.inspect.reducers import (
    mean_reducer,
    pass_at_reducer,
    pass_hat_reducer,
    passhat_reducers,
    sample_counts,
)

SEQUENCES = ["".join(s) for n in range(1, 7) for s in itertools.product("CI", repeat=n)]


def _scores(text: str) -> list[Score]:
    return [Score(value=float("nan") if ch == "?" else ch) for ch in text]


def _subsets(text: str, k: int, rule: str) -> float:
    """Share of the k-subsets of the scored epochs that all pass (all) or hold a pass (any)."""
    runs = [ch == "C" for ch in text if ch != "?"]
    subsets = list(itertools.combinations(runs, k))
    hits = [all(s) if rule == "all" else any(s) for s in subsets]
    return sum(hits) / len(subsets)


@pytest.mark.parametrize("text", SEQUENCES)
def test_equal_to_inspect_and_brute_force(text: str) -> None:
    scores = _scores(text)
    for k in range(1, len(text) + 1):
        hat, at = pass_hat_reducer(k)(scores).value, pass_at_reducer(k)(scores).value
        assert hat == pytest.approx(pass_k(k)(scores).value, abs=1e-12), (text, k)
        assert at == pytest.approx(pass_at(k)(scores).value, abs=1e-12), (text, k)
        assert hat == pytest.approx(_subsets(text, k, "all"), abs=1e-12), (text, k)
        assert at == pytest.approx(_subsets(text, k, "any"), abs=1e-12), (text, k)
    assert mean_reducer()(scores).value == pytest.approx(mean_score()(scores).value, abs=1e-12)


@pytest.mark.parametrize("text", ["CC?IC", "?C?I", "C??", "IIC?C?"])
def test_unscored_epochs_left_out_as_inspect_does(text: str) -> None:
    scores = _scores(text)
    scored = len(text) - text.count("?")
    for k in range(1, scored + 1):
        out = pass_hat_reducer(k)(scores)
        assert out.value == pytest.approx(pass_k(k)(scores).value, abs=1e-12)
        assert out.value == pytest.approx(_subsets(text, k, "all"), abs=1e-12)
        assert out.metadata["passhat"]["unscored"] == text.count("?")
        assert f"({text.count('?')} unscored epoch(s) left out)" in out.explanation
    short = pass_hat_reducer(scored + 1)(scores)  # fewer scored epochs than k: no estimate
    assert math.isnan(short.value) and math.isnan(pass_k(scored + 1)(scores).value)
    assert "fewer than k" in short.explanation


def test_all_unscored_sample_has_no_estimate() -> None:
    out = mean_reducer()(_scores("??"))
    assert math.isnan(out.value)
    assert out.metadata["passhat"] == {
        "metric": "mean", "k": 1, "n": 0, "c": 0, "unscored": 2, "threshold": 1.0,
    }  # fmt: skip


def test_threshold_decides_partial_credit_as_inspect_value() -> None:
    scores = _scores("CPPI")
    assert pass_hat_reducer(2)(scores).value == 0.0  # P fails at 1.0
    assert pass_hat_reducer(2, threshold=0.5)(scores).value == pytest.approx(
        pass_k(2, value=0.5)(scores).value, abs=1e-12
    )
    assert pass_at_reducer(3, threshold=0.5)(scores).value == pytest.approx(
        pass_at(3, value=0.5)(scores).value, abs=1e-12
    )
    # passhat's mean is the success rate at the threshold: P counts 0 (Inspect's mean: 0.5)
    assert mean_reducer()(scores).value == 0.25
    assert mean_score()(scores).value == 0.5


def test_numbers_and_booleans() -> None:
    scores = [Score(value=v) for v in (1, 0.0, True, False, 1.0)]
    assert sample_counts(scores, threshold=1.0, to_float=lambda v: float(v)) == (5, 3, 0)


def test_reduced_score_keeps_metadata_and_says_how() -> None:
    scores = [Score(value=v, answer="x", metadata={"grader": "g"}) for v in "CCIC"]
    out = pass_at_reducer(2)(scores)
    assert out.metadata["grader"] == "g"
    assert out.metadata["passhat"] == {
        "metric": "pass_at_k", "k": 2, "n": 4, "c": 3, "unscored": 0, "threshold": 1.0,
    }  # fmt: skip
    assert out.answer == "x"
    assert out.explanation == (
        "3 of 4 scored epochs succeeded: pass@2 = 1 − C(1, 2) / C(4, 2) = 1.000"
    )


def test_dict_scores_refused() -> None:
    with pytest.raises(FormatError, match=r"scalar score.*dict value"):
        pass_hat_reducer(1)([Score(value={"a": 1})])


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda: pass_hat_reducer(0), "k"),
        (lambda: pass_at_reducer(2.5), "k"),  # type: ignore[arg-type]
        (lambda: pass_hat_reducer(True), "k"),  # type: ignore[arg-type]
        (lambda: mean_reducer(threshold=float("nan")), "threshold"),
        (lambda: mean_reducer(threshold="high"), "threshold"),  # type: ignore[arg-type]
        (lambda: passhat_reducers(k=[]), "k"),
        (lambda: passhat_reducers(k=2, metrics=["pass^k"]), "metrics"),
        (lambda: passhat_reducers(k=2, metrics=[]), "metrics"),
    ],
)
def test_bad_options(call: object, param: str) -> None:
    with pytest.raises(OptionError) as err:
        call()  # type: ignore[operator]
    assert err.value.param == param


def test_passhat_reducers_order_and_names() -> None:
    from inspect_ai.scorer._reducer import create_reducers, reducer_log_name

    names = [reducer_log_name(r) for r in passhat_reducers(k=[4, 2, 2])]
    assert names == [
        "passhat/pass_hat_2", "passhat/pass_hat_4", "passhat/pass_at_2", "passhat/pass_at_4",
        "passhat/mean",
    ]  # fmt: skip
    only = passhat_reducers(k=3, metrics=["pass_at_k"])
    assert [reducer_log_name(r) for r in only] == ["passhat/pass_at_3"]
    # by name, as `inspect eval --epochs-reducer passhat/pass_hat_3` creates it
    [by_name] = create_reducers("passhat/pass_hat_3")
    assert reducer_log_name(by_name) == "passhat/pass_hat_3"
    assert by_name(_scores("CCCI")).value == pytest.approx(0.25)
    assert reducer_log_name(pass_hat_reducer(np.int64(2))) == "passhat/pass_hat_2"
