"""Inspect AI log reader, checked against Inspect AI itself.

Oracle: a real ``.eval`` log written in this test by ``inspect_ai.eval`` (model
``mockllm/model``, a solver that sets the output itself: no model call, no
network), 5 epochs, with Inspect's own ``pass_k(k)`` / ``pass_at(k)`` epoch
reducers. Inspect writes the per-sample reductions (``log.reductions``) and
their benchmark means (``log.results``); passhat's estimates from the same log
must equal them. Some sample/epochs raise in the solver (kept with
``fail_on_error=False``): Inspect leaves them out of its reductions, passhat
must count them as unscored and leave them out of n.

Traces: a second ``.eval`` log written by ``inspect_ai.eval`` with a solver
that appends the tool calls and tool answers itself (no model call, no
network); the calls per epoch are the plan's.
"""

from __future__ import annotations

import json
import math
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import passhat as ph
from passhat.errors import DependencyError, FormatError, OptionError

inspect_ai = pytest.importorskip("inspect_ai")

EPOCHS = 5
KS = (1, 2, 3, 4)
# per sample, the score letter of epochs 1..5 ("E" = the solver raises there)
PATTERN = {
    "always": "CCCCC",
    "flaky": "CCICI",
    "never": "IIIII",
    "one_error": "CECCC",  # 4 decided runs, 4 successes
    "partial": "CPCPC",  # P = 0.5 < 1: a failure at the default threshold
    "two_errors": "EINEC",  # 3 decided: I, N, C
}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from inspect_ai import Epochs, Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.log import write_eval_log
    from inspect_ai.scorer import Score, accuracy, pass_at, pass_k, scorer
    from inspect_ai.solver import solver

    tmp = tmp_path_factory.mktemp("inspect")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("INSPECT_LOG_DIR", str(tmp / "logs"))
        mp.setenv("INSPECT_DISPLAY", "none")
        mp.setenv("INSPECT_CACHE_DIR", str(tmp / "cache"))

        @solver
        def scripted():  # type: ignore[no-untyped-def]
            async def solve(state, generate):  # type: ignore[no-untyped-def]
                letter = PATTERN[str(state.sample_id)][state.epoch - 1]
                if letter == "E":
                    raise RuntimeError(f"boom in {state.sample_id} epoch {state.epoch}")
                state.output.completion = letter
                return state

            return solve

        @scorer(metrics=[accuracy()])
        def letter():  # type: ignore[no-untyped-def]
            async def score(state, target):  # type: ignore[no-untyped-def]
                return Score(value=state.output.completion)

            return score

        @scorer(metrics=[accuracy()])
        def lenient():  # type: ignore[no-untyped-def]
            async def score(state, target):  # type: ignore[no-untyped-def]
                return Score(value="C" if state.output.completion in ("C", "P") else "I")

            return score

        reducers = [pass_k(k) for k in KS] + [pass_at(k) for k in KS]
        task = Task(
            dataset=[Sample(id=sid, input=f"question {sid}", target="C") for sid in PATTERN],
            solver=scripted(),
            scorer=[letter(), lenient()],
            epochs=Epochs(EPOCHS, reducer=reducers),
        )
        [log] = inspect_eval(
            task, model="mockllm/model", fail_on_error=False, display="none", log_format="eval"
        )
    eval_path = Path(log.location)
    json_path = tmp / "same-log.json"
    write_eval_log(log, str(json_path), format="json")
    return {"log": log, "eval": eval_path, "json": json_path, "tmp": tmp}


def _reduction(log: Any, scorer: str, reducer: str) -> dict[str, float]:
    for red in log.reductions:
        if red.scorer == scorer and red.reducer == reducer:
            return {str(s.sample_id): float(s.value) for s in red.samples}
    raise KeyError((scorer, reducer))


def test_log_was_written_with_errors(logs: dict[str, Any]) -> None:
    assert logs["eval"].suffix == ".eval" and logs["eval"].exists()
    errored = [s for s in logs["log"].samples if s.error is not None]
    assert len(errored) == 3  # one_error e2, two_errors e1 and e4


@pytest.mark.parametrize("kind", ["eval", "json"])
def test_counts_and_unscored(logs: dict[str, Any], kind: str) -> None:
    t = ph.read_trials(logs[kind], scorer="letter")  # sniffed
    assert t.source["format"] == "inspect"
    assert t.systems == ["mockllm/model"]
    ds = t.counts().sel(system="mockllm/model")
    n = dict(zip(ds["task"].values, ds["n"].values.tolist(), strict=True))
    c = dict(zip(ds["task"].values, ds["c"].values.tolist(), strict=True))
    uns = dict(zip(ds["task"].values, ds["unscored"].values.tolist(), strict=True))
    for sid, pat in PATTERN.items():
        assert n[sid] == EPOCHS - pat.count("E"), sid
        assert c[sid] == pat.count("C"), sid  # P and N fail at threshold 1
        assert uns[sid] == pat.count("E"), sid
    f = t.frame.set_index(["task_id", "trial"])
    assert f.loc[("one_error", 2), "status"] == "error"
    assert "boom in one_error epoch 2" in f.loc[("one_error", 2), "error"]
    assert f.loc[("two_errors", 3), "status"] == "no_answer"
    assert bool(f.loc[("two_errors", 3), "success"]) is False
    assert t.source["errored_samples"] == 3
    assert sorted(t.frame["trial"].unique().tolist()) == [1, 2, 3, 4, 5]  # 1-based epochs


