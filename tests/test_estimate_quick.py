"""The plain estimate of a τ-bench file without pandas (passhat.estimate_quick).

Oracle: the whole estimate, ``passhat.estimate(passhat.read_trials(path)).view()``, on the
same file: the quick table must show the same cells; and every input whose reading needs a
rule (an unscored run, a duplicate, an id the trial table reads differently, a pass with a
failure status) must not be answered here (None), so the whole estimate gives its note or
error.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import passhat as ph
from passhat._repr import TextTable, as_text
from passhat.estimate_quick import (
    plain_count_csv,
    plain_ks,
    plain_runs,
    plain_runs_csv,
    plain_view,
)
from passhat.examples import example_path

TAU = example_path("tau-airline")


def _records() -> list[dict[str, Any]]:
    return json.loads(TAU.read_text())


def _write(tmp_path: Path, records: list[dict[str, Any]], name: str = "runs.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(records))
    return path


def _whole_view_rows(
    path: Path, k: list[int] | None, fmt: str | None = "tau-bench"
) -> list[list[str]]:
    est = ph.estimate(ph.read_trials(path, format=fmt), k=k)
    part = est.view().parts[0]
    assert part.frame is not None and not isinstance(part.frame, TextTable)
    return [list(map(str, r)) for r in part.frame.values.tolist()]


def _plain_rows(path: Path, k: list[int] | None) -> list[list[str]]:
    runs = plain_runs(path)
    assert runs is not None
    shown = plain_view(runs, k=k)
    assert shown is not None
    frame = shown.parts[0].frame
    assert isinstance(frame, TextTable)
    return [list(r) for r in frame.rows]


def _string_ids(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for r in recs:
        r["task_id"] = f"task-{r['task_id']}"
    return recs


def _no_trials(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for r in recs:
        r.pop("trial", None)
    return recs


def _mixed_runs(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return recs[:-3]  # three tasks with 3 runs: the default k stops at 3


@pytest.mark.parametrize("edit", [None, _string_ids, _no_trials, _mixed_runs])
@pytest.mark.parametrize("k", [None, [1], [1, 2, 3], [2, 3]])
def test_plain_table_equals_the_whole_estimates(tmp_path: Path, edit: Any, k: Any) -> None:
    recs = _records()
    path = _write(tmp_path, edit(recs) if edit else recs)
    assert _plain_rows(path, k) == _whole_view_rows(path, k)


def test_plain_view_text_and_title_equal_the_whole_estimates() -> None:
    runs = plain_runs(TAU)
    assert runs is not None
    shown = plain_view(runs, k=[1, 2, 3, 4])
    assert shown is not None
    est = ph.estimate(ph.load_example("tau-airline"), k=[1, 2, 3, 4])
    assert as_text(shown) == as_text(est.view())
    # τ-bench's published pass^1..4 for GPT-4o airline
    assert [r[-1] for r in shown.parts[0].frame.rows] == ["0.420", "0.273", "0.220", "0.200"]


def test_counts_per_task_in_order_of_first_appearance(tmp_path: Path) -> None:
    recs = [
        {"task_id": "b", "trial": 0, "reward": 1.0, "info": {}},
        {"task_id": "a", "trial": 0, "reward": 0.0, "info": {}},
        {"task_id": "b", "trial": 1, "reward": 0.0, "info": {}},
        {"task_id": "a", "trial": 1, "reward": 1.0, "info": {}},
        {"task_id": "b", "trial": 2, "reward": 1.0, "info": {}},
    ]
    runs = plain_runs(_write(tmp_path, recs, "sys.json"))
    assert runs is not None and runs.systems == ("sys",)
    assert runs.n.tolist() == [[3, 2]] and runs.c.tolist() == [[2, 1]]
    assert plain_ks(runs, None) == [1, 2] and plain_ks(runs, [3]) is None


def _unscored(recs: list[dict[str, Any]]) -> None:
    recs[3]["info"] = {"error": "harness crashed"}


def _duplicate(recs: list[dict[str, Any]]) -> None:
    recs[5] = dict(recs[4])


def _spaced(recs: list[dict[str, Any]]) -> None:
    recs[0]["task_id"] = " 0"


def _mixed_types(recs: list[dict[str, Any]]) -> None:
    recs[0]["task_id"] = str(recs[0]["task_id"])


def _invisible(recs: list[dict[str, Any]]) -> None:
    recs[0]["task_id"] = "a\u200bb"


def _float_trial(recs: list[dict[str, Any]]) -> None:
    recs[0]["trial"] = 0.0


def _bool_trial(recs: list[dict[str, Any]]) -> None:
    recs[0]["trial"] = True


def _negative_trial(recs: list[dict[str, Any]]) -> None:
    recs[0]["trial"] = -1


def _huge_trial(recs: list[dict[str, Any]]) -> None:
    recs[0]["trial"] = 2**63  # beyond 2^53: the trial table refuses it


def _pass_at_step_limit(recs: list[dict[str, Any]]) -> None:
    first = next(r for r in recs if r["reward"] == 1.0)
    first["traj"] = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}]


def _bad_reward(recs: list[dict[str, Any]]) -> None:
    recs[2]["reward"] = 1.5


@pytest.mark.parametrize(
    "edit",
    [
        _unscored,
        _duplicate,
        _spaced,
        _mixed_types,
        _invisible,
        _bool_trial,
        _negative_trial,
        _huge_trial,
        _pass_at_step_limit,
        _bad_reward,
    ],
)
def test_inputs_that_need_a_rule_go_the_whole_way(tmp_path: Path, edit: Any) -> None:
    recs = copy.deepcopy(_records())
    edit(recs)
    path = _write(tmp_path, recs)
    assert plain_runs(path) is None
    try:  # the whole estimate reads it with a note, or refuses it with an error
        est = ph.estimate(ph.read_trials(path, format="tau-bench"), k=[1, 2])
    except ph.PasshatError:
        return
    notes = [*est.notes, *est.view().parts[0].notes]
    trials = ph.read_trials(path, format="tau-bench")
    assert notes or trials.notes or int(est.summary["unscored"].sum()) > 0


def test_a_trial_number_written_as_a_decimal_goes_the_whole_way(tmp_path: Path) -> None:
    """Trial 0.0 is whole, and the trial table reads it as 0 without a note; this reader
    vouches for whole numbers only and leaves it to the whole estimate."""
    recs = copy.deepcopy(_records())
    _float_trial(recs)
    path = _write(tmp_path, recs)
    assert plain_runs(path) is None
    whole, plain = _whole_view_rows(path, [1, 2]), _plain_rows(TAU, [1, 2])
    assert [r[1:] for r in whole] == [r[1:] for r in plain]


@pytest.mark.parametrize("name", ["café.json", "trailing .json", "tab\tname.json"])
def test_a_system_name_the_id_rules_would_touch_goes_the_whole_way(
    tmp_path: Path, name: str
) -> None:
    assert plain_runs(_write(tmp_path, _records(), name)) is None


def test_unreadable_or_missing_file_goes_the_whole_way(tmp_path: Path) -> None:
    assert plain_runs(tmp_path / "missing.json") is None
    bad = tmp_path / "bad.json"
    bad.write_text('[{"task_id": 1, "reward": 1')
    assert plain_runs(bad) is None


def test_plain_values_are_the_estimators(tmp_path: Path) -> None:
    """The values come from passhat.estimators.benchmark_values: a hand-made oracle."""
    recs = [{"task_id": t, "trial": i, "reward": float(i < c), "info": {}}
            for t, c in ((1, 4), (2, 2), (3, 0)) for i in range(4)]  # fmt: skip
    runs = plain_runs(_write(tmp_path, recs))
    assert runs is not None
    shown = plain_view(runs, k=[2])
    assert shown is not None
    row = shown.parts[0].frame.rows[0]
    # pass^2 per task: C(c,2)/C(4,2) = 1, 1/6, 0; pass@2: 1 - C(4-c,2)/C(4,2) = 1, 5/6, 0
    expect = (np.mean([1, 0.5, 0]), np.mean([1, 5 / 6, 0]), np.mean([1, 1 / 6, 0]))
    assert row[5:] == tuple(f"{v:.3f}" for v in expect)


# ------------------------------------------------------------------ count tables (CSV)
def _count_rows(seed: int = 1) -> list[tuple[str, str, int, int]]:
    rng = np.random.default_rng(seed)
    rows = []
    for s in ("alpha", "beta", "gamma"):
        for t in range(30):
            n = int(rng.choice([4, 5, 6, 8]))
            rows.append((s, f"t{t}", n, int(rng.integers(0, n + 1))))
    return rows


def _count_csv(tmp_path: Path, text: str, name: str = "counts.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def _whole_count_rows(path: Path, k: list[int] | None) -> list[list[str]]:
    part = ph.estimate(ph.read_counts(path), k=k).view().parts[0]
    assert part.frame is not None and not isinstance(part.frame, TextTable)
    return [list(map(str, r)) for r in part.frame.values.tolist()]


def _plain_count_rows(path: Path, k: list[int] | None) -> list[list[str]]:
    counts = plain_count_csv(path)
    assert counts is not None
    shown = plain_view(counts, k=k)
    assert shown is not None and isinstance(shown.parts[0].frame, TextTable)
    return [list(r) for r in shown.parts[0].frame.rows]


def _systems(rows: list[tuple[str, str, int, int]]) -> str:
    return "system,task_id,n,c\n" + "".join(f"{s},{t},{n},{c}\n" for s, t, n, c in rows)


def _one_system(rows: list[tuple[str, str, int, int]]) -> str:
    return "task_id,n,c\n" + "".join(f"{t},{n},{c}\n" for s, t, n, c in rows if s == "beta")


def _uneven(rows: list[tuple[str, str, int, int]]) -> str:
    return _systems([r for r in rows if not (r[0] == "beta" and r[1] in ("t3", "t7"))])


def _columns_reordered(rows: list[tuple[str, str, int, int]]) -> str:
    return "c,n,task_id,system\n" + "".join(f"{c},{n},{t},{s}\n" for s, t, n, c in rows)


def _id_words(rows: list[tuple[str, str, int, int]]) -> str:
    """Ids the CSV reader keeps as written: NA, nan, 007, 1.0 (no NA, no number parsing)."""
    ids = {"t0": "NA", "t1": "nan", "t2": "007", "t3": "1.0", "t4": "7"}
    return _systems([(s, ids.get(t, t), n, c) for s, t, n, c in rows])


@pytest.mark.parametrize("layout", [_systems, _one_system, _uneven, _columns_reordered, _id_words])
@pytest.mark.parametrize("k", [None, [1], [2, 4]])
def test_plain_count_table_equals_the_whole_estimates(tmp_path: Path, layout: Any, k: Any) -> None:
    path = _count_csv(tmp_path, layout(_count_rows()))
    assert _plain_count_rows(path, k) == _whole_count_rows(path, k)


def test_a_plain_count_table_is_sniffed_as_one(tmp_path: Path) -> None:
    """The CLI takes a .csv with a count table's header for a count table without --format:
    the registry's sniffing must agree (it picks the reader before the file is read)."""
    from passhat.io._registry import file_head, sniff

    for layout in (_systems, _one_system, _columns_reordered):
        path = _count_csv(tmp_path, layout(_count_rows()), f"{layout.__name__}.csv")
        reader = sniff(path, file_head(path))
        assert reader is not None and reader.name == "counts"


