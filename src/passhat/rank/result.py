"""The result of :func:`passhat.rank`: the leaderboard, its pairwise matrix and k-grid bands.

:class:`Ranking` holds the leaderboard of every metric and k, the pairwise matrix, the
simultaneous bands and the joint draws. One display (:meth:`Ranking.view`) serves the
terminal (``passhat rank``), a notebook and ``repr``: per metric and k the group letters,
values, ranks with their intervals and the share of draws ranked first, then the engine and
what each column means.
Nothing here ranks (the bands from the draws excepted).

Examples
--------
>>> import passhat as ph
>>> r = ph.rank(ph.load_example("agents"), k=[1, 2], metrics=["pass_hat_k"], n_boot=300, seed=0)
>>> [part.title for part in r.view().parts if part.title]
['pass^1: 2 systems on 168 common tasks (0.95 intervals)', \
'pass^2: 2 systems on 168 common tasks (0.95 intervals)']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat._format import num
from passhat._paper import PaperTable, interval_cell, level_words, metric_label
from passhat._repr import Display, View, interval_text
from passhat._result import Result, records
from passhat.errors import OptionError
from passhat.hierarchical import Column
from passhat.intervals import outside_mask
from passhat.rank.categories_result import CategoryRanking
from passhat.rank.draws import simultaneous_band
from passhat.scopes import MIN_TASKS, weights_method

__all__ = [
    "Ranking",
    "engine_words",
    "flat_note",
    "metric_name",
    "outside_note",
    "share_header",
    "weights_note",
]


def metric_name(metric: str, k: int) -> str:
    """``pass^4``, ``pass@1`` or ``mean`` (the mean has no k).

    Examples
    --------
    >>> from passhat.rank.result import metric_name
    >>> metric_name("pass_hat_k", 4), metric_name("mean", 4)
    ('pass^4', 'mean')
    """
    return metric_label(metric, k)


@dataclass(frozen=True, repr=False, eq=False)
class Ranking(Result):
    """Result of :func:`passhat.rank`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (metric, k, system), best first: value, lower, upper
        (marginal interval, scope and method in ``scope``/``method``), rank
        (ties share a rank), rank_lower, rank_upper, rank_method,
        share_first (the share of resamples or posterior draws in which the
        system ranks first: not the probability that it is truly first),
        mean_rank, group (letters: systems that share a letter are not
        separated by the Holm-adjusted paired tests), tasks, engine.
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
        The options used and the words of the engine (``engine_label``,
        ``scope_label``, ``value_interval``, ``draws_word``), the pairs tested
        and their flips, and ``headline`` (the metric and k shown first
        elsewhere: pass^k at the largest k).
    notes : list of str
    sources : tuple of dict
        Where each input came from, as its reader recorded it (path, format,
        sha256), one per input; empty dicts for data built in Python.
    by_category : CategoryRanking or None
        With ``by="category"``: the leaderboard of each category and the test of whether
        the systems' differences depend on it (:mod:`passhat.rank.categories`).
    """

    schema: ClassVar[str] = "ranking"

    table: pd.DataFrame
    pairs: pd.DataFrame
    bands: pd.DataFrame
    draws: NDArray[np.float64]
    columns: list[Column]
    systems: list[str]
    dropped: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    sources: tuple[dict[str, str], ...] = ()
    by_category: CategoryRanking | None = None

    def to_frame(self) -> pd.DataFrame:
        """The leaderboard: one row per (metric, k, system), best first."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        doc = {
            "input": [dict(src) for src in self.sources],
            "settings": {k: v for k, v in self.settings.items() if k != "headline"},
            "leaderboard": records(self.table),
            "pairs": records(self.pairs),
            "bands": records(self.bands),
            "dropped": records(self.dropped),
            "notes": list(self.notes),
        }
        if self.by_category is not None:
            inner = self.by_category._document()
            # each category's rows name their interval's method; so do the overall ones
            # (stacked with them by --csv, a row is read on its own)
            how = str(self.settings.get("value_interval", ""))
            doc["leaderboard"] = records(self.table.assign(method=how))
            doc["by"] = inner["by"]
            doc["category_settings"] = inner["settings"]
            for key in ("by_category", "category_pairs", "category_tests"):
                doc[key] = inner[key]
            doc["notes"] = [*doc["notes"], *inner["notes"]]
        return doc

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

    # ------------------------------------------------------------ view
    def view(self) -> Display:
        """Per metric and k (pass@1 and pass^1 only when the mean is not ranked: they are the
        mean) the leaderboard and how many pairs are separated; then the engine, the tasks
        left out and the notes, and (notes) what each column means.

        Examples
        --------
        >>> import passhat as ph
        >>> r = ph.rank(ph.load_example("agents"), k=1, n_boot=300, seed=0)
        >>> r.view().parts[0].frame["system"].tolist()
        ['guided', 'baseline']
        """
        s = self.settings
        has_mean = "mean" in s["metrics"]
        parts = [
            self._board_view(str(metric), int(kk), part)
            for (metric, kk), part in self.table.groupby(["metric", "k"], sort=False)
            if not (has_mean and metric != "mean" and int(kk) == 1)  # pass@1 = pass^1 = mean
        ]
        lines = [
            f"engine: {s['engine_label']}; {s['n_boot']} {s.get('draws_word', 'resamples')}, "
            f"seed {s['seed']}"
        ]
        if len(self.dropped):
            shown = "; ".join(f"{r.task} ({r.reason})" for r in self.dropped.head(5).itertuples())
            more = " ..." if len(self.dropped) > 5 else ""
            lines.append(f"left out {len(self.dropped)} task(s): {shown}{more}")
        parts.append(View("", None, lines=(*lines, *self.notes), notes=tuple(self._legend())))
        if self.by_category is not None:
            parts.extend(self.by_category.view().parts)
        return Display(tuple(parts), min_width=100)

    def _board_view(self, metric: str, kk: int, part: pd.DataFrame) -> View:
        """One metric and k: group, system, value (interval), rank (interval), share first."""
        level = self.settings["ci"]
        frame = pd.DataFrame(
            {
                "group": part["group"].astype(str),
                "system": part["system"].astype(str),
                "value (interval)": [
                    interval_text(v, lo, hi)
                    for v, lo, hi in zip(part["value"], part["lower"], part["upper"], strict=True)
                ],
                "rank (interval)": [
                    f"{r} ({lo}–{hi})" if lo != hi else f"{r} ({lo})"
                    for r, lo, hi in zip(
                        part["rank"], part["rank_lower"], part["rank_upper"], strict=True
                    )
                ],
                share_header(self.settings.get("draws_word", "resamples")): [
                    f"{p:.2f}" for p in part["share_first"]
                ],
            }
        )
        pairs = self.pairs
        pop = pairs[
            (pairs["metric"] == metric) & (pairs["k"] == kk) & (pairs["scope"] == "population")
        ]
        return View(
            f"{metric_name(metric, kk)}: {len(self.systems)} systems on "
            f"{self.settings['tasks']} common tasks ({level:g} intervals)",
            frame,
            lines=(
                f"pairs separated at {1 - level:.0%} after Holm: {int(pop['separated'].sum())} "
                f"of {len(pop)}",
            ),
            left=frozenset({"group", "system"}),
        )

    def to_latex(self, *, label: str | None = None, **options: Any) -> str:
        r"""The leaderboard for a paper as a LaTeX table (:meth:`passhat.Result.to_latex`);
        ranked by category, each category's leaderboard follows as a second table (its
        ``\label`` is ``label`` + ``-by-category``)."""
        text = super().to_latex(label=label, **options)
        if self.by_category is None:
            return text
        more = None if label is None else f"{label}-by-category"
        return text + "\n" + self.by_category.to_latex(label=more)

    def to_markdown(self, **options: Any) -> str:
        """The leaderboard for a paper or a pull request as Markdown
        (:meth:`passhat.Result.to_markdown`); ranked by category, each category's leaderboard
        follows as a second table.

        Examples
        --------
        >>> import passhat as ph
        >>> r = ph.rank(ph.load_example("leaderboard"), k=1, metrics=["mean"], n_boot=200,
        ...             by="category")
        >>> [line for line in r.to_markdown().splitlines() if line.startswith("| category")]
        ['| category | tasks | metric | group | system | value | rank |']
        """
        text = super().to_markdown(**options)
        if self.by_category is None:
            return text
        return text + "\n" + self.by_category.to_markdown()

    def _paper(self) -> PaperTable:
        """The table for papers: per metric and k (pass@1 and pass^1 only when the mean is not
        ranked), best first, each system's group letter, value with its interval, rank with
        its interval and its share of draws ranked first; the caption says the level, the
        scope, the engine, the draws and what each column means.

        Examples
        --------
        >>> import passhat as ph
        >>> r = ph.rank(ph.load_example("agents"), k=1, n_boot=300, seed=0)
        >>> print(r.to_markdown().splitlines()[2])
        | mean | a | guided | 0.815 [0.764, 0.864] | 1 [1, 1] | 1.00 |
        """
        has_mean = "mean" in self.settings["metrics"]
        first = share_header(self.settings.get("draws_word", "resamples"))
        t = self.table
        keep = [
            not (has_mean and m != "mean" and int(k) == 1)
            for m, k in zip(t["metric"], t["k"], strict=True)
        ]
        rows = [
            {
                "metric": metric_label(str(r["metric"]), int(r["k"])),
                "group": str(r["group"]),
                "system": str(r["system"]),
                "value": interval_cell(num(r["value"]), num(r["lower"]), num(r["upper"])),
                "rank": f"{r['rank']} [{r['rank_lower']}, {r['rank_upper']}]",
                first: f"{r['share_first']:.2f}",
            }
            for r in t[keep].to_dict(orient="records")
        ]
        columns = ["metric", "group", "system", "value", "rank", first]
        return PaperTable(pd.DataFrame(rows, columns=columns), self._caption(), group="metric")

    def _caption(self) -> str:
        """The leaderboard's caption: what was ranked, then the legend and the engine."""
        s = self.settings
        one = " (pass@1 = pass^1 = mean)" if "mean" in s["metrics"] and 1 in s["k"] else ""
        legend = [line[0].upper() + line[1:] for line in self._legend()]
        return " ".join(
            [
                f"Leaderboard of {len(self.systems)} systems on {s['tasks']} common tasks, best "
                f"first per metric{one}; {level_words(s['ci'])} intervals.",
                *(line.rstrip(".") + "." for line in legend),
                f"Engine: {s['engine_label']}; {s['n_boot']} {s.get('draws_word', 'resamples')}"
                f", seed {s['seed']}.",
            ]
        )

    def _legend(self) -> list[str]:
        """What the value, the rank interval, the share ranked first and the group mean."""
        s = self.settings
        word = s.get("draws_word", "resamples")
        paired_tests = bool((self.table["rank_method"] == "paired tests").any())
        return [
            "value: population scope (expected value over tasks like these), marginal "
            f"{s['value_interval']} per system",
            (
                "rank interval: marginal per system, from its paired tests against every other "
                "system (the compare rule, Holm across its comparisons); ties in the values "
                "share a rank"
                if paired_tests
                else "rank interval: marginal per system, simultaneous over its comparisons with "
                "the others (pairwise rank set); ties in the values share a rank"
            ),
            f"{share_header(word)}: the share of {word} in which the system ranks first (a tie "
            "at the top is split); a share, not the probability that it is truly first: two "
            "equal leaders each get about 0.5 on average, but one of them gets 0.8 or more in "
            "about one replicate in five",
            "group: systems that share a letter are not separated (the compare rule, Holm "
            "across all pairs; compact letter display); a system with two letters is not "
            "separated from either group",
        ]


