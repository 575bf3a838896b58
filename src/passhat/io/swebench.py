"""SWE-bench results: the harness's run reports and the experiments repository's results.

Two layouts, both SWE-bench's own:

* **Harness run report** ``<model>.<run_id>.json`` (SWE-bench/SWE-bench
  ``swebench/harness/reporting.py``, ``make_run_report``; the model is
  ``model_name_or_path`` with ``/`` written ``__``): ``resolved_ids``, ``unresolved_ids``,
  ``empty_patch_ids``, ``error_ids``, ``incomplete_ids``, ``submitted_ids``, and from
  ``schema_version`` 2 ``infra_failure_ids`` / ``ambiguous_failure_ids`` with
  ``failure_reasons``. Several run files of one model (``gpt-4o.run1.json``,
  ``gpt-4o.run2.json``) are its repeated runs: trial 0, 1, ... in run-id order.
* **Experiments layout** ``evaluation/<split>/<submission>/results/results.json``
  (SWE-bench/experiments): ``resolved``, ``no_generation``, ``no_logs`` (older submissions
  also ``generated``, ``with_logs``, ``install_fail``, ``reset_failed``, ``no_apply``,
  ``applied``, ``test_errored``, ``test_timeout``). The system is the submission's directory
  name; a split directory of submissions reads one system per submission.

Mapping: the **task** is the ``instance_id``; the **system** the model (file name) or the
submission. Verdicts: resolved = success; unresolved, an empty patch (``empty_patch``), no
generation (``no_generation``), a patch that did not apply (``no_apply``) and test errors or
timeouts are failures of the system. **Unscored** (left out of n, status named): ``error``
(the harness could not evaluate the instance), ``infra_failure`` (the harness's own
environment-tier classification, ``failure_reasons`` kept in ``failure_reason``), and
``no_logs``, ``install_fail``, ``reset_failed``. SWE-bench's own resolved rate divides by all
instances; passhat's n leaves the unscored ones out, and says how many.

The current experiments ``results.json`` lists only resolved and failed-to-run ids: the
unresolved ones are the rest of the split, which the file does not name. Give the split's
instance ids with ``instances=`` (a file: a JSON list, JSON lines with ``instance_id``, or one
id per line); instances a harness report lists as ``incomplete_ids`` (no prediction) were not
run and are counted in a note.

Examples
--------
>>> import json, os, tempfile
>>> import passhat as ph
>>> d = tempfile.mkdtemp()
>>> report = {"resolved_ids": ["a__a-1"], "unresolved_ids": ["a__a-2"], "error_ids": ["a__a-3"],
...           "empty_patch_ids": [], "incomplete_ids": [], "submitted_ids": ["a__a-1", "a__a-2",
...           "a__a-3"], "completed_ids": ["a__a-1", "a__a-2"]}
>>> f = os.path.join(d, "gpt-4o.run1.json")
>>> _ = open(f, "w").write(json.dumps(report))
>>> t = ph.read_trials(f)
>>> t.systems, t.frame["status"].tolist()
(['gpt-4o'], ['ok', 'ok', 'error'])
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from passhat.errors import FormatError, OptionError
from passhat.io import _sniff
from passhat.io._json import jsonl_objects, load_json
from passhat.io._registry import file_head, register_reader
from passhat.io._scan import unread_note
from passhat.io._scores import as_dict
from passhat.trials import Trials

__all__ = ["read_swebench", "report_files"]

#: Harness report lists → (success, status); earlier entries win for an id in two lists.
REPORT_OUTCOMES: tuple[tuple[str, bool | None, str], ...] = (
    ("resolved_ids", True, "ok"),
    ("unresolved_ids", False, "ok"),
    ("empty_patch_ids", False, "empty_patch"),
    ("error_ids", None, "error"),
)
#: Experiments results.json lists → (success, status), first match wins.
EXPERIMENT_OUTCOMES: tuple[tuple[str, bool | None, str], ...] = (
    ("resolved", True, "ok"),
    ("no_generation", False, "no_generation"),
    ("no_logs", None, "no_logs"),
    ("install_fail", None, "install_fail"),
    ("reset_failed", None, "reset_failed"),
    ("no_apply", False, "no_apply"),
    ("test_timeout", False, "test_timeout"),
    ("test_errored", False, "test_errored"),
)
_EXPERIMENT_KEYS = frozenset(k for k, _, _ in EXPERIMENT_OUTCOMES) | {
    "generated",
    "with_logs",
    "applied",
}


def _is_report(doc: Any) -> bool:
    return isinstance(doc, dict) and "resolved_ids" in doc and "unresolved_ids" in doc


def _is_experiment(doc: Any) -> bool:
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("resolved"), list)
        and bool(set(doc) & (_EXPERIMENT_KEYS - {"resolved"}))
        and set(doc) <= _EXPERIMENT_KEYS
    )


def _head_kind(path: Path) -> str | None:
    """``report`` or ``experiment`` for a JSON file of either shape (read from its head)."""
    try:
        head = file_head(path)  # gzip looked through
    except (OSError, FormatError):
        return None
    if '"resolved_ids"' in head and '"unresolved_ids"' in head:
        return "report"
    if any(f'"{k}_ids"' in head for k in ("resolved", "unresolved", "completed", "submitted")):
        return "partial"  # a damaged or cut report: read, so that it is refused by name
    if '"resolved"' in head and any(
        f'"{k}"' in head for k in ("no_generation", "no_logs", "generated")
    ):
        return "experiment"
    if '"patch_successfully_applied"' in head and '"resolved"' in head:
        return "instance"
    return None


def report_files(path: Path) -> tuple[str, list[Path]]:
    """The kind (``report`` / ``experiment``) and the files a path names: a file, a directory
    of run reports, a submission (``results/results.json``), or a split of submissions."""
    if path.is_file():
        kind = _head_kind(path)
        return ("report" if kind == "partial" else kind or ""), [path] if kind else []
    jsons = sorted(q for q in [*path.glob("*.json"), *path.glob("*.json.gz")] if q.is_file())
    kinds = [_head_kind(q) for q in jsons]
    if "report" in kinds:
        models = {_model_and_run(q)[0] for q, k in zip(jsons, kinds, strict=True) if k == "report"}
        # a damaged report (cut, emptied) is read, so that it is refused by name: one that keeps
        # a report key, or is named as another run of a model whose reports are here
        return "report", [
            q
            for q, k in zip(jsons, kinds, strict=True)
            if k in ("report", "partial") or _model_and_run(q)[0] in models
        ]
    for pattern in ("results.json", "results/results.json", "*/results/results.json"):
        found = sorted(q for q in path.glob(pattern) if q.is_file())
        if any(_head_kind(q) == "experiment" for q in found):
            return "experiment", found  # every one is read: a damaged one is refused by name
    for depth in range(5):  # logs/run_evaluation/<run_id>/<model>/<instance>/report.json
        found = sorted(q for q in path.glob("*/" * depth + "report.json") if q.is_file())
        if any(_head_kind(q) == "instance" for q in found[:20]):
            return "instance", found
    return "", []


def _ids(doc: dict[str, Any], key: str, where: Path) -> list[str]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise FormatError(f"{where}: {key} must be a list of instance ids (text)")
    return value


def _model_and_run(f: Path) -> tuple[str, str]:
    """``<model>.<run_id>.json`` split at the last dot (model names often hold dots)."""
    stem = f.name.removesuffix(".gz").removesuffix(".json")
    model, dot, run_id = stem.rpartition(".")
    return (model, run_id) if dot and model else (stem, "")


def _outcomes(
    f: Path, doc: dict[str, Any], table: Iterable[tuple[str, bool | None, str]]
) -> dict[str, tuple[bool | None, str]]:
    out: dict[str, tuple[bool | None, str]] = {}
    for key, success, status in table:
        for iid in _ids(doc, key, f):
            out.setdefault(iid, (success, status))
    return out


def _report_rows(f: Path, doc: Any, system: str, trial: int) -> tuple[list[dict[str, Any]], int]:
    if not _is_report(doc):
        raise FormatError(f"{f}: not a SWE-bench run report (no resolved_ids / unresolved_ids)")
    seen: dict[str, str] = {}
    for key, _, _ in REPORT_OUTCOMES:
        for iid in _ids(doc, key, f):
            if iid in seen:
                raise FormatError(f"{f}: instance {iid!r} is in both {seen[iid]} and {key}")
            seen[iid] = key
    outcome = _outcomes(f, doc, REPORT_OUTCOMES)
    infra = set(_ids(doc, "infra_failure_ids", f))
    reasons = as_dict(doc.get("failure_reasons"))
    rows = []
    for iid, (success, status) in outcome.items():
        if iid in infra:
            success, status = None, "infra_failure"
        rows.append(
            {
                "system": system,
                "task_id": iid,
                "trial": trial,
                "success": success,
                "status": status,
                "failure_reason": reasons.get(iid),
            }
        )
    return rows, len(_ids(doc, "incomplete_ids", f))


def _experiment_rows(
    f: Path, doc: Any, system: str, instances: list[str] | None
) -> list[dict[str, Any]]:
    if not _is_experiment(doc):
        raise FormatError(
            f"{f}: not a SWE-bench experiments results.json (expected lists such as resolved, "
            "no_generation, no_logs)"
        )
    outcome = _outcomes(f, doc, EXPERIMENT_OUTCOMES)
    if "generated" in doc:  # older layout: generated ∖ with_logs have no logs
        logs = set(_ids(doc, "with_logs", f)) if "with_logs" in doc else None
        for iid in _ids(doc, "generated", f):
            if logs is not None and iid not in logs:
                outcome.setdefault(iid, (None, "no_logs"))
            outcome.setdefault(iid, (False, "ok"))
    elif instances is None:
        raise OptionError(
            f"{f}: results.json lists resolved ({len(_ids(doc, 'resolved', f))}), no_generation "
            "and no_logs instances only; the unresolved ones are the rest of the split, which "
            "the file does not name: give the split's instance ids with --map "
            "instances=FILE (a JSON list, JSON lines with instance_id, or one id per line)"
        )
    if instances is not None:
        known = set(instances)
        unknown = [i for i in outcome if i not in known]
        if unknown:
            raise FormatError(
                f"{f}: instance {unknown[0]!r} ({len(unknown)} in all) is not in the instance "
                "list given: a list of another split?"
            )
        for iid in instances:
            outcome.setdefault(iid, (False, "ok"))
    return [
        {"system": system, "task_id": i, "trial": 0, "success": s, "status": st}
        for i, (s, st) in outcome.items()
    ]


def load_instances(path: str | Path) -> list[str]:
    """Instance ids from a file: a JSON list (of ids or of objects with ``instance_id``), JSON
    lines with ``instance_id``, or one id per line."""
    p = Path(path)
    if not p.is_file():
        raise OptionError(f"instances={str(path)!r}: no such file (a list of instance ids)")
    text = p.read_text(encoding="utf-8-sig", errors="replace").lstrip()
    if text.startswith("["):
        doc = load_json(p, expected="list of instance ids")
        items = [d.get("instance_id") if isinstance(d, dict) else d for d in doc]
    elif text.startswith("{"):
        items = [obj.get("instance_id") for _, obj in jsonl_objects(p)]
    else:
        items = [ln.strip() for ln in text.splitlines() if ln.strip()]
    ids = [x for x in items if isinstance(x, str) and x]
    if len(ids) < len(items) or not ids:
        bad = next((x for x in items if not isinstance(x, str) or not x), None)
        raise FormatError(f"{p}: not a list of instance ids (found {bad!r})")
    return list(dict.fromkeys(ids))


def read_swebench(
    path: Path, *, instances: str | None = None, system_name: str | None = None
) -> Trials:
    """Read SWE-bench run reports or experiments results into trials.

    Parameters
    ----------
    path : Path
        A run report ``<model>.<run_id>.json``, a directory of them, an experiments
        ``results.json``, a submission directory, or a split directory of submissions.
    instances : str, optional
        A file listing the split's instance ids (needed by experiments results that list only
        resolved and failed-to-run ids).
    system_name : str, optional
        Overrides the model / submission name (for one system only).

    Returns
    -------
    Trials
        ``task_id`` (instance id), ``trial`` (run file), ``status`` (``ok``, ``empty_patch``,
        ``error``, ``infra_failure``, ``no_generation``, ``no_logs``, ...), ``swebench_run``.
    """
    path = Path(path)
    kind, files = report_files(path)
    if not files:
        raise FormatError(
            f"{path}: no SWE-bench results (a run report <model>.<run_id>.json with resolved_ids, "
            "or an experiments results/results.json)"
        )
    if kind == "instance":
        raise FormatError(
            f"{path}: SWE-bench's per-instance logs (logs/run_evaluation/<run_id>/<model>/"
            "<instance>/report.json); they leave out the instances whose patch was empty (never "
            "run, yet failures) and those that errored, so passhat reads the run report the "
            "harness writes beside them: <model>.<run_id>.json in the directory it ran from "
            "(one per run; give those files or their directory)"
        )
    ids = load_instances(instances) if instances is not None else None
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    if kind == "report":
        counts: dict[str, int] = {}
        for f in sorted(files, key=lambda q: _model_and_run(q)[::-1]):
            model, run_id = _model_and_run(f)
            trial = counts.get(model, 0)
            counts[model] = trial + 1
            new, incomplete = _report_rows(
                f, load_json(f, expected="SWE-bench run report"), model, trial
            )
            rows += [{**r, "swebench_run": run_id} for r in new]
            if incomplete:
                notes.append(f"{f.name} ({incomplete})")
        if notes:
            notes = [
                f"{path}: instances of the dataset without a prediction (incomplete_ids) were not "
                f"run and are not read: {', '.join(notes[:4])}{' ...' if len(notes) > 4 else ''}"
            ]
    else:
        for f in files:
            submission = f.parent.parent.name if f.parent.name == "results" else f.parent.name
            rows += _experiment_rows(
                f, load_json(f, expected="SWE-bench results.json"), submission, ids
            )
    if kind == "report" and path.is_dir():
        others = [*path.glob("*.json"), *path.glob("*.json.gz")]
        skipped = sorted(q.name for q in others if q.is_file() and q not in files)
        if skipped:
            notes.append(
                f"{path}: not read, not SWE-bench run reports: {', '.join(skipped[:5])}"
                + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
            )
    df = pd.DataFrame(rows)
    if system_name is not None:
        if df["system"].nunique() > 1:
            raise OptionError(f"{path}: the files hold several systems; --system-name names one")
        df["system"] = system_name
    if "failure_reason" in df.columns and df["failure_reason"].isna().all():
        df = df.drop(columns="failure_reason")
    df["success"] = df["success"].astype("boolean")
    source = {
        "layout": kind,
        "system_from": "option"
        if system_name
        else ("file name" if kind == "report" else "submission directory"),
        "files": [
            f.name if kind == "report" else str(f.relative_to(path) if f != path else f.name)
            for f in files
        ],
    }
    trials = Trials.from_frame(df, where=str(path), source=source)
    trials.notes.extend(notes)
    unread = (
        unread_note(path, [], tables_only=True, what="SWE-bench results") if path.is_dir() else None
    )
    trials.notes.extend([unread] if unread else [])
    return trials


register_reader(
    "swe-bench",
    read_swebench,
    sniff=_sniff.with_directories(_sniff.swebench, lambda path: bool(report_files(path)[1])),
    priority=16,
    aliases=("swebench",),
)
