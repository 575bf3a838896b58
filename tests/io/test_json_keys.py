"""A key written twice in one object of a JSON document (io/_json.py ``load_json``): refused
naming the file and the key, as JSON lines already were. ``json`` keeps the last value without
a word, so ``{"reward": 1.0, ..., "reward": 0.0}`` read as a failure (review of the readers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph
from passhat.errors import FormatError

DATA = Path(__file__).parent / "data"


def test_tau_bench_reward_twice(tmp_path: Path) -> None:
    f = tmp_path / "run.json"
    f.write_text(
        '[{"task_id": 0, "trial": 0, "reward": 1.0, "info": {}, "traj": [], "reward": 0.0}]'
    )
    with pytest.raises(FormatError, match=r"run\.json: .*key 'reward' appears twice in one"):
        ph.read_trials(f)


def test_promptfoo_success_twice(tmp_path: Path) -> None:
    text = (DATA / "promptfoo" / "results.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    doc["results"]["results"][0]["success"] = "SENTINEL"
    f = tmp_path / "results.json"
    f.write_text(
        json.dumps(doc).replace('"success": "SENTINEL"', '"success": true, "success": false')
    )
    with pytest.raises(FormatError, match=r"key 'success' appears twice in one object"):
        ph.read_trials(f)


def test_documents_without_repeated_keys_read_as_before() -> None:
    assert len(ph.read_trials(DATA / "promptfoo" / "results.json")) == 18