@pytest.mark.parametrize(
    "text",
    [
        "task_id,n,c\na,4,2\nb,0,0\n",  # a task without a decided run: a note
        "task_id,n,c\na,4,5\n",  # c > n: an error
        "task_id,n,c\na,4,2\na,4,1\n",  # a task twice: an error
        "system,task_id,n,c\nGPT,a,4,2\ngpt,a,4,1\n",  # case variants: a note
        'task_id,n,c\n"a",4,2\n',  # quoting
        "task_id,n,c\r\na,4,2\r\n",  # CRLF
        "task_id,n,c\na,4,2\n\nb,4,1\n",  # a blank line
        "task_id,n,c\na,4.0,2\n",  # a decimal count
        "task_id,n,c,unscored\na,4,2,1\n",  # another column
        "task_id,n,c,cluster\na,4,2,x\n",  # clusters
        "task_id,n,c\na ,4,2\n",  # a spaced id
        "task_id;n;c\na;4;2\n",  # another delimiter
        "task_id,n,c\na,4,2,9\n",  # a row of other width
        "task_id,n,c\ncafé,4,2\n",  # a non-ASCII id (NFC rules)
        "task,n,c\na,4,2\n",  # an alias of task_id
        "task_id,n,c\n",  # no rows
        "task_id,success\na,1\n",  # runs, not counts
    ],
)
def test_count_tables_that_need_a_rule_go_the_whole_way(tmp_path: Path, text: str) -> None:
    assert plain_count_csv(_count_csv(tmp_path, text)) is None


