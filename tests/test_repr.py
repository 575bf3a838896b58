"""What results show in a terminal (``__repr__``) and a notebook (``_repr_html_``).

Oracle: each result's own tables: the displayed cells are its numbers (formatted), names
from the data are escaped in HTML, and no dataclass dump (``table=   system …``) is shown.
"""

from __future__ import annotations

import re
from html import escape
from html.parser import HTMLParser

import pandas as pd
import pytest

import passhat as ph
from passhat._repr import MAX_ROWS, View, as_html, as_text, interval_text

HOSTILE = "<b onmouseover=x>sys</b>"


class _Cells(HTMLParser):
    """The text of every <td> of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []
        self._in = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in = tag == "td"
        if self._in:
            self.cells.append("")
        assert tag in {"div", "p", "strong", "table", "thead", "tbody", "tr", "th", "td"}, tag

    def handle_endtag(self, tag: str) -> None:
        self._in = False

    def handle_data(self, data: str) -> None:
        if self._in:
            self.cells[-1] += data


def _cells(html: str) -> list[str]:
    p = _Cells()
    p.feed(html)
    return p.cells


def _check(obj: object) -> tuple[str, str]:
    text, html = repr(obj), obj._repr_html_()  # type: ignore[attr-defined]
    assert not re.search(r"\b(table|settings|excluded|quantities)=", text), text[:300]
    assert len(text.splitlines()) < MAX_ROWS + 15
    assert html.startswith("<div>") and "<table" in html
    return text, html


@pytest.fixture(scope="module")
def agents() -> ph.Trials:
    return ph.load_example("agents")


def test_estimate_shows_its_values_and_population_intervals(agents) -> None:
    """The notebook and repr show what the CLI prints: the value and each scope's interval."""
    est = ph.estimate(agents, k=[1, 5], ci=0.95, n_boot=200, seed=0)
    text, html = _check(est)
    t = est.table
    row = t[(t["system"] == "guided") & (t["k"] == 5) & (t["metric"] == "pass_hat_k")]
    pop = row[row["scope"] == "population"].iloc[0]
    cell = f"[{pop['lower']:.3f}, {pop['upper']:.3f}]"
    assert cell == "[0.664, 0.804]"  # guided's own stream (issue 33, item 12): was [0.690, 0.810]
    assert cell in text and cell in _cells(html)
    assert f"{pop['value']:.3f}" in _cells(html)
    assert "population method" in text and "task bootstrap BCa, 200 resamples" in text
    plain = ph.estimate(agents, k=[1, 2])
    assert "[" not in repr(plain).splitlines()[3]  # no intervals asked for, none shown
    assert f"{plain.value('mean', 1, system='guided'):.3f}" in repr(plain)


def test_comparison_shows_both_scopes_differences(agents) -> None:
    """The notebook and repr show what the CLI prints: each scope's interval and p-value."""
    cmp = ph.compare(agents, k=[5], n_boot=200, seed=0)
    text, html = _check(cmp)
    t = cmp.table[cmp.table["metric"] == "pass_hat_k"].set_index("scope")
    cells = _cells(html)
    pop, bench = t.loc["population"], t.loc["benchmark"]
    assert f"{pop['difference']:+.3f}" == "+0.107" and "+0.107" in cells
    for r in (pop, bench):
        want = f"[{r['lower']:+.3f}, {r['upper']:+.3f}]"
        assert want in text and want in cells
    assert f"{pop['p_value']:.4f}" in cells
    assert text.startswith("guided − baseline: paired difference on 168 matched tasks")
    assert "population: the expected difference over tasks like these" in text


def test_fit_shows_the_posterior_and_the_diagnostics(agents) -> None:
    """The notebook and repr show what ``passhat fit`` prints: both scopes, the ICC, each
    system's diagnostics (the Beta-Binomial fit; the stacked default names its models)."""
    fit = ph.fit(agents, model="beta", method="grid", seed=0, k=[1, 5])
    text, html = _check(fit)
    assert len(text) <= 2000
    s = fit.summary(k=[1, 5])
    r = s[(s["system"] == "baseline") & (s["k"] == 5) & (s["metric"] == "pass_hat_k")]
    for scope in ("population", "benchmark"):
        row = r[r["scope"] == scope].iloc[0]
        cell = f"{row['mean']:.3f} [{row['lower']:.3f}, {row['upper']:.3f}]"
        assert cell in _cells(html) and cell in text
    assert text.startswith("passhat fit (posterior, Beta-Binomial, grid quadrature; 95% posterior")
    assert "diagnostics baseline: ok" in text and "ICC 1/(κ+1)" in text
    bad = ph.fit(agents, model="beta", method="grid", seed=0, chains=2, draws=40, k=[1])
    assert "diagnostics baseline: FAILED: baseline: bulk ESS(mu)" in repr(bad)


def test_fit_summary_and_diagnostics_are_frozen_results(agents) -> None:
    """The fit, its summary and its diagnostics are frozen; their JSON documents carry the
    header and the keys ``passhat fit --json`` wrote before."""
    import dataclasses

    fit = ph.fit(agents, method="grid", seed=0, k=[1, 5])
    summary = fit.summarize()
    for obj, attr in ((fit, "seed"), (summary, "table"), (fit.diagnostics, "problems")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attr, None)
    doc = summary.to_dict()
    assert list(doc) == ["schema", "schema_version", "passhat_version", "input", "settings",
                         "notes", "summary", "diagnostics", "models", "checks"]  # fmt: skip
    assert doc["schema"] == "passhat.fit" and fit.to_dict() == doc
    assert list(doc["diagnostics"]) == ["passed", "problems", "thresholds", "divergences", "table"]
    _check(fit.diagnostics)


