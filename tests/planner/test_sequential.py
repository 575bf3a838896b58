"""Tests of passhat.plan.sequential: the anytime-valid gate (pass / fail / continue).

Oracles
-------
* The e-values of :mod:`passhat.planner.betting` on block counts made by hand from the
  outcome matrix (failing blocks; paired differences −1/0/+1), and brute-force products
  for weighted tasks.
* Determinism of clean streams: with no failure the gate passes at a known round, and the
  projection made one round earlier names that round.
* Optional stopping by simulation, the comparison with a baseline: candidate = baseline,
  checked after every pair of runs up to 1,000 (one task) and after every round (twenty
  unequal tasks): P(pass) and P(fail) ≤ α + Monte-Carlo error, while a fixed-n one-sided
  sign test peeked at the same way rejects several times more often than α.
* The projection of further runs against the median of simulated continuations.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import passhat as ph
from passhat.errors import InputError, OptionError
from passhat.planner.betting import FRACTIONS, log_evalue, log_evalue_path

ALPHA = 0.05


def trials_from(
    outcomes: np.ndarray, system: str = "sys", tasks: list[str] | None = None
) -> ph.Trials:
    """Trials from a tasks × runs boolean matrix (trial = column index)."""
    T, n = outcomes.shape
    names = tasks or [f"t{i}" for i in range(T)]
    df = pd.DataFrame(
        {
            "system": system,
            "task_id": np.repeat(names, n),
            "trial": np.tile(np.arange(n), T),
            "success": outcomes.ravel().astype(bool),
        }
    )
    return ph.Trials.from_frame(df)


def test_bound_gate_evalues_from_failing_blocks() -> None:
    rng = np.random.default_rng(0)
    out = rng.random((6, 20)) < 0.97
    g = ph.plan.sequential(trials_from(out), k=5, max_failure_rate=0.2)
    blocks = out.reshape(6, 4, 5).all(axis=2)
    fails = int((~blocks).sum())
    assert (g.rounds, g.tasks, g.runs_used, g.runs_set_aside) == (4, 6, 120, 0)
    assert math.log(g.e_pass) == pytest.approx(
        log_evalue([0, 1], [24 - fails, fails], null=0.2, side="below"), rel=1e-12
    )
    assert math.log(g.e_fail) == pytest.approx(
        log_evalue([0, 1], [24 - fails, fails], null=0.2, side="above"), rel=1e-12
    )
    assert g.estimate == pytest.approx(fails / 24)
    assert g.lower <= g.estimate <= g.upper


def test_clean_stream_passes_where_projected() -> None:
    """Ten tasks, every run passes: pass at a fixed round, projected one round earlier."""
    f0 = 0.05
    decisions = []
    for r in range(1, 12):
        g = ph.plan.sequential(trials_from(np.ones((10, r), bool)), max_failure_rate=f0)
        decisions.append(g.decision)
        if g.decision == "continue":
            last = g
    first = decisions.index("pass") + 1
    assert decisions == ["continue"] * (first - 1) + ["pass"] * (11 - first + 1)
    assert last.rounds + last.further_rounds == first and last.projected == "pass"
    assert last.further_runs == 10 * last.further_rounds
    assert last.exit_code == 3 and g.exit_code == 0
    assert "Anytime-valid" in g.reasoning and "at most 5%" in g.reasoning


def test_fail_and_continue() -> None:
    rng = np.random.default_rng(1)
    bad = ph.plan.sequential(trials_from(rng.random((10, 30)) < 0.7), max_failure_rate=0.05)
    assert (bad.decision, bad.exit_code) == ("fail", 1)
    assert bad.lower > 0.05
    few = ph.plan.sequential(trials_from(rng.random((10, 3)) < 0.97), max_failure_rate=0.05)
    assert few.decision == "continue" and few.further_runs is not None and few.further_runs > 0
    assert f"about {few.further_runs} more run(s)" in few.reasoning


def test_unequal_runs_use_every_decided_run() -> None:
    """t3 has 7 runs, the others 12: the e-values are the larger of the 7 complete rounds'
    and the 12 rounds' with t3's 5 missing runs failing (for pass) or passing (for fail);
    the bounds the tighter; the warning and reruns name t3 and its 5 runs."""
    rng = np.random.default_rng(2)
    out = rng.random((5, 12)) < 0.9
    df = trials_from(out).frame
    ragged = df[~((df["task_id"] == "t3") & (df["trial"] >= 7))]  # t3 has 7 runs
    g = ph.plan.sequential(ph.Trials.from_frame(ragged), max_failure_rate=0.2)
    fails7 = int((~out[:, :7]).sum())
    worst, best = out.copy(), out.copy()
    worst[3, 7:], best[3, 7:] = False, True
    f_worst, f_best = int((~worst).sum()), int((~best).sum())

    def le(fails: int, n: int, side: str) -> float:
        return log_evalue([0, 1], [n - fails, fails], null=0.2, side=side)  # type: ignore[arg-type]

    assert math.log(g.e_pass) == pytest.approx(
        max(le(fails7, 35, "below"), le(f_worst, 60, "below"))
    )
    assert math.log(g.e_fail) == pytest.approx(
        max(le(fails7, 35, "above"), le(f_best, 60, "above"))
    )
    assert (g.rounds, g.top, g.runs_used, g.runs_set_aside) == (7, 12, 55, 0)
    assert g.reruns.to_dict(orient="records") == [
        {"build": "candidate", "system": "sys", "task": "t3", "runs": 5}
    ]
    assert "7 to 12" in g.warnings[0] and "t3 +5" in g.warnings[0]
    # the estimate: each task's failure rate over its own complete blocks (t3: 7 runs)
    want = np.mean([(~out[i, : 7 if i == 3 else 12]).mean() for i in range(5)])
    assert g.estimate == pytest.approx(want)
    complete = ph.plan.sequential(trials_from(out[:, :7]), max_failure_rate=0.2)
    assert g.lower >= complete.lower and g.upper <= complete.upper  # the tighter of the looks
    # equal runs, k not dividing them (5 runs, k = 2): the note does not claim they differ
    even = ph.plan.sequential(trials_from(out[:, :5]), max_failure_rate=0.2, k=2)
    assert even.rounds == 2 and even.runs_set_aside == 5
    assert "are 5 on every task" in even.warnings[0] and "differ" not in even.warnings[0]
    # unscored runs are not decided runs: counted in a note, and the decision is unchanged
    extra = pd.DataFrame({"system": "sys", "task_id": "t0", "trial": [12, 13], "success": None})
    with_unscored = ph.Trials.from_frame(pd.concat([trials_from(out).frame, extra]))
    u = ph.plan.sequential(with_unscored, max_failure_rate=0.2)
    plain = ph.plan.sequential(trials_from(out), max_failure_rate=0.2)
    assert (u.decision, u.e_pass, u.e_fail) == (plain.decision, plain.e_pass, plain.e_fail)
    assert u.warnings[0].startswith("2 unscored run(s) (no verdict")
    assert not any("unscored" in w for w in plain.warnings)


def test_count_table_equals_trials_at_k1() -> None:
    rng = np.random.default_rng(3)
    out = rng.random((8, 15)) < 0.95
    from_trials = ph.plan.sequential(trials_from(out), max_failure_rate=0.1)
    ds = ph.counts_from_arrays(np.full(8, 15), out.sum(axis=1))
    from_counts = ph.plan.sequential(ds, max_failure_rate=0.1)
    assert (from_counts.e_pass, from_counts.upper) == (from_trials.e_pass, from_trials.upper)


def test_no_complete_round() -> None:
    out = np.ones((3, 4), bool)
    g = ph.plan.sequential(trials_from(out), k=5, max_failure_rate=0.1)
    assert (g.decision, g.rounds) == ("continue", 0)
    assert "no complete round yet" in g.reasoning and "a round needs 5" in g.reasoning


def test_weighted_tasks_brute_force() -> None:
    out = np.array([[1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1]], bool)
    w = {"t0": 1.0, "t1": 2.0, "t2": 5.0}
    g = ph.plan.sequential(trials_from(out), max_failure_rate=0.3, weights=w)
    c = 3 * np.array([1, 2, 5]) / 8  # T · w_i
    lam = FRACTIONS / (c.max() * (1 - 0.3))
    wealth = np.ones_like(FRACTIONS)
    for i in range(3):
        for x in ~out[i]:
            wealth *= 1 + lam * c[i] * (0.3 - x)
    assert g.e_pass == pytest.approx(wealth.mean(), rel=1e-10)
    assert g.estimate == pytest.approx((1 / 6 * 1 + 0 + 1 / 6 * 5) / 8)


def test_baseline_gate_paired_differences() -> None:
    rng = np.random.default_rng(4)
    base = rng.random((12, 10)) < 0.8
    cand = rng.random((12, 10)) < 0.8
    g = ph.plan.sequential(trials_from(cand, "new"), trials_from(base, "old"), k=2, margin=0.1)
    zb = base.reshape(12, 5, 2).all(axis=2).astype(int)
    zc = cand.reshape(12, 5, 2).all(axis=2).astype(int)
    d = zc - zb
    counts = [(d == -1).sum(), (d == 0).sum(), (d == 1).sum()]
    kw = {"null": -0.1, "lo": -1.0, "hi": 1.0}
    assert math.log(g.e_pass) == pytest.approx(
        log_evalue([-1, 0, 1], counts, side="above", **kw), rel=1e-12
    )
    assert math.log(g.e_fail) == pytest.approx(
        log_evalue([-1, 0, 1], counts, side="below", **kw), rel=1e-12
    )
    assert g.estimate == pytest.approx(d.mean())
    assert g.systems == {"candidate": "new", "baseline": "old"}
    assert g.runs_used == 2 * 120
    # the same comparison from one input holding both systems
    both = ph.Trials.from_frame(
        pd.concat([trials_from(cand, "new").frame, trials_from(base, "old").frame])
    )
    one = ph.plan.sequential(both, baseline_system="old", k=2, margin=0.1)
    assert (one.e_pass, one.e_fail, one.systems) == (g.e_pass, g.e_fail, g.systems)


def test_baseline_gate_on_the_agents_example() -> None:
    agents = ph.load_example("agents")
    g = ph.plan.sequential(agents, baseline_system="baseline", margin=0.02)
    assert g.decision == "pass" and g.systems["candidate"] == "guided"
    assert g.lower > 0  # guided is better, not merely not worse
    # the reverse direction: baseline is worse than guided, but not shown more than 0.02 worse
    worse = ph.plan.sequential(agents, baseline_system="guided", margin=0.02)
    assert worse.decision == "continue" and worse.upper > -0.02 and worse.projected == "fail"
    assert worse.further_runs is not None and worse.further_runs > 0
    # ... and shown worse at all (margin 0): the confidence sequence excludes 0
    shown = ph.plan.sequential(agents, baseline_system="guided", margin=0.0)
    assert shown.decision == "fail" and shown.upper < 0 and shown.exit_code == 1


def test_baseline_gate_uses_every_decided_run_of_both_builds() -> None:
    """8 runs per task, k = 4, one run of some tasks unscored: round 2's pairs are the
    candidate's block minus the baseline's, an open block at its worst for each side
    (every outcome its missing run allows, enumerated), and the e-values the larger of the
    two looks; reruns list each build's tasks."""
    rng = np.random.default_rng(13)
    T = 12
    out_c, out_b = rng.random((T, 8)) < 0.9, rng.random((T, 8)) < 0.85
    lost_c, lost_b = {2: 5, 7: 1}, {4: 6}  # task: the trial left unscored
    frames = []
    for name, out, lost in (("new", out_c, lost_c), ("old", out_b, lost_b)):
        df = trials_from(out, name).frame
        for t, trial in lost.items():
            df.loc[(df["task_id"] == f"t{t}") & (df["trial"] == trial), "success"] = pd.NA
        frames.append(ph.Trials.from_frame(df))
    g = ph.plan.sequential(frames[0], frames[1], margin=0.05, k=4)

    def block_range(out: np.ndarray, lost: dict[int, int], t: int) -> tuple[int, int]:
        runs = [bool(x) for r, x in enumerate(out[t]) if lost.get(t) != r][4:8]
        can = {int(all([*runs, x])) for x in (False, True)} if len(runs) < 4 else {int(all(runs))}
        return min(can), max(can)

    d_lo, d_hi = [], []
    for t in range(T):
        c, b = block_range(out_c, lost_c, t), block_range(out_b, lost_b, t)
        d_lo.append(c[0] - b[1])
        d_hi.append(c[1] - b[0])
    first = out_c[:, :4].all(axis=1).astype(int) - out_b[:, :4].all(axis=1).astype(int)
    per = [[(first == v).sum() for v in (-1, 0, 1)]]

    def counts(d2: list[int]) -> list[int]:
        both = np.concatenate([first, d2])
        return [int((both == v).sum()) for v in (-1, 0, 1)]

    def le(c: list[int], side: str) -> float:
        return log_evalue([-1, 0, 1], c, null=-0.05, side=side, lo=-1, hi=1)  # type: ignore[arg-type]

    assert math.log(g.e_pass) == pytest.approx(max(le(per[0], "above"), le(counts(d_lo), "above")))
    assert math.log(g.e_fail) == pytest.approx(max(le(per[0], "below"), le(counts(d_hi), "below")))
    assert (g.rounds, g.top) == (1, 2)
    assert g.reruns.to_dict(orient="records") == [
        {"build": "candidate", "system": "new", "task": "t2", "runs": 1},
        {"build": "candidate", "system": "new", "task": "t7", "runs": 1},
        {"build": "baseline", "system": "old", "task": "t4", "runs": 1},
    ]
    assert g.further_runs is None or g.further_runs >= 3


