"""Many systems on the same tasks: a leaderboard with rank uncertainty.

* :func:`rank` — per system, metric and k: value, interval, rank, rank
  interval, share of draws ranked first, group letters, and the pairwise matrix
  (:mod:`passhat.rank.leaderboard`);
* :func:`rank_from_draws` — the rank statistics as a pure function of a draw
  matrix (draws × systems), shared by the bootstrap and the joint model
  (:mod:`passhat.rank.draws`);
* :func:`paired_draws` — the paired task bootstrap of many systems, one draw of
  tasks for every system, metric and k (:mod:`passhat.rank.engine`);
* :func:`simultaneous_band` — max-type bands over the k grid;
* the pairwise matrix under :func:`rank` (paired tests, Holm, win
  probabilities) is :mod:`passhat.rank.pairs`; :func:`holm` is passhat's one Holm
  (:func:`passhat.compare.multiplicity.holm`).

The result, :class:`Ranking`, lives with its display in :mod:`passhat.rank.result`; with
``by="category"`` its ``by_category`` is a :class:`CategoryRanking`
(:mod:`passhat.rank.categories`: the leaderboard of each category and the test across them).

Examples
--------
>>> import passhat as ph
>>> r = ph.rank(ph.load_example("agents"), k=[1, 2], n_boot=500, seed=0)
>>> r.settings["engine"], r.systems
('bootstrap', ['baseline', 'guided'])
"""

from __future__ import annotations

from passhat.compare.multiplicity import holm
from passhat.rank.categories_result import CategoryRanking
from passhat.rank.draws import point_ranks, rank_from_draws, simultaneous_band
from passhat.rank.engine import paired_draws
from passhat.rank.inputs import combine_systems
from passhat.rank.leaderboard import ENGINES, rank
from passhat.rank.result import Ranking

__all__ = [
    "ENGINES",
    "CategoryRanking",
    "Ranking",
    "combine_systems",
    "holm",
    "paired_draws",
    "point_ranks",
    "rank",
    "rank_from_draws",
    "simultaneous_band",
]
