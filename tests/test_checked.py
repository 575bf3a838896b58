"""A count table is checked once per unchanged state (passhat._checked, trials.validate_counts).

Each test builds a table, validates it, changes it as a user could (in place, by replacing a
variable or a coordinate, by deriving a table) and checks that the validator sees exactly the
change: the bad value is refused again, an unchanged table is not re-checked.
"""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import passhat as ph
from passhat import _frames, trials
from passhat._checked import Parts
from passhat.errors import CountError


def _table(tasks: int = 4) -> xr.Dataset:
    ids = [f"t{i}" for i in range(tasks)]
    return ph.counts_from_arrays(np.full(tasks, 5), np.arange(tasks) % 6, tasks=ids)


@pytest.fixture
def unique_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the id-coordinate checks (the costliest check, as every one of them)."""
    calls: list[int] = []
    real = _frames.check_unique_coords

    def counted(ds: xr.Dataset, where: str) -> None:
        calls.append(1)
        real(ds, where)

    monkeypatch.setattr(trials, "check_unique_coords", counted)
    return calls


def test_a_validated_table_is_not_checked_again(unique_checks: list[int]) -> None:
    ds = _table()
    assert unique_checks == [1]  # by counts_from_arrays
    unique_checks.clear()
    for _ in range(3):
        out = trials.validate_counts(ds)
        assert out is not ds  # still a copy: a caller may change its own
        assert out["n"].values.tolist() == ds["n"].values.tolist()
    ph.estimate(ds, k=[1, 2])
    assert unique_checks == []


def test_writing_in_place_is_seen(unique_checks: list[int]) -> None:
    ds = _table()
    ph.estimate(ds, k=1)
    ds["c"].values[0, 1] = 9  # c = 9 > n = 5, written into the very array
    exceeds = r"task 't1' \(system 'system'\): c = 9 successes exceeds n = 5"
    with pytest.raises(CountError, match=exceeds):
        ph.estimate(ds, k=1)
    ds["c"].values[0, 1] = 1
    ds["n"].values[0, 2] = -1
    with pytest.raises(CountError, match="n = -1 is negative"):
        trials.validate_counts(ds)
    ds["n"].values[0, 2] = 5
    ds["weight"].values[0, 0] = np.nan
    with pytest.raises(CountError, match="weight nan is not a non-negative number"):
        trials.validate_counts(ds)


def test_replacing_a_variable_or_the_ids_is_seen() -> None:
    ds = _table()
    trials.validate_counts(ds)
    ds["unscored"] = ds["unscored"] - 1  # a new array: -1 everywhere
    with pytest.raises(CountError, match="unscored = -1 is negative"):
        trials.validate_counts(ds)
    ds = _table()
    trials.validate_counts(ds)
    twice = ds.assign_coords(task=["a", "b", "a", "c"])
    with pytest.raises(CountError, match="task 'a' appears more than once"):
        trials.validate_counts(twice)


def test_a_derived_table_has_only_its_new_parts_checked(unique_checks: list[int]) -> None:
    ds = _table()
    unique_checks.clear()
    derived = ds.assign(present=ds["present"] & np.array([[True, False, True, True]]))
    parts = Parts(derived)
    assert parts.known == {"n", "c", "nc", "unscored", "weight", "system", "task"}
    out = trials.validate_counts(derived)
    assert out["present"].values.tolist() == [[True, False, True, True]]
    assert unique_checks == []
    assert "present" in Parts(derived).known  # now checked too


def test_a_pair_checked_with_another_partner_is_checked_again() -> None:
    # n changed in place, then validated beside another c: the first (n, c) pair must be
    # checked again, though n and c are each known
    ds = _table()
    trials.validate_counts(ds)
    ds["n"].values[0, 3] = 2  # c = 3 there
    other = ds.assign(c=xr.zeros_like(ds["c"]))
    trials.validate_counts(other)  # n (as it is now) is checked and remembered with c = 0
    with pytest.raises(CountError, match="c = 3 successes exceeds n = 2"):
        trials.validate_counts(ds)


def test_float_counts_are_checked_and_converted_every_time() -> None:
    ds = _table().copy(deep=True)
    ds["n"] = ds["n"].astype(float)
    for _ in range(2):
        out = trials.validate_counts(ds)
        assert out["n"].dtype == np.int64
    ds["n"].values[0, 0] = 4.5
    with pytest.raises(CountError, match=r"n = 4\.5 is not a whole number"):
        trials.validate_counts(ds)
