"""Damaged inputs of the five framework readers (lm-eval, HELM, Harbor, SWE-bench, promptfoo):
truncated files, wrong types, missing keys, empty files and directories.

The rule checked (DESIGN: exit codes): ``passhat estimate PATH`` either reads the damaged input
(a mutation that leaves a valid file, exit 0) or stops with exit status 2 and one
``passhat: error:`` line naming the file or directory, never a traceback or the
unexpected-exception status 70. Mutations are drawn with a fixed seed from each fixture's own
JSON (every node's value replaced by a value of another type, or its key deleted).
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"

#: format → (fixture to copy, files in it to damage, path given to passhat, extra options)
TARGETS: dict[str, tuple[Path, tuple[str, ...], str, tuple[str, ...]]] = {
    "lm-eval": (
        DATA / "lm_eval" / "EleutherAI__pythia-160m",
        (
            "samples_arc_easy_2025-03-01T10-00-00.000001.jsonl",
            "results_2025-03-01T10-00-00.000001.json",
        ),
        ".",
        (),
    ),
    "helm": (
        DATA / "helm" / "v1" / "boolq:model=openai_gpt2",
        ("per_instance_stats.json", "run_spec.json", "stats.json"),
        ".",
        (),
    ),
    "harbor": (
        DATA / "harbor" / "2025-11-20__14-03-12",
        ("fix-git__Kp1sD3f/result.json", "hello-world__3f2a9c1/result.json", "result.json"),
        ".",
        (),
    ),
    "swe-bench": (
        DATA / "swebench" / "reports",
        ("claude-3-5-sonnet-20241022.run2.json",),
        ".",
        (),
    ),
    "swe-bench-experiments": (
        DATA / "swebench" / "evaluation" / "verified" / "20240620_agent_old",
        ("results/results.json",),
        ".",
        (),
    ),
    "promptfoo": (DATA / "promptfoo", ("results.json",), "results.json", ()),
}
WRONG: tuple[Any, ...] = (None, "x", "", 1.5, -3, True, [], {}, [1, "a"], {"a": None}, 10**20)
#: The keys each reader reads: most mutations hit one of them.
READ_KEYS: dict[str, frozenset[str]] = {
    "lm-eval": frozenset({"doc_id", "filter", "metrics", "acc", "acc_norm", "model_name",
                          "model_args", "config", "configs", "repeats", "resps", "results"}),
    "helm": frozenset({"instance_id", "train_trial_index", "perturbation", "stats", "name",
                       "mean", "sum", "count", "adapter_spec", "model"}),
    "harbor": frozenset({"task_name", "trial_name", "agent_info", "model_info", "name",
                         "verifier_result", "rewards", "reward", "exception_info",
                         "exception_type", "exception_message", "started_at", "finished_at",
                         "agent_result", "cost_usd", "task_checksum", "source", "n_total_trials"}),
    "swe-bench": frozenset({"resolved_ids", "unresolved_ids", "error_ids", "empty_patch_ids",
                            "incomplete_ids", "infra_failure_ids", "failure_reasons"}),
    "swe-bench-experiments": frozenset({"resolved", "no_generation", "generated", "with_logs",
                                        "no_apply", "install_fail"}),
    "promptfoo": frozenset({"testIdx", "promptIdx", "provider", "id", "label", "success",
                            "score", "failureReason", "error", "vars", "testCase",
                            "description", "latencyMs", "cost", "results", "version"}),
}  # fmt: skip
N_MUTATIONS = 16


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    from passhat.cli import main

    code = main(args)
    return code, capsys.readouterr().err.strip().splitlines()


def _check(code: int, err: list[str], where: Path, what: str) -> None:
    errors = [ln for ln in err if ln.startswith("passhat: error:")]
    assert code in (0, 2), f"{what}: exit {code}: {err}"
    assert not any("Traceback" in ln for ln in err), f"{what}: {err}"
    if code == 2:
        assert len(errors) == 1, f"{what}: {err}"
        assert str(where) in errors[0] or where.name in errors[0], f"{what}: {errors[0]}"


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:6]):
            out += _paths(v, (*prefix, i))
    return out


def _mutate(doc: Any, rng: random.Random, keys: frozenset[str]) -> Any:
    paths = _paths(doc)
    read = [
        p for p in paths if p[-1] in keys or (isinstance(p[-1], int) and p[-2:-1] and p[-2] in keys)
    ]
    path = rng.choice(read if read and rng.random() < 0.8 else paths)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if isinstance(parent, dict) and rng.random() < 0.3:
        del parent[path[-1]]
    else:
        parent[path[-1]] = rng.choice(WRONG)
    return doc


def _damage(f: Path, rng: random.Random, keys: frozenset[str]) -> None:
    text = f.read_text(encoding="utf-8")
    if f.suffix == ".jsonl":
        lines = text.splitlines()
        i = rng.randrange(len(lines))
        lines[i] = json.dumps(_mutate(json.loads(lines[i]), rng, keys))
        f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        f.write_text(json.dumps(_mutate(json.loads(text), rng, keys)), encoding="utf-8")


def _copy(fmt: str, tmp_path: Path) -> tuple[Path, Path]:
    src, _, given, _ = TARGETS[fmt]
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst, dst / given if given != "." else dst


@pytest.mark.parametrize("fmt", sorted(TARGETS))
def test_random_wrong_types_and_missing_keys(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(f"fuzz-{fmt}")
    files = TARGETS[fmt][1]
    codes = []
    for i in range(N_MUTATIONS):
        root, given = _copy(fmt, tmp_path / str(i))
        _damage(root / files[i % len(files)], rng, READ_KEYS[fmt])
        code, err = _cli(["estimate", str(given), "--k", "1", *TARGETS[fmt][3]], capsys)
        _check(code, err, given, f"{fmt} mutation {i} of {files[i % len(files)]}")
        codes.append(code)
    assert codes.count(2) >= 3, f"{fmt}: the mutations hardly ever broke the input: {codes}"


@pytest.mark.parametrize("fmt", sorted(TARGETS))
@pytest.mark.parametrize("how", ["truncated", "empty", "not-json", "empty-object", "empty-list"])
def test_truncated_and_empty_files(
    fmt: str, how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in TARGETS[fmt][1]:
        root, given = _copy(fmt, tmp_path / name.replace("/", "_"))
        f = root / name
        raw = f.read_bytes()
        f.write_bytes(
            {
                "truncated": raw[: len(raw) // 2],
                "empty": b"",
                "not-json": b"<html>502 Bad Gateway</html>\n",
                "empty-object": b"{}",
                "empty-list": b"[]",
            }[how]
        )
        code, err = _cli(["estimate", str(given), "--k", "1"], capsys)
        _check(code, err, given, f"{fmt} {how} {name}")
        if name == TARGETS[fmt][1][0] and how in ("truncated", "empty", "not-json"):
            assert code == 2, f"{fmt} {how} {name}: read as {err}"


@pytest.mark.parametrize("fmt", ["lm-eval", "helm", "harbor", "swe-bench", "promptfoo"])
def test_an_empty_directory_named_as_the_format(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "runs"
    empty.mkdir()
    code, err = _cli(["estimate", str(empty), "--format", fmt, "--k", "1"], capsys)
    _check(code, err, empty, f"{fmt} empty directory")
    assert code == 2
    code, err = _cli(["estimate", str(empty), "--k", "1"], capsys)
    _check(code, err, empty, "empty directory, sniffed")
    assert code == 2
