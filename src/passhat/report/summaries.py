"""Every number of the report, with scope and method, as plain data (no I/O, no plotting).

:func:`build_report_data` turns trials (or a count table) and options into a
:class:`ReportData`: an ordered list of :class:`Section` s, each holding
plain-language sentences written from the numbers, :class:`Table` s whose
rows are raw numbers (formatting happens in the renderer) and the ids of the
figures that belong to it, plus the data the figures are drawn from and a
reproducibility stamp. The renderers (:mod:`passhat.report.render`) and
``results.json`` read only this object, so a number shown in the report is
the number in ``results.json``.

Optional sections are fed by optional inputs: the model section by a fit
(:mod:`passhat.model`, when that module exists), the plan section by the
planner (:mod:`passhat.planner`), and "Where failing runs diverge" by a
divergence result (``divergence=``, from the traces module). A section whose
source is absent says so (``status="skipped"`` with the reason) instead of
disappearing.

Examples
--------
>>> import passhat as ph
>>> from passhat.report.summaries import build_report_data
>>> rd = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, seed=0)
>>> [s.id for s in rd.sections][:3]
['data', 'headline', 'spread']
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import math
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from passhat._format import jsonable, pct, short
from passhat.errors import OptionError
from passhat.estimate import estimate as _estimate
from passhat.estimators import METRIC_LABELS, as_counts
from passhat.io import input_stamp
from passhat.spread import describe_row, fmt_ratio, spread
from passhat.trials import Trials

__all__ = [
    "Column",
    "ReportData",
    "Section",
    "Table",
    "build_report_data",
    "frame_table",
]

Fmt = Literal[
    "str", "int", "pct", "num", "ratio", "pts", "dpts", "g", "bool", "interval", "interval_num"
]

METRIC_LABEL = METRIC_LABELS

#: Flaky-task rows shown per system (all of them are in results.json).
MAX_FLAKY_ROWS = 60
#: Gap contributions shown per system.
MAX_CONTRIB_ROWS = 10
#: Titles of the optional sections (shared with the modules that fill them).
MODEL_TITLE = "4. Model"
PLAN_TITLE = "6. What to run next"


# ------------------------------------------------------------------ containers
@dataclass(frozen=True)
class Column:
    """A table column: key in the rows, header label, number format."""

    key: str
    label: str
    fmt: Fmt = "str"


@dataclass
class Table:
    """A real table: rows of raw values (numbers stay numbers)."""

    id: str
    caption: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    note: str = ""
    #: rows left out of the rendered table (all rows are in results.json)
    hidden_rows: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "caption": self.caption,
            "columns": [{"key": c.key, "label": c.label, "format": c.fmt} for c in self.columns],
            "rows": [jsonable(r) for r in self.rows],
            "note": self.note,
        }


@dataclass
class Section:
    """One section of the report."""

    id: str
    title: str
    sentences: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    status: Literal["ok", "skipped", "failed"] = "ok"
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "note": self.note,
            "sentences": list(self.sentences),
            "tables": [t.to_json() for t in self.tables],
            "figures": list(self.figures),
        }


@dataclass
class ReportData:
    """Everything the report shows.

    Attributes
    ----------
    title : str
    sections : list of Section
        In order: data, headline, spread, model, flaky, plan, divergence.
    figure_data : dict
        Tidy frames the figures are drawn from (``curve``, ``rates``,
        ``concentration``) and, when the model ran, the fit itself under
        ``fit`` (not serialised).
    figures : dict
        Figure id → (title, alt text), filled by the summaries so that the
        alt text is written from the numbers too.
    stamp : dict
        Input hashes, package versions, seed, settings (no timestamps).
    divergence : object, optional
        The traces module's divergence result, when given.
    """

    title: str
    sections: list[Section]
    figure_data: dict[str, Any]
    figures: dict[str, dict[str, str]]
    stamp: dict[str, Any]
    divergence: Any = None

    def section(self, section_id: str) -> Section:
        for s in self.sections:
            if s.id == section_id:
                return s
        raise KeyError(section_id)

    def to_json(self) -> dict[str, Any]:
        """The ``results.json`` document (deterministic: no timestamps)."""
        curve = self.figure_data.get("curve")
        return {
            "title": self.title,
            "stamp": jsonable(self.stamp),
            "sections": [s.to_json() for s in self.sections],
            "figures": {
                fid: {"title": f["title"], "alt": f["alt"]} for fid, f in self.figures.items()
            },
            "figure_data": {
                name: [jsonable(r) for r in frame.to_dict(orient="records")]
                for name, frame in (
                    ("curve", curve),
                    ("rates", self.figure_data.get("rates")),
                    ("concentration", self.figure_data.get("concentration")),
                )
                if isinstance(frame, pd.DataFrame)
            },
        }


# --------------------------------------------------------------------- helpers
def frame_rows(df: pd.DataFrame) -> list[dict[str, Any]]:
    """A data frame's rows as dicts with string keys (values stay raw)."""
    return [{str(k): v for k, v in r.items()} for r in df.to_dict(orient="records")]


