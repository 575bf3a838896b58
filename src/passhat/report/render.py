"""Render a :class:`~passhat.report.document.ReportData` to HTML, Markdown, figures and JSON.

``write_report(data, out_dir)`` writes

* ``index.html``: one self-contained file (CSS inline, PNG figures embedded
  as base64, no scripts, no external resources), every input string escaped
  by Jinja2's autoescaping;
* ``report.md`` with ``figures/*.png`` and ``figures/*.svg``;
* ``results.json``: every number with scope and method, and the
  reproducibility stamp. It holds no timestamps, so the same input and seed
  give a byte-identical file. Its size follows the distinct (n, c) pairs and
  the sections, not the number of tasks;
* ``tasks.parquet``: one row per (system, task) — counts, rate and interval,
  flags, inclusion and share of the gap — for any number of tasks;
* ``.passhat-manifest.json``: which files passhat wrote (see :mod:`passhat._write`).

Names from the data are shown literally everywhere: escaped for HTML and
Markdown, control and invisible characters made visible
(:func:`passhat._format.printable`), and, in figures, never read as mathtext.
The directory is written through :func:`passhat._write.write_tree`: all files
or none, never over an input or a file passhat did not write.
"""

from __future__ import annotations

import base64
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from passhat._format import fixed, fmt_ratio, jsonable, p_text, printable, short_names
from passhat._paper import md_escape
from passhat._write import FileContent, check_tree, input_paths, write_tree
from passhat.report.document import Column, ReportData
from passhat.report.plots import plot_gap, plot_ppc, plot_rates, plot_spread
from passhat.report.plots_rank import plot_pairwise, plot_rank_intervals
from passhat.report.plots_scores import plot_threshold_curve

__all__ = [
    "OPEN_TABLES",
    "REPORT_NAMES",
    "RenderedFigure",
    "ReportPaths",
    "check_report_dir",
    "draw_figures",
    "format_cell",
    "report_files",
    "tasks_parquet",
    "write_report",
]

#: What a report directory holds (passhat owns these names there; other files are left alone).
#: A section that writes one more file adds its name here and its content in :func:`report_files`.
REPORT_NAMES = ("index.html", "report.md", "results.json", "tasks.parquet", "figures")

#: Tables shown open on the page; every other table (long lists, diagnostics, per-run detail)
#: is folded under its caption (``<details>``) in HTML and Markdown alike.
OPEN_TABLES = frozenset(
    {
        "summary",
        "data_systems",
        "data_status",
        "headline",
        "headline_compare",
        "spread",
        "spread_shares",
        "model_hyper",
        "plan_tasks",
        "plan_design",
        "divergence_by_action",
        "scores",
        "grader_correction",
    }
)


@dataclass(frozen=True)
class RenderedFigure:
    """A figure as PNG and SVG bytes, with its title and alt text."""

    id: str
    title: str
    alt: str
    png: bytes
    svg: bytes
    width: int
    height: int

    @property
    def png_b64(self) -> str:
        from markupsafe import Markup  # HTML-safe ASCII: printed whole, never shortened

        return Markup(base64.b64encode(self.png).decode("ascii"))


@dataclass(frozen=True)
class ReportPaths:
    """Where the report files are."""

    out_dir: Path
    html: Path
    markdown: Path
    json: Path
    figures: tuple[Path, ...]
    tasks: Path | None = None


# ----------------------------------------------------------------- formatting
def _missing(x: Any) -> bool:
    if x is None or x is pd.NA:
        return True
    return isinstance(x, float) and math.isnan(x)


def _num(x: Any, fmt: str) -> str:
    if _missing(x):
        return "—"
    if fmt == "pct":
        return f"{float(x):.1%}"
    if fmt == "pts":
        return f"{float(x) * 100:+.1f} pts" if float(x) < 0 else f"{float(x) * 100:.1f} pts"
    if fmt == "dpts":
        return f"{float(x) * 100:+.1f} pts"
    if fmt == "g":
        return f"{float(x):g}"
    if fmt == "ratio":
        return fmt_ratio(float(x)) + "×"
    if fmt == "int":
        return str(int(x))
    if fmt == "num":
        v = float(x)
        if v != 0 and abs(v) < 0.001:
            return f"{v:.2g}"
        return f"{v:.3f}" if abs(v) < 10 else f"{v:.4g}"
    if fmt == "p":
        return p_text(float(x))
    if fmt == "amount":
        return _amount(float(x))
    if fmt == "bool":
        return "yes" if bool(x) else "no"
    return str(x)


