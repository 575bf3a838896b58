"""The hook: off unless asked, what it writes beside a real log, and what it never does.

One real Inspect AI eval (:mod:`inspect_run`) run with the hook not asked (no environment
variable, no metadata); then the hook's per-log work (:func:`write_for_log`, what
``on_run_end`` calls for each log) and :func:`write_outputs` on that log. Oracle:
``passhat.estimate(passhat.read(log), ...)`` with the same settings, computed here.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip(
    "inspect_ai", reason="inspect_ai is not installed (pip install 'passhat[inspect]')"
)

from inspect_run import run_eval

import passhat as ph
from passhat.errors import OptionError
from passhat.inspect import settings as settings_module
from passhat.inspect.hook import (
    PasshatHook,
    output_paths,
    reducer_ks,
    write_for_log,
    write_outputs,
)
from passhat.inspect.settings import ENV_VAR, HookSettings


@pytest.fixture(scope="module")
def quiet_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(ENV_VAR, raising=False)
        log_dir = tmp_path_factory.mktemp("hook") / "logs"
        log = run_eval(log_dir)
    return {"log": log, "path": Path(log.location), "dir": log_dir}


@pytest.fixture
def log_copy(quiet_run: dict[str, Any], tmp_path: Path) -> Path:
    """The run's log alone in a fresh directory (each test writes beside its own copy)."""
    target = tmp_path / quiet_run["path"].name
    target.write_bytes(quiet_run["path"].read_bytes())
    return target


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_not_asked_writes_nothing(quiet_run: dict[str, Any]) -> None:
    assert _files(quiet_run["dir"]) == [quiet_run["path"].name]


def test_environment_asks(
    quiet_run: dict[str, Any], log_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, '{"k": [1, 2], "ci": 0.8, "n_boot": 500, "seed": 5}')
    log = SimpleNamespace(location=str(log_copy), eval=quiet_run["log"].eval)
    written = write_for_log(log)
    assert written is not None and written.report is None
    doc = json.loads(written.estimate.read_text())
    oracle = ph.estimate(
        ph.read(log_copy), k=[1, 2], ci=0.8, n_boot=500, seed=5, on_short="exclude"
    )
    assert doc == json.loads(json.dumps(oracle.to_dict()))
    assert _files(log_copy.parent) == sorted([log_copy.name, f"passhat-{log_copy.stem}.json"])


def test_k_from_the_logs_reducers(quiet_run: dict[str, Any], log_copy: Path) -> None:
    log = SimpleNamespace(location=str(log_copy), eval=quiet_run["log"].eval)
    log.eval = quiet_run["log"].eval.model_copy(update={"metadata": {"passhat": True}})
    written = write_for_log(log)
    assert written is not None
    assert json.loads(written.estimate.read_text())["settings"]["k"] == [2]  # the reducers' k


def test_metadata_false_overrides_environment(
    quiet_run: dict[str, Any], log_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, "1")
    spec = quiet_run["log"].eval.model_copy(update={"metadata": {"passhat": False}})
    assert write_for_log(SimpleNamespace(location=str(log_copy), eval=spec)) is None
    assert _files(log_copy.parent) == [log_copy.name]


@pytest.mark.parametrize(
    ("location", "env", "message"),
    [
        (
            "s3://bucket/logs/run.eval",
            "1",
            "passhat: nothing written: s3://bucket/logs/run.eval: not a local file; passhat "
            "writes beside local logs only",
        ),
        (None, "{oops", "PASSHAT_INSPECT: not valid JSON"),
        (None, '{"scorer": "nope"}', ".eval: scorer 'nope' is not in the log; scorers: match"),
    ],
)
def test_problems_are_one_warning(
    quiet_run: dict[str, Any],
    log_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    location: str | None,
    env: str,
    message: str,
) -> None:
    monkeypatch.setenv(ENV_VAR, env)
    log = SimpleNamespace(location=location or str(log_copy), eval=quiet_run["log"].eval)
    with caplog.at_level(logging.WARNING, logger="passhat.inspect.hook"):
        assert write_for_log(log) is None
    [record] = caplog.records
    assert record.levelname == "WARNING" and record.message.startswith("passhat: ")
    assert message in record.message
    assert record.message.count(log.location) == 1  # the log named, once
    assert _files(log_copy.parent) == [log_copy.name]


def test_never_replaces_a_file(log_copy: Path) -> None:
    target, _ = output_paths(log_copy)
    target.write_text("someone else's notes")
    with pytest.raises(OptionError, match="exists; not replaced"):
        write_outputs(log_copy, HookSettings(k=(2,)))
    assert target.read_text() == "someone else's notes"
    assert write_outputs(log_copy, HookSettings(k=(2,)), force=True).estimate == target
    assert json.loads(target.read_text())["schema"] == "passhat.estimate"


def test_report_beside_the_log(log_copy: Path) -> None:
    written = write_outputs(log_copy, HookSettings(k=(2,), report=True, model=False))
    assert written.report == log_copy.with_name(f"passhat-{log_copy.stem}-report")
    report = json.loads((written.report / "results.json").read_text())
    doc = json.loads(written.estimate.read_text())
    ours = {(r["metric"], r["scope"]): r["value"] for r in doc["estimates"]}
    assert report["stamp"]["settings"]["k"] == [2]
    assert (written.report / "index.html").is_file() and (written.report / "report.md").is_file()
    assert ours[("pass_hat_k", "benchmark")] == pytest.approx(
        ph.estimate(ph.read(log_copy), k=2).value("pass_hat_k", 2), abs=1e-12
    )


def test_paths_and_reducer_ks() -> None:
    est, rep = output_paths("/logs/2025-01-01T00-00-00_task_x.json")
    assert (est.name, rep.name) == (
        "passhat-2025-01-01T00-00-00_task_x.json", "passhat-2025-01-01T00-00-00_task_x-report"
    )  # fmt: skip
    assert reducer_ks(["passhat/pass_hat_4", "pass_k_2", "passhat/pass_at_2", "max"]) == (2, 4)
    assert reducer_ks(None) is None and reducer_ks(["passhat/mean", "at_least_2"]) is None


def test_enabled_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from inspect_ai.hooks._hooks import get_all_hooks

    [hook] = [h for h in get_all_hooks() if isinstance(h, PasshatHook)]  # registered once
    monkeypatch.setitem(settings_module._state, "used", False)
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert not hook.enabled()
    monkeypatch.setenv(ENV_VAR, "1")
    assert hook.enabled()
    monkeypatch.setenv(ENV_VAR, "{bad")
    assert hook.enabled()  # on_run_end then says what is wrong with it
    monkeypatch.delenv(ENV_VAR)
    settings_module.mark_used()
    assert hook.enabled()
