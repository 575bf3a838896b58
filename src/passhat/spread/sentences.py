"""The words of the spread results, all in one place: readings of a spread row, the comparison
of consistency across systems, the reading of a published pair, notes and method lines.

Every function here takes typed parts (:class:`~passhat.spread.parts.SpreadRow`,
:class:`~passhat.spread.parts.BetaFit`, :class:`~passhat.spread.parts.MixedShareCheck`) and
numbers; none computes a statistic. Rules the sentences keep (each has a test in
``tests/spread/test_spread_sentences.py``):

* "failures are clustered beyond what independent runs at a common rate
  would give" only when the heterogeneity test rejects at the row's level;
  otherwise the sentence says the data do not show it (not that there is
  none), or why it cannot be tested;
* the gap mean − pass^k sits on the tasks with both outcomes (a task whose
  runs all agree contributes nothing), while failing *runs* may sit mostly
  in tasks that always fail: the two are told apart;
* a share of tasks carrying the gap is called a sample figure, and the
  model-based figure for tasks like these is given beside it when known;
* a comparison of consistency across systems ranks them only when their
  intervals do not overlap, and says which system has the higher pass^k
  when that is another one.

Examples
--------
>>> from passhat.spread.parts import SpreadRow
>>> describe_row(SpreadRow(k=1, mean=0.5))
'At k = 1, pass^1 equals the mean (50.0%); the spread shows from k = 2.'
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from passhat._format import fmt_ratio, p_clause
from passhat.intervals import outside_mask
from passhat.spread.parts import BetaFit, MixedShareCheck, SpreadRow

__all__ = [
    "CLUSTERED",
    "compare_consistency",
    "describe_parts",
    "describe_row",
    "few_tasks_note",
    "kappa_text",
    "method_notes",
    "mixed_share_text",
    "outside_notes",
    "pair_sentence",
]

#: The claim a rejected heterogeneity test supports, word for word.
CLUSTERED = "failures are clustered beyond what independent runs at a common rate would give"


def _p(p: float) -> str:
    """A p-value for a sentence: the one format (:func:`passhat._format.p_clause`)."""
    return p_clause(p)


def _untestable(r: SpreadRow) -> bool:
    """Whether the row carries a heterogeneity test that could not be run (too few tasks)."""
    if r.clustered is None:
        return False
    testable = r.testable if r.testable is not None else math.isfinite(r.p_value)
    return not testable


def _test_clause(r: SpreadRow) -> str:
    """What the heterogeneity test says, or '' when the row carries no test."""
    if r.clustered is None:
        return ""
    if _untestable(r):
        return f"whether failures cluster cannot be tested ({r.test_reason or 'too few runs'})"
    if r.clustered:
        return f"{CLUSTERED} (Tarone's test, {_p(r.p_value)})"
    return (
        "the data do not show failures clustered beyond what independent runs at a common "
        f"rate would give (Tarone's test, {_p(r.p_value)})"
    )


def _interval(lo: float | None, hi: float | None, *, ratio: bool) -> str:
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    return f"{fmt_ratio(lo)}–{fmt_ratio(hi)}" if ratio else f"{lo:.0%}–{hi:.0%}"


def describe_row(r: SpreadRow) -> str:
    """Two sentences reading a spread row, from its numbers.

    The first compares pass^k with the uniform reference mean^k and gives
    the heterogeneity test's verdict (when the row carries a test); the
    second says where the gap and the failing runs sit.

    Parameters
    ----------
    r : SpreadRow
        A row of :class:`passhat.spread.Spread` (``Spread.rows``).

    Returns
    -------
    str

    Examples
    --------
    >>> row = SpreadRow(k=2, mean=0.5, pass_hat_k=0.5, uniform=0.25, ratio=2.0, gap=0.0,
    ...                 flaky_share=0.0, tasks_for_80=0.0, clustered=True, p_value=0.001,
    ...                 testable=True)
    >>> print(describe_row(row))
    pass^2 is 2.0× what a uniform spread would give (25.0%); failures are clustered beyond \
