"""What a run's ``status`` says about its verdict (DESIGN: the data model's rules).

A run the grader could not score is neither a pass nor a failure: it is left
out of n and counted as unscored. A timeout, a tool error or a step limit is a
failure *of the system*: a run with such a status and no verdict counts in n
as a failure, said in a note, never silently dropped as unscored.

Examples
--------
>>> import pandas as pd
>>> from passhat._status import fail_without_verdict
>>> df = pd.DataFrame({"success": pd.array([True, None], dtype="boolean"),
...                    "status": ["ok", "timeout"]})
>>> fail_without_verdict(df)[0][:69], df["success"].tolist()
("1 run(s) with no verdict and status 'timeout' are counted as failures", [True, False])
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the status words are read without pandas; only frames need it
    import pandas as pd

__all__ = [
    "FAILURE_STATUSES",
    "UNSCORED_STATUSES",
    "fail_without_verdict",
    "failure_status_note",
    "passed_status_note",
    "status_notes",
]

#: Statuses that mean "the run was not decided": neither pass nor fail.
UNSCORED_STATUSES = frozenset(
    {"grader_error", "infrastructure_error", "infra_error", "unscored", "cancelled", "not_run"}
)

#: Statuses that say the system failed the run (timeouts, tool errors, step limits).
FAILURE_STATUSES = frozenset({"timeout", "tool_error", "max_steps"})


def failure_status_note(count: int, statuses: list[str]) -> str:
    """The note for ``count`` runs with no verdict whose status says the system failed."""
    names = ", ".join(repr(s) for s in sorted(statuses))
    return (
        f"{count} run(s) with no verdict and status {names} are counted as failures (a timeout, "
        "tool error or step limit is a failure of the system, not an unscored run)"
    )


def passed_status_note(count: int, statuses: list[str]) -> str:
    """The note for ``count`` runs graded as passes although their status says failure."""
    names = ", ".join(repr(s) for s in sorted(statuses))
    return (
        f"{count} run(s) with status {names} were graded as passes; the grader's verdict is "
        "kept (check the harness if a timeout cannot pass)"
    )


def status_notes(failed: tuple[int, set[str]], passed: tuple[int, set[str]]) -> list[str]:
    """The notes for (count, statuses) of runs counted as failures by their status, and of
    runs graded as passes with such a status; none for a count of 0."""
    return [
        note(count, sorted(statuses))
        for (count, statuses), note in ((failed, failure_status_note), (passed, passed_status_note))
        if count
    ]


def fail_without_verdict(df: pd.DataFrame) -> list[str]:
    """Set ``success`` to False where it is missing and the status is a failure; the notes
    (also for passes whose status says failure: the verdict stands, the note says so)."""
    marked = df["status"].str.casefold().isin(FAILURE_STATUSES)  # "Timeout" too
    failed = marked & df["success"].isna()
    passed = marked & (df["success"] == True)  # noqa: E712 (nullable booleans)
    df.loc[failed, "success"] = False
    return status_notes(
        (int(failed.sum()), set(df.loc[failed, "status"])),
        (int(passed.sum()), set(df.loc[passed, "status"])),
    )
