"""The pairwise table's numbers computed over the pair axis at once (no loop over pairs).

:func:`passhat.compare.engine.paired_table` answers every pair of a list; most
of its numbers are deterministic functions of the two systems' per-task values
(the difference, the count of tasks that differ, the flaky tasks, the normal
interval of the benchmark scope). They are computed here for a block of pairs
at a time with numpy over a (pairs × tasks × columns) array, by the same
floating-point operations as one pair at a time (a stacked ``matmul`` runs
one product per pair, as a single ``@`` does), so the table does not depend
on how the pairs are grouped. Only the cells that draw random numbers (a
pair's own sign flips, the few-differ fallback, the simulated benchmark
error) are left to the per-pair path, in the pairs' order.

Examples
--------
>>> import numpy as np
>>> from passhat.compare.pair_arrays import pair_stats
>>> n = np.full((2, 3), 4.0)
>>> c = np.array([[0.0, 4, 2], [4, 4, 0]])
>>> v = (c / n)[:, :, None]  # systems × tasks × columns: the mean
>>> s = pair_stats(v, np.full(3, 1 / 3), n, c, np.array([0]), np.array([1]))
>>> s.theta.round(3).tolist(), s.discordant.tolist(), s.flaky.tolist(), s.diff_n.tolist()
([[0.167]], [[2]], [1], [0])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import special

from passhat.hierarchical import Column

__all__ = ["PairStats", "normal_block", "pair_stats", "pair_variances", "table_frame"]

#: Largest (pairs × tasks × columns) block held at once.
_BLOCK_CELLS = 4_000_000

#: Pairs × tasks × columns from which the compiled pair rows pay for loading numba.
_COMPILED_CELLS = 50_000_000

#: A task's difference counts as non-zero above this.
_ZERO = 1e-12

#: Most (n, c) combinations of a pair counted through a histogram (else task by task).
_MAX_COMBOS = 4096


@dataclass(frozen=True)
class PairStats:
    """Per pair (rows) and column: what the table needs without random draws.

    ``theta`` = Σ ŵ_i (U_i(b) − U_i(a)) (pairs × columns), ``discordant`` the
    tasks whose difference exceeds 1e-12 in absolute value (pairs × columns),
    ``flaky`` the tasks with both outcomes in a or b, ``diff_n`` the tasks
    where a and b decided a different number of runs (pairs).
    """

    a: NDArray[np.int64]
    b: NDArray[np.int64]
    theta: NDArray[np.float64]
    discordant: NDArray[np.int64]
    flaky: NDArray[np.int64]
    diff_n: NDArray[np.int64]


class _PairRows:
    """Each pair's ``values[b] − values[a]`` or ``values[a] + values[b]`` (pairs × tasks × C):
    numpy's expression on small inputs, the compiled one into one reused buffer on large ones
    (:func:`passhat._kernels.pair_rows`: the same float64 operations)."""

    def __init__(self, values: NDArray[np.float64], n_pairs: int) -> None:
        self.values = values
        per_pair = int(np.prod(values.shape[1:]))
        self.buf: NDArray[np.float64] | None = None
        if n_pairs * per_pair >= _COMPILED_CELLS:
            step = max(1, _BLOCK_CELLS // max(per_pair, 1))
            self.buf = np.empty((min(step, n_pairs), *values.shape[1:]))
            self.values = np.ascontiguousarray(values, dtype=np.float64)

    def combine(
        self, a: NDArray[np.int64], b: NDArray[np.int64], *, minus: bool
    ) -> NDArray[np.float64]:
        """The block's rows (a C-ordered array, as numpy's expression gives)."""
        if self.buf is None:
            v = self.values
            return v[b] - v[a] if minus else v[a] + v[b]
        from passhat._kernels import pair_rows  # numba is slow to import: when needed

        return pair_rows(self.values, a, b, self.buf[: a.size], minus=minus)


def _blocks(n_pairs: int, per_pair: int) -> list[slice]:
    """Slices of the pair axis, each at most :data:`_BLOCK_CELLS` cells (at least one pair)."""
    step = max(1, _BLOCK_CELLS // max(per_pair, 1))
    return [slice(i, min(i + step, n_pairs)) for i in range(0, n_pairs, step)]


def pair_stats(
    values: NDArray[np.float64],
    wn: NDArray[np.float64],
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    a: NDArray[np.int64],
    b: NDArray[np.int64],
) -> PairStats:
    """The deterministic per-pair quantities of the table, a block of pairs at a time.

    Parameters
    ----------
    values : ndarray, shape (systems, tasks, C)
        Each system's per-task unbiased values (a function of the task's (n, c)).
    wn : ndarray, shape (tasks,)
        Normalised task weights.
    n, c : ndarray, shape (systems, tasks)
    a, b : ndarray of int, shape (pairs,)
        Each pair reports b − a.
    """
    p_n = a.size
    t_n, c_n = values.shape[1], values.shape[2]
    theta = np.empty((p_n, c_n))
    rows = _PairRows(values, p_n)
    for blk in _blocks(p_n, t_n * c_n):
        # block × tasks × columns, one C-ordered matrix per pair: one product per pair,
        # as wn @ (vb − va)
        theta[blk] = wn @ rows.combine(a[blk], b[blk], minus=True)
    counts = _pair_counts(values, n, c, a, b)
    return PairStats(a=a, b=b, theta=theta, discordant=counts[0], flaky=counts[1], diff_n=counts[2])


def _pair_counts(
    values: NDArray[np.float64],
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    a: NDArray[np.int64],
    b: NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Per pair: tasks whose difference exceeds 1e-12 (per column), tasks with both
    outcomes in a or b, tasks where n differs.

    Each is a count over the pair's (n, c) cells: when the distinct (n, c) of all
    systems are few, a histogram of each pair's (cell of a, cell of b) times a
    table of what each combination counts (the same subtraction of the same values);
    else over the tasks directly.
    """
    # the distinct (n, c), sorted by n then c: complex numbers n + ic sort so, exactly
    cells, code = np.unique(n.ravel() + 1j * c.ravel(), return_inverse=True)
    nc = np.stack([cells.real, cells.imag], axis=1)
    k_n = nc.shape[0]
    code = code.reshape(n.shape)
    if k_n * k_n > _MAX_COMBOS:
        return _pair_counts_direct(values, n, c, a, b)
    s_of, t_of = np.unravel_index(np.unique(code, return_index=True)[1], n.shape)
    g = values[s_of, t_of]  # (cells, C): every system's value of a cell
    both = (nc[:, 1] > 0) & (nc[:, 1] < nc[:, 0])
    table = np.concatenate(
        [
            (np.abs(g[None, :, :] - g[:, None, :]) > _ZERO).reshape(k_n * k_n, -1),
            (both[:, None] | both[None, :]).reshape(-1, 1),
            (nc[None, :, 0] != nc[:, None, 0]).reshape(-1, 1),
        ],
        axis=1,
    ).astype(np.float64)  # (cell of a, cell of b) → what it counts
    out = np.empty((a.size, table.shape[1]), dtype=np.int64)
    for blk in _blocks(a.size, n.shape[1]):
        m = a[blk].size
        pair_code = code[a[blk]] * k_n + code[b[blk]] + (np.arange(m) * k_n * k_n)[:, None]
        hist = np.bincount(pair_code.ravel(), minlength=m * k_n * k_n).reshape(m, -1)
        out[blk] = np.rint(hist.astype(np.float64) @ table).astype(np.int64)  # exact integers
    return out[:, :-2], out[:, -2], out[:, -1]


