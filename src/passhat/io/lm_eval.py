"""lm-evaluation-harness ``--log_samples`` output: ``samples_<task>_<date>.jsonl`` files.

The shapes read here are lm-eval's own (EleutherAI/lm-evaluation-harness:
``lm_eval/result_schema.py``, ``SampleResult`` and ``EvalResults``; the file names from
``lm_eval/loggers/evaluation_tracker.py``, ``save_results_samples`` and
``save_results_aggregated``):

* ``<output_path>/<model_name_sanitized>/samples_<task>_<date>.jsonl``: one JSON object per
  document **and filter**, with ``doc_id`` (the document's index in the split), ``filter``
  (``none``, ``strict-match``, ...), ``metrics`` (the metric names computed, e.g.
  ``["acc", "acc_norm"]``) and one value per metric;
* ``results_<date>.json`` beside it (same ``<date>``): ``model_name``, ``config.model_args``,
  ``configs[task].repeats`` and the aggregated ``results[task]["<metric>,<filter>"]``.

Mapping: the **task** is ``doc_id`` (``<lm-eval task>/<doc_id>`` with the lm-eval task as the
``category`` when several lm-eval tasks are read); the **trial** is the run: samples files of
one model and lm-eval task written at different dates are its repeated runs (trial 0, 1, ... by
date); the **system** is the model name from the results file (``model_name``, else
``pretrained=`` / ``model=`` of ``config.model_args``), else the model directory's name.

Success: the chosen metric (``metric=``, default the first of the file's ``metrics``) under
the chosen filter (``filter=``, default the first the file holds) when its values are 0/1
(``acc``, ``exact_match``); other values (``f1``, ``bleu``) need ``threshold=``. A document
without a value for the metric is unscored (status ``no_score``).

What the format cannot give: with ``repeats`` > 1 in a task's config the K responses of a
document sit in ``resps`` but the file keeps **one** score per document (after the filter's
reduction, e.g. a majority vote); passhat reads that one score as one run and says so in a note.
Repeated runs come from running lm-eval several times (e.g. with different ``--seed``).

Examples
--------
>>> import json, os, tempfile
>>> import passhat as ph
>>> d = tempfile.mkdtemp()
>>> rows = [{"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": float(i < 3),
...          "resps": [[["-1.0", "False"]]], "filtered_resps": [["-1.0", "False"]]}
...         for i in range(4)]
>>> f = os.path.join(d, "samples_arc_easy_2025-01-02T03-04-05.123456.jsonl")
>>> _ = open(f, "w").write("\\n".join(json.dumps(r) for r in rows))
>>> t = ph.read_trials(f, system_name="pythia")
>>> t.systems, len(t), int(t.counts()["c"].sum())
(['pythia'], 4, 3)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passhat.errors import FormatError, OptionError
from passhat.io import _sniff
from passhat.io._json import jsonl_objects, load_json, records_frame
from passhat.io._registry import register_reader
from passhat.io._scan import unread_note
from passhat.io._scores import as_dict, check_threshold, json_score, verdicts
from passhat.trials import Trials

__all__ = ["read_lm_eval", "samples_files"]

_NAME = _sniff.LM_EVAL_SAMPLES
#: Keys of a logged sample that are not metric values (lm_eval/result_schema.py SampleResult).
_FIXED = frozenset(
    {
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "filter",
        "metrics",
        "doc_hash",
        "prompt_hash",
        "target_hash",
    }
)
_WHAT = "lm-evaluation-harness samples file"
#: lm-eval's metric of a run that computed none (``--predict_only``): every value is 999.
_BYPASS = "bypass"


@dataclass
class _Run:
    """One samples file: an lm-eval task's documents scored in one run of one model."""

    path: Path
    task: str
    date: str
    records: list[tuple[int, dict[str, Any]]]
    results: dict[str, Any] = field(default_factory=dict)
    system: str = ""
    system_from: str = ""


_RESULTS = _sniff.LM_EVAL_RESULTS


def samples_files(path: Path) -> list[Path]:
    """The samples files a path names: itself, the ``samples_*.jsonl`` of a directory, or
    those of its subdirectories (lm-eval's output path holds one directory per model); a
    ``results_<date>.json`` names the samples files of its run."""
    if path.is_file():
        m = _RESULTS.match(path.name)
        if not m:
            return [path]
        found = sorted(path.parent.glob(f"samples_*_{m.group('date')}.jsonl*"))
        if not found:
            raise FormatError(
                f"{path}: lm-eval's aggregated results, without the per-document samples of "
                "its run beside it; per-document outcomes are written by lm_eval "
                "--log_samples as samples_<task>_<date>.jsonl: give those (or their directory)"
            )
        return found
    direct = sorted(q for q in path.glob("samples_*.jsonl*") if q.is_file())
    if direct:
        return direct
    return sorted(q for q in path.glob("*/samples_*.jsonl*") if q.is_file())


