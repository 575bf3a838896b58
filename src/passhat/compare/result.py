"""The result of :func:`passhat.compare`: what a paired comparison holds, and what it shows.

:class:`Comparison` holds the tidy table (one row per baseline, candidate, k, metric and
scope), the McNemar-style task counts, the tasks left out and the notes. One display
(:meth:`Comparison.view`) serves the terminal (``passhat compare``), a notebook and
``repr``: per candidate the paired difference in both scopes with its p-values, then how
each interval was computed. The words the computation needs (which k were left out, why a
benchmark interval is the wider one) are written here too (:func:`k_left_out_note`,
:func:`width_notes`). Nothing here computes a difference.

Examples
--------
>>> import passhat as ph
>>> cmp = ph.compare(ph.load_example("agents"), k=1, seed=0, n_boot=200)
>>> cmp.view().parts[0].frame[["k", "metric", "difference"]].values.tolist()
[['—', 'mean', '+0.049'], ['1', 'pass@k', '+0.049'], ['1', 'pass^k', '+0.049']]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._format import fixed, num, row_names
from passhat._format import p_text as _p_text
from passhat._paper import (
    PaperTable,
    interval_cell,
    level_words,
    method_words,
    metric_label,
    scope_words,
)
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat._validate import check_method
from passhat.estimators import METRIC_LABELS

__all__ = ["Comparison", "baseline_notes", "k_left_out_note", "width_notes"]


@dataclass(frozen=True, repr=False, eq=False)
class Comparison(Result):
    """Result of :func:`compare`.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy, one row per (baseline, candidate, k, metric, scope): values of
        both systems, difference (candidate − baseline), lower, upper,
        p_value, tasks, method, p_method; with ``multiplicity="holm"`` also
        p_holm (Holm across the candidates).
    discordant : pandas.DataFrame
        McNemar-style counts per pair at k = 1 (see :func:`compare`).
    dropped : pandas.DataFrame
        Tasks left out of a pair, with the reason: only one system ran them
        (``intersect=True``; ``only`` names it), or the exclusion rules
        (``min_runs``, ``on_short="exclude"``, ``unscored_tasks``) left them
        out for either system, and so for both.
    settings : dict
        The options used (k, ci, n_boot, seed, intersect, baseline, weights,
        on_short, min_runs, unscored_tasks, and per candidate the k left out).
    notes : list of str
        Explanations the table needs, e.g. why a benchmark interval is wider
        than the population one.
    source : dict
        Where the inputs came from, as their readers recorded them: ``"base"``
        (and with two inputs ``"cand"``; with a list of more, ``"input 1"``, …),
        each a dict (path, format, sha256), empty for data built in Python.
    """

    schema: ClassVar[str] = "comparison"

    table: pd.DataFrame
    discordant: pd.DataFrame
    dropped: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    source: dict[str, dict[str, str]] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The tidy table (one row per baseline, candidate, k, metric and scope)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        return {
            "input": {role: dict(src) for role, src in self.source.items()},
            "settings": self.settings,
            "comparison": records(self.table),
            "discordant": records(self.discordant),
            "dropped": records(self.dropped),
            "notes": list(self.notes),
        }

    def _paper(self, *, scope: str = "population") -> PaperTable:
        """The table for papers: per candidate and metric (at each k > 1; pass@1 = pass^1 =
        mean) both systems' values, the difference candidate − baseline with its interval in
        ``scope`` (``population`` or ``benchmark``) and its p-value; the caption says the
        level, the scope, the tasks and the methods.

        Examples
        --------
        >>> import passhat as ph
        >>> cmp = ph.compare(ph.load_example("agents"), k=[1, 2], seed=0, n_boot=200)
        >>> print(cmp.to_markdown().splitlines()[2])
        | mean | 0.767 | 0.815 | +0.049 [+0.019, +0.076] | 0.0050 |
        """
        return cmp_paper(self, scope=scope)

    def view(self) -> Display:
        """Per candidate the paired difference in both scopes and the task counts at k = 1;
        then the draws and seed, and (notes) how each row's interval and p-value were made.

        Examples
        --------
        >>> import passhat as ph
        >>> cmp = ph.compare(ph.load_example("agents"), k=1, seed=0, n_boot=200)
        >>> cmp.view().parts[0].title
        'guided − baseline: paired difference on 168 matched tasks (0.95 intervals)'
        """
        parts = [
            _pair_view(self, str(cand), part)
            for cand, part in self.table.groupby("candidate", sort=False)
        ]
        s = self.settings
        parts.append(
            View(
                "",
                None,
                lines=(f"sign flips and posterior draws: {s['n_boot']}, seed {s['seed']}",),
                notes=tuple(_method_notes(self)),
            )
        )
        return Display(tuple(parts), min_width=120)


#: The metrics that do not depend on k (their rows repeat for every k; shown once).
_NO_K = ("mean", "mean_score")


def _iv(lo: float, hi: float) -> str:
    return f"[{lo:+.3f}, {hi:+.3f}]"


def _pair_view(cmp: Comparison, cand: str, part: pd.DataFrame) -> View:
    """One candidate against the baseline: a row per metric and k (the mean once), each
    scope's interval and p-value; under it the task counts at k = 1 and the tasks left out."""
    base = str(part["baseline"].iloc[0])
    pop = part[part["scope"] == "population"].reset_index(drop=True)
    bench = part[part["scope"] == "benchmark"].reset_index(drop=True)
    kmin = int(pop["k"].min())
    rows = []
    for (_, p), (_, b) in zip(pop.iterrows(), bench.iterrows(), strict=True):
        if p["metric"] in _NO_K and p["k"] != kmin:
            continue  # the mean does not depend on k
        rows.append(
            [
                "—" if p["metric"] in _NO_K else str(p["k"]),
                METRIC_LABELS[str(p["metric"])],
                num(p["base_value"]),
                num(p["cand_value"]),
                f"{p['difference']:+.3f}",
                _iv(p["lower"], p["upper"]),
                _p_text(p["p_value"]),
                _iv(b["lower"], b["upper"]),
                _p_text(b["p_value"]),
                *([_p_text(p["p_holm"]), _p_text(b["p_holm"])] if "p_holm" in part else []),
            ]
        )
    heads = ["k", "metric", base, cand, "difference", "population", "p (pop.)", "benchmark"]
    heads += ["p (bench.)", *(["Holm (pop.)", "Holm (bench.)"] if "p_holm" in part else [])]
    return View(
        f"{cand} − {base}: paired difference on {int(part['tasks'].iloc[0])} matched tasks "
        f"({cmp.settings['ci']:g} intervals)",
        pd.DataFrame(rows, columns=heads),
        lines=tuple(_pair_lines(cmp, cand, base)),
        left=frozenset({"metric"}),
    )


