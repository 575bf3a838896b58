"""No input makes a command exit 70 ("a bug"), and none leaves a partial output (issue 33, item 7).

Before: JSON-lines and τ-bench whole numbers over 4,300 digits, a CSV field over 131,072
characters, counts with n ≥ 10^9 in ``report`` and ``spread``, and ``fit`` with n = 2^53 each
ended in exit 70. Here Hypothesis writes files of every format passhat sniffs (count tables, tidy
CSV, JSON lines, τ-bench and τ²-bench results, Parquet) from extreme values (0, 1, 2^31, 2^53,
10^9, 1e308, -1, NaN, literals of 5,000 digits, fields of 140,000 characters, ids of every
kind) and runs every command's numeric path on them, in-process through
:func:`passhat.cli.main`.

Oracles: docs/guide/cli.md's exit statuses (0 success or 2 bad input; a gate's 1 and 3 are
decisions), one line on stderr after a failure, and the report directory after a failure: absent
(nothing half-written), with no temporary file beside it. The default run is a fixed-seed subset
of a few seconds; ``pytest -m slow`` runs the long fuzz with the same seed.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from passhat.cli import main

LONG_DIGITS = "9" * 5000
LONG_FIELD = "t" * 140_000
INTS = [0, 1, 2, 5, 2**31, 10**9, 2**53, 2**63, -1]
NUMBERS: list[Any] = [*INTS, 0.5, 1e308, -1e308, 1e-308, math.inf, math.nan]
IDS: list[Any] = ["a", "b", "t1", "0", 7, 2**53, "a,b", '"q"', "x" * 300, LONG_FIELD, "é", "[red]"]

#: Commands and the exit statuses that are decisions, not errors.
COMMANDS: list[tuple[list[str], set[int]]] = [
    (["estimate", "{f}", "--k", "1,2", "--ci", "0.9", "--n-boot", "200", "--json"], {0, 2}),
    (["estimate", "{f}", "--per-task", "--csv"], {0, 2}),
    (["spread", "{f}", "--k", "1,2", "--n-boot", "200", "--json"], {0, 2}),
    (["slices", "{f}", "--json"], {0, 2}),
    (["gate", "{f}", "--max-failure-rate", "0.1", "--json"], {0, 1, 2, 3}),
    (["fit", "{f}", "--k", "1,2", "--draws", "100", "--chains", "2", "--json"], {0, 2}),
    (["compare", "{f}", "{f}", "--n-boot", "200", "--json"], {0, 2}),
    (["rank", "{f}", "{f}", "--n-boot", "200", "--json"], {0, 2}),
    (["plan", "next", "{f}", "--budget", "10", "--k", "1", "--json"], {0, 2}),
    (["traces", "{f}", "--json"], {0, 2}),
    (["report", "{f}", "-o", "{o}", "--no-model", "--n-boot", "200", "-q"], {0, 2}),
]

#: The options added on 2026-12-06 (partial credit, categories, cost, clusters, several files,
#: tables for papers, the reading options of the planners): fuzzed by their own fast test.
NEW_OPTIONS: list[tuple[list[str], set[int]]] = [
    (["estimate", "{f}", "--scores", "--curve", "--json"], {0, 2}),
    (["estimate", "{f}", "--thresholds", "0,0.5,1", "--ci", "0.9", "--n-boot", "100"], {0, 2}),
    (["estimate", "{f}", "--by", "category", "--ci", "0.9", "--n-boot", "100", "--json"], {0, 2}),
    (["estimate", "{f}", "--cost", "--ci", "0.9", "--n-boot", "100", "--json"], {0, 2}),
    (["estimate", "{f}", "--cluster", "score", "--ci", "0.9", "--n-boot", "100"], {0, 2}),
    (["estimate", "{f}", "--ignore-clusters", "--ci", "0.9", "--n-boot", "100"], {0, 2}),
    (["estimate", "{f}", "--ci", "0.9", "--n-boot", "100", "--markdown"], {0, 2}),
    (["estimate", "{f}", "{f}", "--system-name", "{f}=X", "--latex"], {0, 2}),
    (["rank", "{f}", "{f}", "--n-boot", "100", "--markdown"], {0, 2}),
    (["plan", "design", "--from", "{f}", "--budget-runs", "100", "--json"], {0, 2}),
    (
        [
            "plan",
            "power",
            "--from",
            "{f}",
            "--delta",
            "0.1",
            "--tasks",
            "20",
            "--runs-per-task",
            "3",
            "--json",
        ],
        {0, 2},
    ),
    (
        ["plan", "next", "{f}", "--budget", "10", "--k", "1", "--prior-from", "{f}", "--json"],
        {0, 2},
    ),
]

cells = st.sampled_from([*NUMBERS, LONG_DIGITS, "", "nan", "true"])


def _csv_cell(v: Any) -> str:
    text = v if isinstance(v, str) else repr(v) if isinstance(v, float) else str(v)
    return '"' + text.replace('"', '""') + '"' if ("," in text or '"' in text) else text


@st.composite
def count_table(draw: st.DrawFn) -> tuple[str, bytes]:
    rows = draw(st.lists(st.tuples(st.sampled_from(IDS), cells, cells), min_size=1, max_size=4))
    body = "task_id,n,c\n" + "".join(",".join(map(_csv_cell, r)) + "\n" for r in rows)
    return "counts.csv", body.encode()


@st.composite
def tidy_csv(draw: st.DrawFn) -> tuple[str, bytes]:
    extra = draw(st.sampled_from(["", "score", "weight", "cost", "category", "cluster"]))
    head = "system,task_id,trial,success" + (f",{extra}" if extra else "")
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["A", "B", LONG_FIELD]),
                st.sampled_from(IDS),
                st.sampled_from([*INTS, LONG_DIGITS, "x"]),
                st.sampled_from([0, 1, "true", "", 2, 1e308, LONG_DIGITS]),
                cells,
            ),
            min_size=1,
            max_size=6,
        )
    )
    lines = [",".join(map(_csv_cell, r[: 5 if extra else 4])) for r in rows]
    return "runs.csv", (head + "\n" + "\n".join(lines) + "\n").encode()


def _json_value(v: Any) -> Any:
    return "__LONG__" if v == LONG_DIGITS else v


def _dumps(doc: Any) -> bytes:
    """JSON text with every "__LONG__" a 5,000-digit whole number (Python cannot hold it)."""
    return json.dumps(doc, allow_nan=True).replace('"__LONG__"', LONG_DIGITS).encode()


@st.composite
def jsonl(draw: st.DrawFn) -> tuple[str, bytes]:
    recs = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "system": st.sampled_from(["A", "B"]),
                    "task_id": st.sampled_from([*IDS, LONG_DIGITS]),
                    "trial": st.sampled_from([*INTS, LONG_DIGITS, 1.5]),
                    "success": st.sampled_from([True, False, None, 1, 0, 2, 1e308]),
                }
            ),
            min_size=1,
            max_size=6,
        )
    )
    text = b"".join(_dumps({k: _json_value(v) for k, v in r.items()}) + b"\n" for r in recs)
    return "runs.jsonl", text


@st.composite
def tau_bench(draw: st.DrawFn) -> tuple[str, bytes]:
    recs = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "task_id": st.sampled_from([*INTS, LONG_DIGITS, "t"]),
                    "trial": st.sampled_from([*INTS, LONG_DIGITS]),
                    "reward": st.sampled_from([*NUMBERS, LONG_DIGITS]),
                    "info": st.just({}),
                    "traj": st.just([{"role": "user", "content": "x" * 10}]),
                }
            ),
            min_size=1,
            max_size=5,
        )
    )
    doc = [{k: _json_value(v) for k, v in r.items()} for r in recs]
    return "results.json", _dumps(doc)


@st.composite
def tau2_bench(draw: st.DrawFn) -> tuple[str, bytes]:
    sims = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "task_id": st.sampled_from(["0", "1", LONG_FIELD]),
                    "trial": st.sampled_from([*INTS, LONG_DIGITS]),
                    "termination_reason": st.sampled_from(["user_stop", "max_steps", "x"]),
                    "reward_info": st.fixed_dictionaries(
                        {"reward": st.sampled_from([*NUMBERS, LONG_DIGITS])}
                    ),
                }
            ),
            min_size=1,
            max_size=5,
        )
    )
    sims = [{**s, "trial": _json_value(s["trial"])} for s in sims]
    for s in sims:
        s["reward_info"] = {"reward": _json_value(s["reward_info"]["reward"])}
    doc = {"info": {}, "tasks": [], "simulations": sims}
    return "results.json", _dumps(doc)


@st.composite
def parquet(draw: st.DrawFn) -> tuple[str, bytes]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    size = draw(st.integers(1, 4))
    n = draw(st.lists(st.sampled_from([0, 1, 5, 2**31, 10**9, 2**53, 2**62]), min_size=size,
                      max_size=size))  # fmt: skip
    c = draw(st.lists(st.sampled_from([0, 1, 5, 2**31, 2**53]), min_size=size, max_size=size))
    buf = io.BytesIO()
    pq.write_table(pa.table({"task_id": [f"t{i}" for i in range(size)], "n": n, "c": c}), buf)
    return "counts.parquet", buf.getvalue()


@st.composite
def huge_counts(draw: st.DrawFn) -> tuple[str, bytes]:
    """Valid count tables with n up to 2^53 (the documented limit) and c anywhere in 0..n."""
    rows = []
    for i in range(draw(st.integers(1, 4))):
        n = draw(st.sampled_from([1, 5, 2**31, 2**32, 10**9, 2**40, 2**53]))
        c = draw(st.sampled_from([0, 1, n // 2, n - 1, n]))
        rows.append(f"t{i},{n},{max(c, 0)}\n")
    return "counts.csv", ("task_id,n,c\n" + "".join(rows)).encode()


INPUTS = st.one_of(
    count_table(), huge_counts(), tidy_csv(), jsonl(), tau_bench(), tau2_bench(), parquet()
)


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def _check(data: tuple[str, bytes], command: tuple[list[str], set[int]]) -> None:
    name, content = data
    argv_t, allowed = command
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / name
        f.write_bytes(content)
        out = Path(d) / "rep"
        argv = [a.format(f=f, o=out) for a in argv_t]
        rc, _, err = _run(argv)
        assert rc in allowed, (rc, argv[:2], name, content[:300], err[-2000:])
        if rc not in (0, 1, 3):
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("passhat: error: "), err[-2000:]
            assert len(lines[0]) <= 2100, len(lines[0])  # names shortened (item 10)
        if "-o" in argv and rc != 0:  # nothing half-written
            assert not out.exists()
        assert sorted(p.name for p in Path(d).iterdir() if p.name != "rep") == [name]


SETTINGS = {
    "deadline": None,
    "database": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


@seed(20261206)
@settings(max_examples=12, **SETTINGS)
@given(data=INPUTS, command=st.sampled_from(COMMANDS[:4] + COMMANDS[6:9]))
def test_fuzz_fast_subset(data: tuple[str, bytes], command: tuple[list[str], set[int]]) -> None:
    """The default run: cheap commands only (a few seconds)."""
    _check(data, command)


@seed(20261206)
@settings(max_examples=14, **SETTINGS)
@given(
    data=st.one_of(tidy_csv(), count_table(), huge_counts()),
    command=st.sampled_from(NEW_OPTIONS),
)
def test_fuzz_fast_new_options(
    data: tuple[str, bytes], command: tuple[list[str], set[int]]
) -> None:
    """The default run of the new options: tidy files with score / cost / category / cluster
    columns of extreme values, count tables and counts of up to 2^53 runs (a few seconds)."""
    _check(data, command)


@pytest.mark.slow
@seed(20261206)
@settings(max_examples=600, **SETTINGS)
@given(data=INPUTS, command=st.sampled_from(COMMANDS + NEW_OPTIONS))
def test_fuzz_every_reader_and_command(
    data: tuple[str, bytes], command: tuple[list[str], set[int]]
) -> None:
    _check(data, command)


@pytest.mark.parametrize(
    "rows",
    [
        "a,9007199254740992,9007199254740992\nb,9007199254740992,9007199254740991\n",
        "a,9007199254740992,4503599627370496\nb,4,2\n",
        "a,9007199254740992,9007199254740992\nb,9007199254740992,0\n",
        "a,4294967296,4294967290\nb,4294967296,7\nc,5,3\n",
    ],
    ids=["2^53-all-pass", "2^53-half", "2^53-pass-and-fail", "2^32"],
)
def test_huge_counts_fit_and_plan(rows: str) -> None:
    """Found after the audit: counts of 2^32 or more runs merged unequal tasks where (n, c) was
    packed into one int64 (fit: "b <= 0", exit 70; plan next: silently wrong numbers)."""
    for command in COMMANDS:
        if command[0][0] in ("fit", "plan", "gate"):
            _check(("counts.csv", ("task_id,n,c\n" + rows).encode()), (command[0], {0, 1, 2, 3}))


@pytest.mark.parametrize(
    ("name", "content", "argv"),
    [
        ("runs.jsonl", ('{"task_id": "a", "success": ' + LONG_DIGITS + "}\n").encode(), []),
        (
            "results.json",
            _dumps([{"task_id": 0, "trial": "__LONG__", "reward": 1.0, "info": {}, "traj": []}]),
            [],
        ),
        ("runs.csv", ("task_id,success\n" + LONG_FIELD + ",1,2\n").encode(), []),
        ("counts.csv", b"task_id,n,c\na,1000000000,500000000\nb,1000000000,1\n", ["spread"]),
        ("counts.csv", b"task_id,n,c\na,1000000000,500000000\nb,1000000000,1\n", ["report"]),
        ("counts.csv", b"task_id,n,c\na,9007199254740992,5\nb,9007199254740992,1\n", ["fit"]),
        ("counts.csv", b"task_id,n,c\na,9007199254740992,5\nb,9007199254740992,1\n", ["spread"]),
    ],
    ids=[
        "jsonl-5000-digits",
        "tau-5000-digits",
        "csv-long-field",
        "spread-1e9",
        "report-1e9",
        "fit-2^53",
        "spread-2^53",
    ],
)
def test_the_reported_inputs(name: str, content: bytes, argv: list[str]) -> None:
    """The audit's cases, each once, through every command named (estimate by default)."""
    commands = [c for c in COMMANDS if c[0][0] in (argv or ["estimate"])]
    for command in commands:
        _check((name, content), command)
