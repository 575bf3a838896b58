"""promptfoo ``eval --output results.json`` files (results version 3, and 2), and
``promptfoo export EVAL_ID -o x.json`` files (``{version: 4, createdAt, results, config, ...}``
around the same summary).

The shapes read here are promptfoo's own (promptfoo/promptfoo ``src/types/index.ts``:
``EvaluateSummaryV3``, ``EvaluateResult``, ``EvaluateStats``, ``ResultFailureReason``; the
output file ``{evalId, results, config, shareableUrl, metadata}`` is ``createOutputData`` of
``src/util``). Each row of ``results.results`` is one run: ``testIdx``, ``promptIdx``,
``provider`` (``id``, ``label``), ``vars``, ``testCase``, ``success``, ``score``,
``failureReason`` (0 none, 1 an assertion failed, 2 an error), ``error``, ``latencyMs``,
``cost``.

Mapping: the **system** is the provider (``label``, else ``id``), with the prompt's label
when one provider ran several prompts; the **task** is the test case: with ``--repeat N``
promptfoo gives every repeat of a test its own ``testIdx`` (``src/evaluator.ts``: the repeat
loop increments the test index), so runs are grouped by the test's description, vars and
assertions, and
the task id is the test's description (when every test has its own) or the ``testIdx`` of its
first run; the **trial** numbers a test's runs by ``testIdx``.

Success is promptfoo's ``success`` (its verdict: every assertion passed); ``score`` is kept.
A row with ``failureReason`` 2 (a provider or grading error; promptfoo counts it under
``stats.errors``, apart from failures) is **unscored**, status ``error``, its message in the
``error`` column (``errors="failure"`` counts it as a failure). Oracle: ``stats.successes``,
``stats.failures`` and ``stats.errors`` are passhat's successes, failures and unscored runs.

Examples
--------
>>> import json, os, tempfile
>>> import passhat as ph
>>> row = lambda i, ok: {"testIdx": i, "promptIdx": 0, "provider": {"id": "openai:gpt-4o-mini"},
...     "vars": {"q": "2+2"}, "testCase": {"vars": {"q": "2+2"}}, "success": ok,
...     "score": float(ok), "failureReason": 0 if ok else 1}
>>> doc = {"evalId": "eval-1", "results": {"version": 3, "results": [row(0, True), row(1, False)],
...        "stats": {"successes": 1, "failures": 1, "errors": 0}}}
>>> f = os.path.join(tempfile.mkdtemp(), "results.json")
>>> _ = open(f, "w").write(json.dumps(doc))
>>> t = ph.read_trials(f)
>>> t.systems, len(t.tasks), t.frame["trial"].tolist()
(['openai:gpt-4o-mini'], 1, [0, 1])
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from passhat.errors import FormatError, OptionError
from passhat.io import _sniff
from passhat.io._json import load_json, records_frame
from passhat.io._registry import register_reader
from passhat.io._scores import as_dict, json_score, one_line
from passhat.trials import Trials

__all__ = ["read_promptfoo"]

_WHAT = "promptfoo results file"
ERROR = 2  # promptfoo's ResultFailureReason.ERROR


def _summary(path: Path, doc: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The results summary (``{version, results, prompts, stats}``) and the output's config."""
    if not isinstance(doc, dict):
        raise FormatError(f"{path}: not a {_WHAT} (a JSON {type(doc).__name__}, not an object)")
    summary: dict[str, Any] = doc["results"] if isinstance(doc.get("results"), dict) else doc
    config = as_dict(doc.get("config"))
    version = summary.get("version")
    if not isinstance(summary.get("results"), list):
        keys = ", ".join(map(str, list(doc)[:8]))
        raise FormatError(
            f"{path}: not a {_WHAT} (no results list; keys: {keys}); write it with "
            "promptfoo eval --output results.json"
        )
    if version not in (2, 3):
        raise FormatError(
            f"{path}: promptfoo results version {version!r}; passhat reads versions 2 and 3 "
            "(re-export with a current promptfoo: promptfoo export EVAL_ID -o results.json)"
        )
    if not summary["results"]:
        raise FormatError(f"{path}: the {_WHAT} holds no results")
    return summary, config


def _provider(path: Path, i: int, row: dict[str, Any]) -> str:
    p = row.get("provider")
    if isinstance(p, str) and p:
        return p
    if isinstance(p, dict):
        name = p.get("label") or p.get("id")
        if isinstance(name, str) and name:
            return name
    raise FormatError(f"{path}: results[{i}]: provider {p!r} has no id or label")


