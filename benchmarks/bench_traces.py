"""Benchmark: divergence points over 10,000 trials × 50 steps (target < 10 s).

Synthetic traces: 500 tasks × 20 trials, 50 tool calls each (10 tools, 4 of
them lookups, arguments drawn per task), about half the trials failing; each
failing run departs from its task's script at a random step. Timed: the full
``passhat.divergence`` (normalisation, lookup blocks, alignment, refinement,
aggregation).

Baseline, in the same process: the textbook approach, a pure-Python
longest-common-subsequence table for every (failing, passing) pair followed by
a walk along an optimal alignment to its first unmatched column. It is run on
a subset of tasks (it is too slow for all of them) and compared with
passhat on the same subset; both must give the same divergence steps there
(lookups switched off so that the two rules coincide). Peak memory: the
process's maximum resident set size.

Also timed: ``tolerate_extra_lookups=True`` on the full set, checked on the
full set against a pure-Python per-pair walk of the tolerant rule
(alternating lookup stretches and actions; F follows P while its actions are
equal and its lookups contain P's; max over passing runs).

Run: ``.venv/bin/python benchmarks/bench_traces.py``
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np
import pandas as pd

import passhat as ph

TOOLS = [f"act_{i}" for i in range(6)] + ["get_user", "get_order", "search_item", "list_items"]


def make(tasks: int = 500, trials: int = 20, steps: int = 50, seed: int = 0) -> ph.Traces:
    rng = np.random.default_rng(seed)
    n_runs = tasks * trials
    script = rng.integers(0, len(TOOLS), size=(tasks, steps))
    arg = rng.integers(0, 3, size=(tasks, steps))
    task_of = np.repeat(np.arange(tasks), trials)
    success = rng.random(n_runs) < 0.5
    seq = script[task_of].copy()
    args = arg[task_of].copy()
    # failing runs depart at a random step: a different tool from there on, for a few steps
    fail = np.flatnonzero(~success)
    at = rng.integers(0, steps, size=len(fail))
    for f, a in zip(fail, at, strict=True):
        seq[f, a] = (seq[f, a] + 1 + rng.integers(0, len(TOOLS) - 1)) % len(TOOLS)
    tool = np.array(TOOLS, dtype=object)[seq.ravel()]
    args_text = np.char.add('{"x":', np.char.add(args.ravel().astype(str), "}"))
    frame = pd.DataFrame(
        {
            "task_id": np.repeat(task_of.astype(str), steps),
            "trial": np.repeat(np.tile(np.arange(trials), tasks), steps),
            "step": np.tile(np.arange(steps), n_runs),
            "action": tool,
            "args": args_text.astype(object),
        }
    )
    trial_frame = pd.DataFrame(
        {
            "task_id": task_of.astype(str),
            "trial": np.tile(np.arange(trials), tasks),
            "success": success,
        }
    )
    return ph.Traces.from_frames(frame, trial_frame)


def naive(traces: ph.Traces) -> dict[tuple[str, int], int | None]:
    """Per pair LCS table in pure Python, walked to its first unmatched column."""
    tok = (traces.steps["action"] + "(" + traces.steps["args"] + ")").to_numpy()
    keys = list(zip(traces.steps["task_id"], traces.steps["trial"], strict=True))
    seqs: dict[tuple[str, int], list[str]] = {}
    for k, t in zip(keys, tok, strict=True):
        seqs.setdefault(k, []).append(t)
    out: dict[tuple[str, int], int | None] = {}
    for task, part in traces.trials.groupby("task_id", sort=False):
        passing = [seqs.get((task, t), []) for t in part.loc[part["success"], "trial"]]
        if not passing or part["success"].all():
            continue
        for t in part.loc[~part["success"].astype(bool), "trial"]:
            f = seqs.get((task, int(t)), [])
            best = -1
            same = False
            for p in passing:
                n, m = len(f), len(p)
                L = [[0] * (m + 1) for _ in range(n + 1)]
                for i in range(n - 1, -1, -1):
                    row, nxt = L[i], L[i + 1]
                    fi = f[i]
                    for j in range(m - 1, -1, -1):
                        row[j] = nxt[j + 1] + 1 if fi == p[j] else max(nxt[j], row[j + 1])
                i = j = 0
                while i < n and j < m and f[i] == p[j] and L[i][j] == L[i + 1][j + 1] + 1:
                    i += 1
                    j += 1
                same = same or (f == p)
                best = max(best, i)
            out[(str(task), int(t))] = None if same else best + 1
    return out


def naive_tolerant(traces: ph.Traces) -> dict[tuple[str, int], int | None]:
    """Per pair, a pure-Python walk of the tolerant rule; the latest point over passing runs."""
    st = traces.steps
    is_lookup = st["action"].map(ph.traces.is_lookup_name).to_numpy()
    tok = (st["action"] + "(" + st["args"] + ")").to_numpy()
    keys = list(zip(st["task_id"], st["trial"], strict=True))
    seqs: dict[tuple[str, int], list[tuple[str, bool]]] = {}
    for k, t, lk in zip(keys, tok, is_lookup, strict=True):
        seqs.setdefault(k, []).append((t, bool(lk)))

    def columns(seq: list[tuple[str, bool]]) -> list[list[tuple[str, int]]]:
        cols: list[list[tuple[str, int]]] = [[]]
        for i, (t, lk) in enumerate(seq):
            if lk:
                cols[-1].append((t, i))
            else:
                cols += [[(t, i)], []]
        return cols

    def point(f: list[tuple[str, bool]], p: list[tuple[str, bool]]) -> int | None:
        cf, cp = columns(f), columns(p)
        for c in range(max(len(cf), len(cp))):
            if c % 2 == 0:
                pool: dict[str, int] = {}
                for t, _ in cp[c]:
                    pool[t] = pool.get(t, 0) + 1
                left = []
                for t, i in cf[c]:
                    if pool.get(t, 0) > 0:
                        pool[t] -= 1
                    else:
                        left.append((t, i))
                tools = {t.split("(", 1)[0] for t, n in pool.items() if n > 0}
                if not tools:
                    continue
                for t, i in left:
                    if t.split("(", 1)[0] in tools:
                        return i  # a changed lookup
                return cf[c + 1][0][1] if c + 1 < len(cf) else len(f)  # stretch end
            if c >= len(cf):
                return len(f)  # F stops
            if c >= len(cp) or cf[c][0][0] != cp[c][0][0]:
                return cf[c][0][1]
        return None

    out: dict[tuple[str, int], int | None] = {}
    for task, part in traces.trials.groupby("task_id", sort=False):
        passing = [seqs.get((task, t), []) for t in part.loc[part["success"], "trial"]]
        if not passing or part["success"].all():
            continue
        for t in part.loc[~part["success"].astype(bool), "trial"]:
            f = seqs.get((task, int(t)), [])
            pts = [point(f, p) for p in passing]
            out[(str(task), int(t))] = (
                None if any(x is None for x in pts) else max(x for x in pts if x is not None) + 1
            )
    return out


def main() -> None:
    t0 = time.perf_counter()
    tr = make()
    t_make = time.perf_counter() - t0
    n_steps = len(tr.steps)
    t0 = time.perf_counter()
    div = ph.divergence(tr)
    t_full = time.perf_counter() - t0
    print(
        f"passhat.divergence: {len(tr.trials):,} trials × 50 steps ({n_steps:,} steps), "
        f"{div.counts['tasks_mixed']} mixed tasks, {div.counts['failing_runs']:,} failing runs: "
        f"{t_full:.2f} s (target < 10 s)  [building the synthetic traces: {t_make:.2f} s]"
    )
    # baseline on a subset, both rules made identical (no lookup blocks)
    sub_tasks = [str(i) for i in range(25)]
    sub = tr.select(tasks=sub_tasks)
    t0 = time.perf_counter()
    fast = ph.divergence(sub, lookups=[])
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    slow = naive(sub)
    t_slow = time.perf_counter() - t0
    got = {
        (r["task_id"], int(r["trial"])): (None if pd.isna(r["step"]) else int(r["step"]))
        for _, r in fast.table.iterrows()
    }
    if got != slow:
        print("MISMATCH between passhat and the naive LCS baseline", file=sys.stderr)
        sys.exit(1)
    share = len(sub.trials) / len(tr.trials)
    print(
        f"subset {len(sub_tasks)} tasks ({len(sub.trials)} trials): passhat {t_fast:.3f} s, "
        f"naive pairwise LCS {t_slow:.2f} s, ratio {t_slow / t_fast:.0f}× "
        f"(identical divergence steps for all {len(got)} failing runs)"
    )
    print(
        f"naive baseline extrapolated to the full set: ~{t_slow / share:.0f} s "
        f"vs passhat {t_full:.2f} s (~{t_slow / share / t_full:.0f}×)"
    )
    t0 = time.perf_counter()
    tol = ph.divergence(tr, tolerate_extra_lookups=True)
    t_tol = time.perf_counter() - t0
    moved = int((tol.table["step"].fillna(0) != div.table["step"].fillna(0)).sum())
    print(
        f"passhat.divergence(tolerate_extra_lookups=True), same set: {t_tol:.2f} s "
        f"(target < 10 s); {moved:,} of {len(tol.table):,} points move, "
        f"{tol.counts['tolerated_extra_lookups']:,} extra lookups tolerated"
    )
    t0 = time.perf_counter()
    slow_t = naive_tolerant(tr)
    t_slow_t = time.perf_counter() - t0
    got_t = {
        (r["task_id"], int(r["trial"])): (None if pd.isna(r["step"]) else int(r["step"]))
        for _, r in tol.table.iterrows()
    }
    if got_t != slow_t:
        print("MISMATCH between passhat and the naive tolerant walk", file=sys.stderr)
        sys.exit(1)
    print(
        f"tolerant, full set: naive pure-Python per-pair walk {t_slow_t:.2f} s vs passhat "
        f"{t_tol:.2f} s (ratio {t_slow_t / t_tol:.1f}×; identical divergence steps for all "
        f"{len(got_t):,} failing runs)"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of this process: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