def _results_of(sample: Path, date: str) -> tuple[dict[str, Any], Path | None]:
    """The aggregated results file of the same run (same date), if it is there: lm-eval's
    ``results_<date>.json`` (refused when it is not one), else ``<name>_<date>.json`` (what
    ``--output_path NAME.json`` writes)."""
    own = sample.parent / f"results_{date}.json"
    for cand in [own, *sorted(sample.parent.glob(f"*_{date}.json"))]:
        if not cand.is_file() or cand == sample:
            continue
        doc = load_json(cand, expected="lm-evaluation-harness results file")
        if isinstance(doc, dict) and isinstance(doc.get("results"), dict):
            name = doc.get("model_name")
            if name is not None and not (isinstance(name, str) and name.strip()):
                raise FormatError(f"{cand}: model_name {name!r} is not a model name")
            return doc, cand
        if cand == own:
            raise FormatError(
                f"{cand}: not an lm-eval results file (no 'results' object); it is named as the "
                f"results of {sample.name}: fix or move it"
            )
    return {}, None


def _model_of(results: dict[str, Any]) -> str | None:
    """The model name lm-eval recorded: ``model_name``, else ``model_args``' model key."""
    name = results.get("model_name")
    if isinstance(name, str) and name.strip():
        return name
    config = as_dict(results.get("config"))
    args = config.get("model_args")
    keys = ("peft", "delta", "pretrained", "model", "path", "engine")  # lm-eval's own order
    if isinstance(args, dict):
        found = next((args[k] for k in keys if k in args), None)
        return str(found) if found is not None else None
    if isinstance(args, str):
        for key in keys:
            m = re.search(rf"(?:^|,)\s*{key}=([^,]+)", args)
            if m:
                return m.group(1).strip()
    return None


def _load_run(sample: Path, system_name: str | None) -> _Run:
    m = _NAME.match(sample.name)
    task, date = (m.group("task"), m.group("date")) if m else (sample.name.split(".")[0], "")
    records = jsonl_objects(sample)
    if not records:
        raise FormatError(f"{sample}: the {_WHAT} holds no samples")
    results, _ = _results_of(sample, date) if date else ({}, None)
    run = _Run(sample, task, date, records, results)
    for lineno, rec in records:
        _check_record(run, lineno, rec)
    found = _model_of(results)
    if system_name:
        run.system, run.system_from = system_name, "option"
    elif found:
        run.system, run.system_from = found, "results file"
    else:
        run.system, run.system_from = sample.parent.name, "directory name"
    return run


def _check_record(run: _Run, lineno: int, rec: dict[str, Any]) -> None:
    where = f"{run.path}: line {lineno}"
    if "doc_id" not in rec:
        keys = ", ".join(map(str, list(rec)[:8]))
        raise FormatError(
            f"{where}: not an lm-eval logged sample (no doc_id; keys: {keys}); write the "
            "samples with lm_eval --log_samples"
        )
    doc_id = rec["doc_id"]
    if isinstance(doc_id, bool) or not isinstance(doc_id, int | str):
        raise FormatError(f"{where}: doc_id {doc_id!r} is not a document index (a whole number)")
    if "filter" in rec and not isinstance(rec["filter"], str):
        raise FormatError(f"{where}: filter {rec['filter']!r} is not a filter name (text)")
    if "metrics" in rec and not (
        isinstance(rec["metrics"], list) and all(isinstance(x, str) for x in rec["metrics"])
    ):
        raise FormatError(f"{where}: metrics {rec['metrics']!r} is not a list of metric names")


def _metric_names(rec: dict[str, Any]) -> list[str]:
    if isinstance(rec.get("metrics"), list):
        return list(rec["metrics"])
    return [k for k, v in rec.items() if k not in _FIXED and isinstance(v, int | float)]


@dataclass(frozen=True)
class _Choice:
    """What is read of one lm-eval task: its metric and filter, and what else it holds."""

    metric: str
    filter: str | None
    metrics: tuple[str, ...]
    filters: tuple[str | None, ...]


