"""What a single-system fit shows and writes (:class:`passhat.model.fit_summary.FitSummary`).

Oracles: the fit's own posterior table (every displayed cell is one of its rows, formatted),
the keys ``passhat fit --json`` wrote before the result had a shape (listed here), the fit's
recorded settings, and :func:`passhat.exclusions.default_ks` for the default k.
"""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError

import pytest

import passhat as ph
from passhat.exclusions import default_ks
from passhat.model.fit_summary import FitSettings, FitSummary

HOSTILE = "<b onmouseover=x>sys</b>"

#: The keys of ``passhat fit --json`` before issue 27 (then the header came first).
SETTINGS_KEYS = [
    "k", "method", "method_requested", "model", "sampler", "seed", "draws", "tune", "chains",
    "ci", "weights", "unscored_tasks", "priors", "output",
]  # fmt: skip


@pytest.fixture(scope="module")
def fit() -> ph.Fit:
    return ph.fit(ph.load_example("agents"), k=[1, 5], method="grid", seed=0, chains=2, draws=500)


def test_summary_document_has_the_header_and_the_keys_fit_json_wrote(fit) -> None:
    s = fit.summarize(ci=0.9)
    doc = s.to_dict(output="f.nc")
    assert list(doc) == [
        "schema", "schema_version", "passhat_version", "input", "settings", "notes", "summary",
        "diagnostics", "models", "checks",
    ]  # fmt: skip
    # issue 28: the stacked fit says which models it used (weights summing to one per system)
    # and carries its checks (shape, agreement with the unbiased estimates)
    models = doc["models"]
    for system in fit.systems:
        w = [m["weight"] for m in models if m["system"] == system]
        assert len(w) == 3 and sum(w) == pytest.approx(1.0, abs=1e-9)
    assert set(doc["checks"]) == {"warnings", "agreement", "shape"}
    assert doc["schema"] == "passhat.fit" and doc["schema_version"] == 1
    assert list(doc["settings"]) == SETTINGS_KEYS
    st = doc["settings"]
    assert (st["k"], st["ci"], st["output"], st["draws"], st["chains"], st["tune"]) == (
        [1, 5], 0.9, "f.nc", 500, 2, 1000,
    )  # fmt: skip
    assert (st["method"], st["method_requested"], st["weights"], st["seed"]) == (
        "grid", "grid", "equal", 0,
    )  # fmt: skip
    assert json.loads(st["priors"]) == json.loads(fit.priors.to_json())
    assert doc["input"]["path"].endswith("agents.csv")  # where the example's data came from
    assert len(doc["summary"]) == len(s.table) and doc["notes"] == fit.notes
    assert doc["diagnostics"]["passed"] is True
    assert s is fit.summarize(ci=0.9)  # computed once per (k, ci)


def test_view_cells_are_the_tables_rows(fit) -> None:
    s = fit.summarize()
    part = s.view().parts[0]
    frame = part.frame
    for (system, k_text, label), metric, k in (
        (("guided", "5", "pass^k"), "pass_hat_k", 5),
        (("baseline", "—", "mean"), "mean", 1),
    ):
        shown = frame[(frame["system"] == system) & (frame["k"] == k_text)]
        shown = shown[shown["metric"] == label].iloc[0]
        t = s.table
        rows = t[(t["system"] == system) & (t["metric"] == metric) & (t["k"] == k)]
        for scope in ("benchmark", "population"):
            r = rows[rows["scope"] == scope].iloc[0]
            assert shown[scope] == f"{r['mean']:.3f} [{r['lower']:.3f}, {r['upper']:.3f}]"
        pop = rows[rows["scope"] == "population"].iloc[0]
        assert shown["runs can remove"] == f"{pop['within_task_share']:.0%}"
    assert frame["metric"].tolist().count("ICC") == 2  # the stacked models have no κ
    assert part.section_by == "system"
    heads = [ln.split(":")[0].split(" (")[0] for ln in part.lines]
    assert heads == [
        "diagnostics baseline", "diagnostics guided", "models baseline", "models guided",
        "shape check baseline", "shape check guided", "intervals",
    ]  # fmt: skip
    quiet = s.view().quiet().parts[0]
    assert quiet.notes == () and quiet.lines == part.lines
    assert any(
        n.startswith("posterior saved to x.nc") for n in s.view(output="x.nc").parts[0].notes
    )


def test_results_are_frozen(fit) -> None:
    s = fit.summarize()
    for obj, attr in ((fit, "k"), (s, "notes"), (s.settings, "ci"), (fit.diagnostics, "method")):
        with pytest.raises(FrozenInstanceError):
            setattr(obj, attr, None)


def test_repr_is_short_and_html_escapes_names() -> None:
    """Forty systems: the repr stays within 2,000 characters; a system named with markup is
    text in the notebook, and literal in the terminal."""
    frame = ph.load_example("agents").frame
    many = ph.Trials.from_frame(
        frame.assign(system=frame["system"] + "-" + (frame.index % 20).astype(str))
    )
    # the Beta model: a stacked fit's repr runs the shape check of three models per system
    # (about 1 s per system), too slow for 40 systems here
    f = ph.fit(many, k=[1, 2], method="grid", model="beta", seed=0, chains=1, draws=100)
    assert len(f.systems) == 40 and len(repr(f)) <= 2000
    hostile = ph.Trials.from_frame(frame.assign(system=frame["system"].replace("guided", HOSTILE)))
    h = ph.fit(hostile, k=[2], method="grid", seed=0, chains=1, draws=100)
    html = h._repr_html_()
    assert HOSTILE not in html and "&lt;b onmouseover=x&gt;sys&lt;/b&gt;" in html
    assert HOSTILE in repr(h)


