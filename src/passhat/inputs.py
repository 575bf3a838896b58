"""Several inputs as one: systems named after their files, and the inputs combined.

A tidy file with one model's runs usually has no system column: read alone, its runs are
the system ``"system"`` (:data:`passhat.trials.DEFAULT_SYSTEM`). Given with other files
(``passhat rank a.csv b.csv``, ``ph.rank([ph.read(a), ph.read(b)])``), each such file's
system is named after the file (:func:`name_systems`): ``a.csv`` → ``a``. So is a
file's one system when another input names a system the same (two runs of one model):
both are named after their files, as ``passhat compare BASE CAND`` always did. Each
renaming is said in a note. A file's own name for its system is kept otherwise; naming
one explicitly is the reader's ``system_name`` (``--system-name FILE=NAME``).

:func:`combine_inputs` makes one input of several (a trial table when every input is
one, else a count table), refusing a system that two inputs hold; :func:`as_input` is
what the API's functions that take one input or a list call.

Reads nothing: the file names come from the inputs' provenance
(:func:`passhat.trials.provenance`), so data built in Python (no path) keep their names.

Examples
--------
>>> import passhat as ph
>>> a = ph.counts_from_arrays([4, 4], [3, 1])
>>> b = ph.counts_from_arrays([4, 4], [2, 2])
>>> a.attrs["source_path"], b.attrs["source_path"] = "runs/claude.csv", "runs/gpt.csv"
>>> named, notes = name_systems([a, b])
>>> [str(x["system"].values[0]) for x in named]
['claude', 'gpt']
>>> print(notes[0].split(": ", 1)[1].split(";")[0])
'claude' (runs/claude.csv), 'gpt' (runs/gpt.csv)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import PurePath
from typing import TypeAlias

import numpy as np
import pandas as pd
import xarray as xr

from passhat.errors import OptionError, ValidationError
from passhat.estimators import as_counts
from passhat.trials import DEFAULT_SYSTEM, Trials, provenance

__all__ = [
    "Input",
    "as_input",
    "check_distinct",
    "combine_inputs",
    "concat_systems",
    "file_labels",
    "input_name",
    "join_inputs",
    "keep_systems",
    "name_systems",
    "systems_of",
]

Input: TypeAlias = Trials | xr.Dataset

#: How a note tells the user to name a file's system.
NAME_FIX = "--system-name FILE=NAME (Python: read(FILE, system_name=NAME)) names one"


#: The variables a merged count table of several inputs keeps.
_KEEP = ["n", "c", "unscored", "present", "weight"]


def concat_systems(tables: Sequence[xr.Dataset]) -> xr.Dataset:
    """Count tables of disjoint systems as one: the union of their tasks, a task a system
    did not run has n = c = 0 and ``present`` False.

    Examples
    --------
    >>> from passhat.trials import counts_from_arrays
    >>> a = counts_from_arrays([2, 2], [1, 2], tasks=["t1", "t2"], system="A")
    >>> b = counts_from_arrays([2], [0], tasks=["t1"], system="B")
    >>> m = concat_systems([a, b])
    >>> m["present"].values.tolist(), m["n"].values.tolist()
    ([[True, True], [True, False]], [[2, 2], [2, 0]])
    """
    merged = xr.concat(
        [t[_KEEP].reset_coords(drop=True) for t in tables],
        dim="system",
        join="outer",
        fill_value=0,
        coords="minimal",
        compat="override",
    )
    merged["present"] = merged["present"].astype(bool)
    if any("cluster" in t.coords for t in tables):
        merged = merged.assign_coords(cluster=("task", _merged_labels(tables, merged, "cluster")))
    if any("category" in t.coords for t in tables):  # kept for by="category"
        try:
            cats = _merged_labels(tables, merged, "category")
        except ValidationError as err:  # an error only when the categories are used
            merged.attrs["category_clash"] = str(err)
        else:
            merged = merged.assign_coords(category=("task", cats))
    return merged


def _merged_labels(tables: Sequence[xr.Dataset], merged: xr.Dataset, coord: str) -> np.ndarray:
    """Each task's cluster (or category) over the inputs that name one (a task placed in two
    is an error naming it; a task no input places stays without one, for
    :func:`passhat.clusters.clusters_of` or ``by`` to name)."""
    found = pd.Series(
        np.full(merged.sizes["task"], None, dtype=object), index=merged["task"].values
    )
    for t in tables:
        if coord not in t.coords:
            continue
        own = pd.Series(np.asarray(t[coord].values, dtype=object), index=t["task"].values)
        old = found.reindex(own.index)
        clash = old.notna() & own.notna() & (old != own)
        if clash.any():
            task = clash.index[int(np.flatnonzero(clash.to_numpy())[0])]
            raise ValidationError(
                f"task {task!r} is in {coord} {old[task]!r} in one input and {own[task]!r} in "
                f"another; a task belongs to one {coord}"
            )
        found.loc[own.index] = own.where(own.notna(), old).to_numpy()
    return found.to_numpy(dtype=object)


def systems_of(data: Input) -> list[str]:
    """The system names of an input, in order.

    Examples
    --------
    >>> import passhat as ph
    >>> systems_of(ph.load_example("agents"))
    ['baseline', 'guided']
    """
    if isinstance(data, Trials):
        return [str(s) for s in data.systems]
    if isinstance(data, xr.Dataset):
        return [str(s) for s in data["system"].values]
    raise ValidationError(
        f"expected passhat.Trials or a count-table xarray.Dataset, got {type(data).__name__}"
    )


def input_name(data: Input, i: int) -> str:
    """How messages name input ``i`` (0-based): its path, its example, or "input i+1".

    Examples
    --------
    >>> import passhat as ph
    >>> input_name(ph.load_example("abcd"), 0), input_name(ph.counts_from_arrays([1], [1]), 1)
    ('example abcd', 'input 2')
    """
    src = provenance(data)
    if "example" in src:
        return f"example {src['example']}"
    if "path" in src:
        return src["path"]
    return f"input {i + 1}"


def _label(path: str, depth: int) -> str:
    """The file's name at ``depth``: 0 its stem, 1 its name, d ≥ 2 the last d parts."""
    p = PurePath(path)
    if depth == 0:
        return p.stem or p.name or path
    if depth == 1:
        return p.name or path
    return "/".join(p.parts[-depth:])


