"""One module per report section, each a pure function from the numbers to a Section.

In report order: :mod:`~passhat.report.sections.data`,
:mod:`~passhat.report.sections.headline` (with
:mod:`~passhat.report.sections.comparison`),
:mod:`~passhat.report.sections.spread`, :mod:`~passhat.report.sections.model`,
:mod:`~passhat.report.sections.flaky`, :mod:`~passhat.report.sections.plan`
and :mod:`~passhat.report.sections.divergence`. They read the document model
(:mod:`passhat.report.document`) and the analysis modules; only the builder
(:mod:`passhat.report.build`) imports them.
"""
