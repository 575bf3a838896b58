"""The seeds' reference tables: clean runs vs ruled-out failure rate, runs to see a flip, gate odds.

The numbers of the seeds' printed tables (DESIGN.md "Planner"), each computed
by the closed forms of :mod:`passhat.planner.runs`; ``passhat plan table``
prints them.

Examples
--------
>>> from passhat import plan
>>> plan.seed_tables()["flip_rate"]["runs"].tolist()
[29, 59]
"""

from __future__ import annotations

import pandas as pd

from passhat.planner.result import _prob
from passhat.planner.runs import failure_upper_bound, gate, runs_to_detect

__all__ = ["seed_tables"]


def seed_tables(*, confidence: float = 0.95) -> dict[str, pd.DataFrame]:
    """The reference tables: clean runs vs ruled-out failure rate, runs to see a flip, gate odds.

    The values of the seeds' printed tables (DESIGN.md "Planner"), each from
    :func:`failure_upper_bound`, :func:`runs_to_detect` and :func:`gate`.

    Examples
    --------
    >>> from passhat import plan
    >>> t = plan.seed_tables()
    >>> t["clean_runs"]["failure_rate_upper"].round(3).tolist()
    [0.632, 0.451, 0.259, 0.139, 0.095, 0.049]
    """
    q = _prob("confidence", confidence)
    clean = pd.DataFrame(
        {
            "runs": [3, 5, 10, 20, 30, 60],
            "failure_rate_upper": [
                float(failure_upper_bound(runs=n, failures=0, confidence=q))
                for n in (3, 5, 10, 20, 30, 60)
            ],
        }
    )
    flips = pd.DataFrame(
        {
            "flip_rate": [0.10, 0.05],
            "runs": [int(runs_to_detect(flip_rate=f, confidence=q)) for f in (0.10, 0.05)],
        }
    )
    g = gate(rate=0.9, attempts=3)
    gates = pd.DataFrame(
        [
            {
                "rate": 0.9,
                "attempts": 3,
                "retry_until_green": g.quantities["retry_until_green"],
                "all_must_pass": g.quantities["all_must_pass"],
            }
        ]
    )
    return {"clean_runs": clean, "flip_rate": flips, "gate": gates}
