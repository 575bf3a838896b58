"""Benchmark: passhat against its peers on the same data, in one process (issue 32, goal 9).

Peers (pinned in ``benchmarks/peers/requirements.txt``; ``make bench-peers`` installs them with
passhat into ``.venv-peers/``, never into passhat's own environment):

* **agentrel** ``pass_hat_k`` — task-averaged pass^k with a percentile interval from a
  hierarchical bootstrap (tasks, then runs within each task) written as Python loops. passhat:
  ``estimate(k=k, ci=0.95, n_boot=2000, ci_method="percentile")``, whose population row is
  the task bootstrap (runs are not resampled: that would count the within-task variance twice,
  so agentrel's interval is wider) — and it computes more (every metric, both scopes).
* **passk-inference** ``simultaneous_band`` — a sup-t band for pass@k over k = 1..K from a
  Gaussian multiplier bootstrap over the per-task rows (4,000 draws), after its per-task
  ``pass_at_k``. passhat: the per-task values (:func:`passhat.scopes.column_values`), the task
  bootstrap over distinct (n, c) categories (:func:`passhat.bootstrap.draw_stats`, 4,000
  resamples) and the max-type band (:func:`passhat.rank.draws.simultaneous_band`).
* **evalstats** ``logit_t_ci_1d`` (analytic) and ``bootstrap_ci_1d(..., "bca")`` on the
  per-task pass^k estimates (10,000 resamples). passhat: :func:`passhat.analytic.analytic_interval`
  (logit-t, what ``ci_method="analytic"`` uses) and :func:`passhat.bootstrap.task_bootstrap`
  (BCa, 10,000 resamples).

Beside them, passhat's own choice: ``estimate(k=1..n, ci=0.95)`` with the default task bootstrap
(BCa, 10,000 resamples) against ``ci_method="analytic"`` (studies/analytic_interval).

Data: the bundled τ-bench airline example (gpt-4o, 50 tasks × 4 runs) and simulated
benchmarks of 500 and 5,000 tasks × 8 runs (rates ~ Beta(0.8, 0.6), seed 20261206). k is half
the runs (2 and 4) for the intervals of pass^k; the band runs over k = 1..n. Times are CPU
seconds (user + sys of this process; the steady measure on a shared machine), best of
``--repeat``; a peer that takes long is timed on fewer resamples and scaled linearly (its cost
is linear in the resamples; said on its line). Each comparison prints both packages' numbers
side by side, so a reader can see they answer the same question. A peer that is not
installed is skipped with a message.

Run: ``make bench-peers`` (writes ``benchmarks/bench_peers.txt``), or
``.venv-peers/bin/python benchmarks/bench_peers.py [--repeat 3] [--sizes 500 5000]``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata as md
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import passhat as ph
from passhat.analytic import analytic_interval
from passhat.bootstrap import compress, draw_stats, task_bootstrap
from passhat.estimators import as_counts
from passhat.rank.draws import simultaneous_band
from passhat.scopes import column_values

SEED = 20261206
PEERS = {"agentrel": "agentrel", "passk-inference": "passk_inference", "evalstats": "evalstats"}


@dataclass(frozen=True)
class Data:
    """One benchmark's decided runs and successes per task (one system)."""

    label: str
    n: np.ndarray
    c: np.ndarray

    @property
    def runs(self) -> int:
        return int(self.n.max())

    def as_dict(self) -> dict[str, np.ndarray]:
        """agentrel's input: task → the runs' 0/1 outcomes."""
        return {
            f"t{i}": np.r_[np.ones(c_i), np.zeros(n_i - c_i)]
            for i, (n_i, c_i) in enumerate(zip(self.n.tolist(), self.c.tolist(), strict=True))
        }


def cpu_time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The best CPU time (user + sys) of ``repeat`` calls, and the last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


def datasets(sizes: list[int]) -> list[Data]:
    ds = as_counts(ph.load_example("tau-airline"))
    out = [
        Data(
            "τ-bench airline (gpt-4o), 50 tasks × 4 runs",
            np.asarray(ds["n"].values[0], dtype=np.int64),
            np.asarray(ds["c"].values[0], dtype=np.int64),
        )
    ]
    rng = np.random.default_rng(SEED)
    for t in sizes:
        n = np.full(t, 8, dtype=np.int64)
        out.append(
            Data(f"simulated, {t:,} tasks × 8 runs", n, rng.binomial(n, rng.beta(0.8, 0.6, t)))
        )
    return out


def peer(name: str) -> Any | None:
    try:
        return importlib.import_module(PEERS[name])
    except ImportError:
        print(f"  {name}: not installed, skipped (make bench-peers installs it into .venv-peers)")
        return None


