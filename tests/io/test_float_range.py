"""Whole numbers past the float range (1e400 written as an integer literal) in every JSON
reader: a one-line refusal naming the file, the record and the field, never an
OverflowError from ``float()`` or ``pandas.to_numeric`` (review of the readers: a reward of
10**400 in a τ-bench, promptfoo, lm-eval or tidy JSONL file exited 70, "a bug in passhat")."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

import passhat as ph
from passhat.errors import PasshatError
from passhat.io._scores import json_score
from passhat.io.inspect_log import inspect_value_to_float

HUGE = "1" + "0" * 400  # 401 digits: a valid JSON int, read by Python, beyond float's range


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    from passhat.cli import main

    code = main(args)
    return code, capsys.readouterr().err.strip().splitlines()


def test_json_score_refuses_an_integer_beyond_floats() -> None:
    with pytest.raises(
        PasshatError, match=r"f: line 3: reward is 1000000000\.\.\. \(401 digits\), not a finite"
    ):
        json_score(10**400, "f: line 3", "reward")


def test_inspect_value_beyond_floats_is_infinite_for_the_reader_to_refuse() -> None:
    assert inspect_value_to_float(10**400) == math.inf
    assert inspect_value_to_float(-(10**400)) == -math.inf


def _tau(tmp_path: Path) -> Path:
    f = tmp_path / "tau.json"
    f.write_text(f'[{{"task_id": 0, "trial": 0, "reward": {HUGE}, "info": {{}}, "traj": []}}]')
    return f


def _lm_eval(tmp_path: Path) -> Path:
    f = tmp_path / "samples_arc_easy_2025-01-02T03-04-05.123456.jsonl"
    rows = [{"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": 1} for i in range(2)]
    f.write_text("\n".join(json.dumps(r) for r in rows).replace('"acc": 1}', f'"acc": {HUGE}}}', 1))
    return f


def _tidy_score(tmp_path: Path) -> Path:
    f = tmp_path / "runs.jsonl"
    f.write_text(f'{{"task_id": "a", "trial": 0, "success": 1, "score": {HUGE}}}\n')
    return f


def _tidy_trial(tmp_path: Path) -> Path:
    f = tmp_path / "runs.jsonl"
    f.write_text(f'{{"task_id": "a", "trial": {HUGE}, "success": 1}}\n')
    return f


def _tidy_weight(tmp_path: Path) -> Path:
    f = tmp_path / "runs.jsonl"
    f.write_text(f'{{"task_id": "a", "trial": 0, "success": 1, "weight": {HUGE}}}\n')
    return f


def _promptfoo(tmp_path: Path) -> Path:
    src = Path(__file__).parent / "data" / "promptfoo" / "results.json"
    doc = json.loads(src.read_text(encoding="utf-8"))
    doc["results"]["results"][0]["score"] = 12345
    f = tmp_path / "results.json"
    f.write_text(json.dumps(doc).replace('"score": 12345', f'"score": {HUGE}', 1))
    return f


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (_tau, r"tau\.json: record 0: reward is 1000000000\.\.\. \(401 digits\), not"),
        (_lm_eval, r"line 1: metric 'acc' \(doc_id 0\) is 1000000000\.\.\. \(401 digits\)"),
        (_tidy_score, r"row 1: score 1000000000\.\.\. \(401 digits\) is not a finite number"),
        (_tidy_trial, r"row 1: trial 1000000000\.\.\. \(401 digits\) is not a .* up to 2\^53"),
        (_tidy_weight, r"row 1: weight 1000000000\.\.\. \(401 digits\)"),
        (_promptfoo, r"results\[0\]: score is 1000000000\.\.\. \(401 digits\)"),
    ],
    ids=["tau-bench", "lm-eval", "tidy-score", "tidy-trial", "tidy-weight", "promptfoo"],
)
def test_readers_refuse_numbers_beyond_floats_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make, said: str
) -> None:
    f = make(tmp_path)
    with pytest.raises(PasshatError, match=said):
        ph.read_trials(f)
    code, err = _cli(["estimate", str(f), "--k", "1"], capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith("passhat: error: "), err


@pytest.mark.parametrize(
    ("line", "options", "said"),
    [
        ('{"task_id": "a", "n": 3, "c": HUGE}', [], r"c = 1000000000\.\.\. \(401 digits\) is too"),
        (
            '{"task_id": "a", "trial": 0, "reward": HUGE}',
            ["--map", "success=reward", "--threshold", "0.5"],
            r"row 1: score .* is not a finite number",
        ),
        ('{"task_id": "a", "trial": 0, "reward": HUGE}', [], r"column 'reward' holds numbers"),
        (
            '{"task_id": "a", "trial": 0, "success": 1, "cost": HUGE}',
            ["--cost"],
            r"row 1: cost 1000000000\.\.\. \(401 digits\) is not a finite number",
        ),
    ],
    ids=["count", "threshold", "score-hint", "cost"],
)
def test_tables_with_numbers_beyond_floats_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, options: list[str], said: str
) -> None:
    f = tmp_path / "runs.jsonl"
    f.write_text(line.replace("HUGE", HUGE) + "\n")
    code, err = _cli(["estimate", str(f), "--k", "1", *options], capsys)
    assert code == 2 and len(err) == 1, err
    assert re.search(said, err[0]), err


def test_infinite_text_count_is_not_a_whole_number(tmp_path: Path) -> None:
    f = tmp_path / "counts.csv"
    f.write_text("task_id,n,c\na,inf,1\n")
    with pytest.raises(PasshatError, match=r"row 1 \(task 'a'\): n = 'inf' is not a whole number"):
        ph.read_counts(f)
