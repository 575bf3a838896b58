"""Study: the adaptive next batch against the same runs spread evenly (issue 15, allocation).

For each regime of true task rates (Beta near 1, U-shaped, uniform), T tasks
and a pilot of 3 runs per task, one next batch of ``budget`` runs is spent two
ways: by :func:`passhat.plan.next_runs` (benchmark scope, pass^k) and evenly
over the tasks. Both read their runs from the same random stream per task
(common random numbers), so the comparison is paired. The estimate is
passhat's unbiased pass^k averaged over the tasks; its error is measured
against the known truth (1/T) Σ p_i^k of those tasks. Reported per regime:
the MSE of both, their ratio (uniform / adaptive: the factor the adaptive
batch buys) with its Monte Carlo standard error (delta method on the paired
squared errors).

Checks (issue 15): factor ≥ 1.3 in the near-all-pass regime; in no regime is
the adaptive batch worse than uniform beyond 2 Monte Carlo standard errors.
Failed checks are listed in the results, not hidden. Since the batch is hedged
against uniform runs under the uncertainty of the fitted prior, near-all-pass
truths pass the second check (the batch falls back to even runs there) but
not the first, see the README in reports/next_runs.

The exact analyses in ``analysis.py`` (unbiased estimates after an adaptive
batch, for the regimes and for other near-1 truths; the batches a hedge that
never loses to even runs could choose) run with the simulation and are written
into the same README; ``variants.py`` measures what-if variants of the planner
(a less conservative hedge, the model's prior on the (μ, κ) grid, the true
prior, a prior fitted to an earlier evaluation, a model-based estimate and
batch, the shipped planner on other truths) on the same benchmarks.

Run: ``.venv/bin/python studies/next_runs/next_runs.py [REPS]`` (writes
``reports/next_runs/``), or ``make study``; ``... next_runs.py --rewrite`` recomputes
only the exact analyses and rewrites the README from the saved ``results.json``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # many small fits: threads only contend
from pathlib import Path
from typing import Any

import numpy as np

import passhat as ph

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT = ROOT / "reports" / "next_runs"

#: Regimes of true per-task rates: name → Beta(a, b).
REGIMES: dict[str, tuple[float, float]] = {
    "near all-pass": (12.0, 0.6),
    "U-shaped": (0.3, 0.3),
    "uniform": (1.0, 1.0),
}
PILOT = 3

#: What the numbers mean (written into the README under the table).
WHY = [
    "Why near-all-pass truths are hard for an adaptive batch: the estimate pools each task's "
    "pilot and new runs, and which tasks get new runs depends on the pilot. Flaky pilots "
    "(pass^3 estimate 0 from 2 of 3) get diluted; all-pass pilots (estimate 1, too high "
    "whenever the rate is below 1) mostly keep theirs, and these errors all have one sign. "
    "Uniform runs dilute every pilot alike and stay unbiased. next_runs therefore minimises the "
    "expected squared error of the average given the pilot, bias terms included, averaged over "
    "the posterior of the Beta prior's (μ, κ). With the true (μ, κ) known that batch beats "
    "uniform runs 2.4–2.7× in this regime (last table below), but (μ, κ) estimated from 3 "
    "runs per task are too uncertain near rates of 1: the unhedged batch was 0.97/0.90/0.87 "
    "(± 0.05) × as accurate as uniform runs at T = 50/100/200 (300 benchmarks per row).",
    "The hedge: next_runs now also evaluates an even share of the batch with the rest spent "
    "greedily, and the even spread itself, under each of the 16 (μ, κ) points, and keeps the "
    "candidate whose worst ratio to the even spread's expected squared error is smallest. Near "
    "rates of 1 some plausible (μ, κ) make the greedy batch much worse than even runs (up to "
    "1.2–1.7× in the example benchmarks), so it falls back to even runs there: in all 900 "
    "near-all-pass benchmarks, factor 1, never worse, and the issue's 1.3× target is not met. "
    "Where tasks are clearly split (U-shaped) the greedy batch is kept in 93–99% of the "
    "benchmarks and the factor stays 1.29–1.39 (unhedged: 1.30–1.45); for uniform truths in "
    "54–76% and the factor is 1.11–1.16 (unhedged: 1.08–1.18), all within Monte Carlo error "
    "of the unhedged batch. Reaching 1.3× near rates of 1 needs a better-known prior (a larger "
    "pilot, or a stated prior=Assumptions(...) from earlier evaluations: with the true one the "
    "greedy batch gains 2.4×).",
]

#: The section on the exact analyses (analysis.py), before its table.
ANALYSIS_INTRO = [
    "Unbiased estimates (`analysis.py`, exact, per task). The selection bias can be removed at "
    "its root: if the batch gives m more runs to a task with pilot count c1 by a recorded rule, "
    "the pilot's unbiased estimate Rao–Blackwellised given the final (runs, successes), "
    "Σ_{c1∈S} C(3−k, c1−k) C(m, c−c1) / Σ_{c1∈S} C(3, c1) C(m, c−c1) over the pilot counts S "
    "the rule gives m more runs, is unbiased for p^k whatever the rule (checked by exact "
    "enumeration in tests/planner/test_next_runs_study.py), and the batch could aim at variance "
    "alone. The table gives the best such design with the *true* prior known (the most "
    "favourable case): every deterministic rule m(c1) ≤ 12 more runs for a task with c1 of 3 "
    "pilot successes whose expected runs per task are ≤ 2 (the study's budget 2T), and for "
    "each the smallest expected squared error of *any* unbiased estimator of p^3 under it (a "
    "quadratic programme; unbiasedness for every p imposed as a polynomial identity), against "
    "the even spread (2 more runs each, where the pooled estimate is the only unbiased one). "
    "Factor = even spread's expected squared error / the rule's, the simulation's measure.",
    "",
    "Near rates of 1 no unbiased design beats the even spread, even with the prior known: the "
    "best rule is the even spread itself (tasks with no pilot success may skip their runs, "
    "which changes nothing measurable). The same holds for k = 1 and k = 2 (exact search, "
    "m(c1) ≤ 10): there an adaptive batch cannot even improve the mean without bias. Where "
    "tasks are split (U-shaped, uniform truths) unbiased designs do gain (1.39×, 1.42× with the "
    "true prior, an upper bound for a fitted one; the Rao–Blackwell estimate is the best "
    "unbiased one under the U-shaped rule but not under the uniform one, where the best "
    "unbiased estimator of that rule is another quadratic-programme solution); the shipped "
    "pooled, hedged batch measures 1.29–1.39× and 1.11–1.16× there with a fitted prior. "
    "So an unbiased estimate after the batch cannot reach 1.3× near rates of 1; it was not "
    "shipped. The 2.4× of the greedy batch with the true prior comes from the pooled "
    "estimate's biases cancelling (flaky pilots keep estimates of 0, too low; all-pass pilots "
    "get diluted runs, less too high), which needs the prior known.",
]

#: The robust-batch paragraph (analysis.robust_batches), formatted with its numbers.
ANALYSIS_ROBUST = (
    "How much room a hedge has (`analysis.robust_batches`, near all-pass): {pilots} simulated "
    'pilots of {tasks} tasks (seed {seed}); for each, every batch of the family "m_c more runs '
    "per task with c of 3 pilot successes (c = 0, 1, 2; m_c ≤ 30), the all-pass tasks share "
    'the rest of the 2T runs evenly" (the even spread is one of them). Ratio of the even '
    "spread's expected squared error given the pilot to the batch's, under the true prior: the "
    "best batch {best} (mean {mean_best:.2f}); the best batch that is no worse than even runs "
    "under every one of the 16 (μ, κ) points next_runs fits to that pilot: {safe} (mean "
    "{mean_safe:.2f}). Every batch that gains under the true prior loses to even runs under "
    "some (μ, κ) the pilot cannot rule out: 3 runs per task leave κ uncertain over orders of "
    "magnitude (the 16 points span κ = {kappa_ranges}; the truth is 12.6), and the batch best "
    "under the true prior has, at its worst point (κ = {worst_kappas}), {worst_ratios} × the "
    "even spread's squared error. A hedge that never loses to even runs in a plausible world "
    "must spread the runs evenly there."
)

#: What-if variants of the planner (variants.py, 300 benchmarks per row, seed 0: the same
#: benchmarks as the table above), measured on 2026-11-30 (the shipped planner on Beta(5, 0.2)
#: and model-estimate: on 2026-12-01); not recomputed by this script.
ANALYSIS_VARIANTS = [
    "Softer hedges and a better prior near 1, measured (`studies/next_runs/variants.py VARIANT "
    '"near all-pass" T 300 0`; the same 300 benchmarks per row as the table; factor at '
    "T = 50/100/200 ± its Monte Carlo standard error):",
    "",
    "| variant of next_runs | factor near all-pass | batch chosen (greedy/mixed/even) |",
    "|---|---|---|",
    "| shipped (worst ratio over the 16 (μ, κ) points) | 1.00 / 1.00 / 1.00 | even in all |",
    "| no hedge (greedy on the posterior-averaged objective) | 0.97 / 0.90 / 0.87 (± 0.04–0.05) "
    "| greedy in all |",
    "| hedge by the posterior *mean* ratio to even runs | 0.97 / 0.92 / 0.98 (± 0.04–0.05) "
    "| 153/31/116, 151/39/110, 131/30/139 |",
    "| (μ, κ) grid weighted by the model's prior (μ ~ Beta(1, 1), log κ ~ Normal(0, 2)), "
    "hedged | 1.00 / 1.00 / 1.00 | even in all |",
    "| the model's prior, no hedge | 0.92 / 0.90 / 0.84 (± 0.04–0.05) | greedy in all |",
    "| the true Beta(12, 0.6) stated as prior=, no hedge | 2.40 / 2.71 / 2.61 (± 0.25) | "
    "greedy in all |",
    "| shipped, another near-1 truth: Beta(5, 0.2) (`variants.py shipped 5,0.2 T 300 0`) "
    "| 0.98 ± 0.01 / 1.00 / 1.00 | 3/0/297, even in all |",
    "| a model-based design (`model-estimate`): the estimate is the hierarchical model's "
    "posterior mean of (1/T) Σ p_i^3, the batch minimises its expected posterior variance; "
    "against even runs with the same estimate | 0.93 / 0.89 / 0.80 (± 0.04) | "
    "greedy in all |",
    "",
    "Neither remedy reaches 1.3×: a hedge that trusts the posterior average loses to even "
    "runs (unhedged 0.90 ± 0.04 and 0.87 ± 0.05 at T = 100 and 200, beyond 2 Monte Carlo "
    "errors; by the mean ratio 0.92 ± 0.04 at T = 100, at the edge), and the model's prior "
    "on (μ, κ) does not make 3 runs per task informative about κ. Only a prior known from "
    "elsewhere does (the true Beta as prior=). Beta(12, 0.6) is not an unlucky pick: on "
    "Beta(5, 0.2) the shipped planner spreads the runs evenly in 297 of 300 benchmarks at "
    "T = 50 (0.98 ± 0.01, within 2 Monte Carlo errors of 1) and in all at T = 100 and 200.",
    "",
    "A model-based estimate does not help either (`model-estimate`, measured with "
    '`studies/next_runs/variants.py model-estimate "near all-pass" T 300 0`, the same 300 '
    "benchmarks per row): the hierarchical Beta-Binomial model's posterior mean of "
    "(1/T) Σ p_i^3 (grid posterior of (μ, κ), 64 points per axis, the model's default priors; "
    "likelihood-based inference ignores a data-dependent allocation, so there is no selection "
    "bias to hedge against), after a batch chosen greedily, run by run, by the expected "
    "posterior variance of that mean (per task given (μ, κ), averaged over the pilot's grid "
    "posterior). The batch gives tasks with 2 of 3 pilot successes 6–16 more runs and the "
    "all-pass ones about 1; against even runs with the same estimate it is 0.93 ± 0.04, "
    "0.89 ± 0.04 and 0.80 ± 0.04 × as accurate at T = 50/100/200 (MSE 1.23e-3 vs 1.14e-3, "
    "5.84e-4 vs 5.18e-4, 3.29e-4 vs 2.62e-4), worse beyond 2 Monte Carlo errors at T = 100 "
    "and 200, and worse as T grows. Near rates of 1 the error is dominated by the all-pass "
    "tasks, whose posterior mean rests on the fitted prior (κ above all), and even runs "
    "inform κ better than runs concentrated on a few flaky tasks. With even runs the model "
    "estimate is itself no better than the pooled unbiased one (MSE 1.143e-3 vs 1.139e-3, "
    "5.18e-4 vs 5.11e-4, 2.62e-4 vs 2.57e-4). Where tasks are split the same design gains "
    "(T = 50, the same command with the regime: U-shaped 1.42 ± 0.09, uniform 1.33 ± 0.09, "
    "against the shipped planner's 1.29 ± 0.08 and 1.11 ± 0.06), so it fails exactly where "
    "the issue's target lies.",
    "",
    "So the 1.3× target near rates of 1 "
    "stays unmet (a strict xfail in tests/planner/test_next_runs_study.py); what would meet "
    "it is information the pilot does not have: a stated prior=Assumptions(...) from earlier "
    "evaluations of similar tasks, or a larger pilot.",
]

#: The prior from an earlier evaluation (variants.py earlier / earlier-large / earlier-wrong,
#: 300 benchmarks per row, seed 0: the same benchmarks as the table above), measured on
#: 2026-12-01; not recomputed by this script.
EARLIER_PRIOR = [
    "## A prior from an earlier evaluation (`passhat plan next --prior-from`)",
    "",
    "What the 3-run pilot lacks, an earlier evaluation of similar tasks can supply. The prior is "
    "`plan.from_counts` fitted to an independent earlier evaluation simulated from the same "
    "truth on other tasks (200 tasks × 10 runs; a fresh one per benchmark, its own random "
    "stream, seed 12345) and passed as `prior=` to the shipped next_runs, as `plan next "
    "--prior-from` does: one (μ, κ) point, trusted, no hedge (the even-share candidates are "
    'still compared under that one point and sometimes win: "mixed"). Measured with '
    "`studies/next_runs/variants.py earlier REGIME T 300 0` on the same 300 benchmarks per row "
    "as the first table; factor ± its Monte Carlo standard error at T = 50 / 100 / 200; "
    "warnings: how often the output said the pilot does not look like the prior (|z| > 3 for "
    "the pilot's successes under it).",
    "",
    "| regime (truth of the pilot) | earlier evaluation | factor, T = 50 / 100 / 200 | batch "
    "chosen (greedy/mixed/even) | warnings |",
    "|---|---|---|---|---|",
    "| near all-pass, Beta(12, 0.6) | same truth, 200 × 10 | 2.05 ± 0.21 / 1.47 ± 0.15 / "
    "1.04 ± 0.11 | greedy in all | 5, 4, 7 of 300 |",
    "| near all-pass | same truth, 1,000 × 10 | 2.46 ± 0.25 / 2.38 ± 0.21 / 2.07 ± 0.23 | "
    "greedy in all | 3, 0, 2 of 300 |",
    "| near all-pass | the true Beta itself (oracle, above) | 2.40 / 2.71 / 2.61 (± 0.25) | "
    "greedy in all | |",
    "| near all-pass | **wrong**: Beta(4, 1), μ = 0.80, 200 × 10 | 0.29 ± 0.02 / 0.18 ± 0.01 / "
    "0.11 ± 0.01 | greedy in all | 284, 300, 300 of 300 |",
    "| U-shaped, Beta(0.3, 0.3) | same truth, 200 × 10 | 1.50 ± 0.13 / 1.37 ± 0.12 / "
    "1.50 ± 0.13 | 271/29/0, 245/55/0, 243/57/0 | 1, 4, 9 of 300 |",
    "| uniform, Beta(1, 1) | same truth, 200 × 10 | 1.43 ± 0.14 / 1.11 ± 0.10 / 1.19 ± 0.11 | "
    "200/100/0, 183/117/0, 150/150/0 | 0, 4, 7 of 300 |",
    "",
    "Near rates of 1 the earlier evaluation of 200 tasks × 10 runs reaches the issue's 1.3× at "
    "T = 50 (2.05 ± 0.21, beyond 2 Monte Carlo errors; an independent replication with seed 1 "
    "in tests/planner/test_next_runs_study.py: 1.74 ± 0.18) and as a point estimate at "
    "T = 100 (1.47 ± 0.15, not beyond 2 errors), but not at T = 200 (1.04 ± 0.11). The fitted "
    "(μ, κ) carry an error that does not shrink with the benchmark: the pooled estimate's "
    "biases cancel only as well as the prior is right, and that leftover bias of the average "
    "stays while the even spread's error falls as 1/T. A larger earlier evaluation "
    "(1,000 × 10) keeps 2.07–2.46× up to T = 200, close to the true prior. Where tasks are "
    "split the earlier prior also helps: U-shaped 1.37–1.50× (pilot alone, hedged: "
    "1.29–1.39×), uniform 1.43×, 1.11× and 1.19× (pilot alone: 1.11×, 1.16×, 1.13×).",
    "",
    "A wrong prior costs much more than it can gain: an earlier evaluation of a visibly less "
    "reliable system (μ = 0.80 against the pilot's 0.95) makes the trusted batch 0.29×, 0.18× "
    "and 0.11× as accurate as even runs, worse as T grows. The pilot shows it: the z check "
    "warned in 284 to 300 of 300 such benchmarks, and in 0 to 9 of 300 (0–3%) where the "
    "prior was right (its own fitting error inflates the nominal 0.3%: with the true Beta "
    "stated, 0.1–0.5% of 3,000 simulated pilots per regime and T, seed 7). The check sees the "
    "mean only; a prior with the right μ and a wrong κ is not caught.",
]


def analysis_module() -> Any:
    """``analysis.py`` beside this script (studies/ is not a package)."""
    spec = importlib.util.spec_from_file_location("study_next_runs_analysis", HERE / "analysis.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def replicate(
    a: float, b: float, *, tasks: int, budget: int, k: int, rng: np.random.Generator
) -> tuple[float, float, str]:
    """Squared errors (adaptive, uniform) of the pass^k estimate in one simulated benchmark,
    and which batch next_runs chose (greedy, mixed or uniform: its hedge)."""
    p = rng.beta(a, b, tasks)
    stream = rng.random((tasks, PILOT + budget)) < p[:, None]
    truth = float(np.mean(p**k))
    c0 = stream[:, :PILOT].sum(axis=1)
    data = ph.counts_from_arrays(np.full(tasks, PILOT), c0)
    plan = ph.plan.next_runs(data, budget=budget, k=k)
    extra = np.zeros(tasks, dtype=np.int64)
    idx = {str(t): i for i, t in enumerate(ph.estimators.as_counts(data)["task"].values)}
    extra[[idx[str(t)] for t in plan.batch["task"]]] = plan.batch["extra_runs"].to_numpy()
    uniform = np.full(tasks, budget // tasks) + (np.arange(tasks) < budget % tasks)
    errors = []
    for more in (extra, uniform):
        n = PILOT + more
        cum = np.cumsum(stream, axis=1)
        c = cum[np.arange(tasks), n - 1]
        errors.append((float(np.mean(ph.pass_hat_k(n, c, k))) - truth) ** 2)
    hedge = plan.hedge
    return errors[0], errors[1], "greedy" if hedge is None else str(hedge.choice)


def compare(
    regime: str, *, tasks: int, budget: int, k: int, reps: int, seed: int
) -> dict[str, Any]:
    """MSE of both batches over ``reps`` simulated benchmarks, and their ratio with its MC error."""
    a, b = REGIMES[regime]
    rng = np.random.default_rng([seed, tasks, budget, k, list(REGIMES).index(regime)])
    out = [replicate(a, b, tasks=tasks, budget=budget, k=k, rng=rng) for _ in range(reps)]
    ea = np.array([o[0] for o in out])
    eu = np.array([o[1] for o in out])
    choices = [o[2] for o in out]
    ratio = float(eu.mean() / ea.mean())
    se = float(np.std(eu - ratio * ea, ddof=1) / np.sqrt(reps) / ea.mean())
    return {
        "regime": regime,
        "beta": [a, b],
        "tasks": tasks,
        "pilot_runs": PILOT,
        "budget": budget,
        "k": k,
        "reps": reps,
        "mse_adaptive": float(ea.mean()),
        "mse_uniform": float(eu.mean()),
        "factor": ratio,
        "factor_se": se,
        "choices": {ch: choices.count(ch) for ch in ("greedy", "mixed", "uniform")},
    }


def run(out: Path = OUT, *, seed: int = 0, reps: int = 300) -> dict[str, Any]:
    """The whole grid: every regime × T ∈ {50, 100, 200}, budget 2T, k = 3; writes ``out``."""
    rows = []
    for regime in REGIMES:
        for tasks in (50, 100, 200):
            rows.append(compare(regime, tasks=tasks, budget=2 * tasks, k=3, reps=reps, seed=seed))
            r = rows[-1]
            print(f"{regime:14s} T={tasks:4d}  factor {r['factor']:.2f} ± {r['factor_se']:.2f}")
    failures = []
    for r in rows:
        if r["regime"] == "near all-pass" and r["factor"] < 1.3:
            failures.append(f"{r['regime']} T={r['tasks']}: factor {r['factor']:.2f} < 1.3")
        if r["factor"] < 1 - 2 * r["factor_se"]:
            failures.append(
                f"{r['regime']} T={r['tasks']}: worse than uniform ({r['factor']:.2f} ± "
                f"{r['factor_se']:.2f})"
            )
    result = {"seed": seed, "reps": reps, "rows": rows, "failures": failures}
    result["analysis"] = analysis_module().analyse(REGIMES)
    write(result, out)
    return result


def rewrite(out: Path = OUT) -> dict[str, Any]:
    """The exact analyses recomputed, the simulation's rows from the saved ``results.json``."""
    result = json.loads((out / "results.json").read_text(encoding="utf-8"))
    result["analysis"] = analysis_module().analyse(REGIMES)
    write(result, out)
    return dict(result)


