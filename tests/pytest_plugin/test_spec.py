"""The marker's options: each bad value gets a message naming the option and the rule.

Oracle: the definitions — pass^k = p^k for independent runs with one rate, so the per-run
goal is min_pass_hat^(1/k) (e.g. 0.9^(1/5) = 0.97915); the level ci gives α = 1 − ci.
"""

from __future__ import annotations

import pytest

from passhat.errors import OptionError
from passhat.pytest_plugin.spec import reliability_spec


def test_defaults_and_the_per_run_goal() -> None:
    spec = reliability_spec(min_pass_hat=0.9, k=5)
    assert (spec.k, spec.ci, spec.max_runs, spec.undecided, spec.unscored) == (
        5, 0.95, 200, "pass", ()
    )  # fmt: skip
    assert spec.min_rate == pytest.approx(0.979148, abs=1e-6)
    assert spec.min_rate**5 == pytest.approx(0.9)
    assert spec.max_failure_rate == pytest.approx(1 - 0.9 ** (1 / 5))
    assert spec.alpha == 0.05  # 1 − 0.95 read as 0.05, not 0.050000000000000044
    assert reliability_spec(min_pass_hat=0.5, undecided="skip").undecided == "skip"
    assert reliability_spec(min_pass_hat=0.5, unscored=TimeoutError).unscored == (TimeoutError,)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 2}, "give min_pass_hat, the goal on pass^k"),
        ({"min_pass_hat": 1.0}, "min_pass_hat must lie strictly between 0 and 1 (got 1.0)"),
        ({"min_pass_hat": "0.9"}, "min_pass_hat must be a number in (0, 1) (got '0.9')"),
        ({"min_pass_hat": True}, "min_pass_hat must be a number in (0, 1) (got True)"),
        ({"min_pass_hat": float("nan")}, "min_pass_hat must lie strictly between 0 and 1"),
        ({"min_pass_hat": 0.9, "k": 0}, "k must be a whole number ≥ 1 (got 0)"),
        ({"min_pass_hat": 0.9, "k": 2.0}, "k must be a whole number ≥ 1 (got 2.0)"),
        ({"min_pass_hat": 0.9, "ci": 95}, "ci must lie strictly between 0 and 1, e.g. 0.95"),
        ({"min_pass_hat": 0.9, "max_runs": 0}, "max_runs must be a whole number ≥ 1 (got 0)"),
        ({"min_pass_hat": 0.9, "undecided": "xfail"}, "undecided must be one of pass, fail, skip"),
        ({"min_pass_hat": 0.9, "unscored": "TimeoutError"}, "unscored must be exception classes"),
        (
            {"min_pass_hat": 0.9, "confidence": 0.9},
            "unknown option confidence=0.9: the level is ci",
        ),
        ({"min_pass_hat": 0.9, "alpha": 0.05}, "give the level ci = 1 − alpha"),
        ({"min_pass_hat": 0.9, "retries": 3}, "unknown option retries=3: known: ci, k, max_runs"),
    ],
)
def test_each_bad_option_is_named(kwargs, message) -> None:
    with pytest.raises(OptionError) as err:
        reliability_spec(**kwargs)
    assert message in str(err.value)


def test_options_are_named() -> None:
    with pytest.raises(OptionError, match="options are named"):
        reliability_spec(0.9)