def frame_table(
    df: pd.DataFrame,
    *,
    id: str,
    caption: str,
    formats: dict[str, Fmt] | None = None,
    labels: dict[str, str] | None = None,
    note: str = "",
) -> Table:
    """A :class:`Table` from any data frame (generic; used for optional sections)."""
    formats = formats or {}
    labels = labels or {}
    cols = []
    for c in df.columns:
        fmt = formats.get(str(c))
        if fmt is None:
            kind = df[c].dtype.kind
            fmt = (
                "int"
                if kind in "iu"
                else "num"
                if kind == "f"
                else "bool"
                if kind == "b"
                else "str"
            )
        cols.append(Column(str(c), labels.get(str(c), str(c)), fmt))
    return Table(id=id, caption=caption, columns=cols, rows=frame_rows(df), note=note)


def shown(metric: str, k: int, ks: list[int]) -> bool:
    """Whether the report shows ``metric`` at ``k``: the mean once (at the first k), pass@k
    and pass^k only for k > 1 (at k = 1 both equal the mean)."""
    return k == ks[0] if metric == "mean" else k != 1


def population_row(summary: pd.DataFrame, system: str, metric: str, k: int) -> pd.Series | None:
    """The population-scope row of a model summary for (system, metric, k), if any."""
    m = summary[
        (summary["system"] == system)
        & (summary["metric"] == metric)
        & (summary["k"] == k)
        & (summary["scope"] == "population")
    ]
    return m.iloc[0] if len(m) else None


def _rate_frame(systems: Any, tasks: Any, n: Any, c: Any, mask: Any) -> pd.DataFrame:
    """One row per (system, task) where ``mask[s, t]`` holds: n, c and the rate c/n."""
    rows = [
        {
            "system": str(systems[s]),
            "task": str(tasks[t]),
            "n": int(n[s, t]),
            "c": int(c[s, t]),
            "rate": float(c[s, t] / n[s, t]),
        }
        for s, t in zip(*np.nonzero(mask), strict=True)
    ]
    return pd.DataFrame(rows, columns=["system", "task", "n", "c", "rate"])


def _has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _package_versions(extra: Sequence[str] = ()) -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("passhat", "numpy", "scipy", "pandas", "xarray", "matplotlib", "jinja2", *extra):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def _data_hash(ds: xr.Dataset) -> str:
    """sha256 of the count table the report is computed from."""
    h = hashlib.sha256()
    for var in ("n", "c", "unscored"):
        h.update(np.ascontiguousarray(ds[var].values, dtype=np.int64).tobytes())
    for coord in ("system", "task"):
        h.update("\x1f".join(map(str, ds[coord].values)).encode())
    return h.hexdigest()


def _supports(func: Any, param: str) -> bool:
    return param in inspect.signature(func).parameters


# ------------------------------------------------------------------- sections
def _data_section(data: Trials | xr.Dataset, ds: xr.Dataset, est: Any) -> Section:
    systems = [str(s) for s in ds["system"].values]
    n = ds["n"].values
    present = ds["present"].values.astype(bool)
    rows = []
    for s, name in enumerate(systems):
        nn = n[s][present[s]]
        ex = est.excluded
        rows.append(
            {
                "system": name,
                "tasks": int(present[s].sum()),
                "included": int(est.summary["tasks"].iloc[s]),
                "runs": int(nn.sum()),
                "unscored": int(ds["unscored"].values[s].sum()),
                "runs_min": int(nn.min()) if nn.size else 0,
                "runs_median": float(np.median(nn)) if nn.size else math.nan,
                "runs_max": int(nn.max()) if nn.size else 0,
                "excluded_tasks": int((ex["system"] == name).sum()) if len(ex) else 0,
            }
        )
    systems_table = Table(
        id="data_systems",
        caption="Systems, tasks and decided runs (unscored runs are counted apart, not in n)",
        columns=[
            Column("system", "System"),
            Column("tasks", "Tasks run", "int"),
            Column("included", "Tasks in the averages", "int"),
            Column("runs", "Decided runs", "int"),
            Column("unscored", "Unscored runs", "int"),
            Column("runs_min", "Runs per task (min)", "int"),
            Column("runs_median", "(median)", "g"),
            Column("runs_max", "(max)", "int"),
            Column("excluded_tasks", "Excluded tasks", "int"),
        ],
        rows=rows,
    )
    dist_rows = []
    for s, name in enumerate(systems):
        vals, cnt = np.unique(n[s][present[s]], return_counts=True)
        for v, c in zip(vals, cnt, strict=True):
            dist_rows.append({"system": name, "runs": int(v), "tasks": int(c)})
    dist_table = Table(
        id="data_runs_per_task",
        caption="Distribution of decided runs per task",
        columns=[
            Column("system", "System"),
            Column("runs", "Decided runs n", "int"),
            Column("tasks", "Tasks", "int"),
        ],
        rows=dist_rows,
    )
    tables = [systems_table, dist_table]
    n_tasks = len(ds["task"])
    total_unscored = int(ds["unscored"].values.sum())
    all_n = n[present]
    sent = [
        f"{len(systems)} system{'s' if len(systems) != 1 else ''} on {n_tasks} tasks; "
        + (
            f"every task has {int(all_n.min())} decided runs."
            if all_n.min() == all_n.max()
            else f"decided runs per task range from {int(all_n.min())} to {int(all_n.max())} "
            f"(median {float(np.median(all_n)):g})."
        )
    ]
    if total_unscored:
        sent.append(
            f"{total_unscored} run(s) were not decided by the grader (unscored); they are "
            "reported apart and left out of n, so an outage does not read as agent failure."
        )
    else:
        sent.append("Every run was decided (no unscored runs).")
    if isinstance(data, Trials):
        from passhat.slices import slices as _slices

        fr = data.frame
        by = ["status"]
        if "category" in fr.columns and fr["category"].notna().all():
            by.append("category")
        sl = _slices(data, by=by)
        for key in by:
            st = sl.tables[key]
            tables.append(
                Table(
                    id=f"data_{key}",
                    caption=(
                        "Runs by status (slices): where failures and unscored runs come from"
                        if key == "status"
                        else "Runs by category (slices)"
                    ),
                    columns=[
                        Column("system", "System"),
                        Column(key, key.capitalize()),
                        Column("runs", "Runs", "int"),
                        Column("share_of_runs", "Share of runs", "pct"),
                        Column("decided", "Decided", "int"),
                        Column("failures", "Failed", "int"),
                        Column("share_of_failures", "Share of failures", "pct"),
                        Column("unscored", "Unscored (not in n)", "int"),
                        Column("success_rate", "Success rate of decided runs", "pct"),
                    ],
                    rows=frame_rows(st),
                    note="From passhat.slices. Unscored runs are neither passes nor failures.",
                )
            )
        st = sl.tables["status"]
        for system, part in st.groupby("system", sort=False):
            named = part[(part["status"] != "ok") & (part["failures"] > 0)]
            named = named.sort_values("share_of_failures", ascending=False, kind="stable")
            if len(named):
                sent.append(
                    f"{system}: {named['share_of_failures'].sum():.0%} of failed runs end in a "
                    "named status ("
                    + ", ".join(
                        f"{r.status} {r.share_of_failures:.0%}" for r in named.head(3).itertuples()
                    )
                    + ")."
                )
        ex = data.excluded
        if ex is not None and len(ex):
            tables.append(
                frame_table(
                    ex.astype(str),
                    id="data_reader_excluded",
                    caption="Rows the reader excluded, with reasons",
                )
            )
            sent.append(f"The reader excluded {len(ex)} row(s); the table lists each reason.")
    if len(est.excluded):
        tables.append(
            Table(
                id="data_excluded_tasks",
                caption="Tasks left out of the averages, with reasons",
                columns=[
                    Column("system", "System"),
                    Column("task", "Task"),
                    Column("n", "Decided runs", "int"),
                    Column("reason", "Reason"),
                ],
                rows=[
                    {"system": r.system, "task": r.task, "n": int(r.n), "reason": r.reason}
                    for r in est.excluded.itertuples()
                ],
            )
        )
        sent.append(f"{len(est.excluded)} task(s) were left out of the averages (listed below).")
    return Section(id="data", title="1. Data", sentences=sent, tables=tables)