def file_labels(paths: Sequence[str]) -> list[str]:
    """Short distinct names of files: their stems, lengthened where two would be equal.

    Two files with one stem are named by their file names, then by as many of their
    parent folders as tell them apart; the same path given twice is numbered.

    Examples
    --------
    >>> file_labels(["runs/claude.csv", "runs/gpt.csv"])
    ['claude', 'gpt']
    >>> file_labels(["a/results.json", "b/results.json", "c.csv"])
    ['a/results.json', 'b/results.json', 'c']
    >>> file_labels(["x.csv", "x.csv"])
    ['x (1)', 'x (2)']
    """
    labels = [_label(p, 0) for p in paths]
    depth = [0] * len(paths)
    most = [len(PurePath(p).parts) for p in paths]
    while True:
        counts = Counter(labels)
        clash = [i for i, lab in enumerate(labels) if counts[lab] > 1 and depth[i] < most[i]]
        if not clash:
            break
        for i in clash:
            depth[i] += 1
            labels[i] = _label(paths[i], depth[i])
    counts, seen = Counter(labels), Counter[str]()
    out = []
    for p, lab in zip(paths, labels, strict=True):
        if counts[lab] > 1:  # the same path more than once
            seen[lab] += 1
            lab = f"{_label(p, 0)} ({seen[lab]})"
        out.append(lab)
    return out


def _relabel(data: Input, name: str) -> Input:
    """The input with its one system called ``name`` (provenance: named after its file)."""
    if isinstance(data, Trials):
        return Trials(
            frame=data.frame.assign(system=name),
            source={**data.source, "system_from": "file name"},
            excluded=data.excluded,
            notes=list(data.notes),
        )
    out = data.assign_coords(system=np.array([name], dtype=object))
    out.attrs["source_system_from"] = "file name"
    return out


def _to_name(inputs: Sequence[Input], clashes: bool = True) -> tuple[list[int], list[int]]:
    """The inputs named after their files: those naming no system, and the one-system ones
    whose name another input also holds (each list: indices)."""
    systems = [systems_of(d) for d in inputs]
    has_path = ["path" in provenance(d) for d in inputs]
    single = [len(s) == 1 and has_path[i] for i, s in enumerate(systems)]
    unnamed = [i for i, s in enumerate(systems) if single[i] and s[0] == DEFAULT_SYSTEM]
    clashing = []
    for i, s in enumerate(systems):
        if not clashes or not single[i] or i in unnamed:
            continue
        others = {x for j, o in enumerate(systems) if j != i and j not in unnamed for x in o}
        if s[0] in others:
            clashing.append(i)
    return unnamed, clashing


