"""Coverage of grader-corrected intervals with clustered tasks and with task weights (issue 31).

Part of the grader_coverage study (``grader_coverage.py --setting clustered-weighted`` runs it;
``--setting all``, the default, runs it after the independent-task cells).

**Clustered truth.** Task i of cluster g has the true rate p = expit(MU + u_g + e_i), with
u_g ~ N(0, s_b^2) the cluster's effect and e_i ~ N(0, s_w^2) the task's, s_b^2 + s_w^2 = 2
and the between-cluster share s_b^2 / 2 of 0.5 (half) or 0.9 (dominant); 10, 20 or 30
clusters of 5 tasks; 5 runs per task. The population value is E g(p) over new clusters of
new tasks (p's logit is N(MU, 2): a one-dimensional integral, 200-node Gauss-Hermite).
Ways: ``clustered`` (passhat: the audit's Beta posteriors with the cluster bootstrap),
``independent`` (the same with the clusters ignored: the task bootstrap) and ``uncorrected``
(se = sp = 1, with the clusters).

**Weighted truth.** Two kinds of task: 70% of kind A, p ~ Beta(2, 1), weight 1; 30% of kind
B, p ~ Beta(0.7, 1.5), weight 4 (declared weights). T = 50 or 200 tasks, 5 runs each. The
population value is the weighted one, (0.7·1·E_A g + 0.3·4·E_B g) / (0.7 + 1.2) (Beta
moments); the benchmark value Σ w_i g(p_i) / Σ w_i. Ways: ``weighted`` (passhat with the
weights), ``unweighted`` (the same with equal weights: the wrong estimand) and
``uncorrected`` (se = sp = 1, weighted).

Both: grader se = 0.90, sp = 0.85 (non-differential); an audit of 200 random runs
(TP ~ Bin(positives, se), TN ~ Bin(negatives, sp)). Each replicate calls
:func:`passhat.graders.correct.system_rows` (the engine of ``passhat.correct_grader``) once
per way on the same data. Monte-Carlo s.e. of a coverage c over R replicates:
sqrt(c(1 - c) / R), floored at sqrt(0.0225 / R).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache

import numpy as np
import pandas as pd
from scipy import special

from passhat.graders.correct import system_rows
from passhat.graders.spec import GraderSpec

LEVEL = 0.90
LOW = 0.85
SE, SP = 0.90, 0.85
AUDIT = 200
RUNS = 5
KS = [2, 3]
VALUES = (("mean", None), ("pass_at_k", 2), ("pass_hat_k", 2), ("pass_hat_k", 3))
MU, TOTAL_VAR, PER_CLUSTER = 0.5, 2.0, 5
SHARES = (0.5, 0.9)
CLUSTERS = (10, 20, 30)
KINDS = ((0.7, 1.0, 2.0, 1.0), (0.3, 4.0, 0.7, 1.5))  # (share, weight, Beta a, Beta b)
TASKS = (50, 200)
WAYS = {
    "clustered": ("clustered", "independent", "uncorrected"),
    "weighted": ("weighted", "unweighted", "uncorrected"),
}
#: The way each setting's goal applies to (passhat's interval).
PASSHAT = {"clustered": "clustered", "weighted": "weighted"}


def g(metric: str, k: int | None, p: np.ndarray) -> np.ndarray:
    """The value of one task of true rate p."""
    if metric == "pass_at_k":
        return 1.0 - (1.0 - p) ** (k or 1)
    return p ** (k or 1)


@cache
def clustered_truth(metric: str, k: int | None) -> float:
    """E g(expit(MU + z)), z ~ N(0, TOTAL_VAR), by 200-node Gauss-Hermite quadrature."""
    x, w = np.polynomial.hermite_e.hermegauss(200)  # weight exp(-x^2 / 2)
    p = special.expit(MU + np.sqrt(TOTAL_VAR) * x)
    return float(np.sum(w * g(metric, k, p)) / np.sum(w))


def _beta_moment(k: int, a: float, b: float) -> float:
    """E p^k for p ~ Beta(a, b)."""
    return float(np.prod([(a + i) / (a + b + i) for i in range(k)]))


@cache
def weighted_truth(metric: str, k: int | None) -> float:
    """The weighted population value: Σ share·weight·E_kind g / Σ share·weight."""
    num = den = 0.0
    for share, w, a, b in KINDS:
        if metric == "pass_at_k":
            e = 1.0 - _beta_moment(k or 1, b, a)  # 1 - p ~ Beta(b, a)
        else:
            e = _beta_moment(k or 1, a, b)
        num += share * w * e
        den += share * w
    return num / den


def _grade(rng: np.random.Generator, p: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    """The grader's passes of RUNS runs per task, and an audit of AUDIT random runs."""
    s = rng.binomial(RUNS, p)
    c = rng.binomial(s, SE) + rng.binomial(RUNS - s, 1.0 - SP)
    pos = int(rng.binomial(AUDIT, float(np.mean(p))))  # random runs: truly pass w.p. E p
    tp, tn = int(rng.binomial(pos, SE)), int(rng.binomial(AUDIT - pos, SP))
    return c.astype(float), (tp, pos - tp, tn, AUDIT - pos - tn)


