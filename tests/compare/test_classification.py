"""Tests of passhat.compare.classification: baseline vs candidate, per task.

Oracles
-------
* scipy.stats.fisher_exact (one-sided) for every task's p-values.
* Simulated builds with known truth: tasks whose success probability drops
  from 1 to 0.1, rises from 0 to 0.9, stays at 0.5 (flaky), stays at 1 / 0,
  and one whose scenario fingerprint changes.
* Simulation of unchanged tasks: the share flagged ``regression`` must not
  exceed α (Fisher's exact test is conservative) beyond Monte-Carlo error.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import passhat as ph
from classify_testdata import BASE, CAND, build_runs
from passhat.compare import runs_to_significance
from passhat.errors import OptionError

TRUTH = {
    "regressed": "regression",
    "fixed": "fixed",
    "flaky": "flaky",
    "redefined": "redefined",
    "always": "stable_pass",
    "never": "stable_fail",
    "few": "undecided",
}


@pytest.fixture(scope="module")
def builds() -> tuple[ph.Trials, ph.Trials]:
    return build_runs(BASE, 1, "v1"), build_runs(CAND, 2, "v2")


def test_known_truth(builds) -> None:  # type: ignore[no-untyped-def]
    base, cand = builds
    res = ph.classify(base, cand, min_runs=2)
    got = dict(zip(res.table["task"], res.table["verdict"], strict=True))
    assert got == TRUTH
    # the tasks in one build only are listed, not dropped silently
    assert res.excluded.set_index("task")["reason"].to_dict() == {
        "base_only": "only in base (no candidate run)",
        "cand_only": "only in candidate (no base run)",
    }
    line = res.summary()
    assert "1 regression" in line and "1 fixed" in line and "1 flaky" in line
    assert "1 redefined" in line and "1 undecided" in line
    assert "2 task(s) in one build only" in line and "regressed: regressed" in line
    assert "Holm across tasks, FWER=0.05" in line and "\n" not in line
    # 2/2 vs 0/2: p = 1/C(4,2) = 1/6; three more failing candidate runs give 1/C(7,2) = 1/21
    few = res.table.set_index("task").loc["few"]
    assert few["more_runs_cand"] == 3
    assert "3 more candidate run(s)" in few["note"]


def test_p_values_match_scipy_fisher(builds) -> None:  # type: ignore[no-untyped-def]
    base, cand = builds
    res = ph.classify(base, cand, min_runs=2)
    for _, r in res.table.iterrows():
        tab = [[r["c_base"], r["n_base"] - r["c_base"]], [r["c_cand"], r["n_cand"] - r["c_cand"]]]
        assert r["p_regression"] == pytest.approx(
            stats.fisher_exact(tab, alternative="greater")[1], rel=1e-9, abs=1e-12
        )
        assert r["p_fixed"] == pytest.approx(
            stats.fisher_exact(tab, alternative="less")[1], rel=1e-9, abs=1e-12
        )


def test_min_runs_makes_small_tasks_undecided(builds) -> None:  # type: ignore[no-untyped-def]
    base, cand = builds
    res = ph.classify(base, cand, min_runs=3)
    few = res.table.set_index("task").loc["few"]
    assert few["verdict"] == "undecided"
    assert (few["more_runs_base"], few["more_runs_cand"]) == (1, 1)


@pytest.mark.parametrize(("nb", "nc", "want"), [(2, 2, 3), (3, 3, 0), (1, 1, 18), (5, 1, 1)])
def test_runs_to_significance_brute_force(nb: int, nc: int, want: int) -> None:
    """Oracle: the smallest m with 1/C(nb+nc+m, nb) ≤ 0.05, by enumeration."""
    from math import comb

    m = next(m for m in range(1000) if 1 / comb(nb + nc + m, nb) <= 0.05)
    assert m == want
    assert runs_to_significance(nb, nb, nc, 0) == want
    # the mirror case (all fail before, all pass now) needs as many runs
    assert runs_to_significance(nb, 0, nc, nc) == want


def test_unchanged_tasks_rarely_flagged() -> None:
    """2000 unchanged tasks with p = 0.7, n = 10 in both builds: regression share ≤ α.

    The per-task level without correction (``multiplicity="none"``): each task's own test
    holds α. Across tasks, Holm and BH are tested in tests/compare/test_multiplicity.py.
    """
    rng = np.random.default_rng(7)
    T, n, p = 2000, 10, 0.7
    tasks = [f"t{i}" for i in range(T)]
    b = ph.counts_from_arrays(np.full(T, n), rng.binomial(n, p, T), tasks=tasks)
    c = ph.counts_from_arrays(np.full(T, n), rng.binomial(n, p, T), tasks=tasks)
    res = ph.classify(b, c, multiplicity="none")
    share = (res.table["verdict"] == "regression").mean()
    mc = 3 * np.sqrt(0.05 * 0.95 / T)
    assert share <= 0.05 + mc
    # and a real drop (0.9 → 0.2 with 10 runs) is found most of the time
    c2 = ph.counts_from_arrays(np.full(T, n), rng.binomial(n, 0.2, T), tasks=tasks)
    b2 = ph.counts_from_arrays(np.full(T, n), rng.binomial(n, 0.9, T), tasks=tasks)
    power = (ph.classify(b2, c2, multiplicity="none").table["verdict"] == "regression").mean()
    assert power > 0.9
    # every task really regressed: BH (false discovery rate) keeps most of them, while
    # Holm (any false flag among 2000) keeps few and labels the rest "possible"
    bh = ph.classify(b2, c2, multiplicity="bh").table["verdict"]
    holm = ph.classify(b2, c2).table["verdict"]
    assert (bh == "regression").mean() > 0.8
    assert (holm == "regression").mean() < 0.5
    assert ((holm == "regression") | (holm == "possible_regression")).mean() > 0.9


def test_bad_input() -> None:
    a = ph.counts_from_arrays([5], [5], tasks=["x"])
    b = ph.counts_from_arrays([5], [5], tasks=["y"])
    with pytest.raises(OptionError, match="no task in common"):
        ph.classify(a, b)
    with pytest.raises(OptionError, match="alpha"):
        ph.classify(a, a, alpha=1.5)
    with pytest.raises(OptionError, match="min_runs"):
        ph.classify(a, a, min_runs=0)
    two = ph.load_example("agents")
    if len(two.systems) > 1:
        with pytest.raises(OptionError, match="systems"):
            ph.classify(two, two)
    res = ph.classify(a, a)
    with pytest.raises(OptionError, match="unknown verdict"):
        res.has("broken")


def test_wrong_input_type_is_a_validation_error() -> None:
    from passhat.errors import ValidationError

    trials = ph.counts_from_arrays([2, 2], [1, 2])
    with pytest.raises(ValidationError, match=r"base: expected passhat\.Trials"):
        ph.classify(None, trials)  # type: ignore[arg-type]


def test_unscored_runs_counted_apart() -> None:
    df = pd.DataFrame(
        {"task_id": ["t"] * 4, "trial": range(4), "success": [True, True, True, None]}
    )
    t = ph.Trials.from_frame(df)
    r = ph.classify(t, t).table.iloc[0]
    assert (r["n_base"], r["unscored_base"], r["verdict"]) == (3, 1, "stable_pass")


def _hashed(system: str, rows: list[tuple[str, int, int, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["task_id", "trial", "success", "scenario_hash"]).assign(
        system=system
    )


def test_redefined_is_found_when_both_builds_share_one_file() -> None:
    """Two builds in one file: the count table keeps one fingerprint per task for both, so a
    task whose scenario changed (h1 → h2) was classified 'regression' (3/3 → 0/3, a false
    flag for --fail-on regression); now 'redefined', as with one file per build. A task whose
    fingerprint changes within a build (x, y, x) is redefined too: its runs are not one
    scenario. Oracle: the verdicts of the same runs given as two inputs."""
    base = _hashed(
        "v1", [("a", j, 1, "h1") for j in range(3)] + [("b", j, 1, "x") for j in range(3)]
    )
    cand = _hashed(
        "v2",
        [("a", j, 0, "h2") for j in range(3)]
        + [("b", 0, 1, "x"), ("b", 1, 0, "y"), ("b", 2, 1, "x")],
    )
    one = ph.Trials.from_frame(pd.concat([base, cand], ignore_index=True))
    two = (ph.Trials.from_frame(base), ph.Trials.from_frame(cand))
    for res in (ph.classify(one, base_system="v1"), ph.classify(*two)):
        assert res.table[["task", "verdict"]].values.tolist() == [
            ["a", "redefined"],
            ["b", "redefined"],
        ]
    # unchanged fingerprints in one file: the tests decide (oracle: Fisher, 3/3 vs 0/3 p = 0.05)
    same = pd.concat([base, cand.assign(scenario_hash=base["scenario_hash"])], ignore_index=True)
    verdicts = ph.classify(ph.Trials.from_frame(same), base_system="v1").table
    assert verdicts.set_index("task").loc["a", "p_regression"] == pytest.approx(0.05)
    assert "redefined" not in set(verdicts["verdict"])
