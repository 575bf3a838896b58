"""The interval metric: counts read from passhat's reduced scores, values from passhat.estimate.

Oracle: :func:`passhat.estimate` on the count table written by hand (the samples' n and c);
the metric must find those counts in the reduced scores (whatever the order of the samples)
and give the estimate's value and both scopes' intervals, and nothing in other views.
"""

from __future__ import annotations

import logging

import pytest

pytest.importorskip(
    "inspect_ai", reason="inspect_ai is not installed (pip install 'passhat[inspect]')"
)

from inspect_ai.scorer import SampleScore, Score, pass_k

import passhat as ph
from passhat.errors import FormatError, OptionError
from passhat.inspect import metrics as metrics_module
from passhat.inspect.metrics import passhat_interval, view_counts
from passhat.inspect.reducers import mean_reducer, pass_at_reducer, pass_hat_reducer

RUNS = {"a": "CCCC", "b": "CCIC", "c": "IIII", "d": "CICC", "e": "CCCC", "f": "ICII", "g": "CIIC"}


def _view(reducer, runs=RUNS):  # type: ignore[no-untyped-def]
    return [
        SampleScore(score=reducer([Score(value=v) for v in r]), sample_id=s)
        for s, r in runs.items()
    ]


def _by_hand(metric: str, k: int, ci: float) -> ph.Estimate:
    n = [len(r) for r in RUNS.values()]
    c = [r.count("C") for r in RUNS.values()]
    return ph.estimate(ph.counts_from_arrays(n, c, tasks=list(RUNS)), k=k, ci=ci)


@pytest.mark.parametrize(
    ("reducer", "metric", "k", "label"),
    [
        (pass_hat_reducer(2), "pass_hat_k", 2, "pass^2"),
        (pass_hat_reducer(3), "pass_hat_k", 3, "pass^3"),
        (pass_at_reducer(2), "pass_at_k", 2, "pass@2"),
        (mean_reducer(), "mean", 1, "mean"),
    ],
)
def test_values_and_intervals_are_passhat_estimate(reducer, metric, k, label) -> None:  # type: ignore[no-untyped-def]
    out = passhat_interval(ci=0.9)(_view(reducer))
    est = _by_hand(metric, k, 0.9)
    assert list(out) == [label, "benchmark_lower", "benchmark_upper", "population_lower",
                         "population_upper"]  # fmt: skip
    assert out[label] == pytest.approx(est.value(metric, k), abs=1e-12)
    for scope in ("benchmark", "population"):
        lo, hi = est.interval(metric, k, scope=scope)
        assert (out[f"{scope}_lower"], out[f"{scope}_upper"]) == pytest.approx((lo, hi), abs=1e-12)
    # the order of the samples in the view does not matter
    shuffled = _view(reducer, dict(reversed(list(RUNS.items()))))
    assert passhat_interval(ci=0.9)(shuffled) == pytest.approx(out, abs=1e-12)


def test_level_changes_the_interval() -> None:
    wide = passhat_interval(ci=0.99)(_view(pass_hat_reducer(2)))
    narrow = passhat_interval(ci=0.5)(_view(pass_hat_reducer(2)))
    for scope in ("benchmark", "population"):
        assert wide[f"{scope}_lower"] < narrow[f"{scope}_lower"]
        assert wide[f"{scope}_upper"] > narrow[f"{scope}_upper"]


def test_other_views_get_nothing_and_one_warning(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(metrics_module._warned, "other_view", False)
    theirs = _view(pass_k(2))
    with caplog.at_level(logging.WARNING, logger="passhat.inspect.metrics"):
        assert passhat_interval()(theirs) == {}
        assert passhat_interval()(theirs) == {}
    assert [r.message for r in caplog.records].count(
        "passhat interval: the views of reducers that are not passhat's (e.g. Inspect's pass_k "
        "or mean) hold no counts and get no interval; passhat_reducers(k=...) gives the views "
        "that do"
    ) == 1
    assert passhat_interval()([]) == {}  # Inspect's empty view


def test_one_view_one_reducer() -> None:
    mixed = _view(pass_hat_reducer(2))[:3] + _view(pass_at_reducer(2))[3:]
    with pytest.raises(FormatError, match="several reducers"):
        view_counts(mixed)
    twice = _view(pass_hat_reducer(2))
    twice[1] = SampleScore(score=twice[1].score, sample_id="a")
    with pytest.raises(FormatError, match="sample id\\(s\\) a appear more than once"):
        view_counts(twice)


def test_parameters_recorded_and_checked() -> None:
    from inspect_ai._util.registry import registry_info, registry_params

    m = passhat_interval(0.8, n_boot=500, seed=3)
    assert registry_info(m).name == "passhat/interval"
    assert registry_params(m) == {"ci": 0.8, "n_boot": 500, "seed": 3}
    bad = (
        ({"ci": 0}, "ci"),
        ({"n_boot": 10}, "n_boot"),
        ({"seed": 1.5}, "seed"),
        ({"seed": -1}, "seed"),
    )
    for kwargs, param in bad:
        with pytest.raises(OptionError) as err:
            passhat_interval(**kwargs)  # type: ignore[arg-type]
        assert err.value.param == param