def test_baseline_with_more_rounds_is_paired_on_the_common_ones() -> None:
    rng = np.random.default_rng(5)
    base, cand = rng.random((4, 12)) < 0.9, rng.random((4, 6)) < 0.9
    g = ph.plan.sequential(trials_from(cand, "new"), trials_from(base, "old"), margin=0.05)
    assert g.rounds == 6 and any("pairs the first 6" in w for w in g.warnings)


def test_bad_input_one_line_each() -> None:
    t = trials_from(np.ones((3, 5), bool))
    cases = [
        ({}, OptionError, r"give max_failure_rate \(a bound on 1 − pass\^k\) or margin with"),
        ({"max_failure_rate": 0.1, "margin": 0.1}, OptionError, "give one of .* not both"),
        ({"margin": 0.1}, OptionError, "margin compares with a baseline"),
        ({"max_failure_rate": 0.1, "baseline_system": "x"}, OptionError, "bounds one system"),
        ({"max_failure_rate": 1.5}, OptionError, "max_failure_rate must lie"),
        ({"max_failure_rate": 0.1, "alpha": 0}, OptionError, "alpha must lie"),
        ({"max_failure_rate": 0.1, "alpha": True}, OptionError, "alpha must be a number"),
        ({"max_failure_rate": "x"}, OptionError, "max_failure_rate must be a number"),
        ({"margin": -0.1, "baseline_system": "x"}, OptionError, "margin must lie"),
        ({"max_failure_rate": 0.1, "k": 0}, OptionError, "k must be"),
    ]
    for kwargs, err, msg in cases:
        with pytest.raises(err, match=msg) as info:
            ph.plan.sequential(t, **kwargs)
        assert "\n" not in str(info.value)
    other = trials_from(np.ones((2, 5), bool), tasks=["t0", "zz"])
    with pytest.raises(InputError, match=r"tasks differ: 2 only in the baseline \(t1, t2\)"):
        ph.plan.sequential(other, t, margin=0.1)
    ds = ph.counts_from_arrays([5, 5, 5], [5, 5, 5], tasks=["t0", "t1", "t2"])
    with pytest.raises(InputError, match="needs trial tables"):
        ph.plan.sequential(ds, t, margin=0.1)
    with pytest.raises(OptionError, match="same system"):
        ph.plan.sequential(t, baseline_system="sys", system="sys", margin=0.1)


