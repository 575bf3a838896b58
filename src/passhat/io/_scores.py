"""Scores to verdicts for the readers of evaluation frameworks (lm-eval, HELM, Harbor, ...).

A framework's per-run number is a verdict only when it is 0 or 1 (``acc``, ``exact_match``, a
Terminal-Bench reward). Any other value (an F1 of 0.67, a partial reward of 0.5) is a score:
the cut that makes it a success is the user's to give (``threshold``), never guessed here.

Examples
--------
>>> import numpy as np
>>> verdicts(np.array([1.0, 0.0, np.nan]), threshold=None, where="f.jsonl", what="metric 'acc'")
[True, False, None]
>>> verdicts(np.array([0.7, 0.2]), threshold=0.5, where="f.jsonl", what="metric 'f1'")
[True, False]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from passhat._numbers import safe_float, show_value
from passhat.errors import FormatError, OptionError

__all__ = [
    "as_dict",
    "check_threshold",
    "json_score",
    "missing_success",
    "one_line",
    "predictions_hint",
    "verdicts",
]


def check_threshold(threshold: Any, where: str) -> float | None:
    """``threshold`` as a finite float (None stays None); anything else is an OptionError.

    Examples
    --------
    >>> check_threshold(1, "f"), check_threshold(None, "f")
    (1.0, None)
    """
    if threshold is None:
        return None
    if isinstance(threshold, bool) or not isinstance(threshold, int | float | np.number):
        raise OptionError(f"{where}: threshold must be a number, e.g. 0.5 (got {threshold!r})")
    if not math.isfinite(float(threshold)):
        raise OptionError(
            f"{where}: threshold must be a finite number, e.g. 0.5 (got {threshold!r})"
        )
    return float(threshold)


def json_score(value: Any, where: str, what: str, *, bools: bool = True) -> float | None:
    """A JSON number (or boolean, as 1/0, unless ``bools`` is False) as a float; None and NaN
    are missing (None). Text, lists and objects are a FormatError naming ``where`` and ``what``
    (never coerced).

    Examples
    --------
    >>> json_score(True, "f", "x"), json_score(0.5, "f", "x"), json_score(None, "f", "x")
    (1.0, 0.5, None)
    >>> json_score("1", "runs.jsonl: line 3", "metric 'acc'")
    Traceback (most recent call last):
    ...
    passhat.errors.FormatError: runs.jsonl: line 3: metric 'acc' is '1' (text), not a number
    """
    if value is None:
        return None
    if isinstance(value, bool) and bools:
        return 1.0 if value else 0.0
    if isinstance(value, int | float) and not isinstance(value, bool):
        x = safe_float(value)
        if math.isinf(x):
            raise FormatError(f"{where}: {what} is {show_value(value)}, not a finite number")
        return None if math.isnan(x) else x
    names: dict[type, str] = {str: "text", list: "a list", dict: "an object", bool: "a boolean"}
    kind = names.get(type(value), type(value).__name__)
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    raise FormatError(f"{where}: {what} is {shown} ({kind}), not a number")


def verdicts(
    scores: np.ndarray, *, threshold: float | None, where: str, what: str
) -> list[bool | None]:
    """Success per run from its score: ``score ≥ threshold``, or without a threshold the score
    itself when every score is 0 or 1; a missing score (NaN) has no verdict (None).

    Without a threshold a score other than 0 and 1 is a FormatError that names the value and
    gives the option to type.
    """
    x = np.asarray(scores, dtype=float)
    have = ~np.isnan(x)
    if threshold is None:
        odd = have & (np.abs(x) > 1e-9) & (np.abs(x - 1.0) > 1e-9)
        if odd.any():
            values = sorted({float(v) for v in x[odd]})
            shown = ", ".join(f"{v:g}" for v in values[:3]) + (" ..." if len(values) > 3 else "")
            raise FormatError(
                f"{where}: {what} takes values other than 0 and 1 ({shown} in "
                f"{int(odd.sum())} run(s)): a score, not a pass/fail verdict; say which score "
                "is a success, e.g. --threshold 1 (only full credit) or --threshold 0.5 "
                "(Python threshold=...)"
            )
        ok = x > 0.5
    else:
        ok = x >= threshold
    return [bool(o) if h else None for o, h in zip(ok, have, strict=True)]


def one_line(text: Any, limit: int = 160) -> str:
    """The first line of a message, shortened (for an ``error`` column).

    Examples
    --------
    >>> one_line("Traceback:\\n  boom")
    'Traceback:'
    """
    s = str(text).strip()
    line = s.splitlines()[0] if s else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def as_dict(x: Any) -> dict[str, Any]:
    """``x`` when it is a JSON object, else an empty one (for optional parts of a document).

    Examples
    --------
    >>> as_dict({"a": 1}), as_dict(None), as_dict([1])
    ({'a': 1}, {}, {})
    """
    return x if isinstance(x, dict) else {}


#: Names a column holding a run's verdict or reward often has, in the order they are suggested.
SCORE_NAMES = (
    "reward", "score", "passed", "pass", "correct", "resolved", "solved", "success_rate",
    "acc", "accuracy", "exact_match", "result", "outcome", "label",
)  # fmt: skip
#: Data-model columns that are never a verdict.
_NOT_SCORES = frozenset(
    {"system", "task_id", "trial", "status", "category", "cluster", "weight",
     "scenario_hash",
     "duration_s", "cost"}
)  # fmt: skip


def missing_success(
    where: str,
    columns: list[str],
    ranges: dict[str, tuple[float, float]] | None = None,
) -> str:
    """The message for a table without a ``success`` column, with the exact options that read
    one of its numeric columns as the verdict.

    Parameters
    ----------
    where : str
        The file.
    columns : list of str
        The file's own column names (as written, before any renaming).
    ranges : dict, optional
        Numeric columns → (min, max) of their values, when the values are known; without it,
        columns are suggested by name only (``reward``, ``score``, ``passed``, ...).

    Examples
    --------
    >>> msg = missing_success("r.csv", ["task_id", "trial", "reward"], {"reward": (0.0, 0.8)})
    >>> msg[:msg.index(";")]
    "r.csv: required column 'success' is missing (columns: task_id, trial, reward)"
    >>> msg[msg.index("--map"):msg.index(" (success")]
    '--map success=reward --threshold 1'
    >>> m = missing_success("r.csv", ["task_id", "points"], {"points": (0.0, 10.0)})
    >>> m[m.index("column 'points'"):m.index(" (success")]
    "column 'points' holds numbers (its values run from 0 to 10): read it as the verdict with \
--map success=points --threshold T"
    """
    text = f"{where}: required column 'success' is missing (columns: {', '.join(columns)})"
    hint = predictions_hint(columns)
    if hint is not None:
        return f"{text}; {hint}"
    pool = [c for c in columns if c not in _NOT_SCORES]
    if ranges is not None:
        pool = [c for c in pool if c in ranges]
    named = sorted(
        (c for c in pool if c.strip().casefold() in SCORE_NAMES),
        key=lambda c: SCORE_NAMES.index(c.strip().casefold()),
    )
    col = named[0] if named else (pool[0] if pool and ranges is not None else None)
    if col is None:
        return text
    lo, hi = ranges[col] if ranges is not None else (0.0, 1.0)
    cut, shown = ("1", "1.0") if hi <= 1 else ("T", "T")
    where_from = "" if hi <= 1 else f" (its values run from {lo:g} to {hi:g})"
    return (
        f"{text}; column {col!r} holds numbers{where_from}: read it as the verdict with "
        f"--map success={col} --threshold {cut} (success = {col} ≥ {cut}"
        + (", full credit; choose your own cut, e.g. --threshold 0.5" if cut == "1" else "")
        + f"; Python: success={col!r}, threshold={shown})"
    )


def predictions_hint(keys: Any) -> str | None:
    """What to give instead of SWE-bench predictions (records with ``instance_id`` and
    ``model_patch``): they hold patches, not verdicts. None for other keys.

    Examples
    --------
    >>> predictions_hint(["task_id", "success"]) is None
    True
    >>> predictions_hint(["instance_id", "model_name_or_path", "model_patch"])[:50]
    'SWE-bench predictions (instance_id, model_patch) h'
    """
    names = {str(k) for k in keys}
    if not {"instance_id", "model_patch"} <= names:
        return None
    return (
        "SWE-bench predictions (instance_id, model_patch) hold patches, not verdicts: evaluate "
        "them with the harness (python -m swebench.harness.run_evaluation --predictions_path "
        "FILE --run_id ID) and give the run report it writes, <model>.<run_id>.json (no --format "
        "reads predictions)"
    )