def cmp_paper(cmp: Comparison, *, scope: str = "population") -> PaperTable:
    """The comparison's table for papers (see :meth:`Comparison._paper`)."""
    t = cmp.table[cmp.table["scope"] == check_method(scope, _SCOPES, "scope")]
    ks = sorted({int(k) for k in t["k"]})
    no_k = t["metric"].isin(_NO_K)
    t = t[no_k & (t["k"] == ks[0]) | ~no_k & (t["k"] > 1)]
    base = str(t["baseline"].iloc[0]) if len(t) else "baseline"
    cands = [str(c) for c in pd.unique(t["candidate"])]
    several = len(cands) > 1
    rows = []
    for r in t.to_dict(orient="records"):
        cells = {"candidate": str(r["candidate"])} if several else {}
        cells["metric"] = metric_label(str(r["metric"]), int(r["k"]))
        cells[base] = num(r["base_value"])
        cells["candidate value" if several else cands[0]] = num(r["cand_value"])
        cells["difference"] = interval_cell(
            *(fixed(r[c], sign=True) for c in ("difference", "lower", "upper"))
        )
        cells["p"] = _p_text(r["p_value"])
        rows.append(cells)
    frame = pd.DataFrame(rows, columns=list(rows[0]) if rows else None)
    return PaperTable(
        frame,
        _paper_caption(cmp, t, scope, ks),
        names=frozenset({"candidate"}) if several else frozenset(),
        left=frozenset({"candidate", "metric"}),
        group="candidate" if several else None,
    )


