"""Adversarial QA of the Python API: hostile data frames and option values (round 2, session 6).

The contract: every bad value gives a :class:`passhat.PasshatError` subclass whose message names
the rule (never a raw ``KeyError``/``TypeError``/``ValueError``/``MemoryError`` from numpy or
pandas), or works correctly — and nothing is silently coerced, merged or dropped.

Oracles: the rule each message must name; for values that work, the counts written by hand
(a task's n and c) and the unbiased estimators' definitions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat._validate import MAX_N_BOOT
from passhat.planner.design_check import simulate_design

FRAME = pd.DataFrame(
    {
        "system": ["A"] * 8 + ["B"] * 8,
        "task_id": (["a"] * 4 + ["b"] * 4) * 2,
        "trial": [0, 1, 2, 3] * 4,
        "success": [1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0],
    }
)


def _trials() -> ph.Trials:
    return ph.Trials.from_frame(FRAME)


# ------------------------------------------------------------------ absurd resample counts
@pytest.mark.parametrize(
    "call",
    [
        lambda t, nb: ph.estimate(t, k=1, ci=0.9, n_boot=nb),
        lambda t, nb: ph.compare(t, k=1, n_boot=nb),
        lambda t, nb: ph.rank(t, k=1, n_boot=nb),
        lambda t, nb: ph.spread(t, k=1, ci=0.9, n_boot=nb),
    ],
    ids=["estimate", "compare", "rank", "spread"],
)
def test_absurd_n_boot_is_refused_before_any_allocation(call) -> None:  # type: ignore[no-untyped-def]
    """n_boot = 10^12 ended in a MemoryError ('Unable to allocate 7.28 TiB'); it is now an
    OptionError naming the bound and the memory (10^12 × 8 bytes = 7.3 TiB)."""
    with pytest.raises(ph.OptionError, match=r"at most 1,000,000 .*7\.3 TiB of memory"):
        call(_trials(), 10**12)
    assert MAX_N_BOOT == 1_000_000


# ------------------------------------------------------------------ fit: sampler sizes
@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"chains": 1000}, r"chains must be a whole number from 1 to 64 \(got 1000\)"),
        ({"draws": 1}, r"draws .* from 4 .*need at least 4 draws per chain"),
        ({"draws": 10**6, "chains": 64}, r"chains × draws must be at most 10,000,000"),
        ({"grid_size": 1}, r"grid_size must be a whole number from 16 to 4,096"),
        ({"grid_size": 10**6}, r"grid_size must be a whole number from 16 to 4,096"),
        ({"chains": "4"}, r"chains must be a whole number"),
    ],
)
def test_fit_sizes_are_bounded(options: dict[str, object], pattern: str) -> None:
    """chains=1000 ran 1000 NUTS chains (48 s on four tasks) and failed its ESS check; draws=1
    gave NaN ESS with ArviZ shape warnings on stderr; grid_size=1 raised an IndexError and
    grid_size=10^6 a MemoryError (7 TiB). Each is now an OptionError naming the bound."""
    with pytest.raises(ph.OptionError, match=pattern):
        ph.fit(ph.load_example("abcd"), method="grid", **options)  # type: ignore[arg-type]
    with pytest.raises(ph.OptionError, match=pattern):
        ph.fit(_trials(), model="joint", **options)  # type: ignore[arg-type]


def test_grid_ess_shortfall_says_draws_per_chain_are_too_few() -> None:
    """Grid draws are independent (ESS ≈ chains × draws): 64 chains × 20 draws fall short of
    the 100-per-chain rule (6400), and the problem says to raise the draws per chain."""
    f = ph.fit(ph.load_example("abcd"), method="grid", chains=64, draws=20, seed=0)
    assert f.diagnostics.problems
    assert all("grid draws are independent" in p for p in f.diagnostics.problems)


# ------------------------------------------------------------------ frames and arrays
@pytest.mark.parametrize(
    ("table", "pattern"),
    [
        (FRAME.to_numpy(), r"expected a pandas DataFrame .*\(got ndarray\).*columns="),
        (FRAME.to_dict("records"), r"expected a pandas DataFrame .*\(got list\)"),
        (FRAME.to_dict("list"), r"expected a pandas DataFrame .*\(got dict\)"),
        (FRAME["success"], r"expected a pandas DataFrame .*\(got Series\)"),
        (None, r"expected a pandas DataFrame .*\(got NoneType\)"),
        (
            pd.concat([FRAME, FRAME["success"]], axis=1),
            r"column name\(s\) 'success' appear more than once",
        ),
    ],
    ids=["ndarray", "records", "dict", "series", "none", "duplicate-columns"],
)
def test_from_frame_refuses_what_is_not_a_frame(table: object, pattern: str) -> None:
    """Each raised a raw AttributeError ('... has no attribute columns' / 'dtype')."""
    with pytest.raises(ph.ValidationError, match=pattern):
        ph.Trials.from_frame(table)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ids", "pattern"),
    [
        ([1] * 4 + ["1"] * 4, r"rows 1 and 5: task_id 1 \(a number\) and '1' \(text\)"),
        ([np.int64(7)] * 4 + ["7"] * 4, r"task_id 7 \(a number\) and '7' \(text\)"),
        (["2.5"] * 4 + [2.5] * 4, r"rows 1 and 5: task_id 2\.5 \(a number\) and '2\.5'"),
    ],
)
def test_a_number_and_a_text_id_that_read_alike_are_refused(
    ids: list[object], pattern: str
) -> None:
    """Tasks 1 and '1' were merged into one task of 8 runs (its c summed), silently."""
    df = pd.DataFrame({"task_id": ids, "success": [1, 1, 0, 1, 0, 0, 0, 0]})
    with pytest.raises(ph.ValidationError, match=pattern):
        ph.Trials.from_frame(df)


def test_ids_of_one_kind_or_distinct_texts_still_read() -> None:
    """Oracle: counts by hand. 7 and '07' differ as text; 1, 1.0 and True keep their own text."""
    df = pd.DataFrame({"task_id": [7, 7, "07", 1, 1.0, True], "success": [1, 0, 1, 1, 0, 1]})
    ds = ph.Trials.from_frame(df).counts()
    got = dict(zip(ds["task"].values.tolist(), ds["c"].values[0].tolist(), strict=True))
    assert got == {"7": 1, "07": 1, "1": 1, "1.0": 0, "True": 1}


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: ph.counts_from_arrays(["3", "2"], [1, 0]), ph.CountError, "not text"),
        (lambda: ph.counts_from_arrays([3, 2], [1, 0], tasks=["a", "a"]), ph.CountError,
         "task 'a' appears more than once"),
        (lambda: ph.counts_from_arrays([3, 2], [1, 0], tasks=["a"]), ph.CountError,
         "tasks has 1 value"),
        (lambda: ph.counts_from_arrays([3, 2], [1, 0], weight=[1, 2, 3]), ph.CountError,
         "weight has 3 value"),
        (lambda: ph.pass_hat_k("5", 4, 2), ph.CountError, "n must hold numbers, not text"),
    ],
    ids=["text-counts", "duplicate-tasks", "short-tasks", "long-weights", "text-n"],
)  # fmt: skip
def test_count_arrays_hold_numbers_of_one_length(call, error, pattern) -> None:  # type: ignore[no-untyped-def]
    """Text counts raised a raw ValueError (or read '5' as 5); two tasks named 'a' made a count
    table whose task 'a' selected both; mismatched lengths raised xarray's ValueError."""
    with pytest.raises(error, match=pattern):
        call()


