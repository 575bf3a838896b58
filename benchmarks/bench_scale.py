"""Benchmark: trial logs beyond memory, and the report at a million tasks (issue 13).

Targets: 10^8 trial rows of partitioned Parquet → count table in < 120 s on 2 cores with
< 1.5 GB peak; 10^7 rows of CSV in < 20 s; ``passhat report --no-model`` on a 10^6-task count
table in < 60 s and < 1.5 GB. Printed, each measured in a fresh process (wall time, CPU time,
peak resident memory of that process, and the machine's load average, since the 2 cores are
shared):

* 10^7 CSV rows (2 systems × 50,000 tasks × 100 runs, trial-major order): the in-memory
  reader (``read_trials(f).counts()``, what ``estimate`` did before) against the out-of-core
  count (``read_counts``: pyarrow batches, the same checks); and the same file with its
  system column named ``model`` and not mapped, so that the system-column rule follows the
  column per task and the file is counted a second time with it as the system;
* 10^8 Parquet rows in 100 part files (2 systems × 500,000 tasks × 100 runs);
* ``scaling``: peak memory against rows and tasks — 10^7 and 5 × 10^7 Parquet rows over the
  same 10^5 (system, task) pairs, and 10^7 rows over 10^6 pairs (memory follows the pairs);
* with ``--duckdb`` (when duckdb is installed): the same count and duplicate check as SQL in
  DuckDB, the engine the out-of-core reader was measured against;
* ``passhat report --no-model`` on a 10^6-task count table: time, memory, results.json size.

The data are generated in a temporary directory (about 0.9 GB) and deleted afterwards.

Run::

    .venv/bin/python benchmarks/bench_scale.py [--small] [--duckdb]

``--small`` divides every size by 10 (a quick check); ``--cases csv,model,parquet,scaling,report``
runs some of the cases (default: all); ``--out FILE`` also writes the printed lines to FILE
(``benchmarks/bench_scale_report.txt`` holds the last ``--cases report`` run).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]

_MEASURE = """
import resource, sys, time
t0 = time.perf_counter()
{body}
wall = time.perf_counter() - t0
r = resource.getrusage(resource.RUSAGE_SELF)
# VmHWM: this process's own peak (ru_maxrss would carry the parent's peak over fork and exec)
hwm = [int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM")][0]
print(f"{{wall:.1f}} {{r.ru_utime + r.ru_stime:.1f}} {{hwm / 1024:.0f}} {{result}}")
"""


def measure(label: str, body: str, target: str = "") -> None:
    """Run ``body`` (which sets ``result``) in a fresh interpreter and print its figures."""
    load = os.getloadavg()[0]
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE.format(body=body)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        print(f"  {label}: failed\n{proc.stderr}", file=sys.stderr)
        return
    wall, cpu, peak, *rest = proc.stdout.strip().splitlines()[-1].split()
    goal = f"  target {target}" if target else ""
    print(
        f"  {label:40s} {float(wall):6.1f} s wall, {float(cpu):6.1f} s CPU, peak "
        f"{float(peak):5.0f} MiB  {' '.join(rest)}  (load {load:.1f}){goal}",
        flush=True,
    )


class _Tee:
    """Print to the terminal and to a file."""

    def __init__(self, *streams: Any) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for st in self.streams:
            st.write(text)
        return len(text)

    def flush(self) -> None:
        for st in self.streams:
            st.flush()


def write_trials(out: Path, *, systems: int, tasks: int, runs: int, parts: int, fmt: str) -> int:
    """Trial-major parts (one sweep of every task per run): a realistic order for logs."""
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    p = rng.beta(2.0, 1.0, size=(systems, tasks))
    sys_names = pa.array([f"agent-{s}" for s in range(systems)])
    task_names = pa.array([f"task-{t:07d}" for t in range(tasks)])
    per_part = runs // parts
    rows = 0
    for part in range(parts):
        trial = np.arange(part * per_part, (part + 1) * per_part)
        r, s, t = (
            a.ravel()
            for a in np.meshgrid(trial, np.arange(systems), np.arange(tasks), indexing="ij")
        )
        success = rng.random(len(s)) < p[s, t]
        status = np.where(rng.random(len(s)) < 0.001, "grader_error", "ok")
        table = pa.table(
            {
                "system": pa.DictionaryArray.from_arrays(pa.array(s.astype(np.int32)), sys_names),
                "task_id": pa.DictionaryArray.from_arrays(pa.array(t.astype(np.int32)), task_names),
                "trial": pa.array(r.astype(np.int64)),
                "success": pa.array(success),
                "status": pa.array(status).dictionary_encode(),
            }
        )
        if fmt == "parquet":
            pq.write_table(table, out / f"part-{part:04d}.parquet", row_group_size=1 << 20)
        else:
            plain = table.cast(
                pa.schema(
                    [
                        ("system", pa.string()),
                        ("task_id", pa.string()),
                        ("trial", pa.int64()),
                        ("success", pa.bool_()),
                        ("status", pa.string()),
                    ]
                )
            )
            pcsv.write_csv(plain, out / f"part-{part:04d}.csv")
        rows += table.num_rows
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="scale benchmark")
    ap.add_argument("--small", action="store_true", help="every size / 10")
    ap.add_argument("--duckdb", action="store_true", help="also time DuckDB (if installed)")
    ap.add_argument("--cases", default="csv,model,parquet,scaling,report", help="cases to run")
    ap.add_argument("--out", type=Path, help="also write the printed lines to this file")
    args = ap.parse_args(argv)
    if args.out is not None:
        sys.stdout = _Tee(sys.stdout, args.out.open("w", encoding="utf-8"))
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    cases = set(args.cases.split(","))
    div = 10 if args.small else 1
    tmp = Path(tempfile.mkdtemp(prefix="bench_scale_"))
    free = shutil.disk_usage(tmp).free / 2**30
    if free < 3:
        print(f"need ~1 GB of disk in {tmp.parent}; {free:.1f} GiB free", file=sys.stderr)
        return 1
    try:
        t0 = time.perf_counter()
        csv_rows = write_trials(
            tmp / "csv", systems=2, tasks=50_000 // div, runs=100, parts=1, fmt="csv"
        )
        csv = tmp / "csv" / "part-0000.csv"
        pq_rows = 0
        if "parquet" in cases:
            pq_rows = write_trials(
                tmp / "pq", systems=2, tasks=500_000 // div, runs=100, parts=100, fmt="parquet"
            )
        tasks = 1_000_000 // div
        rng = np.random.default_rng(1)
        c = rng.binomial(10, rng.beta(0.5, 0.3, size=tasks))
        counts = tmp / "counts.parquet"
        pq.write_table(
            pa.table(
                {
                    "task_id": [f"task-{i:07d}" for i in range(tasks)],
                    "n": np.full(tasks, 10),
                    "c": c,
                }
            ),
            counts,
        )
        print(
            f"generated in {time.perf_counter() - t0:.0f} s: {csv_rows:,} CSV rows "
            f"({csv.stat().st_size / 2**20:.0f} MiB), {pq_rows:,} Parquet rows in 100 parts "
            f"({sum(f.stat().st_size for f in (tmp / 'pq').glob('*')) / 2**20:.0f} MiB), "
            f"a {tasks:,}-task count table; {os.cpu_count()} cores",
            flush=True,
        )

        print(f"trial rows → count table ({csv_rows:,} CSV rows)")
        if "csv" in cases:
            measure(
                "in memory: read_trials(f).counts()",
                f"import passhat as ph; ds = ph.read_trials({str(csv)!r}).counts(); "
                "result = ds.sizes['task']",
            )
            measure(
                "out of core: read_counts(f)",
                f"import passhat as ph; ds = ph.read_counts({str(csv)!r}); "
                "result = ds.sizes['task']",
                "< 20 s",
            )
        if "model" in cases:
            model = tmp / "csv" / "model.csv"
            with open(csv, "rb") as src, open(model, "wb") as dst:
                src.readline()
                dst.write(b'"model","task_id","trial","success","status"\n')
                shutil.copyfileobj(src, dst, 1 << 24)
            measure(
                "out of core, 'model' column not mapped",
                f"import passhat as ph; ds = ph.read_counts({str(model)!r}); "
                "result = f\"{ds.sizes['system']} systems from {ds.attrs['source_system_from']}\"",
            )
        if "parquet" in cases:
            print(f"trial rows → count table ({pq_rows:,} Parquet rows, 100 parts)")
            measure(
                "out of core: read_counts(directory)",
                f"import passhat as ph; ds = ph.read_counts({str(tmp / 'pq')!r}); "
                "result = ds.sizes['task']",
                "< 120 s, < 1.5 GB",
            )
        if args.duckdb:
            try:
                import duckdb  # noqa: F401
            except ImportError:
                print("  duckdb: not installed, skipped")
            else:
                for label, src in (
                    ("CSV", f"read_csv('{csv}', all_varchar=true)"),
                    ("Parquet", f"read_parquet('{tmp / 'pq'}/*.parquet')"),
                ):
                    body = (
                        "import duckdb; con = duckdb.connect(); con.execute('SET threads=2'); "
                        'n = len(con.execute("select system, task_id, count(*), '
                        "sum(case when success::varchar in ('true','1') then 1 else 0 end) "
                        f'from {src} group by all").fetchall()); '
                        'd = len(con.execute("select system, task_id, trial from '
                        f'{src} group by all having count(*) > 1 limit 1").fetchall()); '
                        "result = n"
                    )
                    measure(f"duckdb {label}: counts + duplicate check", body)
        if "scaling" in cases:
            print("peak memory against rows and (system, task) pairs (Parquet, 10 parts)")
            measure(
                "baseline: import passhat, pyarrow",
                "import passhat as ph, pyarrow.parquet; result = 'imports only'",
            )
            # rows from 10^7 to 5 x 10^7 over the same pairs (batches of ~10^6 rows throughout),
            # then 10^7 rows over ten times the pairs
            for tasks_, runs in ((50_000, 100), (50_000, 500), (500_000, 10)):
                d = tmp / f"scale-{tasks_}-{runs}"
                n = write_trials(
                    d, systems=2, tasks=tasks_ // div, runs=runs, parts=10, fmt="parquet"
                )
                measure(
                    f"{n:,} rows, {2 * tasks_ // div:,} pairs",
                    f"import passhat as ph; ds = ph.read_counts({str(d)!r}); "
                    "result = ds.sizes['task']",
                )
                shutil.rmtree(d, ignore_errors=True)
        if "report" not in cases:
            return 0
        print(f"passhat report --no-model on a {tasks:,}-task count table")
        out = tmp / "report"
        body = (
            "import os; from passhat.cli import main; "
            f"rc = main(['report', {str(counts)!r}, '-o', {str(out)!r}, '--no-model', '-q']); "
            f"js = os.path.getsize({str(out / 'results.json')!r}) / 1024; "
            f"tp = os.path.getsize({str(out / 'tasks.parquet')!r}) / 2**20; "
            "result = f'exit {rc}, results.json {js:.0f} KiB, tasks.parquet {tp:.0f} MiB'"
        )
        measure("report", body, "< 60 s, < 1.5 GB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if args.out is not None:
            print(f"load average after: {os.getloadavg()[0]:.1f}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
