"""The result of :func:`passhat.rank`: the leaderboard, its pairwise matrix and k-grid bands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat._repr import View, as_html, as_text, interval_text
from passhat.errors import OptionError
from passhat.hierarchical import Column
from passhat.rank.draws import simultaneous_band

__all__ = ["Ranking", "metric_name"]

_LABELS = {"mean": "mean", "pass_at_k": "pass@k", "pass_hat_k": "pass^k"}


def metric_name(metric: str, k: int) -> str:
    """``pass^4``, ``pass@1`` or ``mean`` (the mean has no k).

    Examples
    --------
    >>> from passhat.rank.result import metric_name
    >>> metric_name("pass_hat_k", 4), metric_name("mean", 4)
    ('pass^4', 'mean')
    """
    return "mean" if metric == "mean" else _LABELS[metric].replace("k", str(k))


@dataclass
class Ranking:
    """Result of :func:`passhat.rank`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (metric, k, system), best first: value, lower, upper
        (marginal interval, scope and method in ``scope``/``method``), rank
        (ties share a rank), rank_lower, rank_upper, p_first (P(rank = 1)),
        mean_rank, tier, tier_leader, separated_from_leader (a chain of ties:
        in the leader's tier but separated from the leader), tasks, engine.
    pairs : pandas.DataFrame
        Every pair (a, b) in leaderboard order, per (metric, k, scope):
        difference b − a, lower, upper (marginal, the paired rule of
        :func:`passhat.compare`), p_value, p_holm (Holm across the pairs of
        that metric and k), separated (p_holm ≤ 1 − ci), win_probability
        (share of the shared resamples where b beats a), method, p_method.
    bands : pandas.DataFrame
        Per system, pass@k and pass^k over the whole k grid at once
        (simultaneous, max-type from the shared draws): lower, upper, crit.
    draws : ndarray, shape (draws, systems, columns)
        The engine's joint draws (bootstrap resamples), for further bands.
    columns : list of (metric, k)
    systems : list of str
    dropped : pandas.DataFrame
        Tasks left out, with the reason: not run by every system
        (``intersect=True``), or no decided run for some system.
    settings : dict
    notes : list of str
    """

    table: pd.DataFrame
    pairs: pd.DataFrame
    bands: pd.DataFrame
    draws: NDArray[np.float64]
    columns: list[Column]
    systems: list[str]
    dropped: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    # ------------------------------------------------------------ bands from the draws
    def _grid(self, metric: str) -> list[int]:
        idx = [j for j, (m, _) in enumerate(self.columns) if m == metric]
        if not idx:
            have = sorted({m for m, _ in self.columns})
            raise OptionError(f"metric {metric!r} not ranked; have {', '.join(have)}")
        return idx

    def _index(self, system: str) -> int:
        if system not in self.systems:
            raise OptionError(f"system {system!r} not found; have {', '.join(self.systems)}")
        return self.systems.index(system)

    def band(self, system: str, metric: str = "pass_hat_k") -> pd.DataFrame:
        """Simultaneous band over the k grid for one system (every k covered at once).

        Examples
        --------
        >>> import passhat as ph
        >>> r = ph.rank(ph.load_example("agents"), k=[1, 2, 3], n_boot=500, seed=0)
        >>> r.band("guided")["k"].tolist()
        [1, 2, 3]
        """
        idx = self._grid(metric)
        d = self.draws[:, self._index(system), idx]
        point = self._point()[self._index(system), idx]
        lo, hi, crit = simultaneous_band(d, point, ci=self.settings["ci"])
        return pd.DataFrame(
            {
                "system": system,
                "metric": metric,
                "k": [self.columns[j][1] for j in idx],
                "value": point,
                "lower": np.clip(lo, 0.0, 1.0),
                "upper": np.clip(hi, 0.0, 1.0),
                "crit": crit,
                "interval": f"simultaneous over k = {self._kgrid(idx)}",
            }
        )

    def difference_band(self, a: str, b: str, metric: str = "pass_hat_k") -> pd.DataFrame:
        """Simultaneous band over the k grid for the paired difference b − a.

        Examples
        --------
        >>> import passhat as ph
        >>> r = ph.rank(ph.load_example("agents"), k=[1, 2], n_boot=500, seed=0)
        >>> r.difference_band("baseline", "guided")["interval"].iloc[0]
        'simultaneous over k = 1, 2'
        """
        idx = self._grid(metric)
        ia, ib = self._index(a), self._index(b)
        d = self.draws[:, ib, idx] - self.draws[:, ia, idx]
        point = self._point()[ib, idx] - self._point()[ia, idx]
        lo, hi, crit = simultaneous_band(d, point, ci=self.settings["ci"])
        return pd.DataFrame(
            {
                "a": a,
                "b": b,
                "metric": metric,
                "k": [self.columns[j][1] for j in idx],
                "difference": point,
                "lower": np.clip(lo, -1.0, 1.0),
                "upper": np.clip(hi, -1.0, 1.0),
                "crit": crit,
                "interval": f"simultaneous over k = {self._kgrid(idx)}",
            }
        )

    def _kgrid(self, idx: list[int]) -> str:
        return ", ".join(str(self.columns[j][1]) for j in idx)

    def _point(self) -> NDArray[np.float64]:
        t = self.table.drop_duplicates(["system", "metric", "k"])
        out = np.full((len(self.systems), len(self.columns)), np.nan)
        pos = {s: i for i, s in enumerate(self.systems)}
        for j, (m, kk) in enumerate(self.columns):
            part = t[(t["metric"] == m) & ((t["k"] == kk) | (m == "mean"))]
            part = part.drop_duplicates("system")
            out[[pos[s] for s in part["system"]], j] = part["value"].to_numpy(dtype=float)
        return out

    # ------------------------------------------------------------ views
    def _view(self) -> View:
        metric, kk = self.settings["headline"]
        t = self.table[(self.table["metric"] == metric) & (self.table["k"] == kk)]
        level = self.settings["ci"]
        frame = pd.DataFrame(
            {
                "tier": [
                    f"{tier}*" if sep else str(tier)
                    for tier, sep in zip(t["tier"], t["separated_from_leader"], strict=True)
                ],
                "system": t["system"].astype(str),
                metric_name(metric, kk): [
                    interval_text(v, lo, hi)
                    for v, lo, hi in zip(t["value"], t["lower"], t["upper"], strict=True)
                ],
                "rank (interval)": [
                    f"{r} ({lo}–{hi})" if lo != hi else f"{r} ({lo})"
                    for r, lo, hi in zip(t["rank"], t["rank_lower"], t["rank_upper"], strict=True)
                ],
                "P(rank = 1)": [f"{p:.2f}" for p in t["p_first"]],
            }
        )
        notes = [
            f"{len(self.systems)} systems on {self.settings['tasks']} common tasks; engine: "
            f"{self.settings['engine_label']}; {self.settings['n_boot']} "
            f"{self.settings.get('draws_word', 'resamples')}, seed "
            f"{self.settings['seed']}.",
            f"Value intervals: {level:.0%}, {self.settings['scope_label']}, marginal "
            f"(per system). Rank intervals: {level:.0%}, marginal per system and simultaneous "
            f"over its comparisons with the others ({self.settings['rank_method']}).",
            (
                f"Tiers: walking down from the leader, a new tier starts only at a system whose "
                f"paired test rejects at {1 - level:.0%} against every system of the tier above"
                if self.settings.get("tier_rule", "chain") == "chain"
                else f"Tiers: a system joins the tier while its paired test against the tier's "
                f"leader does not reject at {1 - level:.0%}"
            )
            + f", after Holm across the {self.settings['pairs_tested']} pairs of each metric "
            f"and k ({self.settings['tier_scope']} scope, the compare rule); ties share a rank.",
            "Other metrics and k: .table; pairwise differences: .pairs; bands over the k grid "
            "(simultaneous): .bands, .band(), .difference_band().",
        ]
        if t["separated_from_leader"].any():
            notes.append(
                "* in its leader's tier through a chain of ties, but separated from the leader."
            )
        if len(self.dropped):
            notes.append(f"{len(self.dropped)} task(s) left out, with the reason: see .dropped.")
        notes.extend(self.notes)
        title = f"Leaderboard by {metric_name(metric, kk)} (best first)"
        return View(title, frame, tuple(notes))

    def __repr__(self) -> str:
        return as_text(self._view())

    def _repr_html_(self) -> str:
        return as_html(self._view())
