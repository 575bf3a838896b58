"""The pairwise table as it was computed before vectorising: pair by pair, a dict per row.

The oracle of ``tests/compare/test_pair_arrays.py``: :func:`passhat.compare.engine.paired_table`
now computes every pair's numbers at once over the pair axis; this module is the per-pair
code it replaced (main at 493a0a4, ``passhat.compare.engine._Pairs.rows`` and
``_shared_population``), kept verbatim apart from imports, to check that every number,
string and random draw of the table is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from passhat.betabinom import HyperPrior
from passhat.compare.engine import (
    MIN_DISCORDANT,
    _pooled_benchmark_intervals,
    _same_estimand,
    _System,
)
from passhat.compare.few_differ import few_differ_intervals
from passhat.hierarchical import Column
from passhat.scopes import DEFAULT_PRIOR, MIN_FLAKY, MIN_TASKS, column_values, columns
from passhat.signflip import enumerable, flip_sums, invert_flips
from passhat.signflip_shared import invert_shared_flips


def old_paired_table(
    n: ArrayLike,
    c: ArrayLike,
    weights: ArrayLike,
    pairs: Sequence[tuple[int, int]],
    ks: Sequence[int],
    *,
    ci: float,
    n_boot: int,
    rng: np.random.Generator,
    prior: HyperPrior = DEFAULT_PRIOR,
    shared_flips: bool = False,
) -> pd.DataFrame:
    """The per-pair ``paired_table`` (same arguments, same table)."""
    eng = _Pairs(
        n=np.asarray(n, dtype=float),
        c=np.asarray(c, dtype=float),
        w=np.asarray(weights, dtype=float).ravel(),
        cols=columns(ks),
        ks=list(ks),
        level=float(ci),
        n_boot=n_boot,
        rng=rng,
        prior=prior,
    )
    if shared_flips:  # drawn first, before any pair's own draws
        eng.shared = _shared_population(
            eng.n, eng.c, eng.w, eng.values, pairs, ci=eng.level, n_flips=n_boot, rng=rng
        )
    return pd.DataFrame([row for ia, ib in pairs for row in eng.rows(ia, ib)])


#: One scope's answer for one column: lower, upper, p-value, interval method, test method.
_Cell = tuple[float, float, float, str, str]


@dataclass
class _Pairs:
    """The systems of :func:`paired_table` and its settings; each pair's cells, computed in
    the order that fixes the random stream (population, then benchmark, pair by pair)."""

    n: NDArray[np.float64]
    c: NDArray[np.float64]
    w: NDArray[np.float64]
    cols: list[Column]
    ks: list[int]
    level: float
    n_boot: int
    rng: np.random.Generator
    prior: HyperPrior
    shared: dict[tuple[int, int], tuple[Any, Any, Any, str]] = field(default_factory=dict)
    systems: dict[int, _System] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.wn = self.w / self.w.sum()
        self.values = [  # tasks × columns per system
            column_values(self.n[s], self.c[s], self.cols) for s in range(self.n.shape[0])
        ]
        self.same = _same_estimand(self.cols)
        self.t_n = int(self.n.shape[1])

    def system(self, s: int) -> _System:
        """System ``s`` with its posterior (built on first use, then shared by its pairs)."""
        if s not in self.systems:
            self.systems[s] = _System(self.n[s], self.c[s], self.prior)
        return self.systems[s]

    def rows(self, ia: int, ib: int) -> list[dict[str, Any]]:
        """The table rows of the pair (ia, ib): per column, each of its k, both scopes."""
        va, vb = self.values[ia], self.values[ib]
        theta = self.wn @ (vb - va)
        base_v, cand_v = self.wn @ va, self.wn @ vb
        pop = self.population(ia, ib, vb - va)
        bench = self.benchmark(ia, ib, theta)
        rows = []
        for j, (metric, kv) in enumerate(self.cols):
            for kk in self.ks if metric == "mean" else [kv]:
                for scope, src in (("benchmark", bench), ("population", pop)):
                    lo_, hi_, p_, meth, pmeth = src[j]
                    rows.append(
                        {
                            "a": ia,
                            "b": ib,
                            "k": int(kk),
                            "metric": metric,
                            "scope": scope,
                            "base_value": float(base_v[j]),
                            "cand_value": float(cand_v[j]),
                            "difference": float(theta[j]),
                            "lower": lo_,
                            "upper": hi_,
                            "p_value": p_,
                            "tasks": self.t_n,
                            "method": meth,
                            "p_method": pmeth,
                        }
                    )
        return rows

    def population(self, ia: int, ib: int, d: NDArray[np.float64]) -> dict[int, _Cell]:
        """Population scope: the sign-flip test inverted where enough tasks differ, else the
        paired Bayesian bootstrap joined with it (:mod:`passhat.compare.few_differ`)."""
        use_flip = (np.abs(d) > 1e-12).sum(axis=0) >= MIN_DISCORDANT
        pop = self._flip_cells(ia, ib, d, np.flatnonzero(use_flip).tolist())
        # pass@1 = pass^1 = the mean: one answer per estimand
        few = [j for j in np.flatnonzero(~use_flip).tolist() if self.same[j] == j]
        if few:
            lo, hi, p, how = few_differ_intervals(
                d[:, few], self.w, ci=self.level, n_draws=self.n_boot, rng=self.rng
            )
            for i, j in enumerate(few):
                pop[j] = (
                    float(lo[i]),
                    float(hi[i]),
                    float(p[i]),
                    "paired Bayesian bootstrap of the matched tasks (half a pseudo-task at −1 "
                    "and at +1), joined with the sign-flip test inverted "
                    f"(rule: fewer than {MIN_DISCORDANT} tasks differ)",
                    f"the larger of the Bayesian bootstrap's two-sided tail ({self.n_boot} "
                    f"draws) and the sign-flip permutation p-value ({how})",
                )
        for j in range(len(self.cols)):
            if j not in pop:
                pop[j] = pop[self.same[j]]
        return pop

    def _flip_cells(
        self, ia: int, ib: int, d: NDArray[np.float64], jdx: list[int]
    ) -> dict[int, _Cell]:
        """The sign-flip test inverted for the columns ``jdx`` (shared flips, or the pair's
        own: exact where the task categories allow it)."""
        n, c, w = self.n, self.c, self.w
        diff_n = int(np.sum(n[ia] != n[ib]))
        note = (
            f"; approximate: n differs between the systems on {diff_n} of {self.t_n} tasks"
            if diff_n
            else "; exact level when the systems are exchangeable within each task"
        )
        found: list[tuple[float, float, float]] = []
        if (ia, ib) in self.shared:
            lo, hi, p, how = self.shared[(ia, ib)]
            found = [(float(lo[j]), float(hi[j]), float(p[j])) for j in jdx]
        elif jdx:
            keys = np.column_stack([n[ia], c[ia], n[ib], c[ib], w])
            _, first, freq = np.unique(keys, axis=0, return_index=True, return_counts=True)
            flips = flip_sums(freq, n_flips=self.n_boot, rng=self.rng)
            lo, hi, p = invert_flips(d[first][:, jdx], w[first], flips, ci=self.level)
            how = (
                f"exact ({flips.prob.size} sign patterns enumerated)"
                if flips.exact
                else f"{self.n_boot} random sign flips"
            )
            found = [(float(x), float(y), float(z)) for x, y, z in zip(lo, hi, p, strict=True)]
        return {
            j: (
                lo_j,
                hi_j,
                p_j,
                "sign-flip test inverted: every shift it does not reject "
                f"(rule: ≥ {MIN_DISCORDANT} tasks differ)",
                f"sign-flip permutation, {how}{note}",
            )
            for j, (lo_j, hi_j, p_j) in zip(jdx, found, strict=True)
        }

    def benchmark(self, ia: int, ib: int, theta: NDArray[np.float64]) -> dict[int, _Cell]:
        """Benchmark scope: normal where the variance estimate rests on many tasks, else the
        unbiased difference with its simulated error (each estimand once)."""
        n, c = self.n, self.c
        flaky = int(np.sum(((c[ia] > 0) & (c[ia] < n[ia])) | ((c[ib] > 0) & (c[ib] < n[ib]))))
        bench: dict[int, _Cell] = {}
        if self.t_n >= MIN_TASKS and flaky >= MIN_FLAKY:
            bench = self._normal_cells(ia, ib, theta)
        drawn = [j for j in range(len(self.cols)) if j not in bench and self.same[j] == j]
        found_b = (
            _pooled_benchmark_intervals(
                self.system(ia),
                self.system(ib),
                [self.cols[j] for j in drawn],
                self.w,
                theta[drawn],
                ci=self.level,
                n_draws=self.n_boot,
                rng=self.rng,
                prior=self.prior,
            )
            if drawn
            else []
        )
        why = (
            f"fewer than {MIN_TASKS} tasks"
            if self.t_n < MIN_TASKS
            else (f"fewer than {MIN_FLAKY} tasks with both outcomes")
        )
        for j, (lo_, hi_, p_) in zip(drawn, found_b, strict=True):
            bench[j] = (
                lo_,
                hi_,
                p_,
                "unbiased difference with the error distribution of the estimate simulated "
                "from the hierarchical posterior of these tasks' rates, one Beta population "
                "fitted to both systems; ends widened by the largest step one success moves "
                "the estimate "
                f"(rule: {why})",
                f"two-sided tail of the simulated error, {self.n_boot} draws",
            )
        for j in range(len(self.cols)):
            if j not in bench:  # pass@1 = pass^1 = the mean: one answer
                bench[j] = bench[self.same[j]]
        return bench

    def _normal_cells(self, ia: int, ib: int, theta: NDArray[np.float64]) -> dict[int, _Cell]:
        """Δ ± z·SE and the normal p-value for every column with a positive variance."""
        z = float(stats.norm.isf(round(1.0 - self.level, 12) / 2))
        var = (self.wn**2) @ (
            self.system(ia).variances(self.cols) + self.system(ib).variances(self.cols)
        )
        cells: dict[int, _Cell] = {}
        for j, col in enumerate(self.cols):
            if var[j] <= 0:
                continue
            se = float(np.sqrt(var[j]))
            kk = 1 if col[0] == "mean" else int(col[1])
            short = bool(np.any(np.minimum(self.n[ia], self.n[ib]) < 2 * kk))
            # 2 · norm.sf(x), by the same ndtr as scipy's norm.sf, without its overhead
            p_norm = float(2.0 * special.ndtr(-abs(theta[j]) / se))
            cells[j] = (
                max(-1.0, float(theta[j] - z * se)),
                min(1.0, float(theta[j] + z * se)),
                p_norm,
                f"normal, unbiased difference ± z·SE (rule: ≥ {MIN_TASKS} tasks, "
                f"≥ {MIN_FLAKY} with both outcomes)"
                + (f"; model-based variance where n < {2 * kk}" if short else ""),
                "normal approximation, two-sided",
            )
        return cells


def _shared_population(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    w: NDArray[np.float64],
    values: Sequence[NDArray[np.float64]],
    pairs: Sequence[tuple[int, int]],
    *,
    ci: float,
    n_flips: int,
    rng: np.random.Generator,
) -> dict[tuple[int, int], tuple[Any, Any, Any, str]]:
    """Population sign-flip results of the pairs that need random flips, on shared flips.

    A pair qualifies as in :func:`paired_table`'s own path: some column has at
    least :data:`MIN_DISCORDANT` differing tasks and the pair's (n, c, w)
    categories are too many to enumerate. With fewer than two such pairs
    there is nothing to share and the dictionary is empty.
    """
    s_n = n.shape[0]
    # per-system category codes of (n, c, w): equal code, equal values and weight
    _, w_code = np.unique(w, return_inverse=True)
    key = (w_code.ravel()[None, :] * (np.max(n) + 1) + n) * (np.max(c) + 1) + c
    codes = np.empty(n.shape, dtype=np.int64)
    sizes = np.empty(s_n, dtype=np.int64)
    for s in range(s_n):
        _, inv = np.unique(key[s], return_inverse=True)
        codes[s] = inv.ravel()
        sizes[s] = int(codes[s].max()) + 1
    picked: list[tuple[int, int]] = []
    need: list[NDArray[np.bool_]] = []
    for ia, ib in pairs:
        use = np.count_nonzero(np.abs(values[ib] - values[ia]) > 1e-12, axis=0) >= MIN_DISCORDANT
        if not use.any():
            continue
        joint = codes[ia] * sizes[ib] + codes[ib]
        cells = int(sizes[ia] * sizes[ib])
        freq = (
            np.bincount(joint, minlength=cells)
            if cells <= 4 * joint.size
            else np.unique(joint, return_counts=True)[1]
        )
        if enumerable(freq[freq > 0]):
            continue
        picked.append((int(ia), int(ib)))
        need.append(use)
    if len(picked) < 2:
        return {}
    lo, hi, p = invert_shared_flips(
        np.stack(values),
        w,
        picked,
        n_flips=n_flips,
        rng=rng,
        ci=ci,
        need=np.vstack(need),
        categories=codes,
    )
    how = f"{n_flips} random sign flips shared by {len(picked)} pairs"
    return {pair: (lo[r], hi[r], p[r], how) for r, pair in enumerate(picked)}
