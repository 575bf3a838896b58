"""``passhat estimate``: the benchmark table, --ci, --per-task, --min-runs, --weights.

Oracles: the Python API on the same input (the CLI must print what the API
computes), τ-bench's published pass^k (0.420, 0.273, 0.220, 0.200 for gpt-4o
airline), and the CLI contract on bad input (exit 2, one line).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph
from passhat.cli import main

from .cli_helpers import GOOD, bad, run, write


def _short(tmp_path: Path) -> str:
    rows = ["task_id,trial,success"]
    for task, n in (("a", 5), ("b", 5), ("c", 4), ("d", 4)):
        rows += [f"{task},{i},{int(i % 2 == 0)}" for i in range(n)]
    return write(tmp_path, "short.csv", "\n".join(rows) + "\n")


def test_k_larger_than_n_names_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad(
        capsys,
        ["estimate", _short(tmp_path), "--k", "5"],
        r"k = 5 exceeds the decided runs of 2 task\(s\): c \(n=4\), d \(n=4\)",
    )


def test_min_runs_reports_excluded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _short(tmp_path)
    assert main(["estimate", path, "--k", "5", "--min-runs", "5"]) == 0
    out, _ = capsys.readouterr()
    assert "excluded 2 task(s): n = 4 decided runs < min_runs = 5" in out
    assert main(["estimate", path, "--k", "5", "--min-runs", "5", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sorted(e["task"] for e in doc["excluded"]) == ["c", "d"]
    assert doc["summary"][0]["excluded_tasks"] == 2


def test_k_below_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad(capsys, ["estimate", _short(tmp_path), "--k", "0"], r"--k: k must be ≥ 1 \(got 0\)")


def test_tau_bench_json_output(tau_airline_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["estimate", str(tau_airline_path), "--format", "tau-bench", "--k", "1,2,3,4", "--json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["input"]["format"] == "tau-bench"
    hat = {e["k"]: round(e["value"], 3) for e in doc["estimates"] if e["metric"] == "pass_hat_k"}
    assert hat == {1: 0.420, 2: 0.273, 3: 0.220, 4: 0.200}


def test_negative_seed_is_an_option_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path, "good.csv", GOOD)
    args = ["estimate", "{good}", "--ci", "0.9", "--n-boot", "100", "--seed", "-1"]
    argv = [a.format(good=good, out=tmp_path / "rep") for a in args]
    bad(capsys, argv, r"--seed.*-1")


def test_estimate_per_task_keeps_the_requested_aggregate_intervals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["estimate", "--example", "abcd", "--k", "2", "--per-task"]
    assert main([*args, "--ci", "0.9", "--n-boot", "100", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "per-task estimates with 0.9 wilson intervals" in out
    assert "with 0.9 intervals (two scopes)" in out  # --ci was asked for: not dropped
    # a point value outside its interval is explained (the interval is for p^k itself)
    assert main([*args, "--k", "5"]) == 0
    out = capsys.readouterr().out
    assert "0.000 [0.0" in out and "can lie outside them" in out.replace("\n", " ")


@pytest.mark.parametrize("weights", ["category", "declared"])
def test_weights_without_their_column_name_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, weights: str
) -> None:
    path = write(tmp_path, "runs.csv", GOOD)
    bad(capsys, ["estimate", path, "--weights", weights], rf"runs\.csv: .*{weights}")


def test_estimate_ci_json_matches_api(capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["estimate", "--example", "agents", "--k", "1,2,5", "--ci", "0.9", "--seed", "3"]
    rc, out, _ = run(capsys, [*argv, "--n-boot", "500", "--json"])
    assert rc == 0
    rows = json.loads(out)["estimates"]
    api = ph.estimate(ph.load_example("agents"), k=[1, 2, 5], ci=0.9, n_boot=500, seed=3).table
    assert len(rows) == len(api)
    for r, (_, a) in zip(rows, api.iterrows(), strict=True):
        assert (r["scope"], r["metric"], r["k"]) == (a["scope"], a["metric"], a["k"])
        assert r["lower"] == pytest.approx(a["lower"]) and r["upper"] == pytest.approx(a["upper"])
    rc, out, _ = run(capsys, [*argv, "--n-boot", "500"])
    assert rc == 0 and "population" in out and "benchmark" in out and "flaky tasks" in out


def test_estimate_per_task(capsys) -> None:  # type: ignore[no-untyped-def]
    rc, out, _ = run(capsys, ["estimate", "--example", "abcd", "--k", "2", "--per-task", "--json"])
    assert rc == 0
    tasks = json.loads(out)["tasks"]
    assert [t["flaky"] for t in tasks] == [False, True, True, False]
    assert tasks[1]["pass_hat_2"] == pytest.approx(0.6)
    rc, out, _ = run(capsys, ["estimate", "--example", "abcd", "--k", "2", "--per-task"])
    assert rc == 0 and "yes" in out and "[0.376, 0.964]" in out  # Wilson of 4/5


def test_estimate_ci_tau_bench(capsys, tau_airline_path) -> None:  # type: ignore[no-untyped-def]
    rc, out, _ = run(
        capsys,
        ["estimate", str(tau_airline_path), "--k", "1-4", "--ci", "0.95", "--seed", "0", "--json"],
    )
    assert rc == 0
    rows = [r for r in json.loads(out)["estimates"] if r["metric"] == "pass_hat_k"]
    vals = sorted({(r["k"], round(r["value"], 3)) for r in rows})
    assert [v for _, v in vals] == [0.42, 0.273, 0.22, 0.2]  # τ-bench leaderboard


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["estimate", "--example", "abcd", "--ci", "1.5"], "--ci must lie strictly between"),
        (["estimate", "--example", "abcd", "--ci", "0.9", "--n-boot", "50"], "--n-boot"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    rc, _, err = run(capsys, argv)
    assert rc == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_predictive_column_matches_api(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["estimate", "--example", "agents", "--k", "1,5", "--ci", "0.9", "--seed", "0"]
    assert main([*args, "--predictive", "40", "--n-boot", "500", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    pred = [e for e in doc["estimates"] if e["scope"] == "predictive"]
    est = ph.estimate(
        ph.load_example("agents"), k=[1, 5], ci=0.9, seed=0, n_boot=500, predictive=40
    )
    want = est.table[est.table["scope"] == "predictive"]
    assert [round(e["lower"], 9) for e in pred] == [round(x, 9) for x in want["lower"]]
    assert all("new benchmark of 40 tasks" in e["method"] for e in pred)
    assert main([*args, "--predictive", "40", "--n-boot", "500"]) == 0
    flat = " ".join(capsys.readouterr().out.split())  # the terminal may wrap the notes
    assert "predictive method" in flat and "expected value over tasks like these" in flat


def test_predictive_needs_ci(capsys: pytest.CaptureFixture[str]) -> None:
    bad(
        capsys,
        ["estimate", "--example", "agents", "--predictive", "10"],
        r"--predictive needs --ci",
    )


def test_cli_estimate_task_without_a_decided_run(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 16 item 3: left out and listed by default (as fit), refused on request."""
    path = write(tmp_path, "u.csv", GOOD + "A,t4,0,\nA,t4,1,\n")
    rc, out, _ = run(capsys, ["estimate", path])
    out = " ".join(out.split())  # rich wraps the notes at the terminal width
    assert rc == 0 and "1 task(s) have no decided run (every run unscored)" in out
    assert "t4 (A)" in out
    bad(capsys, ["estimate", path, "--unscored-tasks", "error"], r"no decided run .*t4")


