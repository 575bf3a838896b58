"""The shape of :class:`passhat.Ranking` (passhat.rank.result): a frozen result whose JSON
document and view are those ``passhat rank`` printed before.

Oracles: the document's keys as the command wrote them before (plus the three header keys),
the result's own tables, the inputs' provenance, passhat.exclusions.default_ks.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pytest

import passhat as ph
from passhat._result import MAX_REPR
from passhat.exclusions import default_ks
from passhat.trials import provenance


@pytest.fixture(scope="module")
def board() -> ph.Ranking:
    return ph.rank(ph.load_example("leaderboard"), k=[1, 3], n_boot=300, seed=0)


def test_document_has_the_header_and_the_keys_the_command_wrote(board: ph.Ranking) -> None:
    doc = board.to_dict()
    assert list(doc) == [
        "schema", "schema_version", "passhat_version",
        "input", "settings", "leaderboard", "pairs", "bands", "dropped", "notes",
    ]  # fmt: skip
    assert doc["schema"] == "passhat.ranking"
    assert doc["input"] == [provenance(ph.load_example("leaderboard"))]
    assert "headline" not in doc["settings"] and board.settings["headline"] == ("pass_hat_k", 3)
    assert len(doc["leaderboard"]) == len(board.table) and len(doc["pairs"]) == len(board.pairs)


def test_frozen_frame_and_view(board: ph.Ranking) -> None:
    with pytest.raises(FrozenInstanceError):
        board.notes = []  # type: ignore[misc]
    assert board.to_frame().equals(board.table)
    view = board.view()
    titles = [p.title for p in view.parts if p.title]
    # pass@1 and pass^1 are the mean: not shown again
    assert titles == [
        "mean: 6 systems on 120 common tasks (0.95 intervals)",
        "pass@3: 6 systems on 120 common tasks (0.95 intervals)",
        "pass^3: 6 systems on 120 common tasks (0.95 intervals)",
    ]
    first = view.parts[0]
    top = board.table[board.table["metric"] == "mean"]
    assert first.frame["system"].tolist() == top["system"].tolist()
    assert first.lines[0].startswith("pairs separated at 5% after Holm: ")
    last = view.parts[-1]
    assert last.lines[0].endswith("300 resamples, seed 0")
    assert any(n.startswith("group: systems that share a letter") for n in last.notes)
    assert any("not the probability that it is truly first" in n for n in last.notes)
    assert "first in (share of resamples)" in first.frame.columns
    assert len(repr(board)) <= MAX_REPR


def test_tier_rule_is_deprecated_and_changes_nothing() -> None:
    plain = ph.rank(ph.load_example("agents"), k=1, n_boot=200, seed=0)
    with pytest.warns(DeprecationWarning, match="tier_rule"):
        old = ph.rank(ph.load_example("agents"), k=1, n_boot=200, seed=0, tier_rule="leader")
    assert old.table.equals(plain.table)
    assert "tier" not in plain.table.columns and "separated_from_leader" not in plain.table


def test_default_k_is_the_one_default_rule() -> None:
    data = ph.load_example("agents")
    r = ph.rank(data, n_boot=200, seed=0)
    assert r.settings["k"] == default_ks(data) == [1, 2, 5]
    assert r.settings["headline"] == ("pass_hat_k", 5)


# ------------------------------------------------------------------ the table for papers
def test_paper_table_is_the_leaderboard() -> None:
    from tests.paper_cells import close, markdown_rows, numbers

    r = ph.rank(ph.load_example("leaderboard"), k=[1, 2], n_boot=200, seed=0)
    rows = markdown_rows(r.to_markdown())
    shown = r.table[~((r.table["metric"] != "mean") & (r.table["k"] == 1))]
    assert len(rows) == len(shown) == 3 * 6
    for row, (_, want) in zip(rows, shown.iterrows(), strict=True):
        assert row["system"] == want["system"]
        v, lo, hi = numbers(row["value"])
        assert close(v, want["value"]) and close(lo, want["lower"]) and close(hi, want["upper"])
        assert row["rank"] == f"{want['rank']} [{want['rank_lower']}, {want['rank_upper']}]"
        assert row["first in (share of resamples)"] == f"{want['share_first']:.2f}"
        assert row["group"] == str(want["group"])
    caption = r.to_markdown().splitlines()[-1]
    assert "95% intervals" in caption and "population scope" in caption and "seed 0" in caption
    assert r.to_latex().count("\\midrule") == 3  # the header's and one between the metrics


def test_flat_note_gives_the_reason_the_rule_recorded() -> None:
    """Below 30 tasks a system with no task showing both outcomes takes estimate's bound
    (the rule's reason: no task with both outcomes), not a collapsed bootstrap: the note says
    the rule's reason, not "every task resample gave the same value"."""
    import numpy as np

    from passhat.trials import counts_from_arrays

    n = np.full(6, 3)
    a = counts_from_arrays(
        n, np.array([3, 2, 1, 3, 0, 2]), tasks=[f"t{i}" for i in range(6)], system="A"
    )
    b = counts_from_arrays(n, np.zeros(6, dtype=int), tasks=[f"t{i}" for i in range(6)], system="B")
    r = ph.rank([a, b], k=1, n_boot=200)
    odd = r.table[r.table["interval"] != "marginal"]
    assert not odd.empty and all("no task with both outcomes" in s for s in odd["interval"])
    note = [x for x in r.notes if "value interval(s) are not" in x]
    assert len(note) == 1
    assert "no task with both outcomes" in note[0]
    assert "every task resample gave the same value" not in note[0]