def test_result_views_and_dict() -> None:
    g = ph.plan.sequential(trials_from(np.ones((10, 3), bool)), max_failure_rate=0.05)
    doc = g.to_dict()
    assert list(doc) == ["schema", "schema_version", "passhat_version", "input", "gate"]
    assert doc["schema"] == "passhat.gate" and doc["input"] == {"runs": {}}  # built in Python
    d = doc["gate"]
    assert d["decision"] == "continue" and d["exit_code"] == 3 and d["threshold"] == 20
    assert set(d) >= {"e_pass", "e_fail", "lower", "upper", "further_runs", "assumptions"}
    assert d["reasoning"] == g.reasoning and d["candidate_system"] == g.candidate.system
    text = repr(g)
    assert text.startswith("continue: ") and "further runs to decide" in text
    assert g.view(decision_only=True).parts[0].lines == (g.reasoning,)
    assert len(g.view(decision_only=True).parts) == 1
    assert g.to_frame()["e_pass"].iloc[0] == g.e_pass
    assert "<table" in g._repr_html_()
    assert g.summary().startswith("passhat gate: continue") and "\n" not in g.summary()


# ----------------------------------------------- optional stopping (unequal runs)
def test_unequal_runs_keep_the_error_rates_under_optional_stopping() -> None:
    """studies/gates section 5, fewer streams: the failure rate at the bound, the failing
    tasks losing 60% of their runs; checked after every pass over 10 tasks up to 300 run
    attempts. The gate's rule stays ≤ α + 3 MC errors; pooling the decided runs does not."""
    from study_loader import load_study

    gates = load_study(Path("studies/gates/gates.py"), "gates_study_fast")
    row = gates.null_unequal(0.2, 10, 0.6, 400, np.random.default_rng(11), attempts=300)
    lim = gates.mc_bound(400)
    assert row["sequential_pass"] <= lim and row["sequential_fail"] <= lim, row
    assert row["pooled_stream_pass"] > 2 * ALPHA, row