def write(result: dict[str, Any], out: Path = OUT) -> None:
    """``results.json`` and the README with the table (also from a saved ``results.json``)."""
    seed, reps, rows, failures = (result[key] for key in ("seed", "reps", "rows", "failures"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# Adaptive next batch vs the same runs spread evenly",
        "",
        "Generated by `studies/next_runs/next_runs.py` (`make study`). Pilot: 3 runs per task; "
        "one next batch of 2T runs; estimate: the unbiased pass^3 averaged over the tasks; "
        f"error against the known truth (1/T) Σ p_i^3; {reps} simulated benchmarks per row "
        f"(seed {seed}), both batches drawn from the same runs per task. Factor = MSE uniform / "
        "MSE adaptive, ± its Monte Carlo standard error (0 where next_runs chose the even spread "
        "in every benchmark: the two batches are then the same runs). The last column: how "
        "often next_runs kept its greedy batch, mixed it with an even share, or spread the runs "
        "evenly (its hedge against the uncertainty of the fitted prior).",
        "",
        "| regime | Beta(a, b) | T | budget | MSE adaptive | MSE uniform | factor | "
        "batch chosen (greedy/mixed/even) |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['regime']} | Beta({r['beta'][0]:g}, {r['beta'][1]:g}) | {r['tasks']} | "
            f"{r['budget']} | {r['mse_adaptive']:.3e} | {r['mse_uniform']:.3e} | "
            f"{r['factor']:.2f} ± {r['factor_se']:.2f} | "
            f"{r['choices']['greedy']}/{r['choices']['mixed']}/{r['choices']['uniform']} |"
        )
    lines += ["", "Checks: " + ("all pass." if not failures else "FAILED: " + "; ".join(failures))]
    for paragraph in WHY:
        lines += ["", paragraph]
    if result.get("analysis"):
        lines += analysis_lines(result["analysis"])
    lines.append("")
    (out / "README.md").write_text("\n".join(lines), encoding="utf-8")


def _kappa(x: float) -> str:
    return f"{x:.2g}" if x < 10 else f"{x:,.0f}"


def near_one_lines(near: list[dict[str, Any]]) -> list[str]:
    """The exact search for the other near-1 truths (``analysis.NEAR_ONE_TRUTHS``)."""
    even = all(r["factor_best_unbiased"] < 1 + 5e-4 for r in near)
    names = ", ".join(f"Beta({r['beta'][0]:g}, {r['beta'][1]:g})" for r in near)
    lines = [
        "",
        f"Other near-1 truths, the same exact search (`analysis.NEAR_ONE_TRUTHS`): {names}. "
        + (
            "The same holds for them: the best unbiased rule is the even spread (factor 1.000), "
            "so Beta(12, 0.6) is not a hard case picked by chance."
            if even
            else "Not all of them behave like Beta(12, 0.6): see the factors."
        ),
        "",
        "| truth | mean rate | P(pilot 0/1/2/3 of 3) | best rule m(0..3) | factor, best "
        "unbiased estimate | factor, Rao–Blackwell estimate, same rule |",
        "|---|---:|---|---|---:|---:|",
    ]
    for r in near:
        a, b = r["beta"]
        probs = "/".join(f"{p:.3f}" for p in r["pilot_probs"])
        rule = ", ".join(str(m) for m in r["best_rule"])
        lines.append(
            f"| Beta({a:g}, {b:g}) | {a / (a + b):.3f} | {probs} | ({rule}) | "
            f"{r['factor_best_unbiased']:.3f} | {r['factor_rb_same_rule']:.3f} |"
        )
    return lines


def analysis_lines(res: dict[str, Any]) -> list[str]:
    """The README section of the exact analyses (``analysis.py``)."""
    lines = ["", "## Could a different estimate or a softer hedge reach 1.3× near rates of 1?", ""]
    lines += ANALYSIS_INTRO
    lines += [
        "",
        "| regime | P(pilot 0/1/2/3 of 3) | best rule m(0..3) | factor, best unbiased "
        "estimate | factor, Rao–Blackwell estimate, same rule |",
        "|---|---|---|---:|---:|",
    ]
    for name, r in res["unbiased"].items():
        probs = "/".join(f"{p:.3f}" for p in r["pilot_probs"])
        rule = ", ".join(str(m) for m in r["best_rule"])
        lines.append(
            f"| {name} | {probs} | ({rule}) | {r['factor_best_unbiased']:.3f} | "
            f"{r['factor_rb_same_rule']:.3f} |"
        )
    near = res.get("near_one")
    if near:
        lines += near_one_lines(near)
    mix = res.get("mixtures")
    if mix:
        lines += [
            "",
            "Randomized rules do no better (`analysis.mixtures`, near all-pass): tasks with 0, 1 "
            f"or 2 pilot successes get fixed runs (≤ {mix['m_max']}), the all-pass ones one of "
            "two batch sizes at random so that the batch spends exactly 2 runs per task on "
            "average, each with its best unbiased estimator (which may use the size drawn and "
            "need only be unbiased on average over it): "
            f"the best of the family is {mix['factor_best']:.3f}× the even spread.",
        ]
    rb = res["robust"]
    best = ", ".join(f"{x:.2f}" for x in rb["factor_best_true_prior"])
    safe = ", ".join(f"{x:.2f}" for x in rb["factor_best_safe"])
    lines += [
        "",
        ANALYSIS_ROBUST.format(
            pilots=rb["pilots"],
            tasks=rb["tasks"],
            seed=rb["seed"],
            best=best,
            mean_best=rb["mean_factor_best_true_prior"],
            safe=safe,
            mean_safe=rb["mean_factor_best_safe"],
            kappa_ranges="; ".join(
                f"{_kappa(lo)}–{_kappa(hi)}"
                for lo, hi in zip(rb["kappa_min"], rb["kappa_max"], strict=True)
            ),
            worst_kappas="; ".join(_kappa(x) for x in rb["best_batch_worst_kappa"]),
            worst_ratios=", ".join(f"{x:.2f}" for x in rb["best_batch_worst_ratio"]),
        ),
    ]
    lines += ["", *ANALYSIS_VARIANTS, "", *EARLIER_PRIOR]
    return lines


def main(argv: list[str]) -> int:
    if argv[:1] == ["--rewrite"]:
        return 1 if rewrite()["failures"] else 0
    reps = int(argv[0]) if argv else 300
    return 1 if run(reps=reps)["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
