"""Benchmark: trial logs beyond memory, and the report on big inputs (issues 13 and 32).

Each figure is measured in a fresh process, run under a small wrapper process that reports
its child's wall time, CPU time (``RUSAGE_CHILDREN`` user + system) and peak resident memory
(``RUSAGE_CHILDREN.ru_maxrss``); the machine's load average is printed beside each figure
(the 2 cores are shared). With ``--before SRC`` (a ``src/`` directory of an earlier passhat,
e.g. ``git archive 410aabe src | tar -x -C /tmp/before``) every passhat figure is measured
again with that code in the same run, and the ratio after / before is printed.

Cases (``--cases``, default all):

* ``engines`` (issue 32): 10^8 Parquet rows in 100 part files, over 10^5 and over 10^6 tasks
  (2 systems × 100,000 tasks × 500 runs; 2 × 1,000,000 × 50): passhat's out-of-core count
  (``read_counts(dir)``, every rule checked) against the embedded engines it was measured
  against, each doing less: DuckDB's GROUP BY (the counts only, 2 threads; then the
  duplicate (system, task, trial) check as a second GROUP BY) and pyarrow's Acero hash
  aggregate over the dataset scanner (the counts only);
* ``single``: ``passhat estimate FILE --k 1,5 --ci 0.95`` on one 10^7-row Parquet file
  (2 systems × 50,000 tasks × 100 runs): streamed by its row count since issue 32;
* ``report10m``: ``passhat report FILE --no-model`` on the same file;
* ``fit``: ``fit(method="grid")`` on 10^6 tasks against the 168-task example, CPU best of 3;
* ``cluster``: 10^7 rows in 10 parts counted here and on a local dask cluster of 2 workers
  (CPU includes the workers'; the peak is the largest single process);
* ``csv``, ``model``, ``parquet``, ``scaling``, ``report`` (issue 13): 10^7 CSV rows in memory
  and out of core, the same with an unmapped ``model`` system column, 10^8 Parquet rows over
  10^6 pairs, peak memory against rows and pairs, and ``report --no-model`` on a 10^6-task
  count table.

The data are generated with a fixed seed in a temporary directory (``--data DIR`` keeps them
between runs; the 10^8-row cases need about 2 GB of disk) and deleted afterwards.

Run::

    nice -n 10 .venv/bin/python benchmarks/bench_scale.py --cases engines,single,report10m \\
        --before /tmp/before/src --out benchmarks/bench_scale_issue32.txt

``--small`` divides every size by 10 (a quick check).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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

#: The wrapper: runs the measured child, then reads its resource use (RUSAGE_CHILDREN).
_WRAP = """
import json, os, resource, subprocess, sys, time
argv, env = json.loads(sys.argv[1])
t0 = time.perf_counter()
proc = subprocess.run(argv, env={**os.environ, **env}, capture_output=True, text=True)
wall = time.perf_counter() - t0
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": r.ru_utime + r.ru_stime, "peak_mib": r.ru_maxrss / 1024,
                  "rc": proc.returncode, "out": proc.stdout[-2000:], "err": proc.stderr[-4000:]}))