def test_plan_result_shows_answer_reasoning_and_assumptions() -> None:
    """A closed form shows what ``passhat plan detect`` prints (the answer, the reasoning, the
    method, the assumptions: no table); its quantities are in to_frame() and to_dict()."""
    res = ph.plan.runs_to_detect(flip_rate=0.1)
    text, html = repr(res), res._repr_html_()
    assert not re.search(r"\b(table|settings|excluded|quantities)=", text), text[:300]
    assert text.splitlines()[0] == "29 runs"
    assert res.reasoning in text and "Assumes: runs are independent" in text
    assert html.startswith("<div>") and "<strong>29 runs</strong>" in html
    assert res.to_frame()["quantity"].tolist()[:2] == ["flip_rate", "ci"]
    # a power answer adds its sensitivity to ρ; a design its table of designs
    power = ph.plan.power(delta=0.1, tasks=60, runs_per_task=5,
                          prior=ph.plan.Assumptions(mean=0.6, icc=0.3))  # fmt: skip
    assert "Sensitivity to ρ" in repr(power)
    design = ph.plan.design(budget_runs=500, k=2, prior=ph.plan.Assumptions(mean=0.6, icc=0.3))
    _check(design)


def test_classification_spread_and_divergence(agents, tau_airline_path) -> None:
    cl = ph.classify(agents, base_system="baseline", cand_system="guided")
    text, html = _check(cl)
    cells = _cells(html)
    row = cl.table[cl.table["verdict"] == "flaky"].iloc[0]
    i = cells.index(str(row["task"]))
    assert cells[i + 1 : i + 4] == ["flaky", f"{row['c_base']}/{row['n_base']}",
                                    f"{row['c_cand']}/{row['n_cand']}"]  # fmt: skip
    assert text.startswith("Tasks that changed, flaked or cannot be decided yet")
    assert escape(cl.summary()) in html  # the one-line summary, after the table
    assert f"{cl.counts['flaky']} flaky" in cl.summary()

    sp = ph.spread(agents, k=[1, 5])
    text, html = _check(sp)
    r = sp.row("baseline", 5)
    assert f"{r['pass_hat_k']:.1%}" in _cells(html) and f"{r['uniform']:.1%}" in text

    div = ph.divergence(ph.read_traces(tau_airline_path))
    text, html = _check(div)
    top = div.by_action.iloc[0]
    assert str(top["action"]) in _cells(html)
    assert f"({div.counts['failing_runs']} failing, {div.counts['passing_runs']} passing" in text


def test_names_from_the_data_are_escaped(agents) -> None:
    frame = agents.frame.assign(system=agents.frame["system"].replace("guided", HOSTILE))
    est = ph.estimate(ph.Trials.from_frame(frame), k=[2])
    html = est._repr_html_()
    assert HOSTILE not in html and "&lt;b onmouseover=x&gt;sys&lt;/b&gt;" in html
    assert HOSTILE in _cells(html)  # the name itself, as text
    assert HOSTILE in repr(est)  # a terminal shows it literally


def test_view_helpers() -> None:
    long = View("T", pd.DataFrame({"i": range(100)}), ("note",))
    text = as_text(long)
    assert len(text.splitlines()) < MAX_ROWS + 5 and text.endswith("note")
    assert "(no rows)" in as_text(View("T", pd.DataFrame()))
    assert "(no rows)" in as_html(View("T", pd.DataFrame()))
    assert interval_text(float("nan")) == "—"


def test_control_characters_in_names_are_shown_escaped() -> None:
    # a terminal hyperlink (OSC 8), a colour (CSI) and NUL: readers refuse such ids, but a
    # result built from a frame of any text must not drive the terminal from its repr
    evil = "agent\x1b]8;;http://x\x07\x1b[31m\x00"
    view = View(f"title {evil}", pd.DataFrame({"system": [evil], "k": [1]}), (f"note {evil}",))
    text, html = as_text(view), as_html(view)
    for shown in (text, html):
        assert "\x1b" not in shown and "\x00" not in shown and "\x07" not in shown
    assert text.count("agent\\x1b]8;;http://x\\x07\\x1b[31m\\x00") == 3  # title, cell, note
    assert "agent\\x1b]8;;http://x\\x07\\x1b[31m\\x00" in _cells(html)


def test_a_text_table_shows_as_the_same_frame_would() -> None:
    """TextTable (a table without pandas) renders like the DataFrame of the same cells in a
    terminal, as text and as HTML, names escaped and sections kept."""
    import io

    from rich.console import Console

    from passhat._repr import TextTable, as_rich

    cells = (("a\x1b[31m", "1"), (HOSTILE, "2"), (HOSTILE, "3"))
    table = TextTable(("system", "runs"), cells)
    as_frame = View("t", table.to_frame(), notes=("n",), section_by="system")
    as_table = View("t", table, notes=("n",), section_by="system")

    def shown(view: View) -> str:
        out = io.StringIO()
        Console(file=out, width=60, color_system=None).print(as_rich(view))
        return out.getvalue()

    assert shown(as_table) == shown(as_frame) and "\\x1b[31m" in shown(as_table)
    assert as_text(as_table) == as_text(as_frame)
    assert as_html(as_table) == as_html(as_frame) and HOSTILE not in as_html(as_table)
    assert len(table) == 3 and table.to_frame()["runs"].tolist() == ["1", "2", "3"]
