"""Divergence points: normalisation, alignment, and the real τ-bench airline file.

Oracles
-------
* Brute force: for small random action sequences, every optimal LCS alignment
  of a failing run F with a passing run P is enumerated; the divergence step
  of F must be the largest, over passing runs and over optimal alignments, of
  the number of leading matched columns (+1, 1-based), which is what
  ``passhat.traces`` documents.
* Planted divergence (known truth): failing runs skip a permission check at
  step 3; other runs, passing and failing, reorder harmless lookups.
* The real τ-bench gpt-4o airline results, trajectories read by hand (the
  reasons are written next to each assertion).
"""

from __future__ import annotations

import functools
import itertools
import json
import random

import pandas as pd
import pytest

import passhat as ph
from passhat.errors import OptionError, ValidationError
from passhat.traces import canonical_args, normalise


def _traces(runs: list[tuple[str, int, bool, list[str]]], args: dict | None = None) -> ph.Traces:
    """Build traces from (task, trial, success, [action, ...]) rows."""
    steps, trials = [], []
    for task, trial, ok, actions in runs:
        trials.append({"task_id": task, "trial": trial, "success": ok})
        for i, a in enumerate(actions):
            name, _, arg = a.partition(":")
            steps.append(
                {
                    "task_id": task,
                    "trial": trial,
                    "step": i,
                    "action": name,
                    "args": {"id": arg} if arg else {},
                }
            )
    return ph.Traces.from_frames(
        pd.DataFrame(steps, columns=["task_id", "trial", "step", "action", "args"]),
        pd.DataFrame(trials),
    )


# --------------------------------------------------------------- normalisation
def test_canonical_args_key_order_whitespace_numbers() -> None:
    a = canonical_args('{"b": 2.0, "a": {"y": [1, 2.50], "x": " v "}}')
    b = canonical_args({"a": {"x": "v", "y": [1.0, 2.5]}, "b": 2})
    assert a == b == '{"a":{"x":"v","y":[1,2.5]},"b":2}'
    assert canonical_args(None) == canonical_args("") == "{}"
    assert canonical_args("not json") == '"not json"'
    assert canonical_args({"flag": True, "n": 1}) == '{"flag":true,"n":1}'  # bool stays bool


def test_ignore_keys_at_any_depth_and_ignore_args() -> None:
    tr = _traces([("t", 0, True, ["pay:1"]), ("t", 1, False, ["pay:2"])])
    # the only argument is an id: ignoring it makes the two runs identical
    d = ph.divergence(tr, ignore_keys=["id"])
    assert d.table["kind"].tolist() == ["none"]
    assert ph.divergence(tr, ignore_args=True).table["kind"].tolist() == ["none"]
    d = ph.divergence(tr)
    assert d.table[["step", "kind", "marker"]].values.tolist() == [[1, "differs", "pay"]]
    nested = canonical_args({"a": {"id": 3, "k": 1}, "id": 9}, ignore_keys=["id"])
    assert nested == '{"a":{"k":1}}'


def test_stage_mapping_and_lookup_rule() -> None:
    tr = _traces([("t", 0, True, ["fetch_x", "audit", "pay"]), ("t", 1, False, ["fetch_x", "pay"])])
    n = normalise(tr, stages={"audit": "permission", "pay": "payment"})
    lk = dict(zip(n.steps["action"], n.steps["lookup"], strict=True))
    assert lk == {"fetch_x": True, "audit": False, "pay": False}
    d = ph.divergence(tr, stages={"audit": "permission", "pay": "payment"})
    assert d.by_stage["stage"].tolist() == ["permission"]
    assert d.by_action["action"].tolist() == ["audit"]
    # a tool mapped to the stage "lookup" becomes order-free
    n2 = normalise(tr, stages={"audit": "lookup"})
    assert bool(n2.steps.loc[n2.steps["action"] == "audit", "lookup"].iloc[0])


def test_normalised_twice_is_an_error() -> None:
    tr = normalise(_traces([("t", 0, True, ["a"]), ("t", 1, False, ["b"])]))
    with pytest.raises(OptionError, match="normalised already"):
        ph.divergence(tr, ignore_args=True)


