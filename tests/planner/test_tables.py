"""The seeds' reference tables (passhat.planner.tables).

Oracle: the seeds' printed tables (shared/seeds/pass-at-k-vs-pass-hat-k.txt, output of
2026-09-28).
"""

from __future__ import annotations

import pytest

from passhat import planner as plan

#: The seeds' printed lines, as ``passhat plan table`` prints them.
SEED_LINES = [
    " 3 clean runs rule out failure rates above 63.2%",
    " 5 clean runs rule out failure rates above 45.1%",
    "10 clean runs rule out failure rates above 25.9%",
    "20 clean runs rule out failure rates above 13.9%",
    "30 clean runs rule out failure rates above 9.5%",
    "60 clean runs rule out failure rates above 4.9%",
    "flip rate 10%: 29 runs",
    "flip rate 5%: 59 runs",
    "p=0.9, gate passes if any of 3 attempts passes: 99.9%; all 3 must pass: 72.9%",
]


def test_seed_clean_runs_table_exact():
    # seeds: "3 clean runs rule out failure rates above 63.2%" … "60 … 4.9%"
    printed = {3: "63.2%", 5: "45.1%", 10: "25.9%", 20: "13.9%", 30: "9.5%", 60: "4.9%"}
    table = plan.seed_tables(ci=0.95).clean_runs
    assert table["runs"].tolist() == list(printed)
    assert [f"{v:.1%}" for v in table["failure_rate_upper"]] == list(printed.values())


def test_seed_flip_rate_table_exact():
    # seeds: "flip rate 10%: 29 runs", "flip rate 5%: 59 runs"
    assert plan.seed_tables()["flip_rate"]["runs"].tolist() == [29, 59]


def test_seed_retry_table_exact():
    # seeds: "p=0.9, gate passes if any of 3 attempts passes: 99.9%; all 3 must pass: 72.9%"
    g = plan.seed_tables().retry.iloc[0]
    assert (g["rate"], g["attempts"]) == (0.9, 3)
    assert f"{g['retry_until_green']:.1%}" == "99.9%"
    assert f"{g['all_must_pass']:.1%}" == "72.9%"


def test_the_view_prints_the_seeds_lines_and_the_json_has_the_header():
    t = plan.seed_tables()
    assert repr(t).splitlines()[: len(SEED_LINES)] == SEED_LINES
    doc = t.to_dict()
    assert list(doc) == [
        "schema", "schema_version", "passhat_version", "ci", "clean_runs", "flip_rate", "retry",
        "assumptions",
    ]  # fmt: skip
    assert doc["ci"] == 0.95 and doc["flip_rate"][0] == {"flip_rate": 0.1, "runs": 29}


def test_the_old_names_still_work_with_a_warning():
    with pytest.warns(DeprecationWarning, match="confidence= is deprecated"):
        t = plan.seed_tables(confidence=0.9)
    assert t.ci == 0.9
    with pytest.warns(DeprecationWarning, match='"gate"'):
        assert t["gate"].equals(t.retry)
