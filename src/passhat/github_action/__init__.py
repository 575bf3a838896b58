"""passhat's GitHub Action: ``action.yml`` at the repository root calls this package.

``python -m passhat.github_action --files RUNS [--baseline BASE] [--margin M |
--max-failure-rate F] [--metric M] [--k K] [--ci CI] [--format F] [--threshold T]
[--on-continue fail|pass] [--comment-file PATH]`` runs
``passhat gate`` and ``passhat compare`` (or ``estimate``) with ``--json``, writes their tables
as Markdown to ``$GITHUB_STEP_SUMMARY`` and to a file for a pull-request comment, sets the
step's outputs (``decision``, ``exit-code``, ``comment-file``) in ``$GITHUB_OUTPUT``, and exits
with the gate's status: 0 pass, 1 fail, 3 continue (2 bad input, 4 I/O). It runs anywhere a
shell does: outside GitHub the summary and outputs are skipped when their variables are unset.
:mod:`passhat.github_action.run` holds the steps, :mod:`passhat.github_action.markdown` the
tables.
"""

from __future__ import annotations

__all__: list[str] = []
