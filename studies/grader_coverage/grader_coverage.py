"""Coverage of pass^k intervals corrected for a noisy grader, by simulation (issue 31, item 3).

Truth: each task's true pass rate p ~ Beta(1.2, 0.8) (mean 0.6, many tasks near 0 and 1);
each of its n runs truly passes with probability p. A grader of sensitivity se and
specificity sp labels the runs: a truly passing run is passed with probability se, a truly
failing run with probability 1 - sp (non-differential error, the correction's assumption).
An audit checks N runs drawn at random from the same population of runs: N_pos ~ Bin(N, 0.6)
truly pass, TP ~ Bin(N_pos, se), TN ~ Bin(N - N_pos, sp).

Cells: grader (se, sp) = (0.95, 0.90) and (0.85, 0.80); audits of 50, 200 and 1000 runs;
T = 50 and 200 tasks; n = 3 and 5 runs per task. Values: the mean, pass@2 and pass^2 (and
pass^3). Truths: population, E g(p) under Beta(1.2, 0.8) in closed form (Beta moments);
benchmark, the mean of g(p_i) over the replicate's own tasks.

Each replicate calls :func:`passhat.graders.correct.system_rows` (the engine of
``passhat.correct_grader`` / ``passhat estimate --grader-…``) three times on the same data:
``audit`` (the correction, se and sp from the audit counts, their Beta posteriors drawn with
the bootstrap: the method passhat uses), ``fixed`` (the same correction with the audit's point
se, sp taken as exact: what stated values give) and ``uncorrected`` (se = sp = 1: today's
estimate of the grader's labels), and counts how often each 90% interval holds the truth.
Monte-Carlo s.e. of a coverage c over R replicates: sqrt(c(1 - c) / R) (floored at
sqrt(0.0225 / R)).

Clustered tasks and task weights are the second part (``clustered_weighted.py`` beside this
file, its own CSV and report); ``--setting`` picks the parts.

Run::

    nice .venv/bin/python studies/grader_coverage/grader_coverage.py            # → reports/...
    .venv/bin/python studies/grader_coverage/grader_coverage.py --reps 20       # quicker
    nice .venv/bin/python studies/grader_coverage/grader_coverage.py --setting clustered-weighted
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd

from passhat.graders.correct import system_rows
from passhat.graders.spec import GraderSpec

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "grader_coverage"
LEVEL = 0.90
LOW = 0.85  # the goal for the corrected (audit) intervals
REPS = 200  # Monte-Carlo s.e. of a coverage near 0.9: sqrt(0.09 / 200) = 0.021
ALPHA, BETA = 1.2, 0.8  # task rates p ~ Beta(ALPHA, BETA), mean 0.6
GRADERS = ((0.95, 0.90), (0.85, 0.80))
AUDITS = (50, 200, 1000)
TASKS = (50, 200)
RUNS = (3, 5)
KS = [2, 3]
VALUES = (("mean", None), ("pass_at_k", 2), ("pass_hat_k", 2), ("pass_hat_k", 3))
HOWS = ("audit", "fixed", "uncorrected")


def g(metric: str, k: int | None, p: np.ndarray) -> np.ndarray:
    """The value of one task of true rate p."""
    if metric == "pass_at_k":
        return 1.0 - (1.0 - p) ** (k or 1)
    return p ** (k or 1)


def beta_moment(k: int, a: float = ALPHA, b: float = BETA) -> float:
    """E p^k for p ~ Beta(a, b): prod_{i<k} (a + i) / (a + b + i)."""
    return float(np.prod([(a + i) / (a + b + i) for i in range(k)]))


def population_truth(metric: str, k: int | None) -> float:
    """E g(p) under Beta(ALPHA, BETA), in closed form."""
    if metric == "pass_at_k":
        return 1.0 - beta_moment(k or 1, BETA, ALPHA)  # 1 - p ~ Beta(BETA, ALPHA)
    return beta_moment(k or 1)


def simulate(
    rng: np.random.Generator, se: float, sp: float, audit: int, tasks: int, runs: int
) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]]:
    """One replicate: true task rates, grader passes per task, and the audit's counts."""
    p = rng.beta(ALPHA, BETA, tasks)
    s = rng.binomial(runs, p)
    c = rng.binomial(s, se) + rng.binomial(runs - s, 1.0 - sp)
    pos = int(rng.binomial(audit, ALPHA / (ALPHA + BETA)))
    tp, tn = int(rng.binomial(pos, se)), int(rng.binomial(audit - pos, sp))
    return p, c, (tp, pos - tp, tn, audit - pos - tn)