def test_cli_estimate_min_runs_matched(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 12 item 7: uneven exclusions get a note; --matched excludes from both systems."""
    rows = "system,task_id,trial,success\n"
    for s, short in (("A", "t1"), ("B", "t2")):
        for t in ("t1", "t2", "t3"):
            for r in range(2 if t == short else 4):
                rows += f"{s},{t},{r},{int(r % 2 == 0)}\n"
    path = write(tmp_path, "two.csv", rows)
    rc, out, _ = run(capsys, ["estimate", path, "--min-runs", "3"])
    out = " ".join(out.split())  # rich wraps the notes at the terminal width
    assert rc == 0 and "different tasks after exclusions (A: 2, B: 2 tasks" in out
    rc, out, _ = run(capsys, ["estimate", path, "--min-runs", "3", "--matched", "--json"])
    doc = json.loads(out)
    assert [r["tasks"] for r in doc["summary"]] == [1, 1]
    assert len(doc["excluded"]) == 4 and doc["settings"]["matched"] is True


def test_quiet_silences_the_reader_notes_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--quiet: the table only. The reader's note (a 'model' column read as the system) went
    to stderr even with -q; it still does without -q, and the two systems are never merged."""
    rows = ["model,task_id,trial,success"]
    rows += [
        f"{m},t{i},{j},{(i + j) % 2}" for m in ("gpt", "claude") for i in range(3) for j in range(2)
    ]
    path = write(tmp_path, "two.csv", "\n".join(rows) + "\n")
    rc, out, err = run(capsys, ["estimate", path, "--quiet"])
    assert rc == 0 and err == "" and "gpt" in out and "claude" in out
    rc, out, err = run(capsys, ["compare", path, "-q"])
    assert rc == 0 and err == ""
    rc, out, err = run(capsys, ["estimate", path])
    assert rc == 0 and "read column 'model' as the system" in err


def test_cli_semicolon_file_zero_weights_and_blank_system(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ';'-separated .csv reads like the comma file (it was refused); declared weights that
    are all 0 and a blank --system-name are one-line errors (exit 2), not a silent 0.0 and an
    unnamed system."""
    semi = write(tmp_path, "semi.csv", GOOD.replace(",", ";"))
    comma = write(tmp_path, "comma.csv", GOOD)
    assert (
        run(capsys, ["estimate", semi, "--csv"])[1] == run(capsys, ["estimate", comma, "--csv"])[1]
    )
    zero = write(tmp_path, "w.csv", "task_id,trial,success,weight\na,0,1,0\na,1,0,0\nb,0,1,0\n")
    bad(capsys, ["estimate", zero, "--weights", "declared"], r"'system' has weight 0")
    bad(capsys, ["estimate", zero, "--system-name", " "], r"system ' ' is blank")
    # a file with its own system column: --system-name was ignored without a word
    bad(capsys, ["estimate", comma, "--system-name", "v2"], r"this file has a system column")


def test_cli_notes_an_interval_beside_its_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One task, 2 passes in 3 runs: pass@2 is exactly 1 and the rule's posterior interval lies
    below it; text and JSON say so (the note), and the JSON stays strict."""
    path = write(tmp_path, "one.csv", "task_id,trial,success\na,0,1\na,1,0\na,2,1\n")
    rc, out, _ = run(capsys, ["estimate", path, "--k", "2", "--ci", "0.95", "--n-boot", "500"])
    assert rc == 0 and "do not contain their point value" in " ".join(out.split())
    rc, out, _ = run(capsys, ["estimate", path, "--k", "2", "--ci", "0.95", "--json"])
    doc = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON {c}"))
    assert any("system pass@2 (benchmark): 1.000 outside" in n for n in doc["notes"])


def test_method_lines_name_the_rows_they_serve(capsys) -> None:  # type: ignore[no-untyped-def]
    # τ-bench airline, 4 runs per task: pass@3/pass^3 and pass@4/pass^4 take the model-based
    # variance where n < 2k, the other benchmark rows the plain one; the JSON is the oracle
    argv = ["estimate", "--example", "tau-airline", "--k", "1-4", "--ci", "0.95", "--n-boot", "500"]
    assert main([*argv, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["estimates"]
    assert main(argv) == 0
    flat = " ".join(capsys.readouterr().out.split())
    bench = [r for r in rows if r["scope"] == "benchmark" and r["metric"] != "mean"]
    by_method: dict[str, set[int]] = {}
    for r in bench:
        by_method.setdefault(r["method"], set()).add(int(r["k"]))
    assert len(by_method) == 3, by_method
    for method, ks in by_method.items():
        k = sorted(ks)
        span = f"{k[0]}–{k[-1]}" if len(k) > 1 else f"{k[0]}"
        text = f"pass@{span}; pass^{span}"
        assert f"({'mean; ' if 1 in ks else ''}{text}): {' '.join(method.split())}" in flat


def _clustered_csv(tmp_path: Path) -> str:
    rows = ["system,task_id,trial,success,repo"]
    for g in range(6):
        for t in range(4):
            rows += [f"A,r{g}-t{t},{r},{int((g + t + r) % 3 == 0)},repo{g}" for r in range(4)]
    return write(tmp_path, "runs.csv", "\n".join(rows) + "\n")


def test_cluster_option_resamples_clusters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _clustered_csv(tmp_path)
    rc, out, _ = run(capsys, ["estimate", path, "--cluster", "repo", "--ci", "0.9", "--json"])
    doc = json.loads(out)
    assert (
        rc == 0 and doc["settings"]["cluster"] is True and doc["settings"]["clusters"] == {"A": 6}
    )
    pop = [r for r in doc["estimates"] if r["scope"] == "population"]
    assert all(
        r["method"].startswith(
            ("cluster jackknife logit-t", "Clopper–Pearson", "exact binomial (Clopper–Pearson)")
        )
        and "6 clusters" in r["method"]
        for r in pop
    )  # where the jackknife logit is undefined (a value at 0 or 1), Clopper–Pearson
    assert any("only 6 clusters" in n for n in doc["notes"])
    rc, out2, _ = run(capsys, ["estimate", path, "--map", "cluster=repo", "--ci", "0.9", "--json"])
    assert rc == 0 and json.loads(out2)["estimates"] == doc["estimates"]
    rc, out3, _ = run(capsys, ["estimate", path, "--ci", "0.9", "--json"])
    assert rc == 0 and json.loads(out3)["settings"]["cluster"] is False
    argv = ["estimate", path, "--map", "cluster=repo", "--ignore-clusters", "--ci", "0.9"]
    rc, out4, _ = run(capsys, [*argv, "--json"])
    assert rc == 0 and json.loads(out4)["estimates"] == json.loads(out3)["estimates"]


def test_cluster_errors_name_the_task(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = Path(_clustered_csv(tmp_path)).read_text()
    two = write(tmp_path, "two.csv", text.replace("A,r0-t0,1,0,repo0", "A,r0-t0,1,0,repo5"))
    bad(
        capsys,
        ["estimate", two, "--cluster", "repo"],
        r"two\.csv: task 'r0-t0': runs name different clusters \('repo0', 'repo5'\)",
    )
    miss = write(tmp_path, "miss.csv", text.replace("A,r1-t2,3,1,repo1", "A,r1-t2,3,1,"))
    bad(
        capsys,
        ["estimate", miss, "--cluster", "repo"],
        r"miss\.csv: task 'r1-t2': a run has no cluster",
    )
    bad(capsys, ["estimate", two, "--cluster", "nope"], r"'nope' \(given for cluster\) is missing")
    path = _clustered_csv(tmp_path)
    bad(capsys, ["estimate", path, "--cluster", "repo", "--ignore-clusters"], "contradict")


def test_ci_method_analytic_prints_what_the_api_computes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--ci-method analytic: the JSON rows are the API's; every population interval of τ-bench
    airline (50 tasks, ≥ 10 on each side of each estimate) is the analytic one, and the method
    line says which rule picked it. Oracle for pass^2: the hand logit-t on the per-task
    C(c, 2)/C(4, 2) (scipy's t on 49 df)."""
    import numpy as np
    from scipy import special, stats

    argv = ["estimate", "--example", "tau-airline", "--k", "2", "--ci", "0.95", "--json"]
    rc, out, _ = run(capsys, [*argv, "--ci-method", "analytic"])
    assert rc == 0
    rows = [r for r in json.loads(out)["estimates"] if r["scope"] == "population"]
    api = ph.estimate(ph.load_example("tau-airline"), k=2, ci=0.95, ci_method="analytic")
    assert api.settings["ci_method"] == "analytic"
    pop = api.table[api.table["scope"] == "population"]
    assert [r["metric"] for r in rows] == pop["metric"].tolist()
    got = [v for r in rows for v in (r["lower"], r["upper"])]
    assert got == pytest.approx(pop[["lower", "upper"]].to_numpy().ravel().tolist())
    assert (
        pop["method"].str.startswith("analytic logit-t interval (delta method, t on 49 df)").all()
    )
    from passhat.estimators import as_counts

    c = np.asarray(as_counts(ph.load_example("tau-airline"))["c"].values[0], dtype=float)
    v = c * (c - 1) / 12.0
    half = stats.t.ppf(0.975, 49) * stats.sem(v) / (v.mean() * (1 - v.mean()))
    hand = special.expit(special.logit(v.mean()) + np.array([-half, half]))
    hat = pop[pop["metric"] == "pass_hat_k"].iloc[0]
    assert (hat["lower"], hat["upper"]) == pytest.approx(tuple(hand), rel=1e-10)
    rc, out, _ = run(capsys, [*argv[:-1], "--ci-method", "analytic"])
    assert rc == 0 and "rule: ci_method analytic; ≥ 30 tasks, ≥ 10 on each side" in out
    rc, _, err = run(capsys, [*argv, "--ci-method", "wald"])
    assert rc == 2 and "analytic" in err and len(err.strip().splitlines()) == 1
