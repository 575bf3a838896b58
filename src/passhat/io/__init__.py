"""Readers: each maps a source format to the trial table (or a count table).

A reader is registered with :func:`register_reader` under a format name, with
a ``sniff`` function that says whether a file looks like its format. Use
:func:`read_trials` (trials) or :func:`read` (trials or counts, whichever the
file holds).

Examples
--------
>>> import passhat as ph
>>> sorted(ph.io.formats())[:3]
['counts', 'csv', 'inspect']
"""

from __future__ import annotations

from passhat.io import counts as _counts  # noqa: F401  (registers)
from passhat.io import inspect_log as _inspect  # noqa: F401  (registers)
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

__all__ = [
    "file_sha256",
    "formats",
    "input_stamp",
    "read",
    "read_counts",
    "read_trials",
    "register_reader",
]