def test_the_study_transcribes_the_gate() -> None:
    """The study's e-values (k = 1) are the gate's: one stream, checked after each pass."""
    from study_loader import load_study

    gates = load_study(Path("studies/gates/gates.py"), "gates_study_fast")
    rng = np.random.default_rng(12)
    fail = rng.random((1, 6, 4)) < 0.3
    dec = rng.random((1, 6, 4)) >= np.array([0.0, 0.0, 0.5, 0.5])
    F = gates._first_decided(fail, dec)
    for p in range(1, 7):
        rows = [
            {
                "task_id": f"t{t}",
                "trial": r,
                "success": None if not dec[0, r, t] else not fail[0, r, t],
            }
            for t in range(4)
            for r in range(p)
        ]
        g = ph.plan.sequential(ph.Trials.from_frame(pd.DataFrame(rows)), max_failure_rate=0.3)
        n = dec[0, :p].sum(axis=0)
        r_c, r_top = int(n.min()), int(n.max())
        f_c = sum(int(F[0, t, r_c]) for t in range(4))
        f_all = sum(int(F[0, t, n[t]]) for t in range(4))
        miss = int((r_top - n).sum())

        def le(f: int, total: int, side: str) -> float:
            return log_evalue([0, 1], [total - f, f], null=0.3, side=side)  # type: ignore[arg-type]

        want_pass = max(le(f_c, 4 * r_c, "below"), le(f_all + miss, 4 * r_top, "below"))
        want_fail = max(le(f_c, 4 * r_c, "above"), le(f_all, 4 * r_top, "above"))
        if r_top:
            assert math.log(g.e_pass) == pytest.approx(want_pass, abs=1e-12), p
            assert math.log(g.e_fail) == pytest.approx(want_fail, abs=1e-12), p


