"""The results of :func:`passhat.spread` and :func:`passhat.spread_from_summary`, and what they
show.

:class:`Spread` (from runs) and :class:`SummarySpread` (from a published pair) are frozen:
built once at the end of their computation, shown by one display each (``passhat spread``,
a notebook and ``repr`` show the same tables and sentences). The words come from
:mod:`passhat.spread.sentences`; nothing here computes a statistic.

Examples
--------
>>> import passhat as ph
>>> s = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5)
>>> s.view().parts[0].frame.iloc[0].tolist()
['5', '77.4%', '53.0%', '27.8%', '1.9×', '0.68', '24.4 pts']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import pandas as pd

from passhat._format import fixed, fmt_ratio, num, p_text, pct
from passhat._paper import PaperTable, interval_cell, level_words, method_words
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat._validate import check_k
from passhat.errors import OptionError
from passhat.spread.parts import BetaFit, MixedShareCheck, SpreadRow
from passhat.spread.sentences import (
    compare_consistency,
    describe_parts,
    describe_row,
    few_tasks_note,
    kappa_text,
    method_notes,
    mixed_share_text,
    outside_notes,
    pair_sentence,
)

__all__ = ["Spread", "SummarySpread"]


def _times(x: float) -> str:
    """A ratio with ×, or — when undefined (0/0)."""
    return "—" if math.isnan(float(x)) else fmt_ratio(float(x)) + "×"


def _span(lo: Any, hi: Any, *, two: bool = False) -> str:
    """An interval as lo–hi (ratios with ×), or — when missing."""
    if lo is None or hi is None or not (math.isfinite(float(lo)) and math.isfinite(float(hi))):
        return "—"
    if two:
        return f"{float(lo):.2f}–{float(hi):.2f}"
    return f"{fmt_ratio(float(lo))}–{fmt_ratio(float(hi))}×"


def _paper_iv(value: float, lower: float | None, upper: float | None, digits: int) -> str:
    """A value with its interval, ``1.21 [1.10, 1.35]`` (the value alone without one)."""
    text = num(value, digits)
    if lower is None or upper is None or not (math.isfinite(lower) and math.isfinite(upper)):
        return text
    return interval_cell(text, fixed(lower, digits), fixed(upper, digits))


def _two(x: float) -> str:
    """Two decimals, or — when undefined (0/0)."""
    return "—" if not math.isfinite(float(x)) else f"{float(x):.2f}"


@dataclass(frozen=True, repr=False, eq=False)
class Spread(Result):
    """Result of :func:`passhat.spread`.

    Attributes
    ----------
    rows : tuple of SpreadRow
        One per (system, k), typed (:class:`~passhat.spread.parts.SpreadRow`); ``table`` is
        the same as a data frame.
    shares : pandas.DataFrame
        Per system: tasks, always_pass, always_fail, flaky (counts) and their
        shares of the included tasks; failures (failing decided runs) and
        how many of them lie in always-fail and in flaky tasks.
    contributions : pandas.DataFrame
        Per (system, k, task) with a positive contribution to the gap, worst
        first: n, c, mean, pass_hat_k, contribution (weighted), share (of the
        gap), cumulative (share), task_rank, task_share (rank / tasks).
    excluded : pandas.DataFrame
        Tasks left out (from :func:`passhat.estimate`).
    heterogeneity : pandas.DataFrame
        Per system: Tarone's test of "one common success rate, independent
        runs" (:func:`passhat.spread.heterogeneity_test`): tasks, runs,
        rate, statistic, p_value, alpha, clustered, testable, reason,
        method; and the Beta-Binomial posterior's ICC (median, with an
        interval when ``ci`` is given) and κ.
    settings : dict
        The options used (k, ci, alpha, n_boot, seed, ...).
    alpha : float
        Level of the heterogeneity test.
    weighted : bool
        Whether the included tasks carry unequal weights.
    estimate_notes : tuple of str
        The estimate's notes that concern the spread (a k left out, tasks of weight 0).
    source : dict
        Where the data came from, as the reader recorded it (path, format, sha256).
    """

    schema: ClassVar[str] = "spread"

    rows: tuple[SpreadRow, ...]
    shares: pd.DataFrame
    contributions: pd.DataFrame
    excluded: pd.DataFrame
    heterogeneity: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    alpha: float = 0.05
    weighted: bool = False
    estimate_notes: tuple[str, ...] = ()
    source: dict[str, str] = field(default_factory=dict)

    @cached_property
    def table(self) -> pd.DataFrame:
        """One row per (system, k): tasks, mean, pass_at_k, pass_hat_k, uniform
        (mean^k), ratio (pass^k / mean^k), consistency (pass^k / mean), gap
        (mean − pass^k), flaky_share, the shares of tasks that carry 50%,
        80% and 100% of the gap in this sample (``tasks_for_50``,
        ``tasks_for_80``, ``tasks_for_100``), the model-based share of tasks
        like these that carry 80% (``tasks_for_80_model``), the shares of
        failing runs in always-fail and flaky tasks, and the system's
        heterogeneity test: ``p_value``, ``clustered`` (the test rejects at
        ``alpha``), ``testable`` and ``test_reason``. With ``ci``:
        ``pass_hat_k_lower``/``_upper``, ``scope`` and ``method`` from the
        estimator's population-scope intervals, and population-scope
        intervals ``ratio_lower``/``_upper``, ``consistency_lower``/``_upper``
        and ``tasks_for_80_model_lower``/``_upper`` (Beta-Binomial posterior,
        joined with the homogeneous model when the test does not reject;
        see :mod:`passhat.spread.posterior`)."""
        return pd.DataFrame([r.record() for r in self.rows])

    @property
    def method(self) -> dict[str, str]:
        """How each column is computed."""
        return method_notes(self.alpha, weighted=self.weighted)

    @property
    def notes(self) -> list[str]:
        """Plain-language notes the output states: a k or tasks the estimate left out, a
        figure that lies outside its interval and why, and figures not given for fewer than
        two tasks (how task rates spread is then not identified)."""
        few = [
            str(s)
            for s, n in zip(self.shares["system"], self.shares["tasks"], strict=True)
            if n < 2
        ]
        notes = [*self.estimate_notes, *outside_notes(self.rows)]
        return notes + ([few_tasks_note(few)] if few else [])

    def to_frame(self) -> pd.DataFrame:
        """The spread table (one row per system and k)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        return {
            "input": dict(self.source),
            "settings": self.settings,
            "method": self.method,
            "spread": records(self.table),
            "shares": records(self.shares),
            "heterogeneity": records(self.heterogeneity),
            "contributions": records(self.contributions),
            "excluded": records(self.excluded),
            "notes": self.notes,
        }

    def view(self) -> Display:
        """The ratio table, the test per system, a reading of each system at the largest k,
        the notes, the draws and the tasks left out (``passhat spread``)."""
        return Display((_ratio_view(self), _test_view(self)))

    def _paper(self) -> PaperTable:
        """The table for papers: per system and k the mean, pass^k, the uniform-spread
        reference mean^k, the ratio pass^k / mean^k, consistency pass^k / mean, the share of
        flaky tasks and the gap mean − pass^k; with ``ci``, pass^k, the ratio and the
        consistency with their population-scope intervals (the caption says how each is made).

        Examples
        --------
        >>> import passhat as ph
        >>> sp = ph.spread(ph.load_example("agents"), k=2)
        >>> print(sp.to_markdown().splitlines()[2])
        | baseline | 2 | 0.767 | 0.709 | 0.588 | 1.21 | 0.92 | 0.220 | 0.058 |
        """
        with_ci = self.settings.get("ci") is not None
        rows = []
        for r in self.rows:
            rows.append(
                {
                    "system": str(r.system),
                    "k": str(r.k),
                    "mean": num(r.mean),
                    "pass^k": _paper_iv(r.pass_hat_k, r.pass_hat_k_lower, r.pass_hat_k_upper, 3)
                    if with_ci
                    else num(r.pass_hat_k),
                    "mean^k": num(r.uniform),
                    "pass^k / mean^k": _paper_iv(r.ratio, r.ratio_lower, r.ratio_upper, 2)
                    if with_ci
                    else num(r.ratio, 2),
                    "pass^k / mean": _paper_iv(
                        r.consistency, r.consistency_lower, r.consistency_upper, 2
                    )
                    if with_ci
                    else num(r.consistency, 2),
                    "flaky": num(r.flaky_share),
                    "gap": num(r.gap),
                }
            )
        return PaperTable(pd.DataFrame(rows), self._caption(), group="system")

    def _caption(self) -> str:
        """What each column is and, with ``ci``, the intervals' level, scope and methods."""
        m = self.method
        words = [
            "Measured pass^k against the uniform-spread reference mean^k (pass^k if every task "
            f"had the same success rate) per system and k. Mean: {m['mean']}; pass^k: "
            f"{m['pass_hat_k']}; flaky: share of tasks with both outcomes among their decided "
            "runs; gap: mean − pass^k."
        ]
        level = self.settings.get("ci")
        if level is not None:
            words.append(
                f"{level_words(level)} intervals, population scope (tasks like these); seed "
                f"{self.settings.get('seed')}. "
                + method_words(self.table.assign(metric="pass_hat_k"), what="pass^k interval")
                + f" Ratio and consistency intervals: {m['ratio_interval']}"
            )
        return " ".join(words)

    def reading(self, system: str, k: int) -> SpreadRow:
        """The typed row of one system and k."""
        k = check_k(k)  # k=True would match the k = 1 row
        sel = [r for r in self.rows if r.system == system and r.k == k]
        if len(sel) != 1:
            raise OptionError(f"no spread row for system={system!r}, k={k}")
        return sel[0]

    def row(self, system: str, k: int) -> pd.Series:
        """The table row of one system and k."""
        k = check_k(k)
        sel = self.table[(self.table["system"] == system) & (self.table["k"] == k)]
        if len(sel) != 1:
            raise OptionError(f"no spread row for system={system!r}, k={k}")
        return sel.iloc[0]

    def sentence(self, system: str, k: int) -> str:
        """Plain-language reading of one row, written from its numbers (:func:`describe_row`)."""
        return describe_row(self.reading(system, k))

    def sentence_parts(self, system: str, k: int) -> list[str]:
        """The sentences of :meth:`sentence`, one item each (:func:`describe_parts`)."""
        return describe_parts(self.reading(system, k))

    def consistency_sentence(self, k: int) -> str:
        """The systems' consistency compared at ``k`` (:func:`compare_consistency`); "" with
        fewer than two systems."""
        return compare_consistency(self.rows, k)


