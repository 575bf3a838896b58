"""CLI of the uncertainty issue: estimate --ci/--per-task, compare, slices.

Oracles: the Python API on the same input (the CLI must print what the API
computes), τ-bench's published pass^k, and one-line errors with exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph
from passhat.cli import main


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_estimate_ci_json_matches_api(capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["estimate", "--example", "agents", "--k", "1,2,5", "--ci", "0.9", "--seed", "3"]
    rc, out, _ = _run(capsys, [*argv, "--n-boot", "500", "--json"])
    assert rc == 0
    rows = json.loads(out)["estimates"]
    api = ph.estimate(ph.load_example("agents"), k=[1, 2, 5], ci=0.9, n_boot=500, seed=3).table
    assert len(rows) == len(api)
    for r, (_, a) in zip(rows, api.iterrows(), strict=True):
        assert (r["scope"], r["metric"], r["k"]) == (a["scope"], a["metric"], a["k"])
        assert r["lower"] == pytest.approx(a["lower"]) and r["upper"] == pytest.approx(a["upper"])
    rc, out, _ = _run(capsys, [*argv, "--n-boot", "500"])
    assert rc == 0 and "population" in out and "benchmark" in out and "flaky tasks" in out


def test_estimate_per_task(capsys) -> None:  # type: ignore[no-untyped-def]
    rc, out, _ = _run(capsys, ["estimate", "--example", "abcd", "--k", "2", "--per-task", "--json"])
    assert rc == 0
    tasks = json.loads(out)["tasks"]
    assert [t["flaky"] for t in tasks] == [False, True, True, False]
    assert tasks[1]["pass_hat_2"] == pytest.approx(0.6)
    rc, out, _ = _run(capsys, ["estimate", "--example", "abcd", "--k", "2", "--per-task"])
    assert rc == 0 and "yes" in out and "[0.376, 0.964]" in out  # Wilson of 4/5


def test_estimate_ci_tau_bench(capsys, tau_airline_path) -> None:  # type: ignore[no-untyped-def]
    rc, out, _ = _run(
        capsys,
        ["estimate", str(tau_airline_path), "--k", "1-4", "--ci", "0.95", "--seed", "0", "--json"],
    )
    assert rc == 0
    rows = [r for r in json.loads(out)["estimates"] if r["metric"] == "pass_hat_k"]
    vals = sorted({(r["k"], round(r["value"], 3)) for r in rows})
    assert [v for _, v in vals] == [0.42, 0.273, 0.22, 0.2]  # τ-bench leaderboard


def _split_files(tmp_path: Path, drop: str | None = None) -> tuple[Path, Path]:
    df = ph.load_example("agents").frame
    base = df[df["system"] == "baseline"]
    cand = df[df["system"] == "guided"]
    if drop is not None:
        cand = cand[cand["task_id"] != drop]
    pa, pb = tmp_path / "base.csv", tmp_path / "cand.csv"
    base.to_csv(pa, index=False)
    cand.to_csv(pb, index=False)
    return pa, pb


def test_compare_two_files_matches_api(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pa, pb = _split_files(tmp_path)
    argv = ["compare", str(pa), str(pb), "--k", "1,5", "--seed", "0", "--n-boot", "500"]
    rc, out, _ = _run(capsys, [*argv, "--json"])
    assert rc == 0
    doc = json.loads(out)
    api = ph.compare(ph.load_example("agents"), k=[1, 5], seed=0, n_boot=500).table
    got = {(r["k"], r["metric"], r["scope"]): r for r in doc["comparison"]}
    for _, a in api.iterrows():
        r = got[(a["k"], a["metric"], a["scope"])]
        assert r["difference"] == pytest.approx(a["difference"])
        assert r["candidate"] == "guided" and r["baseline"] == "baseline"
    rc, out, _ = _run(capsys, argv)
    assert rc == 0 and "paired difference on 168 matched tasks" in out


def test_compare_unmatched_and_intersect(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pa, pb = _split_files(tmp_path, drop="venmo_002")
    rc, _, err = _run(capsys, ["compare", str(pa), str(pb), "--n-boot", "200"])
    assert rc == 2 and "venmo_002 (only baseline)" in err and len(err.strip().splitlines()) == 1
    rc, out, _ = _run(capsys, ["compare", str(pa), str(pb), "--n-boot", "200", "--intersect"])
    assert rc == 0 and "dropped 1 task(s)" in out


def test_compare_baseline_and_same_names(capsys, tau_airline_path) -> None:  # type: ignore[no-untyped-def]
    rc, out, _ = _run(
        capsys,
        ["compare", "--example", "agents", "--baseline", "guided", "--n-boot", "200", "--json"],
    )
    assert rc == 0
    assert {r["candidate"] for r in json.loads(out)["comparison"]} == {"baseline"}
    p = str(tau_airline_path)
    rc, out, _ = _run(capsys, ["compare", p, p, "--k", "1,4", "--n-boot", "200", "--seed", "0"])
    assert rc == 0 and "+0.000" in out  # same file: zero difference


def test_slices_cli(capsys) -> None:  # type: ignore[no-untyped-def]
    rc, out, _ = _run(capsys, ["slices", "--example", "agents", "--severe", "tool_error", "--json"])
    assert rc == 0
    doc = json.loads(out)
    sev = {r["system"]: r for r in doc["severe"]}
    api = ph.slices(ph.load_example("agents"), severe=["tool_error"]).severe.set_index("system")
    assert sev["baseline"]["count"] == api.loc["baseline", "count"]
    assert {"status", "category"} == set(doc["slices"])
    rc, out, _ = _run(capsys, ["slices", "--example", "agents", "--by", "status"])
    assert rc == 0 and "infrastructure_error" in out and "never counted in n" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["estimate", "--example", "abcd", "--ci", "1.5"], "ci must lie strictly between"),
        (["estimate", "--example", "abcd", "--ci", "0.9", "--n-boot", "50"], "n_boot"),
        (["compare", "--example", "agents", "--ci", "0"], "ci must lie strictly between"),
        (["compare", "--example", "agents", "--n-boot", "10"], "n_boot"),
        (["compare", "--example", "agents", "--k", "6"], "exceeds the smallest n"),
        (["compare", "--example", "abcd"], "comparison needs two systems"),
        (["slices", "--example", "abcd", "--by", "category"], "no category column"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    rc, _, err = _run(capsys, argv)
    assert rc == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_compare_no_common_task(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    df = ph.load_example("abcd").frame
    a, b = df[df["task_id"].isin(["A", "B"])], df[df["task_id"].isin(["C", "D"])]
    pa, pb = tmp_path / "a.csv", tmp_path / "b.csv"
    a.to_csv(pa, index=False)
    b.to_csv(pb, index=False)
    rc, _, err = _run(capsys, ["compare", str(pa), str(pb), "--intersect"])
    assert rc == 2 and "no task in common" in err


def test_slices_missing_category(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    df = ph.load_example("agents").frame.copy()
    df.loc[7, "category"] = None
    p = tmp_path / "runs.csv"
    df.to_csv(p, index=False)
    rc, _, err = _run(capsys, ["slices", str(p), "--by", "category"])
    assert rc == 2 and "category is missing in 1 row(s)" in err
