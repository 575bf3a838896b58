"""The built-in sniffers apart from their readers: the same functions the readers register, in
the same order, and sniffing a file imports only the reader it chose.

Oracles: the registrations themselves (every reader module imported), and ``sys.modules`` of a
fresh interpreter after sniffing (what was imported, not how long it took: timings live in
``benchmarks/bench_startup.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from passhat.io import _registry, _sniff

TAU = Path(_sniff.__file__).parents[1] / "examples" / "tau_airline" / "gpt-4o-airline.json"


def test_table_is_the_registrations() -> None:
    """:data:`SNIFFERS` lists every built-in trial and count reader with the priority it
    registers and the very sniffer function it registers for a file (a reader that also reads
    directories wraps it with its directory test), in sniffing order."""
    registered = [
        (r.name, r.kind, r.priority, getattr(r.sniff, "file_sniff", r.sniff))
        for r in _registry.readers(("trials", "counts"))
        if r.read.__module__.startswith("passhat.io.")
    ]
    assert [(s.name, s.kind, s.priority, s.sniff) for s in _sniff.SNIFFERS] == registered


def _imported_after_sniffing(path: Path) -> tuple[str | None, list[str]]:
    probe = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from passhat.io._registry import file_head, sniff\n"
        f"p = Path({str(path)!r})\n"
        "found = sniff(p, file_head(p) if p.is_file() else '')\n"
        "mods = sorted(m for m in sys.modules if m.startswith('passhat.io.') or '.' not in m)\n"
        "print(json.dumps([found and found.name, mods]))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    name, mods = json.loads(res.stdout.strip().splitlines()[-1])
    return name, mods


#: The reader modules (each imports pandas) of passhat's trial and count formats.
READER_MODULES = {
    f"passhat.io.{m}"
    for m in "counts harbor helm inspect_log lm_eval promptfoo swebench".split()
    + "tau2_bench tau_bench tidy steps_jsonl".split()
}


def test_sniffing_a_file_imports_only_the_reader_it_chose() -> None:
    """``passhat estimate TAU`` without ``--format`` was 5.5× ``import numpy``: sniffing
    imported all twelve reader modules, and with them pandas (issue 32). (One format only: any
    other reader module imports pandas, a second of start-up for a test.)"""
    found, mods = _imported_after_sniffing(TAU)
    assert found == "tau-bench"
    assert sorted(READER_MODULES & set(mods)) == ["passhat.io.tau_bench"]
    assert "pandas" not in mods


def test_a_file_no_reader_knows_is_refused_after_asking_every_sniffer(tmp_path: Path) -> None:
    f = tmp_path / "notes.md"
    f.write_text("# notes\nnothing tabular here\n")
    found, mods = _imported_after_sniffing(f)
    assert found is None
    assert not READER_MODULES & set(mods)  # every sniffer said no without its reader
    assert "pandas" not in mods


def test_a_registered_reader_keeps_its_place_among_the_built_in_sniffers(tmp_path: Path) -> None:
    """A reader registered before any built-in one is imported is sniffed in priority order
    with the built-in sniffers: before a later one, after an earlier one."""
    f = tmp_path / "runs.csv"
    f.write_text("task_id,success\nt1,1\n")

    def read_mine(path: Path) -> None:  # pragma: no cover - never read here
        raise AssertionError

    try:
        _registry.register_reader("mine-early", read_mine, sniff=lambda p, h: True, priority=50)
        assert _registry.sniff(f, _registry.file_head(f)).name == "mine-early"  # before csv (80)
        _registry._READERS.pop(("trials", "mine-early"))
        _registry.register_reader("mine-late", read_mine, sniff=lambda p, h: True, priority=90)
        assert _registry.sniff(f, _registry.file_head(f)).name == "csv"
    finally:
        _registry._READERS.pop(("trials", "mine-early"), None)
        _registry._READERS.pop(("trials", "mine-late"), None)
