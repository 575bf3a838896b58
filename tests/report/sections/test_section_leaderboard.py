"""The leaderboard section's sentences against its own ranking (the oracle is the Ranking's
table: group letters and the share of resamples ranked first), and the summary's use of them."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from report_testdata import results_of

import passhat as ph
from passhat.report.sections.leaderboard import leaderboard_section


def _board(data, k, **options):  # type: ignore[no-untyped-def]
    """The leaderboard section of the report's results, and the report's ranking."""
    res = results_of(data, k=k, **options)
    return leaderboard_section(res), res.ranking


@pytest.fixture(scope="module")
def board():  # type: ignore[no-untyped-def]
    return _board(ph.load_example("leaderboard"), [1, 5], n_boot=400)


def test_sentences_say_what_the_table_says(board) -> None:  # type: ignore[no-untyped-def]
    sec, r = board
    metric, k = r.settings["headline"]
    t = r.table[(r.table["metric"] == metric) & (r.table["k"] == k)]
    leader = t.iloc[0]
    # not separated from the leader ⟺ shares one of its letters (and the pairs table agrees)
    along = [
        s
        for s, g in zip(t["system"][1:], t["group"][1:], strict=True)
        if set(g) & set(leader["group"])
    ]
    pop = r.pairs[
        (r.pairs["metric"] == metric) & (r.pairs["k"] == k) & (r.pairs["scope"] == "population")
    ]
    with_leader = pop[(pop["system_a"] == leader["system"]) | (pop["system_b"] == leader["system"])]
    kept = {
        a if b == leader["system"] else b
        for a, b, sep in zip(
            with_leader["system_a"], with_leader["system_b"], with_leader["separated"], strict=True
        )
        if not sep
    }
    assert set(along) == kept
    first = sec.sentences[0]
    assert first.split(": ", 1)[1].startswith(f"{leader['system']} leads")
    if along:
        assert f"not separated from it at 5%: {', '.join(along)}" in first
    else:
        assert "separated from every other system" in first
    assert not re.search(r"\btiers?\b|\bchain\b", first)
    assert "not the probability that it is truly first" in sec.sentences[1]
    for row in t.head(3).itertuples():
        assert f"{row.system} {row.share_first:.2f}" in sec.sentences[1]
    assert sec.tables[0].columns[0].label == "Group"
    assert sec.tables[0].columns[-1].label == "First in (share of resamples)"


def test_summary_gives_the_order_not_the_pairs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    res = ph.report(
        ph.load_example("leaderboard"), tmp_path, k=[1, 5], model=False, plan=False, n_boot=300
    )
    summary = res.data.section("summary").sentences
    board = res.data.section("leaderboard").sentences
    assert board[0] in summary and board[1] in summary
    assert not any(" − " in s and "differs by" in s for s in summary)  # no pairwise lines


def test_tasks_not_run_by_every_system_are_listed() -> None:  # type: ignore[no-untyped-def]
    """The section ranks on the tasks every system ran; the others were left out without a
    word (the sentence said only '... on the same 2 tasks'). Oracle: the Ranking's dropped."""
    frames = []
    for system, tasks in (("A", ["t0", "t1", "t2"]), ("B", ["t0", "t1"]), ("C", ["t1", "t0"])):
        for t in tasks:
            frames += [
                {"system": system, "task_id": t, "trial": r, "success": r < 2} for r in range(4)
            ]
    data = ph.Trials.from_frame(pd.DataFrame(frames))
    sec, r = _board(data, [1, 2], unscored_tasks="exclude")
    assert r.dropped["task"].tolist() == ["t2"]
    assert (
        "1 task(s) are left out of the leaderboard, which compares systems on the tasks all of "
        "them ran: t2 (not run by B, C)." in sec.sentences
    )
    sec, _ = _board(ph.load_example("leaderboard"), [1])
    assert not any("left out of the leaderboard" in s for s in sec.sentences)
