"""passhat.report.render: the written files are valid, self-contained, accessible and escaped.

Oracles: Python's html.parser (structure), the spread module (the alt text carries its
numbers), the formatting rules written out by hand (cells), and the report's own ReportData
(results.json is its JSON form).
"""

from __future__ import annotations

import json
import math
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_testdata import MALICIOUS_SYSTEM, MALICIOUS_TASK

import passhat as ph
from passhat.report.document import Column
from passhat.report.render import OPEN_TABLES, format_cell, md_escape, results_json

VOID = {"meta", "img", "br", "hr", "link", "input", "col", "source", "wbr"}


class _Checker(HTMLParser):
    """Checks tag balance and collects what the tests look at."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.imgs: list[dict[str, str | None]] = []
        self.tags: list[str] = []
        self.urls: list[str] = []
        self.text: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        if a.get("id"):
            self.ids.append(a["id"])
        for key in ("src", "href"):
            if a.get(key):
                self.urls.append(str(a[key]))
        if tag == "img":
            self.imgs.append(a)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(path: Path) -> _Checker:
    chk = _Checker()
    chk.feed(path.read_text(encoding="utf-8"))
    chk.close()
    return chk


def test_html_is_well_formed_and_self_contained(example_report) -> None:
    html = example_report.paths.html
    chk = _parse(html)
    assert not chk.errors, chk.errors[:5]
    assert chk.stack == [], chk.stack
    assert chk.tags[0] == "html"
    assert len(chk.ids) == len(set(chk.ids)), "duplicate ids"
    # no scripts, no external resources: every URL is an in-page anchor or embedded data
    assert "script" not in chk.tags
    assert all(u.startswith(("#", "data:image/png;base64,")) for u in chk.urls), chk.urls
    text = html.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text
    # real tables with captions and header cells
    assert chk.tags.count("table") >= 8
    assert chk.tags.count("caption") == chk.tags.count("table")
    assert "th" in chk.tags


def test_figures_present_with_alt_text(example_report) -> None:
    paths = example_report.paths
    chk = _parse(paths.html)
    alts = [str(i.get("alt") or "") for i in chk.imgs]
    assert len(alts) == 3 and all(len(a) > 40 for a in alts)
    figs = {p.name for p in paths.figures}
    for fid in ("spread_curve", "rate_histogram", "gap_concentration"):
        assert f"{fid}.png" in figs and f"{fid}.svg" in figs
        png = (paths.out_dir / "figures" / f"{fid}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"](figures/{fid}.png)" in paths.markdown.read_text(encoding="utf-8")
    # alt text is written from the numbers: the spread curve's names pass^5 of each system
    row = ph.spread(ph.load_example("agents"), k=5).row("baseline", 5)
    assert any(f"pass^5 {row['pass_hat_k']:.1%}" in a for a in alts)


def test_hostile_strings_are_escaped(malicious_dir: Path) -> None:
    html = (malicious_dir / "index.html").read_text(encoding="utf-8")
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html
    chk = _parse(malicious_dir / "index.html")
    assert not chk.errors and "script" not in chk.tags
    text = "".join(chk.text)
    assert MALICIOUS_TASK in text  # shown as text
    assert MALICIOUS_SYSTEM in text
    md = (malicious_dir / "report.md").read_text(encoding="utf-8")
    assert "<script>" not in md and "&lt;script&gt;alert\\(1\\)" not in md
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md
    # the pipe and backtick of the system name cannot break a Markdown table row
    assert "sys&lt;img src=x onerror=alert(2)&gt;\\|\\`\\*" in md
    for line in md.splitlines():
        if line.startswith("| plain |") or line.startswith("| sys"):
            assert line.count(" | ") == line.replace("\\|", "").count(" | ")
    doc = json.loads((malicious_dir / "results.json").read_text(encoding="utf-8"))
    flaky = next(s for s in doc["sections"] if s["id"] == "flaky")
    assert MALICIOUS_TASK in {r["task"] for r in flaky["tables"][0]["rows"]}


@pytest.mark.parametrize(
    ("row", "col", "text"),
    [
        ({"v": 0.4256}, Column("v", "", "pct"), "42.6%"),
        ({"v": -0.031}, Column("v", "", "pts"), "-3.1 pts"),
        ({"v": 0.031}, Column("v", "", "pts"), "3.1 pts"),
        ({"v": 0.031}, Column("v", "", "dpts"), "+3.1 pts"),
        ({"v": 2.5}, Column("v", "", "g"), "2.5"),
        ({"v": 7}, Column("v", "", "int"), "7"),
        ({"v": 0.0004}, Column("v", "", "num"), "0.0004"),
        ({"v": 0.12345}, Column("v", "", "num"), "0.123"),
        ({"v": 123.456}, Column("v", "", "num"), "123.5"),
        ({"v": True}, Column("v", "", "bool"), "yes"),
        ({"v": None}, Column("v", "", "pct"), "—"),
        ({"v": math.nan}, Column("v", "", "num"), "—"),
        ({"x_lower": 0.1, "x_upper": 0.25}, Column("x", "", "interval"), "10.0% – 25.0%"),
        ({"x_lower": 1.5, "x_upper": 12.25}, Column("x", "", "interval_num"), "1.5 – 12.25"),
        (
            {"diff_lower": -0.02, "diff_upper": 0.05},
            Column("diff", "", "interval"),
            "-2.0 to +5.0 pts",
        ),
        ({"x_lower": None, "x_upper": 0.2}, Column("x", "", "interval"), "—"),
    ],
)
def test_format_cell(row: dict[str, object], col: Column, text: str) -> None:
    assert format_cell(row, col) == text


def test_md_escape_keeps_table_rows_and_html_inert() -> None:
    assert md_escape("a|b`*_[x]\\\n<i>&") == "a\\|b\\`\\*\\_\\[x\\]\\\\ &lt;i&gt;&amp;"


def test_results_json_is_the_report_data(example_report) -> None:
    written = example_report.paths.json.read_text(encoding="utf-8")
    assert written == results_json(example_report.data)
    assert json.loads(written) == json.loads(json.dumps(example_report.data.to_json()))


class _Layout(HTMLParser):
    """Which table ids sit inside <details>, the nav's links, and the order of sections."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # open <details>
        self.folded: list[str] = []
        self.open: list[str] = []
        self.sections: list[str] = []
        self.nav: list[str] = []
        self.nav_text: list[str] = []
        self._in_nav = False
        self.order: list[str] = []  # "table:<id>" and "ul.sentences" inside #summary

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "details":
            self.depth += 1
        if tag == "nav":
            self._in_nav = True
        if tag == "a" and self._in_nav:
            self.nav.append(str(a["href"]))
        if tag == "section":
            self.sections.append(str(a["id"]))
        if tag == "table":
            (self.folded if self.depth else self.open).append(str(a["id"])[4:])
        if self.sections == ["summary"] and (tag == "table" or a.get("class") == "sentences"):
            self.order.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "details":
            self.depth -= 1
        if tag == "nav":
            self._in_nav = False

    def handle_data(self, data: str) -> None:
        if self._in_nav and data.strip():
            self.nav_text.append(data.strip())


