"""SWE-bench reader: harness run reports and the experiments layout.

Fixtures (tests/io/data/swebench, written by hand): three run reports
``claude-3-5-sonnet-20241022.run{1,2,3}.json`` in the shape ``make_run_report`` writes
(SWE-bench/SWE-bench ``swebench/harness/reporting.py``, schema_version 2: six submitted
instances of an eight-instance dataset, with empty patches, errors, environment-tier infra
failures and their ``failure_reasons``); ``evaluation/verified/<submission>/results/results.json``
of the SWE-bench/experiments layout, one current (``resolved``, ``no_generation``,
``no_logs``) and one older (``generated``, ``with_logs``, ``no_apply``, ...), with the split's
instance list. Oracles: counts by hand and the reports' own resolved counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from framework_data import cells, write_swebench

import passhat as ph
from passhat.errors import FormatError, OptionError
from passhat.io.swebench import load_instances

DATA = Path(__file__).parent / "data" / "swebench"
REPORTS = DATA / "reports"
SPLIT = DATA / "evaluation" / "verified"
IDS = DATA / "instances_verified_subset.txt"
MODEL = "claude-3-5-sonnet-20241022"


def test_three_run_reports_are_three_trials_counted_by_hand() -> None:
    """Runs 1-3 (R resolved, U unresolved, E empty patch, X error, I infra failure):
    astropy R R R; django-11099 R R U; django-11133 R U R; pytest-5221 U X(I) U;
    sphinx-8721 E U U(I); sympy-20590 U R U."""
    t = ph.read_trials(REPORTS)
    assert t.systems == [MODEL]
    assert cells(t) == {
        (MODEL, "astropy__astropy-12907"): [3, 3, 0],
        (MODEL, "django__django-11099"): [3, 2, 0],
        (MODEL, "django__django-11133"): [3, 2, 0],
        (MODEL, "pytest-dev__pytest-5221"): [2, 0, 1],
        (MODEL, "sphinx-doc__sphinx-8721"): [2, 0, 1],
        (MODEL, "sympy__sympy-20590"): [3, 1, 0],
    }
    f = t.frame.set_index(["task_id", "trial"])
    assert f.loc[("sphinx-doc__sphinx-8721", 0), "status"] == "empty_patch"
    assert f.loc[("pytest-dev__pytest-5221", 1), "status"] == "infra_failure"
    assert f.loc[("pytest-dev__pytest-5221", 1), "failure_reason"] == "container_unavailable"
    assert f.loc[("sphinx-doc__sphinx-8721", 2), "failure_reason"] == "out_of_memory"
    assert f.loc[("pytest-dev__pytest-5221", 0), "failure_reason"] == "no_tests_collected"
    assert f.loc[("pytest-dev__pytest-5221", 0), "success"] == False  # noqa: E712 (ambiguous: kept)
    assert sorted(set(t.frame["swebench_run"])) == ["run1", "run2", "run3"]
    assert any("(incomplete_ids) were not run" in n for n in t.notes)


@pytest.mark.parametrize("run", [1, 2, 3])
def test_the_reports_own_resolved_count(run: int) -> None:
    f = REPORTS / f"{MODEL}.run{run}.json"
    report = json.loads(f.read_text())
    t = ph.read_trials(f)
    ds = t.counts()
    assert int(ds["c"].sum()) == report["resolved_instances"] == len(report["resolved_ids"])
    infra = set(report["infra_failure_ids"])
    decided = (
        report["resolved_instances"]
        + report["empty_patch_instances"]
        + len(set(report["unresolved_ids"]) - infra)
    )
    assert int(ds["n"].sum()) == decided
    assert int(ds["unscored"].sum()) == len(set(report["error_ids"]) | infra)
    assert len(t) == report["submitted_instances"]


def test_many_reports_of_two_models(tmp_path: Path) -> None:
    truth = write_swebench(tmp_path)
    t = ph.read_trials(tmp_path)
    assert cells(t) == truth.cells
    for (model, run), resolved in truth.summary.items():
        one = ph.read_trials(tmp_path / f"{model}.run-{run}.json")
        assert int(one.counts()["c"].sum()) == resolved


def test_the_experiments_layout_needs_the_split_instances() -> None:
    with pytest.raises(OptionError, match=r"results\.json lists resolved \(4\), no_generation "):
        ph.read_trials(SPLIT)
    t = ph.read_trials(SPLIT, instances=str(IDS))
    new, old = "20250315_agent_new", "20240620_agent_old"
    got = cells(t)
    # current layout: 4 resolved, no_generation sympy-13146 (a failure), no_logs django-15851
    # (unscored); the other 2 of the 8 split instances are unresolved
    some = ("astropy__astropy-12907", "sympy__sympy-13146", "django__django-15851")
    assert [got[(new, i)] for i in some] == [[1, 1, 0], [1, 0, 0], [0, 0, 1]]
    assert got[(new, "pytest-dev__pytest-5221")] == [1, 0, 0]
    assert sum(v[1] for (s, _), v in got.items() if s == new) == 4
    assert sum(v[0] + v[2] for (s, _), v in got.items() if s == new) == 8
    # older layout: generated ∖ with_logs (sphinx-8721) is unscored, no_apply is a failure
    f = t.frame[t.frame["system"] == old].set_index("task_id")
    assert f.loc["sphinx-doc__sphinx-8721", "status"] == "no_logs"
    assert f.loc["pytest-dev__pytest-5221", "status"] == "no_apply"
    assert f.loc["django__django-15851", "status"] == "no_generation"
    assert int(f["success"].sum()) == 2


def test_an_older_submission_reads_without_the_instance_list() -> None:
    t = ph.read_trials(SPLIT / "20240620_agent_old")
    assert t.systems == ["20240620_agent_old"] and len(t) == 8  # generated ∪ no_generation


def test_instance_lists_in_three_forms(tmp_path: Path) -> None:
    ids = IDS.read_text().split()
    (tmp_path / "a.json").write_text(json.dumps(ids))
    (tmp_path / "b.jsonl").write_text("\n".join(json.dumps({"instance_id": i}) for i in ids))
    for f in (IDS, tmp_path / "a.json", tmp_path / "b.jsonl"):
        assert load_instances(f) == ids
    (tmp_path / "c.json").write_text(json.dumps([1, 2]))
    with pytest.raises(FormatError, match="not a list of instance ids"):
        load_instances(tmp_path / "c.json")
    with pytest.raises(FormatError, match=r"is not in the instance list given"):
        ph.read_trials(SPLIT / "20250315_agent_new", instances=str(_short(tmp_path, ids)))


def _short(tmp_path: Path, ids: list[str]) -> Path:
    f = tmp_path / "short.txt"
    f.write_text("\n".join(ids[:3]))
    return f


def test_an_instance_in_two_outcome_lists_is_refused(tmp_path: Path) -> None:
    doc = json.loads((REPORTS / f"{MODEL}.run1.json").read_text())
    doc["unresolved_ids"].append(doc["resolved_ids"][0])
    f = tmp_path / "m.r.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(FormatError, match=r"is in both resolved_ids and unresolved_ids"):
        ph.read_trials(f)


def test_estimate_with_no_options(capsys: pytest.CaptureFixture[str]) -> None:
    from passhat.cli import main

    for path in (REPORTS, REPORTS / f"{MODEL}.run1.json", SPLIT / "20240620_agent_old"):
        assert main(["estimate", str(path), "--k", "1"]) == 0
        capsys.readouterr()


@pytest.mark.parametrize(
    "given", ["logs", "logs/run_evaluation", "logs/run_evaluation/run1/m", "file"]
)
def test_per_instance_logs_are_refused_naming_the_run_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    """``logs/run_evaluation/<run_id>/<model>/<instance>/report.json`` leave out empty patches
    (failures the harness never runs) and errored instances: reading them would drop failures.
    They were refused as "a directory with no data files (.csv, ...)" or "not a format passhat
    recognises"."""
    from passhat.cli import main

    inst = tmp_path / "logs" / "run_evaluation" / "run1" / "m" / "django__django-11099"
    inst.mkdir(parents=True)
    outcome = {"patch_is_None": False, "patch_exists": True, "patch_successfully_applied": True}
    report = {"django__django-11099": {**outcome, "resolved": True, "tests_status": {}}}
    (inst / "report.json").write_text(json.dumps(report))
    (inst / "run_instance.log").write_text("log\n")
    target = inst / "report.json" if given == "file" else tmp_path / given
    code = main(["estimate", str(target), "--k", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "SWE-bench's per-instance logs" in err[0] and "<model>.<run_id>.json" in err[0]


@pytest.mark.parametrize("shape", ["all_preds.jsonl", "preds.json", "preds_by_id.json"])
def test_predictions_say_to_run_the_harness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str
) -> None:
    """SWE-bench predictions hold patches, not verdicts: the message said to add a success
    column, or to convert the JSON array to JSON lines (which then lacked 'success')."""
    from passhat.cli import main

    preds = [
        {"instance_id": f"django__django-{i}", "model_name_or_path": "m", "model_patch": "diff"}
        for i in range(2)
    ]
    f = tmp_path / shape
    if shape.endswith(".jsonl"):
        f.write_text("".join(json.dumps(p) + "\n" for p in preds))
    else:
        f.write_text(
            json.dumps(preds if shape == "preds.json" else {p["instance_id"]: p for p in preds})
        )
    code = main(["estimate", str(f), "--k", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "SWE-bench predictions" in err[0] and "swebench.harness.run_evaluation" in err[0]
    assert "jq -c" not in err[0] and "pass format=" not in err[0]


def test_gzip_run_reports_read_like_the_plain_ones(tmp_path: Path) -> None:
    """A gzip'd run report was sniffed as SWE-bench (the sniffer looks through gzip) and then
    refused by the reader ("no SWE-bench results"), which read the raw bytes."""
    import gzip

    d = tmp_path / "reports"
    d.mkdir()
    for f in sorted(REPORTS.glob("*.json")):
        (d / f"{f.name}.gz").write_bytes(gzip.compress(f.read_bytes()))
    plain, zipped = ph.read_trials(REPORTS), ph.read_trials(d)
    assert zipped.systems == plain.systems and cells(zipped) == cells(plain)
    one = ph.read_trials(d / "claude-3-5-sonnet-20241022.run1.json.gz")
    assert one.systems == ["claude-3-5-sonnet-20241022"]
