"""The seeds' reference tables: clean runs vs ruled-out failure rate, runs to see a flip, retries.

The numbers of the seeds' printed tables (DESIGN.md "Planner"), each computed
by the closed forms of :mod:`passhat.planner.runs`; ``passhat plan table``
prints them (:class:`SeedTables`).

Examples
--------
>>> from passhat import plan
>>> plan.seed_tables().flip_rate["runs"].tolist()
[29, 59]
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import pandas as pd

from passhat._repr import View
from passhat._result import Result, records
from passhat.planner._checks import ASSUMPTIONS, prob, renamed_keyword
from passhat.planner.result import explain_lines
from passhat.planner.runs import DEFAULT_CI, failure_upper_bound, retry, runs_to_detect

__all__ = ["SeedTables", "seed_tables"]


@dataclass(frozen=True, repr=False, eq=False)
class SeedTables(Result):
    """The reference tables at one level ``ci`` (:func:`seed_tables`).

    Attributes
    ----------
    ci : float
        The level of the bounds, and the probability of seeing a flip.
    clean_runs : pandas.DataFrame
        runs, failure_rate_upper: the failure rate n clean runs rule out.
    flip_rate : pandas.DataFrame
        flip_rate, runs: the runs that show a flip with probability ``ci``.
    retry : pandas.DataFrame
        rate, attempts, retry_until_green, all_must_pass: a CI job's odds at p = 0.9.
    """

    schema: ClassVar[str] = "plan_table"

    ci: float
    clean_runs: pd.DataFrame
    flip_rate: pd.DataFrame
    retry: pd.DataFrame
    assumptions: tuple[str, ...] = ASSUMPTIONS

    def __getitem__(self, name: str) -> pd.DataFrame:
        """A table by name, as the dict this replaced gave it (``"gate"``: deprecated, the
        ``retry`` table)."""
        if name == "gate":
            warnings.warn(
                'seed_tables()["gate"] is deprecated: use .retry (the old name goes in the '
                "next release)",
                DeprecationWarning,
                stacklevel=2,
            )
            name = "retry"
        if name not in ("clean_runs", "flip_rate", "retry"):
            raise KeyError(name)
        return getattr(self, name).copy()  # type: ignore[no-any-return]

    def to_frame(self) -> pd.DataFrame:
        """The clean-runs table (``flip_rate`` and ``retry`` are the other two)."""
        return self.clean_runs.copy()

    def _document(self) -> dict[str, Any]:
        return {
            "ci": self.ci,
            "clean_runs": records(self.clean_runs),
            "flip_rate": records(self.flip_rate),
            "retry": records(self.retry),
            "assumptions": list(self.assumptions),
        }

    def view(self) -> View:
        """The seeds' lines, then how they were computed and the assumptions."""
        lines = [
            f"{int(r['runs']):>2} clean runs rule out failure rates above "
            f"{r['failure_rate_upper']:.1%}"
            for r in self.clean_runs.to_dict(orient="records")
        ]
        lines += [
            f"flip rate {r['flip_rate']:.0%}: {int(r['runs'])} runs"
            for r in self.flip_rate.to_dict(orient="records")
        ]
        g = self.retry.iloc[0]
        lines.append(
            f"p={g['rate']:g}, gate passes if any of {int(g['attempts'])} attempts passes: "
            f"{g['retry_until_green']:.1%}; all {int(g['attempts'])} must pass: "
            f"{g['all_must_pass']:.1%}"
        )
        why = (
            f"Bounds are exact one-sided Clopper–Pearson at {self.ci:.0%}; runs to see a flip "
            f"are ⌈ln(1−q)/ln(1−f)⌉ at q = {self.ci:.0%}."
        )
        return View("", None, lines=(*lines, *explain_lines(why, None, self.assumptions)))


def seed_tables(*, ci: float = DEFAULT_CI, confidence: float | None = None) -> SeedTables:
    """The reference tables: clean runs vs ruled-out failure rate, runs to see a flip, retries.

    The values of the seeds' printed tables (DESIGN.md "Planner"), each from
    :func:`failure_upper_bound`, :func:`runs_to_detect` and :func:`retry`.
    ``confidence`` is the old name of ``ci`` (deprecated: goes in the next release).

    Examples
    --------
    >>> from passhat import plan
    >>> t = plan.seed_tables()
    >>> t.clean_runs["failure_rate_upper"].round(3).tolist()
    [0.632, 0.451, 0.259, 0.139, 0.095, 0.049]
    """
    ci = renamed_keyword("confidence", confidence, "ci", ci, default=DEFAULT_CI)
    q = prob("ci", ci)
    clean = pd.DataFrame(
        {
            "runs": [3, 5, 10, 20, 30, 60],
            "failure_rate_upper": [
                float(failure_upper_bound(runs=n, failures=0, ci=q)) for n in (3, 5, 10, 20, 30, 60)
            ],
        }
    )
    flips = pd.DataFrame(
        {
            "flip_rate": [0.10, 0.05],
            "runs": [int(runs_to_detect(flip_rate=f, ci=q)) for f in (0.10, 0.05)],
        }
    )
    g = retry(rate=0.9, attempts=3)
    odds = pd.DataFrame(
        [
            {
                "rate": 0.9,
                "attempts": 3,
                "retry_until_green": g.quantities["retry_until_green"],
                "all_must_pass": g.quantities["all_must_pass"],
            }
        ]
    )
    return SeedTables(q, clean, flips, odds)