# ------------------------------------------------------- optional stopping (paired)
def _sign_boundary(n_max: int) -> np.ndarray:
    """Paired e-value at margin 0 depends on (n+, n−) only: fewest n+ that pass, per n−."""
    n_minus = np.arange(n_max + 1)
    lo, hi = np.full(n_max + 1, -1), np.full(n_max + 1, n_max + 1)  # not ok at lo, ok at hi
    target = math.log(1 / ALPHA)
    while np.any(hi - lo > 1):
        mid = np.clip((lo + hi) // 2, 0, n_max)
        counts = np.stack([n_minus, np.zeros_like(mid), mid], axis=1)
        ok = log_evalue_path([-1, 0, 1], counts, null=0.0, side="above", lo=-1, hi=1) >= target
        active = hi - lo > 1
        hi = np.where(active & ok, mid, hi)
        lo = np.where(active & ~ok, mid, lo)
    return hi


def _fixed_sign_test_peeked(n_plus: np.ndarray, n_minus: np.ndarray) -> np.ndarray:
    """One-sided exact sign test on the discordant pairs at α, at every look."""
    disc = n_plus + n_minus
    p = stats.binom.sf(n_plus - 1, disc, 0.5)
    return ((p <= ALPHA) & (disc > 0)).any(axis=1)


@pytest.mark.parametrize(("tasks", "reps"), [(1, 1000), (20, 600)])
def test_candidate_equal_to_baseline_optional_stopping(tasks: int, reps: int) -> None:
    """Candidate = baseline, checked after every round up to 1,000 runs per build."""
    rng = np.random.default_rng(6)
    rounds = 1000 // tasks
    rates = rng.beta(2, 1, size=tasks)
    xb = rng.random((reps, rounds, tasks)) < rates
    xc = rng.random((reps, rounds, tasks)) < rates
    d = xc.astype(np.int8) - xb.astype(np.int8)
    n_plus = np.cumsum((d == 1).sum(axis=2), axis=1)
    n_minus = np.cumsum((d == -1).sum(axis=2), axis=1)
    bnd = _sign_boundary(1000)
    passed = (n_plus >= bnd[n_minus]).any(axis=1).mean()
    failed = (n_minus >= bnd[n_plus]).any(axis=1).mean()  # the mirror image at margin 0
    mc = 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
    assert passed <= ALPHA + mc and failed <= ALPHA + mc
    fixed = _fixed_sign_test_peeked(n_plus, n_minus).mean()
    assert fixed > 2.5 * ALPHA, fixed


def test_sign_boundary_is_the_gates_decision() -> None:
    """The boundary used above is the gate's own decision, end to end, on a few streams."""
    bnd = _sign_boundary(60)
    rng = np.random.default_rng(7)
    for _ in range(3):
        b, c = rng.random((1, 60)) < 0.5, rng.random((1, 60)) < 0.8
        g = ph.plan.sequential(trials_from(c, "new"), trials_from(b, "old"), margin=0.0)
        n_plus, n_minus = int((c & ~b).sum()), int((b & ~c).sum())
        assert (g.decision == "pass") == (n_plus >= bnd[n_minus])


# ------------------------------------------------------------- projection
@pytest.mark.parametrize(
    ("f", "f0", "tasks", "first_failures"), [(0.01, 0.05, 10, 1), (0.1, 0.05, 10, 10)]
)
@pytest.mark.integration  # Monte-Carlo check
def test_projection_matches_simulated_continuations(
    f: float, f0: float, tasks: int, first_failures: int
) -> None:
    """Ten tasks, ten runs each, the estimate equal to the truth: projected vs simulated stop.

    The projection runs the e-value forward at the current rates (a fluid path); the real
    stopping time is random. Oracle: 400 simulated continuations at the true rate. The
    projection sits between their median and 90th percentile and near their mean (rare
    failures: most paths see fewer than the mean and stop earlier than it says).
    """
    rng = np.random.default_rng(8)
    start = np.ones((tasks, 10), bool)
    start.ravel()[:first_failures] = False  # the estimate is the truth
    g = ph.plan.sequential(trials_from(start), max_failure_rate=f0)
    assert g.decision == "continue" and g.estimate == pytest.approx(f)
    side = "below" if f < f0 else "above"
    assert g.projected == ("pass" if f < f0 else "fail")
    reps, horizon = 300, 120
    fails = first_failures + np.cumsum((rng.random((reps, horizon, tasks)) < f).sum(axis=2), axis=1)
    n = tasks * (10 + np.arange(1, horizon + 1))
    le = log_evalue_path([0, 1], np.stack([n - fails, fails], axis=2), null=f0, side=side)
    hit = le >= math.log(1 / ALPHA)
    assert hit.any(axis=1).mean() > 0.97  # the rest count as stopping at the horizon
    stop = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, horizon)
    median, p90 = np.percentile(stop, [50, 90])
    assert g.further_rounds is not None
    assert median <= g.further_rounds <= p90, (g.further_rounds, median, p90)
    assert 0.6 <= g.further_rounds / stop.mean() <= 1.6, (g.further_rounds, stop.mean())
    assert g.further_runs == tasks * g.further_rounds


