"""Writing the report directory (``report.render.write_report`` through ``passhat._write``): never
over an input or someone else's files, all or nothing, nothing stale, checked before the work
(issue 13, items 1–5).

Oracles: the directory's bytes before and after; a τ²-bench run folder read back with the
τ²-bench reader; the manifest's SHA-256 recomputed from the files; a stand-in for the builder
that fails the test if the work starts before the output is checked.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from pathlib import Path
from typing import Any

import pytest

import passhat as ph
from passhat._write import MANIFEST
from passhat._write import files as files_mod
from passhat.errors import OptionError, OutputError
from write_testdata import FullDisk

# the package, not the function ``passhat.report`` that the top level exports under its name
report_pkg = importlib.import_module("passhat.report")
OPTS: dict[str, Any] = {"k": [1, 2], "model": False, "plan": False, "n_boot": 200, "seed": 0}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def tau2_run_folder(folder: Path) -> Path:
    """A τ²-bench results file as τ²-bench writes it (``Results``: info, tasks, simulations)."""
    folder.mkdir()
    sims = [
        {
            "id": f"sim-{t}-{r}",
            "task_id": str(t),
            "trial": r,
            "termination_reason": "user_stop",
            "reward_info": {"reward": float((t + r) % 2)},
            "messages": [],
        }
        for t in range(3)
        for r in range(2)
    ]
    info = {"agent_info": {"llm": "claude-3-7-sonnet"}, "num_trials": 2}
    doc = {"info": info, "tasks": [{"id": str(t)} for t in range(3)], "simulations": sims}
    (folder / "results.json").write_text(json.dumps(doc))
    return folder


def test_report_into_a_tau2_run_folder_refused(tmp_path: Path) -> None:
    """Before: the report replaced τ²-bench's results.json (exit 0), and reading the folder again
    gave the wrong system."""
    run = tau2_run_folder(tmp_path / "run")
    assert ph.read(run).systems == ["claude-3-7-sonnet"]
    before = snapshot(run)
    with pytest.raises(OptionError, match=r"holds results\.json, which passhat did not write"):
        ph.report(ph.load_example("abcd"), run, **OPTS)
    with pytest.raises(OptionError, match="inside the input directory"):
        ph.report(ph.read(run), run, **OPTS, force=True)  # its own input: never
    assert snapshot(run) == before
    assert ph.read(run).systems == ["claude-3-7-sonnet"]


def test_manifest_lists_every_file_with_its_hash(tmp_path: Path) -> None:
    res = ph.report(ph.load_example("abcd"), tmp_path / "rep", **OPTS)
    files = json.loads((res.paths.out_dir / MANIFEST).read_text())["files"]
    on_disk = snapshot(res.paths.out_dir)
    on_disk.pop(MANIFEST)
    assert files == {rel: hashlib.sha256(data).hexdigest() for rel, data in on_disk.items()}
    assert {"index.html", "report.md", "results.json"} <= set(files)


def test_previous_report_figures_removed(tmp_path: Path) -> None:
    """Before: a report without the model left the previous report's figures/ppc.* behind."""
    out = tmp_path / "rep"
    data = ph.load_example("abcd")
    ph.report(data, out, **{**OPTS, "model": True, "compare_models": False})
    assert (out / "figures" / "ppc.png").is_file() and (out / "figures" / "ppc.svg").is_file()
    res = ph.report(data, out, **OPTS)
    assert not (out / "figures" / "ppc.png").exists() and not (out / "figures" / "ppc.svg").exists()
    assert sorted(snapshot(out)) == sorted(
        [
            MANIFEST,
            *(
                str(p.relative_to(out))
                for p in (
                    res.paths.html,
                    res.paths.markdown,
                    res.paths.json,
                    res.paths.tasks,  # the per-task detail
                    *res.paths.figures,
                )
                if p is not None
            ),
        ]
    )


@pytest.mark.parametrize("where", ["file/sub", "file"])
def test_output_checked_before_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Before: ``report -o file/sub`` computed for 16 s, then failed with [Errno 20]."""
    (tmp_path / "file").write_text("")

    def no_work(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the report was computed before its directory was checked")

    monkeypatch.setattr(report_pkg, "compute_results", no_work)
    with pytest.raises(OptionError, match=r"file: is a file"):
        ph.report(ph.load_example("abcd"), tmp_path / where, **OPTS)


def test_disk_full_keeps_the_previous_report(tmp_path: Path, monkeypatch) -> None:
    """Before: files were written one after another, so a full disk left a new index.html beside
    an old results.json. Now the previous report stays whole and the error names the file."""
    out = tmp_path / "rep"
    ph.report(ph.load_example("abcd"), out, **OPTS)
    before = snapshot(out)

    monkeypatch.setattr(files_mod, "os", FullDisk(budget=0))
    with pytest.raises(OutputError, match=r"rep/figures/\w+\.png: cannot write: disk full"):
        ph.report(ph.load_example("agents"), out, **OPTS)
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]  # no staging, no lock
