"""Alignment of failing against passing runs, strict and tolerating extra lookups.

Oracles
-------
* Brute force (strict): for small random action sequences, every optimal LCS
  alignment of a failing run F with a passing run P is enumerated; the
  divergence step of F must be the largest, over passing runs and over optimal
  alignments, of the number of leading matched columns (+1, 1-based), which is
  what ``passhat.traces.divergence_points`` documents.
* Brute force (tolerant): any subset of F's lookups is deleted; the longest
  prefix of F that then follows a passing run gives the point.
* Small hand-made cases, one per kind of difference (extra, skips, stops,
  continues, substitutes, differs), worked out by hand next to each assertion.
"""

from __future__ import annotations

import functools
import itertools
import random

import pandas as pd
import pytest
from traces_testdata import traces_of

import passhat as ph


# --------------------------------------------------------------- kinds of difference
def test_index_by_index_would_be_wrong_here() -> None:
    """An extra action early shifts every later index; alignment is not fooled.

    Passing: a b c d. Failing: a x b c d (inserts x): divergence at step 2,
    kind ``extra``, and the passing run's action there is b.
    Failing 2: a c d (skips b): step 2, ``skips``, marker b.
    """
    d = ph.divergence(
        traces_of(
            [
                ("t", 0, True, ["pay_a", "pay_b", "pay_c", "pay_d"]),
                ("t", 1, False, ["pay_a", "pay_x", "pay_b", "pay_c", "pay_d"]),
                ("t", 2, False, ["pay_a", "pay_c", "pay_d"]),
                ("t", 3, False, ["pay_a", "pay_b"]),
                ("t", 4, False, ["pay_a", "pay_b", "pay_c", "pay_d", "pay_e"]),
                ("t", 5, False, ["pay_a", "pay_z", "pay_q"]),
            ]
        )
    )
    got = d.table.set_index("trial")[["step", "kind", "marker"]]
    assert got.loc[1].tolist() == [2, "extra", "pay_x"]
    assert got.loc[2].tolist() == [2, "skips", "pay_b"]
    assert got.loc[3].tolist() == [3, "stops", "pay_c"]
    assert got.loc[4].tolist() == [5, "continues", "pay_e"]
    assert got.loc[5].tolist() == [2, "substitutes", "pay_z"]


def test_lookup_block_refinement() -> None:
    """Inside a stretch of lookups: a missing, an extra and a changed lookup."""
    p = ["get_a:1", "get_b:2", "pay:1"]
    d = ph.divergence(
        traces_of(
            [
                ("t", 0, True, p),
                ("t", 1, False, ["get_b:2", "pay:1"]),  # leaves out get_a: diverges at pay
                ("t", 2, False, ["get_b:2", "get_c:3", "get_a:1", "pay:1"]),  # extra get_c
                ("t", 3, False, ["get_b:2", "get_a:9", "pay:1"]),  # get_a with another id
            ]
        )
    )
    got = d.table.set_index("trial")[["step", "kind", "marker"]]
    assert got.loc[1].tolist() == [2, "skips", "get_a"]
    assert got.loc[2].tolist() == [2, "extra", "get_c"]
    assert got.loc[3].tolist() == [2, "differs", "get_a"]


def test_latest_point_over_passing_runs() -> None:
    """F follows passing run 1 longer than passing run 0: the point is where it leaves run 1."""
    d = ph.divergence(
        traces_of(
            [
                ("t", 0, True, ["do_a", "do_b", "do_c"]),
                ("t", 1, True, ["do_a", "do_x", "do_y", "do_z"]),
                ("t", 2, False, ["do_a", "do_x", "do_y", "do_q"]),
            ]
        )
    )
    r = d.table.iloc[0]
    assert (r["step"], r["failing_action"], r["passing_actions"]) == (4, "do_q", ["do_z({})"])
    assert r["n_passing_at_point"] == 1


# --------------------------------------------------------------- brute-force oracle
def _all_optimal_leading_matches(f: tuple[int, ...], p: tuple[int, ...]) -> int:
    """Max over optimal LCS alignments of the number of leading matched columns."""

    @functools.cache
    def lcs(i: int, j: int) -> int:
        if i == len(f) or j == len(p):
            return 0
        best = max(lcs(i + 1, j), lcs(i, j + 1))
        if f[i] == p[j]:
            best = max(best, 1 + lcs(i + 1, j + 1))
        return best

    # walk only along optimal alignments; count leading matches
    @functools.cache
    def lead(i: int, j: int) -> int:
        if i == len(f) or j == len(p):
            return 0
        if f[i] == p[j] and lcs(i, j) == 1 + lcs(i + 1, j + 1):
            return 1 + lead(i + 1, j + 1)
        return 0

    return lead(0, 0)