def _graders(counts: tuple[int, int, int, int]) -> dict[str, GraderSpec] | None:
    """The three ways of one replicate; None when the audit's point se + sp <= 1 (refused)."""
    a = counts
    se, sp = a[0] / max(a[0] + a[1], 1), a[2] / max(a[2] + a[3], 1)
    if a[0] + a[1] == 0 or a[2] + a[3] == 0 or se + sp <= 1:
        return None
    return {
        "audit": GraderSpec.from_audit(counts),
        "fixed": GraderSpec.from_rates(sensitivity=se, specificity=sp),
        "uncorrected": GraderSpec.from_rates(sensitivity=1.0, specificity=1.0),
    }


def run_cell(
    se: float, sp: float, audit: int, tasks: int, runs: int, *, reps: int, n_boot: int, seed: int
) -> list[dict[str, object]]:
    """Coverage of the three ways' intervals, both scopes, for one cell."""
    rng = np.random.default_rng(seed)
    keys = [
        (v, how, scope) for v in VALUES for how in HOWS for scope in ("benchmark", "population")
    ]
    hits = dict.fromkeys(keys, 0)
    width = dict.fromkeys(keys, 0.0)
    done = refused = 0
    while done < reps:
        p, c, counts = simulate(rng, se, sp, audit, tasks, runs)
        ways = _graders(counts)
        if ways is None:
            refused += 1
            continue
        n = np.full(tasks, float(runs))
        bench = {v: float(np.mean(g(v[0], v[1], p))) for v in VALUES}
        for how, grader in ways.items():
            rows, _ = system_rows(n, c.astype(float), KS, grader, LEVEL, (rng, rng), n_boot)
            for row in rows:
                v = (row["metric"], row["k"])
                if v not in bench:
                    continue
                truth = bench[v] if row["scope"] == "benchmark" else population_truth(*v)
                key = (v, how, row["scope"])
                hits[key] += int(row["lower"] <= truth <= row["upper"])
                width[key] += float(row["upper"] - row["lower"])
        done += 1
    out: list[dict[str, object]] = []
    for v, how, scope in keys:
        cov = hits[(v, how, scope)] / reps
        out.append({"se": se, "sp": sp, "audit": audit, "tasks": tasks, "runs": runs,
                    "metric": v[0], "k": v[1] or 1, "interval": how, "scope": scope,
                    "coverage": cov, "mc_se": float(np.sqrt(max(cov * (1 - cov), 0.0225) / reps)),
                    "mean_width": width[(v, how, scope)] / reps, "reps": reps,
                    "refused_audits": refused, "n_boot": n_boot})  # fmt: skip
    return out


def cells() -> list[tuple[float, float, int, int, int]]:
    """(se, sp, audit, tasks, runs) of every cell."""
    return [(se, sp, a, t, n) for se, sp in GRADERS for a in AUDITS for t in TASKS for n in RUNS]


def run(*, reps: int = REPS, n_boot: int = 500, seed: int = 31) -> pd.DataFrame:
    """Every cell, each with its own seed (seed + 97·index), serially."""
    parts = []
    for i, cell in enumerate(cells()):
        start = time.perf_counter()
        parts += run_cell(*cell, reps=reps, n_boot=n_boot, seed=seed + 97 * i)
        print(f"[{i + 1}/{len(cells())}] {cell} {time.perf_counter() - start:.1f} s", flush=True)
    return pd.DataFrame(parts)