@pytest.mark.parametrize("scorer", ["letter", "lenient"])
def test_per_sample_matches_inspect_reducers(logs: dict[str, Any], scorer: str) -> None:
    """Every per-sample pass_k_{k} / pass_at_{k} value Inspect wrote equals passhat's."""
    t = ph.read_trials(logs["eval"], scorer=scorer)
    per = ph.per_task_metrics(t.counts(), list(KS)).sel(system="mockllm/model")
    for k in KS:
        for metric, reducer in (("pass_hat_k", f"pass_k_{k}"), ("pass_at_k", f"pass_at_{k}")):
            theirs = _reduction(logs["log"], scorer, reducer)
            assert sorted(theirs) == sorted(PATTERN)
            for sid, value in theirs.items():
                ours = float(per[metric].sel(task=sid, k=k))
                if math.isnan(value):  # Inspect: fewer than k scored epochs
                    assert math.isnan(ours), (sid, reducer)
                else:
                    assert ours == pytest.approx(value, abs=1e-12), (sid, reducer)


def test_benchmark_matches_inspect_metrics(logs: dict[str, Any]) -> None:
    """The benchmark values equal Inspect's accuracy over its reduced scores."""
    log = logs["log"]
    t = ph.read_trials(logs["eval"], scorer="letter")
    # k ≤ 3: every sample has at least 3 decided epochs
    est = ph.estimate(t, k=[1, 2, 3]).table
    theirs = {
        (s.scorer, s.reducer): s.metrics["accuracy"].value
        for s in log.results.scores
        if s.scorer == "letter"
    }
    for k in (1, 2, 3):
        row = est[est["k"] == k].set_index("metric")["value"]
        assert row["pass_hat_k"] == pytest.approx(theirs[("letter", f"pass_k_{k}")], abs=1e-12)
        assert row["pass_at_k"] == pytest.approx(theirs[("letter", f"pass_at_{k}")], abs=1e-12)
    # k = 4: two_errors has n = 3 < 4 → passhat refuses, naming the task ...
    with pytest.raises(ph.errors.ShortTaskError, match="two_errors"):
        ph.estimate(t, k=4)
    # ... or excludes it on request; Inspect's reducer gives NaN for it instead.
    ex = ph.estimate(t, k=4, on_short="exclude")
    assert ex.excluded["task"].tolist() == ["two_errors"]
    reduced = _reduction(log, "letter", "pass_k_4")
    finite = [v for v in reduced.values() if not math.isnan(v)]
    ours = ex.table.query("k == 4 and metric == 'pass_hat_k'")["value"].item()
    assert ours == pytest.approx(np.mean(finite), abs=1e-12)


def test_threshold_counts_partial(logs: dict[str, Any]) -> None:
    # P = 0.5 ≥ 0.5 → success; N = 0 stays a failure
    t = ph.read_trials(logs["eval"], scorer="letter", threshold=0.5)
    ds = t.counts().sel(system="mockllm/model")
    assert int(ds["c"].sel(task="partial")) == 5
    assert int(ds["c"].sel(task="two_errors")) == 1


def test_scorer_choice_errors(logs: dict[str, Any]) -> None:
    with pytest.raises(OptionError, match=r"several scorers \(letter, lenient\)"):
        ph.read_trials(logs["eval"])
    with pytest.raises(OptionError, match=r"scorer 'nope' is not in the log; scorers: letter"):
        ph.read_trials(logs["eval"], scorer="nope")


def test_errors_as_failures(logs: dict[str, Any]) -> None:
    t = ph.read_trials(logs["eval"], scorer="letter", errors="failure")
    ds = t.counts().sel(system="mockllm/model")
    assert int(ds["n"].sel(task="two_errors")) == 5
    assert int(ds["unscored"].sum()) == 0


def test_not_an_inspect_log(tmp_path: Path) -> None:
    csv = tmp_path / "runs.csv"
    csv.write_text("task_id,success\na,1\n")
    with pytest.raises(FormatError, match=r"runs\.csv: not an Inspect AI log"):
        ph.read_trials(csv, format="inspect")
    fake = tmp_path / "fake.eval"
    with zipfile.ZipFile(fake, "w") as z:
        z.writestr("hello.txt", "not a log")
    with pytest.raises(FormatError, match=r"fake\.eval: not an Inspect AI log"):
        ph.read_trials(fake, format="inspect")
    obj = tmp_path / "obj.json"
    obj.write_text('{"a": 1}')
    with pytest.raises(FormatError, match=r"obj\.json: not an Inspect AI log"):
        ph.read_trials(obj, format="inspect")