def _interval_lookup(table: pd.DataFrame) -> dict[tuple[str, int, str, str], dict[str, Any]]:
    out: dict[tuple[str, int, str, str], dict[str, Any]] = {}
    if "scope" not in table.columns:
        return out
    for r in table.itertuples():
        out[(str(r.system), int(r.k), str(r.metric), str(r.scope))] = {
            "lower": float(r.lower),
            "upper": float(r.upper),
            "method": str(r.method),
        }
    return out


def _headline_section(
    est: Any, ks: list[int], ci: float | None, model_rows: pd.DataFrame | None
) -> Section:
    wide = est.wide()
    iv = _interval_lookup(est.table)
    rows = []
    flagged = []
    methods: dict[str, str] = {}
    for r in wide.itertuples():
        for metric in ("mean", "pass_at_k", "pass_hat_k"):
            if not shown(metric, int(r.k), ks):
                continue
            value = float(getattr(r, metric))
            row: dict[str, Any] = {
                "system": str(r.system),
                "k": int(r.k) if metric != "mean" else None,
                "metric": METRIC_LABEL[metric],
                "value": value,
            }
            for scope in ("benchmark", "population"):
                got = iv.get((str(r.system), int(r.k), metric, scope))
                if got:
                    row[f"{scope}_lower"] = got["lower"]
                    row[f"{scope}_upper"] = got["upper"]
                    row[f"{scope}_method"] = got["method"]
                    methods[scope] = got["method"]
            if model_rows is not None and len(model_rows):
                m = population_row(model_rows, str(r.system), metric, int(r.k))
                if m is not None:
                    row["model_mean"] = float(m["mean"])
                    row["model_lower"] = float(m["lower"])
                    row["model_upper"] = float(m["upper"])
                    row["model_method"] = str(m["method"]) + ", population scope"
                    lo, hi = row.get("population_lower"), row.get("population_upper")
                    agree = (
                        True
                        if lo is None
                        else not (row["model_upper"] < lo or row["model_lower"] > hi)
                    )
                    row["agree"] = "yes" if agree else "NO: intervals do not overlap"
                    if not agree:
                        flagged.append(f"{r.system} {METRIC_LABEL[metric]} (k = {int(r.k)})")
            rows.append(row)
    level = f"{ci:.0%}" if ci else ""
    cols = [
        Column("system", "System"),
        Column("metric", "Metric"),
        Column("k", "k", "int"),
        Column("value", "Estimate", "pct"),
    ]
    if methods:
        cols += [
            Column("benchmark", f"{level} interval, benchmark scope (these tasks)", "interval"),
            Column("population", f"{level} interval, population scope (new tasks)", "interval"),
        ]
    if model_rows is not None and len(model_rows):
        cols += [
            Column("model_mean", "Model posterior mean (population)", "pct"),
            Column("model", f"Model {level} interval", "interval"),
            Column("agree", "Estimator and model agree"),
        ]
    note = (
        " ".join(f"{scope.capitalize()} scope: {m}." for scope, m in sorted(methods.items()))
        or "Intervals are not available (passhat.estimate without ci=)."
    )
    table = Table(
        id="headline",
        caption="Mean success, pass@k and pass^k per system (unbiased per-task estimates, "
        "averaged over tasks)",
        columns=cols,
        rows=rows,
        note=note,
    )
    kmax = ks[-1]
    sent = []
    for r in wide[wide["k"] == kmax].itertuples():
        pop = iv.get((str(r.system), kmax, "pass_hat_k", "population"))
        pop_txt = (
            f" ({level} population interval {pct(pop['lower'])}–{pct(pop['upper'])})" if pop else ""
        )
        sent.append(
            f"{r.system}: mean success {pct(r.mean)} per run; pass^{kmax} = "
            f"{pct(r.pass_hat_k)}{pop_txt}, the share of tasks whose {kmax} runs all pass; "
            f"pass@{kmax} = {pct(r.pass_at_k)}, the share where at least one of {kmax} passes."
        )
    if methods:
        sent.append(
            "The benchmark interval covers only the finite runs of these tasks; the population "
            "interval also covers which tasks were drawn, so it is the one to use for a claim "
            "about new tasks."
        )
    if flagged:
        sent.append(
            "The estimator and the model disagree beyond their intervals for: "
            + ", ".join(flagged)
            + "."
        )
    elif model_rows is not None and len(model_rows):
        sent.append("The estimator and the model's posterior agree within their intervals.")
    return Section(id="headline", title="2. Headline", sentences=sent, tables=[table])