def _choose(
    runs: list[_Run], metric: str | None, filt: str | None, where: Path
) -> dict[str, _Choice]:
    """Per lm-eval task, the metric and filter read (the task's first when not given)."""
    out: dict[str, _Choice] = {}
    for task in dict.fromkeys(r.task for r in runs):
        recs = [rec for r in runs if r.task == task for _, rec in r.records]
        filters = tuple(dict.fromkeys(rec.get("filter") for rec in recs))
        metrics = tuple(dict.fromkeys(m for rec in recs for m in _metric_names(rec)))
        if filt is not None and filt not in filters:
            shown = ", ".join(str(f) for f in filters)
            raise OptionError(
                f"{where}: filter {filt!r} is not in the samples of lm-eval task {task!r} "
                f"(filters: {shown}); read tasks with other filters apart"
            )
        if metric is not None and metric not in metrics:
            raise OptionError(
                f"{where}: metric {metric!r} is not in the samples of lm-eval task {task!r} "
                f"(metrics: {', '.join(metrics) or 'none'}); read tasks with other metrics apart"
            )
        if not metrics:
            raise FormatError(
                f"{where}: the samples of lm-eval task {task!r} hold no metric values "
                "(no 'metrics' list)"
            )
        chosen = metric if metric is not None else metrics[0]
        if chosen == _BYPASS:
            raise FormatError(
                f"{where}: the samples of lm-eval task {task!r} hold no scores: metric 'bypass' "
                "is lm-eval's placeholder (999) of a run with --predict_only or a task without "
                "metrics; score the responses (run lm_eval without --predict_only)"
            )
        out[task] = _Choice(chosen, filt if filt is not None else filters[0], metrics, filters)
    return out


