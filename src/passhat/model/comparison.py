"""The result of :func:`passhat.compare_models`: fits of the same data ranked by PSIS-LOO.

:class:`ModelComparison` holds ArviZ's comparison table per system (rank, expected log
predictive density of a left-out task, its standard error, the difference to the best model
and its standard error, the stacking weight, the Pareto-k warning) and shows it, with one
sentence per system saying which model predicts left-out tasks better and whether the
difference is clear (more than twice its standard error).

Examples
--------
>>> import pandas as pd
>>> t = pd.DataFrame({"system": ["A", "A"], "model": ["beta", "inflated"], "rank": [0, 1],
...                   "elpd_loo": [-10.0, -13.0], "p_loo": [1.9, 2.8], "elpd_diff": [0.0, 3.0],
...                   "weight": [0.9, 0.1], "se": [2.0, 2.1], "dse": [0.0, 1.0],
...                   "warning": [False, False]})
>>> cmp = ModelComparison(t, ic="loo", models=("beta", "inflated"))
>>> cmp.best("A"), cmp.view().notes[0]
('beta', 'A: the beta model predicts left-out tasks better (ELPD difference 3.0 ± 1.0).')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pandas as pd

from passhat._format import num
from passhat._repr import View
from passhat._result import Result, records
from passhat.model.text import LOO_NOTE, loo_sentence

__all__ = ["ModelComparison"]


@dataclass(frozen=True, repr=False, eq=False)
class ModelComparison(Result):
    """Fits of the same data ranked by PSIS-LOO (or WAIC), separately per system.

    Attributes
    ----------
    table : pandas.DataFrame
        system, model and ArviZ's columns (rank, elpd_loo, p_loo, elpd_diff, weight, se, dse,
        warning, scale; ``_waic`` instead of ``_loo`` with ``ic="waic"``), best model first
        within each system.
    ic : str
        The information criterion: "loo" or "waic".
    models : tuple of str
        The names of the fits compared.
    exact : bool
        True when the leave-one-task-out values are exact (a stacked fit's: each task left out
        and the model refitted on its grid) rather than PSIS estimates; ``weight`` is then the
        stacking weight the fit used.
    """

    schema: ClassVar[str] = "model_comparison"

    table: pd.DataFrame
    ic: str
    models: tuple[str, ...]
    exact: bool = False

    def to_frame(self) -> pd.DataFrame:
        """The comparison table (:attr:`table`)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "ic": self.ic,
            "models": list(self.models),
            "comparison": records(self.table),
        }
        if self.exact:
            doc["exact"] = True
        return doc

    def best(self, system: str) -> str:
        """The model ranked first for ``system``."""
        part = self.table[self.table["system"] == system]
        return str(part.iloc[0]["model"])

    def view(self) -> View:
        """The table per system and model, one sentence per system, what LOO asks."""
        t = self.table
        elpd, p = f"elpd_{self.ic}", f"p_{self.ic}"
        frame = pd.DataFrame(
            {
                "system": t["system"].astype(str),
                "model": t["model"].astype(str),
                "rank": t["rank"].astype(int).astype(str),
                elpd: [num(v, 1) for v in t[elpd]],
                p: [num(v, 1) for v in t[p]],
                "elpd_diff": [num(v, 1) for v in t["elpd_diff"]],
                "dse": [num(v, 1) for v in t["dse"]],
                "weight": [num(v, 2) for v in t["weight"]],
                "warning": ["yes" if w else "no" for w in t["warning"]],
            }
        )
        sentences = []
        for _, part in t.groupby("system", sort=False):
            rows = part.to_dict(orient="records")
            if len(rows) > 1:
                sentences.append(loo_sentence(rows[0], rows[1]))
        how = "PSIS-LOO" if self.ic == "loo" else "WAIC"
        if self.exact:
            how = "exact leave-one-task-out (weights: the stacking weights used)"
        return View(
            f"Model comparison by {how}, per system",
            frame,
            notes=(*sentences, LOO_NOTE),
            left=frozenset({"system", "model"}),
            section_by="system",
        )