def _comparison_table(
    data: Trials | xr.Dataset,
    ks: list[int],
    ci: float,
    seed: int | None,
    n_boot: int,
    baseline: str,
) -> tuple[Table, list[str]] | None:
    iv_mod = importlib.import_module("passhat.compare")
    cmp = iv_mod.compare(
        data, k=ks, ci=ci, seed=seed, n_boot=n_boot, intersect=True, baseline=baseline
    )
    t = cmp.table
    t = t[t["scope"] == "population"] if "scope" in t.columns else t
    rows = []
    for r in t.to_dict(orient="records"):
        rows.append(
            {
                "baseline": r.get("baseline"),
                "candidate": r.get("candidate"),
                "metric": METRIC_LABEL.get(str(r.get("metric")), str(r.get("metric"))),
                "k": int(r["k"]) if r.get("metric") != "mean" else None,
                "difference": r.get("difference"),
                "diff_lower": r.get("lower"),
                "diff_upper": r.get("upper"),
                "p_value": r.get("p_value"),
                "tasks": r.get("tasks"),
                "method": r.get("method"),
            }
        )
    seen_mean: set[tuple[Any, Any]] = set()
    kept = []
    for r in rows:  # the mean does not depend on k: keep one row per pair
        if r["metric"] == "mean":
            key = (r["baseline"], r["candidate"])
            if key in seen_mean:
                continue
            seen_mean.add(key)
        elif r["k"] == 1 and r["metric"] in ("pass@k", "pass^k"):
            continue  # equal to the mean at k = 1
        kept.append(r)
    rows = kept
    table = Table(
        id="headline_compare",
        caption="Paired comparison on matched tasks (candidate − baseline), population scope",
        columns=[
            Column("baseline", "Baseline"),
            Column("candidate", "Candidate"),
            Column("metric", "Metric"),
            Column("k", "k", "int"),
            Column("difference", "Difference", "dpts"),
            Column("diff", f"{ci:.0%} interval", "interval"),
            Column("p_value", "p-value", "num"),
            Column("tasks", "Tasks", "int"),
        ],
        rows=rows,
        note=str(rows[0]["method"]) if rows else "",
    )
    sent = []
    kmax = ks[-1]
    for r in rows:
        if r["metric"] == "pass^k" and r["k"] == kmax:
            lo, hi = r["diff_lower"], r["diff_upper"]
            sig = (
                "the interval excludes zero"
                if lo is not None and (lo > 0 or hi < 0)
                else "the interval includes zero, so the data do not settle which is better"
            )
            sent.append(
                f"{r['candidate']} − {r['baseline']}: pass^{kmax} differs by "
                f"{r['difference'] * 100:+.1f} points ({ci:.0%} interval {lo * 100:+.1f} to "
                f"{hi * 100:+.1f}, p = {r['p_value']:.3g}); {sig}."
            )
    return table, sent


