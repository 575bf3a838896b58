"""``passhat compare``: the paired difference and ``--classify``.

Oracles: the Python API on the same input (compare, classify), the arithmetic
bound of a difference of rates ([-1, 1]), exit statuses (0, 1 on a --fail-on
verdict, 2 on bad input with one line on stderr).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from classify_testdata import BASE, CAND, build_runs
from passhat.cli import main
from passhat.compare.categories import compare_by_category

from .cli_helpers import GOOD, HEADER, bad, run, write


def test_negative_seed_is_an_option_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path, "good.csv", GOOD)
    args = ["compare", "{good}", "{good}", "--n-boot", "100", "--seed", "-1"]
    argv = [a.format(good=good, out=tmp_path / "rep") for a in args]
    bad(capsys, argv, r"--seed.*-1")


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
    rc, out, _ = run(capsys, [*argv, "--json"])
    assert rc == 0
    doc = json.loads(out)
    api = ph.compare(ph.load_example("agents"), k=[1, 5], seed=0, n_boot=500).table
    got = {(r["k"], r["metric"], r["scope"]): r for r in doc["comparison"]}
    for _, a in api.iterrows():
        r = got[(a["k"], a["metric"], a["scope"])]
        assert r["difference"] == pytest.approx(a["difference"])
        assert r["candidate"] == "guided" and r["baseline"] == "baseline"
    rc, out, _ = run(capsys, argv)
    assert rc == 0 and "paired difference on 168 matched tasks" in out


def test_compare_unmatched_and_intersect(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pa, pb = _split_files(tmp_path, drop="venmo_002")
    rc, _, err = run(capsys, ["compare", str(pa), str(pb), "--n-boot", "200"])
    assert rc == 2 and "venmo_002 (only baseline)" in err and len(err.strip().splitlines()) == 1
    rc, out, _ = run(capsys, ["compare", str(pa), str(pb), "--n-boot", "200", "--intersect"])
    assert rc == 0 and "dropped 1 task(s)" in out


def test_compare_baseline_and_same_names(capsys, tau_airline_path) -> None:  # type: ignore[no-untyped-def]
    rc, out, _ = run(
        capsys,
        ["compare", "--example", "agents", "--baseline", "guided", "--n-boot", "200", "--json"],
    )
    assert rc == 0
    assert {r["candidate"] for r in json.loads(out)["comparison"]} == {"baseline"}
    p = str(tau_airline_path)
    rc, out, _ = run(capsys, ["compare", p, p, "--k", "1,4", "--n-boot", "200", "--seed", "0"])
    assert rc == 0 and "+0.000" in out  # same file: zero difference


def test_compare_no_common_task(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    df = ph.load_example("abcd").frame
    a, b = df[df["task_id"].isin(["A", "B"])], df[df["task_id"].isin(["C", "D"])]
    pa, pb = tmp_path / "a.csv", tmp_path / "b.csv"
    a.to_csv(pa, index=False)
    b.to_csv(pb, index=False)
    rc, _, err = run(capsys, ["compare", str(pa), str(pb), "--intersect"])
    assert rc == 2 and "no task in common" in err


def test_compare_benchmark_interval_stays_within_minus_one_and_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    one = write(tmp_path, "one.csv", HEADER + "A,t1,0,1\n")
    two = write(tmp_path, "two.csv", HEADER + "B,t1,0,1\n")
    assert main(["compare", one, two, "--n-boot", "100", "--seed", "0", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["comparison"]
    assert rows and all(-1.0 <= r["lower"] <= r["upper"] <= 1.0 for r in rows), rows


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compare", "--example", "agents", "--ci", "0"], "--ci must lie strictly between"),
        (["compare", "--example", "agents", "--n-boot", "10"], "--n-boot must be a whole"),
        (["compare", "--example", "agents", "--k", "6"], "exceeds the smallest n"),
        (["compare", "--example", "abcd"], "comparison needs two systems"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    rc, _, err = run(capsys, argv)
    assert rc == 2
    assert message in err and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------- --classify


def _write_jsonl(path: Path, spec: dict[str, tuple[float, int, str]], seed: int) -> Path:
    t = build_runs(spec, seed, "x").frame.drop(columns=["system"])
    t["success"] = t["success"].astype(bool)
    path.write_text("\n".join(json.dumps(r) for r in t.to_dict("records")) + "\n")
    return path


def test_cli_compare_classify_exit_status(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    base = _write_jsonl(tmp_path / "base.jsonl", BASE, 1)
    cand = _write_jsonl(tmp_path / "cand.jsonl", CAND, 2)
    rc = main(["compare", str(base), str(cand), "--classify", "--min-runs", "2"])
    out = capsys.readouterr().out
    assert rc == 0 and "passhat classify:" in out and "1 regression" in out
    rc = main(["compare", str(base), str(cand), "--classify", "--fail-on", "regression", "-q"])
    captured = capsys.readouterr()
    assert rc == 1 and "failing on regression" in captured.err
    same = ["compare", str(base), str(base), "--classify", "--fail-on", "regression", "--json"]
    rc = main(same)
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["failed"] == [] and doc["counts"]["regression"] == 0
    assert main(["compare", str(base), str(cand), "--fail-on", "regression"]) == 2
    assert "--fail-on needs --classify" in capsys.readouterr().err


def test_cli_classify_two_systems_in_one_input(capsys) -> None:  # type: ignore[no-untyped-def]
    rc = main(["compare", "--example", "agents", "--classify", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["settings"]["base"] == "baseline" and doc["settings"]["cand"] == "guided"
    assert sum(doc["counts"].values()) == 168
    t = ph.load_example("agents")
    want = ph.classify(t, t, base_system="baseline", cand_system="guided").counts
    assert doc["counts"] == want
    rc = main(["compare", "--example", "agents", "--classify", "--baseline", "guided", "--json"])
    assert json.loads(capsys.readouterr().out)["settings"]["cand"] == "baseline"


def test_cli_classify_candidate_among_several_systems(capsys) -> None:  # type: ignore[no-untyped-def]
    # with more than two systems the CLI names the candidate (it could not: only cand_system=)
    args = ["compare", "--example", "leaderboard", "--classify", "--baseline", "frontier"]
    assert main(args) == 2
    assert "--candidate NAME" in capsys.readouterr().err
    assert main([*args, "--candidate", "mini", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["settings"]["base"], doc["settings"]["cand"]) == ("frontier", "mini")
    t = ph.load_example("leaderboard")
    assert doc["counts"] == ph.classify(t, base_system="frontier", cand_system="mini").counts
    assert main([*args, "--candidate", "nope"]) == 2
    assert "candidate 'nope' not found" in capsys.readouterr().err
    assert main(["compare", "--example", "leaderboard", "--candidate", "mini"]) == 2
    assert "--candidate needs --classify" in capsys.readouterr().err


def test_classify_labels_builds_like_the_paired_comparison(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # two count tables without a system column: the paired table says "cb − ca"; the
    # classify summary said "system → system"
    a = write(tmp_path, "ca.csv", "task_id,n,c\nt1,5,3\nt2,5,5\n")
    b = write(tmp_path, "cb.csv", "task_id,n,c\nt1,5,1\nt2,5,5\n")
    assert main(["compare", a, b, "--classify", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["settings"]["base"], doc["settings"]["cand"]) == ("ca", "cb")
    assert "(ca → cb;" in doc["summary"]


def test_cli_classify_multiplicity(capsys) -> None:  # type: ignore[no-untyped-def]
    """Holm by default; --multiplicity none flags a task Holm only calls possible."""
    argv = ["compare", "--example", "agents", "--classify", "--baseline", "guided"]
    assert main([*argv, "--fail-on", "regression", "-q"]) == 1
    out = capsys.readouterr().out
    assert "Holm across tasks, FWER=0.05" in out and "1 possible_regression" in out
    assert main([*argv, "--multiplicity", "none", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["multiplicity"] == "none" and doc["counts"]["regression"] == 2
    assert main([*argv, "--multiplicity", "bh", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["error_rate"] == "FDR" and "Benjamini" in doc["note"]
    # the task Holm does not keep can still gate a build explicitly
    assert main([*argv, "--fail-on", "possible_regression", "-q"]) == 1
    capsys.readouterr()
    assert main([*argv, "--classify", "--multiplicity", "bonferroni"]) == 2
    assert "bonferroni" in capsys.readouterr().err
    t = ph.load_example("agents")
    want = ph.classify(t, t, base_system="guided", cand_system="baseline", multiplicity="bh")
    assert doc["counts"] == want.counts


def test_compare_weights_and_consistency(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """--weights category matches the API; every row's interval excludes 0 iff p ≤ 1 − ci."""
    df = ph.load_example("agents").frame.copy()
    df["category"] = np.where(df["task_id"].str.len() % 2 == 0, "even", "odd")
    path = tmp_path / "cat.csv"
    df.to_csv(path, index=False)
    argv = ["compare", str(path), "--k", "1,5", "--seed", "0", "--n-boot", "400", "--ci", "0.9"]
    rc, out, _ = run(capsys, [*argv, "--weights", "category", "--json"])
    assert rc == 0
    doc = json.loads(out)
    api = ph.compare(ph.read(path), k=[1, 5], seed=0, n_boot=400, ci=0.9, weights="category").table
    assert [round(r["difference"], 12) for r in doc["comparison"]] == [
        round(x, 12) for x in api["difference"]
    ]
    assert doc["settings"]["weights"] == "category"
    for r in doc["comparison"]:
        assert (r["lower"] > 0 or r["upper"] < 0) == (r["p_value"] <= 0.1)
    rc, out, _ = run(capsys, argv)
    assert rc == 0 and "excludes 0 exactly when p ≤ 0.1" in out