def _ratio_view(sp: Spread) -> View:
    """Per (system, k): mean, pass^k, mean^k, the ratio (with its interval), consistency."""
    level = sp.settings.get("ci")
    ratio_head = f"ratio ({level:.0%} CI)" if level is not None else "ratio"
    cells = []
    for r in sp.rows:
        ratio = _times(r.ratio)
        if level is not None:
            ratio += f" ({_span(r.ratio_lower, r.ratio_upper)})"
        cells.append(
            [
                str(r.system),
                str(r.k),
                pct(r.mean),
                pct(r.pass_hat_k),
                pct(r.uniform),
                ratio,
                _two(r.consistency),
                pct(r.flaky_share),
                f"{r.gap * 100:.1f} pts",
            ]
        )
    cols = ["system", "k", "mean", "pass^k", "mean^k", ratio_head, "pass^k/mean", "flaky", "gap"]
    title = "passhat spread: measured pass^k vs uniform-spread reference mean^k"
    if level is not None:
        title += " (CI: population scope, tasks like these)"
    return View(title, pd.DataFrame(cells, columns=cols), left=frozenset({"system"}))


def _test_view(sp: Spread) -> View:
    """Per system: Tarone's test and the ICC; then the readings, notes and exclusions."""
    level = sp.settings.get("ci")
    cells = []
    for h in sp.heterogeneity.to_dict(orient="records"):
        icc = _two(h["icc"])
        if level is not None:
            icc += f" ({_span(h.get('icc_lower'), h.get('icc_upper'), two=True)})"
        cells.append(
            [
                str(h["system"]),
                str(h["tasks"]),
                str(h["runs"]),
                _two(h["statistic"]),
                p_text(h["p_value"]) if h["testable"] else "—",
                ("yes" if h["clustered"] else "no")
                if h["testable"]
                else f"untested: {h['reason']}",
                icc,
            ]
        )
    cols = ["system", "tasks", "runs", "Z", "p-value", f"clustered (α = {sp.alpha:.2g})"]
    cols.append(f"ICC ({level:.0%} interval)" if level is not None else "ICC")
    title = (
        "Do the tasks' success rates differ? (Tarone's test of one common rate, independent runs)"
    )
    frame = pd.DataFrame(cells, columns=cols)
    return View(title, frame, lines=tuple(_spread_lines(sp)), left=frozenset({"system"}))