def share_header(draws_word: str) -> str:
    """The column header of the share of draws ranked first, e.g. ``first in (share of
    resamples)``.

    Examples
    --------
    >>> share_header("draws")
    'first in (share of draws)'
    """
    return f"first in (share of {draws_word})"


# ------------------------------------------------------------ words of the computation
#: Per engine: what it is, the value intervals' scope, what a draw is called, and the value
#: interval (``Ranking.settings``). "posterior": the bootstrap engine below ``MIN_TASKS``.
_ENGINE_WORDS = {
    "posterior": (
        "hierarchical Beta-Binomial posterior of each system, grid quadrature, drawn "
        "independently (rule: fewer than {min_tasks} common tasks, too few to resample; "
        "the draws ignore the task effects the systems share, so the rank intervals come "
        "from the paired tests; --engine joint models the shared effects)",
        "population scope (expected value over tasks like these), posterior equal-tailed "
        "(the interval passhat estimate gives)",
        "draws",
        "posterior interval of each system's hierarchical model (the interval passhat "
        "estimate gives below {min_tasks} tasks)",
    ),
    "bootstrap": (
        "paired task bootstrap (one draw of tasks shared by every system and k)",
        "population scope (expected value over tasks like these), percentile",
        "resamples",
        "percentile interval of the paired task bootstrap",
    ),
    "cluster bootstrap": (
        "paired cluster bootstrap (one draw of clusters, each with all its tasks, shared by "
        "every system and k)",
        "population scope (expected value over tasks like these), percentile",
        "resamples",
        "percentile interval of the paired cluster bootstrap",
    ),
    "joint": (
        "joint hierarchical model (posterior draws)",
        "population scope (expected value over tasks like these), posterior equal-tailed",
        "draws",
        "posterior interval (joint model; the value is the posterior mean)",
    ),
}


