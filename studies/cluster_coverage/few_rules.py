"""Candidate population intervals for few clusters, compared paired on the same replicates.

The cells are those of ``cluster_coverage.py`` (same truth and simulation: 4 tasks per
cluster, 4 runs per task, equal weights); every candidate sees the same replicates (one
seed per cell), so differences between candidates are paired. With equal cluster sizes and
weights each cluster's summary is the mean m_g of its tasks' unbiased estimates.

Candidates (90%):

- ``logit_t``: CR1 logit-t on G − 1 df (estimate's rule before this study).
- ``linear_t``: θ̂ ± t_{G−1} SE (CR1). With equal cluster weights CR2 (Bell–McCaffrey) is
  CR1 exactly and the Bell–McCaffrey df of an intercept is G − 1, so CR2 gives ``linear_t``
  (and ``logit_t`` on the logit scale).
- ``cloglog_t`` / ``loglog_t``: the t interval (delta method) on log(−log(1 − θ)) / −log(−log θ).
- ``johnson``: Hall's (1992) monotone version of Johnson's (1978) skewness-corrected t, raw
  scale, skewness of the cluster means estimated from the sample.
- ``jk_logit`` / ``cv3_logit``: t_{G−1} interval on the logit scale with the jackknife (leave
  one cluster out) standard error of logit θ̂, centred on the jackknife mean / on logit θ̂
  (CV3); the delta-method ``logit_t`` where a leave-one-out mean is 0 or 1.
- ``johnson_logit``: Hall's correction on the logit scale (the jackknife pseudo-values'
  skewness, CV3 standard error).
- ``kg``: Korn and Graubard (1998): Clopper–Pearson on the effective number of trials
  n* = θ̂(1 − θ̂)/SE² (G where SE is 0 or θ̂ is 0 or 1), times (t_{T−1}/t_{G−1})²
  (``kg_z``: z instead of t_{T−1}; ``kg_nstar``: t on n* − 1).
- ``cp_clusters``: Clopper–Pearson with the G clusters as G trials and θ̂ G successes.
- ``cv3_logit_cp``: ``cv3_logit`` where every leave-one-cluster-out mean is inside (0, 1)
  and the clusters differ, else ``cp_clusters`` (``cv3_logit_kg``: else ``kg``).
- ``library``: passhat's :func:`passhat.cluster_robust.cluster_jackknife_logit_interval`
  (the rule chosen: ``cv3_logit_cp``), on the same replicates.
- ``wcr_webb``: test inversion of the wild cluster restricted bootstrap-t (Webb's six-point
  weights, all 6^G sign patterns, CR1 t on the raw scale; bisection, 16 steps).
- ``wcr_webb_logit``: the same bootstrap with the t statistic on the logit scale.
- ``union_jc``, ``union_kg_cv3``, ``union_kg_logit``: the union (hull) of two intervals; it
  holds the truth whenever either does, so its coverage is at least the larger of the two.
- ``wilson_t``: the Wilson-type interval on n* = θ̂(1 − θ̂)/SE² with the t quantile.

Run::

    nice .venv/bin/python studies/cluster_coverage/few_rules.py   # 5 and 10 clusters, 1,200 reps
    nice .venv/bin/python studies/cluster_coverage/few_rules.py --hard --clusters 5 \
        --rules logit_t,wcr_webb,wcr_webb_logit,library --name few_rules_wcr
    nice .venv/bin/python studies/cluster_coverage/few_rules.py --unequal --name few_rules_unequal
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cluster_coverage import (
    COLUMNS,
    MUS,
    PER_CLUSTER,
    RUNS,
    SHARES,
    TOTAL_VAR,
    population_truth,
    simulate,
)

LEVEL = 0.90
ALPHA = 1 - LEVEL
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "cluster_coverage"


def task_values(c: np.ndarray, metric: str, k: int) -> np.ndarray:
    """Each task's unbiased estimate from c successes of RUNS runs."""
    if metric == "mean":
        return c / RUNS
    if metric == "pass_at_k":
        return 1.0 - special.comb(RUNS - c, k) / special.comb(RUNS, k)
    return special.comb(c, k) / special.comb(RUNS, k)