def _amount(x: float) -> str:
    """A cost or a rate per unit cost: 4 significant digits, "∞" when unbounded."""
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.4g}"


def format_cell(row: dict[str, Any], col: Column) -> str:
    """The text of one table cell (intervals read ``<key>_lower`` / ``<key>_upper``).

    Examples
    --------
    >>> format_cell({"rate": 0.4256}, Column("rate", "Rate", "pct"))
    '42.6%'
    >>> format_cell({"rate_lower": 0.1, "rate_upper": 0.25}, Column("rate", "", "interval"))
    '10.0% – 25.0%'
    >>> format_cell({"rate": 0.2, "rate_lower": 0.1, "rate_upper": 0.32},
    ...             Column("rate", "", "pct_interval"))
    '20.0% (10.0% – 32.0%)'
    >>> format_cell({"c": 0.0615, "c_lower": 0.0491, "c_upper": float("inf")},
    ...             Column("c", "", "amount_interval"))
    '0.0615 (0.0491 – ∞)'
    """
    if col.fmt == "amount_interval":
        value = _num(row.get(col.key), "amount")
        lo, hi = row.get(f"{col.key}_lower"), row.get(f"{col.key}_upper")
        if value == "—" or _missing(lo) or _missing(hi):
            return value
        return f"{value} ({_num(lo, 'amount')} – {_num(hi, 'amount')})"
    if col.fmt == "pct_interval":
        value = _num(row.get(col.key), "pct")
        lo, hi = row.get(f"{col.key}_lower"), row.get(f"{col.key}_upper")
        if value == "—" or _missing(lo) or _missing(hi):
            return value
        return f"{value} ({float(lo):.1%} – {float(hi):.1%})"  # type: ignore[arg-type]
    if col.fmt in ("interval", "interval_num", "interval_fixed"):
        lo_raw, hi_raw = row.get(f"{col.key}_lower"), row.get(f"{col.key}_upper")
        if _missing(lo_raw) or _missing(hi_raw):
            return "—"
        lo, hi = float(lo_raw), float(hi_raw)  # type: ignore[arg-type]
        if col.key == "diff":
            return f"{lo * 100:+.1f} to {hi * 100:+.1f} pts"
        if col.fmt == "interval_num":
            return f"{lo:.4g} – {hi:.4g}"
        if col.fmt == "interval_fixed":
            return f"{fixed(lo)} – {fixed(hi)}"
        return f"{float(lo):.1%} – {float(hi):.1%}"
    return _num(row.get(col.key), col.fmt)


def _code(value: Any) -> str:
    return str(value).replace("`", "'").replace("\n", " ")


# -------------------------------------------------------------------- figures
def draw_figures(data: ReportData) -> dict[str, RenderedFigure]:
    """Draw every figure the report refers to, as PNG and SVG bytes.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import build_report_data
    >>> rd = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, plan=False)
    >>> sorted(draw_figures(rd))
    ['gap_concentration', 'rate_histogram', 'spread_curve']
    """
    out: dict[str, RenderedFigure] = {}
    fd = data.figure_data
    makers: dict[str, Any] = {}
    curve = fd.get("curve")
    if isinstance(curve, pd.DataFrame) and len(curve):
        makers["spread_curve"] = lambda: plot_spread(curve)
    rates = fd.get("rates")
    if isinstance(rates, pd.DataFrame) and len(rates):
        makers["rate_histogram"] = lambda: plot_rates(rates)
    conc = fd.get("concentration")
    if isinstance(conc, pd.DataFrame) and isinstance(rates, pd.DataFrame):
        tasks = {str(s): int(n) for s, n in rates.groupby("system", sort=False).size().items()}
        makers["gap_concentration"] = lambda: plot_gap(conc, tasks=tasks)
    ranking = fd.get("ranking")
    if ranking is not None:
        same = fd.get("rank_values") or {}
        makers["rank_intervals"] = lambda: plot_rank_intervals(ranking, intervals=same)
        makers["pairwise_differences"] = lambda: plot_pairwise(ranking)
    threshold = fd.get("threshold_curve")
    if isinstance(threshold, pd.DataFrame) and len(threshold):
        makers["threshold_curve"] = lambda: plot_threshold_curve(threshold)
    if "ppc" in data.figures and fd.get("fit") is not None:
        makers["ppc"] = lambda: plot_ppc(fd["fit"])  # type: ignore[attr-defined]
    for fid, make in makers.items():
        meta = data.figures.get(fid, {"title": fid, "alt": fid})
        fig = make()
        fig = getattr(fig, "figure", fig)  # an Axes → its Figure
        png, svg = io.BytesIO(), io.BytesIO()
        fig.savefig(png, format="png", dpi=110, metadata={"Software": None})
        with _svg_salt():  # stable element ids: same input → same SVG
            fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
        w, h = fig.get_size_inches() * 110
        out[fid] = RenderedFigure(
            id=fid,
            title=meta["title"],
            alt=meta["alt"],
            png=png.getvalue(),
            svg=svg.getvalue(),
            width=round(float(w)),
            height=round(float(h)),
        )
    return out