def engine_words(kind: str) -> tuple[str, str, str, str]:
    """The engine's label, the value intervals' scope, the word for a draw and the value
    interval, for ``kind`` "bootstrap", "cluster bootstrap", "posterior" (few tasks) or
    "joint".

    Examples
    --------
    >>> engine_words("bootstrap")[2]
    'resamples'
    """
    label, scope, word, interval = _ENGINE_WORDS[kind]
    return (
        label.format(min_tasks=MIN_TASKS),
        scope,
        word,
        interval.format(min_tasks=MIN_TASKS),
    )


def weights_note(weights: NDArray[np.float64]) -> list[str]:
    """The note that the per-system posterior values weight the tasks (unequal weights only).

    Examples
    --------
    >>> import numpy as np
    >>> weights_note(np.array([1.0, 1.0, 5.0]))
    ['the posterior values weight the tasks: task weights as likelihood weights, scaled to 1.8 \
effective tasks (Kish)']
    """
    how = weights_method(weights)
    return [f"the posterior values weight the tasks: {how[2:]}"] if how else []


def outside_note(table: pd.DataFrame) -> list[str]:
    """The note counting the values that lie outside their interval (none: no note)."""
    outside = int(outside_mask(table["value"], table["lower"], table["upper"], tol=0.0).sum())
    if not outside:
        return []
    return [
        f"{outside} value(s) lie outside their interval: the value is the unbiased "
        "estimate on these tasks; the interval follows passhat estimate's rule where "
        "resampling fails (a hierarchical posterior, which pulls toward the middle; near 0 "
        "and 1, a Clopper–Pearson-type bound)"
    ]


def flat_note(table: pd.DataFrame) -> list[str]:
    """Which value intervals are not the engine's (a collapsed bootstrap, or below 30 tasks no task
    with both outcomes), and why: they are :func:`passhat.estimate`'s population intervals."""
    odd = table[table["interval"] != "marginal"]
    if odd.empty:
        return []
    r = odd.iloc[0]
    rule = str(r["interval"])  # "marginal: {method} ({why})", as value_intervals writes it
    if "every bootstrap resample gave one value" in rule:
        why = (
            "not the bootstrap's percentile interval",
            "every task resample gave the same value (a zero-width interval)",
        )
    else:  # few tasks: a system with no task showing both outcomes takes estimate's bound
        why = "not the posterior's interval", rule[rule.rfind("(") + 1 : -1]
    return [
        f"{len(odd)} value interval(s) are {why[0]}, e.g. {r['system']} {r['metric']} "
        f"k = {int(r['k'])}: {why[1]}, so they are passhat.estimate's population intervals "
        "(the method is in the interval column)."
    ]