def _spread_lines(sp: Spread) -> list[str]:
    """Each system read at the largest k, the notes, the draws and the tasks left out."""
    lines = []
    if sp.rows:
        kmax = max(r.k for r in sp.rows)
        for system in dict.fromkeys(r.system for r in sp.rows):
            lines.append(f"{system}: {sp.sentence(system, kmax)}")
    lines += [f"note: {note}" for note in sp.notes]
    lines.append(
        f"bootstrap and test: {sp.settings.get('n_boot')} resamples, seed {sp.settings.get('seed')}"
    )
    for reason, grp in sp.excluded.groupby("reason", sort=False):
        names = ", ".join(str(t) for t in grp["task"].head(8))
        more = f" and {len(grp) - 8} more" if len(grp) > 8 else ""
        lines.append(f"excluded {len(grp)} task(s): {reason} ({names}{more})")
    return lines


@dataclass(frozen=True, repr=False, eq=False)
class SummarySpread(Result):
    """Result of :func:`passhat.spread_from_summary`.

    ``beta`` is ``None`` and ``explained`` False when no Beta spread of task
    rates reproduces the pair; ``reason`` then says why. ``impossible`` is
    True when no tasks at all can have the pair (pass^k > mean, or
    pass^1 ≠ mean); the CLI refuses such a pair.
    """

    schema: ClassVar[str] = "spread_summary"

    label: str | None
    mean: float
    pass_hat_k: float
    k: int
    uniform: float
    ratio: float
    consistency: float
    gap: float
    reason: str
    beta: BetaFit | None
    mixed_share_published: float | None = None
    mixed_share_runs: int | None = None
    check: MixedShareCheck | None = None
    impossible: bool = False
    method: str = (
        "uniform reference = mean^k; Beta(μκ, (1−μ)κ) with μ = mean and κ solved from "
        "E[p^k] = pass^k (Brent on log κ)"
    )

    @property
    def explained(self) -> bool:
        """Whether a Beta spread of task rates reproduces the pair."""
        return self.beta is not None

    @property
    def mixed_share_check(self) -> str:
        """Whether the Beta reproduces the published share of mixed tasks, in words ("" when
        none was given or no Beta explains the pair)."""
        return mixed_share_text(self.check) if self.check is not None else ""

    @property
    def pair(self) -> SpreadRow:
        """The pair's figures as a spread row."""
        return SpreadRow(
            system=self.label or "",
            k=self.k,
            mean=self.mean,
            pass_hat_k=self.pass_hat_k,
            uniform=self.uniform,
            ratio=self.ratio,
            consistency=self.consistency,
            gap=self.gap,
        )

    def sentence(self) -> str:
        """Plain-language reading of the numbers."""
        return pair_sentence(
            self.pair,
            label=self.label,
            beta=self.beta,
            runs=self.mixed_share_runs or self.k,
            reason=self.reason,
            check=self.check,
        )

    def to_frame(self) -> pd.DataFrame:
        """The pair's figures in one row (and the implied Beta's κ and ICC)."""
        row = {k: v for k, v in self.pair.record().items() if k in _PAIR_COLUMNS}
        row["label"] = self.label
        row["kappa"] = self.beta.kappa if self.beta is not None else math.nan
        row["icc"] = self.beta.icc if self.beta is not None else math.nan
        return pd.DataFrame([row])

    def _fields(self) -> dict[str, Any]:
        """The figures as the JSON document holds them (keys of the ``beta`` maps as text)."""
        beta = None
        if self.beta is not None:
            b = self.beta
            beta = {
                "kappa": b.kappa,
                "a": b.a,
                "b": b.b,
                "icc": b.icc,
                "mixed_share": {str(k): v for k, v in b.mixed_share.items()},
                "pass_hat_k": {str(k): v for k, v in b.pass_hat_k.items()},
                "pass_at_k": {str(k): v for k, v in b.pass_at_k.items()},
            }
        return {
            "label": self.label,
            "mean": self.mean,
            "pass_hat_k": self.pass_hat_k,
            "k": self.k,
            "uniform": self.uniform,
            "ratio": self.ratio,
            "consistency": self.consistency,
            "gap": self.gap,
            "explained": self.explained,
            "reason": self.reason,
            "beta": beta,
            "mixed_share_published": self.mixed_share_published,
            "mixed_share_runs": self.mixed_share_runs,
            "mixed_share_check": self.mixed_share_check,
            "impossible": self.impossible,
            "method": self.method,
            "sentence": self.sentence(),
        }

    def _document(self) -> dict[str, Any]:
        return {"spread": self._fields()}

    def _paper(self) -> PaperTable:
        """The table for papers: the pair, the uniform-spread reference mean^k, the ratio,
        the consistency, the gap and the ICC of the Beta spread that reproduces the pair.

        Examples
        --------
        >>> import passhat as ph
        >>> s = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5, label="τ-bench")
        >>> print(s.to_markdown().splitlines()[2])
        | τ-bench | 5 | 0.774 | 0.530 | 0.278 | 1.91 | 0.68 | 0.244 | 0.41 |
        """
        row = {
            "row": self.label or "published pair",
            "k": str(self.k),
            "mean": num(self.mean),
            "pass^k": num(self.pass_hat_k),
            "mean^k": num(self.uniform),
            "pass^k / mean^k": num(self.ratio, 2),
            "pass^k / mean": num(self.consistency, 2),
            "gap": num(self.gap),
            "ICC": num(self.beta.icc, 2) if self.beta is not None else "—",
        }
        caption = (
            "A published pair (mean, pass^k) against the uniform-spread reference mean^k "
            "(pass^k if every task had the same success rate); gap: mean − pass^k; ICC: the "
            "run-to-run correlation of the Beta spread of task rates that reproduces the pair "
            f"({self.method}"
            + (")." if self.beta is not None else f"; none does: {self.reason}).")
            + " The published numbers carry no intervals."
        )
        return PaperTable(
            pd.DataFrame([row]), caption, names=frozenset({"row"}), left=frozenset({"row"})
        )

    def view(self) -> Display:
        """The pair against the uniform reference, the implied Beta's predictions, the reading."""
        title = f"passhat spread: {self.label}" if self.label else "passhat spread"
        frame = pd.DataFrame(
            [
                [
                    str(self.k),
                    pct(self.mean),
                    pct(self.pass_hat_k),
                    pct(self.uniform),
                    _times(self.ratio),
                    _two(self.consistency),
                    f"{self.gap * 100:.1f} pts",
                ]
            ],
            columns=["k", "mean", "pass^k", "mean^k (uniform)", "ratio", "pass^k/mean", "gap"],
        )
        parts = [View(title, frame, left=frozenset())]
        if self.beta is not None:
            parts.append(_beta_view(self.beta))
        parts.append(View("", None, lines=(self.sentence(),)))
        return Display(tuple(parts))


#: Columns of :meth:`SummarySpread.to_frame` taken from the pair.
_PAIR_COLUMNS = ("k", "mean", "pass_hat_k", "uniform", "ratio", "consistency", "gap")


def _beta_view(b: BetaFit) -> View:
    """The implied Beta's pass^k, pass@k and share of mixed tasks, by k."""
    frame = pd.DataFrame(
        [
            [
                str(kv),
                pct(b.pass_hat_k[kv]),
                pct(b.pass_at_k[kv]),
                pct(b.mixed_share.get(kv, math.nan)),
            ]
            for kv in sorted(b.pass_hat_k)
        ],
        columns=["k", "pass^k (Beta)", "pass@k (Beta)", "mixed tasks in k runs"],
    )
    return View(
        f"Implied Beta spread: {kappa_text(b.kappa)}, ICC = {b.icc:.2f}", frame, left=frozenset()
    )