def test_summary_first_detail_folded_toc_resolves(example_report) -> None:
    # the page was ~11,900 px for one system: long tables are folded under their caption
    html = example_report.paths.html.read_text(encoding="utf-8")
    lay = _Layout()
    lay.feed(html)
    assert lay.sections[0] == "summary" and lay.order == ["table", "ul"]  # numbers, then lines
    rd = example_report.data
    every = [t.id for s in rd.sections for t in s.tables]
    assert sorted(lay.open + lay.folded) == sorted(every)
    assert set(lay.open) == set(every) & OPEN_TABLES
    assert {"flaky", "spread_contributions", "data_runs_per_task"} <= set(lay.folded)
    # the table of contents: one link per section (titles carry their own numbers: no "1. 1.")
    assert lay.nav == [f"#{s.id}" for s in rd.sections] + ["#stamp"]
    assert lay.nav_text[:3] == ["Summary", "1. Data", "2. Headline"]
    chk = _parse(example_report.paths.html)
    assert all(h[1:] in chk.ids for h in lay.nav)
    assert (
        "<summary>Flaky tasks (both outcomes among decided runs), lowest success rate first" in html
    )


def test_markdown_has_the_summary_first_and_folds_the_same_tables(example_report) -> None:
    md = example_report.paths.markdown.read_text(encoding="utf-8")
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[:3] == ["## Summary", "## 1. Data", "## 2. Headline"]
    rd = example_report.data
    for s in rd.sections:
        for t in s.tables:
            caption = md_escape(t.caption)
            at = md.index(f"**{caption}**")
            opened, closed = md.rfind("<details>", 0, at), md.rfind("</details>", 0, at)
            assert (opened > closed) == (t.id not in OPEN_TABLES), t.id
    assert md.count("<details>") == md.count("</details>")