def _check_row(path: Path, i: int, row: Any) -> dict[str, Any]:
    where = f"{path}: results[{i}]"
    if not isinstance(row, dict):
        raise FormatError(f"{where}: expected an object, got {type(row).__name__}")
    missing = [k for k in ("testIdx", "success") if k not in row]
    if missing:
        raise FormatError(
            f"{where}: not a promptfoo result (missing {', '.join(missing)}; keys: "
            f"{', '.join(map(str, list(row)[:8]))})"
        )
    for key in ("testIdx", "promptIdx"):
        v = row.get(key, 0)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise FormatError(f"{where}: {key} {v!r} is not a whole number ≥ 0")
    if not isinstance(row["success"], bool):
        raise FormatError(f"{where}: success {row['success']!r} is not true or false")
    for key, kind in (("error", str), ("vars", dict), ("testCase", dict), ("description", str)):
        if row.get(key) is not None and not isinstance(row[key], kind):
            want = "text" if kind is str else "an object"
            raise FormatError(f"{where}: {key} must be {want}, got {type(row[key]).__name__}")
    case = row.get("testCase") or {}
    if case.get("description") is not None and not isinstance(case["description"], str):
        raise FormatError(f"{where}: testCase.description must be text")
    reason = row.get("failureReason", 0)
    if isinstance(reason, bool) or reason not in (0, 1, 2):
        raise FormatError(
            f"{where}: failureReason {reason!r} is not 0, 1 or 2 (none, assert, error)"
        )
    return row


def _test_key(row: dict[str, Any]) -> tuple[str, str]:
    """What is the same across a test's repeats: its description, vars and assertions."""
    case = as_dict(row.get("testCase"))
    desc = row.get("description") or case.get("description") or ""
    vars_ = row.get("vars") if row.get("vars") is not None else case.get("vars")
    body = {"vars": vars_, "assert": case.get("assert")}
    return str(desc), json.dumps(body, sort_keys=True, default=str)


#: The longest prompt label kept whole in a system name.
_LABEL_CHARS = 60


def _prompt_label(summary: dict[str, Any], row: dict[str, Any]) -> str:
    """The prompt's label as a name: on one line (promptfoo's label of an inline prompt is its
    text, often several lines), and a long one cut with the prompt's id (its hash) kept."""
    prompts = summary.get("prompts")
    prompts = prompts if isinstance(prompts, list) else []
    idx = row.get("promptIdx", 0)
    p = prompts[idx] if idx < len(prompts) else row.get("prompt")
    if not isinstance(p, dict):
        return str(idx)
    text = " ".join(str(p.get("label") or p.get("raw") or idx).split())
    if len(text) <= _LABEL_CHARS:
        return text
    key = str(p.get("id") or row.get("promptId") or idx)
    return f"{text[: _LABEL_CHARS - 12]}… ({key[:8]})"


def _systems(summary: dict[str, Any], rows: list[dict[str, Any]], path: Path) -> list[str]:
    """Provider names, with the prompt's label for a provider that ran several prompts."""
    names = [_provider(path, i, r) for i, r in enumerate(rows)]
    labels = [_prompt_label(summary, r) for r in rows]
    prompts_of: dict[str, set[str]] = {}
    for n, lab in zip(names, labels, strict=True):
        prompts_of.setdefault(n, set()).add(lab)
    return [
        f"{n}: {lab}" if len(prompts_of[n]) > 1 else n for n, lab in zip(names, labels, strict=True)
    ]


