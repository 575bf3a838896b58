"""Readers: each maps a source format to the trial table, a count table, or traces.

A reader is registered with :func:`register_reader` under a format name and a
kind (``"trials"``, ``"counts"`` or ``"traces"``), with a ``sniff`` function
that says whether a file looks like its format; one module per format holds
its readers of every kind. Use :func:`read_trials` (trials), :func:`read`
(trials or counts, whichever the file holds), :func:`read_counts` (a count
table; tidy files, directories and globs of part files are counted out of core
by :func:`aggregate_counts`) or :func:`read_traces` (per-trial tool calls and
outcomes).

Examples
--------
>>> import passhat as ph
>>> sorted(ph.io.formats())[:2]
['counts', 'csv']
>>> ph.io.formats(kind="traces")
['tau-bench', 'tau2-bench', 'inspect', 'steps-jsonl']
"""

from __future__ import annotations

from passhat.io import counts as _counts  # noqa: F401  (registers)
from passhat.io import harbor as _harbor  # noqa: F401  (registers)
from passhat.io import helm as _helm  # noqa: F401  (registers)
from passhat.io import inspect_log as _inspect  # noqa: F401  (registers)
from passhat.io import lm_eval as _lm_eval  # noqa: F401  (registers)
from passhat.io import promptfoo as _promptfoo  # noqa: F401  (registers)
from passhat.io import steps_jsonl as _steps  # noqa: F401  (registers)
from passhat.io import swebench as _swebench  # noqa: F401  (registers)
from passhat.io import tau2_bench as _tau2  # noqa: F401  (registers)
from passhat.io import tau_bench as _tau  # noqa: F401  (registers)
from passhat.io import tidy as _tidy  # noqa: F401  (registers)
from passhat.io._registry import (
    file_sha256,
    formats,
    input_stamp,
    read,
    read_counts,
    read_trials,
    register_reader,
)
from passhat.io.aggregate import aggregate_counts
from passhat.io.traces import load_stages, read_traces

__all__ = [
    "aggregate_counts",
    "file_sha256",
    "formats",
    "input_stamp",
    "load_stages",
    "read",
    "read_counts",
    "read_traces",
    "read_trials",
    "register_reader",
]
