"""Tests of passhat.planner.rounds: runs cut into rounds of k-run blocks.

Oracle: a plain Python loop over each task's decided runs sorted by trial index, on
shuffled rows with unscored runs and unequal runs per task; an open block's bounds are the
outcomes of its runs with the missing ones all failing and all passing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.errors import InputError, OptionError
from passhat.planner.rounds import block_rounds


def _random_trials(seed: int) -> tuple[ph.Trials, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(7):
        n = int(rng.integers(4, 15))
        for trial in rng.permutation(n):
            ok = rng.random() < 0.8
            unscored = rng.random() < 0.1
            rows.append(
                {
                    "task_id": f"task{t}",
                    "trial": int(trial) * 3,  # gaps in the trial index are fine
                    "success": None if unscored else bool(ok),
                }
            )
    df = pd.DataFrame(rows).sample(frac=1, random_state=seed).reset_index(drop=True)
    return ph.Trials.from_frame(df), df


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("k", "metric"), [(1, "pass_hat_k"), (2, "pass_hat_k"), (3, "pass_at_k")])
def test_blocks_match_a_loop(seed: int, k: int, metric: str) -> None:
    trials, df = _random_trials(seed)
    got = block_rounds(trials, k=k, metric=metric)
    runs = {}
    for task, part in df.groupby("task_id", sort=False):
        dec = part[part["success"].notna()].sort_values("trial")
        runs[task] = [bool(x) for x in dec["success"]]
    rounds = min(len(r) // k for r in runs.values())
    top = max(len(r) // k for r in runs.values())
    assert (got.rounds, got.top) == (rounds, top)
    assert got.unscored == int(df["success"].isna().sum())
    assert got.set_aside == sum(max(0, len(r) - top * k) for r in runs.values())
    assert got.blocks is not None and got.lo is not None and got.hi is not None
    for i, task in enumerate(got.tasks):
        blocks = [runs[task][b * k : (b + 1) * k] for b in range(rounds)]
        want = [all(b) if metric == "pass_hat_k" else any(b) for b in blocks]
        assert got.blocks[i].tolist() == want
        assert got.passes[i] == sum(want)
        for b in range(top):  # every block up to top: the outcomes its missing runs allow
            seen = runs[task][b * k : (b + 1) * k]
            fill = [seen + [x] * (k - len(seen)) for x in (False, True)]
            can = {all(f) if metric == "pass_hat_k" else any(f) for f in fill}
            assert (got.lo[i, b], got.hi[i, b]) == (min(can), max(can)), (task, b, seen)
            assert got.complete is not None and got.complete[i, b] == (len(seen) == k)
        assert got.missing()[i] == max(0, top * k - len(runs[task]))
    assert got.runs_to_reach(rounds + 1) == sum(
        max(0, (rounds + 1) * k - len(r)) for r in runs.values()
    )


def test_count_table_k1_equal_runs() -> None:
    ds = ph.counts_from_arrays([5, 5, 5], [5, 3, 0], tasks=["a", "b", "c"])
    b = block_rounds(ds)
    assert (b.rounds, b.passes.tolist(), b.blocks, b.set_aside) == (5, [5, 3, 0], None, 0)


def test_count_table_refusals() -> None:
    with pytest.raises(InputError, match=r"no trial order.*k = 2"):
        block_rounds(ph.counts_from_arrays([5, 5], [5, 3]), k=2)
    with pytest.raises(InputError, match="3 to 5 decided runs"):
        block_rounds(ph.counts_from_arrays([5, 3], [5, 3]))


def test_options_and_systems() -> None:
    agents = ph.load_example("agents")
    with pytest.raises(OptionError, match=r"holds 2 systems \(baseline, guided\); name one"):
        block_rounds(agents)
    b = block_rounds(agents, system="guided", k=5)
    assert (b.rounds, len(b.tasks), b.set_aside) == (1, 168, 0)
    with pytest.raises(OptionError, match="not found"):
        block_rounds(agents, system="nope")
    with pytest.raises(OptionError, match="k must be"):
        block_rounds(agents, system="guided", k=0)
    with pytest.raises(OptionError, match="mean is a per-run metric"):
        block_rounds(agents, system="guided", k=2, metric="mean")
    with pytest.raises(OptionError, match="metric must be"):
        block_rounds(agents, system="guided", metric="pass")


def test_declared_weights_are_normalised() -> None:
    df = pd.DataFrame(
        {
            "task_id": ["a", "a", "b", "b"],
            "success": [True, False, True, True],
            "weight": [3.0, 3.0, 1.0, 1.0],
        }
    )
    b = block_rounds(ph.Trials.from_frame(df), weights="declared")
    np.testing.assert_allclose(b.weights, [0.75, 0.25])


@pytest.mark.parametrize("weights", [None, "equal"])
def test_an_empty_count_table_is_refused_naming_the_system(weights: str | None) -> None:
    # counts_from_arrays([], []) is a valid (empty) table; the gate divided by its 0 tasks
    # (ZeroDivisionError) where estimate / spread refuse it with a PasshatError
    ds = ph.counts_from_arrays([], [])
    with pytest.raises(InputError, match="'system' has no task"):
        block_rounds(ds, weights=weights)
    with pytest.raises(InputError, match="no task"):
        ph.plan.sequential(ds, max_failure_rate=0.1)
