"""Groups of a leaderboard: the compact letter display of the paired tests, and Holm per column.

Every pair of systems is compared by the paired rule of :func:`passhat.compare`
(:func:`passhat.compare.paired_table`: in each scope the interval and the test
are one construction, so the interval excludes 0 exactly when p ≤ 1 − ci).
The p-values of the pairs of one metric and k are adjusted by Holm's method
across all the pairs tested (family-wise error ≤ α = 1 − ci), and the
**groups** are a compact letter display of the separated pairs (Piepho 2004):
each system gets one or more letters, and **two systems share a letter
exactly when the data do not separate them**. Letters are given in
leaderboard order, so the leader's letters start with ``a``.

Why letters, not tiers cut by walking down the leaderboard: a tier is one
number per system, and no single number can say both "A ≈ B", "B ≈ C" and
"A > C". Walking down from the leader, the rule "a new tier starts only at a
system separated from every system of the tier above" put truly different
systems in one tier in 75–100% of replicates (a chain of ties reaches down),
and "a new tier starts at the first system separated from the tier's leader"
split systems of equal truth in 6–30% of replicates (one of them separated
from a strong leader, the other not). The letters have neither fault: equal
systems share a letter unless Holm's test falsely separates them, and
separated systems never share one (``studies/rank_calibration``).

References
----------
.. [1] Piepho, H.-P. (2004). An algorithm for a letter-based representation of
   all-pairwise comparisons. *Journal of Computational and Graphical
   Statistics*, 13(2), 456–466.
.. [2] Holm, S. (1979). A simple sequentially rejective multiple test
   procedure. *Scandinavian Journal of Statistics*, 6(2), 65–70.

Examples
--------
>>> import numpy as np
>>> from passhat.rank.tiers import letter_display
>>> adj = np.array([[1, .5, .01], [.5, 1, .5], [.01, .5, 1]])   # a ≈ b ≈ c, but a > c
>>> letter_display(np.array([0.9, 0.8, 0.7]), adj, alpha=0.05)
['a', 'ab', 'b']
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat.compare.multiplicity import holm
from passhat.rank.draws import TIE_DECIMALS

__all__ = ["holm_by_column", "letter_display", "letter_name"]


def letter_name(i: int) -> str:
    """The name of the i-th letter: a–z, then A–Z, then ``<53>``, ``<54>``, ….

    Examples
    --------
    >>> from passhat.rank.tiers import letter_name
    >>> letter_name(0), letter_name(26), letter_name(52)
    ('a', 'A', '<53>')
    """
    if i < 26:
        return chr(ord("a") + i)
    if i < 52:
        return chr(ord("A") + i - 26)
    return f"<{i + 1}>"


def _absorb(cols: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Drop every column (row of ``cols``, letters × systems) contained in another one (of two
    equal columns the first is kept)."""
    c = cols.astype(np.int64)
    inside = (c @ (1 - c).T) == 0  # inside[a, b]: every system of a is in b
    size = c.sum(axis=1)
    idx = np.arange(cols.shape[0])
    larger = size[None, :] > size[:, None]
    equal_earlier = (size[None, :] == size[:, None]) & (idx[None, :] < idx[:, None])
    absorbed = (inside & (larger | equal_earlier)).any(axis=1)
    return cols[~absorbed]


def _sweep(cols: NDArray[np.bool_], sep: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Piepho's sweep: drop a system's letter where every pair that letter joins it with
    shares another letter, then absorb again (fewer letters, the same display)."""
    cols = cols.copy()
    for letter in range(cols.shape[0]):
        for i in np.flatnonzero(cols[letter]).tolist():
            rest = np.delete(cols, letter, axis=0)
            if not rest[:, i].any():
                continue  # its only letter
            mates = np.flatnonzero(cols[letter])
            mates = mates[mates != i]
            shared = (rest[:, [i]] & rest[:, mates]).any(axis=0)
            if shared.all():
                cols[letter, i] = False
    cols = cols[cols.any(axis=1)]
    return _absorb(cols)


def letter_display(
    values: NDArray[np.float64], adjusted: NDArray[np.float64], *, alpha: float
) -> list[str]:
    """Compact letter display: systems share a letter exactly when they are not separated.

    Piepho's (2004) insert-and-absorb algorithm: start with one letter for
    every system; for each separated pair, split every letter holding both
    into two (one without each), and drop any letter whose systems another
    letter holds; finally sweep redundant letters. Letters are named in
    leaderboard order (the leader's first letter is ``a``).

    Parameters
    ----------
    values : ndarray, shape (S,)
        Point values (higher is better; equal values keep input order).
    adjusted : ndarray, shape (S, S)
        Holm-adjusted p-values of every pair (symmetric; the diagonal and NaN
        count as not separated).
    alpha : float
        A pair is separated when its adjusted p ≤ α.

    Returns
    -------
    list of str
        Each system's letters, in input order.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.rank.tiers import letter_display
    >>> adj = np.array([[1, .01, .01], [.01, 1, .5], [.01, .5, 1]])
    >>> letter_display(np.array([0.5, 0.9, 0.6]), adj, alpha=0.05)   # b leads, c with it
    ['b', 'a', 'a']
    """
    s = values.size
    sep = np.nan_to_num(np.asarray(adjusted, dtype=float), nan=1.0) <= alpha
    np.fill_diagonal(sep, False)
    sep = sep | sep.T
    order = np.argsort(-np.round(values, TIE_DECIMALS), kind="stable")
    cols = np.ones((1, s), dtype=bool)
    for a_pos in range(s):  # pairs of systems, in leaderboard order
        for b_pos in range(a_pos + 1, s):
            i, j = int(order[a_pos]), int(order[b_pos])
            if not sep[i, j]:
                continue
            both = cols[:, i] & cols[:, j]
            if not both.any():
                continue
            without_i, without_j = cols[both].copy(), cols[both].copy()
            without_i[:, i] = False
            without_j[:, j] = False
            cols = _absorb(np.vstack([cols[~both], without_i, without_j]))
    cols = _sweep(cols, sep)
    pos = np.empty(s, dtype=np.int64)
    pos[order] = np.arange(s)
    ranked = sorted(range(cols.shape[0]), key=lambda r: sorted(pos[cols[r]].tolist()))
    return ["".join(letter_name(n) for n, r in enumerate(ranked) if cols[r, i]) for i in range(s)]


def holm_by_column(table: pd.DataFrame) -> pd.Series:
    """Holm-adjusted p-values across the pairs of each (metric, k, scope).

    Examples
    --------
    >>> import pandas as pd
    >>> from passhat.rank.tiers import holm_by_column
    >>> t = pd.DataFrame({"metric": ["mean"] * 2, "k": [1, 1], "scope": ["population"] * 2,
    ...                   "p_value": [0.01, 0.04]})
    >>> holm_by_column(t).round(3).tolist()
    [0.02, 0.04]
    """
    out = pd.Series(np.nan, index=table.index, dtype=float)
    for _, grp in table.groupby(["metric", "k", "scope"], sort=False):
        out.loc[grp.index] = holm(grp["p_value"].to_numpy(dtype=float))
    return out
