"""The system-column rule out of core: each candidate column's groups, gathered batch by batch.

A tidy source with no system column and no ``system_name`` may hold several
systems in one unmapped column (``model``, ``agent``, ...). The in-memory
reader decides with :func:`passhat.io._system_column.find_system_column` on the
whole table; the out-of-core reader gathers what that rule needs while it
counts — each unmapped column's distinct values and its distinct (task, value)
pairs, and for a column with a system name the (value, other column's value)
pairs — and decides with the same :func:`~passhat.io._system_column.choose_system_column`
at the end. Its memory follows the distinct pairs, not the rows, within
:data:`PAIR_BUDGET`; a column past :data:`~passhat.io._system_column.MAX_GROUPS`
values is no system column (the rule's own limit) and is no longer followed; a
column that needs more pairs than the budget is *unchecked*, and the rule
refuses the table with the fix rather than guess when it would need that column.

Examples
--------
>>> import pandas as pd
>>> from passhat.io._scan import Batch
>>> scan = SystemScan({"model": "model"})
>>> batch = Batch("t.csv", 0, 4, {"model": pd.Series(["a", "b", "a", "b"])})
>>> scan.add(batch, np.array([0, 0, 1, 1]))
>>> scan.decide(np.array([2, 2]), where="t.csv", trial_apart=lambda: False)
('model', [])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from passhat.io._countgrid import factorize
from passhat.io._scan import Batch
from passhat.io._system_column import MAX_GROUPS, Groups, choose_system_column, is_system_name

__all__ = ["PAIR_BUDGET", "SystemScan"]

#: Most distinct (task, value) pairs kept over all candidate columns (8 bytes each).
PAIR_BUDGET = 1 << 23
_SHIFT = 24  # a pair's key: task (or value) code << _SHIFT | value code
_MISSING = object()


def _key(value: Any) -> Any:
    """A value as a dictionary key, every missing value (None, NaN) as one."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return _MISSING
    return value


class _PairSet:
    """Distinct (a, b) code pairs as sorted int64 keys; batches are merged when they pile up."""

    def __init__(self) -> None:
        self.done = np.zeros(0, dtype=np.int64)
        self.pending: list[NDArray[np.int64]] = []
        self.n_pending = 0

    def add(self, a: NDArray[np.int64], b: NDArray[np.int64]) -> None:
        keys = np.unique((a << _SHIFT) | b)
        self.pending.append(keys)
        self.n_pending += len(keys)
        if self.n_pending > max(len(self.done), 1 << 20):
            self.merge()

    def merge(self) -> None:
        if self.pending:
            self.done = np.unique(np.concatenate([self.done, *self.pending]))
            self.pending, self.n_pending = [], 0

    @property
    def size(self) -> int:
        return len(self.done) + self.n_pending

    def pairs(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        self.merge()
        return self.done >> _SHIFT, self.done & ((1 << _SHIFT) - 1)


class _Column:
    """One candidate column: its values in order of first appearance and its (task, value)
    pairs; dropped (not a grouping) when it holds lists/dicts or only booleans."""

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}
        self.uniques: list[Any] = []
        self.pairs = _PairSet()
        self.unhashable = False
        self.too_many = False  # more than MAX_GROUPS values: not a system column
        self.only_bools = True  # the in-memory reader skips a boolean column (no missing)

    def codes(self, col: Any, rows: int) -> NDArray[np.int64] | None:
        """Each row's value code (new values added), or None for a list/dict column."""
        batch_uniques: list[Any] = []
        if col is None:
            batch_codes = np.full(rows, -1, dtype=np.int64)
        else:
            try:
                batch_codes, batch_uniques = factorize(col, strict=True)
            except TypeError:
                self.unhashable = True
                return None
        glob = np.full(len(batch_uniques) + 1, -1, dtype=np.int64)
        # a dictionary may hold values no row uses (unused categories): those are not values
        used = np.bincount(batch_codes + 1, minlength=len(batch_uniques) + 1) > 0
        for i, value in enumerate([*batch_uniques, None]):  # the last one: missing (code -1)
            if not used[(i + 1) % len(used)]:
                continue
            key = _key(value)
            if isinstance(key, list | dict):
                self.unhashable = True
                return None
            if key not in self.ids:
                if len(self.uniques) >= MAX_GROUPS:  # not a system column, whatever follows
                    self.too_many = True
                    self.ids, self.uniques, self.pairs = {}, [], _PairSet()
                    return None
                self.ids[key] = len(self.uniques)
                self.uniques.append(None if key is _MISSING else value)
            self.only_bools = self.only_bools and isinstance(key, bool | np.bool_)
            glob[i] = self.ids[key]
        return glob[batch_codes]  # code -1 picks the last entry: missing

    @property
    def dead(self) -> bool:
        """Not a grouping, for certain (lists/dicts, or too many values): no longer followed."""
        return self.unhashable or self.too_many


