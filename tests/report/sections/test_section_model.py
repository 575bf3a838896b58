"""passhat.report.sections.model: the model's posterior, diagnostics (failing ones shown) and PPC.

Oracles: the fit's own summary and diagnostics; a fit with too few draws must fail its
diagnostics (bulk ESS ≈ 80 < 200).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from report_testdata import malicious_trials, results_of

import passhat as ph
from passhat.report.build import build_report_data
from passhat.report.render import format_cell
from passhat.report.sections.model import model_section


def _section(data, k, model, **options):  # type: ignore[no-untyped-def]
    """The model section of a report with ``model`` (a fit, or True to fit one), and its
    results."""
    res = results_of(data, k=k, model=model, **options)
    return model_section(res), res


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


def test_posterior_rows_are_the_fit_summary() -> None:
    data = ph.load_example("abcd")
    fit = ph.fit(data, method="grid", seed=0, k=[1, 3])
    sec, res = _section(data, [1, 3], fit, ci=0.9)
    assert res.fit is fit and res.model is not None
    want = fit.summary(k=[1, 3], ci=0.9)
    for r in sec.tables[0].rows:
        metric = {"mean": "mean", "pass@k": "pass_at_k", "pass^k": "pass_hat_k"}[r["metric"]]
        m = want[
            (want["metric"] == metric)
            & (want["k"] == (r["k"] or 1))
            & (want["scope"] == r["scope"])
        ].iloc[0]
        assert (r["mean"], r["ci_lower"], r["ci_upper"]) == (m["mean"], m["lower"], m["upper"])


def test_no_model_is_a_skipped_section_and_a_bad_model_is_refused() -> None:
    data = ph.load_example("abcd")
    sec, res = _section(data, [1], False)
    assert (sec.status, res.model, res.fit) == ("skipped", None, None)
    with pytest.raises(TypeError, match=r"model= must be True, False or a passhat\.Fit"):
        results_of(data, k=[1], model="beta")


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


@pytest.mark.integration  # NUTS: the inflated model
def test_model_comparison_runs_by_default_when_both_fits_are_healthy() -> None:
    """The report compares the models by default (issue 16); its default fit is the stacked
    one (issue 28), whose own exact leave-one-task-out comparison is shown — no second fit.

    Oracle: the fit's model_comparison() (same seed) gives the table's rows; a Beta fit given
    to the report is compared with the inflated model by passhat.compare_models (PSIS-LOO).
    """
    data = ph.load_example("abcd")
    sec, res = _section(data, [1, 2], True, ci=0.95, seed=0, compare_models=True)
    stacked = res.fit
    assert stacked.model == "auto" and stacked.method == "grid"
    cmp = next(t for t in sec.tables if t.id == "model_compare")
    want = stacked.model_comparison().table
    got = {(r["model"], round(r["elpd_loo"], 6), round(r["weight"], 6)) for r in cmp.rows}
    assert got == {
        (m, round(e, 6), round(w, 6))
        for m, e, w in zip(want["model"], want["elpd_loo"], want["weight"], strict=True)
    }
    assert "exact leave-one-task-out" in cmp.caption
    line = next(s for s in sec.sentences if "predicts left-out tasks" in s)
    assert "The fit stacks" in line
    plain = ph.fit(data, k=[1, 2], seed=0, model="beta", progress=False)
    sec, _ = _section(data, [1, 2], plain, ci=0.95, seed=0, compare_models=True)
    cmp = next(t for t in sec.tables if t.id == "model_compare")
    assert sorted(r["model"] for r in cmp.rows) == ["beta", "inflated"]
    inflated = ph.fit(data, k=[1, 2], seed=0, model="inflated", progress=False)
    want = ph.compare_models({"beta": plain, "inflated": inflated}).table
    got = {(r["model"], round(r["elpd_loo"], 6)) for r in cmp.rows}
    assert got == {(m, round(e, 6)) for m, e in zip(want["model"], want["elpd_loo"], strict=True)}
    assert sum("predicts left-out tasks" in s for s in sec.sentences) == 1


@pytest.mark.integration  # NUTS: the inflated model
def test_model_comparison_is_not_shown_for_an_unhealthy_fit(monkeypatch) -> None:
    import importlib

    build = importlib.import_module("passhat.report.build")  # ph.report is a function

    data = ph.load_example("abcd")
    bad_plain = ph.fit(data, method="grid", seed=0, chains=2, draws=40, k=[1])
    sec, _ = _section(data, [1], bad_plain, compare_models=True)
    assert not any(t.id == "model_compare" for t in sec.tables)
    assert any("the plain fit failed its diagnostics" in s for s in sec.sentences)

    real_fit = build.fit

    def few_draws(d, **kw):  # the inflated fit with 2 × 30 draws: its ESS fails
        if kw.get("model") == "inflated":
            kw = {**kw, "chains": 2, "draws": 30, "tune": 200}
        return real_fit(d, **kw)

    monkeypatch.setattr(build, "fit", few_draws)
    # a Beta fit given to the report: the inflated one is fitted for the comparison
    plain = ph.fit(data, model="beta", seed=0, k=[1])
    sec, _ = _section(data, [1], plain, compare_models=True)
    assert not any(t.id == "model_compare" for t in sec.tables)
    note = next(s for s in sec.sentences if "not shown" in s)
    assert "inflated model's fit failed its diagnostics" in note and "ESS" in note


def test_ppc_counts_are_whole_tasks_and_the_sentences_agree() -> None:
    # the replicated interval printed "3.95 – 15" tasks: bounds are whole tasks now, rounded
    # outward from Fit.ppc's quantiles, and "outside" is judged against what is shown
    data = ph.load_example("agents")
    fit = ph.fit(data, method="grid", model="beta", seed=0, k=[1, 5])
    sec, _ = _section(data, [1, 5], fit)
    raw = fit.ppc()
    assert not (raw["lower"] == raw["lower"].round()).all()  # the quantiles are fractional
    table = next(t for t in sec.tables if t.id == "model_ppc")
    for row, (_, r) in zip(table.rows, raw.iterrows(), strict=True):
        lo, hi = row["ppc_lower"], row["ppc_upper"]
        assert isinstance(lo, int) and isinstance(hi, int)
        assert lo <= r["lower"] < lo + 1 and hi - 1 < r["upper"] <= hi
        text = format_cell(row, next(c for c in table.columns if c.key == "ppc"))
        assert text == f"{lo} – {hi}"
    for system in ("baseline", "guided"):
        rows = [r for r in table.rows if r["system"] == system]
        outside = sum(not r["ppc_lower"] <= r["observed"] <= r["ppc_upper"] for r in rows)
        line = next(s for s in sec.sentences if s.startswith(f"{system}: ") and "predictive" in s)
        if outside:
            assert f"in {outside} of {len(rows)} bins" in line
        else:
            assert "every bin" in line


def test_icc_sentence_states_the_law_of_total_variance_split() -> None:
    """The sentence quotes the summary's task-sampling share (Fit.summary: an independent
    quadrature checks it in tests/model) and draws the conclusion its size supports."""
    data = ph.load_example("agents")
    fit = ph.fit(data, method="grid", seed=0, k=[1, 5])
    sec, res = _section(data, [1, 5], fit)
    summary = res.model.summary
    for system in fit.systems:
        row = summary[
            (summary["system"] == system)
            & (summary["metric"] == "pass_hat_k")
            & (summary["k"] == 5)
            & (summary["scope"] == "population")
        ].iloc[0]
        share = float(row["task_sampling_share"])
        line = next(s for s in sec.sentences if s.startswith(f"{system}: ICC"))
        assert f"{share:.0%} of that posterior variance comes from which tasks" in line
        assert ("more tasks, not more runs" in line) == (share > 0.5)
    cols = [c.label for c in sec.tables[0].columns]
    assert "Variance more runs can remove" in cols and "law of total variance" in sec.tables[0].note
