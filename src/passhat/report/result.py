"""The result of :func:`passhat.report`: where the files are, what they say, and how it shows.

:class:`Report` holds the document (:class:`~passhat.report.document.ReportData`, what the
files show: every number with its scope and method) and the paths of the files written; the
results behind them, as Python objects, are
:func:`passhat.report.build.compute_results`' (:class:`~passhat.report.results.ReportResults`),
left out here so that the files are written without them in memory. Its view is what
``passhat report`` prints:
where the files are, the report's own summary, the k values, resamples and seed, the notes,
the sections not shown and those that failed. ``to_dict()`` is ``passhat report --json``:
the files, the settings, the summary and each section's status (the numbers themselves are
in ``results.json``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import pandas as pd

from passhat._repr import View
from passhat._result import Result

if TYPE_CHECKING:
    from passhat.report.document import ReportData, Section
    from passhat.report.render import ReportPaths

__all__ = ["Report"]

#: Notes the k line of the view already says (the resamples and the seed).
_SAID_BY_THE_K_LINE = ("population intervals:", "intervals:")


@dataclass(frozen=True, repr=False, eq=False)
class Report(Result):
    """Result of :func:`passhat.report`: the document and the files written.

    Attributes
    ----------
    data : ReportData
        What the report shows (sections, figures' texts, stamp); ``results.json`` is its
        JSON form.
    paths : ReportPaths
        Where the files are (``paths.html``, ``paths.json``, …).
    notes : tuple of str
        The report's notes that the reader's notes on the input did not already say (the
        stamp's ``notes`` hold both).

    Examples
    --------
    >>> import passhat as ph, tempfile
    >>> res = ph.report(ph.load_example("abcd"), tempfile.mkdtemp(), k=[1, 2], model=False,
    ...                 plan=False, n_boot=200)
    >>> res.to_dict()["schema"], [s["status"] for s in res.to_dict()["sections"]][:3]
    ('passhat.report', ['ok', 'ok', 'ok'])
    >>> print(repr(res).splitlines()[1].split(":")[0])
      open
    """

    schema: ClassVar[str] = "report"

    data: ReportData
    paths: ReportPaths
    notes: tuple[str, ...] = ()

    @property
    def summary(self) -> Section:
        """The summary section (the key numbers and the lines that matter)."""
        return self.data.section("summary")

    def to_frame(self) -> pd.DataFrame:
        """The summary's key numbers: one row per system at the largest k (raw numbers)."""
        return pd.DataFrame(self.summary.tables[0].rows)

    def _document(self) -> dict[str, Any]:
        paths = self.paths
        stamp = self.data.stamp
        return {
            "input": stamp.get("input", {}),
            "out_dir": str(paths.out_dir),
            "files": {
                "html": str(paths.html),
                "markdown": str(paths.markdown),
                "json": str(paths.json),
                "tasks": str(paths.tasks) if paths.tasks is not None else None,
                "figures": [str(f) for f in paths.figures],
            },
            "seed": stamp.get("seed"),
            "settings": stamp.get("settings", {}),
            "summary": list(self.summary.sentences),
            "sections": [
                {"id": s.id, "title": s.title, "status": s.status, "note": s.note}
                for s in self.data.sections
            ],
            "notes": list(self.notes),
        }

    def warnings(self) -> list[str]:
        """One line per section that failed (e.g. a model that failed its diagnostics)."""
        failed = [s for s in self.data.sections if s.status == "failed"]
        return [f"  warning: {s.title}: {s.note}" for s in failed]

    def warnings_view(self) -> View:
        """The lines of the sections that failed (what ``passhat report`` prints on stderr)."""
        return View("", None, lines=tuple(self.warnings()))

    def view(self, *, paths_only: bool = False, warnings: bool = True) -> View:
        """What ``passhat report`` prints.

        Parameters
        ----------
        paths_only : bool
            Only the path of ``index.html`` (``passhat report --quiet``).
        warnings : bool
            Include the lines of the sections that failed (the CLI prints them on stderr).
        """
        if paths_only:
            return View("", None, lines=(str(self.paths.html),))
        paths, settings = self.paths, self.data.stamp["settings"]
        lines = [
            f"  open:     {paths.html}",
            f"  markdown: {paths.markdown} (figures in {paths.out_dir / 'figures'})",
            f"  numbers:  {paths.json}",
            *(f"  {line}" for line in self.summary.sentences),  # the report's own, verbatim
            f"  k = {', '.join(map(str, settings['k']))}; bootstrap {settings['n_boot']} "
            f"resamples, seed {self.data.stamp['seed']}",
        ]
        notes = [f"  note: {n}" for n in self.notes if not n.startswith(_SAID_BY_THE_K_LINE)]
        notes += [
            f"  {s.title}: not shown ({s.note})"
            for s in self.data.sections
            if s.status == "skipped"
        ]
        if warnings:
            notes += self.warnings()
        return View(
            f"report written to {paths.out_dir}/", None, lines=tuple(lines), notes=tuple(notes)
        )