class SystemScan:
    """The system-column rule's inputs, gathered from batches (see the module docstring).

    Parameters
    ----------
    columns : dict of str to str
        Candidate columns: the name after the column map → the source column.
    """

    def __init__(self, columns: dict[str, str]) -> None:
        self.columns: dict[str, str] = {}
        self.cols: dict[str, _Column] = {}
        self.follow: dict[tuple[str, str], _PairSet] = {}
        self.unchecked: list[str] = []
        self.rows = 0
        self.extend(columns)

    def extend(self, columns: dict[str, str]) -> None:
        """Add candidate columns (a later file's); rows before them count as not holding them."""
        for name, src in columns.items():
            if name not in self.cols:
                self.columns[name], self.cols[name] = src, _Column()
        for a in self.cols:
            for b in self.cols:
                if a != b and is_system_name(a) and a not in self.unchecked:
                    self.follow.setdefault((a, b), _PairSet())

    def add(
        self, batch: Batch, tasks: NDArray[np.int64], sources: dict[str, str] | None = None
    ) -> None:
        """Add one batch: ``tasks`` are its rows' global task codes; ``sources`` the batch's
        source column of each candidate (default: those given at construction)."""
        sources = self.columns if sources is None else sources
        codes: dict[str, NDArray[np.int64]] = {}
        for name, col in self.cols.items():
            if col.dead or name in self.unchecked:
                continue
            src = sources.get(name)
            got = col.codes(batch.columns.get(src) if src else None, batch.rows)
            if got is not None:
                codes[name] = got
                col.pairs.add(tasks, got)
        for (a, b), pairs in self.follow.items():
            if a in codes and b in codes:
                pairs.add(codes[a], codes[b])
        self.rows += batch.rows
        self._budget()

    def _budget(self) -> None:
        live = {n: c for n, c in self.cols.items() if not c.dead and n not in self.unchecked}
        while live and sum(c.pairs.size for c in live.values()) > PAIR_BUDGET:
            worst = max(live, key=lambda n: live[n].pairs.size)
            worst_col = live.pop(worst)
            worst_col.pairs, worst_col.ids, worst_col.uniques = _PairSet(), {}, []
            self.unchecked.append(worst)
            for key in [k for k in self.follow if worst in k]:
                del self.follow[key]

    def _follows(self, a: str, b: str) -> bool:
        pairs = self.follow.get((a, b))
        if pairs is None:
            return False
        fine, _ = pairs.pairs()
        return bool((np.bincount(fine, minlength=len(self.cols[a].uniques)) <= 1).all())

    def decide(
        self, task_rows: NDArray[np.int64], *, where: str, trial_apart: Callable[[], bool]
    ) -> tuple[str, list[str]] | None:
        """The column to read as the system (and other splitting columns), or None; the same
        rule and errors as the in-memory reader."""
        groups: dict[str, Groups] = {}
        for name, col in self.cols.items():
            if col.dead or name in self.unchecked or (col.only_bools and col.uniques):
                continue
            pt, pv = col.pairs.pairs()
            groups[name] = Groups(col.uniques, self.rows, pt, pv)
        return choose_system_column(
            groups,
            task_rows,
            where=where,
            follows=self._follows,
            trial_apart=trial_apart,
            unchecked=self.unchecked,
        )

    def merge(self, part: SystemScan, task_map: NDArray[np.int64]) -> None:
        """Add another scan's columns (a dask worker's), its task codes mapped by ``task_map``."""
        value_maps: dict[str, NDArray[np.int64]] = {}
        for name, theirs in part.cols.items():
            self.extend({name: part.columns.get(name, name)})
            mine = self.cols[name]
            if mine.dead:
                continue
            if theirs.dead or name in part.unchecked:
                if theirs.dead:
                    mine.unhashable, mine.too_many = theirs.unhashable, theirs.too_many
                elif name not in self.unchecked:
                    self.unchecked.append(name)
                continue
            vmap = np.empty(len(theirs.uniques), dtype=np.int64)
            for i, value in enumerate(theirs.uniques):
                key = _key(value)
                if key not in mine.ids:
                    mine.ids[key] = len(mine.uniques)
                    mine.uniques.append(value)
                vmap[i] = mine.ids[key]
            if len(mine.uniques) > MAX_GROUPS:
                mine.too_many = True
                mine.ids, mine.uniques, mine.pairs = {}, [], _PairSet()
                continue
            mine.only_bools = mine.only_bools and theirs.only_bools
            value_maps[name] = vmap
            pt, pv = theirs.pairs.pairs()
            mine.pairs.add(task_map[pt], vmap[pv])
        for (a, b), pairs in part.follow.items():
            if a in value_maps and b in value_maps:
                fa, fb = pairs.pairs()
                self.follow.setdefault((a, b), _PairSet()).add(value_maps[a][fa], value_maps[b][fb])
        self.rows += part.rows
        self._budget()