"""

_CHILD = """
{body}
print("RESULT", result)
"""

#: figures by label, for the ratios
_FIGS: dict[str, dict[str, Any]] = {}


def run_child(body: str, src: str | None = None) -> dict[str, Any]:
    """Run ``body`` (which sets ``result``) in a fresh interpreter under the wrapper."""
    env = {"PYTHONPATH": src} if src else {}
    argv = [sys.executable, "-c", _CHILD.format(body=body)]
    proc = subprocess.run(
        [sys.executable, "-c", _WRAP, json.dumps([argv, env])],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def measure(label: str, body: str, target: str = "", *, before: str | None = None) -> None:
    """Print one figure (and, with ``before``, the same with the earlier code and the ratio)."""
    for which, src in (("now", None), ("before", before)):
        if which == "before" and src is None:
            continue
        load = os.getloadavg()[0]
        fig = run_child(body, src)
        name = label if which == "now" else f"  before: {label}"
        if fig["rc"] != 0:
            print(f"  {name}: failed (exit {fig['rc']})\n{fig['err']}", flush=True)
            continue
        result = [ln[7:] for ln in fig["out"].splitlines() if ln.startswith("RESULT ")]
        goal = f"  target {target}" if target and which == "now" else ""
        print(
            f"  {name:48s} {fig['wall']:6.1f} s wall, {fig['cpu']:6.1f} s CPU, peak "
            f"{fig['peak_mib']:5.0f} MiB  {' '.join(result)}  (load {load:.1f}){goal}",
            flush=True,
        )
        _FIGS[f"{which}:{label}"] = fig
    now, old = _FIGS.get(f"now:{label}"), _FIGS.get(f"before:{label}")
    if now and old:
        print(
            f"  {'  now / before':48s} {now['wall'] / old['wall']:6.2f} wall, "
            f"{now['cpu'] / old['cpu']:6.2f} CPU, {now['peak_mib'] / old['peak_mib']:5.2f} peak",
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


def write_trials(
    out: Path, *, systems: int, tasks: int, runs: int, parts: int, fmt: str, seed: int = 0
) -> int:
    """Trial-major parts (one sweep of every task per run): a realistic order for logs."""
    done = out / "_rows"
    if done.exists():  # kept from an earlier run (--data)
        return int(done.read_text())
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
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
    done.write_text(str(rows))
    return rows


def _read_counts(src: Path) -> str:
    return (
        f"import passhat as ph; ds = ph.read_counts({str(src)!r}); "
        "result = f\"{ds.sizes['system']} x {ds.sizes['task']:,} tasks, "
        "{int(ds['n'].sum()):,} decided runs\""
    )


def _duckdb(src: Path, *, duplicates: bool) -> str:
    glob = str(src / "*.parquet")
    if duplicates:
        sql = (
            f"select system, task_id, trial from read_parquet('{glob}') "
            "group by all having count(*) > 1 limit 1"
        )
        tail = "rows = con.sql(q).fetchall(); result = f'{len(rows)} duplicate(s)'"
    else:
        sql = (
            "select system, task_id, count(*) as runs, "
            "sum(case when status = 'grader_error' then 0 else 1 end) as n, "
            "sum(case when success and status <> 'grader_error' then 1 else 0 end) as c "
            f"from read_parquet('{glob}') group by all"
        )
        tail = "rows = con.sql(q).fetchall(); result = f'{len(rows):,} (system, task) groups'"
    return (
        f"import duckdb; con = duckdb.connect(); con.execute('set threads=2'); q = {sql!r}; {tail}"
    )


def _acero(src: Path) -> str:
    return (
        "import pyarrow as pa, pyarrow.compute as pc, pyarrow.dataset as pds, "
        "pyarrow.acero as ac\n"
        f"dset = pds.dataset({str(src)!r}, format='parquet')\n"
        "cols = ['system', 'task_id', 'success', 'status']\n"
        "decl = ac.Declaration.from_sequence([\n"
        "    ac.Declaration('scan', ac.ScanNodeOptions(dset, columns=cols)),\n"
        "    ac.Declaration('project', ac.ProjectNodeOptions(\n"
        "        [pc.field('system'), pc.field('task_id'), pc.field('success'),\n"
        "         pc.equal(pc.field('status'), pa.scalar('grader_error'))],\n"
        "        ['system', 'task_id', 'success', 'unscored'])),\n"
        "    ac.Declaration('aggregate', ac.AggregateNodeOptions(\n"
        "        [([], 'hash_count_all', None, 'runs'), ('success', 'hash_sum', None, 'c'),\n"
        "         ('unscored', 'hash_sum', None, 'unscored')], keys=['system', 'task_id'])),\n"
        "])\n"
        "t = decl.to_table(use_threads=True); result = f'{t.num_rows:,} (system, task) groups'"
    )


def case_engines(data: Path, div: int, before: str | None) -> None:
    """10^8 rows over 10^5 and 10^6 tasks: passhat against DuckDB and Acero."""
    try:
        import duckdb  # noqa: F401

        have_duckdb = True
    except ImportError:
        have_duckdb = False
    for tasks, runs in ((100_000, 500), (1_000_000, 50)):
        d = data / f"engines-{tasks}"
        t0 = time.perf_counter()
        rows = write_trials(d, systems=2, tasks=tasks // div, runs=runs, parts=50, fmt="parquet")
        size = sum(f.stat().st_size for f in d.glob("*.parquet")) / 2**20
        print(
            f"{rows:,} Parquet rows in 50 parts ({size:.0f} MiB, 2 systems x {tasks // div:,} "
            f"tasks x {runs} runs; ready in {time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
        measure(
            "passhat read_counts(dir), every rule",
            _read_counts(d),
            "< 120 s, < 1.5 GB",
            before=before,
        )
        if have_duckdb:
            measure("DuckDB GROUP BY: counts only", _duckdb(d, duplicates=False))
            measure("DuckDB GROUP BY: duplicate check only", _duckdb(d, duplicates=True))
        else:
            print("  DuckDB: not installed (pip install duckdb)")
        measure("pyarrow Acero hash aggregate: counts only", _acero(d))


def _cli(argv: list[str], out: Path | None = None) -> str:
    tail = "result = f'exit {rc}'"
    if out is not None:
        tail = (
            f"import os; js = os.path.getsize({str(out / 'results.json')!r}) / 1024; "
            "result = f'exit {rc}, results.json {js:.0f} KiB'"
        )
    return f"from passhat.cli import main; rc = main({argv!r}); {tail}"


def case_single(data: Path, div: int, before: str | None, *, report: bool, est: bool) -> None:
    """One 10^7-row Parquet file: estimate with intervals, and the report without the model."""
    d = data / "single"
    rows = write_trials(d, systems=2, tasks=50_000 // div, runs=100, parts=1, fmt="parquet")
    f = d / "part-0000.parquet"
    print(f"one Parquet file of {rows:,} rows ({f.stat().st_size / 2**20:.0f} MiB)", flush=True)
    if est:
        measure(
            "read_trials(f): in memory, every run kept",
            f"import passhat as ph; t = ph.read_trials({str(f)!r}); result = f'{{len(t):,}} runs'",
            before=before,
        )
        argv = ["estimate", str(f), "--k", "1,5", "--ci", "0.95", "-q"]
        measure("passhat estimate --k 1,5 --ci 0.95", _cli(argv), "< 15 s, < 1 GB", before=before)
    if report:
        out = data / "report10m"
        shutil.rmtree(out, ignore_errors=True)
        argv = ["report", str(f), "-o", str(out), "--no-model", "-q"]
        body = f"import shutil; shutil.rmtree({str(out)!r}, ignore_errors=True); " + _cli(argv, out)
        measure("passhat report --no-model", body, "< 40 s, < 1.5 GB", before=before)


def case_issue13(tmp: Path, div: int, cases: set[str], before: str | None) -> None:
    """The issue-13 figures: CSV in memory and out of core, the 'model' column, scaling."""
    csv_rows = write_trials(
        tmp / "csv", systems=2, tasks=50_000 // div, runs=100, parts=1, fmt="csv"
    )
    csv = tmp / "csv" / "part-0000.csv"
    print(f"trial rows → count table ({csv_rows:,} CSV rows)", flush=True)
    if "csv" in cases:
        measure(
            "in memory: read_trials(f).counts()",
            f"import passhat as ph; ds = ph.read_trials({str(csv)!r}).counts(); "
            "result = ds.sizes['task']",
            before=before,
        )
        measure("out of core: read_counts(f)", _read_counts(csv), "< 20 s", before=before)
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
            before=before,
        )
    if "parquet" in cases:
        d = tmp / "pq"
        rows = write_trials(d, systems=2, tasks=500_000 // div, runs=100, parts=100, fmt="parquet")
        print(f"trial rows → count table ({rows:,} Parquet rows, 100 parts)", flush=True)
        measure(
            "out of core: read_counts(directory)",
            _read_counts(d),
            "< 120 s, < 1.5 GB",
            before=before,
        )
    if "scaling" in cases:
        print("peak memory against rows and (system, task) pairs (Parquet, 10 parts)")
        measure(
            "baseline: import passhat, pyarrow",
            "import passhat as ph, pyarrow.parquet; result = 'imports only'",
        )
        for tasks_, runs in ((50_000, 100), (50_000, 500), (500_000, 10)):
            d = tmp / f"scale-{tasks_}-{runs}"
            n = write_trials(d, systems=2, tasks=tasks_ // div, runs=runs, parts=10, fmt="parquet")
            measure(f"{n:,} rows, {2 * tasks_ // div:,} pairs", _read_counts(d), before=before)
            shutil.rmtree(d, ignore_errors=True)
    if "report" in cases:
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
        print(f"passhat report --no-model on a {tasks:,}-task count table")
        out = tmp / "report"
        body = f"import shutil; shutil.rmtree({str(out)!r}, ignore_errors=True); " + _cli(
            ["report", str(counts), "-o", str(out), "--no-model", "-q"], out
        )
        measure("report", body, "< 60 s, < 1.5 GB", before=before)


def case_cluster(data: Path, div: int) -> None:
    """10^7 rows in 10 Parquet parts: counted here, and on a local dask cluster of 2 workers."""
    d = data / "cluster"
    rows = write_trials(d, systems=2, tasks=50_000 // div, runs=100, parts=10, fmt="parquet")
    print(f"{rows:,} Parquet rows in 10 parts: on this machine and on a local dask cluster")
    measure("read_counts(dir)", _read_counts(d))
    body = _read_counts(d).replace(")", ", scheduler='local')", 1)
    measure("read_counts(dir, scheduler='local'), 2 workers", body)


def case_fit(before: str | None) -> None:
    """``fit(method="grid")`` on 10^6 tasks against 168 tasks (issue 32, goal 7): CPU, best of 3."""
    body = (
        f"import sys, time; sys.path.insert(0, {str(ROOT / 'benchmarks')!r})\n"
        "import passhat as ph\n"
        "from bench_model import data_168, data_million\n"
        "small, big = data_168(), data_million()\n"
        "ph.fit(small, method='grid', seed=6)\n"
        "def best(data):\n"
        "    out = []\n"
        "    for _ in range(3):\n"
        "        c0 = time.process_time(); ph.fit(data, method='grid', seed=6)\n"
        "        out.append(time.process_time() - c0)\n"
        "    return min(out)\n"
        "ts, tb = best(small), best(big)\n"
        "result = f'168 tasks {ts:.3f} s CPU, 10^6 tasks {tb:.3f} s CPU: ratio {tb / ts:.2f}'"
    )
    print("fit(method='grid'): 10^6 tasks (n in 1..20) against the 168-task example")
    measure("grid fit, best of 3", body, "ratio <= 3", before=before)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="scale benchmark")
    ap.add_argument("--small", action="store_true", help="every size / 10")
    ap.add_argument(
        "--cases",
        default="engines,single,report10m,fit,cluster,csv,model,parquet,scaling,report",
        help="cases to run",
    )
    ap.add_argument("--before", help="src/ of an earlier passhat, measured beside (PYTHONPATH)")
    ap.add_argument("--data", type=Path, help="keep the generated data here (default: deleted)")
    ap.add_argument("--out", type=Path, help="also write the printed lines to this file")
    args = ap.parse_args(argv)
    if args.out is not None:
        sys.stdout = _Tee(sys.stdout, args.out.open("w", encoding="utf-8"))
    cases = set(args.cases.split(","))
    div = 10 if args.small else 1
    tmp = args.data or Path(tempfile.mkdtemp(prefix="bench_scale_"))
    tmp.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(tmp).free / 2**30
    if free < 4:
        print(f"need ~3 GB of disk in {tmp}; {free:.1f} GiB free", file=sys.stderr)
        return 1
    print(
        f"machine: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
        f"python {platform.python_version()}, pyarrow {pa.__version__}; load average before: "
        f"{os.getloadavg()[0]:.1f}; before = {args.before or '(not measured)'}",
        flush=True,
    )
    try:
        if "fit" in cases:
            case_fit(args.before)
        if "cluster" in cases:
            case_cluster(tmp, div)
        if "engines" in cases:
            case_engines(tmp, div, args.before)
        if cases & {"single", "report10m"}:
            case_single(tmp, div, args.before, report="report10m" in cases, est="single" in cases)
        if cases & {"csv", "model", "parquet", "scaling", "report"}:
            case_issue13(tmp, div, cases, args.before)
    finally:
        if args.data is None:
            shutil.rmtree(tmp, ignore_errors=True)
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