@pytest.mark.parametrize("seed", range(5))
def test_divergence_equals_brute_force_lcs(seed: int) -> None:
    rng = random.Random(seed)
    runs = []
    truth = {}
    for t in range(8):
        seqs = []
        for trial in range(rng.randint(2, 5)):
            n = rng.randint(0, 6)
            seq = tuple(rng.randint(0, 2) for _ in range(n))
            seqs.append((trial, trial % 2 == 0 or trial == 1, seq))
        runs += [(f"t{t}", tr, ok, [f"act{a}" for a in s]) for tr, ok, s in seqs]
        passing = [s for _, ok, s in seqs if ok]
        for tr, ok, s in seqs:
            if not ok and passing:
                lead = max(_all_optimal_leading_matches(s, q) for q in passing)
                identical = any(s == q for q in passing)
                truth[(f"t{t}", tr)] = None if identical else lead + 1
    d = ph.divergence(traces_of(runs), lookups=[])
    got = {
        (r["task_id"], r["trial"]): (None if pd.isna(r["step"]) else int(r["step"]))
        for _, r in d.table.iterrows()
    }
    assert got == truth


# --------------------------------------------------------------- extra lookups tolerated
def test_tolerated_lookups_still_see_changed_lookups_and_extra_actions() -> None:
    """Only *extra* lookups are tolerated: a changed lookup, an extra or reordered action
    and a stop are reported as before, at the same step."""
    p = ["get_a:1", "get_b:2", "pay:1", "ship:1"]
    runs = [
        ("t", 0, True, p),
        ("t", 1, False, ["get_b:2", "get_a:9", "pay:1", "ship:1"]),  # get_a changed
        ("t", 2, False, ["get_a:1", "get_b:2", "pay:1", "pay:1", "ship:1"]),  # extra pay
        ("t", 3, False, ["get_a:1", "get_b:2", "ship:1", "pay:1"]),  # order of actions
        ("t", 4, False, ["get_a:1", "get_c:3", "get_b:2", "pay:1"]),  # extra lookup, then stops
        ("t", 5, False, ["get_a:1", "get_b:2", "get_a:7", "pay:1", "ship:1", "get_z:1"]),
    ]
    d = ph.divergence(traces_of(runs), tolerate_extra_lookups=True)
    got = d.table.set_index("trial")[["step", "kind", "marker", "extra_lookups"]]
    assert got.loc[1].tolist() == [2, "differs", "get_a", 0]
    assert got.loc[2].tolist() == [4, "extra", "pay", 0]
    assert got.loc[3].tolist() == [3, "skips", "pay", 0]
    assert got.loc[4].tolist() == [5, "stops", "ship", 1]
    assert got.loc[5, "kind"] == "none" and got.loc[5, "extra_lookups"] == 2
    strict = ph.divergence(traces_of(runs)).table.set_index("trial")
    for trial in (1, 2, 3):  # no extra lookup involved: identical answers
        assert strict.loc[trial, "step"] == got.loc[trial, "step"]
        assert strict.loc[trial, "kind"] == got.loc[trial, "kind"]
    assert strict.loc[4, "step"] == 2 and strict.loc[5, "step"] == 3  # the extra lookups


def _blocks(seq: tuple[str, ...]) -> list[tuple[str, object]]:
    """Lookup stretches as sorted tuples, actions alone."""
    out: list[tuple[str, object]] = []
    for a in seq:
        if a.startswith("get_"):
            if out and out[-1][0] == "L":
                out[-1] = ("L", tuple(sorted([*out[-1][1], a])))  # type: ignore[misc]
            else:
                out.append(("L", (a,)))
        else:
            out.append(("A", a))
    return out


def _follows(g: tuple[str, ...], p: tuple[str, ...]) -> bool:
    """g is a prefix of p, its last lookup stretch possibly a sub-multiset of p's."""
    gb, pb = _blocks(g), _blocks(p)
    if not gb:
        return True
    if len(gb) > len(pb) or gb[:-1] != pb[: len(gb) - 1]:
        return False
    if gb[-1] == pb[len(gb) - 1]:
        return True
    last, want = gb[-1], pb[len(gb) - 1]
    if last[0] != "L" or want[0] != "L":
        return False
    need = list(want[1])  # type: ignore[call-overload]
    for a in last[1]:  # type: ignore[attr-defined]
        if a not in need:
            return False
        need.remove(a)
    return True


