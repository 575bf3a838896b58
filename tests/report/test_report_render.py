"""The written report: valid, self-contained, accessible, escaped, and reproducible.

Oracles: Python's html.parser (structure), the estimators and spread module (every number
in results.json is the number they compute), τ-bench's published leaderboard (pass^1..4 =
0.420, 0.273, 0.220, 0.200) for the real data.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from report_testdata import MALICIOUS_SYSTEM, MALICIOUS_TASK, malicious_trials

import passhat as ph
from passhat.report.build import build_report_data
from passhat.report.render import results_json, write_report

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


def test_sections_and_sentences_written_from_numbers(example_report) -> None:
    rd = example_report.data
    ids = [s.id for s in rd.sections]
    assert ids == ["data", "headline", "spread", "model", "flaky", "plan"]
    assert rd.section("model").status == "skipped"
    sp = ph.spread(ph.load_example("agents"), k=[1, 2, 5])
    text = example_report.paths.html.read_text(encoding="utf-8")
    for system in ("baseline", "guided"):
        row = sp.row(system, 5)
        # the plain-language sentence carries the computed ratio and flaky share
        assert f"{row['ratio']:.1f}× what a uniform spread would give" in text
        assert f"{row['flaky_share']:.0%} of tasks" in text


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


def test_results_json_numbers_match_estimators(example_report) -> None:
    doc = json.loads(example_report.paths.json.read_text(encoding="utf-8"))
    est = ph.estimate(ph.load_example("agents"), k=[1, 2, 5])
    head = next(s for s in doc["sections"] if s["id"] == "headline")
    rows = head["tables"][0]["rows"]
    for r in rows:
        metric = {"mean": "mean", "pass@k": "pass_at_k", "pass^k": "pass_hat_k"}[r["metric"]]
        expect = est.value(metric, r["k"] or 1, system=r["system"])
        assert r["value"] == pytest.approx(expect, abs=1e-11)
        # every interval has both scopes, and the table note names both methods
        assert r["benchmark_lower"] <= r["value"] <= r["benchmark_upper"]
        assert r["population_lower"] <= r["value"] <= r["population_upper"]
    note = head["tables"][0]["note"]
    assert "Benchmark scope:" in note and "Population scope:" in note and "bootstrap" in note
    stamp = doc["stamp"]
    assert stamp["seed"] == 0 and stamp["settings"]["k"] == [1, 2, 5]
    assert len(stamp["input"]["sha256"]) == 64 and stamp["versions"]["passhat"]
    assert "202" not in json.dumps(stamp["settings"])  # no dates in the settings


def test_results_json_byte_identical_same_seed(tmp_path: Path) -> None:
    trials = malicious_trials()
    opts = {"k": [1, 5], "model": True, "n_boot": 300}
    written = ph.report(trials, tmp_path / "a", seed=3, **opts).paths.json.read_bytes()
    again = results_json(build_report_data(trials, seed=3, **opts)).encode("utf-8")
    other = results_json(build_report_data(trials, seed=4, **opts)).encode("utf-8")
    assert written == again
    assert written != other  # the seed matters (bootstrap and posterior draws)


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


def test_model_section_with_ppc(malicious_report) -> None:
    sec = malicious_report.data.section("model")
    assert sec.status == "ok" and "ppc" in sec.figures
    assert any("ICC" in s for s in sec.sentences)
    html = malicious_report.paths.html.read_text(encoding="utf-8")
    assert 'id="fig-ppc"' in html
    head = malicious_report.data.section("headline").tables[0]
    assert any(c.key == "model_mean" for c in head.columns)
    assert all("agree" in r for r in head.rows)


def test_model_failing_diagnostics_is_shown(tmp_path: Path) -> None:
    trials = malicious_trials()
    # 2 chains × 40 draws: bulk ESS ≈ 80 < 200 required, so the diagnostics must fail
    fit = ph.fit(trials, method="grid", seed=0, chains=2, draws=40, k=[1, 5])
    assert not fit.diagnostics.passed
    res = ph.report(trials, tmp_path, k=[1, 5], model=fit, plan=False, n_boot=200)
    sec = res.data.section("model")
    assert sec.status == "failed" and "failed its diagnostics" in sec.note
    assert sec.tables  # numbers stay visible
    html = res.paths.html.read_text(encoding="utf-8")
    assert "Warning: The model failed its diagnostics" in html
    md = res.paths.markdown.read_text(encoding="utf-8")
    assert "**Warning:** The model failed its diagnostics" in md


def test_divergence_hook_renders(tmp_path: Path) -> None:
    class Div:
        table = pd.DataFrame(
            {"task": [MALICIOUS_TASK], "trial": [2], "step": [3], "action": ["skip <check>"]}
        )
        by_action = pd.DataFrame({"action": ["get_user_details"], "runs": [4]})

    rd = build_report_data(
        malicious_trials(), k=[1, 2], model=False, plan=False, n_boot=200, divergence=Div()
    )
    sec = rd.section("divergence")
    assert sec.title.endswith("Where failing runs diverge") and len(sec.tables) == 2
    paths = write_report(rd, tmp_path)
    html = paths.html.read_text(encoding="utf-8")
    assert "skip &lt;check&gt;" in html and 'id="divergence"' in html


def test_count_table_input_and_no_intervals(tmp_path: Path) -> None:
    counts = ph.counts_from_arrays([5] * 6, [5, 5, 0, 2, 4, 3], tasks=list("ABCDEF"))
    res = ph.report(counts, tmp_path, k=[1, 2], model=False, ci=None)
    head = res.data.section("headline")
    assert "not available" in head.tables[0].note
    assert [t.id for t in res.data.section("data").tables][:2] == [
        "data_systems",
        "data_runs_per_task",
    ]
    assert res.paths.html.exists()


def test_tau_bench_report_matches_leaderboard(tau_airline_path: Path, tmp_path: Path) -> None:
    trials = ph.read(tau_airline_path)
    res = ph.report(trials, tmp_path, k=[1, 2, 3, 4], model=False, plan=False, n_boot=500)
    doc = json.loads(res.paths.json.read_text(encoding="utf-8"))
    head = next(s for s in doc["sections"] if s["id"] == "headline")["tables"][0]["rows"]
    got = {r["k"]: r["value"] for r in head if r["metric"] == "pass^k"}
    got[1] = next(r["value"] for r in head if r["metric"] == "mean")
    # τ-bench's published gpt-4o airline leaderboard
    assert [round(got[k], 3) for k in (1, 2, 3, 4)] == [0.420, 0.273, 0.220, 0.200]
    curve = pd.DataFrame(doc["figure_data"]["curve"])
    assert sorted(curve["k"].unique()) == [1, 2, 3, 4]
    hat = curve[curve["metric"] == "pass_hat_k"].sort_values("k")["value"].to_numpy()
    assert np.all(np.diff(hat) <= 0)
    assert re.search(r"pass\^4 is [0-9.]+× what a uniform spread", res.paths.html.read_text())


@pytest.mark.slow
def test_model_comparison_section() -> None:
    """Plain vs zero/one-inflated by PSIS-LOO (the inflated model needs NUTS: slow)."""
    rd = build_report_data(
        ph.load_example("agents"), k=[1, 5], n_boot=200, plan=False, compare_models=True
    )
    sec = rd.section("model")
    cmp = next(t for t in sec.tables if t.id == "model_compare")
    assert sorted({r["model"] for r in cmp.rows}) == ["beta", "inflated"]
    assert len(cmp.rows) == 4  # two systems × two models
    assert sum("predicts left-out tasks" in s for s in sec.sentences) == 2