def name_systems(inputs: Sequence[Input], *, clashes: bool = True) -> tuple[list[Input], list[str]]:
    """Name each input's system after its file where the file does not tell it apart.

    With two or more inputs, an input read from a file whose one system has no name of its
    own (``"system"``: a tidy file without a system column) is named after its file; and
    one-system files naming the same system as another input are named after their files
    too (unless ``clashes`` is False: inputs used apart, such as a gate's candidate and
    baseline, may share a name). Other inputs are returned as they are. With one input
    nothing changes.

    Returns
    -------
    (list, list of str)
        The inputs (renamed ones are copies) and the notes saying what was named.

    Examples
    --------
    >>> import passhat as ph
    >>> a = ph.counts_from_arrays([4], [3], system="gpt")
    >>> b = ph.counts_from_arrays([4], [1], system="gpt")
    >>> a.attrs["source_path"], b.attrs["source_path"] = "old/gpt.json", "new/gpt.json"
    >>> named, notes = name_systems([a, b])
    >>> [str(x["system"].values[0]) for x in named]
    ['old/gpt.json', 'new/gpt.json']
    """
    inputs = list(inputs)
    if len(inputs) < 2:
        return inputs, []
    repeats = repeat_notes(inputs)
    unnamed, clashing = _to_name(inputs, clashes)
    chosen = sorted(unnamed + clashing)
    if not chosen:
        return inputs, repeats
    paths = [provenance(inputs[i])["path"] for i in chosen]
    labels = dict(zip(chosen, file_labels(paths), strict=True))
    notes = []
    if unnamed:
        shown = ", ".join(f"{labels[i]!r} ({input_name(inputs[i], i)})" for i in unnamed)
        notes.append(f"systems named after their files (the files name none): {shown}; {NAME_FIX}")
    if clashing:
        shown = ", ".join(
            f"{labels[i]!r} ({input_name(inputs[i], i)}: {systems_of(inputs[i])[0]!r})"
            for i in clashing
        )
        notes.append(f"files naming the same system are named after the files: {shown}; {NAME_FIX}")
    renamed = [_relabel(d, labels[i]) if i in labels else d for i, d in enumerate(inputs)]
    return renamed, repeats + notes


def repeat_notes(inputs: Sequence[Input]) -> list[str]:
    """Notes on inputs given more than once: the same path, or files of identical content.

    Each mention still counts as its own input (nothing is merged); a repeat is most often
    a slip, so it is said.

    Examples
    --------
    >>> import passhat as ph
    >>> a = ph.counts_from_arrays([4], [3], system="gpt")
    >>> a.attrs["source_path"], a.attrs["source_sha256"] = "gpt.json", "ab12"
    >>> repeat_notes([a, a])
    ["the same file is given 2 times: 'gpt.json'; each mention counts as a separate input"]
    """
    by_path: dict[str, int] = Counter()
    by_hash: dict[str, list[str]] = {}
    for d in inputs:
        src = provenance(d)
        path, digest = src.get("path"), src.get("sha256")
        if path is None:
            continue
        by_path[str(path)] += 1
        if digest is not None and str(path) not in by_hash.setdefault(str(digest), []):
            by_hash[str(digest)].append(str(path))
    notes = [
        f"the same file is given {n} times: {p!r}; each mention counts as a separate input"
        for p, n in by_path.items()
        if n > 1
    ]
    notes += [
        "files of identical content (same SHA-256): "
        + ", ".join(repr(p) for p in paths)
        + "; each counts as a separate input"
        for paths in by_hash.values()
        if len(paths) > 1
    ]
    return notes


def check_distinct(inputs: Sequence[Input]) -> None:
    """Refuse a system that two inputs hold (its runs would merge, or one would be lost).

    Examples
    --------
    >>> import passhat as ph
    >>> check_distinct([ph.load_example("agents")] * 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    passhat.errors.ValidationError: system 'baseline' appears in example agents and ...
    """
    seen: dict[str, int] = {}
    for i, d in enumerate(inputs):
        for s in systems_of(d):
            if s in seen:
                j = seen[s]
                raise ValidationError(
                    f"system {s!r} appears in {input_name(inputs[j], j)} and "
                    f"{input_name(d, i)}; give each system once: {NAME_FIX} (a file without a "
                    "system column), or rename it in the file"
                )
            seen[s] = i


def _combined_source(inputs: Sequence[Input]) -> dict[str, str]:
    """Provenance of several inputs as one: their paths, names, formats and hashes, in order."""
    srcs = [provenance(d) for d in inputs]
    names = [input_name(d, i) for i, d in enumerate(inputs)]
    out = {
        "files": str(len(inputs)),
        "path": ", ".join(names),
        "file_names": ", ".join(
            PurePath(n).name if "path" in s else n for n, s in zip(names, srcs, strict=True)
        ),
        "format": ", ".join(dict.fromkeys(s.get("format", "python") for s in srcs)),
    }
    if all("sha256" in s for s in srcs):
        out["sha256"] = ", ".join(s["sha256"] for s in srcs)
    return out