def _spread_section(sp: Any, ks: list[int], ci: float | None) -> Section:
    t = sp.table
    level = f"{ci:.0%}" if ci else ""
    rows = []
    for r in t.to_dict(orient="records"):
        row = dict(r)
        rows.append(row)
    cols = [
        Column("system", "System"),
        Column("k", "k", "int"),
        Column("mean", "Mean", "pct"),
        Column("pass_hat_k", "Measured pass^k", "pct"),
    ]
    if "pass_hat_k_lower" in t.columns:
        cols.append(Column("pass_hat_k_ci", f"{level} interval (population)", "interval"))
        for row in rows:
            row["pass_hat_k_ci_lower"] = row.pop("pass_hat_k_lower")
            row["pass_hat_k_ci_upper"] = row.pop("pass_hat_k_upper")
    cols += [
        Column("uniform", "Uniform spread mean^k", "pct"),
        Column("ratio", "pass^k / mean^k", "ratio"),
        Column("consistency", "Consistency pass^k / mean", "num"),
        Column("gap", "Gap mean − pass^k", "pts"),
        Column("tasks_for_80", "Tasks carrying 80% of the gap", "pct"),
    ]
    spread_table = Table(
        id="spread",
        caption="Measured pass^k against the uniform-spread reference mean^k",
        columns=cols,
        rows=rows,
        note=(
            "mean^k is what pass^k would be if every task had the same success rate. "
            "A ratio above 1 means failures cluster in some tasks."
        ),
    )
    sh = sp.shares
    share_table = Table(
        id="spread_shares",
        caption="Tasks whose decided runs all pass, all fail, or both (flaky)",
        columns=[
            Column("system", "System"),
            Column("tasks", "Tasks", "int"),
            Column("always_pass", "Always pass", "int"),
            Column("always_pass_share", "(share)", "pct"),
            Column("always_fail", "Always fail", "int"),
            Column("always_fail_share", "(share)", "pct"),
            Column("flaky", "Flaky (mixed)", "int"),
            Column("flaky_share", "(share)", "pct"),
        ],
        rows=sh.to_dict(orient="records"),
    )
    kmax = ks[-1]
    cb = sp.contributions
    cb = cb[cb["k"] == kmax]
    top_rows = []
    for system in t["system"].unique():
        part = cb[cb["system"] == system].head(MAX_CONTRIB_ROWS)
        for r in part.to_dict(orient="records"):
            top_rows.append(
                {
                    "system": r["system"],
                    "task": r["task"],
                    "n": int(r["n"]),
                    "c": int(r["c"]),
                    "contribution": float(r["contribution"]),
                    "share": float(r["share"]),
                    "cumulative": float(r["cumulative"]),
                }
            )
    contrib_table = Table(
        id="spread_contributions",
        caption=f"Tasks carrying the most of the gap mean − pass^{kmax} "
        f"(top {MAX_CONTRIB_ROWS} per system)",
        columns=[
            Column("system", "System"),
            Column("task", "Task"),
            Column("n", "Runs", "int"),
            Column("c", "Successes", "int"),
            Column("contribution", "Points of the gap", "pts"),
            Column("share", "Share of the gap", "pct"),
            Column("cumulative", "Cumulative share", "pct"),
        ],
        rows=top_rows,
        note="Each task contributes w·(c/n − C(c,k)/C(n,k)); tasks whose runs all agree "
        "contribute nothing.",
    )
    sent = []
    for system in t["system"].unique():
        row = t[(t["system"] == system) & (t["k"] == kmax)].iloc[0]
        sent.append(f"{system}: {describe_row(row)}")
    if len(t["system"].unique()) > 1:
        best = t[t["k"] == kmax].sort_values("consistency", ascending=False).iloc[0]
        sent.append(
            f"The most consistent system at k = {kmax} is {best['system']} "
            f"(pass^{kmax}/mean = {best['consistency']:.2f})."
        )
    return Section(
        id="spread",
        title="3. Clustered vs uniform spread",
        sentences=sent,
        tables=[spread_table, share_table, contrib_table],
        figures=["spread_curve", "rate_histogram", "gap_concentration"],
    )


def _flaky_section(est: Any, ks: list[int], ci: float | None) -> Section:
    tasks = est.tasks if isinstance(getattr(est, "tasks", None), pd.DataFrame) else pd.DataFrame()
    if tasks.empty:
        per = est.per_task
        n = per["n"].values
        c = per["c"].values
        mixed = per["included"].values.astype(bool) & (0 < c) & (c < n)
        flaky = _rate_frame(per["system"].values, per["task"].values, n, c, mixed)
        method = ""
    else:
        flaky = tasks[tasks["flaky"] & tasks["included"]].copy()
        method = str(flaky["method"].iloc[0]) if len(flaky) else ""
    order = {str(sys_): i for i, sys_ in enumerate(est.summary["system"])}
    flaky = flaky.sort_values("rate", kind="stable")  # ties keep the tasks' order
    flaky = flaky.sort_values("system", key=lambda c: c.map(order), kind="stable")
    has_iv = "rate_lower" in flaky.columns
    rows = []
    hidden = 0
    for system, part in flaky.groupby("system", sort=False):
        for i, r in enumerate(part.to_dict(orient="records")):
            row = {
                "system": system,
                "task": str(r["task"]),
                "n": int(r["n"]),
                "c": int(r["c"]),
                "rate": float(r["rate"]),
            }
            if has_iv:
                row["rate_lower"] = float(r["rate_lower"])
                row["rate_upper"] = float(r["rate_upper"])
                row["interval_method"] = method
            row["shown"] = i < MAX_FLAKY_ROWS
            hidden += int(i >= MAX_FLAKY_ROWS)
            rows.append(row)
    cols = [
        Column("system", "System"),
        Column("task", "Task"),
        Column("n", "Runs", "int"),
        Column("c", "Successes", "int"),
        Column("rate", "Success rate", "pct"),
    ]
    if has_iv:
        cols.append(Column("rate", f"{ci or 0.95:.0%} interval ({method})", "interval"))
    table = Table(
        id="flaky",
        caption="Flaky tasks (both outcomes among decided runs), lowest success rate first",
        columns=cols,
        rows=rows,
        hidden_rows=hidden,
        note=" ".join(
            x
            for x in (
                f"{hidden} more rows are in results.json." if hidden else "",
                f"Per-task interval: {method}." if method else "",
            )
            if x
        ),
    )
    counts = flaky.groupby("system", sort=False).size()
    sent = []
    if len(flaky) == 0:
        sent.append("No task had both outcomes: every task's decided runs agree.")
    for system, cnt in counts.items():
        part = flaky[flaky["system"] == system]
        if has_iv:
            width = (part["rate_upper"] - part["rate_lower"]).median()
            runs = (
                f"{int(part['n'].iloc[0])} runs each"
                if part["n"].nunique() == 1
                else f"a median of {part['n'].median():g} runs"
            )
            sent.append(
                f"{system}: {cnt} flaky task(s). With {runs}, a task's success rate is known "
                f"only to within a median interval width of {width:.0%}; more runs on these "
                "tasks narrow it (see What to run next)."
            )
        else:
            sent.append(f"{system}: {cnt} flaky task(s).")
    return Section(id="flaky", title="5. Flaky tasks", sentences=sent, tables=[table])