def _rows(run: _Run, metric: str, filt: str | None, trial: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    seen: dict[Any, int] = {}
    for lineno, rec in run.records:
        if rec.get("filter") != filt:
            continue
        doc_id = rec["doc_id"]
        if doc_id in seen:
            raise FormatError(
                f"{run.path}: lines {seen[doc_id]} and {lineno} both hold doc_id {doc_id!r} "
                f"under filter {filt!r}: one document scored twice in one run; fix the file"
            )
        seen[doc_id] = lineno
        what = f"metric {metric!r} (doc_id {doc_id!r})"
        value = rec.get(metric)
        if isinstance(value, list | dict):  # bleu, chrf, ...: items of a corpus-level aggregate
            raise FormatError(
                f"{run.path}: line {lineno}: {what} holds items lm-eval aggregates over the "
                "corpus, not a per-document score; choose a per-document metric with --map "
                f"metric=NAME (metrics: {', '.join(_metric_names(rec))})"
            )
        score = json_score(value, f"{run.path}: line {lineno}", what)
        rows.append({"doc_id": doc_id, "trial": trial, "score": score, "line": lineno})
    return rows


def _trial_numbers(runs: list[_Run]) -> list[int]:
    """Runs of one model and lm-eval task numbered 0, 1, ... by date (then file name)."""
    order = sorted(range(len(runs)), key=lambda i: (runs[i].date, runs[i].path.name))
    count: dict[tuple[str, str], int] = {}
    out = [0] * len(runs)
    for i in order:
        key = (runs[i].system, runs[i].task)
        out[i] = count.get(key, 0)
        count[key] = out[i] + 1
    return out


def _repeats_note(runs: list[_Run]) -> str | None:
    """The note for tasks run with lm-eval's ``repeats`` > 1 (one score kept per document)."""
    found: dict[str, int] = {}
    for r in runs:
        k = as_dict(as_dict(r.results.get("configs")).get(r.task)).get("repeats")
        if isinstance(k, bool) or not isinstance(k, int):
            resps = r.records[0][1].get("resps")
            first = resps[0] if isinstance(resps, list) and resps else None
            k = len(first) if isinstance(first, list) else 1
        if k > 1:
            found[r.task] = k
    if not found:
        return None
    shown = ", ".join(f"{t} (repeats={k})" for t, k in found.items())
    return (
        f"lm-eval task(s) {shown}: the samples file keeps one filtered score per document (the "
        "filter's reduction of its repeated responses), so each document is read as one run; "
        "per-repeat outcomes are not in the file. Run lm-eval several times (e.g. --seed) "
        "for repeated runs"
    )


def read_lm_eval(
    path: Path,
    *,
    metric: str | None = None,
    filter: str | None = None,
    threshold: float | None = None,
    system_name: str | None = None,
) -> Trials:
    """Read lm-evaluation-harness logged samples into trials.

    Parameters
    ----------
    path : Path
        A ``samples_<task>_<date>.jsonl`` file, a model directory holding such files (and
        their ``results_<date>.json``), or lm-eval's output directory (one model per
        subdirectory).
    metric : str, optional
        The per-sample metric that decides success (default: the first in ``metrics``).
    filter : str, optional
        The filter whose scores are read (default: the first in the file).
    threshold : float, optional
        Success is ``metric ≥ threshold``; needed when the metric is not 0/1.
    system_name : str, optional
        Overrides the model name from the results file.

    Returns
    -------
    Trials
        ``task_id`` (``doc_id``), ``trial`` (run by date), ``score`` (the metric value),
        ``status`` ``ok`` or ``no_score``; ``category`` (the lm-eval task) with several.

    Examples
    --------
    See the module docstring.
    """
    path = Path(path)
    threshold = check_threshold(threshold, str(path))
    files = samples_files(path)
    if not files:
        raise FormatError(
            f"{path}: a directory without lm-eval samples files (samples_<task>_<date>.jsonl); "
            "run lm_eval with --log_samples --output_path DIR"
        )
    runs = [_load_run(f, system_name) for f in files]
    choice = _choose(runs, metric, filter, path)
    several = len(choice) > 1
    frames = []
    for run, trial in zip(runs, _trial_numbers(runs), strict=True):
        ch = choice[run.task]
        rows = _rows(run, ch.metric, ch.filter, trial)
        if not rows:
            held = ", ".join(dict.fromkeys(str(rec.get("filter")) for _, rec in run.records))
            raise FormatError(
                f"{run.path}: no sample under filter {ch.filter!r}, which other runs of "
                f"lm-eval task {run.task!r} have (this file's filters: {held}); runs of one task "
                "must share their filters"
            )
        df = records_frame(rows)
        df["system"], df["lm_eval_task"] = run.system, run.task
        df["success"] = pd.array(
            verdicts(
                df["score"].to_numpy(dtype=float, na_value=np.nan),
                threshold=threshold,
                where=str(run.path),
                what=f"metric {ch.metric!r}",
            ),
            dtype="boolean",
        )
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    df["task_id"] = df["lm_eval_task"] + "/" + df["doc_id"].astype(str) if several else df["doc_id"]
    if several:
        df["category"] = df["lm_eval_task"]
    df["status"] = np.where(df["score"].isna(), "no_score", "ok")
    df = df.drop(columns=["doc_id", "line"])
    source = _source(runs, choice, threshold)
    trials = Trials.from_frame(df, where=str(path), source=source)
    trials.notes.extend(_notes(path, runs, choice))
    if path.is_dir():
        unread = unread_note(path, files, tables_only=True, what="lm-eval samples files")
        trials.notes.extend([unread] if unread else [])
    return trials


def _source(
    runs: list[_Run], choice: dict[str, _Choice], threshold: float | None
) -> dict[str, Any]:
    """Provenance: what was read, and lm-eval's own aggregate of it per run (the oracle)."""
    reported = []
    for r in runs:
        ch = choice[r.task]
        key = f"{ch.metric},{ch.filter}" if ch.filter is not None else ch.metric
        value = as_dict(as_dict(r.results.get("results")).get(r.task)).get(key)
        reported.append({"file": r.path.name, "system": r.system, "task": r.task, key: value})
    return {
        "system_from": runs[0].system_from,
        "read": {t: {"metric": c.metric, "filter": c.filter} for t, c in choice.items()},
        "threshold": threshold,
        "runs": reported,
    }


def _notes(path: Path, runs: list[_Run], choice: dict[str, _Choice]) -> list[str]:
    notes = []
    for task, ch in choice.items():
        others = [m for m in ch.metrics if m != ch.metric]
        filters = [str(f) for f in ch.filters if f != ch.filter]
        also = ([f"metrics {', '.join(others)}"] if others else []) + (
            [f"filters {', '.join(filters)}"] if filters else []
        )
        if also:
            how = " / ".join(
                f"--map {w}=NAME" for w, a in (("metric", others), ("filter", filters)) if a
            )
            notes.append(
                f"{path}: lm-eval task {task}: read metric {ch.metric!r} under filter "
                f"{ch.filter!r} (its samples also have {' and '.join(also)}; choose with {how})"
            )
    counts: dict[str, set[int]] = {}
    per: dict[tuple[str, str], int] = {}
    for r in runs:
        per[(r.system, r.task)] = per.get((r.system, r.task), 0) + 1
    for (_, task), n in per.items():
        counts.setdefault(task, set()).add(n)
    repeated = [f"{t}: {'/'.join(map(str, sorted(ns)))}" for t, ns in counts.items() if max(ns) > 1]
    if repeated:
        notes.append(
            f"{path}: samples files of one model and lm-eval task written at different dates are "
            f"its repeated runs, numbered by date (runs per model: {', '.join(repeated)})"
        )
    repeats = _repeats_note(runs)
    if repeats:
        notes.append(repeats)
    return notes


register_reader(
    "lm-eval",
    read_lm_eval,
    sniff=_sniff.with_directories(_sniff.lm_eval, lambda path: bool(samples_files(path))),
    priority=12,
    aliases=("lm-evaluation-harness",),
)