def cr1(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """θ̂ and CR1 SE from cluster means m (R, G), equal weights."""
    g = m.shape[1]
    th = m.mean(axis=1)
    se = np.sqrt(np.sum((m - th[:, None]) ** 2, axis=1) / (g * (g - 1)))
    return th, se


def linear_t(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    th, se = cr1(m)
    q = stats.t.ppf(1 - ALPHA / 2, m.shape[1] - 1)
    return np.clip(th - q * se, 0, 1), np.clip(th + q * se, 0, 1)


def _transformed(m: np.ndarray, f, finv, df) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    th, se = cr1(m)
    q = stats.t.ppf(1 - ALPHA / 2, m.shape[1] - 1)
    ok = (th > 0) & (th < 1) & (se > 0)
    thc = np.where(ok, th, 0.5)
    h = q * se * np.abs(df(thc))
    a, b = finv(f(thc) - h), finv(f(thc) + h)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    llo, lhi = linear_t(m)
    return np.where(ok, lo, llo), np.where(ok, hi, lhi)


def logit_t(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return _transformed(m, special.logit, special.expit, lambda t: 1 / (t * (1 - t)))


def cloglog_t(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return _transformed(
        m,
        lambda t: np.log(-np.log1p(-t)),
        lambda x: -np.expm1(-np.exp(x)),
        lambda t: 1 / ((1 - t) * -np.log1p(-t)),
    )


def loglog_t(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return _transformed(
        m,
        lambda t: -np.log(-np.log(t)),
        lambda x: np.exp(-np.exp(-x)),
        lambda t: 1 / (t * -np.log(t)),
    )


def johnson(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hall (1992): g(T) = T + γ T²/(3√n) + γ² T³/(27 n) + γ/(6√n) ~ t; invert."""
    n = m.shape[1]
    th, se = cr1(m)
    d = m - th[:, None]
    s_pop = np.sqrt(np.mean(d**2, axis=1))
    gam = np.where(s_pop > 0, np.mean(d**3, axis=1) / np.where(s_pop > 0, s_pop, 1) ** 3, 0.0)
    q = stats.t.ppf(1 - ALPHA / 2, n - 1)
    rn = np.sqrt(n)

    def ginv(x: float) -> np.ndarray:
        a = gam / rn
        small = np.abs(a) < 1e-9
        ac = np.where(small, 1.0, a)
        val = (np.cbrt(1 + 3 * ac * (x - gam / (6 * rn))) - 1) / ac
        return np.where(small, x, val)

    t_hi, t_lo = ginv(q), ginv(-q)
    lo, hi = th - t_hi * se, th - t_lo * se
    ok = se > 0
    return np.clip(np.where(ok, lo, th), 0, 1), np.clip(np.where(ok, hi, th), 0, 1)


def jk_logit(m: np.ndarray, *, centre: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    g = m.shape[1]
    th, se = cr1(m)
    loo = (m.sum(axis=1, keepdims=True) - m) / (g - 1)
    ok = (th > 0) & (th < 1) & (se > 0) & np.all((loo > 0) & (loo < 1), axis=1)
    ell = special.logit(np.clip(loo, 1e-12, 1 - 1e-12))
    c = special.logit(np.clip(th, 1e-12, 1 - 1e-12))
    mid = ell.mean(axis=1, keepdims=True) if centre == "mean" else c[:, None]
    sej = np.sqrt((g - 1) / g * np.sum((ell - mid) ** 2, axis=1))
    q = stats.t.ppf(1 - ALPHA / 2, g - 1)
    llo, lhi = logit_t(m)
    return (
        np.where(ok, special.expit(c - q * sej), llo),
        np.where(ok, special.expit(c + q * sej), lhi),
    )


def _hall_ends(centre, se, gam, n):  # type: ignore[no-untyped-def]
    """Hall's (1992) inverse of g(T) = T + γT²/(3√n) + γ²T³/(27n) + γ/(6√n) at ±t_q."""
    q = stats.t.ppf(1 - ALPHA / 2, n - 1)
    rn = np.sqrt(n)
    a = gam / rn
    small = np.abs(a) < 1e-9
    ac = np.where(small, 1.0, a)

    def ginv(x: float) -> np.ndarray:
        return np.where(small, x, (np.cbrt(1 + 3 * ac * (x - gam / (6 * rn))) - 1) / ac)

    return centre - ginv(q) * se, centre - ginv(-q) * se


def johnson_logit(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hall's correction on the logit scale: jackknife pseudo-values' skewness, CV3 SE."""
    g = m.shape[1]
    th, se = cr1(m)
    loo = (m.sum(axis=1, keepdims=True) - m) / (g - 1)
    ok = (th > 0) & (th < 1) & (se > 0) & np.all((loo > 0) & (loo < 1), axis=1)
    ell = special.logit(np.clip(loo, 1e-12, 1 - 1e-12))
    c = special.logit(np.clip(th, 1e-12, 1 - 1e-12))
    pseudo = g * c[:, None] - (g - 1) * ell
    d = pseudo - c[:, None]
    s_pop = np.sqrt(np.mean(d**2, axis=1))
    gam = np.mean(d**3, axis=1) / np.where(s_pop > 0, s_pop, 1) ** 3
    sej = np.sqrt(np.sum(d**2, axis=1) / (g * (g - 1)))
    lo, hi = _hall_ends(c, sej, gam, g)
    llo, lhi = logit_t(m)
    return np.where(ok, special.expit(lo), llo), np.where(ok, special.expit(hi), lhi)


def union_jc(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = johnson(m), jk_logit(m, centre="estimate")
    return np.minimum(a[0], b[0]), np.maximum(a[1], b[1])


def korn_graubard(m: np.ndarray, *, ref: str = "tasks") -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson on the effective number of trials n* = θ̂(1 − θ̂)/SE² (G where SE is 0
    or θ̂ is 0 or 1), shrunk by (t_ref/t_{G−1})² (Korn and Graubard 1998), x = θ̂ n*_df.
    ref: "tasks" (t on T − 1 df, KG's n − 1), "z" (normal), "nstar" (t on n* − 1)."""
    g = m.shape[1]
    th, se = cr1(m)
    edge = (th <= 0) | (th >= 1) | ~(se > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_star = np.where(edge, g, th * (1 - th) / np.where(edge, 1.0, se) ** 2)
    q = stats.t.ppf(1 - ALPHA / 2, g - 1)
    if ref == "z":
        top = stats.norm.ppf(1 - ALPHA / 2)
    elif ref == "tasks":
        top = stats.t.ppf(1 - ALPHA / 2, g * PER_CLUSTER - 1)
    else:
        top = stats.t.ppf(1 - ALPHA / 2, np.maximum(n_star - 1, 1))
    n_df = n_star * np.minimum(top / q, 1.0) ** 2
    x = th * n_df
    with np.errstate(invalid="ignore"):
        a = np.maximum(x, 1e-300)
        lo = np.where(x > 0, special.betaincinv(a, n_df - x + 1, ALPHA / 2), 0.0)
        hi = np.where(
            n_df - x > 0,
            special.betaincinv(x + 1, np.maximum(n_df - x, 1e-300), 1 - ALPHA / 2),
            1.0,
        )
    return lo, hi


def wilson_t(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from passhat.analytic import wilson_type_interval

    th, se = cr1(m)
    lo, hi = wilson_type_interval(th, se, float(m.shape[1] - 1), ci=LEVEL)
    llo, lhi = linear_t(m)
    return np.where(np.isfinite(lo), lo, llo), np.where(np.isfinite(hi), hi, lhi)


def union_of(a_rule: str, b_rule: str):  # type: ignore[no-untyped-def]
    def rule(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = RULES[a_rule](m), RULES[b_rule](m)
        return np.minimum(a[0], b[0]), np.maximum(a[1], b[1])

    return rule


def cp_clusters(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson with G trials and θ̂ G successes (fractional)."""
    g = m.shape[1]
    x = m.mean(axis=1) * g
    with np.errstate(invalid="ignore"):
        lo = np.where(x > 0, special.betaincinv(np.maximum(x, 1e-300), g - x + 1, ALPHA / 2), 0.0)
        hi = np.where(
            g - x > 0, special.betaincinv(x + 1, np.maximum(g - x, 1e-300), 1 - ALPHA / 2), 1.0
        )
    return lo, hi


def cv3_logit_cp(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CV3 logit-t where every leave-one-cluster-out mean is inside (0, 1); else CP on G."""
    g = m.shape[1]
    loo = (m.sum(axis=1, keepdims=True) - m) / (g - 1)
    _, se = cr1(m)
    inside = np.all((loo > 1e-12) & (loo < 1 - 1e-12), axis=1) & (se > 0)  # as passhat's
    a, b = jk_logit(m, centre="estimate"), cp_clusters(m)
    return np.where(inside, a[0], b[0]), np.where(inside, a[1], b[1])


def cv3_logit_kg(m: np.ndarray, ref: str = "tasks") -> tuple[np.ndarray, np.ndarray]:
    """CV3 logit-t where every leave-one-cluster-out mean is inside (0, 1); else Korn–Graubard."""
    g = m.shape[1]
    loo = (m.sum(axis=1, keepdims=True) - m) / (g - 1)
    inside = np.all((loo > 0) & (loo < 1), axis=1)
    a, b = jk_logit(m, centre="estimate"), korn_graubard(m, ref=ref)
    return np.where(inside, a[0], b[0]), np.where(inside, a[1], b[1])


def webb_patterns(g: int) -> np.ndarray:
    pts = np.array([-np.sqrt(1.5), -1.0, -np.sqrt(0.5), np.sqrt(0.5), 1.0, np.sqrt(1.5)])
    return np.array(list(itertools.product(pts, repeat=g)))  # (6^G, G)


def _wcr_pvalue(m: np.ndarray, theta0: np.ndarray, pat: np.ndarray, scale: str) -> np.ndarray:
    """p-value of H0: θ = θ0 per replicate (m (R, G), θ0 (R,)), symmetric, restricted."""
    g = m.shape[1]
    th, se = cr1(m)
    eps = m - theta0[:, None]  # (R, G)
    star = eps[:, None, :] * pat[None, :, :]  # (R, B, G)
    mean_star = star.mean(axis=2)  # θ̂* − θ0
    se_star = np.sqrt(np.sum((star - mean_star[..., None]) ** 2, axis=2) / (g * (g - 1)))
    if scale == "raw":
        t_obs = (th - theta0) / se
        t_star = mean_star / se_star
    else:
        t0 = np.clip(theta0, 1e-9, 1 - 1e-9)
        ths = np.clip(theta0[:, None] + mean_star, 1e-9, 1 - 1e-9)
        thc = np.clip(th, 1e-9, 1 - 1e-9)
        t_obs = (special.logit(thc) - special.logit(t0)) / (se / (thc * (1 - thc)))
        t_star = (special.logit(ths) - special.logit(t0)[:, None]) / (se_star / (ths * (1 - ths)))
    t_star = np.where(se_star > 0, t_star, 0.0)
    return np.mean(np.abs(t_star) >= np.abs(t_obs)[:, None] - 1e-12, axis=1)


def wcr(m: np.ndarray, *, scale: str = "raw", steps: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Test inversion, in chunks of 50 replicates."""
    parts = [_wcr(m[i : i + 50], scale=scale, steps=steps) for i in range(0, m.shape[0], 50)]
    return np.concatenate([a for a, _ in parts]), np.concatenate([b for _, b in parts])


def _wcr(m: np.ndarray, *, scale: str, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Test inversion by bisection between θ̂ (not rejected) and the bound 0 or 1."""
    pat = webb_patterns(m.shape[1]).astype(np.float32)
    th, se = cr1(m)
    ends = []
    for bound in (0.0, 1.0):
        inside, outside = th.copy(), np.full_like(th, bound)
        p_bound = _wcr_pvalue(m.astype(np.float32), outside, pat, scale)
        keep_bound = p_bound > ALPHA
        for _ in range(steps):
            mid = (inside + outside) / 2
            acc = _wcr_pvalue(m.astype(np.float32), mid, pat, scale) > ALPHA
            inside = np.where(acc, mid, inside)
            outside = np.where(acc, outside, mid)
        ends.append(np.where(keep_bound, bound, (inside + outside) / 2))
    ok = se > 0
    return np.where(ok, ends[0], th), np.where(ok, ends[1], th)


def library(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """passhat's rule itself (each replicate a column of cluster means, equal weights)."""
    from passhat.cluster_robust import cluster_jackknife_logit_interval

    g = m.shape[1]
    lo, hi, _ = cluster_jackknife_logit_interval(m.T, np.ones(g), np.arange(g), ci=LEVEL)
    return lo, hi


RULES = {
    "logit_t": logit_t,
    "linear_t": linear_t,
    "cloglog_t": cloglog_t,
    "loglog_t": loglog_t,
    "johnson": johnson,
    "jk_logit": jk_logit,
    "cv3_logit": lambda m: jk_logit(m, centre="estimate"),
    "johnson_logit": johnson_logit,
    "union_jc": union_jc,
    "kg": korn_graubard,
    "kg_z": lambda m: korn_graubard(m, ref="z"),
    "kg_nstar": lambda m: korn_graubard(m, ref="nstar"),
    "wilson_t": wilson_t,
    "union_kg_cv3": union_of("kg", "cv3_logit"),
    "union_kg_logit": union_of("kg", "logit_t"),
    "cv3_logit_kg": cv3_logit_kg,
    "cv3_logit_cp": cv3_logit_cp,
    "cp_clusters": cp_clusters,
    "cv3_logit_kg_z": lambda m: cv3_logit_kg(m, ref="z"),
    "library": library,
    "wcr_webb": wcr,
    "wcr_webb_logit": lambda m: wcr(m, scale="logit"),
}


def draw(mu: float, share: float, g: int, reps: int, seed: int) -> np.ndarray:
    """Successes (R, T) of reps replicates."""
    rng = np.random.default_rng(seed)
    return np.stack([simulate(rng, mu, share, g)[0] for _ in range(reps)])


def run(
    clusters: int, reps: int, seed: int, rules: list[str], cells: list[tuple[float, float]]
) -> pd.DataFrame:
    """Every rule on the same replicates of each (mu, share) cell; seed + 97 · cell index."""
    rows = []
    for i, (mu, share) in enumerate(itertools.product(MUS, SHARES)):
        if (mu, share) not in cells:
            continue
        c = draw(mu, share, clusters, reps, seed + 97 * i)
        for metric, k in COLUMNS:
            v = task_values(c, metric, k)
            m = v.reshape(reps, clusters, PER_CLUSTER).mean(axis=2)
            truth = population_truth(mu, metric, k)
            for name in rules:
                start = time.process_time()
                lo, hi = RULES[name](m)
                cov = float(np.mean((lo <= truth) & (truth <= hi)))
                rows.append(
                    {
                        "mu": mu,
                        "between_share": share,
                        "clusters": clusters,
                        "metric": metric,
                        "k": k,
                        "truth": truth,
                        "rule": name,
                        "coverage": cov,
                        "mc_se": np.sqrt(max(cov * (1 - cov), 0.0225) / reps),
                        "miss_low": np.mean(truth < lo),  # truth below the interval
                        "miss_high": np.mean(truth > hi),
                        "mean_width": np.mean(hi - lo),
                        "reps": reps,
                        "cpu_s": time.process_time() - start,
                    }
                )
        print(f"{clusters} clusters, mu {mu}, share {share}", flush=True)
    return pd.DataFrame(rows)


FAST = [
    "logit_t",
    "linear_t",
    "cloglog_t",
    "loglog_t",
    "johnson",
    "cv3_logit",
    "kg",
    "union_kg_cv3",
    "cv3_logit_cp",
    "library",
]
NAMES = {
    "logit_t": "CR1 logit-t (before)",
    "linear_t": "CR1 = CR2 linear t",
    "cloglog_t": "cloglog t",
    "loglog_t": "loglog t",
    "johnson": "Johnson/Hall t",
    "cv3_logit": "CV3 logit-t",
    "kg": "Korn–Graubard",
    "union_kg_cv3": "KG ∪ CV3 logit-t",
    "cv3_logit_cp": "CV3 logit-t, CP fallback",
    "library": "passhat (library)",
    "wcr_webb": "WCR Webb, raw",
    "wcr_webb_logit": "WCR Webb, logit",
}


def to_markdown(df: pd.DataFrame) -> str:
    """Coverage (± MC s.e.) and mean width of every rule in every cell."""
    lines = [
        "# Few clusters: candidate population intervals, paired on the same replicates",
        "",
        "Cells of `cluster_coverage.py` (4 tasks per cluster, 4 runs per task, equal weights); "
        "90% intervals; each rule sees the same replicates of a cell (seed 3100 + 97 · cell). "
        "Made by `studies/cluster_coverage/few_rules.py` (its docstring defines each rule). "
        "With equal cluster weights CR2 (Bell–McCaffrey) is CR1 and its Bell–McCaffrey df "
        "are G − 1, so the CR2 t interval is the `CR1 = CR2 linear t` column. `passhat` is "
        "`passhat.cluster_robust.cluster_jackknife_logit_interval` called on the same "
        "replicates (the rule `estimate` now uses below 20 clusters); it must equal `CV3 "
        "logit-t, CP fallback`.",
        "",
    ]
    for g, sub in df.groupby("clusters"):
        reps = int(sub["reps"].iloc[0])
        rules = list(dict.fromkeys(sub["rule"]))
        lines += [
            f"## {g} clusters, {reps} replicates per cell",
            "",
            "Coverage ± MC s.e. (mean width):",
            "",
            "| μ | share | metric | " + " | ".join(NAMES.get(r, r) for r in rules) + " |",
            "|---:|---:|---|" + "---:|" * len(rules),
        ]
        for key, cell in sub.groupby(["mu", "between_share", "metric"], sort=False):
            by = cell.set_index("rule")
            lines.append(
                f"| {key[0]:g} | {key[1]:g} | {key[2]} | "
                + " | ".join(
                    f"{by.loc[r, 'coverage']:.3f}±{by.loc[r, 'mc_se']:.3f} "
                    f"({by.loc[r, 'mean_width']:.3f})"
                    for r in rules
                )
                + " |"
            )
        cov = sub.groupby("rule", sort=False)["coverage"]
        lines += ["", "Range of coverage over the cells:", ""]
        lines += [
            f"- {NAMES.get(r, r)}: {cov.get_group(r).min():.3f}–{cov.get_group(r).max():.3f}"
            for r in rules
        ]
        lines.append("")
    return "\n".join(lines)


def unequal(clusters: int, reps: int, seed: int) -> pd.DataFrame:
    """passhat's rule and the CR1 logit-t (library functions) with 1–8 tasks per cluster
    (uniform), the same cells otherwise; each replicate draws its cluster sizes."""
    from passhat.cluster_robust import (
        cluster_jackknife_logit_interval,
        cluster_logit_t_interval,
    )

    rules = {"logit_t": cluster_logit_t_interval, "library": cluster_jackknife_logit_interval}
    rows = []
    for i, (mu, share) in enumerate(itertools.product(MUS, SHARES)):
        rng = np.random.default_rng(seed + 97 * i)
        truth = np.array([population_truth(mu, m, k) for m, k in COLUMNS])
        ends: dict[str, list[np.ndarray]] = {r: [] for r in rules}
        for _ in range(reps):
            cl = np.repeat(np.arange(clusters), rng.integers(1, 9, clusters))
            sd_b, sd_w = np.sqrt(share * TOTAL_VAR), np.sqrt((1 - share) * TOTAL_VAR)
            logit = mu + rng.normal(0, sd_b, clusters)[cl] + rng.normal(0, sd_w, cl.size)
            c = rng.binomial(RUNS, special.expit(logit))
            v = np.column_stack([task_values(c, m, k) for m, k in COLUMNS])
            for name, f in rules.items():
                lo, hi, _ = f(v, np.ones(cl.size), cl, ci=LEVEL)
                ends[name].append(np.stack([lo, hi]))
        for name in rules:
            e = np.array(ends[name])  # (R, 2, C)
            for j, (metric, k) in enumerate(COLUMNS):
                lo, hi = e[:, 0, j], e[:, 1, j]
                cov = float(np.mean((lo <= truth[j]) & (truth[j] <= hi)))
                rows.append(
                    {
                        "mu": mu,
                        "between_share": share,
                        "clusters": clusters,
                        "metric": metric,
                        "k": k,
                        "truth": truth[j],
                        "rule": name,
                        "coverage": cov,
                        "mc_se": np.sqrt(max(cov * (1 - cov), 0.0225) / reps),
                        "miss_low": np.mean(truth[j] < lo),
                        "miss_high": np.mean(truth[j] > hi),
                        "mean_width": np.mean(hi - lo),
                        "reps": reps,
                    }
                )
        print(f"unequal, {clusters} clusters, mu {mu}, share {share}", flush=True)
    return pd.DataFrame(rows)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=1200)
    ap.add_argument("--clusters", type=int, nargs="+", default=[5, 10])
    ap.add_argument("--seed", type=int, default=3100)
    ap.add_argument("--rules", default=",".join(FAST))
    ap.add_argument("--hard", action="store_true", help="only the cell mu 1.5, share 0.9")
    ap.add_argument("--name", default="few_rules", help="CSV and Markdown file name")
    ap.add_argument(
        "--unequal", action="store_true", help="1–8 tasks per cluster, passhat's rule vs CR1"
    )
    args = ap.parse_args()
    if args.unequal:
        df = pd.concat([unequal(g, args.reps, args.seed) for g in args.clusters])
        df.to_csv(OUT / f"{args.name}.csv", index=False)
        text = (
            to_markdown(df)
            .replace("4 tasks per cluster", "1–8 tasks per cluster (uniform, drawn per replicate)")
            .replace("; it must equal `CV3 logit-t, CP fallback`.", ".")
        )
        (OUT / f"{args.name}.md").write_text(text + "\n")
        return 0
    cells = [(1.5, 0.9)] if args.hard else list(itertools.product(MUS, SHARES))
    parts = [run(g, args.reps, args.seed, args.rules.split(","), cells) for g in args.clusters]
    df = pd.concat(parts, ignore_index=True)
    df.to_csv(OUT / f"{args.name}.csv", index=False)
    (OUT / f"{args.name}.md").write_text(to_markdown(df) + "\n")
    print(f"wrote {OUT / args.name}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