# ------------------------------------------------------------------ option values
@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda t: ph.estimate(t, k=1, ci="0.9"), r"ci must lie strictly between 0 and 1"),
        (lambda t: ph.compare(t, ci="0.95", n_boot=200), r"ci must lie strictly between"),
        (lambda t: ph.estimate(t, k={1: 2}), r"k must be a whole number or a sequence"),
        (lambda t: ph.classify(t, alpha="0.9"), r"alpha must be in \(0, 1\) \(got '0.9'\)"),
        (lambda t: ph.classify(t, alpha=float("nan")), r"alpha must be in \(0, 1\)"),
        (lambda t: ph.classify(t, min_runs="x"), r"min_runs must be a whole number"),
    ],
    ids=["estimate-ci-text", "compare-ci-text", "k-mapping", "alpha-text", "alpha-nan", "min-runs"],
)
def test_option_values_of_the_wrong_kind(call, pattern: str) -> None:  # type: ignore[no-untyped-def]
    """ci='0.9' was read as 0.9 (while k='5', seed='x' and n_boot='1000' were refused);
    k={1: 2} used the mapping's keys; classify's alpha='0.9' raised a TypeError ('<' between
    int and str) and min_runs='x' a ValueError."""
    with pytest.raises(ph.OptionError, match=pattern):
        call(_trials())


