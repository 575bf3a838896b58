"""JSON nested too deeply for Python's parser (issue 13, item 8): a FormatError naming the file
and line, from every reader that parses JSON, instead of a RecursionError traceback.

Oracle: ``json.loads`` itself raises RecursionError on these documents (checked first), so the
test fails if the helpers ever let it through.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph
from passhat.errors import FormatError
from passhat.io._json import jsonl_objects, load_json

DEEP = "[" * 100_000


def test_the_documents_are_too_deep_for_json() -> None:
    with pytest.raises(RecursionError):
        json.loads(DEEP + "]" * 100_000)


@pytest.mark.parametrize("closed", [False, True])
def test_load_json(tmp_path: Path, closed: bool) -> None:
    f = tmp_path / "deep.json"
    f.write_text(DEEP + ("]" * 100_000 if closed else ""))
    with pytest.raises(FormatError, match=r"deep\.json: JSON nested too deeply"):
        load_json(f)


def test_jsonl_names_the_line(tmp_path: Path) -> None:
    f = tmp_path / "runs.jsonl"
    f.write_text('{"task_id": "t", "trial": 0, "success": true}\n{"a": ' + DEEP + "\n")
    with pytest.raises(FormatError, match=r"runs\.jsonl: line 2: JSON nested too deeply"):
        jsonl_objects(f)


@pytest.mark.parametrize("fmt", [None, "tau-bench", "tau2-bench", "jsonl"])
def test_readers(tmp_path: Path, fmt: str | None) -> None:
    f = tmp_path / ("deep.jsonl" if fmt == "jsonl" else "deep.json")
    f.write_text(('{"x": ' if fmt == "jsonl" else "") + DEEP + "\n")
    with pytest.raises(FormatError, match="deep"):
        ph.read(f, format=fmt)


def test_tool_call_arguments_nested_too_deeply_are_a_format_error(tmp_path: Path) -> None:
    # the arguments are JSON text inside a valid file: canonical_args parses them
    from passhat.traces import canonical_args

    deep_args = DEEP + "]" * 100_000
    with pytest.raises(FormatError, match="tool-call arguments nested too deeply"):
        canonical_args(deep_args)
    nested: object = []
    for _ in range(100_000):
        nested = [nested]
    with pytest.raises(FormatError, match="nested too deeply"):
        canonical_args({"q": nested})
    f = tmp_path / "steps.jsonl"
    f.write_text(
        json.dumps({"task_id": "t", "trial": 0, "action": "a", "args": {"q": 1}, "success": True})
        + "\n"
    )
    traces = ph.read_traces(f)
    traces.steps.loc[0, "args"] = deep_args
    with pytest.raises(FormatError, match="step row 1: tool-call arguments nested too deeply"):
        ph.traces.normalise(traces, ignore_keys=["id"])


def test_a_dataset_of_deep_json_lines_and_the_counts_sniffer(tmp_path: Path) -> None:
    d = tmp_path / "parts"
    d.mkdir()
    (d / "part-0.jsonl").write_text('{"task_id": ' + DEEP + "\n")
    with pytest.raises(FormatError, match=r"part-0\.jsonl: .*JSON nested too deeply"):
        ph.read_counts(d)
    from passhat.io._sniff import counts as _sniff_counts

    f = tmp_path / "deep.jsonl"
    f.write_text('{"task_id": ' + DEEP + "\n")
    assert _sniff_counts(f, f.read_text()[:4096]) is False
