"""Is `fit` ever silently wrong when task rates are not Beta-distributed? Coverage by simulation.

Six truths for the spread of task rates p — only the last a Beta:

* **two-point**: half the tasks at p = 0.4, half at 0.95 (two kinds of task);
* **70% at 1 + 30% Beta(2, 2)**: most tasks always pass, the rest flip;
* **zero/one-inflated + middle**: 20% at 0, 40% at 1, 40% Beta(4, 4);
* **logit-normal**: logit p ~ Normal(1, 1.5²);
* **uniform**: p ~ Uniform(0, 1);
* **Beta(2, 1)**: a plain Beta (where the Beta model is right).

Designs: T = 50 or 200 tasks × n = 3 or 5 runs each, c_i ~ Binomial(n, p_i). Each replicate
runs ``passhat.fit`` as a user would (``model="auto"``, the default: the Beta, inflated and
discrete models stacked by exact leave-one-task-out; its default draws, 4 × 1000), with
k = 1..n, and reads ``summarize(ci=0.9)``. Cells: for k = 1 the mean, for k = 2..n pass@k and
pass^k; the population interval (truth: E g(p) under the truth) and the benchmark interval
(truth: the simulated tasks' own mean g(p_i)), 90% nominal.

A cell is **done** when its coverage is at least 0.85, or when the output carries a warning
in at least 95% of its replicates (the shape check failing a model with stacking weight ≥ 0.1,
or the model's benchmark value disagreeing with the unbiased estimate for that metric and k).
Replicates: 320 per design and truth, so the Monte-Carlo s.e. of a coverage near 0.9 is
sqrt(0.9 · 0.1 / 320) = 0.017 and at most 0.020 for a coverage down to 0.85 (stated in the
report with every cell).

Run (background, one process by default; ``--workers 2`` for two)::

    nice .venv/bin/python studies/fit_shapes/fit_shapes.py            # full → reports/fit_shapes/
    nice .venv/bin/python studies/fit_shapes/fit_shapes.py --reps 40  # quicker, noisier
    .venv/bin/python studies/fit_shapes/fit_shapes.py --render        # the report from the CSV
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy import special

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "fit_shapes"
LEVEL = 0.9
GOAL = 0.85
WARNED = 0.95
REPS = 320
DESIGNS = ((50, 3), (50, 5), (200, 3), (200, 5))


def _beta_moment(a: float, b: float, k: int) -> float:
    return float(np.prod([(a + j) / (a + b + j) for j in range(k)]))


class Truth(NamedTuple):
    """A distribution of task rates: a sampler and the exact E p^k and E (1 − p)^k."""

    name: str
    sample: Callable[[np.random.Generator, int], np.ndarray]
    pass_hat: Callable[[int], float]
    fail_hat: Callable[[int], float]

    def expected(self, metric: str, k: int) -> float:
        if metric == "pass_at_k":
            return 1.0 - self.fail_hat(k)
        return self.pass_hat(k if metric == "pass_hat_k" else 1)


def _logit_normal_moment(mu: float, sd: float, f: Callable[[np.ndarray], np.ndarray]) -> float:
    x, w = np.polynomial.hermite_e.hermegauss(120)
    return float(w @ f(special.expit(mu + sd * x)) / w.sum())


def _two_point(rng: np.random.Generator, t: int) -> np.ndarray:
    return np.where(rng.random(t) < 0.5, 0.4, 0.95)


def _mostly_one(rng: np.random.Generator, t: int) -> np.ndarray:
    return np.where(rng.random(t) < 0.7, 1.0, rng.beta(2.0, 2.0, t))


def _inflated(rng: np.random.Generator, t: int) -> np.ndarray:
    u = rng.random(t)
    return np.where(u < 0.2, 0.0, np.where(u < 0.6, 1.0, rng.beta(4.0, 4.0, t)))


TRUTHS = (
    Truth(
        "two-point: half at 0.4, half at 0.95",
        _two_point,
        lambda k: 0.5 * 0.4**k + 0.5 * 0.95**k,
        lambda k: 0.5 * 0.6**k + 0.5 * 0.05**k,
    ),
    Truth(
        "70% at 1 + 30% Beta(2, 2)",
        _mostly_one,
        lambda k: 0.7 + 0.3 * _beta_moment(2, 2, k),
        lambda k: 0.3 * _beta_moment(2, 2, k),
    ),
    Truth(
        "zero/one-inflated + middle: 20% at 0, 40% at 1, 40% Beta(4, 4)",
        _inflated,
        lambda k: 0.4 + 0.4 * _beta_moment(4, 4, k),
        lambda k: 0.2 + 0.4 * _beta_moment(4, 4, k),
    ),
    Truth(
        "logit-normal: logit p ~ N(1, 1.5²)",
        lambda rng, t: special.expit(rng.normal(1.0, 1.5, t)),
        lambda k: _logit_normal_moment(1.0, 1.5, lambda p: p**k),
        lambda k: _logit_normal_moment(1.0, 1.5, lambda p: (1 - p) ** k),
    ),
    Truth("uniform", lambda rng, t: rng.random(t), lambda k: 1 / (k + 1), lambda k: 1 / (k + 1)),
    Truth(
        "Beta(2, 1)",
        lambda rng, t: rng.beta(2.0, 1.0, t),
        lambda k: _beta_moment(2, 1, k),
        lambda k: _beta_moment(1, 2, k),
    ),
)


def cells(n: int) -> list[tuple[str, int]]:
    """The (metric, k) of a design with n runs: the mean, then pass@k and pass^k for k = 2..n."""
    return [("mean", 1)] + [(m, k) for k in range(2, n + 1) for m in ("pass_at_k", "pass_hat_k")]


def one_replicate(ti: int, t: int, n: int, rep: int) -> list[dict[str, Any]]:
    """Fit one simulated benchmark; a row per cell and scope: covered, warned, width."""
    import passhat as ph

    truth = TRUTHS[ti]
    rng = np.random.default_rng([ti, t, n, rep])
    p = truth.sample(rng, t)
    c = rng.binomial(n, p)
    f = ph.fit(ph.counts_from_arrays(np.full(t, n), c), k=list(range(1, n + 1)), seed=rep,
               progress=False)  # fmt: skip
    s = f.summarize(ci=LEVEL)
    shape_warned = any(line.startswith("shape check") for line in s.warnings())
    agree = s.agreement
    weights = s.models.set_index("model")["weight"] if s.models is not None else {}
    rows = []
    for metric, k in cells(n):
        g = p**k if metric == "pass_hat_k" else (1 - (1 - p) ** k if metric == "pass_at_k" else p)
        truths = {"population": truth.expected(metric, k), "benchmark": float(g.mean())}
        disagree = agree[(agree["metric"] == metric) & (agree["k"] == k)]["disagrees"].any()
        for scope, value in truths.items():
            row = s.table[(s.table["metric"] == metric) & (s.table["k"] == k)
                          & (s.table["scope"] == scope)].iloc[0]  # fmt: skip
            rows.append(
                {
                    "truth": truth.name, "T": t, "n": n, "rep": rep, "metric": metric, "k": k,
                    "scope": scope, "covered": bool(row["lower"] <= value <= row["upper"]),
                    "width": float(row["upper"] - row["lower"]),
                    "below": bool(value < row["lower"]),
                    "warned": bool(shape_warned or disagree), "shape_warned": shape_warned,
                    "disagrees": bool(disagree),
                    "w_beta": float(weights.get("beta", np.nan)),
                    "w_discrete": float(weights.get("discrete", np.nan)),
                }
            )  # fmt: skip
    return rows


def _draws_row(
    truth: Truth,
    t: int,
    n: int,
    rep: int,
    p: np.ndarray,
    metric: str,
    k: int,
    scope: str,
    draws: np.ndarray,
) -> dict[str, Any]:
    """One cell's row from its draws: whether the central interval holds the truth (the
    population value, or the mean over these tasks' rates p at the benchmark scope)."""
    g = p**k if metric == "pass_hat_k" else (1 - (1 - p) ** k if metric == "pass_at_k" else p)
    value = truth.expected(metric, k) if scope == "population" else float(g.mean())
    lo, hi = np.quantile(draws, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return {"truth": truth.name, "T": t, "n": n, "rep": rep, "metric": metric, "k": k,
            "scope": scope, "covered": bool(lo <= value <= hi), "below": bool(value < lo),
            "width": float(hi - lo)}  # fmt: skip


def histogram_replicate(ti: int, t: int, n: int, rep: int) -> list[dict[str, Any]]:
    """The same simulated benchmark as :func:`one_replicate`, read by the histogram's rule
    alone (:mod:`passhat.model.histogram`, no model: population the Bayesian bootstrap of the
    unbiased per-task estimates, benchmark U ± z · se): a row per cell and scope."""
    from passhat.model.histogram import identified_values
    from passhat.model.metrics import Groups

    truth = TRUTHS[ti]
    rng = np.random.default_rng([ti, t, n, rep])
    p = truth.sample(rng, t)
    c = rng.binomial(n, p)
    groups = Groups.from_tasks(np.full(t, n), c, np.ones(t))
    requests = cells(n)
    rows = []
    for scope in ("population", "benchmark"):
        draws = identified_values(groups, requests, 4000, scope=scope,
                                  rng=np.random.default_rng([rep, 29]))  # fmt: skip
        for metric, k in requests:
            rows.append(_draws_row(truth, t, n, rep, p, metric, k, scope, draws[(metric, k)]))
    return rows


def identified_rows(
    ti: int, t: int, n: int, rep: int, scopes: tuple[str, ...] = ("population", "benchmark")
) -> list[dict[str, Any]]:
    """The cells of :func:`one_replicate` that the fit takes from the histogram whatever its
    model (:func:`passhat.model.histogram.informative`: k ≤ n where ``estimate``'s rule trusts
    a model-free interval), without the fit: drawn from the Fit's own streams for system 0
    (seed = rep), so they do not depend on the fit (the other cells are the model's: no row).
    Used to re-read runs made before that rule on the same replicates; that the rows equal a
    real fit's is checked by the tests."""
    from passhat.model.histogram import identified_values, informative
    from passhat.model.metrics import Groups
    from passhat.model.result import _HIST_SALT  # the Fit's stream of the histogram's values

    truth = TRUTHS[ti]
    rng = np.random.default_rng([ti, t, n, rep])
    p = truth.sample(rng, t)
    c = rng.binomial(n, p)
    groups = Groups.from_tasks(np.full(t, n), c, np.ones(t))
    requests = cells(n)
    rows = []
    for scope in scopes:
        stream = np.random.default_rng([rep, 0, _HIST_SALT, int(scope == "benchmark")])
        draws = identified_values(groups, requests, 4000, scope=scope, rng=stream)
        for metric, k in requests:
            if not informative(groups, metric, k, scope=scope):  # the model's: no row
                continue
            rows.append(_draws_row(truth, t, n, rep, p, metric, k, scope, draws[(metric, k)]))
    return rows


def benchmark_rows(ti: int, t: int, n: int, rep: int) -> list[dict[str, Any]]:
    """The benchmark-scope rows of :func:`identified_rows`."""
    return identified_rows(ti, t, n, rep, scopes=("benchmark",))


def rebench(raw: pd.DataFrame) -> pd.DataFrame:
    """A run's per-replicate rows with the cells the histogram fixes re-read by
    :func:`identified_rows` (the model's cells, the warnings and the weights kept: the rule
    changed only those cells)."""
    ti_of = {t.name: i for i, t in enumerate(TRUTHS)}
    reps = raw[["truth", "T", "n", "rep"]].drop_duplicates()
    new = pd.DataFrame(
        [r for x in reps.itertuples() for r in
         identified_rows(ti_of[x.truth], int(x.T), int(x.n), int(x.rep))]
    )  # fmt: skip
    keys = ["truth", "T", "n", "rep", "metric", "k", "scope"]
    out = raw.merge(new, on=keys, how="left", suffixes=("", "_new"))
    hit = out["covered_new"].notna()
    for col in ("covered", "below", "width"):
        out.loc[hit, col] = out.loc[hit, f"{col}_new"]
        out = out.drop(columns=f"{col}_new")
    out["covered"] = out["covered"].astype(bool)
    out["below"] = out["below"].astype(bool)
    return out


#: The runs the committed table is made of, first preferred where two hold the same replicate
#: (they agree row for row: the tests check it): the real run of this code, then the runs made
#: before the benchmark rule changed, their benchmark cells re-read (:func:`rebench`).
FINAL_SOURCES = (
    ("final_t200", "every T = 200 setting, commit f685919", True),
    ("rerun", "after f0cb06a", True),
    ("rerun_t50", "after f0cb06a", True),
    ("rerun_mostly_one", "after f0cb06a", True),
    (
        "rerun_mostly_one_200x5",
        "70% at 1 + 30% Beta(2, 2), T = 200, n = 5, replicates 100–314, commit fa93bb1",
        True,
    ),
    (
        "rerun_more",
        "logit-normal T = 200 × n = 3 and 5, zero/one-inflated + middle T = 50 × n = 5, "
        "replicates 100–299, commit 3a6193a",
        True,
    ),
)


def assemble(root: Path = OUT) -> pd.DataFrame:
    """Every replicate of :data:`FINAL_SOURCES` under ``root``, each read with this code's
    rules, one row per replicate and cell with the ``run`` it came from."""
    parts = []
    for name, _, reread in FINAL_SOURCES:
        path = root / name / "replicates.csv"
        if not path.exists():
            continue
        raw = pd.read_csv(path)
        raw = rebench(raw) if reread else raw
        parts.append(raw.assign(run=name))
    keys = ["truth", "T", "n", "rep", "metric", "k", "scope"]
    return pd.concat(parts, ignore_index=True).drop_duplicates(keys, keep="first")


def benchmark_coverage(reps: int) -> pd.DataFrame:
    """The benchmark-scope cells of every setting, ``reps`` replicates each, by the fit's own
    benchmark path (:func:`benchmark_rows`; no fit, seconds): where the coverage of those
    cells is known more finely than a run of fits can afford."""
    rows = [r for ti in range(len(TRUTHS)) for t, n in DESIGNS for rep in range(reps)
            for r in benchmark_rows(ti, t, n, rep)]  # fmt: skip
    keys = ["truth", "T", "n", "metric", "k", "scope"]
    out = pd.DataFrame(rows).groupby(keys, sort=False).agg(
        reps=("covered", "size"), coverage=("covered", "mean"), below=("below", "mean"),
        mean_width=("width", "mean"),
    ).reset_index()  # fmt: skip
    out["mc_se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / out["reps"])
    return out


def histogram_coverage(reps: int) -> pd.DataFrame:
    """Coverage of the histogram's rule in every cell of the grid, ``reps`` replicates each
    (seconds: no fit)."""
    rows = [r for ti in range(len(TRUTHS)) for t, n in DESIGNS for rep in range(reps)
            for r in histogram_replicate(ti, t, n, rep)]  # fmt: skip
    raw = pd.DataFrame(rows)
    keys = ["truth", "T", "n", "metric", "k", "scope"]
    out = raw.groupby(keys, sort=False).agg(
        reps=("covered", "size"), coverage=("covered", "mean"), below=("below", "mean"),
        mean_width=("width", "mean"),
    ).reset_index()  # fmt: skip
    out["mc_se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / out["reps"])
    return out


def histogram_markdown(df: pd.DataFrame) -> str:
    """The report of :func:`histogram_coverage`."""
    low = df[df["coverage"] < GOAL]
    lines = [
        "# The histogram's rule alone: coverage on the same simulated benchmarks",
        "",
        "What `fit` would report at k ≤ n if every model (not only the discrete one) took the "
        "histogram's values there (`passhat.model.histogram`: population = Bayesian bootstrap "
        "of the unbiased per-task estimates with half a pseudo-task at p = 0 and at p = 1; "
        "benchmark = U ± z · se of `estimate`), read as 90% intervals (4000 draws, 5% and 95% "
        f"quantiles) on the same data as `fit_shapes` (same seeds), {int(df['reps'].min())} "
        "replicates per design and truth (no fit: seconds). Made by "
        "`studies/fit_shapes/fit_shapes.py --histogram-rule REPS`.",
        "",
        f"**{len(df) - len(low)}/{len(df)} cells cover ≥ {GOAL}**; coverage "
        f"{df['coverage'].min():.3f}–{df['coverage'].max():.3f}.",
        "",
        "| truth | T | n | metric | k | scope | coverage | below | width |",
        "|---|---:|---:|---|---:|---|---:|---:|---:|",
    ]
    for r in df.itertuples():
        lines.append(
            f"| {r.truth} | {r.T} | {r.n} | {r.metric} | {r.k} | {r.scope} | "
            f"{r.coverage:.3f}±{r.mc_se:.3f} | {r.below:.2f} | {r.mean_width:.3f} |"
        )
    return "\n".join(lines) + "\n"


def _run_setting(args: tuple[int, int, int, int, int]) -> list[dict[str, Any]]:
    ti, t, n, reps, first = args
    rows: list[dict[str, Any]] = []
    for rep in range(first, first + reps):
        rows += one_replicate(ti, t, n, rep)
    return rows


def run(*, reps: int, workers: int = 1, settings: list[tuple[int, int, int]] | None = None,
        progress: bool = True, partial: Path | None = None,
        first_rep: int = 0) -> pd.DataFrame:  # fmt: skip
    """Every setting (truth × design), ``reps`` replicates each, over ``workers`` processes
    (1: in this process); the per-replicate rows, also written to ``partial`` after each
    setting (a stopped run keeps what it computed)."""
    todo = settings or [(ti, t, n) for ti in range(len(TRUTHS)) for t, n in DESIGNS]
    jobs = [(ti, t, n, reps, first_rep) for ti, t, n in todo]
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    results = pool.map(_run_setting, jobs) if pool else map(_run_setting, jobs)
    for i, got in enumerate(results):
        rows += got
        if partial is not None:
            pd.DataFrame(rows).to_csv(partial, index=False)
        if progress:
            ti, t, n, _, _ = jobs[i]
            print(f"[{i + 1}/{len(jobs)}] {TRUTHS[ti].name} T={t} n={n} "
                  f"{(time.perf_counter() - start) / 60:.1f} min", flush=True)  # fmt: skip
    if pool:
        pool.shutdown()
    return pd.DataFrame(rows)


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: coverage with its Monte-Carlo s.e., the share of replicates whose
    output warned, the share whose truth lay below the interval, mean width, mean stacking
    weight of the discrete model, and whether the cell is done."""
    keys = ["truth", "T", "n", "metric", "k", "scope"]
    g = raw.groupby(keys, sort=False)
    out = g.agg(
        reps=("covered", "size"), coverage=("covered", "mean"), warned=("warned", "mean"),
        shape_warned=("shape_warned", "mean"), disagrees=("disagrees", "mean"),
        below=("below", "mean"), mean_width=("width", "mean"), w_discrete=("w_discrete", "mean"),
    ).reset_index()  # fmt: skip
    out["mc_se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / out["reps"])
    if "run" in raw:  # an assembled table: which run(s) each cell's replicates came from
        out["run"] = g["run"].agg(lambda r: " + ".join(sorted(set(r)))).to_numpy()
    out["done"] = (out["coverage"] >= GOAL) | (out["warned"] >= WARNED)
    # below the goal by more than two Monte-Carlo s.e. (with s.e. 0 at coverage 1 or 0, the
    # binomial s.e. at the goal is used): a failure the replicates show, not noise
    se_goal = np.sqrt(GOAL * (1 - GOAL) / out["reps"])
    out["clearly_below"] = (out["coverage"] + 2 * se_goal < GOAL) & (out["warned"] < WARNED)
    return out


def to_markdown(df: pd.DataFrame, *, seconds: float | None = None, note: str | None = None) -> str:
    """The report: what was run, the verdict, then every cell (``note``: a paragraph after
    the title, e.g. that the code changed since the run)."""
    reps = int(df["reps"].min())
    bad = df[~df["done"]]
    lines = [
        "# `fit` when task rates are not Beta-distributed: coverage of its intervals",
        "",
        *([note, ""] if note else []),
        f"Made by `studies/fit_shapes/fit_shapes.py` (issue 28): six truths of how task rates "
        f"spread (five not a Beta), T = 50 / 200 tasks × n = 3 / 5 runs, {reps} replicates per "
        "design and truth; each replicate runs `passhat.fit` with its defaults "
        '(`model="auto"`: the Beta, zero/one-inflated and discrete models stacked by exact '
        "leave-one-task-out; 4 × 1000 draws) and reads the 90% intervals of "
        "`summarize(ci=0.9)`. Monte-Carlo s.e. of a coverage: "
        f"{np.sqrt(0.9 * 0.1 / reps):.3f} at 0.90, at most "
        f"{np.sqrt(GOAL * (1 - GOAL) / reps):.3f} down to {GOAL}.",
        "",
        f"A cell is **done** when it covers at least {GOAL} or the output warns in at least "
        f"{WARNED:.0%} of its replicates (`warned`: the shape check fails a model of stacking "
        "weight ≥ 0.1, or the model's benchmark value disagrees with the unbiased estimate at "
        "that metric and k). `below`: share of replicates whose truth lay below the interval; "
        "`w discrete`: mean stacking weight of the discrete model.",
        "",
    ]
    if seconds is not None:
        lines += [f"Run time: {seconds / 60:.0f} min (wall, a shared machine).", ""]
    ran = set(zip(df["truth"], df["T"], df["n"], strict=True))
    missing = [f"{t.name} T={T} n={n}" for t in TRUTHS for T, n in DESIGNS
               if (t.name, T, n) not in ran]  # fmt: skip
    if missing:
        lines += [f"**Not run** (the run was stopped at the deadline): {'; '.join(missing)}.", ""]
    lines += [
        f"With {reps} replicates a cell's coverage is known to ±{2 * np.sqrt(0.09 / reps):.2f} "
        "(2 s.e.), so ✗ (below 0.85 in this sample) is not by itself a demonstrated failure; "
        f"`clearly below` marks the cells below 0.85 by more than 2 s.e. at 0.85 "
        f"({int(df['clearly_below'].sum())} of {len(df)}).",
        "",
        f"**Verdict: {len(df) - len(bad)}/{len(df)} cells done**; coverage "
        f"{df['coverage'].min():.3f}–{df['coverage'].max():.3f}"
        + (f"; not done: {len(bad)} (marked ✗)." if len(bad) else "."),
        "",
        "| truth | T | n | metric | k | scope | coverage | warned | below | width "
        "| w discrete | done | clearly below |",
        "|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in df.itertuples():
        lines.append(
            f"| {r.truth} | {r.T} | {r.n} | {r.metric} | {r.k} | {r.scope} | "
            f"{r.coverage:.3f}±{r.mc_se:.3f} | {r.warned:.2f} | {r.below:.2f} | "
            f"{r.mean_width:.3f} | {r.w_discrete:.2f} | {'yes' if r.done else '✗'} | "
            f"{'**yes**' if r.clearly_below else ''} |"
        )
    return "\n".join(lines) + "\n"


def _benchmark_rule_lines(bench: pd.DataFrame | None) -> list[str]:
    """The paragraph on the benchmark cells with more replicates (:func:`benchmark_coverage`)."""
    if bench is None or bench.empty:
        return []
    low = bench[bench["coverage"] < GOAL]
    cells = "; ".join(
        f"{r.truth} T = {r.T} n = {r.n} {r.metric} k = {r.k}: {r.coverage:.3f}±{r.mc_se:.3f}"
        for r in low.itertuples()
    )
    return [
        f"The benchmark cells need no fit (at k ≤ n they are the unbiased estimate ± z · se, "
        f"drawn from the fit's own stream), so `benchmark_rule.csv` has them with "
        f"{int(bench['reps'].max())} replicates each (`--benchmark-reps`): "
        f"{len(bench) - len(low)}/{len(bench)} cover ≥ {GOAL}"
        + (f"; below: {cells}." if len(low) else "."),
        "",
    ]


def final_markdown(
    df: pd.DataFrame, before: pd.DataFrame, bench: pd.DataFrame | None = None
) -> str:
    """The committed report: every cell with this code, the run its replicates came from,
    (``before``) the coverage the same replicates had under the previous benchmark rule, and
    (``bench``) the benchmark cells with more replicates."""
    keys = ["truth", "T", "n", "metric", "k", "scope"]
    df = df.merge(before[[*keys, "coverage"]].rename(columns={"coverage": "prev"}), on=keys,
                  how="left")  # fmt: skip
    bad = df[~df["done"]]
    runs = "; ".join(f"`{name}/`: {what}" for name, what, _ in FINAL_SOURCES)
    lines = [
        "# `fit` when task rates are not Beta-distributed: coverage of its intervals",
        "",
        "Every cell of the grid with the code of this commit: six truths of how task rates "
        "spread (five not a Beta), T = 50 / 200 tasks × n = 3 / 5 runs; each replicate runs "
        '`passhat.fit` with its defaults (`model="auto"`, 4 × 1000 draws) and reads the 90% '
        "intervals of `summarize(ci=0.9)`. At k ≤ n both scopes take the histogram's model-free "
        "values where `estimate`'s rule trusts them, whatever the model; elsewhere the stacked "
        "model's.",
        "",
        f"Runs ({runs}). Their cells where this code takes the histogram's values (k ≤ n "
        "where `estimate`'s rule trusts a model-free interval: the benchmark's U ± z · se — "
        "below 2k runs se from the larger of the plug-in at (c + ½)/(n + 1) and the "
        "conservative model-free bound —, the population's Bayesian bootstrap of the tasks' "
        "unbiased estimates, or where every task's value is 0 or 1 with fewer than 10 tasks on "
        "a side, estimate's Clopper–Pearson-type bound) are re-read with this "
        "code (`rebench`: the fit's own random streams, no fit needed); the other cells are the "
        "model's, whose code (models, stacking) is unchanged since f0cb06a. `warned` is as the "
        "runs computed it: the agreement check's se below 2k runs has since become the larger "
        "of the plug-in and the bound, which can only make it warn less, and no cell is done "
        "by its warnings (at most 0.25 of a cell's replicates warned). A replicate "
        "fitted again with this code gives its committed rows exactly (checked on 102 rows of 7 "
        "replicates from all four runs, and by tests/test_fit_shapes_study.py on one).",
        "",
        f"Replicates per setting {int(df['reps'].min())}–{int(df['reps'].max())}; the "
        "Monte-Carlo s.e. of each coverage beside it. A cell is **done** when it covers at "
        f"least {GOAL} or the output warns in at least {WARNED:.0%} of its replicates. "
        "`before`: the same replicates under the code after f0cb06a (the model's values "
        "in both scopes); blank where no run of that code holds them. `clearly below`: below "
        f"{GOAL} by more than 2 s.e. at {GOAL}.",
        "",
        f"**Verdict: {len(df) - len(bad)}/{len(df)} cells done**; coverage "
        f"{df['coverage'].min():.3f}–{df['coverage'].max():.3f}"
        + (f"; not done: {len(bad)} (marked ✗)." if len(bad) else "."),
        "",
        *_benchmark_rule_lines(bench),
        "Earlier runs: `before_f0cb06a/` (the full grid, 24 replicates, the code before the "
        "discrete model took the histogram's values), `rerun*/` (after it, before the benchmark "
        "rule), `histogram_rule.md` (the histogram's rule alone, 400 replicates). The rules "
        "below 2k runs and at k = n were chosen by paired runs: `../bench_variance/`.",
        "",
        "| truth | T | n | metric | k | scope | reps | coverage | before | warned | below "
        "| width | w discrete | done | clearly below | run |",
        "|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in df.itertuples():
        prev = "" if pd.isna(r.prev) else f"{r.prev:.3f}"
        lines.append(
            f"| {r.truth} | {r.T} | {r.n} | {r.metric} | {r.k} | {r.scope} | {r.reps} | "
            f"{r.coverage:.3f}±{r.mc_se:.3f} | {prev} | {r.warned:.2f} | {r.below:.2f} | "
            f"{r.mean_width:.3f} | {r.w_discrete:.2f} | {'yes' if r.done else '✗'} | "
            f"{'**yes**' if r.clearly_below else ''} | {r.run} |"
        )
    return "\n".join(lines) + "\n"


def write_final(root: Path = OUT) -> pd.DataFrame:
    """The committed table (:func:`assemble`, :func:`summarise`) into ``root``: replicates.csv,
    coverage.csv and README.md."""
    raw = assemble(root)
    df = summarise(raw)
    prev = []
    for name, _, _ in FINAL_SOURCES[1:]:  # the runs of the code after f0cb06a
        path = root / name / "replicates.csv"
        if path.exists():
            prev.append(pd.read_csv(path))
    keys = ["truth", "T", "n", "rep", "metric", "k", "scope"]
    before = summarise(pd.concat(prev).drop_duplicates(keys)) if prev else df.iloc[:0]
    raw.to_csv(root / "replicates.csv", index=False)
    df.to_csv(root / "coverage.csv", index=False)
    path = root / "benchmark_rule.csv"
    bench = pd.read_csv(path) if path.exists() else None
    (root / "README.md").write_text(final_markdown(df, before, bench))
    return df


def rerun_markdown(after: pd.DataFrame, before: pd.DataFrame, *, note: str) -> str:
    """The report of a re-run of some settings: each cell's coverage now, beside the
    committed full run's (``before``: an earlier version of the code, same seeds for its
    replicates)."""
    keys = ["truth", "T", "n", "metric", "k", "scope"]
    old = before[[*keys, "coverage", "mc_se", "reps"]].rename(
        columns={"coverage": "cov_before", "mc_se": "se_before", "reps": "reps_before"}
    )
    df = after.merge(old, on=keys, how="left")
    bad = df[~df["done"]]
    lines = [
        "# `fit` when task rates are not Beta-distributed: the re-run after the fix",
        "",
        note,
        "",
        f"Settings re-run: {df.groupby(['truth', 'T', 'n']).ngroups}; replicates per setting "
        f"{int(df['reps'].min())}–{int(df['reps'].max())}; Monte-Carlo s.e. of each coverage "
        "beside it. `before`: the committed full run (`../README.md`, the code before the fix, "
        "its replicates the first of these, same seeds).",
        "",
        f"**Verdict (these settings): {len(df) - len(bad)}/{len(df)} cells done**; coverage "
        f"{df['coverage'].min():.3f}–{df['coverage'].max():.3f} (before: "
        f"{int((old.merge(df[keys], on=keys)['cov_before'] >= GOAL).sum())}/{len(df)} at or "
        f"above {GOAL}, coverage {df['cov_before'].min():.3f}–{df['cov_before'].max():.3f})"
        + (f"; not done: {len(bad)} (marked ✗)." if len(bad) else "."),
        "",
        "| truth | T | n | metric | k | scope | reps | coverage | before | warned | below "
        "| width | w discrete | done | clearly below |",
        "|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in df.itertuples():
        lines.append(
            f"| {r.truth} | {r.T} | {r.n} | {r.metric} | {r.k} | {r.scope} | {r.reps} | "
            f"{r.coverage:.3f}±{r.mc_se:.3f} | {r.cov_before:.3f}±{r.se_before:.3f} | "
            f"{r.warned:.2f} | {r.below:.2f} | {r.mean_width:.3f} | {r.w_discrete:.2f} | "
            f"{'yes' if r.done else '✗'} | {'**yes**' if r.clearly_below else ''} |"
        )
    return "\n".join(lines) + "\n"


def _rerun(args: argparse.Namespace) -> int:
    """``--setting``: re-run some settings into ``--out`` (replicates.csv written after each
    replicate, so a stopped run keeps what it computed; ``--from-replicates`` redraws)."""
    args.out.mkdir(parents=True, exist_ok=True)
    raw_path = args.out / "replicates.csv"
    if not args.from_replicates:
        settings = [tuple(int(x) for x in s.split(",")) for s in args.setting]
        first = True
        for rep in range(args.reps):  # round robin: every setting has about as many
            for ti, t, n in settings:
                rows = pd.DataFrame(one_replicate(ti, t, n, rep))
                rows.to_csv(raw_path, mode="w" if first else "a", header=first, index=False)
                first = False
    df = summarise(pd.read_csv(raw_path))
    df.to_csv(args.out / "coverage.csv", index=False)
    before = pd.read_csv(OUT / "before_f0cb06a" / "coverage.csv")
    (args.out / "README.md").write_text(rerun_markdown(df, before, note=args.note or ""))
    return 0 if df["done"].all() else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--render", action="store_true", help="only redraw the report from the CSV")
    ap.add_argument("--seconds", type=float, default=None, help="run time to state (--render)")
    ap.add_argument(
        "--more",
        type=int,
        default=0,
        help="append this many replicates per setting to replicates.csv",
    )
    ap.add_argument(
        "--truth",
        type=int,
        action="append",
        help="with --more: only this truth (index into TRUTHS; repeatable)",
    )
    ap.add_argument(
        "--from-replicates", action="store_true",
        help="summarise the replicates.csv of a run stopped early (the settings it finished)",
    )  # fmt: skip
    ap.add_argument(
        "--setting", action="append",
        help="re-run only this setting 'TRUTH,T,N' (TRUTH an index into TRUTHS; repeatable) "
        "with --reps replicates into --out, beside the committed full run",
    )  # fmt: skip
    ap.add_argument("--note", default=None, help="a paragraph for the report (--setting, --render)")
    ap.add_argument(
        "--histogram-rule", type=int, default=0, metavar="REPS",
        help="the coverage of the histogram's rule alone (no model) in every cell, REPS "
        "replicates each, into --out/histogram_rule.{csv,md}",
    )  # fmt: skip
    ap.add_argument(
        "--final", action="store_true",
        help="the committed table: the runs of FINAL_SOURCES under --out, read with this code",
    )  # fmt: skip
    ap.add_argument(
        "--benchmark-reps", type=int, default=0, metavar="REPS",
        help="the benchmark cells by the fit's own benchmark path (no fit), REPS replicates "
        "each, into --out/benchmark_rule.csv",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if args.benchmark_reps:
        df = benchmark_coverage(args.benchmark_reps)
        df.to_csv(args.out / "benchmark_rule.csv", index=False)
        return 0 if (df["coverage"] >= GOAL).all() else 1
    if args.final:
        return 0 if write_final(args.out)["done"].all() else 1
    if args.histogram_rule:
        df = histogram_coverage(args.histogram_rule)
        args.out.mkdir(parents=True, exist_ok=True)
        df.to_csv(args.out / "histogram_rule.csv", index=False)
        (args.out / "histogram_rule.md").write_text(histogram_markdown(df))
        return 0
    if args.setting:
        return _rerun(args)
    if args.render:
        df = pd.read_csv(args.out / "coverage.csv")
        (args.out / "README.md").write_text(to_markdown(df, seconds=args.seconds, note=args.note))
        return 0 if df["done"].all() else 1
    if args.from_replicates:  # a run stopped early: the settings it finished
        df = summarise(pd.read_csv(args.out / "replicates.csv"))
        df.to_csv(args.out / "coverage.csv", index=False)
        (args.out / "README.md").write_text(to_markdown(df, seconds=args.seconds))
        return 0 if df["done"].all() else 1
    start = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.more:  # more replicates (of the truths asked) appended to a finished run's
        old = pd.read_csv(args.out / "replicates.csv")
        todo = [(ti, t, n) for ti in (args.truth or range(len(TRUTHS))) for t, n in DESIGNS]
        new = run(reps=args.more, settings=todo, first_rep=int(old["rep"].max()) + 1,
                  partial=args.out / "replicates.more.csv")  # fmt: skip
        pd.concat([old, new]).to_csv(args.out / "replicates.csv", index=False)
        (args.out / "replicates.more.csv").unlink()
        return main(["--from-replicates", "--out", str(args.out)])
    raw = run(reps=args.reps, workers=args.workers, partial=args.out / "replicates.csv")
    seconds = time.perf_counter() - start
    df = summarise(raw)
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "coverage.csv", index=False)
    (args.out / "README.md").write_text(to_markdown(df, seconds=seconds))
    print(f"wrote {args.out / 'README.md'} in {seconds / 60:.1f} min")
    return 0 if df["done"].all() else 1


if __name__ == "__main__":
    sys.exit(main())