def _tolerant_step_brute_force(f: tuple[str, ...], passing: list[tuple[str, ...]]) -> int | None:
    """Delete any subset of F's lookups: the longest prefix of F that then follows a
    passing run gives the point (+1); None when F minus some lookups *is* a passing run."""
    lk = [i for i, a in enumerate(f) if a.startswith("get_")]
    best = 0
    for p in passing:
        for r in range(len(lk) + 1):
            for drop in itertools.combinations(lk, r):
                kept = tuple(a for i, a in enumerate(f) if i not in drop)
                if _blocks(kept) == _blocks(p):
                    return None
                i = len(f)
                while i > best:
                    g = tuple(a for j, a in enumerate(f[:i]) if j not in drop)
                    if _follows(g, p):
                        break
                    i -= 1
                best = max(best, i)
    return best + 1


@pytest.mark.parametrize("seed", range(5))
def test_tolerant_divergence_equals_brute_force_deletion(seed: int) -> None:
    """Oracle: the tolerant point is the longest prefix of F that follows some passing
    run once any subset of F's lookups is deleted (lookups are name-only here, so a
    'changed' lookup, reported at its own step, cannot occur)."""
    rng = random.Random(100 + seed)
    alphabet = ["act0", "act1", "get_a", "get_b"]
    runs = []
    truth = {}
    for t in range(20):
        seqs = []
        for trial in range(rng.randint(2, 5)):
            seq = tuple(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
            seqs.append((trial, trial % 2 == 0 or trial == 1, seq))
        runs += [(f"t{t}", tr, ok, list(s)) for tr, ok, s in seqs]
        passing = [s for _, ok, s in seqs if ok]
        for tr, ok, s in seqs:
            if not ok and passing:
                truth[(f"t{t}", tr)] = _tolerant_step_brute_force(s, passing)
    d = ph.divergence(traces_of(runs), tolerate_extra_lookups=True)
    got = {
        (r["task_id"], r["trial"]): (None if pd.isna(r["step"]) else int(r["step"]))
        for _, r in d.table.iterrows()
    }
    assert got == truth
    strict = ph.divergence(traces_of(runs)).table
    later = d.table["step"].fillna(10**6) >= strict["step"].fillna(10**6)
    assert later.all()  # tolerating can only move a point later (or remove it)
    moved = (d.table["step"].fillna(0) != strict["step"].fillna(0)).sum()
    assert moved > 0  # the oracle disagrees with the strict rule somewhere: it has teeth


def test_tolerant_edge_cases_match_strict() -> None:
    """No steps at all, a failing run without tool calls, two systems, a skipped
    scratch-pad tool: nothing lookup-related, so both rules give the same table."""
    none = pd.DataFrame(columns=["task_id", "trial", "action"])
    cases = [
        (none, pd.DataFrame({"task_id": ["t", "t"], "trial": [0, 1], "success": [True, True]})),
        (none, pd.DataFrame({"task_id": ["t", "t"], "trial": [0, 1], "success": [True, False]})),
        (
            pd.DataFrame({"task_id": ["t"], "trial": [0], "action": ["book"]}),
            pd.DataFrame(
                {"task_id": ["t", "t", "t"], "trial": [0, 1, 2], "success": [True, False, None]}
            ),
        ),
        (
            pd.DataFrame(
                {"system": ["a", "a", "b"], "task_id": "t", "trial": [0, 1, 0], "action": "x"}
            ),
            pd.DataFrame(
                {
                    "system": ["a", "a", "b", "b"],
                    "task_id": "t",
                    "trial": [0, 1, 0, 1],
                    "success": [True, False, True, False],
                }
            ),
        ),
        (
            pd.DataFrame(
                {
                    "task_id": "t",
                    "trial": [0, 0, 0, 1, 1, 1],
                    "action": ["get_a", "think", "pay", "get_a", "think", "refund"],
                }
            ),
            pd.DataFrame({"task_id": ["t", "t"], "trial": [0, 1], "success": [True, False]}),
        ),
    ]
    for steps, trials in cases:
        tr = ph.Traces.from_frames(steps, trials)
        a = ph.divergence(tr).table
        b = ph.divergence(tr, tolerate_extra_lookups=True).table
        pd.testing.assert_frame_equal(a, b)