def _pair_counts_direct(
    values: NDArray[np.float64],
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    a: NDArray[np.int64],
    b: NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """:func:`_pair_counts` over the tasks (many distinct (n, c))."""
    disc = np.empty((a.size, values.shape[2]), dtype=np.int64)
    flaky = np.empty(a.size, dtype=np.int64)
    diff_n = np.empty(a.size, dtype=np.int64)
    both = (c > 0) & (c < n)  # tasks with both outcomes, per system
    for blk in _blocks(a.size, values.shape[1] * values.shape[2]):
        ia, ib = a[blk], b[blk]
        disc[blk] = np.count_nonzero(np.abs(values[ib] - values[ia]) > _ZERO, axis=1)
        flaky[blk] = np.count_nonzero(both[ia] | both[ib], axis=1)
        diff_n[blk] = np.count_nonzero(n[ia] != n[ib], axis=1)
    return disc, flaky, diff_n


def pair_variances(
    variance: Callable[[int], NDArray[np.float64]],
    wn: NDArray[np.float64],
    a: NDArray[np.int64],
    b: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Σ ŵ_i² (V_i(a) + V_i(b)) per pair and column, ``variance(s)`` tasks × columns of s."""
    systems = np.unique(np.r_[a, b]).tolist()
    var_s = {s: variance(s) for s in systems}
    if not systems:
        return np.empty((0, 0))
    t_n, c_n = var_s[systems[0]].shape
    stack = np.zeros((int(max(systems)) + 1, t_n, c_n))
    for s, v in var_s.items():
        stack[s] = v
    w2 = wn**2
    out = np.empty((a.size, c_n))
    rows = _PairRows(stack, a.size)
    for blk in _blocks(a.size, t_n * c_n):
        out[blk] = w2 @ rows.combine(a[blk], b[blk], minus=False)  # one product per pair
    return out


def normal_block(
    theta: NDArray[np.float64],
    var: NDArray[np.float64],
    short: NDArray[np.bool_],
    cols: Sequence[Column],
    *,
    z: float,
    rule: str,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_], Any]:
    """Δ ± z·SE and the two-sided normal p-value per (pair, column); NaN where var ≤ 0.

    The arithmetic of one cell at a time: ``max(-1, Δ − z·SE)``, ``min(1, Δ + z·SE)``
    and ``2 · ndtr(−|Δ| / SE)``. Returns lower, upper, p, the mask of cells
    computed and each cell's method (an object array of str).
    """
    ok = ~(var <= 0)
    se = np.sqrt(np.where(ok, var, 1.0))
    x_lo = theta - z * se
    x_hi = theta + z * se
    lo = np.where(x_lo > -1.0, x_lo, -1.0)  # Python's max(-1.0, x), NaN included
    hi = np.where(x_hi < 1.0, x_hi, 1.0)
    p = 2.0 * special.ndtr(-np.abs(theta) / se)
    kks = [1 if m == "mean" else int(k) for m, k in cols]
    plain = np.array([rule] * len(cols), dtype=object)
    model = np.array(
        [f"{rule}; model-based variance where n < {2 * kk}" for kk in kks], dtype=object
    )
    meth = np.where(short, model[None, :], plain[None, :])
    nan = np.nan
    return np.where(ok, lo, nan), np.where(ok, hi, nan), np.where(ok, p, nan), ok, meth


def table_frame(
    stats: PairStats,
    point: NDArray[np.float64],
    cells: dict[str, tuple[NDArray[np.float64], ...]],
    cols: Sequence[Column],
    ks: Sequence[int],
    t_n: int,
) -> pd.DataFrame:
    """The table, one row per (pair, column, k, scope) in the per-pair order.

    ``cells[scope]`` holds lower, upper, p, method, p_method (pairs × columns).
    Per pair: each column, each of its k (the mean's rows repeat for every k),
    benchmark then population.
    """
    jt, kt, st = [], [], []
    for j, (metric, kv) in enumerate(cols):
        for kk in ks if metric == "mean" else [kv]:
            for scope in (0, 1):
                jt.append(j)
                kt.append(int(kk))
                st.append(scope)
    p_n, per = stats.a.size, len(jt)
    r = np.repeat(np.arange(p_n), per)
    j_of = np.tile(np.asarray(jt, dtype=np.int64), p_n)
    pop = np.tile(np.asarray(st, dtype=bool), p_n)
    bench_c, pop_c = cells["benchmark"], cells["population"]

    def pick(q: int) -> NDArray[np.generic]:
        return np.where(pop, pop_c[q][r, j_of], bench_c[q][r, j_of])

    metric_of = np.array([m for m, _ in cols], dtype=object)
    return pd.DataFrame(
        {
            "a": stats.a[r].astype(np.int64),
            "b": stats.b[r].astype(np.int64),
            "k": np.tile(np.asarray(kt, dtype=np.int64), p_n),
            "metric": metric_of[j_of],
            "scope": np.where(pop, "population", "benchmark").astype(object),
            "base_value": point[stats.a[r], j_of],
            "cand_value": point[stats.b[r], j_of],
            "difference": stats.theta[r, j_of],
            "lower": pick(0).astype(float),
            "upper": pick(1).astype(float),
            "p_value": pick(2).astype(float),
            "tasks": np.full(r.size, t_n, dtype=np.int64),
            "method": pick(3),
            "p_method": pick(4),
        }
    )
