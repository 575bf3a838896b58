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

from typing import TYPE_CHECKING

from passhat._lazy import lazy_exports

if TYPE_CHECKING:
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

# Each reader module (passhat.io.tau_bench, ...) registers its readers when imported: the
# registry imports the one a format name needs, or all of them to list formats or sniff a file
# (passhat.io._registry.BUILTIN_READERS). Nothing is imported with the package itself.
lazy_exports(
    __name__,
    {
        "passhat.io._registry": (
            "file_sha256",
            "formats",
            "input_stamp",
            "read",
            "read_counts",
            "read_trials",
            "register_reader",
        ),
        "passhat.io.aggregate": ("aggregate_counts",),
        "passhat.io.traces": ("load_stages", "read_traces"),
    },
)