def _curve_frame(
    ds: xr.Dataset, kmax_curve: int, ci: float | None, seed: int | None, n_boot: int, weights: Any
) -> pd.DataFrame:
    ks = list(range(1, kmax_curve + 1))
    opts: dict[str, Any] = {"k": ks, "weights": weights, "on_short": "exclude"}
    if ci is not None:
        opts.update(ci=ci, seed=seed, n_boot=n_boot)
    est = _estimate(ds, **opts)
    wide = est.wide()
    iv = _interval_lookup(est.table)
    rows = []
    for r in wide.itertuples():
        for metric in ("pass_hat_k", "pass_at_k"):
            got = iv.get((str(r.system), int(r.k), metric, "population"), {})
            rows.append(
                {
                    "system": str(r.system),
                    "k": int(r.k),
                    "metric": metric,
                    "value": float(getattr(r, metric)),
                    "lower": got.get("lower", math.nan),
                    "upper": got.get("upper", math.nan),
                    "uniform": float(r.mean) ** int(r.k),
                    "mean": float(r.mean),
                }
            )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ the builder
def build_report_data(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] = (1, 2, 5),
    title: str | None = None,
    seed: int | None = 0,
    ci: float | None = 0.95,
    n_boot: int = 2000,
    weights: Any = None,
    on_short: Literal["error", "exclude"] = "error",
    min_runs: int | None = None,
    model: bool | Any = True,
    model_method: str = "grid",
    compare_models: bool = False,
    plan: bool = True,
    divergence: Any = None,
    baseline: str | None = None,
) -> ReportData:
    """Compute every number of the report.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        Trials, or a count table (then the status slices are omitted).
    k : int or sequence of int
        k values of the headline and spread tables.
    title : str, optional
        Report title (default: the input's name).
    seed : int, optional
        Seed of every random step (bootstrap, model sampler).
    ci : float, optional
        Interval level (None: no intervals).
    n_boot : int
        Bootstrap resamples.
    weights, on_short, min_runs
        As in :func:`passhat.estimate`.
    model : bool or fit
        Fit the hierarchical model (True), skip it (False), or use a given fit.
    model_method : str
        Method for the fit when ``model`` is True ("grid" is exact and fast).
    compare_models : bool
        Also fit the zero/one-inflated model (NUTS) and compare the two by
        PSIS-LOO (slower).
    plan : bool
        Include the planner's section when :mod:`passhat.planner` exists.
    divergence : object, optional
        Result of the traces module's divergence analysis (with ``.table``).
    baseline : str, optional
        The system the others are compared with (default: the first).

    Returns
    -------
    ReportData
    """
    ds = as_counts(data)
    est_opts: dict[str, Any] = {
        "k": k,
        "weights": weights,
        "on_short": on_short,
        "min_runs": min_runs,
    }
    has_ci = _supports(_estimate, "ci")
    if ci is not None and has_ci:
        est_opts.update(ci=ci, seed=seed, n_boot=n_boot)
    est = _estimate(ds, **est_opts)
    ks = [int(v) for v in est.settings["k"]]
    sp = spread(ds, k=ks, weights=weights, on_short=on_short, min_runs=min_runs)
    if "scope" in est.table.columns:
        _attach_spread_intervals(sp, est.table)
    notes: list[str] = []
    if ci is not None and not has_ci:
        notes.append("intervals are not available in this passhat version")
    systems = [str(s) for s in ds["system"].values]
    name = title or _default_title(data)

    if baseline is not None and baseline not in systems:  # before the (slow) model fit
        raise OptionError(
            f"baseline {baseline!r} is not a system of the data (have {', '.join(systems)})"
        )

    # ---- model (optional)
    model_section, model_rows, fit = _model_section(
        ds, model, ks, ci, seed, model_method, compare_models
    )

    sections = [_data_section(data, ds, est)]
    headline = _headline_section(est, ks, ci if has_ci else None, model_rows)
    if len(systems) > 1 and ci is not None and _has_module("passhat.intervals"):
        got = _comparison_table(ds, ks, ci, seed, n_boot, baseline or systems[0])
        if got is not None:
            headline.tables.append(got[0])
            headline.sentences.extend(got[1])
    sections.append(headline)
    sections.append(_spread_section(sp, ks, ci if has_ci else None))
    sections.append(model_section)
    sections.append(_flaky_section(est, ks, ci if has_ci else None))
    sections.append(_plan_section(plan, ds, fit, sp, ks))
    if divergence is not None:
        sections.append(_divergence_section(divergence))

    # ---- figure data
    inc = est.per_task["included"].values.astype(bool)
    n = ds["n"].values
    rates = _rate_frame(systems, ds["task"].values, n, ds["c"].values, inc)
    n_inc = n[inc]
    kmax_curve = int(max(ks[-1], min(int(n_inc.min()) if n_inc.size else 1, 20)))
    curve = (
        _curve_frame(ds, kmax_curve, ci if has_ci else None, seed, n_boot, weights)
        if n_inc.size
        else None
    )
    kmax = ks[-1]
    conc = sp.contributions[sp.contributions["k"] == kmax][
        ["system", "task", "contribution", "cumulative", "task_share"]
    ].reset_index(drop=True)
    figures = _figure_texts(sp, ks, curve, rates, kmax)
    if model_section.status == "ok" and fit is not None and _ppc_available():
        model_section.figures.append("ppc")
        ppc = fit.ppc()
        parts = []
        for system, part in ppc.groupby("system", sort=False):
            out = (part["observed"] < part["lower"]) | (part["observed"] > part["upper"])
            parts.append(
                f"{system}: {int(out.sum())} of {len(part)} bins outside the "
                f"{float(part['ci'].iloc[0]):.0%} predictive interval"
            )
        figures["ppc"] = {
            "title": "Posterior predictive check",
            "alt": "Bar chart per system of the observed number of tasks in each bin of c/n, "
            "with the model's replicated mean and interval as points with error bars. "
            + "; ".join(parts)
            + ".",
        }
    stamp = {
        "input": input_stamp(data),
        "counts_sha256": _data_hash(ds),
        "versions": _package_versions(("statsmodels", "pymc", "arviz") if fit is not None else ()),
        "seed": seed,
        "settings": {
            "k": ks,
            "ci": ci,
            "n_boot": n_boot,
            "weights": weights if isinstance(weights, str | None) else "mapping",
            "on_short": on_short,
            "min_runs": min_runs,
            "model": model_section.status == "ok",
            "model_method": model_method if fit is not None else None,
            "compare_models": compare_models,
            "baseline": baseline,
            "plan": plan,
            "title": name,
        },
        "notes": notes,
    }
    return ReportData(
        title=name,
        sections=sections,
        figure_data={"curve": curve, "rates": rates, "concentration": conc, "fit": fit},
        figures=figures,
        stamp=stamp,
        divergence=divergence,
    )


