"""promptfoo ``--output results.json`` reader.

Fixture (tests/io/data/promptfoo/results.json, written by hand in the shape of promptfoo's
``EvaluateSummaryV3`` / ``EvaluateResult`` of ``src/types/index.ts`` inside the output file
``{evalId, results, config, shareableUrl, metadata}``): two providers, one prompt, three tests
with descriptions, ``evaluateOptions.repeat`` 3, so test t's repeat r has testIdx 3t + r as
``src/evaluator.ts`` numbers them; one row of claude is an API error (failureReason 2).
Oracles: counts by hand, and promptfoo's own ``stats`` (successes / failures / errors) and
per-prompt ``metrics`` (testPassCount / testFailCount / testErrorCount).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from framework_data import cells, write_promptfoo

import passhat as ph
from passhat.errors import FormatError, OptionError

FILE = Path(__file__).parent / "data" / "promptfoo" / "results.json"
GPT, CLAUDE = "openai:gpt-4o-mini", "claude-3-5-haiku"


def test_repeats_grouped_into_tests_counted_by_hand() -> None:
    """gpt-4o-mini: TTT, TFT, FFT; claude (label claude-3-5-haiku): TTT, TT+error, FTF."""
    t = ph.read_trials(FILE)
    assert t.systems == [GPT, CLAUDE]
    assert cells(t) == {
        (GPT, "capital of France"): [3, 3, 0],
        (GPT, "refund policy tone"): [3, 2, 0],
        (GPT, "order status as JSON"): [3, 1, 0],
        (CLAUDE, "capital of France"): [3, 3, 0],
        (CLAUDE, "refund policy tone"): [2, 2, 1],
        (CLAUDE, "order status as JSON"): [3, 1, 0],
    }
    err = t.frame[t.frame["status"] == "error"]
    assert err["test_idx"].tolist() == [5] and "529 Overloaded" in err["error"].iloc[0]
    refund = t.frame[(t.frame["system"] == GPT) & (t.frame["task_id"] == "refund policy tone")]
    assert refund.sort_values("trial")["test_idx"].tolist() == [3, 4, 5]
    assert any("evaluateOptions.repeat = 3" in n for n in t.notes)


def test_promptfoos_own_stats() -> None:
    doc = json.loads(FILE.read_text())
    stats = doc["results"]["stats"]
    ds = ph.read_trials(FILE).counts()
    assert int(ds["c"].sum()) == stats["successes"] == 12
    assert int((ds["n"] - ds["c"]).sum()) == stats["failures"] == 5
    assert int(ds["unscored"].sum()) == stats["errors"] == 1
    for prompt, system in zip(doc["results"]["prompts"], (GPT, CLAUDE), strict=True):
        m = prompt["metrics"]
        one = ds.sel(system=system)
        got = (int(one["c"].sum()), int((one["n"] - one["c"]).sum()), int(one["unscored"].sum()))
        assert got == (m["testPassCount"], m["testFailCount"], m["testErrorCount"])


def test_errors_as_failures() -> None:
    ds = ph.read_trials(FILE, errors="failure").counts()
    assert int(ds["unscored"].sum()) == 0 and int(ds["n"].sum()) == 18
    with pytest.raises(OptionError, match="errors must be 'unscored' or 'failure'"):
        ph.read_trials(FILE, errors="skip")


def test_the_larger_eval(tmp_path: Path) -> None:
    truth = write_promptfoo(tmp_path)
    t = ph.read_trials(tmp_path / "results.json")
    assert cells(t) == truth.cells
    ds = t.counts()
    assert int(ds["c"].sum()) == truth.summary["successes"]
    assert int(ds["unscored"].sum()) == truth.summary["errors"]


def test_tests_without_descriptions_are_named_by_their_first_test_index(tmp_path: Path) -> None:
    doc = json.loads(FILE.read_text())
    for r in doc["results"]["results"]:
        del r["testCase"]["description"]
    f = tmp_path / "results.json"
    f.write_text(json.dumps(doc))
    t = ph.read_trials(f)
    assert sorted(set(t.frame["task_id"])) == ["0", "3", "6"]  # grouped by vars
    assert any("named by the testIdx of their first run" in n for n in t.notes)


def test_one_provider_with_two_prompts_is_two_systems(tmp_path: Path) -> None:
    doc = json.loads(FILE.read_text())
    rows = [r for r in doc["results"]["results"] if r["promptIdx"] == 0]
    extra = [dict(r, promptIdx=1, success=not r["success"]) for r in rows]
    doc["results"]["results"] = rows + extra
    doc["results"]["prompts"] = [dict(doc["results"]["prompts"][0], label="terse"),
                                 dict(doc["results"]["prompts"][0], label="polite")]  # fmt: skip
    f = tmp_path / "results.json"
    f.write_text(json.dumps(doc))
    assert ph.read_trials(f).systems == [f"{GPT}: terse", f"{GPT}: polite"]


def test_old_and_foreign_json_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "results.json"
    f.write_text(json.dumps({"evalId": "x", "results": {"version": 1, "results": [{}]}}))
    with pytest.raises(FormatError, match="promptfoo results version 1"):
        ph.read_trials(f)
    doc = json.loads(FILE.read_text())
    doc["results"]["results"].append(doc["results"]["results"][0])
    f.write_text(json.dumps(doc))
    with pytest.raises(FormatError, match=r"testIdx 0 appears 2 times for 'openai:gpt-4o-mini'"):
        ph.read_trials(f)


def test_estimate_with_no_options(capsys: pytest.CaptureFixture[str]) -> None:
    from passhat.cli import main

    assert main(["estimate", str(FILE), "--k", "1"]) == 0
    assert CLAUDE in capsys.readouterr().out


def test_two_tests_that_differ_only_in_their_assertions_stay_two(tmp_path: Path) -> None:
    row = {"promptIdx": 0, "provider": {"id": "p"}, "vars": {"q": "2+2"}, "success": True,
           "score": 1, "failureReason": 0}  # fmt: skip
    rows = [
        dict(row, testIdx=i, testCase={"vars": {"q": "2+2"}, "assert": [{"type": kind}]})
        for i, kind in enumerate(["contains", "contains", "is-json", "is-json"])
    ]
    f = tmp_path / "results.json"
    f.write_text(json.dumps({"evalId": "e", "results": {"version": 3, "results": rows}}))
    t = ph.read_trials(f)
    assert cells(t) == {("p", "0"): [2, 2, 0], ("p", "2"): [2, 2, 0]}


def test_export_file_with_long_prompts_is_sniffed(tmp_path: Path) -> None:
    """``promptfoo export EVAL_ID -o x.json`` writes ``toResultsFile()``: ``{version: 4,
    createdAt, results: {version: 3, timestamp, prompts, results, stats}, config, ...}`` with no
    evalId; prompts longer than the sniffed head (RAG context) hid every result key."""
    doc = json.loads(FILE.read_text(encoding="utf-8"))
    summary = doc["results"]
    for p in summary["prompts"]:
        p["raw"] = p["label"] = "context " * 12_000  # ~96 KB per prompt, before the results
    export = {"version": 4, "createdAt": "2025-03-01T10:00:00.000Z", "results": summary}
    export |= {"config": doc["config"], "author": None, "prompts": [], "datasetId": None}
    f = tmp_path / "export.json"
    f.write_text(json.dumps(export, indent=2), encoding="utf-8")
    t = ph.read_trials(f)
    assert t.systems == [GPT, CLAUDE] and cells(t) == cells(ph.read_trials(FILE))


def test_two_multiline_prompts_of_one_provider_are_two_systems(tmp_path: Path) -> None:
    """promptfoo labels an inline prompt with its text; two multi-line prompts made system names
    with line breaks, and the whole file was refused ("contains a control character")."""
    doc = json.loads(FILE.read_text(encoding="utf-8"))
    summary = doc["results"]
    rows = [r for r in summary["results"] if r["provider"]["id"] == GPT]
    long = "You are terse. " * 10
    labels = ["You are helpful.\nAnswer: {{question}}", f"{long}\nAnswer: {{{{question}}}}"]
    summary["prompts"] = [
        {**summary["prompts"][0], "raw": lab, "label": lab, "id": f"{i}" * 64}
        for i, lab in enumerate(labels)
    ]
    summary["results"] = [{**r, "promptIdx": i} for r in rows for i in range(2)]
    f = tmp_path / "results.json"
    f.write_text(json.dumps(doc), encoding="utf-8")
    t = ph.read_trials(f)
    short = f"{GPT}: You are helpful. Answer: {{{{question}}}}"
    cut = f"{GPT}: {' '.join(long.split())[:48]}… (11111111)"
    assert t.systems == [short, cut]
    assert cells(t)[(short, "refund policy tone")] == cells(t)[(cut, "refund policy tone")]


def test_a_multiline_description_names_tests_by_index(tmp_path: Path) -> None:
    """A test ``description: |`` of two lines made a task id with a line break: the whole file
    was refused. Tests are then named by the testIdx of their first run, with the note."""
    doc = json.loads(FILE.read_text(encoding="utf-8"))
    for r in doc["results"]["results"]:
        if r["testCase"]["description"] == "refund policy tone":
            r["testCase"]["description"] = "refund policy\ntone"
    f = tmp_path / "results.json"
    f.write_text(json.dumps(doc), encoding="utf-8")
    t = ph.read_trials(f)
    assert sorted(cells(t).values()) == sorted(cells(ph.read_trials(FILE)).values())
    assert any("or hold line breaks" in n for n in t.notes)
