"""A small fuzz of hostile names through every output passhat writes (issue 13, items 6, 7, 10).

Names from data are data: rich markup (``[/x]`` crashed five commands with a MarkupError;
``[red]t2[/red]`` was shown as ``t2``; ``[link=…]`` made a hyperlink), terminal escape sequences,
mathtext (``v1 $x^$`` killed ``report``), NUL (written raw into index.html and report.md),
right-to-left and zero-width marks, HTML and Markdown metacharacters, very long names.

Oracles:
* terminal text, CSV and messages hold no raw control or invisible character (the check is
  :func:`passhat._format.printable`, itself checked against :mod:`unicodedata`), and show each
  name in its printable form; JSON gives every name back exactly;
* the HTML page and the Markdown have the same *structure* (tags and attributes; Markdown
  tokens) as the same report with plain placeholder names: a name never adds an element;
* figures drawn with ``svg.fonttype = none`` keep text as text: each name appears literally,
  never as a formula.

Names with invisible characters may be refused when read (exit 2, one clean line) — the input
reader's rule; everything else must succeed.
"""

from __future__ import annotations

import dataclasses
import html
import importlib
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import matplotlib
import pandas as pd
import pytest
from markdown_it import MarkdownIt

import passhat as ph
from passhat._format import printable, short, short_names
from passhat.cli import main
from passhat.report.build import build_report_data
from passhat.report.render import (
    draw_figures,
    render_html,
    render_markdown,
    results_json,
    tasks_parquet,
)

plots = importlib.import_module("passhat.report.plots")

#: Shown as they read: markup, mathtext, HTML, Markdown, format strings, very long.
VISIBLE = {
    "markup_close": "[/x]",
    "markup_style": "[red]t2[/red]",
    "markup_link": "[link=https://evil.example]click[/link]",
    "emoji_code": "agent :smile: v2",
    "mathtext_broken": "v1 $x^$",
    "mathtext_valid": r"$\alpha$ agent",
    "html": "<script>alert(1)</script>",
    "html_entity": "&amp; &lt;b&gt;",
    "markdown": "a|b`c*d_e # [x](https://y) ~~z~~ <!--",
    "format": "%s {0} {{7*7}}",
    "long": "L" * 3000,
}
#: Characters that are not shown: escapes, NUL, bidi and zero-width marks, line breaks.
INVISIBLE = {
    "ansi_sgr": "e\x1b[31mred\x1b[0m",
    "osc_hyperlink": "\x1b]8;;https://evil.example\x1b\\x\x1b]8;;\x1b\\",
    "osc_title": "\x1b]0;pwned\x07t",
    "bell_backspace": "a\x07\x08b",
    "nul": "nul\x00id",
    "rtl_override": "rtl\u202egnp.exe",
    "zero_width": "zw\u200bsp",
    "newline": "line\nbreak\r",
    "c1_csi": "c1\x9b31m",
}
VISIBLE_SYSTEMS = ["[/x]", "[red]t2[/red]", "v1 $x^$", "<script>alert(1)</script>"]
INVISIBLE_SYSTEMS = ["e\x1b[31mred\x1b[0m", "nul\x00id", "rtl\u202egnp.exe"]


def clean(text: str) -> bool:
    """No raw control or invisible character besides line feeds and tabs."""
    return printable(text, keep_newlines=True) == text


def trial_rows(systems: list[str], tasks: list[str]) -> list[dict[str, Any]]:
    """Every system × task × 4 runs, outcomes mixed so that every section has something."""
    rows = []
    for i, system in enumerate(systems):
        for t, task in enumerate(tasks):
            for r in range(4):
                ok = (r + t + i) % 4 != 0 if t % 3 else (t + i) % 2 == 0
                rows.append({"system": system, "task_id": task, "trial": r, "success": ok})
    return rows


