"""Helpers and inputs shared by the CLI tests (not a test module).

The CLI contract on bad input: exit status 2 and exactly one line on stderr,
``passhat: error: ...``, naming the file / row / task / option and the rule
broken — never a traceback.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from passhat.cli import main

HEADER = "system,task_id,trial,success\n"
GOOD = HEADER + "A,t1,0,1\nA,t1,1,0\nA,t2,0,1\nA,t2,1,1\nA,t3,0,0\nA,t3,1,0\n"
#: Stated assumptions for ``plan`` (mean success, run-to-run correlation).
PRIOR = ["--mean", "0.6", "--icc", "0.3"]

_CALL = {"id": "1", "type": "function", "function": {"name": "get_user", "arguments": "{}"}}
_TRAJ = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "1", "name": "get_user", "content": "ok"},
    {"role": "assistant", "content": "done"},
]
#: A τ-bench result file: tasks 0 and 1, two trials each, one outcome of each per task.
TAU = json.dumps(
    [
        {"task_id": t, "trial": r, "reward": float((t + r) % 2), "info": {}, "traj": _TRAJ}
        for t in range(2)
        for r in range(2)
    ]
)


def bad(capsys: pytest.CaptureFixture[str], args: list[str], pattern: str) -> str:
    """Run the CLI and check the one-line error (exit 2) matching ``pattern``; return the line."""
    rc = main(args)
    out, err = capsys.readouterr()
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("passhat: error: ")
    assert re.search(pattern, lines[0]), lines[0]
    return lines[0]


def write(tmp_path: Path, name: str, data: str | bytes) -> str:
    """Write ``data`` to ``tmp_path / name`` (UTF-8 text or raw bytes); return the path."""
    f = tmp_path / name
    if isinstance(data, bytes):
        f.write_bytes(data)
    else:
        f.write_text(data, encoding="utf-8")
    return str(f)


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    """Run the CLI; return (exit status, stdout, stderr)."""
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err