# --------------------------------------------------------------- planted truth
def _planted(seed: int = 0, tasks: int = 6, per_task: int = 8) -> ph.Traces:
    """Passing: lookups (any order), check_permission, refund, notify.

    Failing: the same lookups (any order) and then refund without the check:
    the planted divergence is step 3 (1-based), kind ``skips``, marker
    ``check_permission``. Control failures ``ctl`` make exactly a passing run's
    calls with the lookups reordered: no divergence may be reported for them.
    """
    rng = random.Random(seed)
    runs = []
    for t in range(tasks):
        task = f"task{t}"
        for trial in range(per_task):
            lookups = [f"get_user:u{t}", f"get_order:o{t}"]
            rng.shuffle(lookups)
            tail = [f"check_permission:o{t}", f"refund:o{t}", f"notify:u{t}"]
            role = trial % 4  # 0, 1 pass; 2 skips the check; 3 reorders only (control)
            if role in (0, 1):
                runs.append((task, trial, True, lookups + tail))
            elif role == 2:
                runs.append((task, trial, False, [*lookups, tail[1], tail[2]]))
            else:
                runs.append((task, trial, False, lookups[::-1] + tail))
    return _traces(runs)


def test_planted_skip_found_and_reordering_not_reported() -> None:
    d = ph.divergence(_planted())
    t = d.table
    skip = t[t["trial"] % 4 == 2]
    ctl = t[t["trial"] % 4 == 3]
    assert len(skip) == 12 and len(ctl) == 12
    assert skip["step"].tolist() == [3] * 12
    assert set(skip["kind"]) == {"skips"}
    assert set(skip["marker"]) == {"check_permission"}
    assert set(skip["failing_action"]) == {"refund"}
    assert all(p[0].startswith("check_permission(") for p in skip["passing_actions"])
    # reordering harmless lookups alone: never a divergence
    assert set(ctl["kind"]) == {"none"} and ctl["step"].isna().all()
    assert d.counts["no_action_divergence"] == 12
    assert any("skips 12" in x and "none 12" in x for x in d.sentences)
    assert d.sentences[-1].startswith("A divergence point is a lead")
    assert d.by_action.iloc[0]["action"] == "check_permission"
    assert d.by_action.iloc[0]["runs"] == 12 and d.by_action.iloc[0]["tasks"] == 6