def summary(df: pd.DataFrame) -> list[str]:
    """The verdict lines: the goal for the audit intervals, the other two beside it."""
    lines = []
    for scope in ("population", "benchmark"):
        sc = df[df["scope"] == scope]
        for how in HOWS:
            part = sc[sc["interval"] == how]
            ok = int((part["coverage"] + 2 * part["mc_se"] >= LOW).sum())
            lines.append(
                f"- {scope}, `{how}`: coverage {part['coverage'].min():.3f}–"
                f"{part['coverage'].max():.3f} (mean {part['coverage'].mean():.3f}); "
                f"{ok}/{len(part)} cells at least {LOW} within 2 MC s.e."
            )
    return lines


def to_markdown(df: pd.DataFrame, *, seconds: float | None = None) -> str:
    """The report: the goal, the verdict per interval and scope, and every cell."""
    reps = int(df["reps"].iloc[0])
    wide = df.pivot_table(
        index=["se", "sp", "audit", "tasks", "runs", "metric", "k", "scope"],
        columns="interval",
        values=["coverage", "mc_se", "mean_width"],
        sort=False,
    )
    lines = [
        "# Coverage of intervals corrected for a noisy grader",
        "",
        f"Nominal level 90%; {reps} replicates per cell, {int(df['n_boot'].iloc[0])} draws per "
        "interval (± is the Monte-Carlo s.e., sqrt(c(1 − c)/R), floored at sqrt(0.0225/R)). "
        f"Truth: task rates p ~ Beta({ALPHA}, {BETA}); the grader passes a truly passing run "
        "with probability se and a truly failing one with probability 1 − sp; an audit of N "
        "random runs gives TP, FN, TN, FP. `audit`: passhat's correction with se, sp drawn "
        "from the audit's Beta posteriors (what `--grader-audit` / `--grader-truth` do); "
        "`fixed`: the same correction with the audit's point se, sp taken as exact (what "
        "stated `--grader-sensitivity/--grader-specificity` do); `uncorrected`: today's "
        "estimate of the grader's labels. Replicates whose audit had se + sp ≤ 1 (refused by "
        f"passhat) are redrawn and counted (`refused_audits` in the CSV: "
        f"{int(df['refused_audits'].max())} at most per cell). Made by "
        "`studies/grader_coverage/grader_coverage.py` (run: `nice .venv/bin/python "
        "studies/grader_coverage/grader_coverage.py`).",
        "",
    ]
    if seconds is not None:
        lines += [f"Run time: {seconds / 60:.1f} min (one process).", ""]
    lines += [f"**Goal**: `audit` intervals cover at least {LOW} (within 2 MC s.e.).", ""]
    lines += [*summary(df), ""]
    lines += [
        "| se | sp | audit | T | n | metric | k | scope | audit cov. | fixed cov. | "
        "uncorrected cov. | audit width | uncorrected width |",
        "|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for idx, row in wide.iterrows():
        se, sp, audit, t, n, metric, k, scope = idx  # type: ignore[misc]
        cov = [f"{row[('coverage', h)]:.3f}±{row[('mc_se', h)]:.3f}" for h in HOWS]
        lines.append(
            f"| {se} | {sp} | {audit} | {t} | {n} | {metric} | {k} | {scope} | "
            + " | ".join(cov)
            + f" | {row[('mean_width', 'audit')]:.3f} | {row[('mean_width', 'uncorrected')]:.3f} |"
        )
    return "\n".join(lines) + "\n"


def second_part() -> ModuleType:
    """clustered_weighted.py beside this file (the studies are scripts, not a package)."""
    name = "grader_coverage_clustered_weighted"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, Path(__file__).resolve().parent / "clustered_weighted.py"
    )
    if spec is None or spec.loader is None:
        raise ImportError("clustered_weighted.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def run_second(reps: int, n_boot: int, out: Path) -> bool:
    """The clustered and weighted cells: CSV and report under ``out``; whether the goal holds."""
    cw = second_part()
    start = time.perf_counter()
    df = cw.run(reps=reps, n_boot=n_boot)
    seconds = time.perf_counter() - start
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "grader_coverage_clustered_weighted.csv", index=False)
    (out / "grader_coverage_clustered_weighted.md").write_text(cw.to_markdown(df, seconds=seconds))
    ok = bool(cw.goal_met(df))
    print(f"clustered / weighted intervals at least {LOW} in every cell: {ok}")
    return ok