def test_a_byte_order_mark_and_a_missing_last_line_break_are_plain(tmp_path: Path) -> None:
    for text in ("\ufefftask_id,n,c\na,4,2\nb,4,1\n", "task_id,n,c\na,4,2\nb,4,1"):
        path = _count_csv(tmp_path, text)
        assert _plain_count_rows(path, [1, 2]) == _whole_count_rows(path, [1, 2])


# ------------------------------------------------------------------ runs (CSV)
def _run_rows(seed: int = 2) -> list[tuple[str, str, int, str]]:
    rng = np.random.default_rng(seed)
    return [
        (s, f"t{t}", i, str(int(rng.integers(0, 2))))
        for s in ("alpha", "beta")
        for t in range(15)
        for i in range(5)
    ]


def _runs_full(rows: list[tuple[str, str, int, str]]) -> str:
    return "system,task_id,trial,success\n" + "".join(f"{s},{t},{i},{v}\n" for s, t, i, v in rows)


def _runs_no_trial(rows: list[tuple[str, str, int, str]]) -> str:
    return "system,task_id,success\n" + "".join(f"{s},{t},{v}\n" for s, t, _, v in rows)


def _runs_one_system_words(rows: list[tuple[str, str, int, str]]) -> str:
    word = {"0": "false", "1": "True"}
    return "success,task_id,trial\n" + "".join(
        f"{word[v]},{t},{i}\n" for s, t, i, v in rows if s == "beta"
    )


