"""Adversarial QA of the Python API: hostile data frames and option values (round 2, session 6).

The contract: every bad value gives a :class:`passhat.PasshatError` subclass whose message names
the rule (never a raw ``KeyError``/``TypeError``/``ValueError``/``MemoryError`` from numpy or
pandas), or works correctly — and nothing is silently coerced, merged or dropped.

Oracles: the rule each message must name; for values that work, the counts written by hand
(a task's n and c) and the unbiased estimators' definitions.
"""

from __future__ import annotations

import pandas as pd
import pytest

import passhat as ph
from passhat._validate import MAX_N_BOOT

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
