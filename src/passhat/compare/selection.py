"""Which systems a comparison compares: the baseline and its candidates, from one input or two.

One rule serves the paired comparison (:func:`passhat.compare`), the per-task
classification (:func:`passhat.classify`) and the CLI's ``compare`` command:

* **one input** holding several systems: the baseline is the one named, or
  the first when there are exactly two; the candidates are the others (or the
  one named).
* **two inputs** (BASE, CAND): the baseline comes from the first, the
  candidates from the second. An input with several systems needs the one to
  use named (the baseline; a single candidate where only one is taken). Two
  single-system inputs whose systems share a name are named after their files
  (:func:`passhat.inputs.name_systems`), else labelled by ``names`` or as
  "NAME (A)" and "NAME (B)", so the two never merge.
* **a list of three or more inputs**: their systems as one input (files that
  name no system named after the files); the baseline is the one named, else
  the first input's system when it holds one.

:attr:`Selection.baseline_from` says which rule chose the baseline.

Examples
--------
>>> import passhat as ph
>>> from passhat.compare import select_systems
>>> sel = select_systems(ph.load_example("agents"))
>>> sel.baseline, sel.candidates
('baseline', ['guided'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from passhat._ids import case_variant_notes_across
from passhat.errors import OptionError, ValidationError
from passhat.inputs import (
    check_distinct,
    concat_systems,
    join_inputs,
    name_systems,
    systems_of,
)
from passhat.trials import Trials, validate_counts

__all__ = ["Selection", "concat_systems", "select_systems"]


@dataclass(frozen=True)
class Selection:
    """The systems of a comparison and their count tables.

    Attributes
    ----------
    baseline : str
        The system the others are compared to.
    candidates : list of str
        The systems compared to the baseline, in input order.
    counts : xarray.Dataset
        One count table holding the baseline and every candidate (with one
        input, that input's table; with two, the selected systems of both
        over the union of their tasks, absent cells not present).
    sources : tuple of xarray.Dataset
        The validated (and, where needed, relabelled) inputs, with their task
        coordinates (category, scenario_hash, ...).
    notes : list of str
        With several inputs: the systems named after their files, and systems of the
        inputs whose names differ only in letter case (each reader notes such names within
        its own input only).
    baseline_from : {"named", "first system", "base input", "first input"}
        Why the baseline is the baseline: named by the caller, the first of the two
        systems of one input, the system of BASE (the first of two inputs), or the (one)
        system of the first of several inputs.
    """

    baseline: str
    candidates: list[str]
    counts: xr.Dataset
    sources: tuple[xr.Dataset, ...]
    notes: list[str] = field(default_factory=list)
    baseline_from: str = "named"

    def table(self, system: str) -> xr.Dataset:
        """The one-system count table of ``system`` from its own input (coordinates kept).

        Examples
        --------
        >>> import passhat as ph
        >>> from passhat.compare import select_systems
        >>> sel = select_systems(ph.load_example("agents"))
        >>> sel.table("guided")["system"].values.tolist()
        ['guided']
        """
        src = self.sources[-1] if system in self.candidates else self.sources[0]
        return src.sel(system=[system])


def _counts(data: Trials | xr.Dataset, label: str | None) -> xr.Dataset:
    """Validated count table of one input; ``label`` prefixes the errors of a named input."""
    if isinstance(data, Trials):
        return data.counts()
    if isinstance(data, xr.Dataset):
        return validate_counts(data) if label is None else validate_counts(data, where=label)
    prefix = f"{label}: " if label else ""
    raise ValidationError(
        f"{prefix}expected passhat.Trials or a count-table xarray.Dataset, "
        f"got {type(data).__name__}"
    )


def select_systems(
    a: Trials | xr.Dataset | Sequence[Trials | xr.Dataset],
    b: Trials | xr.Dataset | None = None,
    *,
    baseline: str | None = None,
    candidate: str | None = None,
    names: tuple[str, str] | None = None,
    one_candidate: bool = False,
    keywords: tuple[str, str] = ("baseline", "candidate"),
) -> Selection:
    """Choose the baseline and the candidates of a comparison (see the module docstring).

    Parameters
    ----------
    a, b : Trials or count table
        One input holding several systems, or BASE and CAND; or ``a`` a list of
        inputs (one: as that input; two: as BASE and CAND; more: their systems as one
        input, the first input's system the baseline when it holds one). Files that name
        no system are named after the files (:func:`passhat.inputs.name_systems`).
    baseline : str, optional
        The baseline (with two inputs, a system of ``a``).
    candidate : str, optional
        Compare this system only (with two inputs, a system of ``b``).
    names : (str, str), optional
        Labels of ``a`` and ``b`` when both hold one system.
    one_candidate : bool
        Require exactly one candidate (a classification compares two builds).
    keywords : (str, str)
        The caller's option names for the baseline and the candidate, used in
        error messages.

    Returns
    -------
    Selection

    Raises
    ------
    ValidationError
        An input of the wrong type, one system only, or a system name in both
        inputs' selection.
    OptionError
        A baseline or candidate that is needed and not named, or not found.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.compare import select_systems
    >>> a = ph.counts_from_arrays([3, 3], [1, 2], system="v1")
    >>> b = ph.counts_from_arrays([3, 3], [2, 2], system="v1")
    >>> sel = select_systems(a, b)
    >>> sel.baseline, sel.candidates, sel.baseline_from
    ('v1 (A)', ['v1 (B)'], 'base input')
    >>> select_systems(a, b, names=("old", "new")).candidates
    ['new']
    """
    pick = _Pick(baseline, candidate, one_candidate, keywords)
    if isinstance(a, Sequence) and not isinstance(a, str | bytes):
        if b is not None:
            raise OptionError("give a list of inputs or two inputs (a, b), not both")
        inputs = list(a)
        if not inputs:
            raise ValidationError("no input: give at least one")
        if len(inputs) > 2:
            return _several(inputs, pick)
        a, b = inputs[0], (inputs[1] if len(inputs) == 2 else None)
    if b is None:
        return _one(_counts(a, None), pick, [])  # type: ignore[arg-type]
    if names is not None and (
        isinstance(names, str) or len(names) != 2 or not all(isinstance(x, str) for x in names)
    ):
        raise OptionError(f"names must be two labels (baseline, candidate), got {names!r}")
    named, notes = name_systems([_counts(a, "base"), _counts(b, "cand")])
    ds_a, ds_b = (x for x in named if isinstance(x, xr.Dataset))  # count tables in, out
    return _two(ds_a, ds_b, names, pick, notes)


@dataclass(frozen=True)
class _Pick:
    """What the caller asked for: the baseline, one candidate, and how its options read."""

    baseline: str | None
    candidate: str | None
    one_candidate: bool
    keywords: tuple[str, str]


def _one(ds: xr.Dataset, pick: _Pick, notes: list[str], *, first: str | None = None) -> Selection:
    """The baseline and candidates among the systems of one input (``first``: the system of
    the first of several inputs, the baseline when none is named)."""
    kw_base, kw_cand = pick.keywords
    systems = [str(s) for s in ds["system"].values]
    if len(systems) < 2:
        raise ValidationError(
            f"comparison needs two systems; the data hold one ({systems[0]!r}); give a second input"
        )
    baseline, how = pick.baseline, "named"
    if baseline is None:
        if first is not None:
            baseline, how = first, "first input"
        elif len(systems) > 2:
            raise OptionError(
                f"the data hold {len(systems)} systems ({', '.join(systems)}); "
                f"name the baseline ({kw_base}=NAME / --baseline NAME)"
            )
        else:
            baseline, how = systems[0], "first system"
    if baseline not in systems:
        raise OptionError(f"baseline {baseline!r} not found; have {', '.join(systems)}")
    cands = [s for s in systems if s != baseline]
    if pick.candidate is not None:
        if pick.candidate not in cands:
            raise OptionError(
                f"candidate {pick.candidate!r} not found among {', '.join(cands)} "
                f"(the baseline is {baseline!r})"
            )
        cands = [pick.candidate]
    if pick.one_candidate and len(cands) != 1:
        raise OptionError(
            f"the data hold {len(systems)} systems ({', '.join(systems)}); this "
            f"comparison takes one candidate: name it ({kw_cand}=NAME / --candidate NAME), "
            "or give two "
            "inputs with one system each"
        )
    return Selection(
        baseline=baseline,
        candidates=cands,
        counts=ds,
        sources=(ds,),
        notes=notes,
        baseline_from=how,
    )


def _several(inputs: list[Trials | xr.Dataset], pick: _Pick) -> Selection:
    """Three or more inputs: their systems as one input (named after the files where the
    files name none); the first input's one system is the baseline unless one is named."""
    named, notes = name_systems(inputs)
    check_distinct(named)
    ds = _counts(join_inputs(named, inputs), None)
    first = systems_of(named[0])
    return _one(ds, pick, notes, first=first[0] if len(first) == 1 else None)


def _two(
    ds_a: xr.Dataset,
    ds_b: xr.Dataset,
    names: tuple[str, str] | None,
    pick: _Pick,
    notes: list[str],
) -> Selection:
    """BASE and CAND: the baseline from the first, the candidates from the second."""
    kw_base, kw_cand = pick.keywords
    baseline, candidate = pick.baseline, pick.candidate
    sa = [str(s) for s in ds_a["system"].values]
    sb = [str(s) for s in ds_b["system"].values]
    how = "named" if baseline is not None else "base input"
    if len(sa) == 1 and len(sb) == 1:
        na, nb = names if names is not None else (sa[0], sb[0])
        if na == nb:
            na, nb = f"{na} (A)", f"{nb} (B)"
        if baseline is not None and baseline not in (na, sa[0]):
            raise OptionError(
                f"baseline {baseline!r} is not the system of the first input ({na}); "
                "with two inputs the first is the baseline"
            )
        if candidate is not None and candidate not in (nb, sb[0]):
            raise OptionError(f"candidate {candidate!r} not found; have {nb}")
        ds_a = ds_a.assign_coords(system=np.array([na], dtype=object))
        ds_b = ds_b.assign_coords(system=np.array([nb], dtype=object))
        base, cands = na, [nb]
    else:
        if baseline is None:
            if len(sa) > 1:
                raise OptionError(
                    f"base: holds {len(sa)} systems ({', '.join(sa)}); name the baseline "
                    f"({kw_base}=NAME / --baseline NAME)"
                )
            baseline = sa[0]
        if baseline not in sa:
            raise OptionError(f"base: system {baseline!r} not found; have {', '.join(sa)}")
        if candidate is not None and candidate not in sb:
            raise OptionError(f"cand: system {candidate!r} not found; have {', '.join(sb)}")
        base, cands = baseline, [candidate] if candidate is not None else sb
        if pick.one_candidate and len(cands) != 1:
            raise OptionError(
                f"cand: holds {len(sb)} systems ({', '.join(sb)}); choose one "
                f"({kw_cand}=NAME / --candidate NAME)"
            )
        if base in cands:
            raise ValidationError(
                f"both inputs hold system {base!r}; compare files with one system each, or "
                "one file with several systems and a baseline"
            )
    return Selection(
        baseline=base,
        candidates=cands,
        counts=concat_systems([ds_a.sel(system=[base]), ds_b.sel(system=cands)]),
        sources=(ds_a, ds_b),
        notes=notes + case_variant_notes_across([[base], cands]),
        baseline_from=how,
    )
