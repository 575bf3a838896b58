"""Plain-language readings of spread rows, written from their numbers and the heterogeneity test.

Rules the sentences keep (each has a test in ``tests/spread/test_spread_sentences.py``):

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
>>> from passhat.spread.sentences import describe_row
>>> describe_row({"k": 1, "mean": 0.5})
'At k = 1, pass^1 equals the mean (50.0%); the spread shows from k = 2.'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from passhat._format import fmt_ratio

__all__ = ["CLUSTERED", "compare_consistency", "describe_parts", "describe_row"]

#: The claim a rejected heterogeneity test supports, word for word.
CLUSTERED = "failures are clustered beyond what independent runs at a common rate would give"


def _num(r: Mapping[str, Any], key: str) -> float:
    """A finite float from the row, or NaN when missing / undefined."""
    v = r.get(key)
    try:
        x = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return x


def _p(p: float) -> str:
    """A p-value for a sentence: 3 significant digits, never 0."""
    return f"p = {p:.3g}"


def _untestable(r: Mapping[str, Any]) -> bool:
    """Whether the row carries a heterogeneity test that could not be run (too few tasks)."""
    if "clustered" not in r or r.get("clustered") is None:
        return False
    return not bool(r.get("testable", math.isfinite(_num(r, "p_value"))))


def _test_clause(r: Mapping[str, Any]) -> str:
    """What the heterogeneity test says, or '' when the row carries no test."""
    if "clustered" not in r or r.get("clustered") is None:
        return ""
    p = _num(r, "p_value")
    if _untestable(r):
        why = str(r.get("test_reason") or "too few runs")
        return f"whether failures cluster cannot be tested ({why})"
    if bool(r["clustered"]):
        return f"{CLUSTERED} (Tarone's test, {_p(p)})"
    return (
        "the data do not show failures clustered beyond what independent runs at a common "
        f"rate would give (Tarone's test, {_p(p)})"
    )


def _interval(r: Mapping[str, Any], key: str, fmt: str) -> str:
    lo, hi = _num(r, f"{key}_lower"), _num(r, f"{key}_upper")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    if fmt == "ratio":
        return f"{fmt_ratio(lo)}–{fmt_ratio(hi)}"
    return f"{lo:.0%}–{hi:.0%}"


def describe_row(r: pd.Series | Mapping[str, Any]) -> str:
    """Two sentences reading a spread row (see :class:`passhat.spread.Spread`), from its numbers.

    The first compares pass^k with the uniform reference mean^k and gives
    the heterogeneity test's verdict (when the row has ``clustered`` and
    ``p_value``); the second says where the gap and the failing runs sit.

    Parameters
    ----------
    r : pandas.Series or mapping
        A row of :attr:`passhat.spread.Spread.table`.

    Returns
    -------
    str

    Examples
    --------
    >>> from passhat.spread.sentences import describe_row
    >>> row = {"k": 2, "mean": 0.5, "pass_hat_k": 0.5, "uniform": 0.25, "ratio": 2.0,
    ...        "gap": 0.0, "flaky_share": 0.0, "tasks_for_80": 0.0,
    ...        "clustered": True, "p_value": 0.001, "testable": True}
    >>> print(describe_row(row))
    pass^2 is 2.0× what a uniform spread would give (25.0%); failures are clustered beyond \
