"""Significance tiers and the pairwise matrix of a leaderboard.

Every pair of systems is compared by the paired rule of :func:`passhat.compare`
(:func:`passhat.compare.paired_table`: in each scope the interval and the test
are one construction, so the interval excludes 0 exactly when p ≤ 1 − ci).
The p-values of the pairs of one metric and k are adjusted by Holm's method
across all the pairs tested (family-wise error ≤ α = 1 − ci), and the **tiers**
follow by walking down the leaderboard from the leader. By default (``"chain"``)
a system starts a new tier only when its test **rejects against every system
of the current tier**; otherwise it joins it. So two systems of equal truth end up in different
tiers only through a false rejection (probability ≤ α for all pairs at once)
or through an order inversion across a system that is really separated from
them. A system can therefore sit in its leader's tier while separated from the
leader itself (a chain of ties); ``separated_from_leader`` says so.

The other rule (``"leader"``, DESIGN.md's first sketch) lets a system join
while it is not separated from the tier's leader: every member is then
inseparable from its leader, but systems of equal truth are split whenever one
of them happens to be separated from a strong leader and the other not — in a
simulation with known truth far more often than α (studies/rank_calibration).

Examples
--------
>>> import numpy as np
>>> from passhat.rank.tiers import assign_tiers
>>> adj = np.array([[np.nan, 0.5, 0.01], [0.5, np.nan, 0.02], [0.01, 0.02, np.nan]])
>>> assign_tiers(np.array([0.9, 0.8, 0.2]), adj, alpha=0.05).tolist()
[1, 1, 2]
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat.compare.multiplicity import holm
from passhat.rank.draws import TIE_DECIMALS

__all__ = ["TIER_RULES", "assign_tiers", "holm_by_column", "leaders"]


#: Tier rules: "chain" (default) and "leader" (see :func:`assign_tiers`).
TIER_RULES = ("chain", "leader")


def assign_tiers(
    values: NDArray[np.float64],
    adjusted: NDArray[np.float64],
    *,
    alpha: float,
    rule: str = "chain",
) -> NDArray[np.int64]:
    """Tier of each system, walking down the leaderboard from the leader.

    Parameters
    ----------
    values : ndarray, shape (S,)
        Point values (higher is better; equal values keep input order).
    adjusted : ndarray, shape (S, S)
        Holm-adjusted p-values of every pair (symmetric).
    alpha : float
        Level: a pair is separated when its adjusted p ≤ α.
    rule : {"chain", "leader"}
        ``"chain"``: a new tier starts only at a system separated from
        *every* system of the current tier (equal-truth systems are split
        only through a false rejection). ``"leader"``: a system joins the
        tier while it is not separated from the tier's leader (every member
        is inseparable from its leader, but systems of equal truth are split
        whenever one of them is separated from the leader and the other not).

    Returns
    -------
    ndarray of int, shape (S,)
        Tier numbers, 1 = the leader's tier.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.rank.tiers import assign_tiers
    >>> adj = np.array([[1, .5, .01], [.5, 1, .5], [.01, .5, 1]])   # a ~ b ~ c, a > c
    >>> v = np.array([0.9, 0.8, 0.7])
    >>> assign_tiers(v, adj, alpha=0.05).tolist(), assign_tiers(v, adj, alpha=0.05,
    ...                                                         rule="leader").tolist()
    ([1, 1, 1], [1, 1, 2])
    """
    order = np.argsort(-np.round(values, TIE_DECIMALS), kind="stable")
    tiers = np.zeros(values.size, dtype=np.int64)
    tier = 0
    members: list[int] = []
    for s in order:  # systems, not tasks: S steps
        if rule == "leader":
            new = not members or adjusted[members[0], s] <= alpha
        else:
            new = not members or all(adjusted[m, s] <= alpha for m in members)
        if new:
            tier += 1
            members = []
        members.append(int(s))
        tiers[s] = tier
    return tiers


def leaders(values: NDArray[np.float64], tiers: NDArray[np.int64]) -> NDArray[np.int64]:
    """Index of each system's tier leader (its tier's best point value).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.rank.tiers import leaders
    >>> leaders(np.array([0.5, 0.9, 0.4]), np.array([1, 1, 2])).tolist()
    [1, 1, 2]
    """
    out = np.empty(values.size, dtype=np.int64)
    v = np.round(values, TIE_DECIMALS)
    for t in np.unique(tiers):
        idx = np.flatnonzero(tiers == t)
        out[idx] = idx[np.argmax(v[idx])]
    return out


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