def test_default_k_is_the_one_default_rule() -> None:
    """No k: 1, 2, 5 capped at the fewest decided runs (τ-bench's 4 runs: 1, 2, 4; the CLI's
    old default was 1, 2, 5)."""
    tau = ph.load_example("tau-airline")
    f = ph.fit(tau, method="grid", seed=0, chains=1, draws=100)
    assert f.k == default_ks(tau) == [1, 2, 4]
    assert f.summarize().settings.k == [1, 2, 4]


def test_a_fit_saved_without_settings_still_summarises(fit, tmp_path) -> None:
    """A file written before the settings were recorded loads and shows; the settings it did
    not record are None in its document."""
    path = fit.to_netcdf(tmp_path / "fit.nc")
    back = ph.load_fit(path)
    del back.idata.posterior.attrs["passhat_settings"]
    st = FitSettings.from_attrs(back.idata.posterior, k=[5], ci=0.95)
    assert (st.tune, st.weights, st.method_requested) == (None, None, None)
    fresh = ph.model.Fit(back.idata)
    assert isinstance(fresh.summarize(), FitSummary)
    assert any(n.startswith("method: each model on its grid")
               for n in fresh.summarize().view().parts[0].notes)  # fmt: skip
    assert fresh.summarize().to_dict()["settings"]["tune"] is None


# ------------------------------------------------------------------ the table for papers
def test_paper_table_holds_both_scopes_of_the_posterior() -> None:
    from tests.paper_cells import close, markdown_rows, numbers

    data = ph.load_example("agents")
    s = ph.fit(data, k=[1, 2], method="grid", model="beta", seed=0, draws=300).summarize()
    text = s.to_markdown()
    rows = markdown_rows(text)
    assert [r["metric"] for r in rows[:4]] == ["mean", "pass@2", "pass^2", "ICC 1/(κ+1)"]
    t = s.table
    for r in rows:
        metric = {"mean": "mean", "pass@2": "pass_at_k", "pass^2": "pass_hat_k"}.get(r["metric"])
        if metric is None:
            continue
        part = t[(t["system"] == r["system"]) & (t["metric"] == metric) & (t["k"] == 2)]
        for scope in ("benchmark", "population"):
            row = part[part["scope"] == scope].iloc[0]
            v, lo, hi = numbers(r[scope])
            assert close(v, row["mean"]) and close(lo, row["lower"]) and close(hi, row["upper"])
    assert "95% equal-tailed intervals" in text and "grid quadrature" in text
    assert "Sampler diagnostics passed" in text


def test_intervals_line_when_only_the_population_rows_are_model_free() -> None:
    """40 tasks × 4 runs, 18 all-fail, 20 all-pass, 2 with both outcomes: estimate's rule
    trusts the task bootstrap in the population scope (≥ 10 tasks on each side) but not the
    normal benchmark interval (2 < 10 tasks with both outcomes), so the population rows are
    the model-free Bayesian bootstrap and the benchmark rows the model's: the `intervals:`
    line must say so (it was left out when no benchmark row was model-free)."""
    import numpy as np

    from passhat.model.text import BENCHMARK_RULE, POPULATION_RULE

    c = np.array([2] + [0] * 18 + [4] * 20 + [2])
    f = ph.fit(ph.counts_from_arrays(np.full(40, 4), c), k=[1, 2], method="grid", seed=0,
               draws=500, progress=False)  # fmt: skip
    s = f.summarize(k=[1, 2], ci=0.9)
    pop = s.table[(s.table["scope"] == "population") & (s.table["metric"] != "icc")]
    bench = s.table[s.table["scope"] == "benchmark"]
    assert (pop["method"] == POPULATION_RULE).all()
    assert not (bench["method"] == BENCHMARK_RULE).any()
    lines = [x for x in s.view().parts[0].lines if str(x).startswith("intervals:")]
    assert len(lines) == 1
    line = str(lines[0])
    assert "population scope, mean and k ≤ 2" in line and "Bayesian bootstrap" in line
    assert "benchmark scope, mean and k ≤ 2: the unbiased estimate" not in line


def test_intervals_line_says_when_only_some_benchmark_rows_are_model_free() -> None:
    """Two systems on 40 tasks × 4 runs: A with many tasks of both outcomes (its benchmark
    rows model-free), B with 2 (its benchmark rows the model's): the line must not say the
    benchmark scope is the unbiased estimate without the rule's condition."""
    import numpy as np

    from passhat.model.text import BENCHMARK_RULE

    rng = np.random.default_rng(1)
    a = ph.counts_from_arrays(np.full(40, 4), rng.binomial(4, 0.5, 40), system="A")
    b = ph.counts_from_arrays(np.full(40, 4), np.array([2] + [0] * 18 + [4] * 20 + [2]),
                              system="B")  # fmt: skip
    from passhat.inputs import concat_systems

    both = concat_systems([a, b])
    f = ph.fit(both, k=[1, 2], method="grid", seed=0, draws=500, progress=False)
    s = f.summarize(k=[1, 2], ci=0.9)
    bench = s.table[s.table["scope"] == "benchmark"]
    assert (bench[bench["system"] == "A"]["method"] == BENCHMARK_RULE).all()
    assert not (bench[bench["system"] == "B"]["method"] == BENCHMARK_RULE).any()
    line = next(str(x) for x in s.view().parts[0].lines if str(x).startswith("intervals:"))
    assert "benchmark scope, mean and k ≤ 2 where ≥ 30 tasks, ≥ 10 with both outcomes" in line
    assert "(some rows here)" in line.split(";")[0]