def fmt(lo: float, hi: float) -> str:
    return f"[{lo:.4f}, {hi:.4f}]"


def bench_agentrel(d: Data, mod: Any, repeat: int) -> float:
    """agentrel's pass^k bootstrap interval against estimate()'s population interval."""
    k = d.runs // 2
    runs = d.as_dict()
    full = 2000
    boot = full if d.n.size <= 50 else max(50, full * 50 // d.n.size)  # its loops: T × resamples
    t_peer, est = cpu_time(lambda: mod.pass_hat_k(runs, k, n_boot=boot, seed=0), 1)
    t_peer *= full / boot
    counts = ph.counts_from_arrays(d.n, d.c)
    t_ph, res = cpu_time(
        lambda: ph.estimate(counts, k=k, ci=0.95, n_boot=full, ci_method="percentile"), repeat
    )
    tab = res.table
    row = tab[(tab.metric == "pass_hat_k") & (tab.scope == "population")].iloc[0]
    scaled = "" if boot == full else f" (timed on {boot} resamples, scaled ×{full / boot:g})"
    print(f"  agentrel pass_hat_k, pass^{k}, 95%, {full} resamples: {t_peer:9.3f} s{scaled}")
    print(f"      {est.value:.4f} {fmt(est.ci_low, est.ci_high)}  (tasks and runs resampled)")
    if not est.ci_low <= est.value <= est.ci_high:
        print("      (outside its own value: a task's runs resampled give E C(c*, k)/C(n, k) = "
              "(c/n)^k ≥ C(c, k)/C(n, k), so its bootstrap is biased upward)")  # fmt: skip
    print(f"  passhat estimate(ci=0.95, percentile), population:  {t_ph:9.3f} s")
    print(f"      {row.value:.4f} {fmt(row.lower, row.upper)}  ({row.method.split(' (')[0]})")
    ratio = t_peer / t_ph
    print(f"  ratio agentrel / passhat: {ratio:,.0f}×")
    return ratio


def bench_passk(d: Data, mod: Any, repeat: int) -> float:
    """passk-inference's simultaneous band for pass@1..K against passhat's."""
    ks = list(range(1, d.runs + 1))
    draws_n = 4000

    def theirs() -> dict[str, Any]:
        rows = np.column_stack([mod.pass_at_k(d.c, d.n, k) for k in ks])
        return dict(mod.simultaneous_band(rows, bootstrap=draws_n, alpha=0.05, seed=0))

    def ours() -> tuple[np.ndarray, np.ndarray, float]:
        cols = [("pass_at_k", k) for k in ks]
        vals = column_values(d.n.astype(float), d.c.astype(float), cols)
        cats = compress(np.column_stack([d.n, d.c]), vals, np.ones(d.n.size))
        draws = draw_stats(cats, n_boot=draws_n, rng=np.random.default_rng(0))
        return simultaneous_band(draws, vals.mean(axis=0), ci=0.95)

    t_peer, band = cpu_time(theirs, repeat)
    t_ph, (lo, hi, crit) = cpu_time(ours, repeat)
    print(f"  passk-inference pass_at_k + simultaneous_band, k = 1..{ks[-1]}, {draws_n} draws: "
          f"{t_peer:9.4f} s (critical value {band['critical_value']:.3f})")  # fmt: skip
    print(f"  passhat column_values + task bootstrap + simultaneous_band:     "
          f"{t_ph:9.4f} s (critical value {crit:.3f})")  # fmt: skip
    for j in sorted({0, len(ks) // 2, len(ks) - 1}):
        theirs_j, ours_j = fmt(band["lower"][j], band["upper"][j]), fmt(lo[j], hi[j])
        print(f"      pass@{ks[j]}: {band['mean'][j]:.4f} passk {theirs_j}  passhat {ours_j}")
    ratio = t_peer / t_ph
    print(f"  ratio passk-inference / passhat: {ratio:,.1f}×")
    return ratio


def bench_evalstats(d: Data, mod: Any, repeat: int) -> tuple[float, float, float]:
    """evalstats' logit-t and BCa intervals of mean pass^k against passhat's."""
    from evalstats.core.resampling import bootstrap_ci_1d, logit_t_ci_1d

    k = d.runs // 2
    vals = column_values(d.n.astype(float), d.c.astype(float), [("pass_hat_k", k)])
    v = vals[:, 0]
    boot = 10_000
    t_es_lt, es_lt = cpu_time(lambda: logit_t_ci_1d(v, 0.05), repeat)
    t_es_bca, es_bca = cpu_time(
        lambda: bootstrap_ci_1d(v, float(v.mean()), "bca", boot, 0.05, np.random.default_rng(0)),
        repeat,
    )

    ones = np.ones(d.n.size)

    def ph_analytic() -> tuple[np.ndarray, np.ndarray, str]:  # on the per-task values, as evalstats
        return analytic_interval(vals, ones, ones, ci=0.95)

    t_ph_lt, (lo, hi, _) = cpu_time(ph_analytic, repeat)
    t_ph_bca, bca = cpu_time(
        lambda: task_bootstrap(vals, keys=np.column_stack([d.n, d.c]), n_boot=boot, seed=0),
        repeat,
    )
    print(f"  mean pass^{k} = {v.mean():.4f}, 95%:")
    print(f"  evalstats logit_t_ci_1d:           {t_es_lt:9.5f} s  {fmt(*es_lt)}")
    print(f"  passhat analytic_interval logit-t: {t_ph_lt:9.5f} s  {fmt(lo[0], hi[0])}")
    print(f"  evalstats bootstrap_ci_1d bca:     {t_es_bca:9.5f} s  {fmt(*es_bca)}  ({boot} draws)")
    print(f"  passhat task_bootstrap bca:        {t_ph_bca:9.5f} s  "
          f"{fmt(bca.lower.iloc[0], bca.upper.iloc[0])}  ({boot} draws)")  # fmt: skip
    own = t_es_bca / t_es_lt
    print(f"  ratios: evalstats BCa / evalstats logit-t {own:,.0f}×; evalstats / passhat: "
          f"logit-t {t_es_lt / t_ph_lt:,.1f}×, BCa {t_es_bca / t_ph_bca:,.1f}×")  # fmt: skip
    return own, t_es_lt / t_ph_lt, t_es_bca / t_ph_bca


def bench_own(d: Data, repeat: int) -> float:
    """passhat's own choice: estimate(ci=0.95) with the task bootstrap (BCa, 10,000 resamples,
    the default) against ci_method="analytic", k = 1..n."""
    counts = ph.counts_from_arrays(d.n, d.c)
    ks = list(range(1, d.runs + 1))
    t_bca, bca = cpu_time(lambda: ph.estimate(counts, k=ks, ci=0.95), repeat)
    t_ana, ana = cpu_time(lambda: ph.estimate(counts, k=ks, ci=0.95, ci_method="analytic"), repeat)
    pick = (bca.table.scope == "population") & (bca.table.metric == "pass_hat_k")
    b_row, a_row = bca.table[pick].iloc[-1], ana.table[pick].iloc[-1]
    print(f"  passhat estimate(k=1..{ks[-1]}, ci=0.95): BCa {t_bca:.3f} s, analytic {t_ana:.3f} s "
          f"({t_bca / t_ana:.1f}×); pass^{ks[-1]} population {fmt(b_row.lower, b_row.upper)} "
          f"vs {fmt(a_row.lower, a_row.upper)} ({a_row.method.split(' (')[0]})")  # fmt: skip
    return t_bca / t_ana


def versions() -> str:
    out = []
    for name in ["passhat", "numpy", *PEERS]:
        try:
            out.append(f"{name} {md.version(name)}")
        except md.PackageNotFoundError:
            out.append(f"{name} not installed")
    return ", ".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="*", default=[500, 5000])
    args = ap.parse_args(argv)
    print(f"peers benchmark (CPU seconds, best of {args.repeat}); {versions()}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    summary: dict[str, list[str]] = {name: [] for name in [*PEERS, "passhat BCa / analytic"]}
    benches = {
        "agentrel": bench_agentrel,
        "passk-inference": bench_passk,
        "evalstats": bench_evalstats,
    }
    mods = {name: peer(name) for name in PEERS}
    for d in datasets(args.sizes):
        print(f"\n== {d.label}")
        summary["passhat BCa / analytic"].append(f"{d.n.size}: {bench_own(d, args.repeat):,.1f}×")
        for name, fn in benches.items():
            if mods[name] is None:
                continue
            r = fn(d, mods[name], args.repeat)
            if isinstance(r, tuple):
                summary[name].append(
                    f"{d.n.size}: own BCa/logit-t {r[0]:,.0f}×, "
                    f"vs passhat logit-t {r[1]:,.1f}×, BCa {r[2]:,.1f}×"
                )
            else:
                summary[name].append(f"{d.n.size}: {r:,.1f}×")
    print("\nsummary (peer time / passhat time; tasks: ratio)")
    for name, parts in summary.items():
        print(f"  {name}: " + ("; ".join(parts) if parts else "skipped (not installed)"))
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
