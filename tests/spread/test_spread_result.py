"""passhat.spread.result: Spread and SummarySpread are frozen results with one display.

Oracles: the keys ``passhat spread --json`` printed before the results owned their document
(commands/spread.py at f7fd4e7), the results' own tables (the document holds them as they
are), and the shape every result shares (header, repr ≤ 2,000 characters, names escaped in
HTML, assignment refused).
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

import passhat as ph
from passhat._result import MAX_REPR
from passhat.errors import OptionError
from passhat.spread import SpreadRow

HOSTILE = "<b onmouseover=x>sys</b>"

#: The keys of ``passhat spread --json`` (runs) before the reshape, after passhat_version.
RUNS_KEYS = [
    "input",
    "settings",
    "method",
    "spread",
    "shares",
    "heterogeneity",
    "contributions",
    "excluded",
    "notes",
]
#: The keys of the published pair's ``spread`` object before the reshape.
PAIR_KEYS = [
    "label",
    "mean",
    "pass_hat_k",
    "k",
    "uniform",
    "ratio",
    "consistency",
    "gap",
    "explained",
    "reason",
    "beta",
    "mixed_share_published",
    "mixed_share_runs",
    "mixed_share_check",
    "impossible",
    "method",
    "sentence",
]
HEADER = ["schema", "schema_version", "passhat_version"]


@pytest.fixture(scope="module")
def sp() -> ph.spread:  # type: ignore[valid-type]
    return ph.spread(ph.load_example("agents"), k=[1, 5], ci=0.9, n_boot=200, seed=0)


def test_document_has_the_header_and_the_keys_the_command_printed(sp) -> None:
    doc = sp.to_dict()
    assert list(doc) == HEADER + RUNS_KEYS
    assert doc["schema"] == "passhat.spread" and doc["schema_version"] == 1
    assert doc["input"]["example"] == "agents"  # provenance captured when computed
    assert doc["spread"] == sp.to_dict()["spread"]
    assert [r["system"] for r in doc["spread"]] == [r.system for r in sp.rows]
    assert doc["spread"][1]["ratio_lower"] == pytest.approx(sp.rows[1].ratio_lower)
    assert doc["method"]["heterogeneity"].endswith(f"α = {sp.alpha:g}")


def test_rows_are_the_table(sp) -> None:
    assert all(isinstance(r, SpreadRow) for r in sp.rows)
    pd.testing.assert_frame_equal(sp.to_frame(), pd.DataFrame([r.record() for r in sp.rows]))
    r = sp.reading("guided", 5)
    assert r.ratio == sp.row("guided", 5)["ratio"]
    assert sp.sentence("guided", 5) == " ".join(sp.sentence_parts("guided", 5))
    with pytest.raises(OptionError, match="no spread row"):
        sp.reading("guided", 4)


def test_intervals_are_columns_only_when_computed() -> None:
    plain = ph.spread(ph.load_example("agents"), k=[1, 5])
    assert "ratio_lower" not in plain.table.columns and "scope" not in plain.table.columns
    ratio = plain.view().parts[0]
    assert "CI" not in ratio.title and ratio.frame is not None
    assert ratio.frame.iloc[1, 5] == "2.4×"  # the ratio alone: no interval was computed


def test_view_is_what_the_command_prints(sp) -> None:
    disp = sp.view()
    ratio, test = disp.parts
    assert ratio.frame is not None and list(ratio.frame.columns)[5] == "ratio (90% CI)"
    r = sp.reading("baseline", 5)
    row = ratio.frame.iloc[1].tolist()
    assert row[:2] == ["baseline", "5"] and row[3] == f"{r.pass_hat_k:.1%}"
    assert test.lines[0] == f"baseline: {sp.sentence('baseline', 5)}"
    assert test.lines[-1].startswith("bootstrap and test: 200 resamples, seed 0")


def test_repr_html_and_frozen() -> None:
    t = ph.load_example("agents")
    frame = t.frame.assign(system=t.frame["system"].replace("guided", HOSTILE))
    sp = ph.spread(ph.Trials.from_frame(frame), k=[1, 5])
    assert len(repr(sp)) <= MAX_REPR and HOSTILE in repr(sp)
    html = sp._repr_html_()
    assert HOSTILE not in html and "&lt;b onmouseover=x&gt;sys&lt;/b&gt;" in html
    with pytest.raises(dataclasses.FrozenInstanceError):
        sp.alpha = 0.1  # type: ignore[misc]


def test_pair_document_view_and_strict() -> None:
    s = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5, label=HOSTILE)
    doc = s.to_dict()
    assert list(doc) == [*HEADER, "spread"] and doc["schema"] == "passhat.spread_summary"
    assert list(doc["spread"]) == PAIR_KEYS
    assert doc["spread"]["beta"]["pass_hat_k"]["5"] == pytest.approx(0.53)
    assert doc["spread"]["sentence"] == s.sentence()
    parts = s.view().parts
    assert [p.title for p in parts[:2]] == [
        f"passhat spread: {HOSTILE}",
        "Implied Beta spread: κ = 1.43, ICC = 0.41",
    ]
    assert parts[-1].lines == (s.sentence(),)
    assert HOSTILE not in s._repr_html_() and len(repr(s)) <= MAX_REPR
    assert s.to_frame()["kappa"].iloc[0] == pytest.approx(s.beta.kappa)  # type: ignore[union-attr]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.k = 2  # type: ignore[misc]
    # an impossible pair: flagged by default, refused with strict (the command's rule)
    assert ph.spread_from_summary(mean=0.5, pass_hat_k=0.9, k=5).impossible
    with pytest.raises(OptionError, match=r"mean/pass_hat_k/k: pass\^5 = 0\.9 > mean"):
        ph.spread_from_summary(mean=0.5, pass_hat_k=0.9, k=5, strict=True)


def test_default_k_is_the_one_rule() -> None:
    """No k: 1, 2, 5 capped at the fewest decided runs (4 here → 1, 2, 4), as every command."""
    counts = ph.counts_from_arrays([4, 4, 6], [1, 3, 2])
    assert sorted({r.k for r in ph.spread(counts).rows}) == [1, 2, 4]


# ------------------------------------------------------------------ the table for papers
def test_paper_table_holds_the_spread_rows_and_their_intervals() -> None:
    from tests.paper_cells import close, markdown_rows, numbers

    sp = ph.spread(ph.load_example("agents"), k=[2, 5], ci=0.9, n_boot=200, seed=0)
    rows = markdown_rows(sp.to_markdown())
    assert [(r["system"], r["k"]) for r in rows] == [
        ("baseline", "2"), ("baseline", "5"), ("guided", "2"), ("guided", "5"),
    ]  # fmt: skip
    for r, want in zip(rows, sp.rows, strict=True):
        v, lo, hi = numbers(r["pass^k"])
        assert close(v, want.pass_hat_k) and close(lo, want.pass_hat_k_lower)
        assert close(hi, want.pass_hat_k_upper) and close(numbers(r["mean^k"])[0], want.uniform)
        v, lo, hi = numbers(r["pass^k / mean^k"])
        assert close(v, want.ratio, 2) and close(lo, want.ratio_lower, 2)
        assert close(hi, want.ratio_upper, 2)
    assert "90% intervals, population scope" in sp.to_markdown()


def test_paper_table_of_a_published_pair() -> None:
    from tests.paper_cells import markdown_rows

    s = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5, label="τ-bench")
    (row,) = markdown_rows(s.to_markdown())
    assert row["row"] == "τ-bench" and row["pass^k / mean^k"] == f"{s.ratio:.2f}"
    assert "\\ensuremath{\\tau}-bench" in s.to_latex()
    gone = ph.spread_from_summary(mean=0.5, pass_hat_k=0.2, k=2)
    assert markdown_rows(gone.to_markdown())[0]["ICC"] == "—"
    assert "none does" in gone.to_markdown()