def test_missing_dependency_names_the_extra(
    logs: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import fails
    with pytest.raises(DependencyError, match=r"pip install 'passhat\[inspect\]'"):
        ph.read_trials(logs["eval"], format="inspect", scorer="letter")


def test_value_mapping() -> None:
    from passhat.io.inspect_log import inspect_value_to_float as f

    assert [f(v) for v in ("C", "I", "P", "N", "yes", "false", True, 3, "0.25")] == [
        1.0,
        0.0,
        0.5,
        0.0,
        1.0,
        0.0,
        1.0,
        3.0,
        0.25,
    ]
    assert f({"a": 1}) is None and f("banana") is None


def test_cli_reads_the_log(logs: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    from passhat.cli import main

    args = ["estimate", str(logs["eval"]), "--map", "scorer=letter", "--k", "1,2,3", "--json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    theirs = {
        s.reducer: s.metrics["accuracy"].value
        for s in logs["log"].results.scores
        if s.scorer == "letter"
    }
    for e in doc["estimates"]:
        if e["metric"] == "pass_hat_k":
            assert e["value"] == pytest.approx(theirs[f"pass_k_{e['k']}"], abs=1e-12)
    assert doc["summary"][0]["unscored"] == 3
    # several scorers and none chosen: one line naming them
    assert main(["estimate", str(logs["eval"])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "several scorers (letter, lenient)" in err[0]


# --------------------------------------------------------------- traces
# per sample: the tool calls of epochs 1..3 and whether the epoch is correct
TRACE_PLAN = {
    "s1": [
        (["lookup", "check", "pay"], "C"),
        (["lookup", "pay"], "I"),
        (["lookup", "check", "pay"], "C"),
    ],
}


@pytest.fixture(scope="module")
def inspect_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool
    from inspect_ai.tool import ToolCall, ToolCallError

    from inspect_testdata import scripted_eval

    def act(state: Any) -> None:
        calls, letter = TRACE_PLAN[str(state.sample_id)][state.epoch - 1]
        for j, name in enumerate(calls):
            cid = f"c{j}"
            state.messages.append(
                ChatMessageAssistant(
                    content="",
                    tool_calls=[ToolCall(id=cid, function=name, arguments={"n": j})],
                )
            )
            err = ToolCallError("permission", "denied") if name == "pay" else None
            state.messages.append(
                ChatMessageTool(content="done", tool_call_id=cid, function=name, error=err)
            )
        state.output.completion = letter

    return scripted_eval(tmp_path_factory.mktemp("inspect_traces"), list(TRACE_PLAN), 3, act)


def test_inspect_log_traces(inspect_log: Path) -> None:
    tr = ph.read_traces(inspect_log)  # sniffed from .eval
    assert tr.source["format"] == "inspect"
    s = tr.steps
    assert s.groupby("trial")["action"].apply(list).to_dict() == {
        1: ["lookup", "check", "pay"],
        2: ["lookup", "pay"],
        3: ["lookup", "check", "pay"],
    }
    assert set(s.loc[s["action"] == "pay", "status"]) == {"error"}
    assert tr.trials["success"].tolist() == [True, False, True]
    d = ph.divergence(tr, ignore_args=True)
    assert d.table[["trial", "step", "kind", "marker"]].values.tolist() == [
        [2, 2, "skips", "check"]
    ]


def test_inspect_missing_dependency(monkeypatch: pytest.MonkeyPatch, inspect_log: Path) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(ph.DependencyError, match=r"passhat\[inspect\]"):
        ph.read_traces(inspect_log, format="inspect")


@pytest.mark.parametrize("epoch", [0, -1])
def test_epoch_below_one_is_refused_naming_file_and_sample(
    logs: dict[str, Any], tmp_path: Path, epoch: int
) -> None:
    """An edited log with epoch 0 was read as trial 0 of the task. Oracle: Inspect's own
    logs number epochs from 1 (test_counts_and_unscored); the real log below, with one
    sample's epoch set to ``epoch``, must be refused naming the file, sample and epoch."""
    doc = json.loads(logs["json"].read_text())
    sample = next(s for s in doc["samples"] if s["id"] == "flaky" and s["epoch"] == 1)
    sample["epoch"] = epoch
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc))
    with pytest.raises(
        FormatError, match=rf"edited\.json: sample 'flaky' epoch {epoch}: .*1-based"
    ):
        ph.read_trials(edited, format="inspect", scorer="letter")
    with pytest.raises(FormatError, match=rf"sample 'flaky' epoch {epoch}"):
        ph.read_traces(edited, format="inspect", scorer="letter")