def read_promptfoo(
    path: Path,
    *,
    errors: Literal["unscored", "failure"] = "unscored",
    system_name: str | None = None,
) -> Trials:
    """Read a promptfoo results file into trials.

    Parameters
    ----------
    path : Path
        The ``promptfoo eval --output results.json`` file (or ``promptfoo export``).
    errors : {"unscored", "failure"}
        Rows with ``failureReason`` 2 (errors) are unscored (default) or failures.
    system_name : str, optional
        Overrides the provider name (for a file of one provider and prompt).

    Returns
    -------
    Trials
        ``task_id`` (test), ``trial`` (repeat), ``success``, ``status`` (``ok``, ``error``),
        ``score``, ``error``, ``test_idx``, ``duration_s`` (latency), ``cost``.
    """
    path = Path(path)
    if errors not in ("unscored", "failure"):
        raise OptionError(f"{path}: errors must be 'unscored' or 'failure' (got {errors!r})")
    summary, config = _summary(path, load_json(path, expected=_WHAT))
    rows = [_check_row(path, i, r) for i, r in enumerate(summary["results"])]
    systems = _systems(summary, rows, path)
    keys = [_test_key(r) for r in rows]
    first: dict[tuple[str, str], int] = {}
    for k, r in sorted(zip(keys, rows, strict=True), key=lambda kr: kr[1]["testIdx"]):
        first.setdefault(k, r["testIdx"])
    descs = {k[0] for k in first}
    printable = all(d.isprintable() for d in descs)  # a line break is no task id
    by_desc = len(descs) == len(first) and "" not in descs and printable
    records = []
    for i, (r, k, system) in enumerate(zip(rows, keys, systems, strict=True)):
        err = r.get("failureReason", 0) == ERROR
        records.append(
            {
                "system": system_name or system,
                "task_id": k[0] if by_desc else first[k],
                "test_idx": r["testIdx"],
                "success": (False if errors == "failure" else None) if err else r["success"],
                "status": "error" if err else "ok",
                "score": json_score(r.get("score"), f"{path}: results[{i}]", "score"),
                "error": one_line(r["error"]) if r.get("error") else None,
                "duration_s": (
                    json_score(
                        r.get("latencyMs"), f"{path}: results[{i}]", "latencyMs", bools=False
                    )
                    or np.nan
                )
                / 1000,
                "cost": json_score(r.get("cost"), f"{path}: results[{i}]", "cost", bools=False),
            }
        )
    df = records_frame(records)
    if system_name is not None and len(set(systems)) > 1:
        raise OptionError(
            f"{path}: the file holds several providers/prompts "
            f"({', '.join(dict.fromkeys(systems))}); --system-name names one"
        )
    _refuse_same_run(path, df)
    df["trial"] = (
        df.sort_values("test_idx", kind="stable")
        .groupby(["system", "task_id"], sort=False)
        .cumcount()
        .reindex(df.index)
    )
    df["success"] = df["success"].astype("boolean")
    for col in ("error", "cost", "duration_s"):
        if df[col].isna().all():
            df = df.drop(columns=col)
    trials = Trials.from_frame(df, where=str(path), source=_source(path, summary, config, by_desc))
    trials.notes.extend(_notes(path, df, config, by_desc))
    return trials


def _refuse_same_run(path: Path, df: pd.DataFrame) -> None:
    dup = df.duplicated(["system", "test_idx"], keep=False)
    if dup.any():
        first = df[dup].iloc[0]
        raise FormatError(
            f"{path}: testIdx {first['test_idx']} appears {int(dup.sum())} times for "
            f"{first['system']!r}: one run listed twice; re-export with promptfoo eval --output"
        )


def _source(
    path: Path, summary: dict[str, Any], config: dict[str, Any], by_desc: bool
) -> dict[str, Any]:
    stats = as_dict(summary.get("stats"))
    options = as_dict(config.get("evaluateOptions"))
    return {
        "system_from": "provider",
        "task_from": "test description" if by_desc else "first testIdx of the test",
        "promptfoo_version": summary.get("version"),
        "repeat": options.get("repeat"),
        "stats": {k: stats.get(k) for k in ("successes", "failures", "errors") if k in stats},
    }


def _notes(path: Path, df: pd.DataFrame, config: dict[str, Any], by_desc: bool) -> list[str]:
    notes = []
    per = df.groupby(["system", "task_id"]).size()
    if per.max() > 1:
        options = as_dict(config.get("evaluateOptions"))
        said = f" (evaluateOptions.repeat = {options['repeat']})" if options.get("repeat") else ""
        notes.append(
            f"{path}: a test's repeated runs{said} carry their own testIdx; they are grouped "
            f"by the test's description, vars and assertions ({_span(per.min(), per.max())} "
            "runs per test)"
        )
    if not by_desc:
        notes.append(
            f"{path}: tests are named by the testIdx of their first run (descriptions are missing, "
            "repeat across tests or hold line breaks)"
        )
    return notes


def _span(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo} to {hi}"


register_reader("promptfoo", read_promptfoo, sniff=_sniff.promptfoo, priority=17)