def test_compare_min_runs_leaves_matched_tasks_out(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 12 item 7 in paired output: the task is left out for both systems, and listed."""
    rows = "system,task_id,trial,success\n"
    for s, short in (("A", "t1"), ("B", "t2")):
        for t in ("t1", "t2", "t3", "t4"):
            for r in range(2 if t == short else 4):
                rows += f"{s},{t},{r},{int(r % 2 == 0 or s == 'B')}\n"
    path = tmp_path / "two.csv"
    path.write_text(rows, encoding="utf-8")
    rc, out, _ = run(capsys, ["compare", str(path), "--min-runs", "3", "--n-boot", "200"])
    assert rc == 0
    assert "paired difference on 2 matched tasks" in out
    assert (
        "left out 2 matched task(s) for both systems: t1 (A: n = 2 decided runs < min_runs" in out
    )
    assert "sign flips and posterior draws: 200, seed 0" in out


def test_a_file_compared_with_itself_says_so(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """BASE and CAND the same file (another spelling of its path too): the comparison runs
    (differences 0, oracle: the file's own counts) and a note says why; -q silences it."""
    path = tmp_path / "runs.csv"
    path.write_text(
        "task_id,trial,success\n"
        + "".join(f"t{i},{j},{(i + j) % 3 != 0:d}\n" for i in range(6) for j in range(3))
    )
    other = tmp_path / "." / "runs.csv"
    rc, out, err = run(capsys, ["compare", str(path), str(other), "--n-boot", "200", "--json"])
    assert rc == 0 and "are the same file" in err
    assert {r["difference"] for r in json.loads(out)["comparison"]} == {0.0}
    rc, _, err = run(capsys, ["compare", str(path), str(other), "--n-boot", "200", "-q"])
    assert rc == 0 and err == ""
    # bad options: the one error line only (the note comes after results, never before)
    bad(capsys, ["compare", str(path), str(other), "--k", "9"], r"k = 9 exceeds")
    bad(
        capsys,
        ["compare", str(path), str(other), "--classify", "--min-runs", "0"],
        "--min-runs must be a whole number ≥ 1",
    )


def test_method_lines_name_the_rows_they_serve(capsys) -> None:  # type: ignore[no-untyped-def]
    # the agents example at k = 5: pass@5 differs on fewer than 10 tasks, so its population
    # interval is the model's while mean and pass^5 invert the sign-flip test; the lines must
    # say which row is which (the JSON's per-row method is the oracle)
    argv = ["compare", "--example", "agents", "--k", "5", "--n-boot", "500"]
    rc, out, _ = run(capsys, [*argv, "--json"])
    assert rc == 0
    rows = json.loads(out)["comparison"]
    label = {"mean": "mean", "pass_at_k": "pass@5", "pass_hat_k": "pass^5"}
    want: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        want.setdefault((r["scope"], r["method"]), []).append(label[r["metric"]])
    assert len({m for _, m in want}) >= 3  # several methods, else the test proves nothing
    rc, out, _ = run(capsys, argv)
    assert rc == 0
    flat = " ".join(out.split())
    for (scope, method), names in want.items():
        assert f"{scope} ({'; '.join(names)}): interval {' '.join(method.split())}" in flat


def test_default_k_and_no_ci_method(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --k the one default rule (1, 2, 5 capped at the fewest runs; was 1);
    --ci-method is gone (it chose nothing: the rule picks each paired interval)."""
    rc, out, _ = run(capsys, ["compare", "--example", "agents", "--n-boot", "200", "--json"])
    assert rc == 0
    doc = json.loads(out)
    assert doc["settings"]["k"] == [1, 2, 5] and doc["schema"] == "passhat.comparison"
    assert sorted({r["k"] for r in doc["comparison"]}) == [1, 2, 5]
    bad(capsys, ["compare", "--example", "agents", "--ci-method", "bca"], "--ci-method")


def _clustered_pair_csv(tmp_path: Path) -> str:
    rows = ["system,task_id,trial,success,repo"]
    for g in range(6):
        for t in range(4):
            for name, bump in (("A", 0), ("B", g % 2)):
                rows += [
                    f"{name},r{g}-t{t},{r},{int((g + t + r + bump) % 3 == 0)},repo{g}"
                    for r in range(4)
                ]
    return write(tmp_path, "pair.csv", "\n".join(rows) + "\n")


def test_compare_cluster_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _clustered_pair_csv(tmp_path)
    base = ["compare", path, "--k", "1,2", "--ci", "0.9", "--n-boot", "500", "--json"]
    rc, out, _ = run(capsys, [*base, "--cluster", "repo"])
    doc = json.loads(out)
    assert (
        rc == 0 and doc["settings"]["cluster"] is True and doc["settings"]["clusters"] == {"B": 6}
    )
    pop = [r for r in doc["comparison"] if r["scope"] == "population"]
    assert all("6 clusters" in r["method"] for r in pop)
    assert any("only 6 clusters" in n for n in doc["notes"])
    rc, plain, _ = run(capsys, base)
    rc2, ignored, _ = run(capsys, [*base, "--map", "cluster=repo", "--ignore-clusters"])
    assert rc == rc2 == 0 and json.loads(plain)["comparison"] == json.loads(ignored)["comparison"]
    assert json.loads(plain)["settings"]["cluster"] is False
    bad(capsys, [*base, "--cluster", "repo", "--ignore-clusters"], r"contradict each other")


def test_compare_scores_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    df = ph.load_example("agents").frame.copy()
    df["score"] = df["success"].map({True: 1.0, False: 0.25})  # unscored runs: no score
    path = tmp_path / "scored.csv"
    df.to_csv(path, index=False)
    argv = ["compare", str(path), "--scores", "--k", "1,2", "--n-boot", "500", "--json"]
    rc, out, _ = run(capsys, argv)
    doc = json.loads(out)
    assert rc == 0 and doc["settings"]["scores"] is True
    want = ph.compare_scores(ph.read(str(path)), k=[1, 2], n_boot=500).table
    got = pd.DataFrame(doc["comparison"])
    np.testing.assert_allclose(got["upper"].to_numpy(float), want["upper"].to_numpy(float))
    assert set(got["metric"]) == {"mean_score", "best_of_k", "worst_of_k"}
    bad(capsys, [*argv[:-1], "--classify"], r"--scores compares scores in the paired comparison")
    bad(capsys, ["compare", "--example", "agents", "--scores"], r"no score column: .*--scores")


def test_compare_by_category_option(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", "--example", "agents", "--by", "category", "--k", "1", "--n-boot", "100"]
    rc, out, _ = run(capsys, [*argv, "--json"])
    doc = json.loads(out)
    assert rc == 0 and doc["schema"] == "passhat.comparison_by"
    assert {r["category"] for r in doc["by_category"]} >= {"gmail", "amazon"}
    assert all(0 <= r["p_value"] <= 1 for r in doc["category_tests"])
    bad(capsys, [*argv, "--classify"], r"--by category does not take --classify")
    bad(capsys, [*argv, "--weights", "declared"], r"--by category does not take --weights")


def test_compare_by_category_with_scores(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    df = ph.load_example("agents").frame
    ok = df["success"].astype("boolean")
    score = np.where(ok.fillna(False).to_numpy(bool), 1.0, 0.5 * (df["trial"] % 2))
    df = df.assign(score=np.where(ok.isna().to_numpy(bool), np.nan, score))  # unscored: none
    path = tmp_path / "scored.csv"
    df.to_csv(path, index=False)
    argv = ["compare", str(path), "--baseline", "baseline", "--by", "category", "--scores",
            "--k", "1,2", "--n-boot", "100"]  # fmt: skip
    rc, out, _ = run(capsys, [*argv, "--json"])
    doc = json.loads(out)
    assert rc == 0 and doc["settings"]["scores"] is True
    assert {r["metric"] for r in doc["by_category"]} == {"mean_score", "best_of_k", "worst_of_k"}
    want = compare_by_category(ph.read(str(path)), k=[1, 2], n_boot=100, scores=True).table
    np.testing.assert_allclose(pd.DataFrame(doc["by_category"])["upper"].to_numpy(float),
                               want["upper"].to_numpy(float))  # fmt: skip
    rc, out, _ = run(capsys, argv)
    assert rc == 0 and "worst of k" in out and "does the difference differ" in out


def test_compare_by_category_csv_is_the_category_rows(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """--by category --csv writes the per-category rows of --json (by_category), one CSV row
    each with its columns, not the whole document as one row of JSON-encoded cells."""
    import csv
    import io

    df = ph.load_example("agents").frame.copy()
    df["category"] = np.where(df["task_id"].str.len() % 2 == 0, "<b>even</b>", "odd")
    path = tmp_path / "cat.csv"
    df.to_csv(path, index=False)
    argv = ["compare", str(path), "--by", "category", "--k", "1", "--n-boot", "200"]
    rc, out, _ = run(capsys, [*argv, "--json"])
    assert rc == 0
    rows = json.loads(out)["by_category"]
    rc, out, _ = run(capsys, [*argv, "--csv"])
    assert rc == 0
    got = list(csv.DictReader(io.StringIO(out)))
    assert len(got) == len(rows)
    assert [r["category"] for r in got] == [r["category"] for r in rows]
    assert [float(r["difference"]) for r in got] == [r["difference"] for r in rows]