def step_rows(system: str, tasks: list[str], tools: list[str]) -> list[dict[str, Any]]:
    """Steps of two passing runs and a failing run per task; the failing one calls another tool."""
    rows = []
    for t, task in enumerate(tasks):
        for trial, ok in ((0, True), (1, True), (2, False)):
            first, then = tools[t % len(tools)], tools[(t + 1) % len(tools)]
            for action in (first, then if ok else "cancel"):
                rows.append(
                    {
                        "system": system,
                        "task_id": task,
                        "trial": trial,
                        "action": action,
                        "args": {"q": task[:20]},
                        "success": ok,
                    }
                )
    return rows


def jsonl(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module", params=["visible", "invisible"])
def dataset(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    kind = request.param
    names = VISIBLE if kind == "visible" else INVISIBLE
    systems = [*(VISIBLE_SYSTEMS if kind == "visible" else INVISIBLE_SYSTEMS), "plain"]
    tasks = [*names.values(), "t-plain-1", "t-plain-2"]
    d = tmp_path_factory.mktemp(f"hostile_{kind}")
    return {
        "kind": kind,
        "systems": systems,
        "tasks": tasks,
        "runs": jsonl(d / "runs.jsonl", trial_rows(systems, tasks)),
        # one candidate against "plain" (the per-task verdicts compare two systems)
        "pair": jsonl(d / "pair.jsonl", trial_rows([systems[0], "plain"], tasks)),
        "steps": jsonl(d / "steps.jsonl", step_rows(systems[0], tasks, systems[:2])),
        "dir": d,
        # a name given on the command line must be visible (argv cannot hold NUL)
        "base": "plain",
        "plan_system": systems[0] if kind == "visible" else "plain",
    }


COMMANDS = {
    "estimate": ["estimate", "{runs}", "--format", "jsonl", "--k", "1,2"],
    "estimate-ci-tasks": [
        "estimate",
        "{runs}",
        "--format",
        "jsonl",
        "--k",
        "2",
        "--ci",
        "0.9",
        "--per-task",
        "--n-boot",
        "200",
        "--seed",
        "0",
    ],
    "compare": [
        "compare",
        "{runs}",
        "--format",
        "jsonl",
        "--baseline",
        "{base}",
        "--n-boot",
        "200",
        "--seed",
        "0",
    ],
    "compare-classify": [
        "compare",
        "{pair}",
        "--format",
        "jsonl",
        "--baseline",
        "{base}",
        "--classify",
        "--min-runs",
        "2",
    ],
    "slices": ["slices", "{runs}", "--format", "jsonl"],
    "spread": ["spread", "{runs}", "--format", "jsonl", "--k", "1,2"],
    "fit": [
        "fit",
        "{runs}",
        "--format",
        "jsonl",
        "--method",
        "grid",
        "--draws",
        "100",
        "--chains",
        "2",
        "--seed",
        "0",
    ],
    "plan-design": [
        "plan",
        "design",
        "--from",
        "{runs}",
        "--format",
        "jsonl",
        "--system",
        "{plan_system}",
        "--budget-runs",
        "200",
    ],
    "traces": ["traces", "{steps}", "--format", "steps-jsonl"],
}
#: Commands whose text output lists the systems (so each system's printable form must appear).
SHOWS_SYSTEMS = {"estimate", "estimate-ci-tasks", "slices", "spread", "fit"}


def argv_for(name: str, ds: dict[str, Any]) -> list[str]:
    return [str(ds.get(a[1:-1], a)) if a.startswith("{") else a for a in COMMANDS[name]]


def refused_cleanly(rc: int, err: str, ds: dict[str, Any]) -> bool:
    """An invisible name refused when read: exit 2 and one clean line (the reader's rule)."""
    if ds["kind"] != "invisible" or rc != 2:
        return False
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("passhat: error: "), err
    assert clean(err), repr(err)
    return True


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_text_output(capsys, dataset, command: str) -> None:  # type: ignore[no-untyped-def]
    rc = main(argv_for(command, dataset))
    out, err = capsys.readouterr()
    if refused_cleanly(rc, err, dataset):
        return
    assert rc == 0, (rc, err)
    assert "Traceback" not in err
    assert clean(out) and clean(err), repr((out + err)[:500])
    # a name over 160 characters is shown by its start and end (issue 33, item 10)
    if command in SHOWS_SYSTEMS:
        for system in dataset["systems"]:
            assert short_names(printable(system)) in out, (command, system)
    if command == "estimate-ci-tasks":
        for task in dataset["tasks"]:
            assert short_names(printable(task)) in out, (command, task[:40])


@pytest.mark.parametrize(
    "command", ["estimate-ci-tasks", "compare", "slices", "spread", "fit", "traces"]
)
def test_json_and_csv_output(capsys, dataset, command: str) -> None:  # type: ignore[no-untyped-def]
    argv = argv_for(command, dataset)
    rc = main([*argv, "--json"])
    out, err = capsys.readouterr()
    if refused_cleanly(rc, err, dataset):
        return
    assert rc == 0, err
    doc = json.loads(out)
    strings = set(_strings(doc))
    expected = dataset["systems"][:1] if command == "traces" else dataset["systems"]
    for system in expected:
        assert system in strings, (command, system)  # exactly, control characters included
    assert main([*argv, "--csv"]) == 0
    out, err = capsys.readouterr()
    assert clean(out) and clean(err)
    for system in expected:
        assert printable(system) in out, (command, system)


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in (str(k), *_strings(v))]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return [obj] if isinstance(obj, str) else []


@pytest.mark.parametrize(
    "compare",
    [
        "--no-compare-models",
        pytest.param("--compare-models", marks=pytest.mark.integration),  # NUTS: inflated model
    ],
)
def test_report_command(dataset, compare: str) -> None:  # type: ignore[no-untyped-def]
    """The whole report from the command line, with the model (its figure is titled by system)
    and, in the integration tier, the model comparison."""
    out = dataset["dir"] / f"report{compare}"
    argv = ["report", dataset["runs"], "--format", "jsonl", "-o", str(out), "--k", "1,2"]
    rc = main([*argv, "--n-boot", "200", "--no-plan", "-q", compare])
    if dataset["kind"] == "invisible" and rc == 2:
        return  # refused when read (checked as text output above)
    assert rc == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    md = (out / "report.md").read_text(encoding="utf-8")
    assert clean(page) and clean(md)
    assert "\x00" not in page and "\x00" not in md
    assert (out / "figures" / "ppc.png").is_file()
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert set(dataset["systems"]) <= set(_strings(doc))


# ------------------------------------------------- the renderers, names substituted
PLACE = "QQ{}QQ"


def _substitute(obj: Any, names: dict[str, str]) -> Any:
    """``obj`` with every placeholder replaced by its hostile name, at any depth."""
    if isinstance(obj, str):
        for place, name in names.items():
            obj = obj.replace(place, name)
        return obj
    if isinstance(obj, pd.DataFrame):
        return obj.map(lambda v: _substitute(v, names))
    if isinstance(obj, dict):
        return {_substitute(k, names): _substitute(v, names) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return type(obj)(_substitute(v, names) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {
            f.name: _substitute(getattr(obj, f.name), names) for f in dataclasses.fields(obj)
        }
        return dataclasses.replace(obj, **changes)
    return obj


class _Structure(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple[str, ...]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, tuple(sorted(a for a, _ in attrs))))

    def handle_endtag(self, tag: str) -> None:
        self.tags.append(("/" + tag, ()))


def _html_structure(page: str) -> list[tuple[str, tuple[str, ...]]]:
    p = _Structure()
    p.feed(page)
    return p.tags


def _md_structure(text: str) -> list[str]:
    out = []
    for tok in MarkdownIt("commonmark").enable("table").parse(text):
        out.append(f"{tok.type}:{tok.tag}")
        out += [f"  {c.type}:{c.tag}" for c in tok.children or []]
    return out


@pytest.fixture(scope="module")
def placeholder_report():  # type: ignore[no-untyped-def]
    names = {**VISIBLE, **INVISIBLE}
    systems = [PLACE.format(f"S{i}") for i in range(3)]
    tasks = [PLACE.format(key) for key in names]
    trials = ph.Trials.from_frame(pd.DataFrame(trial_rows(systems, tasks)))
    rd = build_report_data(trials, k=[1, 2], model=False, plan=False, n_boot=200, seed=0)
    hostile = {PLACE.format(key): name for key, name in names.items()}
    hostile.update(
        {PLACE.format("S0"): "v1 $x^$ [/x]", PLACE.format("S1"): "nul\x00\x1b]0;t\x07<i>"}
    )
    hostile[PLACE.format("S2")] = "rtl\u202e|`*_ [red]x[/red] $\\alpha$"
    return rd, _substitute(rd, hostile), hostile


def test_html_and_markdown_structure_unchanged(placeholder_report) -> None:  # type: ignore[no-untyped-def]
    plain, hostile, names = placeholder_report
    page, plain_page = render_html(hostile, {}), render_html(plain, {})
    assert _html_structure(page) == _html_structure(plain_page)
    md = render_markdown(hostile, {})
    assert _md_structure(md) == _md_structure(render_markdown(plain, {}))
    assert clean(page) and clean(md) and "\x00" not in page + md
    shown = [name for place, name in names.items() if place in plain_page]
    assert len(shown) >= 5  # the systems and the flaky tasks at least
    text = html.unescape(re.sub(r"<[^>]*>", "", page))
    for name in shown:
        assert printable(name)[:30] in text, name[:40]  # as text, control characters visible
    # results.json and the per-task detail (tasks.parquet) keep every name exactly
    doc = json.loads(results_json(hostile))
    detail = pd.read_parquet(io.BytesIO(tasks_parquet(hostile.tasks)))
    kept = set(_strings(doc)) | set(detail["system"]) | set(detail["task"])
    assert set(names.values()) <= kept


def test_figures_draw_names_as_text(placeholder_report) -> None:  # type: ignore[no-untyped-def]
    """Before: ``v1 $x^$`` raised ParseSyntaxException and ``$\\alpha$`` was drawn as α."""
    _, hostile, names = placeholder_report
    figures = draw_figures(hostile)  # PNG and SVG of every figure, no exception
    assert set(figures) == {
        "spread_curve",
        "rate_histogram",
        "gap_concentration",
        # three systems or more: the leaderboard's figures (names through plots._name too)
        "rank_intervals",
        "pairwise_differences",
    }
    systems = [n for p, n in names.items() if p.startswith("QQS")]
    ppc = pd.DataFrame(
        {
            "system": [s for s in systems for _ in range(2)],
            "bin": [0, 1] * len(systems),
            "label": ["0/4", "$4/4$"] * len(systems),
            "observed": 1.0,
            "expected": 1.0,
            "lower": 0.5,
            "upper": 1.5,
            "ci": 0.9,
        }
    )
    curve = hostile.figure_data["curve"]
    rates = hostile.figure_data["rates"]
    conc = hostile.figure_data["concentration"]
    tasks = {str(s): 3 for s in systems}
    for fig in (
        plots.plot_spread(curve),
        plots.plot_rates(rates),
        plots.plot_gap(conc, tasks=tasks),
        plots.plot_ppc(ppc),
    ):
        buf = io.StringIO()
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            fig.savefig(buf, format="svg")
        texts = [
            html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", buf.getvalue(), re.S)
        ]
        joined = "\n".join(texts)
        for system in systems:
            assert printable(short(system, 40)) in joined, (system, texts)
        assert "α" not in joined  # a $..$ pair is not typeset