what independent runs at a common rate would give (Tarone's test, p = 0.0010). Every task's \
runs agree, so there is no gap between mean and pass^k.
    """
    return " ".join(describe_parts(r))


def _ratio_head(r: SpreadRow) -> str:
    """pass^k against the uniform reference, with the ratio's interval when there is one."""
    k, ratio, uniform = r.k, r.ratio, r.uniform
    riv = _interval(r.ratio_lower, r.ratio_upper, ratio=True)
    riv_txt = f"; for tasks like these the ratio lies in {riv}" if riv else ""
    lo = r.ratio_lower if r.ratio_lower is not None else math.nan
    hi = r.ratio_upper if r.ratio_upper is not None else math.nan
    if riv and math.isfinite(ratio) and not lo <= ratio <= hi:  # say why, never leave it bare
        below = ": for tasks like these the ratio cannot fall below 1" if ratio < lo else ""
        riv_txt += f" (the measured ratio, of these runs, lies outside it{below})"
    times = f"pass^{k} is {fmt_ratio(ratio)}× what a uniform spread would give ({uniform:.1%})"
    if not math.isfinite(ratio):
        return (
            f"pass^{k} is {r.pass_hat_k:.1%} while a uniform spread of the mean "
            f"({r.mean:.1%}) would give {uniform:.1%}"
        )
    if ratio > 1.005:
        return times + riv_txt
    if ratio < 0.995 and not r.clustered and not _untestable(r):
        return times + ": no sign that failures cluster in some tasks" + riv_txt
    if ratio < 0.995:  # the test finds a spread the sample ratio does not show, or cannot test
        return times + riv_txt
    return f"pass^{k} matches a uniform spread ({uniform:.1%})" + riv_txt


def _gap_sentence(r: SpreadRow) -> str:
    """Where the gap mean − pass^k sits, and where the failing runs are."""
    text = (
        f"{r.flaky_share:.0%} of tasks have both outcomes and carry the whole "
        f"{r.gap * 100:.1f}-point gap mean − pass^{r.k}; in this sample "
        f"{r.tasks_for_80:.0%} of tasks carry 80% of it"
    )
    if math.isfinite(r.tasks_for_80_model):
        miv = _interval(r.tasks_for_80_model_lower, r.tasks_for_80_model_upper, ratio=False)
        text += (
            ", and a Beta fit of the task rates puts the share of tasks like these that carry "
            f"80% at {r.tasks_for_80_model:.0%}" + (f" ({miv})" if miv else "")
        )
    fail_af, fail_fl = r.failures_always_fail_share, r.failures_flaky_share
    if math.isfinite(fail_af) and math.isfinite(fail_fl):
        text += (
            f". Of the failing runs, {fail_fl:.0%} are in tasks with both outcomes and "
            f"{fail_af:.0%} in tasks that always fail"
        )
    return f"{text[0].upper()}{text[1:]}."


def describe_parts(r: SpreadRow) -> list[str]:
    """The sentences of :func:`describe_row`, one list item each.

    The first reads pass^k against the uniform reference with the test's
    verdict; the second (absent at k = 1) says where the gap and the failing
    runs sit. The report's summary repeats only the first.

    Examples
    --------
    >>> row = SpreadRow(k=2, mean=0.5, pass_hat_k=0.5, uniform=0.25, ratio=2.0, gap=0.0,
    ...                 flaky_share=0.0, tasks_for_80=0.0)
    >>> describe_parts(row)[1]
    "Every task's runs agree, so there is no gap between mean and pass^k."
    """
    if r.k == 1:
        return [f"At k = 1, pass^1 equals the mean ({r.mean:.1%}); the spread shows from k = 2."]
    head, test = _ratio_head(r), _test_clause(r)
    first = f"{head}; {test}." if test else f"{head}."
    if not (r.gap > 0 and r.flaky_share > 0):
        return [first, "Every task's runs agree, so there is no gap between mean and pass^k."]
    return [first, _gap_sentence(r)]


def _consistency_rank(top: SpreadRow, second: SpreadRow) -> str:
    """What the intervals say about the two most consistent systems."""
    if f"{top.consistency:.2f}" == f"{second.consistency:.2f}":
        return f"; {top.system} and {second.system} are level"
    lower = top.consistency_lower
    if lower is not None and not math.isnan(lower):
        upper = second.consistency_upper
        if upper is not None and lower > upper:
            return (
                f"; {top.system} keeps more of its per-run success than {second.system} "
                "(their intervals do not overlap)"
            )
        return (
            f"; the intervals of {top.system} and {second.system} overlap, so these data do "
            "not rank their consistency"
        )
    return f"; {top.system}'s is higher in this sample (no intervals computed)"


def compare_consistency(rows: Sequence[SpreadRow], k: int) -> str:
    """One sentence comparing the systems' consistency pass^k / mean at ``k``.

    Consistency says how much of a system's per-run success survives k runs;
    it does not say which system passes more. The sentence lists every
    system's value; it names the more consistent of the top two only when
    their intervals (``consistency_lower``/``_upper``) do not overlap, calls
    equal values (to two decimals) a tie, and, when the system with the
    higher pass^k is another one, says so.

    Parameters
    ----------
    rows : sequence of SpreadRow
        The rows of a spread with two or more systems (``Spread.rows``).
    k : int

    Returns
    -------
    str
        Empty when fewer than two systems have a defined consistency.

    Examples
    --------
    >>> rows = [SpreadRow(system="a", k=4, consistency=0.72, pass_hat_k=0.2),
    ...         SpreadRow(system="b", k=4, consistency=0.5, pass_hat_k=0.3)]
    >>> print(compare_consistency(rows, 4))
    pass^4 / mean at k = 4 (how much of the per-run success survives 4 runs): a 0.72, b 0.50; \
a's is higher in this sample (no intervals computed). Consistency is not which system passes \
more: b has the higher pass^4 (30.0% vs 20.0%).
    """
    part = [r for r in rows if r.k == k and not math.isnan(r.consistency)]
    if len({r.system for r in part}) < 2:
        return ""
    part = sorted(part, key=lambda r: -r.consistency)  # stable: ties keep their order
    values = ", ".join(f"{r.system} {r.consistency:.2f}" for r in part)
    s = f"pass^{k} / mean at k = {k} (how much of the per-run success survives {k} runs): {values}"
    top = part[0]
    s += _consistency_rank(top, part[1])
    best = sorted(part, key=lambda r: -r.pass_hat_k if not math.isnan(r.pass_hat_k) else math.inf)
    hats = {r.pass_hat_k for r in part if not math.isnan(r.pass_hat_k)}
    if best[0].system != top.system and best[0].pass_hat_k > top.pass_hat_k and len(hats) > 1:
        s += (
            f". Consistency is not which system passes more: {best[0].system} has the higher "
            f"pass^{k} ({best[0].pass_hat_k:.1%} vs {top.pass_hat_k:.1%})"
        )
    return s + "."


def outside_notes(rows: Sequence[SpreadRow]) -> list[str]:
    """One sentence per figure whose sample value lies outside its population interval.

    The sample ratio pass^k / mean^k divides the unbiased pass^k by the plug-in mean^k, which
    at a few runs per task puts it below 1 even when every task has the same rate, while the
    population ratio is ≥ 1 for any spread of task rates (Jensen); the interval is the
    population one (:mod:`passhat.spread.posterior`). Said, never left for the reader to find.

    Examples
    --------
    >>> row = SpreadRow(system="a", k=5, ratio=0.5, ratio_lower=1.0, ratio_upper=3.0)
    >>> outside_notes([row])[0][:60]
    '1 sample pass^k / mean^k value(s) lie outside their populati'
    """
    notes: list[str] = []
    for key, name in (("ratio", "pass^k / mean^k"), ("consistency", "pass^k / mean")):
        part = [r for r in rows if getattr(r, f"{key}_lower") is not None]
        if not part:
            continue
        value, lo, hi = (
            [getattr(r, f"{key}{end}") for r in part] for end in ("", "_lower", "_upper")
        )
        out = outside_mask(value, lo, hi)
        if not out.any():
            continue
        i = int(out.argmax())
        r = part[i]
        notes.append(
            f"{int(out.sum())} sample {name} value(s) lie outside their population interval, "
            f"e.g. {r.system} k = {r.k}: {value[i]:.3f} against {lo[i]:.3f}–{hi[i]:.3f}. The "
            "sample value describes these tasks and is noisy at a few runs per task (the "
            "unbiased pass^k over the plug-in mean^k runs below 1 even when every task has the "
            "same rate); the interval is for tasks like these, whose ratio is at least 1 for "
            "any spread of task rates (Jensen)."
        )
    return notes


def few_tasks_note(systems: Sequence[str]) -> str:
    """The note for systems with fewer than two included tasks ("" when there are none).

    Examples
    --------
    >>> few_tasks_note(["a"])[:38]
    'a: fewer than two tasks, so how task r'
    """
    if not systems:
        return ""
    return (
        f"{', '.join(systems)}: fewer than two tasks, so how task rates spread across tasks is "
        "not identified; the model-based figures (ratio and consistency intervals, ICC, the "
        "model share of tasks carrying the gap) are not given."
    )


def method_notes(alpha: float, *, weighted: bool) -> dict[str, str]:
    """How each figure of :class:`passhat.spread.Spread` is computed (its ``method``).

    Examples
    --------
    >>> method_notes(0.05, weighted=False)["heterogeneity"][-40:]
    'clustered = the test rejects at α = 0.05'
    """
    notes = {
        "mean": "weighted average of per-task c/n",
        "pass_hat_k": "weighted average of per-task unbiased C(c,k)/C(n,k)",
        "uniform": "mean^k: pass^k if every task had the same success rate",
        "ratio": "pass^k / mean^k (> 1: failures cluster in some tasks)",
        "consistency": "pass^k / mean",
        "gap": "mean − pass^k, split by task as w_i (c_i/n_i − C(c_i,k)/C(n_i,k))",
        "shares": "share of included tasks (unweighted) by decided runs: all pass, all fail, both",
        "tasks_for_x": (
            "smallest share of these tasks whose sample contributions sum to x of the gap "
            "(overstates the concentration at few runs per task; see tasks_for_80_model)"
        ),
        "failures_x_share": "share of failing decided runs in always-fail / flaky tasks",
        "heterogeneity": (
            f"Tarone's score test of one common success rate with independent runs; "
            f"clustered = the test rejects at α = {alpha:g}"
        ),
        "ratio_interval": (
            "population scope: E[p^k] / (E p)^k for tasks like these; Beta-Binomial posterior "
            "(exact grid) interval, joined with the homogeneous model's (ratio 1) when the "
            "heterogeneity test does not reject at level 1 − ci. The population ratio is ≥ 1 "
            "for any spread of task rates (Jensen); a sample ratio below 1 is noise."
        ),
        "tasks_for_x_model": (
            "share of tasks like these, ranked by their gap p − p^k, that carry x of the "
            "expected gap, under the fitted Beta (posterior median and interval; the sample "
            "share tasks_for_x overstates the concentration at few runs per task)"
        ),
        "icc": "run-to-run correlation within a task, 1/(κ + 1), Beta-Binomial posterior",
    }
    if weighted:
        notes["weights"] = (
            "the model-based figures treat tasks as equally weighted; the sample figures use "
            "the declared weights"
        )
    return notes


# ------------------------------------------------------------------ a published pair
def kappa_text(kappa: float) -> str:
    """κ for a sentence; an unbounded κ (every task at one rate) in words, never ``inf``.

    Examples
    --------
    >>> kappa_text(1.43), kappa_text(float("inf"))
    ('κ = 1.43', 'κ unbounded: every task at the same rate')
    """
    if math.isinf(kappa):
        return "κ unbounded: every task at the same rate"
    return f"κ = {kappa:.3g}"


def mixed_share_text(check: MixedShareCheck) -> str:
    """Whether the implied Beta reproduces a published share of mixed tasks, in words.

    Examples
    --------
    >>> mixed_share_text(MixedShareCheck(published=0.32, predicted=0.3, runs=5, tolerance=0.03))
    "The published 32% of mixed tasks agrees with the Beta's 30% (within 3%)."
    """
    pred, published = check.predicted, check.published
    if check.agrees:
        return (
            f"The published {published:.0%} of mixed tasks agrees with the Beta's "
            f"{pred:.0%} (within {check.tolerance:.0%})."
        )
    more = "fewer" if pred - published > 0 else "more"
    return (
        f"A Beta cannot explain the published share of mixed tasks: it predicts "
        f"{pred:.0%} against {published:.0%} published; the data have {more} "
        "flaky tasks than a single Beta spread allows (a zero/one-inflated mixture "
        "may fit)."
    )


def pair_sentence(
    pair: SpreadRow,
    *,
    label: str | None,
    beta: BetaFit | None,
    runs: int,
    reason: str,
    check: MixedShareCheck | None,
) -> str:
    """Plain-language reading of a published (mean, pass^k) pair and the Beta it implies.

    Parameters
    ----------
    pair : SpreadRow
        The pair's figures (mean, pass_hat_k, k, uniform, ratio, consistency).
    label : str, optional
        Its name.
    beta : BetaFit, optional
        The implied Beta, None when none explains the pair (``reason`` says why).
    runs : int
        Runs per task of the predicted share of mixed tasks.
    reason : str
    check : MixedShareCheck, optional
        A published share of mixed tasks, checked.

    Examples
    --------
    >>> pair = SpreadRow(k=5, mean=0.5, pass_hat_k=0.5, uniform=0.5**5, ratio=16.0,
    ...                  consistency=1.0)
    >>> pair_sentence(pair, label=None, beta=None, runs=5, reason="r", check=None)[-30:]
    'No Beta spread explains it: r.'
    """
    who = f"{label}: " if label else ""
    k = pair.k
    s = (
        f"{who}mean {pair.mean:.1%} would give pass^{k} = {pair.uniform:.1%} if every "
        f"task shared it; measured {pair.pass_hat_k:.1%}"
    )
    if pair.uniform > 0:
        s += f" ({fmt_ratio(pair.ratio)}× the uniform reference)"
    s += (
        f". Consistency pass^{k}/mean = {pair.consistency:.2f}."
        if math.isfinite(pair.consistency)
        else f". Consistency pass^{k}/mean is undefined (mean 0)."
    )
    if beta is not None:
        s += (
            " A Beta spread of task rates explains the pair with "
            f"{kappa_text(beta.kappa)} "
            f"(ICC {beta.icc:.2f}) and predicts {beta.mixed_share[runs]:.0%} of tasks "
            f"with mixed outcomes in {runs} runs."
        )
    else:
        s += f" No Beta spread explains it: {reason}."
    if check is not None:
        s += " " + mixed_share_text(check)
    return s
