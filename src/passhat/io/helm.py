"""HELM run outputs: ``benchmark_output/runs/<suite>/<run>/per_instance_stats.json``.

The shapes read here are HELM's own (stanford-crfm/helm): ``PerInstanceStats`` in
``src/helm/benchmark/metrics/metric.py`` (``instance_id``, ``perturbation``,
``train_trial_index``, ``stats``), ``Stat`` in ``metrics/statistic.py`` (``name``, ``count``,
``sum``, ``mean``, ...) with a ``MetricName`` (``name``, ``split``, ``sub_split``,
``perturbation``) from ``metrics/metric_name.py``; ``runner.py`` writes
``per_instance_stats.json``, ``stats.json`` and ``run_spec.json`` into each run directory, named
after the run spec (``mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2``,
``/`` written as ``_``).

Mapping: the **task** is ``instance_id`` (``<scenario>/<instance_id>``, with the scenario as the
``category``, when several scenarios are read); the **trial** is ``train_trial_index`` (HELM's
replications with different in-context examples); the **system** is the model
(``adapter_spec.model`` of ``run_spec.json``, else ``model=`` of the run name). The scenario is
the run name without its ``model=`` argument.

Success: the chosen stat (``stat=``; default the first of ``exact_match``,
``quasi_exact_match``, ``prefix_exact_match``, ``quasi_prefix_exact_match`` the run has) when
its per-instance values are 0/1; other stats need ``threshold=``. An instance without the stat
(HELM drops NaN stats before writing) is unscored, status ``no_stat``. Instances with a
``perturbation`` (robustness and fairness variants) are other inputs than the original
instance: they are read only when named (``perturbation=NAME``), else counted in a note.

Examples
--------
>>> import json, os, tempfile
>>> import passhat as ph
>>> run = os.path.join(tempfile.mkdtemp(), "boolq:model=openai_gpt2")
>>> os.mkdir(run)
>>> stat = lambda x: {"name": {"name": "exact_match", "split": "valid"}, "count": 1,
...                   "sum": x, "mean": x}
>>> doc = [{"instance_id": f"id{i}", "train_trial_index": t, "stats": [stat(float(i != t))]}
...        for i in range(3) for t in range(2)]
>>> _ = open(os.path.join(run, "per_instance_stats.json"), "w").write(json.dumps(doc))
>>> t = ph.read_trials(run)
>>> t.systems, len(t), int(t.counts()["c"].sum())
(['openai_gpt2'], 6, 4)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passhat.errors import FormatError, OptionError
from passhat.io import _sniff
from passhat.io._json import load_json, records_frame
from passhat.io._registry import register_reader
from passhat.io._scan import unread_note
from passhat.io._scores import check_threshold, json_score, verdicts
from passhat.trials import Trials

__all__ = ["parse_run_name", "read_helm", "stats_files"]

#: HELM's correctness stats, in the order a default is taken.
DEFAULT_STATS = (
    "exact_match",
    "quasi_exact_match",
    "prefix_exact_match",
    "quasi_prefix_exact_match",
)
_FILE = _sniff.HELM_FILE
#: Files HELM writes beside per_instance_stats.json in a run directory.
_RUN_FILES = _sniff.HELM_RUN_FILES
_WHAT = "HELM per_instance_stats.json"


@dataclass
class _Run:
    path: Path
    name: str
    scenario: str
    system: str
    system_from: str
    entries: list[dict[str, Any]] = field(default_factory=list)


def stats_files(path: Path) -> list[Path]:
    """The ``per_instance_stats.json`` files a path names: itself, a run directory's, or those
    of the run directories of a suite (or of the suites of a ``runs`` directory, or of HELM's
    output directory, ``benchmark_output/runs/<suite>/<run>``)."""
    if path.is_file():  # the run's other files (stats.json, run_spec.json, ...) name the run
        sibling = path.parent / _FILE
        return [sibling if path.name in _RUN_FILES and sibling.is_file() else path]
    if (path / _FILE).is_file():
        return [path / _FILE]
    found = sorted(q for q in path.glob(f"*/{_FILE}") if q.is_file())
    found = found or sorted(q for q in path.glob(f"*/*/{_FILE}") if q.is_file())
    return found or sorted(q for q in path.glob(f"runs/*/*/{_FILE}") if q.is_file())


def parse_run_name(name: str) -> tuple[str, dict[str, str]]:
    """A HELM run name as (scenario, arguments); the scenario keeps every argument but the
    model's.

    Examples
    --------
    >>> parse_run_name("mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2")
    ('mmlu:subject=anatomy,method=multiple_choice_joint', {'subject': 'anatomy', \
'method': 'multiple_choice_joint', 'model': 'openai_gpt2'})
    """
    head, _, tail = name.partition(":")
    args: dict[str, str] = {}
    for part in tail.split(",") if tail else []:
        key, _, value = part.partition("=")
        args[key.strip()] = value.strip()
    kept = [f"{k}={v}" for k, v in args.items() if k not in ("model", "model_deployment")]
    return (f"{head}:{','.join(kept)}" if kept else head), args


def _load_run(f: Path, system_name: str | None) -> _Run:
    doc = load_json(f, expected=_WHAT)
    if not isinstance(doc, list):
        keys = f" with keys {', '.join(map(str, list(doc)[:6]))}" if isinstance(doc, dict) else ""
        raise FormatError(
            f"{f}: not a {_WHAT} (expected a JSON list of per-instance stats, got a JSON "
            f"{type(doc).__name__}{keys})"
        )
    if not doc:
        raise FormatError(f"{f}: the {_WHAT} holds no instances (was the run skipped?)")
    name = f.parent.name
    scenario, args = parse_run_name(name)
    spec_path = f.parent / "run_spec.json"
    spec = load_json(spec_path, expected="HELM run_spec.json") if spec_path.is_file() else {}
    adapter = spec.get("adapter_spec") if isinstance(spec, dict) else None
    if adapter is not None and not isinstance(adapter, dict):
        raise FormatError(f"{spec_path}: adapter_spec must be an object (HELM's AdapterSpec)")
    model = adapter.get("model") if isinstance(adapter, dict) else None
    if model is not None and not (isinstance(model, str) and model.strip()):
        raise FormatError(f"{spec_path}: adapter_spec.model {model!r} is not a model name")
    if system_name:
        system, how = system_name, "option"
    elif isinstance(model, str) and model:
        system, how = model, "run_spec.json adapter_spec.model"
    elif args.get("model"):
        system, how = args["model"], "run name"
    else:
        system, how = name, "run directory name"
    return _Run(f, name, scenario, system, how, doc)


def _check_entry(run: _Run, i: int, e: Any) -> None:
    where = f"{run.path}: entry {i}"
    if not isinstance(e, dict):
        raise FormatError(f"{where}: expected an object, got {type(e).__name__}")
    missing = [k for k in ("instance_id", "train_trial_index", "stats") if k not in e]
    if missing:
        raise FormatError(
            f"{where}: not a HELM per-instance stat (missing {', '.join(missing)}; keys: "
            f"{', '.join(map(str, list(e)[:8]))})"
        )
    iid, trial = e["instance_id"], e["train_trial_index"]
    if isinstance(iid, bool) or not isinstance(iid, str | int):
        raise FormatError(f"{where}: instance_id {iid!r} is not an instance id (text)")
    if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
        raise FormatError(f"{where}: train_trial_index {trial!r} is not a whole number ≥ 0")
    if not isinstance(e["stats"], list) or not all(
        isinstance(s, dict) and isinstance(s.get("name"), dict) for s in e["stats"]
    ):
        raise FormatError(f"{where}: stats must be a list of HELM Stat objects with a name")
    pert = e.get("perturbation")
    if pert is not None and not (isinstance(pert, dict) and isinstance(pert.get("name"), str)):
        raise FormatError(f"{where}: perturbation {pert!r} is not a HELM perturbation description")


def _perturbation(e: dict[str, Any]) -> str | None:
    pert = e.get("perturbation")
    return pert["name"] if isinstance(pert, dict) else None


def _stat_names(entries: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(str(s["name"].get("name")) for e in entries for s in e["stats"]))


def _choose_stat(runs: list[_Run], stat: str | None, chosen: list[list[dict[str, Any]]]) -> str:
    names = list(dict.fromkeys(n for es in chosen for n in _stat_names(es)))
    where = runs[0].path if len(runs) == 1 else runs[0].path.parent.parent
    if stat is not None:
        if stat not in names:
            raise OptionError(
                f"{where}: stat {stat!r} is not in the per-instance stats; stats: "
                f"{', '.join(names[:20]) or 'none'}"
            )
        return stat
    found = next((s for s in DEFAULT_STATS if s in names), None)
    if found is None:
        raise OptionError(
            f"{where}: none of HELM's correctness stats ({', '.join(DEFAULT_STATS)}) is in the "
            f"per-instance stats; choose the stat with --map stat=NAME (Python stat=...); stats: "
            f"{', '.join(names[:20])}"
        )
    return found


def _value(run: _Run, i: int, e: dict[str, Any], stat: str) -> float | None:
    found = [s for s in e["stats"] if s["name"].get("name") == stat]
    where = f"{run.path}: entry {i} (instance {e['instance_id']!r})"
    if len(found) > 1:
        raise FormatError(f"{where}: stat {stat!r} appears {len(found)} times in one instance")
    if not found:
        return None
    s = found[0]
    what = f"stat {stat!r}"
    mean = json_score(s.get("mean"), where, f"{what} mean")
    total = json_score(s.get("sum"), where, f"{what} sum")
    count = json_score(s.get("count"), where, f"{what} count", bools=False)
    if count == 0:  # HELM's Stat has no mean without values
        if mean is not None:
            raise FormatError(
                f"{where}: {what} has count 0 (no values) but mean {mean!r}: HELM writes no "
                "mean without values; fix the file"
            )
        return None
    if mean is None:
        return None if total is None or not count else total / count
    if total is not None and count and abs(total / count - mean) > 1e-9 * max(1.0, abs(mean)):
        raise FormatError(
            f"{where}: {what} mean {mean!r} is not its sum {total!r} / count {count:g}: "
            "the file disagrees with itself; fix it"
        )
    return mean


def _frame(run: _Run, entries: list[tuple[int, dict[str, Any]]], stat: str) -> pd.DataFrame:
    rows = []
    seen: dict[tuple[Any, int], int] = {}
    for i, e in entries:
        key = (e["instance_id"], e["train_trial_index"])
        if key in seen:
            raise FormatError(
                f"{run.path}: entries {seen[key]} and {i} both hold instance "
                f"{key[0]!r}, train trial {key[1]}: one instance scored twice; fix the file"
            )
        seen[key] = i
        rows.append(
            {
                "instance_id": e["instance_id"],
                "trial": e["train_trial_index"],
                "score": _value(run, i, e, stat),
            }
        )
    df = records_frame(rows)
    df["system"], df["helm_run"], df["scenario"] = run.system, run.name, run.scenario
    return df


def read_helm(
    path: Path,
    *,
    stat: str | None = None,
    perturbation: str | None = None,
    threshold: float | None = None,
    system_name: str | None = None,
) -> Trials:
    """Read HELM per-instance stats (a file, a run directory, a suite) into trials.

    Parameters
    ----------
    path : Path
        ``per_instance_stats.json``, its run directory, a suite directory of runs, a
        ``runs`` directory of suites, or HELM's output directory (``benchmark_output``).
    stat : str, optional
        The per-instance stat that decides success (default: the first of
        :data:`DEFAULT_STATS` present).
    perturbation : str, optional
        Read the instances of this perturbation (e.g. ``typos``) instead of the originals.
    threshold : float, optional
        Success is ``stat ≥ threshold``; needed when the stat is not 0/1.
    system_name : str, optional
        Overrides the model name.

    Returns
    -------
    Trials
        ``task_id`` (instance id), ``trial`` (train trial index), ``score`` (the stat's mean),
        ``status`` ``ok`` or ``no_stat``, ``helm_run`` and ``scenario``.
    """
    path = Path(path)
    threshold = check_threshold(threshold, str(path))
    files = stats_files(path)
    if not files:
        raise FormatError(
            f"{path}: a directory without HELM runs (no {_FILE} in it or in its "
            "subdirectories); give benchmark_output/runs/<suite>"
        )
    runs = [_load_run(f, system_name) for f in files]
    _refuse_repeated_runs(runs)
    chosen = []
    for run in runs:
        for i, e in enumerate(run.entries):
            _check_entry(run, i, e)
        chosen.append(
            [(i, e) for i, e in enumerate(run.entries) if _perturbation(e) == perturbation]
        )
    if not any(chosen):
        names = sorted({p for r in runs for e in r.entries if (p := _perturbation(e))})
        raise OptionError(
            f"{path}: no instance has perturbation {perturbation!r}; perturbations: "
            f"{', '.join(names) or 'none'}"
        )
    stat = _choose_stat(runs, stat, [[e for _, e in c] for c in chosen])
    df = pd.concat(
        [_frame(r, c, stat) for r, c in zip(runs, chosen, strict=True) if c], ignore_index=True
    )
    several = df["scenario"].nunique() > 1
    df["task_id"] = (
        df["scenario"] + "/" + df["instance_id"].astype(str) if several else df["instance_id"]
    )
    if several:
        df["category"] = df["scenario"]
    scores = df["score"].to_numpy(dtype=float, na_value=np.nan)
    what = f"stat {stat!r}"
    df["success"] = pd.array(
        verdicts(scores, threshold=threshold, where=str(path), what=what), dtype="boolean"
    )
    df["status"] = np.where(np.isnan(scores), "no_stat", "ok")
    source = {
        "system_from": runs[0].system_from,
        "stat": stat,
        "perturbation": perturbation,
        "threshold": threshold,
        "runs": [_reported(r, stat, perturbation) for r in runs],
    }
    trials = Trials.from_frame(df.drop(columns="instance_id"), where=str(path), source=source)
    trials.notes.extend(_notes(path, runs, stat, perturbation))
    unread = unread_note(path, [], tables_only=True, what="HELM runs") if path.is_dir() else None
    trials.notes.extend([unread] if unread else [])
    return trials


def _refuse_repeated_runs(runs: list[_Run]) -> None:
    seen: dict[tuple[str, str], Path] = {}
    for r in runs:
        key = (r.system, r.scenario)
        if key in seen:
            raise FormatError(
                f"{seen[key].parent} and {r.path.parent} are two HELM runs of model {r.system!r} "
                f"on {r.scenario!r} (their train trials would collide); runs are never merged: "
                "read one suite at a time"
            )
        seen[key] = r.path


def _reported(run: _Run, stat: str, perturbation: str | None) -> dict[str, Any]:
    """HELM's own aggregate of the stat for this run (``stats.json``), the oracle."""
    out: dict[str, Any] = {"run": run.name, "system": run.system}
    f = run.path.parent / "stats.json"
    doc = load_json(f, expected="HELM stats.json") if f.is_file() else []
    splits = {s["name"].get("split") for e in run.entries for s in e["stats"]}
    for s in doc if isinstance(doc, list) else []:
        name = s.get("name") if isinstance(s, dict) else None
        if not isinstance(name, dict) or name.get("name") != stat or name.get("sub_split"):
            continue
        pert = name.get("perturbation")
        if (pert.get("name") if isinstance(pert, dict) else None) == perturbation and name.get(
            "split"
        ) in splits:
            out[f"{stat},{name.get('split')}"] = s.get("mean")
    return out


def _notes(path: Path, runs: list[_Run], stat: str, perturbation: str | None) -> list[str]:
    notes = []
    others = [
        s for s in DEFAULT_STATS if s != stat and any(s in _stat_names(r.entries) for r in runs)
    ]
    if others:
        notes.append(f"{path}: read HELM stat {stat!r} (choose another with --map stat=NAME)")
    left = [e for r in runs for e in r.entries if _perturbation(e) != perturbation]
    names = sorted({p for e in left if (p := _perturbation(e))})
    originals = sum(_perturbation(e) is None for e in left)
    if left:
        what = ([f"perturbed instances ({', '.join(names)})"] if names else []) + (
            ["the original instances"] if originals else []
        )
        notes.append(
            f"{path}: {len(left)} per-instance stat(s) of {' and '.join(what)} are not read"
            + ("; read a perturbation with --map perturbation=NAME" if names else "")
        )
    return notes


register_reader(
    "helm",
    read_helm,
    sniff=_sniff.with_directories(_sniff.helm, lambda path: bool(stats_files(path))),
    priority=14,
)