def test_one_task_one_run_reads_in_the_singular() -> None:
    g = ph.plan.sequential(trials_from(np.ones((1, 1), bool)), k=1, max_failure_rate=0.01)
    assert g.estimand == "per-run failure rate (1 − mean) over this 1 task"
    rounds = g.table().set_index("quantity").loc["complete rounds"].iloc[0]
    assert rounds == "1 × 1 task × 1 run(s)"
    assert "(1 run)" in g.reasoning and "tasks" not in g.estimand
    many = ph.plan.sequential(trials_from(np.ones((6, 2), bool)), k=1, max_failure_rate=0.2)
    assert many.estimand.endswith("over these 6 tasks")


@pytest.mark.parametrize("tasks", [3, 10, 49])
def test_all_fail_estimate_is_exactly_one(tasks: int) -> None:
    """Every block fails on every task: the estimate is 1 (the weighted mean of 1s), not
    1 − 1e-16 printed as 100.000000000000% (ten weights of 0.1 sum to 0.9999999999999999)."""
    g = ph.plan.sequential(trials_from(np.zeros((tasks, 4), bool)), k=2, max_failure_rate=0.2)
    assert g.decision == "fail" and g.estimate == 1.0
    assert "100.00% (anytime" in g.reasoning and "100.000" not in g.reasoning
    clean = ph.plan.sequential(trials_from(np.ones((tasks, 4), bool)), k=2, max_failure_rate=0.2)
    assert clean.estimate == 0.0
