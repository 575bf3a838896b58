"""The planner's shared argument checks (passhat.planner._checks): each states its rule and
names the parameter, which a command shows as its option.

Oracle: the rules themselves (a probability in (0, 1), a whole number, one quantity left out,
the default of the level), each on a value that breaks it and one that does not.
"""

from __future__ import annotations

import warnings

import pytest

from passhat.errors import OptionError
from passhat.planner._checks import one_left_out, prob, renamed_keyword, whole


@pytest.mark.parametrize(
    "call,needle,param",
    [
        (lambda: prob("rate", 1.0), "rate must lie in (0, 1)", "rate"),
        (lambda: prob("rate", True), "rate must be a number", "rate"),
        (lambda: prob("rate", -0.1, closed_low=True), "rate must lie in [0, 1)", "rate"),
        (lambda: whole("runs", 2.5), "runs must be a whole number ≥ 0", "runs"),
        (lambda: whole("runs", 0, minimum=1), "runs must be a whole number ≥ 1", "runs"),
    ],
)
def test_shared_checks_state_the_rule_and_name_the_parameter(call, needle, param):
    with pytest.raises(OptionError) as err:
        call()
    assert needle in str(err.value) and err.value.param == param
    err.value.options[param] = "--" + param.replace("_", "-")
    assert str(err.value).startswith("--" + param)


def test_shared_checks_pass_good_values():
    assert prob("rate", 0.0, closed_low=True) == 0.0
    assert whole("runs", 3.0, minimum=1) == 3
    assert one_left_out({"a": None, "b": 2}, call="q") == ("a", {"a": None, "b": 2})


def test_one_left_out_states_the_rule_in_python_and_in_options():
    with pytest.raises(OptionError) as err:
        one_left_out({"a": 1, "b": 2, "c": None, "d": None}, call="q", example="a=1, b=2")
    assert str(err.value) == (
        "give all but one of a, b, c and d; the one left out is solved for (given: a, b); "
        "e.g. q(a=1, b=2)"
    )
    err.value.options.update({n: f"--{n}" for n in "abcd"})
    assert "give all but one of --a, --b, --c and --d" in str(err.value)
    assert "(given: --a, --b)" in str(err.value)


def test_one_left_out_fills_the_default_only_beside_another_unknown():
    assert one_left_out({"f": 0.1, "ci": None, "n": None}, call="q", default=("ci", 0.95)) == (
        "n",
        {"f": 0.1, "ci": 0.95, "n": None},
    )
    # ci left out alone: it is the one solved for
    assert one_left_out({"f": 0.1, "ci": None, "n": 10}, call="q", default=("ci", 0.95))[0] == "ci"


def test_a_renamed_keyword_warns_and_is_used():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert renamed_keyword("confidence", 0.9, "ci", None) == 0.9
    assert caught[0].category is DeprecationWarning and "use ci=" in str(caught[0].message)
    assert renamed_keyword("confidence", None, "ci", 0.8) == 0.8
    with pytest.raises(OptionError, match="give ci or confidence"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        renamed_keyword("confidence", 0.9, "ci", 0.8, default=0.95)