def test_index_by_index_would_be_wrong_here() -> None:
    """An extra action early shifts every later index; alignment is not fooled.

    Passing: a b c d. Failing: a x b c d (inserts x): divergence at step 2,
    kind ``extra``, and the passing run's action there is b.
    Failing 2: a c d (skips b): step 2, ``skips``, marker b.
    """
    d = ph.divergence(
        _traces(
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
        _traces(
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
        _traces(
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
    d = ph.divergence(_traces(runs), lookups=[])
    got = {
        (r["task_id"], r["trial"]): (None if pd.isna(r["step"]) else int(r["step"]))
        for _, r in d.table.iterrows()
    }
    assert got == truth


# --------------------------------------------------------------- bad input
def test_runs_without_tool_calls_and_unscored_are_counted() -> None:
    steps = pd.DataFrame({"task_id": ["t"], "trial": [0], "action": ["book"]})
    trials = pd.DataFrame(
        {
            "task_id": ["t", "t", "t", "u"],
            "trial": [0, 1, 2, 0],
            "success": [True, False, None, True],
        }
    )
    d = ph.divergence(ph.Traces.from_frames(steps, trials))
    assert d.table[["trial", "step", "kind", "marker", "n_steps"]].values.tolist() == [
        [1, 1, "stops", "book", 0]
    ]
    assert d.counts["unscored_trials"] == 1
    assert d.counts["failing_runs_without_tool_calls"] == 1
    assert d.counts["tasks_all_pass"] == 1 and d.counts["tasks_mixed"] == 1
    assert any("unscored" in n for n in d.notes())
    assert any("no tool call" in n for n in d.notes())


def test_no_mixed_task_and_no_steps_at_all() -> None:
    none = pd.DataFrame(columns=["task_id", "trial", "action"])
    trials = pd.DataFrame({"task_id": ["t", "t"], "trial": [0, 1], "success": [True, True]})
    d = ph.divergence(ph.Traces.from_frames(none, trials))
    assert len(d.table) == 0 and len(d.by_action) == 0 and len(d.tasks) == 0
    assert d.counts["tasks_all_pass"] == 1 and d.counts["tasks_mixed"] == 0
    # both runs made no tool call: the failing one did exactly what the passing one did
    trials["success"] = [True, False]
    d = ph.divergence(ph.Traces.from_frames(none, trials))
    assert d.table[["trial", "kind"]].values.tolist() == [[1, "none"]]


def test_systems_are_kept_apart() -> None:
    steps = pd.DataFrame(
        {"system": ["a", "a", "b"], "task_id": "t", "trial": [0, 1, 0], "action": ["x", "y", "x"]}
    )
    trials = pd.DataFrame(
        {
            "system": ["a", "a", "b", "b"],
            "task_id": "t",
            "trial": [0, 1, 0, 1],
            "success": [True, False, True, False],
        }
    )
    d = ph.divergence(ph.Traces.from_frames(steps, trials))
    assert d.table[["system", "step", "kind"]].values.tolist() == [
        ["a", 1, "substitutes"],
        ["b", 1, "stops"],
    ]


def test_from_frames_rejects_orphans_and_duplicates() -> None:
    trials = pd.DataFrame({"task_id": ["t"], "trial": [0], "success": [True]})
    with pytest.raises(ValidationError, match="have no outcome"):
        ph.Traces.from_frames(
            pd.DataFrame({"task_id": ["t"], "trial": [5], "action": ["a"]}), trials
        )
    with pytest.raises(ValidationError, match="duplicate step"):
        ph.Traces.from_frames(
            pd.DataFrame({"task_id": ["t", "t"], "trial": [0, 0], "step": [1, 1], "action": "a"}),
            trials,
        )
    with pytest.raises(ValidationError, match="duplicate trial"):
        ph.Traces.from_frames(
            pd.DataFrame(columns=["task_id", "trial", "action"]), pd.concat([trials, trials])
        )
    with pytest.raises(ValidationError, match="lacks column"):
        ph.Traces.from_frames(pd.DataFrame({"task_id": ["t"]}), trials)


def test_unknown_task_is_an_error() -> None:
    with pytest.raises(OptionError, match="not in the traces"):
        ph.divergence(_planted(), tasks=["nope"])


# --------------------------------------------------------------- real τ-bench data
@pytest.fixture(scope="module")
def airline(tau_airline_path):  # type: ignore[no-untyped-def]
    tr = ph.read_traces(tau_airline_path, format="tau-bench")
    return tr, ph.divergence(tr)


def test_every_mixed_task_gets_a_divergence_point(airline) -> None:  # type: ignore[no-untyped-def]
    tr, d = airline
    t = tr.trials
    g = t.groupby("task_id")["success"].agg(["sum", "size"])
    mixed = set(g[(g["sum"] > 0) & (g["sum"] < g["size"])].index)
    assert len(mixed) == 26  # 50 tasks: 10 always pass, 14 always fail (pass^1 = 0.42)
    assert set(d.table["task_id"]) == mixed
    with_point = set(d.table.loc[d.table["kind"] != "none", "task_id"])
    assert with_point == mixed
    assert len(d.table) == d.counts["failing_runs"] == 60
    assert d.by_action["runs"].sum() == d.counts["divergence_points"]


def _row(d, task: str, trial: int) -> dict:  # type: ignore[no-untyped-def]
    r = d.table[(d.table["task_id"] == task) & (d.table["trial"] == trial)]
    assert len(r) == 1
    return r.iloc[0].to_dict()


def test_hand_verified_task_16(airline) -> None:  # type: ignore[no-untyped-def]
    """Task 16 (send a 150 certificate). Read by hand: trials 0, 1, 2 (reward 0)
    make no tool call at all and the user ends the chat; trial 3 (reward 1)
    calls get_user_details, looks up nine reservations, then
    send_certificate(amount 150). So each failing run stops at step 1, before
    the passing run's first lookup."""
    _, d = airline
    for trial in (0, 1, 2):
        r = _row(d, "16", trial)
        assert (r["step"], r["kind"], r["failing_action"]) == (1, "stops", "<end>")
        assert r["n_steps"] == 0 and r["termination"] == "user_stop"
        assert 'get_user_details({"user_id":"ethan_martin_2396"})' in r["passing_actions"]


def test_hand_verified_task_43(airline) -> None:  # type: ignore[no-untyped-def]
    """Task 43 (rename a passenger on 3RK2T9). Read by hand: the passing trial 0
    calls get_reservation_details(3RK2T9) then update_reservation_passengers.
    Trials 2 and 3 make the same lookup and then call
    transfer_to_human_agents at step 2 (they believe basic economy cannot be
    changed); trial 1 makes the lookup and then stops. So: step 2 for all three,
    'substitutes' (transfer instead of the update) for 2 and 3, 'stops' for 1."""
    _, d = airline
    for trial in (2, 3):
        r = _row(d, "43", trial)
        assert (r["step"], r["kind"], r["failing_action"]) == (
            2,
            "substitutes",
            "transfer_to_human_agents",
        )
        assert r["termination"] == "transfer_to_human"
        assert r["passing_actions"][0].startswith("update_reservation_passengers(")
    r = _row(d, "43", 1)
    assert (r["step"], r["kind"], r["marker"]) == (2, "stops", "update_reservation_passengers")


def test_hand_verified_task_30(airline) -> None:  # type: ignore[no-untyped-def]
    """Task 30 (cancel FDZ0T5 and HSR97W). Read by hand: every run makes the
    same eight lookups (user, then seven reservations). The passing trials 1
    and 3 then cancel FDZ0T5 and HSR97W. Trial 0 calls transfer_to_human_agents
    at step 9; trial 2 cancels HSR97W at step 9 and never FDZ0T5: aligned, it
    skips the passing runs' cancel of FDZ0T5 (its cancel of HSR97W matches
    their next step)."""
    _, d = airline
    r = _row(d, "30", 0)
    assert (r["step"], r["kind"], r["failing_action"]) == (
        9,
        "substitutes",
        "transfer_to_human_agents",
    )
    assert r["n_passing_at_point"] == 2
    r = _row(d, "30", 2)
    assert (r["step"], r["kind"], r["failing_action"]) == (9, "skips", "cancel_reservation")
    assert r["failing_args"] == '{"reservation_id":"HSR97W"}'
    assert r["passing_actions"] == ['cancel_reservation({"reservation_id":"FDZ0T5"})']


def test_hand_verified_task_39(airline) -> None:  # type: ignore[no-untyped-def]
    """Task 39 (a cancellation the policy does not allow). Read by hand: the
    passing trial 0 only looks up H8Q05L and makes no change. Trials 2 and 3
    make the same lookup and then cancel_reservation(H8Q05L) at step 2: they
    act after the passing run had stopped ('continues')."""
    _, d = airline
    for trial in (2, 3):
        r = _row(d, "39", trial)
        assert (r["step"], r["kind"], r["failing_action"]) == (2, "continues", "cancel_reservation")
        assert r["passing_actions"] == ["<end>"]


def test_task_filter_and_stage_aggregation(airline, tau_airline_path) -> None:  # type: ignore[no-untyped-def]
    tr, full = airline
    one = ph.divergence(tr, tasks=["43"])
    assert set(one.table["task_id"]) == {"43"}
    pd.testing.assert_frame_equal(
        one.table.reset_index(drop=True),
        full.table[full.table["task_id"] == "43"].reset_index(drop=True),
    )
    stages = {
        "get_user_details": "lookup",
        "get_reservation_details": "lookup",
        "search_direct_flight": "lookup",
        "search_onestop_flight": "lookup",
        "calculate": "lookup",
        "transfer_to_human_agents": "escalate",
        "cancel_reservation": "write",
        "update_reservation_flights": "write",
        "update_reservation_passengers": "write",
        "update_reservation_baggages": "write",
        "book_reservation": "write",
        "send_certificate": "write",
    }
    d = ph.divergence(tr, stages=stages)
    assert set(d.by_stage["stage"]) <= {"lookup", "escalate", "write"}
    assert d.by_stage["runs"].sum() == d.counts["divergence_points"]


# --------------------------------------------------------------- extra lookups tolerated
def test_planted_skip_still_found_when_extra_lookups_are_tolerated() -> None:
    """The planted skipped permission check is not a lookup: the option changes nothing."""
    strict = ph.divergence(_planted())
    d = ph.divergence(_planted(), tolerate_extra_lookups=True)
    cols = ["task_id", "trial", "step", "kind", "marker", "failing_action", "passing_actions"]
    pd.testing.assert_frame_equal(d.table[cols], strict.table[cols])
    assert (d.table["extra_lookups"] == 0).all()
    assert d.settings["tolerate_extra_lookups"] is True
    assert strict.settings["tolerate_extra_lookups"] is False


def _planted_extra_lookup(seed: int = 1, tasks: int = 6, per_task: int = 8) -> ph.Traces:
    """Passing: get_user, get_order (any order), check_permission, refund:o, notify.

    Failing role 2: an extra ``get_history`` lookup, then the planted write
    divergence: ``refund`` with the wrong id. Even tasks put the extra lookup
    inside the first stretch of lookups (step 1, 2 or 3), odd tasks right after
    the permission check (step 4), so it stands alone between two actions. The
    refund is at step 5 either way. Role 3: the extra lookup only (otherwise a
    passing run's calls). Role 1 fails by skipping get_order, a lookup the
    passing runs make: still a divergence, at check_permission (step 2).
    """
    rng = random.Random(seed)
    runs = []
    truth = {}
    for t in range(tasks):
        task = f"task{t}"
        for trial in range(per_task):
            lookups = [f"get_user:u{t}", f"get_order:o{t}"]
            rng.shuffle(lookups)
            head = [*lookups, f"check_permission:o{t}"]
            # role 0 passes; 1 skips a lookup; 2 extra lookup + wrong refund; 3 extra only
            role = trial % 4
            if role == 0:
                runs.append((task, trial, True, [*head, f"refund:o{t}", f"notify:u{t}"]))
                continue
            if role == 1:
                seq = [f"get_user:u{t}", f"check_permission:o{t}", f"refund:o{t}", f"notify:u{t}"]
                truth[(task, trial)] = ((2, "skips", "get_order"), (2, "skips", "get_order", 0))
                runs.append((task, trial, False, seq))
                continue
            at = rng.randint(0, 2) if t % 2 == 0 else 3
            seq = [*head]
            seq.insert(at, f"get_history:u{t}")
            # strict: 'extra' when the passing run's next action follows in F, else (the
            # lookup alone between check_permission and a wrong refund) 'substitutes'
            kind = "substitutes" if role == 2 and at == 3 else "extra"
            if role == 2:
                seq += [f"refund:wrong{t}", f"notify:u{t}"]
                tol = (5, "differs", "refund", 1)
            else:
                seq += [f"refund:o{t}", f"notify:u{t}"]
                tol = (None, "none", None, 1)
            truth[(task, trial)] = ((at + 1, kind, "get_history"), tol)
            runs.append((task, trial, False, seq))
    return _traces(runs), truth


def _got(d: ph.Divergence, cols: list[str]) -> dict:
    return {
        (r["task_id"], r["trial"]): tuple(None if pd.isna(r[c]) else r[c] for c in cols)
        for _, r in d.table.iterrows()
    }


def test_extra_lookup_before_planted_write_divergence() -> None:
    """Without the option the extra lookup is the point; with it, the wrong refund is."""
    tr, truth = _planted_extra_lookup()
    strict = ph.divergence(tr)
    assert _got(strict, ["step", "kind", "marker"]) == {k: v[0] for k, v in truth.items()}
    assert strict.counts["points_at_lookup"] == 24  # roles 2 and 3, 12 runs each
    assert any("--tolerate-extra-lookups" in n for n in strict.notes())
    tol = ph.divergence(tr, tolerate_extra_lookups=True)
    cols = ["step", "kind", "marker", "extra_lookups"]
    assert _got(tol, cols) == {k: v[1] for k, v in truth.items()}
    wrong = tol.table[tol.table["kind"] == "differs"]
    assert set(wrong["failing_action"]) == {"refund"}
    assert all(p[0].startswith('refund({"id":"o') for p in wrong["passing_actions"])
    assert tol.counts["points_at_lookup"] == 0
    assert tol.counts["tolerated_extra_lookups"] == 24
    assert tol.counts["no_action_divergence"] == 12
    assert any("apart from extra read-only lookups" in n for n in tol.notes())
    assert "nor is an extra read-only lookup" in tol.sentences[0]
    assert dict(zip(tol.by_action["action"], tol.by_action["runs"], strict=True)) == {
        "get_order": 12,  # the skipped lookup (role 1) is still a divergence
        "refund": 12,
    }


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
    d = ph.divergence(_traces(runs), tolerate_extra_lookups=True)
    got = d.table.set_index("trial")[["step", "kind", "marker", "extra_lookups"]]
    assert got.loc[1].tolist() == [2, "differs", "get_a", 0]
    assert got.loc[2].tolist() == [4, "extra", "pay", 0]
    assert got.loc[3].tolist() == [3, "skips", "pay", 0]
    assert got.loc[4].tolist() == [5, "stops", "ship", 1]
    assert got.loc[5, "kind"] == "none" and got.loc[5, "extra_lookups"] == 2
    strict = ph.divergence(_traces(runs)).table.set_index("trial")
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
    d = ph.divergence(_traces(runs), tolerate_extra_lookups=True)
    got = {
        (r["task_id"], r["trial"]): (None if pd.isna(r["step"]) else int(r["step"]))
        for _, r in d.table.iterrows()
    }
    assert got == truth
    strict = ph.divergence(_traces(runs)).table
    later = d.table["step"].fillna(10**6) >= strict["step"].fillna(10**6)
    assert later.all()  # tolerating can only move a point later (or remove it)
    moved = (d.table["step"].fillna(0) != strict["step"].fillna(0)).sum()
    assert moved > 0  # the oracle disagrees with the strict rule somewhere: it has teeth


# --------------------------------------------------------------- τ-bench, extra lookups tolerated
@pytest.fixture(scope="module")
def airline_tolerant(airline):  # type: ignore[no-untyped-def]
    tr, _ = airline
    return ph.divergence(tr, tolerate_extra_lookups=True)


def test_hand_verified_task_39_trial_1_tolerant(airline, airline_tolerant) -> None:  # type: ignore[no-untyped-def]
    """Task 39, trial 1 (reward 0). Read by hand: the user (Sophia Silva) wants to
    cancel the basic-economy reservation H8Q05L for a full refund, which the policy
    does not allow; the expected actions are only get_reservation_details(H8Q05L).
    The passing trial 0 makes exactly that lookup, explains the policy and changes
    nothing. Trial 1 first calls get_user_details(sophia_silva_7557) (an extra,
    read-only lookup), then get_reservation_details(H8Q05L), tells the user that
    insurance allows the cancellation, and calls cancel_reservation(H8Q05L) at
    step 3: that write is what fails the task. Without the option the point is
    the extra lookup at step 1 ('extra'); with it, the cancellation at step 3,
    'continues' (the passing run had ended), with one tolerated extra lookup."""
    _, d = airline
    r = _row(d, "39", 1)
    assert (r["step"], r["kind"], r["failing_action"]) == (1, "extra", "get_user_details")
    assert r["extra_lookups"] == 0
    r = _row(airline_tolerant, "39", 1)
    assert (r["step"], r["kind"], r["failing_action"]) == (3, "continues", "cancel_reservation")
    assert r["failing_args"] == '{"reservation_id":"H8Q05L"}'
    assert r["passing_actions"] == ["<end>"] and r["extra_lookups"] == 1
    assert r["n_steps"] == 3 and r["termination"] == "user_stop"


def test_hand_verified_task_29_tolerant(airline, airline_tolerant) -> None:  # type: ignore[no-untyped-def]
    """Task 29 (Amelia Davis wants to cancel her one-passenger upcoming flights;
    the expected actions are eight lookups and no cancellation). Read by hand: the
    passing trial 0 makes no tool call at all (it keeps asking for reservation
    ids). Trials 1, 2, 3 each call get_user_details and seven
    get_reservation_details, then cancel_reservation(UDMOP1) at step 9 and
    cancel_reservation(4XGCCM) at step 10. Strict: they 'continue' at step 1 (a
    lookup after the passing run ended). Tolerated: the eight lookups are extra
    reads; the point is the first cancellation, step 9."""
    _, d = airline
    for trial in (1, 2, 3):
        r = _row(d, "29", trial)
        assert (r["step"], r["kind"], r["failing_action"]) == (1, "continues", "get_user_details")
        r = _row(airline_tolerant, "29", trial)
        assert (r["step"], r["kind"], r["failing_action"]) == (9, "continues", "cancel_reservation")
        assert r["failing_args"] == '{"reservation_id":"UDMOP1"}' and r["extra_lookups"] == 8


def test_hand_verified_points_without_extra_lookups_do_not_move(airline, airline_tolerant) -> None:  # type: ignore[no-untyped-def]
    """Tasks 16, 43, 30 and task 39 trials 2, 3 (hand-verified above) involve no
    extra lookup: the option leaves their rows unchanged."""
    _, d = airline
    cols = ["step", "kind", "failing_action", "failing_args", "passing_actions", "marker"]
    for task, trial in [("16", 0), ("16", 1), ("16", 2), ("43", 1), ("43", 2), ("43", 3),
                        ("30", 0), ("30", 2), ("39", 2), ("39", 3)]:  # fmt: skip
        a, b = _row(d, task, trial), _row(airline_tolerant, task, trial)
        assert [str(a[c]) for c in cols] == [str(b[c]) for c in cols], (task, trial)
        assert b["extra_lookups"] == 0


def test_tolerant_airline_every_point_kept_and_only_lookup_points_move(
    airline, airline_tolerant
) -> None:  # type: ignore[no-untyped-def]
    tr, d = airline
    t = airline_tolerant
    assert len(t.table) == 60 and (t.table["kind"] != "none").all()  # still every failing run
    m = d.table.merge(t.table, on=["task_id", "trial"], suffixes=("", "_t"))
    assert (m["step_t"] >= m["step"]).all()
    lookups = set(normalise(tr).settings["lookups"])
    moved = m[m["step_t"] != m["step"]]
    assert moved["failing_action"].isin(lookups).all()  # only points at a lookup move
    assert len(moved) == 23 and d.counts["points_at_lookup"] == 27
    # the 4 that stay are changed lookups: calculate with another expression than any
    # passing run's, whose own calculate is missing (tasks 11 and 17)
    stay = m[m["failing_action"].isin(lookups) & (m["step_t"] == m["step"])]
    assert set(stay["kind_t"]) == {"differs"} and set(stay["failing_action"]) == {"calculate"}
    assert sorted(stay["task_id"]) == ["11", "11", "17", "17"]
    assert t.counts["tolerated_extra_lookups"] == int(t.table["extra_lookups"].sum()) > 0


def test_cli_tolerate_extra_lookups(tau_airline_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from passhat.cli import main

    args = ["traces", str(tau_airline_path), "--format", "tau-bench", "--task", "39", "--json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["step"] for r in doc["divergence"]] == [1, 2, 2]
    assert doc["settings"]["tolerate_extra_lookups"] is False
    assert main([*args, "--tolerate-extra-lookups"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(r["step"], r["extra_lookups"]) for r in doc["divergence"]] == [(3, 1), (2, 0), (2, 0)]
    assert doc["settings"]["tolerate_extra_lookups"] is True
    assert main(args[:-1]) == 0  # the table and the hint at the strict point
    out = capsys.readouterr().out
    assert "--tolerate-extra-lookups" in out and "┃ extra lookups ┃" not in out
    assert main([*args[:-1], "--tolerate-extra-lookups"]) == 0
    out = capsys.readouterr().out
    assert "┃ extra lookups ┃" in out and "at a read-only lookup" not in out


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


def test_divergence_of_something_other_than_traces_is_a_validation_error() -> None:
    trials = ph.counts_from_arrays([2, 2], [1, 2])
    with pytest.raises(ValidationError, match="read_traces"):
        ph.divergence(trials)  # type: ignore[arg-type]