def recheck(out: Path, *, reps: int, n_boot: int, seed: int) -> pd.DataFrame:
    """The cells whose ``audit`` interval covers below :data:`LOW` somewhere in the committed
    table (``out/grader_coverage.csv``), again with ``reps`` replicates from an independent
    seed (``seed`` + 97·index, ``seed`` away from the committed run's), into
    ``out/recheck.csv``: whether a cell below 0.85 at 200 replicates is a real miss."""
    committed = pd.read_csv(out / "grader_coverage.csv")
    low = committed[(committed["interval"] == "audit") & (committed["coverage"] < LOW)]
    keys = ["se", "sp", "audit", "tasks", "runs"]
    todo = sorted({tuple(r) for r in low[keys].itertuples(index=False)})
    parts = []
    for i, (se, sp, audit, tasks, runs) in enumerate(todo):
        parts += run_cell(float(se), float(sp), int(audit), int(tasks), int(runs), reps=reps,
                          n_boot=n_boot, seed=seed + 97 * i)  # fmt: skip
        print(f"[{i + 1}/{len(todo)}] recheck {(se, sp, audit, tasks, runs)}", flush=True)
    df = pd.DataFrame(parts)
    df.to_csv(out / "recheck.csv", index=False)
    (out / "recheck.md").write_text(recheck_markdown(df, seed=seed))
    return df


def recheck_markdown(df: pd.DataFrame, *, seed: int) -> str:
    """The recheck's audit rows: each cell's coverage with its Monte-Carlo s.e."""
    audit = df[df["interval"] == "audit"]
    reps = int(audit["reps"].iloc[0])
    lines = [
        "# Recheck of the grader cells that covered below 0.85",
        "",
        f"The settings whose `audit` interval covered below {LOW} in `grader_coverage.csv` "
        f"(200 replicates), again with {reps} replicates from an independent seed ({seed} + "
        "97·index): `nice .venv/bin/python studies/grader_coverage/grader_coverage.py "
        f"--recheck {reps}`. Every row of those settings, both scopes: coverage "
        f"{audit['coverage'].min():.3f}–{audit['coverage'].max():.3f} at 90%.",
        "",
        "| se | sp | audit | T | n | metric | k | scope | coverage |",
        "|---:|---:|---:|---:|---:|---|---:|---|---:|",
    ]
    for r in audit.itertuples(index=False):
        lines.append(
            f"| {r.se} | {r.sp} | {r.audit} | {r.tasks} | {r.runs} | {r.metric} | {r.k} | "
            f"{r.scope} | {r.coverage:.3f}±{r.mc_se:.3f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--recheck",
        type=int,
        metavar="REPS",
        help="re-run the cells whose audit interval covers below 0.85 with REPS replicates "
        "from an independent seed (--seed; default 10031) into --out/recheck.csv",
    )
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--n-boot", type=int, default=500)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--setting", choices=("all", "independent", "clustered-weighted"), default="all"
    )
    args = ap.parse_args(argv)
    if args.recheck:
        seed = args.seed if args.seed != 31 else 10031
        df = recheck(args.out, reps=args.recheck, n_boot=args.n_boot, seed=seed)
        audit = df[df["interval"] == "audit"]
        return 0 if bool((audit["coverage"] + 2 * audit["mc_se"] >= LOW).all()) else 1
    second = True
    if args.setting in ("all", "clustered-weighted"):
        second = run_second(args.reps, args.n_boot, args.out)
        if args.setting == "clustered-weighted":
            return 0 if second else 1
    start = time.perf_counter()
    df = run(reps=args.reps, n_boot=args.n_boot, seed=args.seed)
    seconds = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "grader_coverage.csv", index=False)
    (args.out / "grader_coverage.md").write_text(to_markdown(df, seconds=seconds))
    audit = df[df["interval"] == "audit"]
    ok = bool((audit["coverage"] + 2 * audit["mc_se"] >= LOW).all())
    print(f"audit intervals at least {LOW} in every cell: {ok}")
    return 0 if ok and second else 1


if __name__ == "__main__":
    sys.exit(main())
