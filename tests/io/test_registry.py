"""Reader registry and sniffing: every format is recognised from its content,
and files that are none of them fail with one clear message."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import passhat as ph
from passhat.errors import FormatError, InputError, OptionError
from passhat.io import _registry
from passhat.trials import Trials


def test_formats_listed() -> None:
    assert {"counts", "csv", "inspect", "jsonl", "parquet", "tau-bench", "tau2-bench"} <= set(
        ph.io.formats()
    )


def _samples(tmp_path: Path) -> dict[str, Path]:
    out = {}
    out["csv"] = tmp_path / "a.csv"
    out["csv"].write_text("task_id,success\nt,1\n")
    out["jsonl"] = tmp_path / "a.jsonl"
    out["jsonl"].write_text('{"task_id": "t", "success": true}\n')
    out["parquet"] = tmp_path / "a.parquet"
    pd.DataFrame({"task_id": ["t"], "success": [True]}).to_parquet(out["parquet"])
    out["counts"] = tmp_path / "c.csv"
    out["counts"].write_text("task_id,n,c\nt,3,1\n")
    out["tau-bench"] = tmp_path / "tau.json"
    out["tau-bench"].write_text(json.dumps([{"task_id": 0, "reward": 1.0, "info": {}}]))
    out["tau2-bench"] = tmp_path / "tau2.json"
    sims = [{"task_id": "0", "trial": 0, "termination_reason": "user_stop"}]
    out["tau2-bench"].write_text(json.dumps({"info": {}, "tasks": [], "simulations": sims}))
    return out


def test_each_format_sniffed(tmp_path: Path) -> None:
    for fmt, path in _samples(tmp_path).items():
        assert _registry._resolve(path, None).name == fmt, fmt


def test_format_names_normalised(tmp_path: Path) -> None:
    path = _samples(tmp_path)["tau-bench"]
    assert _registry._resolve(path, "TAU_BENCH").name == "tau-bench"


def test_unknown_format(tmp_path: Path) -> None:
    f = _samples(tmp_path)["csv"]
    with pytest.raises(FormatError, match=r"a\.csv: unknown format 'excel'; known formats: counts"):
        ph.read_trials(f, format="excel")


def test_missing_empty_and_unsniffable(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.csv: no such file"):
        ph.read_trials(tmp_path / "nope.csv")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(FormatError, match=r"empty\.csv: the file is empty"):
        ph.read_trials(empty)
    blank = tmp_path / "blank.jsonl"
    blank.write_text("  \n\n")
    with pytest.raises(FormatError, match=r"blank\.jsonl: the file is empty \(only whitespace\)"):
        ph.read_trials(blank)
    junk = tmp_path / "notes.txt"
    junk.write_text("hello world\nsecond line\n")
    with pytest.raises(FormatError, match=r"notes\.txt: cannot tell the format .* \(--format\)"):
        ph.read_trials(junk)
    valid_other = tmp_path / "other.json"
    valid_other.write_text('{"a": 1}')
    with pytest.raises(
        FormatError,
        match=r"other\.json: a JSON file holding an object with keys a, not a format passhat ",
    ):
        ph.read_trials(valid_other)


def test_malformed_json_names_line_and_column(tmp_path: Path) -> None:
    f = tmp_path / "broken.json"
    f.write_text('[\n  {"task_id": 1,\n   "reward": }\n]\n')
    with pytest.raises(FormatError, match=r"broken\.json: line 3, column 14: not valid JSON"):
        ph.read_trials(f)
    with pytest.raises(FormatError, match=r"broken\.json: not a τ-bench result file: line 3"):
        ph.read_trials(f, format="tau-bench")


def test_register_custom_reader(tmp_path: Path) -> None:
    f = tmp_path / "x.mine"
    f.write_text("MINE\nt1 1\nt1 0\n")

    def read_mine(path: Path) -> Trials:
        rows = [ln.split() for ln in path.read_text().splitlines()[1:]]
        df = pd.DataFrame(rows, columns=["task_id", "success"])
        return Trials.from_frame(df, where=str(path))

    def broken_sniff(path: Path, head: str) -> bool:
        raise RuntimeError("a sniffer that cannot tell says no")

    try:
        ph.io.register_reader("broken", read_mine, sniff=broken_sniff, priority=0)
        ph.io.register_reader("mine", read_mine, sniff=lambda p, h: h.startswith("MINE"))
        t = ph.read_trials(f)
        assert t.source["format"] == "mine" and len(t) == 2
        assert len(t.source["sha256"]) == 64
    finally:
        _registry._READERS.pop(("trials", "mine"), None)
        _registry._READERS.pop(("trials", "broken"), None)


# --------------------------------------------------------------- trace readers
def test_trace_readers_are_a_kind_of_their_own(tmp_path: Path) -> None:
    assert ph.io.formats(kind="traces") == ["tau-bench", "tau2-bench", "inspect", "steps-jsonl"]
    assert "steps-jsonl" not in ph.io.formats()  # read() / read_trials never pick a trace reader
    # one name, two kinds: the trial reader for read_trials, the trace reader for read_traces
    assert _registry.find_reader("tau-bench").kind == "trials"  # type: ignore[union-attr]
    assert _registry.find_reader("TAU_BENCH", kinds=["traces"]).kind == "traces"  # type: ignore[union-attr]
    assert _registry.find_reader("jsonl", kinds=["traces"]).name == "steps-jsonl"  # type: ignore[union-attr]
    assert _registry.find_reader("jsonl").name == "jsonl"  # type: ignore[union-attr]
    f = _samples(tmp_path)["jsonl"]
    with pytest.raises(FormatError, match=r"unknown format 'steps-jsonl'; known formats: counts"):
        ph.read_trials(f, format="steps-jsonl")
    with pytest.raises(OptionError, match="kind must be one of trials, counts, traces"):
        ph.io.register_reader("x", ph.read_trials, sniff=lambda p, h: False, kind="table")


def test_each_trace_format_sniffed_in_order(tmp_path: Path) -> None:
    """The order the trace sniffers are tried settles files that look like two formats:
    a directory is τ²-bench, an ``.eval`` file Inspect, then τ-bench (a list with
    ``traj``), τ²-bench (``simulations``), Inspect (``eval`` and ``samples``), a step log
    (``action`` on the first line): the order of the if-chain that io/traces.py had
    before the registry (checked against it)."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    cases = {
        "tau.json": ('[{"task_id": 0, "traj": []}]', "tau-bench"),
        "tau2.json": ('{"simulations": []}', "tau2-bench"),
        "index.json": ('{"simulation_index": []}', "tau2-bench"),
        "log.json": ('{"eval": {}, "samples": []}', "inspect"),
        "log.eval": ('[{"traj": 1}]', "inspect"),  # the suffix decides before the content
        "both.json": ('[{"traj": 1, "simulations": 2}]', "tau-bench"),
        "both2.json": ('{"simulations": [], "eval": {}, "samples": []}', "tau2-bench"),
        "steps.jsonl": ('{"task_id": "t", "action": "x"}\n', "steps-jsonl"),
    }
    for name, (text, fmt) in cases.items():
        (tmp_path / name).write_text(text)
        path = tmp_path / name
        found = _registry.sniff(path, _registry.file_head(path), kinds=["traces"])
        assert found is not None and found.name == fmt, name
    found = _registry.sniff(run_dir, "", kinds=["traces"])
    assert found is not None and found.name == "tau2-bench"
    (tmp_path / "late.jsonl").write_text('{"task_id": "t"}\n{"action": "x"}\n')
    with pytest.raises(FormatError, match=r"late\.jsonl: cannot tell the trace format"):
        ph.read_traces(tmp_path / "late.jsonl")


def test_builtin_readers_table_names_every_module_registering_each_name() -> None:
    """``BUILTIN_READERS`` (format name → the modules to import for it) must list, for every name
    and alias a passhat reader registers, exactly the modules registering it: ``format=`` loads
    only those before looking the name up."""
    _registry.readers(_registry.KINDS)  # every reader module imported
    found: dict[str, set[str]] = {}
    for reader in _registry._READERS.values():
        module = reader.read.__module__
        if not module.startswith("passhat.io."):
            continue  # a reader a test registered
        for key in (reader.name, *reader.aliases):
            found.setdefault(key, set()).add(module.removeprefix("passhat.io."))
    assert {k: sorted(v) for k, v in found.items()} == {
        k: sorted(v) for k, v in _registry.BUILTIN_READERS.items()
    }
