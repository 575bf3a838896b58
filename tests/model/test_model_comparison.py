"""The result of compare_models (:class:`passhat.model.comparison.ModelComparison`).

Oracles: the ArviZ comparison table the result holds (each shown cell is one of its values,
formatted; the sentence's verdict is the table's ELPD difference against twice its standard
error), and hand-made tables for the sentence's two cases.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pandas as pd
import pytest

import passhat as ph
from passhat.model.comparison import ModelComparison

HOSTILE = "<b onmouseover=x>sys</b>"


def _table(diff: float, dse: float, system: str = "A") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "system": [system, system],
            "model": ["beta", "inflated"],
            "rank": [0, 1],
            "elpd_loo": [-10.0, -10.0 - diff],
            "p_loo": [1.9, 2.8],
            "elpd_diff": [0.0, diff],
            "weight": [0.9, 0.1],
            "se": [2.0, 2.1],
            "dse": [0.0, dse],
            "warning": [False, True],
        }
    )


def test_sentence_says_clear_only_beyond_twice_the_standard_error() -> None:
    clear = ModelComparison(_table(3.0, 1.0), ic="loo", models=("beta", "inflated"))
    close = ModelComparison(_table(1.5, 1.0), ic="loo", models=("beta", "inflated"))
    assert "predicts left-out tasks better (ELPD difference 3.0 ± 1.0)" in repr(clear)
    assert "predicts left-out tasks about as well (ELPD difference 1.5 ± 1.0)" in repr(close)
    frame = clear.view().frame
    assert frame["elpd_loo"].tolist() == ["-10.0", "-13.0"] and frame["warning"].tolist() == [
        "no",
        "yes",
    ]


def test_grid_fits_compared_document_view_and_frozen() -> None:
    t = ph.load_example("abcd")
    fits = {name: ph.fit(t, method="grid", seed=s, chains=2, draws=500) for name, s in (("a", 0),
            ("b", 1))}  # fmt: skip
    cmp = ph.compare_models(fits)
    doc = cmp.to_dict()
    assert list(doc) == ["schema", "schema_version", "passhat_version", "ic", "models",
                         "comparison"]  # fmt: skip
    assert [r["model"] for r in doc["comparison"]] == cmp.table["model"].tolist()
    assert cmp.to_frame().equals(cmp.table) and cmp.best("seed-example") in ("a", "b")
    assert len(repr(cmp)) <= 2000 and "<table" in cmp._repr_html_()
    with pytest.raises(FrozenInstanceError):
        cmp.table = None  # type: ignore[misc]
    with pytest.raises(ph.OptionError, match="ic must be 'loo' or 'waic'"):
        ph.compare_models(fits, ic="aic")


def test_names_are_escaped_in_the_notebook() -> None:
    cmp = ModelComparison(_table(3.0, 1.0, system=HOSTILE), ic="loo", models=("beta", "inflated"))
    html = cmp._repr_html_()
    assert HOSTILE not in html and "&lt;b onmouseover=x&gt;sys&lt;/b&gt;" in html
