"""One module per report section, each a pure function from the report's results to a Section.

In report order: :mod:`~passhat.report.sections.summary` (from the other sections),
:mod:`~passhat.report.sections.data`, :mod:`~passhat.report.sections.headline` (with
:mod:`~passhat.report.sections.comparison`), :mod:`~passhat.report.sections.leaderboard`
(three systems or more), :mod:`~passhat.report.sections.spread`,
:mod:`~passhat.report.sections.model`, :mod:`~passhat.report.sections.flaky`,
:mod:`~passhat.report.sections.plan` and :mod:`~passhat.report.sections.divergence`.

Each takes the :class:`~passhat.report.results.ReportResults` that
:func:`passhat.report.build.compute_results` computed (every number once, one seed stream)
and writes its sentences and tables from them: a section imports no module that computes
and takes no seed, interval level or resample count (``tests/report/sections/
test_section_imports.py`` checks both). Only :mod:`passhat.report.assemble` calls them.
"""
