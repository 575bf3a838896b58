"""The inputs of a leaderboard as one count table: every system of one input or several.

Examples
--------
>>> import passhat as ph
>>> from passhat.rank.inputs import combine_systems
>>> combine_systems([ph.counts_from_arrays([2], [1], system="a"),
...                  ph.counts_from_arrays([2], [2], system="b")])["system"].values.tolist()
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Sequence

import xarray as xr

from passhat._ids import case_variant_notes_across
from passhat.compare.selection import concat_systems
from passhat.errors import ValidationError
from passhat.estimators import as_counts
from passhat.trials import Trials

__all__ = ["Input", "combine_systems"]


Input = Trials | xr.Dataset


def combine_systems(data: Input | Sequence[Input]) -> xr.Dataset:
    """One count table of every system of one input or several (systems must not repeat).

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.rank import combine_systems
    >>> ds = combine_systems(ph.load_example("agents"))
    >>> ds["system"].values.tolist()
    ['baseline', 'guided']
    """
    if isinstance(data, Trials | xr.Dataset):
        return as_counts(data)
    tables = [as_counts(d) for d in data]
    if not tables:
        raise ValidationError("no input to rank")
    if len(tables) == 1:
        return tables[0]
    seen: dict[str, int] = {}
    for i, t in enumerate(tables):
        for s in t["system"].values.tolist():
            if str(s) in seen:
                raise ValidationError(
                    f"system {s!r} appears in input {seen[str(s)] + 1} and input {i + 1}; "
                    "give each system once (rename one, e.g. with --map system=…)"
                )
            seen[str(s)] = i
    merged = concat_systems(tables)
    merged.attrs["across_inputs_notes"] = case_variant_notes_across(  # a reader saw one file
        [t["system"].values for t in tables]
    )
    return merged