def simulate_clustered(
    rng: np.random.Generator, share: float, clusters: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, ...]]:
    """True rates, cluster codes, grader passes and audit counts of one replicate."""
    codes = np.repeat(np.arange(clusters), PER_CLUSTER)
    u = rng.normal(0.0, np.sqrt(share * TOTAL_VAR), clusters)[codes]
    e = rng.normal(0.0, np.sqrt((1.0 - share) * TOTAL_VAR), codes.size)
    p = special.expit(MU + u + e)
    c, audit = _grade(rng, p)
    return p, codes, c, audit


def simulate_weighted(
    rng: np.random.Generator, tasks: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, ...]]:
    """True rates, weights, grader passes and audit counts of one replicate."""
    kind = (rng.random(tasks) < KINDS[1][0]).astype(int)
    a = np.array([KINDS[0][2], KINDS[1][2]])[kind]
    b = np.array([KINDS[0][3], KINDS[1][3]])[kind]
    p = rng.beta(a, b)
    w = np.array([KINDS[0][1], KINDS[1][1]])[kind]
    c, audit = _grade(rng, p)
    return p, w, c, audit


def _spec(how: str, counts: tuple[int, ...]) -> GraderSpec | None:
    """The grader of one way; None when the audit is refused (se + sp <= 1 at its points)."""
    if how == "uncorrected":
        return GraderSpec.from_rates(sensitivity=1.0, specificity=1.0)
    tp, fn, tn, fp = counts
    if tp + fn == 0 or tn + fp == 0 or tp / (tp + fn) + tn / (tn + fp) <= 1:
        return None
    return GraderSpec.from_audit(counts)


def _tally(
    setting: str,
    draw: Callable[[np.random.Generator], tuple[np.ndarray, ...]],
    truth: Callable[[str, int | None], float],
    *,
    reps: int,
    n_boot: int,
    seed: int,
) -> tuple[dict, dict, int]:
    """Hits and widths per (value, way, scope) over ``reps`` replicates, and refused audits."""
    rng = np.random.default_rng(seed)
    ways = WAYS[setting]
    keys = [(v, how, s) for v in VALUES for how in ways for s in ("benchmark", "population")]
    hits, width = dict.fromkeys(keys, 0), dict.fromkeys(keys, 0.0)
    done = refused = 0
    while done < reps:
        p, extra, c, counts = draw(rng)
        if _spec("clustered", counts) is None:
            refused += 1
            continue
        n = np.full(p.size, float(RUNS))
        w = extra if setting == "weighted" else None
        bench = {v: float(np.average(g(v[0], v[1], p), weights=w)) for v in VALUES}
        for how in ways:
            opts = _options(setting, how, extra)
            rows, _ = system_rows(n, c, KS, _spec(how, counts), LEVEL, (rng, rng), n_boot, **opts)  # type: ignore[arg-type]
            for row in rows:
                v = (row["metric"], row["k"])
                if v not in bench:
                    continue
                t = bench[v] if row["scope"] == "benchmark" else truth(*v)
                hits[(v, how, row["scope"])] += int(row["lower"] <= t <= row["upper"])
                width[(v, how, row["scope"])] += float(row["upper"] - row["lower"])
        done += 1
    return hits, width, refused


def _options(setting: str, how: str, extra: np.ndarray) -> dict[str, np.ndarray | None]:
    """system_rows' weights / clusters for one way."""
    if setting == "clustered":
        return {"clusters": None if how == "independent" else extra}
    return {"weights": None if how == "unweighted" else extra / extra.max()}


def run_cell(
    setting: str, param: float, size: int, *, reps: int, n_boot: int, seed: int
) -> list[dict[str, object]]:
    """One cell: clustered (param = between share, size = clusters) or weighted (size = T)."""
    if setting == "clustered":
        hits, width, refused = _tally(
            setting, lambda r: simulate_clustered(r, param, size), clustered_truth,
            reps=reps, n_boot=n_boot, seed=seed,
        )  # fmt: skip
        tasks = size * PER_CLUSTER
    else:
        hits, width, refused = _tally(
            setting, lambda r: simulate_weighted(r, size), weighted_truth,
            reps=reps, n_boot=n_boot, seed=seed,
        )  # fmt: skip
        tasks = size
    out: list[dict[str, object]] = []
    for (v, how, scope), h in hits.items():
        cov = h / reps
        out.append({"setting": setting, "between_share": param if setting == "clustered" else None,
                    "clusters": size if setting == "clustered" else None, "tasks": tasks,
                    "runs": RUNS, "metric": v[0], "k": v[1] or 1, "interval": how,
                    "scope": scope, "coverage": cov,
                    "mc_se": float(np.sqrt(max(cov * (1 - cov), 0.0225) / reps)),
                    "mean_width": width[(v, how, scope)] / reps, "reps": reps,
                    "refused_audits": refused, "n_boot": n_boot})  # fmt: skip
    return out