what independent runs at a common rate would give (Tarone's test, p = 0.001). Every task's \
runs agree, so there is no gap between mean and pass^k.
    """
    return " ".join(describe_parts(r))


def describe_parts(r: pd.Series | Mapping[str, Any]) -> list[str]:
    """The sentences of :func:`describe_row`, one list item each.

    The first reads pass^k against the uniform reference with the test's
    verdict; the second (absent at k = 1) says where the gap and the failing
    runs sit. The report's summary repeats only the first.

    Examples
    --------
    >>> from passhat.spread.sentences import describe_parts
    >>> row = {"k": 2, "mean": 0.5, "pass_hat_k": 0.5, "uniform": 0.25, "ratio": 2.0,
    ...        "gap": 0.0, "flaky_share": 0.0, "tasks_for_80": 0.0}
    >>> describe_parts(row)[1]
    "Every task's runs agree, so there is no gap between mean and pass^k."
    """
    row: Mapping[str, Any] = r.to_dict() if isinstance(r, pd.Series) else r
    k = int(row["k"])
    if k == 1:
        return [
            f"At k = 1, pass^1 equals the mean ({float(row['mean']):.1%}); the spread shows "
            "from k = 2."
        ]
    ratio = _num(row, "ratio")
    uniform = _num(row, "uniform")
    gap = _num(row, "gap")
    flaky = _num(row, "flaky_share")
    riv = _interval(row, "ratio", "ratio")
    riv_txt = f"; for tasks like these the ratio lies in {riv}" if riv else ""
    lo, hi = _num(row, "ratio_lower"), _num(row, "ratio_upper")
    if riv and math.isfinite(ratio) and not lo <= ratio <= hi:  # say why, never leave it bare
        riv_txt += (
            " (the measured ratio, of these runs, lies outside it"
            + (": for tasks like these the ratio cannot fall below 1" if ratio < lo else "")
            + ")"
        )
    if not math.isfinite(ratio):
        head = (
            f"pass^{k} is {float(row['pass_hat_k']):.1%} while a uniform spread of the mean "
            f"({float(row['mean']):.1%}) would give {uniform:.1%}"
        )
    elif ratio > 1.005:
        head = (
            f"pass^{k} is {fmt_ratio(ratio)}× what a uniform spread would give ({uniform:.1%})"
            + riv_txt
        )
    elif ratio < 0.995 and not row.get("clustered") and not _untestable(row):
        head = (
            f"pass^{k} is {fmt_ratio(ratio)}× what a uniform spread would give ({uniform:.1%}): "
            "no sign that failures cluster in some tasks" + riv_txt
        )
    elif ratio < 0.995:  # the test finds a spread the sample ratio does not show, or cannot test
        head = (
            f"pass^{k} is {fmt_ratio(ratio)}× what a uniform spread would give ({uniform:.1%})"
            + riv_txt
        )
    else:
        head = f"pass^{k} matches a uniform spread ({uniform:.1%})" + riv_txt
    test = _test_clause(row)
    first = f"{head}; {test}." if test else f"{head}."
    if not (gap > 0 and flaky > 0):
        return [first, "Every task's runs agree, so there is no gap between mean and pass^k."]
    second = (
        f"{flaky:.0%} of tasks have both outcomes and carry the whole {gap * 100:.1f}-point gap "
        f"mean − pass^{k}; in this sample {_num(row, 'tasks_for_80'):.0%} of tasks carry 80% "
        "of it"
    )
    model = _num(row, "tasks_for_80_model")
    if math.isfinite(model):
        miv = _interval(row, "tasks_for_80_model", "pct")
        second += (
            f", and a Beta fit of the task rates puts the share of tasks like these that carry "
            f"80% at {model:.0%}" + (f" ({miv})" if miv else "")
        )
    fail_af = _num(row, "failures_always_fail_share")
    fail_fl = _num(row, "failures_flaky_share")
    if math.isfinite(fail_af) and math.isfinite(fail_fl):
        second += (
            f". Of the failing runs, {fail_fl:.0%} are in tasks with both outcomes and "
            f"{fail_af:.0%} in tasks that always fail"
        )
    return [first, f"{second[0].upper()}{second[1:]}."]


def compare_consistency(table: pd.DataFrame, k: int) -> str:
    """One sentence comparing the systems' consistency pass^k / mean at ``k``.

    Consistency says how much of a system's per-run success survives k runs;
    it does not say which system passes more. The sentence lists every
    system's value; it names the more consistent of the top two only when
    their intervals (``consistency_lower``/``_upper``) do not overlap, calls
    equal values (to two decimals) a tie, and, when the system with the
    higher pass^k is another one, says so.

    Parameters
    ----------
    table : pandas.DataFrame
        :attr:`passhat.spread.Spread.table` with two or more systems.
    k : int

    Returns
    -------
    str
        Empty when fewer than two systems have a defined consistency.

    Examples
    --------
    >>> import pandas as pd
    >>> from passhat.spread.sentences import compare_consistency
    >>> t = pd.DataFrame({"system": ["a", "b"], "k": [4, 4], "consistency": [0.72, 0.5],
    ...                   "pass_hat_k": [0.2, 0.3]})
    >>> print(compare_consistency(t, 4))
    pass^4 / mean at k = 4 (how much of the per-run success survives 4 runs): a 0.72, b 0.50; \
a's is higher in this sample (no intervals computed). Consistency is not which system passes \
more: b has the higher pass^4 (30.0% vs 20.0%).
    """
    part = table[(table["k"] == k) & pd.notna(table["consistency"])]
    if part["system"].nunique() < 2:
        return ""
    part = part.sort_values("consistency", ascending=False, kind="stable")
    values = ", ".join(f"{r.system} {float(r.consistency):.2f}" for r in part.itertuples())
    s = f"pass^{k} / mean at k = {k} (how much of the per-run success survives {k} runs): {values}"
    top, second = part.iloc[0], part.iloc[1]
    if f"{float(top['consistency']):.2f}" == f"{float(second['consistency']):.2f}":
        s += f"; {top['system']} and {second['system']} are level"
    elif "consistency_lower" in part.columns and pd.notna(top.get("consistency_lower")):
        if float(top["consistency_lower"]) > float(second["consistency_upper"]):
            s += (
                f"; {top['system']} keeps more of its per-run success than {second['system']} "
                "(their intervals do not overlap)"
            )
        else:
            s += (
                f"; the intervals of {top['system']} and {second['system']} overlap, so these "
                "data do not rank their consistency"
            )
    else:
        s += f"; {top['system']}'s is higher in this sample (no intervals computed)"
    best_hat = part.sort_values("pass_hat_k", ascending=False, kind="stable").iloc[0]
    hats = part["pass_hat_k"].astype(float)
    if (
        best_hat["system"] != top["system"]
        and float(best_hat["pass_hat_k"]) > float(top["pass_hat_k"])
        and hats.nunique() > 1
    ):
        s += (
            f". Consistency is not which system passes more: {best_hat['system']} has the "
            f"higher pass^{k} ({float(best_hat['pass_hat_k']):.1%} vs "
            f"{float(top['pass_hat_k']):.1%})"
        )
    return s + "."
