"""Bundled examples.

Oracles: the bundled ``agents.csv`` must be exactly what its documented, seeded
simulation (:func:`passhat.examples.simulate.simulate_agents`) produces; the
``abcd`` example is the seeds' four-task example (pass-at-k-vs-pass-hat-k seed:
5, 4, 2, 0 successes of 5 runs; k = 2 → per task mean/any/all 1/1/1,
.8/1/.6, .4/.7/.1, 0/0/0; macro 0.550 / 0.675 / 0.425).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.examples import example_path
from passhat.examples.simulate import simulate_agents
from passhat.trials import Trials


def test_agents_csv_is_the_seeded_simulation() -> None:
    bundled = ph.load_example("agents").frame
    regenerated = Trials.from_frame(simulate_agents(), where="simulate_agents()").frame
    assert list(bundled.columns) == list(regenerated.columns)
    # text columns are object (CSV) vs pandas' string dtype (built in memory): compare values
    pd.testing.assert_frame_equal(
        bundled.reset_index(drop=True),
        regenerated.reset_index(drop=True),
        check_exact=True,
        check_dtype=False,
    )
    assert bundled["success"].dtype == regenerated["success"].dtype == "boolean"


def test_agents_shape() -> None:
    trials = ph.load_example("agents")
    ds = trials.counts()
    assert trials.systems == ["baseline", "guided"]
    assert ds.sizes["task"] == 168
    assert (ds["n"].values == 5).all()  # 5 decided runs each; unscored attempts were re-run
    assert int(ds["unscored"].sum()) == int(trials.frame["success"].isna().sum()) > 0
    # clustered: many tasks always pass or always fail, a minority flip
    c = ds["c"].sel(system="baseline").values
    assert ((c == 0) | (c == 5)).mean() > 0.5
    assert ((c > 0) & (c < 5)).sum() > 10


def test_abcd_counts_and_seed_numbers() -> None:
    trials = ph.load_example("abcd")
    ds = trials.counts()
    assert ds["task"].values.tolist() == ["A", "B", "C", "D"]
    assert ds["n"].values.tolist() == [[5, 5, 5, 5]]
    assert ds["c"].values.tolist() == [[5, 4, 2, 0]]
    per = ph.per_task_metrics(ds, 2).sel(k=2).isel(system=0)
    np.testing.assert_allclose(per["mean"].values, [1, 0.8, 0.4, 0])
    np.testing.assert_allclose(per["pass_at_k"].values, [1, 1, 0.7, 0])
    np.testing.assert_allclose(per["pass_hat_k"].values, [1, 0.6, 0.1, 0])
    row = ph.estimate(trials, k=2).wide().iloc[0]
    assert row["mean"] == pytest.approx(0.550)
    assert row["pass_at_k"] == pytest.approx(0.675)
    assert row["pass_hat_k"] == pytest.approx(0.425)


def test_unknown_example() -> None:
    with pytest.raises(ph.errors.OptionError, match="unknown example 'nope'"):
        ph.load_example("nope")


# ------------------------------------------------------------ τ-bench airline
def test_tau_airline_gives_the_published_pass_hat_k() -> None:
    """Oracle: τ-bench's published leaderboard for gpt-4o airline: pass^1..4 = 0.420, 0.273,
    0.220, 0.200 (Yao et al. 2024), from the bundled copy alone (no ../shared)."""
    trials = ph.load_example("tau-airline")
    assert trials.systems == ["gpt-4o-airline"]
    ds = trials.counts()
    assert ds.sizes["task"] == 50 and (ds["n"].values == 4).all()
    hat = ph.estimate(trials, k=[1, 2, 3, 4]).wide()["pass_hat_k"].round(3).tolist()
    assert hat == [0.420, 0.273, 0.220, 0.200]


def test_tau_airline_is_the_shared_file_stripped(tau_airline_path) -> None:  # type: ignore[no-untyped-def]
    """The bundled records are the original file's, less what passhat does not read."""
    import json

    full = json.loads(tau_airline_path.read_text(encoding="utf-8"))
    bundled = json.loads(example_path("tau-airline").read_text(encoding="utf-8"))
    key = [
        (r["task_id"], r["trial"], r["reward"], r["info"]["source"], r["traj"][-1]) for r in full
    ]
    assert key == [
        (r["task_id"], r["trial"], r["reward"], r["info"]["source"], r["traj"][-1]) for r in bundled
    ]
    # the same outcomes and statuses (how each conversation ended) as the whole file
    a = ph.read(tau_airline_path).frame[["task_id", "trial", "success", "status"]]
    b = ph.load_example("tau-airline").frame[["task_id", "trial", "success", "status"]]
    pd.testing.assert_frame_equal(a, b)
    traces = json.loads(example_path("tau-airline", traces=True).read_text(encoding="utf-8"))
    by_key = {(r["task_id"], r["trial"]): r for r in full}
    for rec in traces:  # the kept trajectories are the original's without the system prompt
        orig = by_key[(rec["task_id"], rec["trial"])]
        assert rec["traj"] == [m for m in orig["traj"] if m["role"] != "system"]


def test_tau_airline_traces_match_the_trials() -> None:
    trials = ph.load_example("tau-airline").frame
    tr = ph.load_example_traces("tau-airline")
    assert tr.source["example"] == "tau-airline"
    assert sorted(tr.trials["task_id"].unique(), key=int) == ["5", "15", "21", "41", "44", "45"]
    merged = tr.trials.merge(trials, on=["system", "task_id", "trial"], suffixes=("", "_t"))
    assert len(merged) == 24 and (merged["success"] == merged["success_t"]).all()
    assert 0 < merged["success"].mean() < 1  # mixed outcomes: every task diverges somewhere
    div = ph.divergence(tr)
    assert set(div.table["task_id"]) == {"5", "15", "21", "41", "44", "45"}


def test_tau_airline_is_small_and_licensed() -> None:
    folder = example_path("tau-airline").parent
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    assert size < 200_000, size
    licence = (folder / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Sierra" in licence


def test_unknown_trace_example() -> None:
    with pytest.raises(ph.errors.OptionError, match="unknown trace example 'agents'"):
        ph.load_example_traces("agents")
    with pytest.raises(ph.errors.OptionError, match="no bundled file for example 'abcd'"):
        example_path("abcd")