def cells() -> list[tuple[str, float, int]]:
    """(setting, param, size) of every cell."""
    return [("clustered", s, g) for s in SHARES for g in CLUSTERS] + [
        ("weighted", 0.0, t) for t in TASKS
    ]


def run(*, reps: int, n_boot: int = 500, seed: int = 3131) -> pd.DataFrame:
    """Every cell, each with its own seed (seed + 97·index), serially."""
    parts = []
    for i, cell in enumerate(cells()):
        start = time.perf_counter()
        parts += run_cell(*cell, reps=reps, n_boot=n_boot, seed=seed + 97 * i)
        print(f"[{i + 1}/{len(cells())}] {cell} {time.perf_counter() - start:.1f} s", flush=True)
    return pd.DataFrame(parts)


def summary(df: pd.DataFrame) -> list[str]:
    """The verdict lines per setting, scope and way."""
    lines = []
    for setting, ways in WAYS.items():
        for scope in ("population", "benchmark"):
            for how in ways:
                part = df[(df["setting"] == setting) & (df["scope"] == scope)
                          & (df["interval"] == how)]  # fmt: skip
                ok = int((part["coverage"] + 2 * part["mc_se"] >= LOW).sum())
                lines.append(
                    f"- {setting}, {scope}, `{how}`: coverage {part['coverage'].min():.3f}–"
                    f"{part['coverage'].max():.3f} (mean {part['coverage'].mean():.3f}); "
                    f"{ok}/{len(part)} cells at least {LOW} within 2 MC s.e."
                )
    return lines


def to_markdown(df: pd.DataFrame, *, seconds: float | None = None) -> str:
    """The report: settings, verdicts and every cell."""
    reps = int(df["reps"].iloc[0])
    lines = [
        "# Coverage of grader-corrected intervals: clustered tasks and task weights",
        "",
        f"Nominal level 90%; {reps} replicates per cell, {int(df['n_boot'].iloc[0])} draws per "
        "interval (± is the Monte-Carlo s.e., sqrt(c(1 − c)/R), floored at sqrt(0.0225/R)). "
        f"Grader se = {SE}, sp = {SP}; an audit of {AUDIT} random runs; {RUNS} runs per task. "
        f"Clustered: p = expit({MU} + u_g + e_i), Var u + Var e = {TOTAL_VAR}, between share "
        f"{', '.join(map(str, SHARES))}; {', '.join(map(str, CLUSTERS))} clusters of "
        f"{PER_CLUSTER} tasks. Weighted: 70% of tasks p ~ Beta(2, 1) weight 1, 30% "
        "p ~ Beta(0.7, 1.5) weight 4 (the weighted population value). Replicates whose audit "
        "had se + sp ≤ 1 are redrawn and counted (`refused_audits`: "
        f"{int(df['refused_audits'].max())} at most per cell). Made by "
        "`studies/grader_coverage/clustered_weighted.py` (run: `nice .venv/bin/python "
        "studies/grader_coverage/grader_coverage.py --setting clustered-weighted`).",
        "",
    ]
    if seconds is not None:
        lines += [f"Run time: {seconds / 60:.1f} min (one process).", ""]
    lines += [
        f"**Goal**: `clustered` and `weighted` intervals (passhat's) cover at least {LOW} "
        "(within 2 MC s.e.).",
        "",
        *summary(df),
        "",
        "| setting | between share | clusters | T | metric | k | scope | way | coverage | "
        "mean width |",
        "|---|---:|---:|---:|---|---:|---|---|---:|---:|",
    ]
    for r in df.itertuples():
        share = "" if pd.isna(r.between_share) else f"{r.between_share}"
        ncl = "" if pd.isna(r.clusters) else f"{int(r.clusters)}"
        lines.append(
            f"| {r.setting} | {share} | {ncl} | {r.tasks} | {r.metric} | {r.k} | {r.scope} | "
            f"{r.interval} | {r.coverage:.3f}±{r.mc_se:.3f} | {r.mean_width:.3f} |"
        )
    return "\n".join(lines) + "\n"


def goal_met(df: pd.DataFrame) -> bool:
    """passhat's intervals at least LOW within 2 MC s.e. in every cell of both settings."""
    mine = df[df["interval"].isin(list(PASSHAT.values()))]
    return bool((mine["coverage"] + 2 * mine["mc_se"] >= LOW).all())