def _attach_spread_intervals(sp: Any, table: pd.DataFrame) -> None:
    """Add the population-scope pass^k interval of :func:`estimate` to the spread table."""
    iv = table[(table["metric"] == "pass_hat_k") & (table["scope"] == "population")]
    merged = sp.table.merge(
        iv[["system", "k", "lower", "upper", "method"]], on=["system", "k"], how="left"
    )
    sp.table["pass_hat_k_lower"] = merged["lower"].to_numpy()
    sp.table["pass_hat_k_upper"] = merged["upper"].to_numpy()
    sp.table["scope"] = "population"
    sp.table["method"] = merged["method"].to_numpy()


def _default_title(data: Trials | xr.Dataset) -> str:
    src = input_stamp(data)
    if "example" in src:
        return f"Reliability report: bundled example {src['example']!r}"
    if "path" in src:
        return f"Reliability report: {Path(src['path']).name}"
    return "Reliability report"


def _figure_texts(
    sp: Any, ks: list[int], curve: pd.DataFrame | None, rates: pd.DataFrame, kmax: int
) -> dict[str, dict[str, str]]:
    t = sp.table
    parts = []
    for system in t["system"].unique():
        r = t[(t["system"] == system) & (t["k"] == kmax)].iloc[0]
        parts.append(
            f"{system}: pass^{kmax} {pct(r['pass_hat_k'])} against mean^{kmax} "
            f"{pct(r['uniform'])} ({fmt_ratio(r['ratio'])}×), pass@{kmax} {pct(r['pass_at_k'])}"
        )
    kc = int(curve["k"].max()) if curve is not None and len(curve) else kmax
    hist = []
    for system, part in rates.groupby("system", sort=False):
        hist.append(
            f"{system}: {(part['rate'] == 1).mean():.0%} of tasks at 100%, "
            f"{(part['rate'] == 0).mean():.0%} at 0%, "
            f"{((part['rate'] > 0) & (part['rate'] < 1)).mean():.0%} in between"
        )
    conc = []
    for system in t["system"].unique():
        r = t[(t["system"] == system) & (t["k"] == kmax)].iloc[0]
        conc.append(
            f"{system}: {pct(r['tasks_for_50'])} of tasks carry half of the "
            f"{r['gap'] * 100:.1f}-point gap and {pct(r['tasks_for_100'])} carry all of it"
        )
    return {
        "spread_curve": {
            "title": f"pass^k and pass@k over k = 1..{kc}, with the uniform-spread curve mean^k",
            "alt": "Line chart of pass^k (falling) and pass@k (rising) against k, with shaded "
            "population-scope intervals and a dashed mean^k curve per system. "
            + "; ".join(parts)
            + ".",
        },
        "rate_histogram": {
            "title": "Per-task success rates c/n",
            "alt": "Histogram of per-task success rates per system. " + "; ".join(hist) + ".",
        },
        "gap_concentration": {
            "title": f"Which tasks carry the gap mean − pass^{kmax}",
            "alt": "Cumulative share of the gap against the share of tasks, worst first. "
            + "; ".join(conc)
            + ".",
        },
    }


