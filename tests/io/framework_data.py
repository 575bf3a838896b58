"""Larger real-shaped outputs of five evaluation frameworks, written with a fixed seed, and the
truth they were written from.

Each ``write_*`` function draws per-task success rates and run outcomes with
``numpy.random.default_rng(seed)``, writes the files in the framework's own layout (the same
sources as the readers cite: lm-eval ``result_schema.py``, HELM ``metric.py``/``runner.py``,
Harbor ``models/job/result.py``/``models/trial/result.py``, SWE-bench ``harness/reporting.py``,
promptfoo ``types/index.ts``/``evaluator.ts``), and returns a :class:`Truth`: per
(system, task) the decided runs, successes and unscored runs it wrote, and the framework's own
summary numbers computed the framework's way (lm-eval's mean per run, HELM's mean of per-trial
means, Harbor's mean and pass@k counting a trial without reward as 0, SWE-bench's resolved
counts, promptfoo's ``stats``). The readers' outputs are checked against these.

Run as a script to write them into a directory (used for the inputs guide):
``python tests/io/framework_data.py OUTDIR``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

SEED = 20250406


@dataclass
class Truth:
    """What a generator wrote: per (system, task) [n decided, c successes, unscored]."""

    cells: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)

    def add(self, system: str, task: str, outcome: bool | None) -> None:
        cell = self.cells.setdefault((system, task), [0, 0, 0])
        if outcome is None:
            cell[2] += 1
        else:
            cell[0] += 1
            cell[1] += int(outcome)


def _rates(rng: np.random.Generator, n: int, a: float = 0.8, b: float = 0.6) -> np.ndarray:
    return rng.beta(a, b, size=n)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# ----------------------------------------------------------------------------- lm-eval
def write_lm_eval(root: Path, seed: int = SEED) -> Truth:
    """Two models × three runs (dates) × two lm-eval tasks: arc_easy (60 docs, acc and
    acc_norm, filter none) and gsm8k (40 docs, exact_match under strict-match and
    flexible-extract). Truth: acc under filter none, and exact_match under strict-match."""
    rng = np.random.default_rng(seed)
    truth = Truth()
    models = {
        "EleutherAI/pythia-410m": "EleutherAI__pythia-410m",
        "Qwen/Qwen2.5-1.5B": "Qwen__Qwen2.5-1.5B",
    }
    tasks = {"arc_easy": 60, "gsm8k": 40}
    for model, sanitized in models.items():
        d = root / sanitized
        d.mkdir(parents=True, exist_ok=True)
        p = {t: _rates(rng, n) for t, n in tasks.items()}
        for run in range(3):
            date = f"2025-04-0{run + 1}T12-00-0{run}.{100000 + run}"
            results: dict[str, Any] = {}
            for task in tasks:
                rows, means = _lm_eval_rows(rng, task, p[task], truth, model)
                with open(d / f"samples_{task}_{date}.jsonl", "w", encoding="utf-8") as fh:
                    fh.writelines(json.dumps(r) + "\n" for r in rows)
                results[task] = {"alias": task, **means}
                truth.summary[(model, task, run)] = means
            doc = {
                "results": results,
                "configs": {t: {"task": t, "repeats": 1} for t in tasks},
                "n-samples": {t: {"original": n, "effective": n} for t, n in tasks.items()},
                "config": {"model": "hf", "model_args": f"pretrained={model},dtype=bfloat16"},
                "model_name": model,
                "model_name_sanitized": sanitized,
            }
            (d / f"results_{date}.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return truth


def _lm_eval_rows(
    rng: np.random.Generator, task: str, p: np.ndarray, truth: Truth, model: str
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    rows = []
    if task == "arc_easy":
        acc = rng.random(len(p)) < p
        norm = rng.random(len(p)) < p
        for i in range(len(p)):
            truth.add(model, f"arc_easy/{i}", bool(acc[i]))
            rows.append(
                {
                    "doc_id": i,
                    "doc": {"id": f"Mercury_{7000 + i}"},
                    "target": str(i % 4),
                    "arguments": {"gen_args_0": {"arg_0": "Question: ...\nAnswer:", "arg_1": " a"}},
                    "resps": [[["-4.5", "False"]]],
                    "filtered_resps": [["-4.5", "False"]],
                    "filter": "none",
                    "metrics": ["acc", "acc_norm"],
                    "doc_hash": _sha(str(i)),
                    "prompt_hash": _sha(f"p{i}"),
                    "target_hash": _sha(str(i % 4)),
                    "acc": float(acc[i]),
                    "acc_norm": float(norm[i]),
                }
            )
        return rows, {"acc,none": float(acc.mean()), "acc_norm,none": float(norm.mean())}
    strict = rng.random(len(p)) < p
    flexible = strict | (rng.random(len(p)) < 0.3)
    for filt, em in (("strict-match", strict), ("flexible-extract", flexible)):
        for i in range(len(p)):
            if filt == "strict-match":
                truth.add(model, f"gsm8k/{i}", bool(em[i]))
            rows.append(
                {
                    "doc_id": i,
                    "doc": {"question": f"q{i}", "answer": "#### 3"},
                    "target": "#### 3",
                    "arguments": {
                        "gen_args_0": {
                            "arg_0": f"Question: q{i}\nAnswer:",
                            "arg_1": {"until": ["Question:"]},
                        }
                    },
                    "resps": [["The answer is 3."]],
                    "filtered_resps": ["3" if em[i] else "[invalid]"],
                    "filter": filt,
                    "metrics": ["exact_match"],
                    "doc_hash": _sha(f"g{i}"),
                    "prompt_hash": _sha(f"gp{i}"),
                    "target_hash": _sha("3"),
                    "exact_match": float(em[i]),
                }
            )
    means = {
        "exact_match,strict-match": float(strict.mean()),
        "exact_match,flexible-extract": float(flexible.mean()),
    }
    return rows, means


# ----------------------------------------------------------------------------- HELM
def write_helm(root: Path, seed: int = SEED) -> Truth:
    """A suite of 2 models × 2 scenarios (mmlu anatomy, boolq) × 30 instances × 3 train trials;
    one instance-trial per run lacks exact_match (unscored). Summary: HELM's stats.json mean
    (the mean over train trials of each trial's mean over instances)."""
    rng = np.random.default_rng(seed + 1)
    truth = Truth()
    scenarios = {"mmlu:subject=anatomy,method=multiple_choice_joint": "mmlu", "boolq": "boolq"}
    for model in ("openai/gpt-4o-mini-2024-07-18", "meta/llama-3.1-8b-instruct-turbo"):
        for scen in scenarios:
            name = f"{scen}{',' if ':' in scen else ':'}model={model.replace('/', '_')}"
            d = root / name
            d.mkdir(parents=True, exist_ok=True)
            p = _rates(rng, 30)
            entries, trial_means = [], []
            missing = (int(rng.integers(30)), int(rng.integers(3)))
            for t in range(3):
                ok = rng.random(30) < p
                vals = []
                for i in range(30):
                    has = (i, t) != missing
                    stats = [_helm_stat("num_train_trials", 3.0)]
                    if has:
                        stats.append(_helm_stat("exact_match", float(ok[i])))
                        vals.append(float(ok[i]))
                    entries.append(
                        {"instance_id": f"id{100 + i}", "train_trial_index": t, "stats": stats}
                    )
                    truth.add(model, f"{scen}/id{100 + i}", bool(ok[i]) if has else None)
                trial_means.append(sum(vals) / len(vals))
            (d / "per_instance_stats.json").write_text(json.dumps(entries), encoding="utf-8")
            mean = sum(trial_means) / 3
            stat = {**_helm_stat("exact_match", mean), "count": 3, "sum": sum(trial_means)}
            (d / "stats.json").write_text(json.dumps([stat]), encoding="utf-8")
            spec = {
                "name": name,
                "adapter_spec": {"model": model, "model_deployment": model, "num_train_trials": 3},
            }
            (d / "run_spec.json").write_text(json.dumps(spec), encoding="utf-8")
            truth.summary[(model, scen)] = mean
    return truth


def _helm_stat(name: str, x: float) -> dict[str, Any]:
    return {
        "name": {"name": name, "split": "test"},
        "count": 1,
        "sum": x,
        "sum_squared": x * x,
        "min": x,
        "max": x,
        "mean": x,
        "variance": 0.0,
        "stddev": 0.0,
    }


# ----------------------------------------------------------------------------- Harbor
def write_harbor(root: Path, seed: int = SEED) -> Truth:
    """One job: terminus-2 with one model on 20 tasks × 5 attempts. About 5% of trials time out
    (reward 0 kept), 4% lose their reward file and 2% are cancelled (no reward: unscored).
    Summary: Harbor's ``metrics`` mean and ``pass_at_k`` (a trial without reward counts 0)."""
    rng = np.random.default_rng(seed + 2)
    truth = Truth()
    job = root / "2025-04-05__09-00-00"
    job.mkdir(parents=True, exist_ok=True)
    system = "terminus-2__gpt-5"
    p = _rates(rng, 20)
    rewards: dict[str, list[float | None]] = {}
    for i in range(20):
        task = f"task-{i:02d}-{'x' * (i % 3)}build"
        for a in range(5):
            u = rng.random()
            reward: float | None = float(rng.random() < p[i])
            exc = None
            if u < 0.05:
                reward, exc = 0.0, "AgentTimeoutError"
            elif u < 0.09:
                reward, exc = None, "RewardFileNotFoundError"
            elif u < 0.11:
                reward, exc = None, "CancelledError"
            rewards.setdefault(task, []).append(reward)
            truth.add(system, task, None if reward is None else reward == 1.0)
            name = f"{task[:32]}__{i:03d}{a:04d}"
            d = job / name
            d.mkdir()
            res = {
                "task_name": task,
                "trial_name": name,
                "source": "terminal-bench",
                "task_checksum": _sha(task),
                "agent_info": {
                    "name": "terminus-2",
                    "version": "2.0",
                    "model_info": {"name": "gpt-5", "provider": "openai"},
                },
                "verifier_result": None if reward is None else {"rewards": {"reward": reward}},
                "exception_info": None
                if exc is None
                else {
                    "exception_type": exc,
                    "exception_message": f"{exc} raised",
                    "exception_traceback": "",
                    "occurred_at": "2025-04-05T10:00:00",
                },
                "started_at": f"2025-04-05T09:{a:02d}:{i:02d}",
                "finished_at": f"2025-04-05T09:{a + 5:02d}:{i:02d}",
            }
            (d / "result.json").write_text(json.dumps(res), encoding="utf-8")
    flat = [0.0 if r is None else r for rs in rewards.values() for r in rs]
    succ = [[int(r or 0) for r in rs] for rs in rewards.values()]
    pass_at = {
        str(k): float(np.mean([_pass_at(len(s), sum(s), k) for s in succ])) for k in (2, 4, 5)
    }
    summary = {"mean": sum(flat) / len(flat), "pass_at_k": pass_at}
    evals = {
        f"{system}__terminal-bench": {
            "n_trials": sum(r is not None for r in flat),
            "metrics": [{"mean": summary["mean"]}],
            "pass_at_k": pass_at,
        }
    }
    result = {
        "id": "00000000-0000-0000-0000-000000000001",
        "started_at": "2025-04-05T09:00:00",
        "n_total_trials": 100,
        "stats": {"n_completed_trials": 100, "evals": evals},
    }
    (job / "result.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    truth.summary = summary
    return truth


def _pass_at(n: int, c: int, k: int) -> float:
    return 1.0 if n - c < k else 1.0 - comb(n - c, k) / comb(n, k)


# ----------------------------------------------------------------------------- SWE-bench
def write_swebench(root: Path, seed: int = SEED) -> Truth:
    """Harness run reports of 2 models × 4 runs on 50 instances (of a 60-instance dataset):
    errors (unscored), empty patches (failures), environment-tier infra failures (unscored)."""
    rng = np.random.default_rng(seed + 3)
    truth = Truth()
    dataset = [f"repo{i % 7}__repo{i % 7}-{1000 + i}" for i in range(60)]
    root.mkdir(parents=True, exist_ok=True)
    for model in ("gpt-4o-2024-08-06", "claude-3-7-sonnet-20250219"):
        p = _rates(rng, 50)
        for run in range(4):
            lists: dict[str, list[str]] = {
                k: [] for k in ("resolved", "unresolved", "empty", "error", "infra")
            }
            for i, iid in enumerate(dataset[:50]):
                u = rng.random()
                if u < 0.04:
                    lists["error"].append(iid)
                    truth.add(model, iid, None)
                elif u < 0.08:
                    lists["empty"].append(iid)
                    truth.add(model, iid, False)
                elif u < 0.11:
                    lists["unresolved"].append(iid)
                    lists["infra"].append(iid)
                    truth.add(model, iid, None)
                else:
                    ok = bool(rng.random() < p[i])
                    lists["resolved" if ok else "unresolved"].append(iid)
                    truth.add(model, iid, ok)
            report = {
                "total_instances": 60,
                "submitted_instances": 50,
                "resolved_instances": len(lists["resolved"]),
                "unresolved_instances": len(lists["unresolved"]),
                "empty_patch_instances": len(lists["empty"]),
                "error_instances": len(lists["error"]),
                "completed_ids": sorted(lists["resolved"] + lists["unresolved"]),
                "incomplete_ids": dataset[50:],
                "empty_patch_ids": sorted(lists["empty"]),
                "submitted_ids": sorted(dataset[:50]),
                "resolved_ids": sorted(lists["resolved"]),
                "unresolved_ids": sorted(lists["unresolved"]),
                "infra_failure_ids": sorted(lists["infra"]),
                "ambiguous_failure_ids": [],
                "failure_reasons": {i: "out_of_memory" for i in lists["infra"]},
                "error_ids": sorted(lists["error"]),
                "schema_version": 2,
            }
            (root / f"{model}.run-{run}.json").write_text(
                json.dumps(report, indent=4), encoding="utf-8"
            )
            truth.summary[(model, run)] = len(lists["resolved"])
    return truth


# ----------------------------------------------------------------------------- promptfoo
def write_promptfoo(root: Path, seed: int = SEED) -> Truth:
    """One eval: 3 providers × 12 tests × repeat 5 (each repeat its own testIdx), about 3% of
    rows errors (failureReason 2: unscored). Summary: promptfoo's ``stats``."""
    rng = np.random.default_rng(seed + 4)
    truth = Truth()
    providers = [
        "openai:gpt-4.1-mini",
        "anthropic:messages:claude-sonnet-4-20250514",
        "google:gemini-2.5-flash",
    ]
    R, tests = 5, [f"case {j:02d}: {w}" for j, w in enumerate("abcdefghijkl")]
    p = {prov: _rates(rng, len(tests)) for prov in providers}
    results, stats = [], {"successes": 0, "failures": 0, "errors": 0}
    for t, desc in enumerate(tests):
        for r in range(R):
            for k, prov in enumerate(providers):
                err = rng.random() < 0.03
                ok = bool(rng.random() < p[prov][t])
                truth.add(prov, desc, None if err else ok)
                stats["errors" if err else "successes" if ok else "failures"] += 1
                results.append(
                    {
                        "testIdx": t * R + r,
                        "promptIdx": k,
                        "provider": {"id": prov},
                        "testCase": {"description": desc, "vars": {"q": desc}},
                        "vars": {"q": desc},
                        "success": ok and not err,
                        "score": float(ok and not err),
                        "failureReason": 2 if err else (0 if ok else 1),
                        "error": "Request timed out" if err else None,
                        "latencyMs": 500 + t,
                        "namedScores": {},
                        "cost": 0.0002,
                    }
                )
    prompts = [{"raw": "{{q}}", "label": "{{q}}", "provider": prov} for prov in providers]
    doc = {
        "evalId": "eval-large",
        "results": {
            "version": 3,
            "timestamp": "2025-04-06T00:00:00Z",
            "prompts": prompts,
            "results": results,
            "stats": stats,
        },
        "config": {"evaluateOptions": {"repeat": R}},
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    truth.summary = stats
    return truth


def cells(trials: Any) -> dict[tuple[str, str], list[int]]:
    """A reader's trials as per (system, task) [n decided, c successes, unscored]."""
    ds = trials.counts()
    out = {}
    for s in ds["system"].values:
        for t in ds["task"].values:
            cell = ds.sel(system=s, task=t)
            if bool(cell["present"]):
                out[(str(s), str(t))] = [int(cell["n"]), int(cell["c"]), int(cell["unscored"])]
    return out


WRITERS = {
    "lm_eval": write_lm_eval,
    "helm": write_helm,
    "harbor": write_harbor,
    "swebench": write_swebench,
    "promptfoo": write_promptfoo,
}

if __name__ == "__main__":
    out = Path(sys.argv[1])
    for name, write in WRITERS.items():
        write(out / name)
        print(out / name)
