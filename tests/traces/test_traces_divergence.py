"""Divergence points: planted truth, counts and notes, and the real τ-bench airline file.

Oracles
-------
* Planted divergence (known truth): failing runs skip a permission check at
  step 3; other runs, passing and failing, reorder harmless lookups. With
  extra lookups planted before a wrong write, the strict point is the extra
  lookup and the tolerant point the write.
* The real τ-bench gpt-4o airline results, trajectories read by hand (the
  reasons are written next to each assertion).
"""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest
from traces_testdata import planted, traces_of

import passhat as ph
from passhat.errors import OptionError, ValidationError
from passhat.traces import normalise


def test_normalised_twice_is_an_error() -> None:
    tr = normalise(traces_of([("t", 0, True, ["a"]), ("t", 1, False, ["b"])]))
    with pytest.raises(OptionError, match="normalised already"):
        ph.divergence(tr, ignore_args=True)


# --------------------------------------------------------------- planted truth
def test_planted_skip_found_and_reordering_not_reported() -> None:
    d = ph.divergence(planted())
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


def test_planted_skip_still_found_when_extra_lookups_are_tolerated() -> None:
    """The planted skipped permission check is not a lookup: the option changes nothing."""
    strict = ph.divergence(planted())
    d = ph.divergence(planted(), tolerate_extra_lookups=True)
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
    return traces_of(runs), truth


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


# --------------------------------------------------------------- what is counted
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


def test_divergence_of_something_other_than_traces_is_a_validation_error() -> None:
    trials = ph.counts_from_arrays([2, 2], [1, 2])
    with pytest.raises(ValidationError, match="read_traces"):
        ph.divergence(trials)  # type: ignore[arg-type]
