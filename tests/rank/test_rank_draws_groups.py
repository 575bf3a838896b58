"""rank_from_draws(groups=...): systems with identical data share their rank statistics.

Oracle: by exchangeability the exact rank distributions of two systems with identical
counts are the same, so the reported interval is the union of the members' intervals and
P(rank = 1) / mean rank their mean (computed here by hand from the same draws).
"""

from __future__ import annotations

import numpy as np
import pytest

from passhat.errors import ValidationError
from passhat.rank.draws import rank_from_draws


def test_groups_share_union_interval_and_mean_probability() -> None:
    rng = np.random.default_rng(3)
    # twins a, b (independent draws of the same posterior) and a weaker c
    d = np.column_stack([rng.beta(8, 4, 400), rng.beta(8, 4, 400), rng.beta(4, 8, 400)])
    point = [8 / 12, 8 / 12, 4 / 12]
    plain = rank_from_draws(d, ["a", "b", "c"], point, ci=0.9)
    grouped = rank_from_draws(d, ["a", "b", "c"], point, ci=0.9, groups=[0, 0, 1])
    for col in ("rank_lower", "rank_upper", "share_first", "mean_rank"):
        assert grouped.loc[0, col] == grouped.loc[1, col]
    assert grouped.loc[0, "rank_lower"] == plain.loc[[0, 1], "rank_lower"].min()
    assert grouped.loc[0, "rank_upper"] == plain.loc[[0, 1], "rank_upper"].max()
    assert grouped.loc[0, "share_first"] == pytest.approx(plain.loc[[0, 1], "share_first"].mean())
    # a system alone in its group keeps its own statistics
    assert grouped.loc[2].equals(plain.loc[2])


def test_groups_of_the_wrong_length_are_refused() -> None:
    d = np.zeros((10, 2))
    with pytest.raises(ValidationError, match="groups has 3 labels for 2 systems"):
        rank_from_draws(d, ["a", "b"], [0.0, 0.0], groups=[0, 0, 1])
