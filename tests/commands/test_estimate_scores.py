"""``passhat estimate --scores`` (partial credit): the table, --curve, --thresholds, --json,
and bad input. Oracle: the Python API on the same file (the CLI prints what it computes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph

from .cli_helpers import bad, run, write

SCORES = (
    "system,task_id,trial,success,score\n"
    "A,t1,0,1,1.0\nA,t1,1,0,0.5\nA,t1,2,1,0.75\n"
    "A,t2,0,1,0.75\nA,t2,1,1,1.0\nA,t2,2,0,0.25\n"
    "A,t3,0,0,0.0\nA,t3,1,0,0.25\nA,t3,2,,\n"
)


def test_scores_table_json_and_curve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "s.csv", SCORES)
    rc, out, _ = run(capsys, ["estimate", path, "--k", "1,2", "--scores", "--curve"])
    assert rc == 0
    assert "worst of k" in out and "best of k" in out and "by pass threshold" in out
    rc, out, _ = run(capsys, ["estimate", path, "--k", "2", "--scores", "--json",
                              "--thresholds", "0.5,1"])  # fmt: skip
    doc = json.loads(out)
    api = ph.estimate(ph.read(path), k=[2], scores=[0.5, 1.0])
    want = api.table.set_index("metric")["value"]
    got = {r["metric"]: r["value"] for r in doc["estimates"]}
    assert got["worst_of_k"] == pytest.approx(want["worst_of_k"])
    assert [r["threshold"] for r in doc["curve"]] == [0.5, 1.0]


def test_scores_with_intervals_names_the_methods(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "s.csv", SCORES)
    rc, out, _ = run(capsys, ["estimate", path, "--k", "1,2", "--scores", "--ci", "0.9",
                              "--n-boot", "200"])  # fmt: skip
    assert rc == 0
    assert "within-task variance of each task's U-statistic" in out.replace("\n", " ")


def test_scores_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "s.csv", SCORES)
    bad(capsys, ["estimate", path, "--curve"], "--curve needs --scores")
    bad(capsys, ["estimate", path, "--thresholds", "0.5,nan"], "comma-separated")
    bad(capsys, ["estimate", path, "--scores", "--thresholds", "0.5,x"], "comma-separated")
    # found in QA: thresholds off the scores' [0, 1] (50 for 0.5) gave rows of all 0 or all 1
    # at exit 0, and an empty item was dropped without a word
    bad(capsys, ["estimate", path, "--thresholds", "50,80"], r"thresholds must lie in \[0, 1\]")
    bad(capsys, ["estimate", path, "--thresholds", "-0.1"], r"thresholds must lie in \[0, 1\]")
    bad(capsys, ["estimate", path, "--thresholds", "0.5,,0.6"], "comma-separated")
    high = write(tmp_path, "h.csv", SCORES.replace("0.75\nA,t2", "7.5\nA,t2"))
    bad(capsys, ["estimate", high, "--scores", "--k", "1"], r"task 't1'.*score 7.5 lies outside")


def test_by_category(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = ["task_id,trial,success,category"]
    rows += [f"t{t},{r},{int((t + r) % 3 > 0)},{'ab'[t % 2]}" for t in range(8) for r in range(3)]
    path = write(tmp_path, "c.csv", "\n".join(rows) + "\n")
    rc, out, _ = run(capsys, ["estimate", path, "--k", "1,2", "--by", "category"])
    assert rc == 0 and "estimate by category" in out and "permutation F test" in out
    rc, out, _ = run(capsys, ["estimate", path, "--k", "2", "--by", "category", "--json"])
    doc = json.loads(out)
    api = ph.estimate(ph.read(path), k=[2], by="category").by_category
    assert api is not None
    assert doc["category_tests"][0]["p_value"] == pytest.approx(api.tests["p_value"].iloc[0])
    assert len(doc["by_category"]) == len(api.table)
    bad(capsys, ["estimate", write(tmp_path, "s.csv", SCORES), "--by", "category"],
        "no category column to estimate by")  # fmt: skip


def test_cost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = ["task_id,trial,success,cost"]
    rows += [f"t{t},{r},{int((t + r) % 3 > 0)},{0.5 + t / 10}" for t in range(4) for r in range(3)]
    path = write(tmp_path, "c.csv", "\n".join(rows) + "\n")
    rc, out, _ = run(capsys, ["estimate", path, "--k", "1,2", "--cost"])
    assert rc == 0 and "cost / all-k-pass" in out
    rc, out, _ = run(capsys, ["estimate", path, "--k", "2", "--cost", "--json"])
    api = ph.estimate(ph.read(path), k=[2]).cost
    assert api is not None
    got = json.loads(out)["cost"][0]["cost_per_all_k_pass"]
    assert got == pytest.approx(api.table["cost_per_all_k_pass"].iloc[0])
    bad(capsys, ["estimate", write(tmp_path, "s.csv", SCORES), "--cost"],
        "--cost needs runs with a cost column")  # fmt: skip


def test_scores_and_cost_read_a_large_file_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the streaming threshold (lowered here) ``estimate`` counts a file as it streams;
    --scores and --cost need each run's score and cost, so they read it whole."""
    import passhat.io._registry as registry

    path = write(tmp_path, "s.csv", SCORES.replace("A,t3,2,,\n", "A,t3,2,0,0.5\n") + "")
    monkeypatch.setattr(registry, "STREAM_ROWS", 3)
    assert not isinstance(ph.read(path), ph.Trials)  # streamed into counts
    rc, out, err = run(capsys, ["estimate", path, "--k", "2", "--scores", "--json"])
    assert rc == 0, err
    assert "worst_of_k" in {r["metric"] for r in json.loads(out)["estimates"]}
    costly = write(tmp_path, "c.csv", "task_id,trial,success,cost\na,0,1,1\na,1,0,2\nb,0,1,1\n"
                   "b,1,1,1\n")  # fmt: skip
    rc, out, err = run(capsys, ["estimate", costly, "--k", "1", "--cost", "--json"])
    assert rc == 0, err
    assert json.loads(out)["cost"][0]["cost_per_run"] == pytest.approx(1.25)


def test_json_documents_validate_against_their_schemas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("jsonschema")
    from passhat import schemas

    rows = ["task_id,trial,success,score,category,cost"]
    rows += [
        f"t{t},{r},{int((t + r) % 3 > 0)},{((t + r) % 5) / 4 if (t + r) % 5 < 5 else 1},"
        f"{'ab'[t % 2]},{0.1 + t / 100}"
        for t in range(12)
        for r in range(3)
    ]
    path = write(tmp_path, "all.csv", "\n".join(rows).replace(",1.25,", ",1.0,") + "\n")
    rc, out, err = run(capsys, ["estimate", path, "--k", "1,2", "--scores", "--by", "category",
                                "--cost", "--ci", "0.9", "--n-boot", "100", "--json"])  # fmt: skip
    assert rc == 0, err
    doc = json.loads(out)
    schemas.validate(doc)
    assert {"curve", "by_category", "category_tests", "cost"} <= set(doc)
    est = ph.estimate(ph.read(path), k=[1, 2], scores=True, by="category", ci=0.9, n_boot=100)
    assert est.curve is not None and est.by_category is not None and est.cost is not None
    for part in (est.curve, est.by_category, est.cost):
        schemas.validate(json.loads(json.dumps(part.to_dict())))