def _runs_shuffled_uneven(rows: list[tuple[str, str, int, str]]) -> str:
    kept = [r for r in rows if not (r[0] == "alpha" and r[1] == "t2" and r[2] > 1)]
    order = np.random.default_rng(3).permutation(len(kept))
    return _runs_full([kept[i] for i in order])


@pytest.mark.parametrize(
    "layout", [_runs_full, _runs_no_trial, _runs_one_system_words, _runs_shuffled_uneven]
)
@pytest.mark.parametrize("k", [None, [1, 2]])
def test_plain_runs_csv_equals_the_whole_estimates(tmp_path: Path, layout: Any, k: Any) -> None:
    path = _count_csv(tmp_path, layout(_run_rows()), "runs.csv")
    counts = plain_runs_csv(path)
    assert counts is not None
    shown = plain_view(counts, k=k)
    assert shown is not None and isinstance(shown.parts[0].frame, TextTable)
    assert [list(r) for r in shown.parts[0].frame.rows] == _whole_view_rows(path, k, None)


def test_a_plain_runs_csv_is_sniffed_as_csv(tmp_path: Path) -> None:
    from passhat.io._registry import file_head, sniff

    for layout in (_runs_full, _runs_no_trial, _runs_one_system_words):
        path = _count_csv(tmp_path, layout(_run_rows()), f"{layout.__name__}.csv")
        reader = sniff(path, file_head(path))
        assert reader is not None and reader.name == "csv"


@pytest.mark.parametrize(
    "text",
    [
        "task_id,trial,success\na,0,1\na,0,0\n",  # a duplicate run: an error
        "task_id,success\na,1\na,NA\n",  # a missing verdict: unscored
        "task_id,success\na,yes\n",  # a word the reader reads (not vouched for here)
        "task_id,success\na,2\n",  # not a verdict: an error
        "task_id,model,success\na,m1,1\n",  # a column the reader may take as the system
        "task_id,success,status\na,0,timeout\n",  # a status
        "task_id,success,score\na,1,0.5\n",  # a score
        "task_id,trial,success\na,0.0,1\n",  # a decimal trial
        "system,task_id,success\nA,a,1\na,a,0\n",  # case variants: a note
    ],
)
def test_runs_csv_that_need_a_rule_go_the_whole_way(tmp_path: Path, text: str) -> None:
    assert plain_runs_csv(_count_csv(tmp_path, text, "runs.csv")) is None


def test_a_large_csv_goes_the_whole_way(tmp_path: Path) -> None:
    from passhat.estimate_quick import MAX_PLAIN_BYTES

    line = "t,1\n"
    path = _count_csv(tmp_path, "task_id,success\n" + line * (MAX_PLAIN_BYTES // len(line) + 1))
    assert plain_runs_csv(path) is None