def _svg_salt() -> Any:
    import matplotlib

    return matplotlib.rc_context({"svg.hashsalt": "passhat"})


# ------------------------------------------------------------------ templates
def _literal(value: Any) -> Any:
    """Jinja's ``finalize``: every value a template prints shows control characters literally
    (``\\x00``, ``\\u202e``); HTML-safe markup stays markup (the escapes add no ``<&>``)."""
    from markupsafe import Markup

    if isinstance(value, Markup):
        return Markup(printable(str(value), keep_newlines=True))
    if isinstance(value, str):  # a name of 10^5 characters is shortened (results.json has it)
        return short_names(printable(value, keep_newlines=True))
    return value


def _env(autoescape: bool) -> Any:
    import jinja2

    env = jinja2.Environment(
        finalize=_literal,
        loader=jinja2.PackageLoader("passhat.report", "templates"),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
        lstrip_blocks=False,
    )
    env.filters["md"] = md_escape
    env.filters["code"] = _code
    env.globals["cell"] = format_cell
    env.globals["row_count"] = _row_count
    return env


def _row_count(table: Any) -> str:
    """ "1 row", "26 rows": the rows a folded table shows."""
    n = sum(bool(r.get("shown", True)) for r in table.rows)
    return f"{n} row" if n == 1 else f"{n} rows"


def _stamp_items(data: ReportData) -> list[tuple[str, str]]:
    st = data.stamp
    items = [(f"input {k}", str(v)) for k, v in st.get("input", {}).items()]
    items.append(("count table sha256", str(st.get("counts_sha256"))))
    items.append(("seed", str(st.get("seed"))))
    items.append(
        (
            "settings",
            json.dumps(st.get("settings", {}), sort_keys=True, default=str, ensure_ascii=False),
        )
    )
    items.append(("versions", ", ".join(f"{k} {v}" for k, v in st.get("versions", {}).items())))
    return items


def _context(data: ReportData, figures: dict[str, RenderedFigure]) -> dict[str, Any]:
    from passhat._version import __version__

    return {
        "title": data.title,
        "version": __version__,
        "seed": data.stamp.get("seed"),
        "ks": data.stamp.get("settings", {}).get("k", []),
        "sections": data.sections,
        "figures": figures,
        "stamp_items": _stamp_items(data),
        "open_tables": OPEN_TABLES,
    }


def render_html(data: ReportData, figures: dict[str, RenderedFigure]) -> str:
    """The self-contained HTML page (figures embedded as base64 PNG).

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import build_report_data
    >>> rd = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, plan=False)
    >>> render_html(rd, {}).startswith("<!DOCTYPE html>")
    True
    """
    return str(_env(True).get_template("report.html.j2").render(**_context(data, figures)))


def render_markdown(data: ReportData, figures: dict[str, RenderedFigure]) -> str:
    """The Markdown report (figures referenced as ``figures/<id>.png``).

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import build_report_data
    >>> rd = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, plan=False)
    >>> render_markdown(rd, {}).splitlines()[0]
    "# Reliability report: bundled example 'abcd'"
    """
    text = str(_env(False).get_template("report.md.j2").render(**_context(data, figures)))
    return re.sub(r"\n{3,}", "\n\n", text)