@pytest.mark.parametrize(
    ("n", "c", "pattern"),
    [(["a", "b"], [1, 1], "n must hold numbers, not text"), ([3, float("nan")], [1, 1],
      "n must hold whole numbers"), ([3, 2.5], [1, 1], "n must hold whole numbers")],
)  # fmt: skip
def test_heterogeneity_test_counts(n: list[object], c: list[object], pattern: str) -> None:
    """Text and NaN counts raised a raw ValueError from numpy's int conversion; 2.5 was
    truncated to 2 silently."""
    with pytest.raises(ph.CountError, match=pattern):
        ph.heterogeneity_test(n, c)


# ------------------------------------------------------------------ planner and simulation sizes
_PRIOR = ph.plan.Assumptions(mean=0.7, kappa=3.0)


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda: ph.heterogeneity_test([3] * 40, [1] * 40, n_draws=10**12),
         r"n_draws must be at most 1,000,000"),
        (lambda: ph.plan.more_runs(ph.load_example("abcd"), simulations=10**12),
         r"simulations must be at most 1,000,000"),
        (lambda: ph.plan.power(delta=0.1, tasks=None, runs_per_task=3, power=0.8, prior=_PRIOR,
                               method="simulation", replicates=10**12),
         r"replicates × tasks = .* more than 100,000,000 .*PiB of memory"),
        (lambda: simulate_design(tasks=10**12, runs_per_task=3, k=1, prior=_PRIOR,
                                 replicates=100),
         r"replicates × tasks = 100,000,000,000,000 .*TiB of memory"),
        (lambda: ph.plan.power(delta=None, tasks=10**12, runs_per_task=10**9, power=0.8,
                               prior=_PRIOR),
         r"reach power 0\.8 for every improvement .* down to 10⁻⁶"),
        (lambda: ph.compare(ph.load_example("abcd"), ph.load_example("abcd"), names=("a",)),
         r"names must be two labels"),
        (lambda: ph.plan.next_runs(ph.load_example("abcd"), budget=10, k=1, prior="x"),
         r"prior must be plan\.Assumptions or earlier runs, got str"),
        (lambda: ph.plan.next_runs(ph.load_example("abcd"), budget=10, k=1, max_per_task=2.5),
         r"max_per_task must be a whole number ≥ 1 \(got 2\.5\)"),
        (lambda: ph.plan.next_runs(ph.load_example("abcd"), budget=10, k=1, max_per_task="x"),
         r"max_per_task must be a whole number ≥ 1 \(got 'x'\)"),
    ],
    ids=["het-draws", "more-runs-sims", "power-replicates", "design-tasks", "power-huge-design",
         "compare-names", "next-prior", "next-cap-2.5", "next-cap-text"],
)  # fmt: skip
def test_planner_sizes_and_options(call, pattern: str) -> None:  # type: ignore[no-untyped-def]
    """Before: MemoryError (7 TiB to 1.6 PiB), a run without end (more_runs at 10^12),
    brentq's ValueError 'f(a) and f(b) must have different signs', a ValueError unpacking
    names, an AttributeError for a text prior, and max_per_task=2.5 cut to 2 silently."""
    with pytest.raises(ph.OptionError, match=pattern):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda t: ph.estimate(t, k=1, matched="no"),
        lambda t: ph.compare(t, k=1, intersect="no", n_boot=200),
        lambda t: ph.rank(t, k=1, intersect="no", n_boot=200),
    ],
    ids=["estimate-matched", "compare-intersect", "rank-intersect"],
)
def test_yes_no_options_refuse_text(call) -> None:  # type: ignore[no-untyped-def]
    """matched='no' was read as True (a non-empty text is truthy), intersect='no' likewise."""
    with pytest.raises(ph.OptionError, match=r"must be True or False \(got 'no'\)"):
        call(_trials())


def test_slices_severe_given_as_one_name() -> None:
    """severe='timeout' was read letter by letter: six severe statuses 't', 'i', 'm', 'e', 'o',
    'u' (each with rate 0). Oracle: the same table as severe=['timeout']."""
    t = ph.load_example("agents")
    one = ph.slices(t, severe="timeout").severe
    assert one["status"].unique().tolist() == ["timeout"]
    pd.testing.assert_frame_equal(one, ph.slices(t, severe=["timeout"]).severe)
