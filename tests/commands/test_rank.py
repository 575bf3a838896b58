"""``passhat rank``: the leaderboard from the command line.

Oracles: the Python API on the same input (ph.rank with the same seed gives the same
table), exit statuses (0; 2 with one line on stderr on bad input: one system only, a
system with no task in common, k > n for a system).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

import passhat as ph

from .cli_helpers import HEADER, bad, run, write


def _per_system_files(tmp_path: Path) -> list[str]:
    df = ph.load_example("leaderboard").frame
    paths = []
    for s, part in df.groupby("system", sort=False):
        p = tmp_path / f"{s}.csv"
        part.to_csv(p, index=False)
        paths.append(str(p))
    return paths


def test_rank_files_match_the_api(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    paths = _per_system_files(tmp_path)
    rc, out, _ = run(capsys, ["rank", *paths, "--k", "1,3", "--n-boot", "400", "--json"])
    assert rc == 0
    doc = json.loads(out)
    api = ph.rank(
        ph.load_example("leaderboard"), k=[1, 3], metrics=["mean", "pass_hat_k"], n_boot=400, seed=0
    ).table
    got = pd.DataFrame(doc["leaderboard"])
    assert len(got) == len(api)
    merged = got.merge(api, on=["system", "metric", "k"], suffixes=("", "_api"))
    for col in ("rank", "rank_lower", "rank_upper", "group"):
        assert (merged[col] == merged[f"{col}_api"]).all(), col
    for col in ("value", "lower", "upper", "share_first"):  # JSON keeps 12 significant digits
        assert merged[col].to_numpy() == pytest.approx(merged[f"{col}_api"].to_numpy()), col
    assert {"pairs", "bands", "settings", "input"} <= set(doc)
    assert len(doc["input"]) == 6


def test_rank_text_and_csv(capsys) -> None:  # type: ignore[no-untyped-def]
    rc, out, _ = run(capsys, ["rank", "--example", "leaderboard", "--k", "1,5", "--n-boot", "300"])
    assert rc == 0
    assert "pass^5: 6 systems on 120 common tasks" in out
    assert "first in (share of resamples)" in out and "rank interval: marginal per system" in out
    assert "P(rank = 1)" not in out
    assert "300 resamples, seed 0" in out
    rc, out, _ = run(
        capsys, ["rank", "--example", "leaderboard", "--k", "2", "--n-boot", "300", "--csv"]
    )
    assert rc == 0
    header = out.splitlines()[0].split(",")
    assert {"system", "metric", "k", "rank", "rank_lower", "rank_upper", "group"} <= set(header)


def test_rank_bad_input(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    one = write(tmp_path, "one.csv", HEADER + "A,t1,0,1\nA,t1,1,0\nA,t2,0,1\nA,t2,1,1\n")
    bad(capsys, ["rank", one], r"at least two systems; the input holds one \('A'\)")
    apart = write(
        tmp_path,
        "apart.csv",
        HEADER + "A,t1,0,1\nA,t1,1,0\nB,u1,0,1\nB,u1,1,1\n",
    )
    bad(capsys, ["rank", apart, "--k", "1"], r"system 'A' has no task in common")
    short = write(
        tmp_path,
        "short.csv",
        HEADER + "A,t1,0,1\nA,t1,1,0\nA,t1,2,0\nB,t1,0,1\nB,t1,1,1\n",
    )
    bad(capsys, ["rank", short, "--k", "1,3"], r"system 'B': k = 3 exceeds its n = 2")
    bad(capsys, ["rank"], r"no input")
    bad(capsys, ["rank", "--example", "leaderboard", "--metric", "best"], r"--metric")


def test_default_k_is_the_one_default_rule(capsys) -> None:  # type: ignore[no-untyped-def]
    """Without --k: 1, 2, 5 capped at the fewest decided runs (was 1,4)."""
    rc, out, _ = run(capsys, ["rank", "--example", "leaderboard", "--n-boot", "200", "--json"])
    assert rc == 0
    doc = json.loads(out)
    assert doc["settings"]["k"] == [1, 2, 5] and doc["schema"] == "passhat.ranking"
    rc, out, _ = run(capsys, ["rank", "--example", "leaderboard", "--n-boot", "200"])
    assert rc == 0 and "pass^5: 6 systems on 120 common tasks" in out


def test_joint_engines_get_the_fit_function(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """--engine rasch: the command hands passhat's fit to rank (rank never imports the model);
    recorded here without fitting (the fit itself is tested in tests/rank)."""
    from passhat.commands import rank as rank_cmd_module

    seen: dict[str, object] = {}

    def fake_rank(inputs, **kwargs):  # type: ignore[no-untyped-def]
        seen.update(kwargs)
        raise ph.ModelError("stop here")

    monkeypatch.setattr(rank_cmd_module, "rank", fake_rank)
    bad(capsys, ["rank", "--example", "agents", "--engine", "rasch", "--k", "1"], "stop here")
    from passhat.model import fit

    assert seen["engine"] == "rasch" and seen["fit"] is fit
    bad(capsys, ["rank", "--example", "agents", "--k", "1"], "stop here")
    assert seen["fit"] is None  # the bootstrap needs no model


def test_rank_cluster_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = ["system,task_id,trial,success,repo"]
    for g in range(6):
        for t in range(4):
            for name, bump in (("A", 0), ("B", g % 2)):
                rows += [
                    f"{name},r{g}-t{t},{r},{int((g + t + r + bump) % 3 == 0)},repo{g}"
                    for r in range(4)
                ]
    path = str(tmp_path / "runs.csv")
    Path(path).write_text("\n".join(rows) + "\n")
    base = ["rank", path, "--k", "1,2", "--n-boot", "300", "--json"]
    code, out, _ = run(capsys, [*base, "--cluster", "repo"])
    doc = json.loads(out)
    assert code == 0 and doc["settings"]["cluster"] is True and doc["settings"]["clusters"] == 6
    assert any("only 6 clusters" in n for n in doc["notes"])
    _, plain, _ = run(capsys, base)
    _, ignored, _ = run(capsys, [*base, "--map", "cluster=repo", "--ignore-clusters"])
    assert json.loads(plain)["leaderboard"] == json.loads(ignored)["leaderboard"]
    bad(capsys, [*base, "--cluster", "repo", "--ignore-clusters"], r"contradict each other")


def test_rank_scores_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    df = ph.load_example("leaderboard").frame.copy()
    df["score"] = df["success"].map({True: 1.0, False: 0.5})
    path = tmp_path / "scored.csv"
    df.to_csv(path, index=False)
    base = ["rank", str(path), "--k", "2", "--n-boot", "300", "--json"]
    code, out, _ = run(capsys, [*base, "--scores", "--metric", "mean_score,worst_of_k"])
    doc = json.loads(out)
    assert code == 0 and doc["settings"]["scores"] is True
    assert {r["metric"] for r in doc["leaderboard"]} == {"mean_score", "worst_of_k"}
    bad(capsys, [*base, "--metric", "worst_of_k"], r"unknown metric 'worst_of_k'")


def test_rank_by_category(capsys: pytest.CaptureFixture[str]) -> None:
    keep = ["frontier", "mini", "open-8b"]
    argv = ["rank", "--example", "leaderboard", "--k", "2", "--metric", "pass_hat_k",
            "--n-boot", "200", "--by", "category"]  # fmt: skip
    argv += [x for name in keep for x in ("--system", name)]
    rc, out, _ = run(capsys, [*argv, "--json"])
    doc = json.loads(out)
    df = ph.load_example("leaderboard").frame
    api = ph.rank(ph.Trials.from_frame(df[df["system"].isin(keep)]), k=2,
                  metrics=["pass_hat_k"], n_boot=200, by="category").by_category  # fmt: skip
    assert rc == 0 and api is not None
    got = pd.DataFrame(doc["by_category"])
    assert got["system"].tolist() == api.table["system"].tolist()
    assert got["upper"].tolist() == pytest.approx(api.table["upper"].tolist(), abs=1e-12)
    assert doc["category_tests"][0]["p_value"] == pytest.approx(api.tests["p_value"][0])
    rc, out, _ = run(capsys, argv)
    assert rc == 0 and "pass^2 by category" in out and "differences depend on the" in out
    bad(capsys, [*argv, "--engine", "rasch"], r"--by ranks each category .*--engine 'rasch'")
    # --csv: the overall rows (empty category) then each category's, the rows of --json
    rc, out, _ = run(capsys, [*argv, "--csv"])
    csv = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert rc == 0 and csv.columns[0] == "category"
    overall, per = csv[csv["category"] == ""], csv[csv["category"] != ""]
    assert overall["system"].tolist() == [r["system"] for r in doc["leaderboard"]]
    assert per["category"].tolist() == got["category"].tolist()
    assert per["system"].tolist() == got["system"].tolist()
    assert per["upper"].astype(float).tolist() == pytest.approx(got["upper"].tolist(), abs=1e-12)
    assert (per["method"] != "").all()
    # the overall rows name their interval's method too (a CSV row is read on its own)
    assert (overall["method"] == doc["settings"]["value_interval"]).all()
    # --markdown / --latex: the overall table, then each category's (the terminal's rows)
    rc, out, _ = run(capsys, [*argv, "--markdown"])
    tables = [line for line in out.splitlines() if line.startswith("Table: ")]
    assert rc == 0 and len(tables) == 2 and tables[1].startswith("Table: Leaderboard of each")
    body = [line for line in out.splitlines() if line.startswith("| ") and "pass^2" in line]
    assert len(body) == len(doc["leaderboard"]) + len(got)
    rc, out, _ = run(capsys, [*argv, "--latex"])
    assert rc == 0 and out.count("\\begin{table}") == 2


def test_rank_by_category_csv_overall_rows_name_the_posterior(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Below 30 tasks the overall leaderboard's interval is each system's hierarchical
    posterior, though the engine column says 'bootstrap': the overall CSV rows' method says
    so (it was empty)."""
    rows = [
        {"system": s, "task_id": f"t{t}", "trial": r, "success": int((t + r + i) % 3 != 0),
         "category": "ab"[t % 2]}
        for i, s in enumerate(["x", "y", "z"]) for t in range(8) for r in range(3)
    ]  # fmt: skip
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    argv = ["rank", str(path), "--k", "1", "--metric", "mean", "--n-boot", "200", "--by",
            "category"]  # fmt: skip
    rc, out, _ = run(capsys, [*argv, "--csv"])
    csv = pd.read_csv(io.StringIO(out), keep_default_na=False)
    overall = csv[csv["category"] == ""]
    assert rc == 0 and len(overall) == 3
    assert overall["method"].str.startswith("posterior interval of each system's").all()