#: The scopes of a comparison's intervals.
_SCOPES = ("population", "benchmark")


def _paper_caption(cmp: Comparison, t: pd.DataFrame, scope: str, ks: list[int]) -> str:
    """The pair(s) and their matched tasks; the level, the scope, the draws and the methods."""
    base = str(t["baseline"].iloc[0]) if len(t) else ""
    tasks = t.groupby("candidate", sort=False)["tasks"].first()
    if len(tasks) == 1:
        pairs = f"Paired difference {tasks.index[0]} − {base} on {int(tasks.iloc[0])} matched tasks"
    elif tasks.nunique() == 1:
        pairs = f"Paired differences candidate − {base} on {int(tasks.iloc[0])} matched tasks"
    else:
        pairs = "Paired differences " + "; ".join(
            f"{c} − {base} on {int(n)} matched tasks" for c, n in tasks.items()
        )
    s = cmp.settings
    several = (
        f" (each pair's own, not adjusted across the {len(tasks)} candidates)"
        if len(tasks) > 1
        else ""
    )
    words = [
        pairs + (" (pass@1 = pass^1 = mean)." if 1 in ks else "."),
        f"{level_words(s['ci'])} intervals and two-sided p-values{several}, "
        f"{scope_words(scope)}; "
        f"{s['n_boot']} sign flips and posterior draws, seed {s['seed']}.",
        method_words(t, by="candidate", what="Interval"),
        method_words(t, by="candidate", column="p_method", what="p-value"),
    ]
    return " ".join(words)


def _pair_lines(cmp: Comparison, cand: str, base: str) -> list[str]:
    """The task counts at k = 1 and the tasks left out of one pair."""
    d = cmp.discordant[cmp.discordant["candidate"] == cand].iloc[0]
    lines = [
        f"k = 1, per task: only {base} succeeded in some run {d['only_base']}, only {cand} "
        f"{d['only_cand']}; higher success rate: {base} {d['base_better']}, {cand} "
        f"{d['cand_better']}, ties {d['ties']}"
    ]
    if d["dropped_tasks"]:
        lines.append(f"dropped {d['dropped_tasks']} task(s) not run by both systems (--intersect)")
    dropped = cmp.dropped[(cmp.dropped["candidate"] == cand) & cmp.dropped["only"].isna()]
    if len(dropped):
        lines.append(
            f"left out {len(dropped)} matched task(s) for both systems: "
            + "; ".join(f"{r.task} ({r.reason})" for r in dropped.head(5).itertuples())
            + (" ..." if len(dropped) > 5 else "")
        )
    return lines


def _method_notes(cmp: Comparison) -> list[str]:
    """Each scope's interval and p-value method, per row group; the scopes in words; notes."""
    t = cmp.table
    of = t["candidate"].nunique()
    by = "candidate" if of > 1 else None
    notes = [
        f"{scope} ({row_names(rows, by=by, of=of)}): interval {method}; p-value {p_method}"
        for (scope, method, p_method), rows in t.groupby(
            ["scope", "method", "p_method"], sort=False
        )
    ]
    notes.append(
        "population: the expected difference over tasks like these; benchmark: on these "
        "tasks, given their finitely many runs. In each scope the interval excludes 0 "
        f"exactly when p ≤ {1 - cmp.settings['ci']:.2g} (interval and test are one "
        "construction)."
    )
    return notes + list(cmp.notes)