# ----------------------------------------------------------- optional sections
def _ppc_available() -> bool:
    if not _has_module("passhat.report.plots"):
        return False
    plots = importlib.import_module("passhat.report.plots")
    return hasattr(plots, "plot_ppc")


def _model_section(
    data: Trials | xr.Dataset,
    model: bool | Any,
    ks: list[int],
    ci: float | None,
    seed: int | None,
    method: str,
    compare: bool = False,
) -> tuple[Section, pd.DataFrame | None, Any]:
    skipped = ""
    if model is False:
        skipped = "The model was not run (--no-model)."
    elif model is True and not _has_module("passhat.model"):
        skipped = "The hierarchical model is not available in this passhat version."
    if skipped:
        return Section(id="model", title=MODEL_TITLE, status="skipped", note=skipped), None, None
    model_part = importlib.import_module("passhat.report._model")

    return model_part.model_section(data, model, ks, ci, seed, method, compare=compare)


def _plan_section(plan: bool, data: Any, fit: Any, sp: Any, ks: list[int]) -> Section:
    skipped = ""
    if not plan:
        skipped = "Planning was not asked for."
    elif not _has_module("passhat.planner"):
        skipped = "The planner is not available in this passhat version."
    if skipped:
        return Section(id="plan", title=PLAN_TITLE, status="skipped", note=skipped)
    plan_part = importlib.import_module("passhat.report._plan")

    return plan_part.plan_section(data, fit, sp, ks)


#: Columns of the traces module's divergence table shown in the report, when present.
DIVERGENCE_COLUMNS = {
    "system": ("System", "str"),
    "task_id": ("Task", "str"),
    "trial": ("Failing run", "int"),
    "step": ("Step", "int"),
    "kind": ("What differs", "str"),
    "failing_action": ("Failing run does", "str"),
    "passing_actions": ("Passing runs do", "str"),
    "termination": ("Ends by", "str"),
}
MAX_DIVERGENCE_ROWS = 100


def _divergence_section(divergence: Any) -> Section:
    """Hook for the traces module: any object with a ``table`` (and ``by_action``) frame."""
    tables = []
    sentences = list(getattr(divergence, "sentences", []) or [])
    table = getattr(divergence, "table", None)
    if isinstance(table, pd.DataFrame) and len(table):
        cols = [c for c in DIVERGENCE_COLUMNS if c in table.columns]
        if "system" in cols and table["system"].nunique() == 1:
            cols.remove("system")  # one system: the column says nothing
        if len(cols) >= 4:
            shown = table[cols].head(MAX_DIVERGENCE_ROWS).map(short)
            t = Table(
                id="divergence_table",
                caption="Divergence point of each failing run of a flaky task",
                columns=[
                    Column(c, DIVERGENCE_COLUMNS[c][0], DIVERGENCE_COLUMNS[c][1])  # type: ignore[arg-type]
                    for c in cols
                ],
                rows=frame_rows(shown),
                note=(
                    f"{len(table) - MAX_DIVERGENCE_ROWS} more rows in the traces output."
                    if len(table) > MAX_DIVERGENCE_ROWS
                    else ""
                ),
            )
        else:
            t = frame_table(
                table.head(MAX_DIVERGENCE_ROWS).map(short),
                id="divergence_table",
                caption="Divergence point of each failing run of a flaky task",
            )
        tables.append(t)
        if not sentences and "kind" in table.columns:
            kinds = table["kind"].value_counts()
            sentences.append(
                f"{len(table)} failing run(s) of flaky tasks were aligned against the passing "
                "runs of the same task. How the failing run departs at its divergence point: "
                + ", ".join(f"{kind} {n}" for kind, n in kinds.items())
                + "."
            )
    by_action = getattr(divergence, "by_action", None)
    if isinstance(by_action, pd.DataFrame) and len(by_action):
        tables.append(
            frame_table(
                by_action.head(20).map(short),
                id="divergence_by_action",
                caption="Actions that most often mark the divergence",
                formats={"share": "pct"},
                labels={
                    "action": "Action",
                    "stage": "Stage",
                    "runs": "Failing runs",
                    "tasks": "Tasks",
                    "share": "Share of failing runs",
                    "kinds": "How the failing runs depart",
                },
            )
        )
        if "action" in by_action.columns and "share" in by_action.columns:
            top = by_action.iloc[0]
            sentences.append(
                f"The most frequent divergence point is {top['action']} "
                f"({float(top['share']):.0%} of failing runs)."
            )
    if not tables and not sentences:
        raise OptionError(
            "divergence= needs an object with a non-empty .table or .by_action data frame"
        )
    return Section(
        id="divergence",
        title="7. Where failing runs diverge",
        sentences=sentences
        or ["The earliest point where each failing run does something no passing run does."],
        tables=tables,
        note="A divergence point is a diagnostic lead, not proof of cause: check the arguments "
        "and observations, then test a fix.",
    )