def results_json(data: ReportData) -> str:
    """``results.json`` text: deterministic (sorted nothing, no timestamps).

    Examples
    --------
    >>> import json, passhat as ph
    >>> from passhat.report.build import build_report_data
    >>> rd = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, plan=False)
    >>> json.loads(results_json(rd))["stamp"]["settings"]["k"]
    [1, 2]
    """
    doc = jsonable(data.to_json())
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def check_report_dir(
    out_dir: str | Path, *, inputs: Sequence[Any] = (), force: bool = False
) -> Path:
    """Refuse a report directory before any work (see :func:`passhat._write.check_tree`).

    ``inputs`` are what the report reads (paths, Trials, count tables, Traces): never written
    over. Without ``force``, a directory holding ``index.html``, ``report.md``,
    ``results.json`` or ``figures/`` that passhat did not write is refused.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> check_report_dir(d / "new") == d / "new"
    True
    """
    return check_tree(out_dir, owned=REPORT_NAMES, inputs=input_paths(*inputs), force=force)


def report_files(data: ReportData, figures: dict[str, RenderedFigure]) -> dict[str, FileContent]:
    """Every file of the report directory: relative path → content.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import build_report_data
    >>> rd = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, plan=False)
    >>> sorted(report_files(rd, {}))
    ['index.html', 'report.md', 'results.json', 'tasks.parquet']
    """
    files: dict[str, FileContent] = {}
    for fid, f in figures.items():
        files[f"figures/{fid}.png"] = f.png
        files[f"figures/{fid}.svg"] = f.svg
    files["index.html"] = render_html(data, figures)
    files["report.md"] = render_markdown(data, figures)
    files["results.json"] = results_json(data)
    if data.tasks is not None:
        files["tasks.parquet"] = tasks_parquet(data.tasks)
    return files


def write_report(
    data: ReportData,
    out_dir: str | Path,
    *,
    inputs: Sequence[Any] = (),
    force: bool = False,
) -> ReportPaths:
    """Write ``index.html``, ``report.md``, ``figures/`` and ``results.json`` into ``out_dir``.

    All or nothing: the files are rendered first, then written through
    :func:`passhat._write.write_tree`, so a reader of ``out_dir`` sees the previous complete
    report or the new one, and the previous report's files that this one lacks are removed.

    Parameters
    ----------
    data : ReportData
    out_dir : str or Path
        The report directory (created when missing).
    inputs : sequence
        What the report read (paths, Trials, count tables, Traces): never written over.
    force : bool
        Replace files of the report's names that passhat did not write.

    Examples
    --------
    >>> import passhat as ph, tempfile
    >>> from passhat.report.build import build_report_data
    >>> rd = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, plan=False)
    >>> paths = write_report(rd, tempfile.mkdtemp())
    >>> paths.html.name, paths.json.name
    ('index.html', 'results.json')
    """
    check_report_dir(out_dir, inputs=inputs, force=force)
    figures = draw_figures(data)
    files = report_files(data, figures)
    written = write_tree(
        out_dir, files, owned=REPORT_NAMES, inputs=input_paths(*inputs), force=force
    )
    out = Path(out_dir)
    return ReportPaths(
        out_dir=out,
        html=out / "index.html",
        markdown=out / "report.md",
        json=out / "results.json",
        figures=tuple(out / rel for rel in written if rel.startswith("figures/")),
        tasks=out / "tasks.parquet" if "tasks.parquet" in files else None,
    )


def tasks_parquet(tasks: pd.DataFrame) -> bytes:
    """The per-task detail as Parquet bytes (one row per system and task; ids as text).

    Examples
    --------
    >>> import pandas as pd, io
    >>> raw = tasks_parquet(pd.DataFrame({"system": ["s"], "task": ["a"], "n": [5], "c": [4]}))
    >>> pd.read_parquet(io.BytesIO(raw))["c"].tolist()
    [4]
    """
    df = tasks.copy(deep=False)  # columns are replaced, never changed in place
    for col in df.columns:
        if df[col].dtype == object:
            df[col] = df[col].map(lambda v: v if v is None or isinstance(v, str) else str(v))
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()