def baseline_notes(
    baseline: str, how: str, candidates: Sequence[str], ci: float, multiplicity: str
) -> list[str]:
    """Why the baseline is the baseline (when it was not named), and with several candidates
    what their p-values claim together.

    Examples
    --------
    >>> baseline_notes("gpt", "first system", ["claude"], 0.95, "none")[0][:46]
    "baseline 'gpt': the first of the input's two s"
    >>> baseline_notes("a", "named", ["b", "c", "d", "e"], 0.95, "none")[0][:58]
    '4 candidates are compared with the baseline, each at its o'
    """
    why = {
        "first system": "the first of the input's two systems (the differences are each other "
        "system minus it; name another with --baseline NAME / baseline=NAME)",
        "first input": "the system of the first input (the differences are each other "
        "system minus it; name another with --baseline NAME / baseline=NAME)",
    }
    notes = [f"baseline {baseline!r}: {why[how]}"] if how in why else []
    m = len(candidates)
    if m > 1:
        a = 1 - ci
        notes.append(
            f"{m} candidates are compared with the baseline, each at its own level {a:.2g}: "
            f"where none differs from it, one of the {m} p-values falls under {a:.2g} by "
            f"chance with probability up to {min(1.0, m * a):.0%} ({m} × {a:.2g}) — "
            + (
                "the Holm columns adjust each p-value across the candidates, which bounds the "
                f"chance of any false claim by {a:.2g}"
                if multiplicity == "holm"
                else "--multiplicity holm (multiplicity='holm') adds p-values adjusted by Holm "
                f"across the candidates, which bound the chance of any false claim by {a:.2g}"
            )
        )
    return notes


def k_left_out_note(base: str, cand: str, too_big: Sequence[int]) -> str:
    """The note naming the k no matched task of a pair serves (``on_short="exclude"``).

    Examples
    --------
    >>> k_left_out_note("a", "b", [5])[:40]
    'a vs b: k = 5 left out: no task both ran'
    """
    return (
        f"{base} vs {cand}: k = {', '.join(map(str, too_big))} left out: no task "
        "both ran has that many decided runs of each (on_short='exclude' / "
        "--min-runs compares the k the tasks serve)"
    )


def width_notes(table: pd.DataFrame) -> list[str]:
    """Why a benchmark interval is wider than the population one, where it is.

    Examples
    --------
    >>> t = pd.DataFrame({"candidate": "b", "k": 1, "metric": "mean",
    ...                   "scope": ["benchmark", "population"], "lower": [-0.2, -0.1],
    ...                   "upper": [0.2, 0.1]})
    >>> width_notes(t)[0]
    'b, mean: the benchmark interval (0.400 wide) is wider than the population one (0.200).'
    """
    notes = []
    seen: set[tuple[Any, ...]] = set()
    for (cand, kv, metric), part in table.groupby(["candidate", "k", "metric"], sort=False):
        if metric in _NO_K and ("mean", cand) in seen:
            continue
        if metric in _NO_K:
            seen.add(("mean", cand))
        r = part.set_index("scope")
        wb = float(r.loc["benchmark", "upper"] - r.loc["benchmark", "lower"])
        wp = float(r.loc["population", "upper"] - r.loc["population", "lower"])
        if wb > wp * 1.05 and wb - wp > 1e-3:
            name = (
                METRIC_LABELS[str(metric)].replace("k", str(kv))
                if metric not in _NO_K
                else METRIC_LABELS[str(metric)]
            )
            notes.append(
                f"{cand}, {name}: the benchmark interval ({wb:.3f} wide) is wider than the "
                f"population one ({wp:.3f})."
            )
    if notes:
        notes.append(
            "Both widths contain the run-to-run noise of these tasks; the population interval "
            "reads it from how much the per-task differences vary, the benchmark interval from "
            "each task's own runs (and, where a task has fewer than 2k runs, from the model), "
            "so when the systems differ little task by task the two estimates of the same noise "
            "can come out in either order. On average the population interval is the wider one: "
            "for a claim about tasks like these, read the wider of the two."
        )
    return notes
