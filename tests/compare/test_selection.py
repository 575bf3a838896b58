"""Tests of passhat.compare.selection: which systems a comparison compares.

Oracle: the rule stated in the module docstring — one input: the named
baseline or the first of exactly two, the others as candidates; two inputs:
the baseline from the first, the candidates from the second, same-named single
systems relabelled — checked case by case, with the merged count table checked
cell by cell against the inputs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.compare import select_systems
from passhat.errors import OptionError, ValidationError


def _trials(systems: list[str], tasks: list[str], *, hash_: str = "h") -> ph.Trials:
    rows = [
        {"system": s, "task_id": t, "trial": r, "success": (i + j + r) % 2 == 0,
         "scenario_hash": f"{hash_}-{t}"}
        for i, s in enumerate(systems)
        for j, t in enumerate(tasks)
        for r in range(3)
    ]  # fmt: skip
    return ph.Trials.from_frame(pd.DataFrame(rows))


def test_one_input_with_two_systems_takes_the_first_as_baseline() -> None:
    sel = select_systems(_trials(["x", "y"], ["t1", "t2"]))
    assert (sel.baseline, sel.candidates) == ("x", ["y"])
    sel = select_systems(_trials(["x", "y"], ["t1", "t2"]), baseline="y")
    assert (sel.baseline, sel.candidates) == ("y", ["x"])
    assert sel.table("x")["system"].values.tolist() == ["x"]


def test_one_input_with_several_systems_needs_the_baseline_named() -> None:
    data = _trials(["x", "y", "z"], ["t1"])
    with pytest.raises(OptionError, match=r"3 systems \(x, y, z\); name the baseline \(baseline="):
        select_systems(data)
    with pytest.raises(OptionError, match=r"\(base_system=NAME"):
        select_systems(data, keywords=("base_system", "cand_system"))
    assert select_systems(data, baseline="y").candidates == ["x", "z"]  # input order
    assert select_systems(data, baseline="y", candidate="z").candidates == ["z"]
    one = r"takes one candidate: name it \(candidate=NAME / --candidate NAME\)"
    with pytest.raises(OptionError, match=one):
        select_systems(data, baseline="y", one_candidate=True)
    with pytest.raises(OptionError, match="baseline 'w' not found; have x, y, z"):
        select_systems(data, baseline="w")
    with pytest.raises(OptionError, match="candidate 'y' not found among x, z"):
        select_systems(data, baseline="y", candidate="y")


def test_one_input_with_one_system_is_refused() -> None:
    with pytest.raises(ValidationError, match="comparison needs two systems; the data hold one"):
        select_systems(_trials(["x"], ["t1"]))


def test_two_single_system_inputs_base_first_and_labelled_apart() -> None:
    a, b = _trials(["v"], ["t1", "t2"]), _trials(["v"], ["t2", "t3"])
    sel = select_systems(a, b)
    assert (sel.baseline, sel.candidates) == ("v (A)", ["v (B)"])
    assert select_systems(a, b, names=("old", "new")).candidates == ["new"]
    assert select_systems(a, b, baseline="v").baseline == "v (A)"  # a's own name
    with pytest.raises(OptionError, match="the first is the baseline"):
        select_systems(_trials(["v"], ["t1"]), _trials(["w"], ["t1"]), baseline="w")
    # the merged table: union of the tasks, cells of the other input absent
    ds = sel.counts
    assert ds["task"].values.tolist() == ["t1", "t2", "t3"]
    assert ds["present"].values.tolist() == [[True, True, False], [False, True, True]]
    assert ds["n"].values.tolist() == [[3, 3, 0], [0, 3, 3]]
    # each side keeps its own task coordinates
    assert sel.table("v (B)")["scenario_hash"].values.tolist() == ["h-t2", "h-t3"]


def test_two_inputs_baseline_from_the_first_candidates_from_the_second() -> None:
    a = _trials(["x", "y"], ["t1", "t2"])
    b = _trials(["p", "q"], ["t1", "t2"], hash_="g")
    with pytest.raises(OptionError, match=r"base: holds 2 systems \(x, y\); name the baseline"):
        select_systems(a, b)
    sel = select_systems(a, b, baseline="y")
    assert (sel.baseline, sel.candidates) == ("y", ["p", "q"])
    assert sel.counts["system"].values.tolist() == ["y", "p", "q"]
    np.testing.assert_array_equal(sel.counts["c"].sel(system="p"), b.counts()["c"].sel(system="p"))
    assert sel.table("q")["scenario_hash"].values.tolist() == ["g-t1", "g-t2"]
    assert select_systems(a, b, baseline="x", candidate="q").candidates == ["q"]
    with pytest.raises(OptionError, match=r"cand: holds 2 systems \(p, q\); choose one"):
        select_systems(a, b, baseline="x", one_candidate=True)
    with pytest.raises(OptionError, match="base: system 'p' not found; have x, y"):
        select_systems(a, b, baseline="p")
    with pytest.raises(OptionError, match="cand: system 'x' not found; have p, q"):
        select_systems(a, b, baseline="x", candidate="x")


def test_the_same_system_on_both_sides_is_refused_and_one_input_twice_works() -> None:
    a = _trials(["x", "y"], ["t1"])
    with pytest.raises(ValidationError, match="both inputs hold system 'x'"):
        select_systems(a, a, baseline="x")
    sel = select_systems(a, a, baseline="x", candidate="y")  # one run set, two builds in it
    assert (sel.baseline, sel.candidates) == ("x", ["y"])


def test_wrong_input_types_name_the_input() -> None:
    good = _trials(["x"], ["t1"])
    with pytest.raises(ValidationError, match=r"cand: expected passhat\.Trials"):
        select_systems(good, [1, 2])  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=r"^expected passhat\.Trials"):
        select_systems("runs.csv")  # type: ignore[arg-type]