def combine_inputs(inputs: Sequence[Input]) -> Input:
    """One input holding every system of several (named by :func:`name_systems`).

    A trial table when every input is one (each run kept, with its status, score and
    task columns), else a count table of every system over the union of the tasks. The
    provenance lists the inputs (``files``: how many; ``path``, ``file_names``, ``format``,
    ``sha256``: comma-separated, in order) and the notes say what was named.

    Raises
    ------
    ValidationError
        No input, or a system that two inputs hold.

    Examples
    --------
    >>> import passhat as ph
    >>> a = ph.counts_from_arrays([4, 4], [3, 1], tasks=["t1", "t2"])
    >>> b = ph.counts_from_arrays([4], [2], tasks=["t1"])
    >>> a.attrs["source_path"], b.attrs["source_path"] = "claude.csv", "gpt.csv"
    >>> both = combine_inputs([a, b])
    >>> both["system"].values.tolist(), both["n"].values.tolist()
    (['claude', 'gpt'], [[4, 4], [4, 0]])
    """
    inputs = list(inputs)
    if not inputs:
        raise ValidationError("no input: give at least one")
    if len(inputs) == 1:
        return inputs[0]
    named, notes = name_systems(inputs)
    check_distinct(named)
    return join_inputs(named, inputs, notes=notes)


def join_inputs(
    named: Sequence[Input], inputs: Sequence[Input], *, notes: Sequence[str] = ()
) -> Input:
    """The inputs ``named`` (:func:`name_systems` of ``inputs``; distinct systems) as one.

    The body of :func:`combine_inputs`, for callers that keep the naming notes apart:
    ``notes`` come first in the result's notes, then each input's own, prefixed by it.
    """
    source = _combined_source(inputs)
    if all(isinstance(d, Trials) for d in named):
        trials = [d for d in named if isinstance(d, Trials)]
        frame = pd.concat([t.frame for t in trials], ignore_index=True, sort=False)
        excluded = [t.excluded for t in trials if len(t.excluded)]
        return Trials(
            frame=frame,
            source=source,
            excluded=pd.concat(excluded, ignore_index=True) if excluded else trials[0].excluded,
            notes=list(notes)
            + [f"{input_name(d, i)}: {n}" for i, d in enumerate(inputs) for n in _notes(d)],
        )
    merged = concat_systems([as_counts(d) for d in named])
    merged.attrs.update({f"source_{k}": v for k, v in source.items()})
    merged.attrs["notes"] = list(notes)
    return merged


def _notes(data: Input) -> list[str]:
    return list(data.notes) if isinstance(data, Trials) else list(data.attrs.get("notes", []))


def keep_systems(inputs: Sequence[Input], systems: Sequence[str]) -> list[Input]:
    """Only the named systems of the inputs (an input holding none of them is left out).

    Raises
    ------
    OptionError
        A system no input holds (``param="system"``: ``--system`` on the command line).

    Examples
    --------
    >>> import passhat as ph
    >>> [systems_of(d) for d in keep_systems([ph.load_example("agents")], ["guided"])]
    [['guided']]
    """
    have = [s for d in inputs for s in systems_of(d)]
    missing = [s for s in systems if s not in have]
    if missing:
        raise OptionError(
            f"{{param}} {missing[0]!r}: no input holds it; have {', '.join(map(repr, have))}",
            param="system",
        )
    out: list[Input] = []
    for d in inputs:
        mine = [s for s in systems_of(d) if s in systems]
        if not mine:
            continue
        if len(mine) == len(systems_of(d)):
            out.append(d)
        elif isinstance(d, Trials):
            out.append(d.select(systems=mine))
        else:
            out.append(d.sel(system=mine))
    return out


def as_input(data: Input | Sequence[Input]) -> Input:
    """One input: the input given, or several combined (:func:`combine_inputs`).

    Examples
    --------
    >>> import passhat as ph
    >>> as_input([ph.load_example("abcd")]).systems
    ['seed-example']
    """
    if isinstance(data, Trials | xr.Dataset):
        return data
    if isinstance(data, str | bytes) or not isinstance(data, Sequence):
        raise ValidationError(
            f"expected passhat.Trials, a count table or a list of them, got {type(data).__name__}"
        )
    return combine_inputs(data)
