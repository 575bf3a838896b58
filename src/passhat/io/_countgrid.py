"""The count grid of :mod:`passhat.io.aggregate`: per-batch checks and (system × task) sums.

Each batch's columns are factorised (codes and distinct values); every rule of the in-memory
reader is checked on the distinct values, with the file row where each first appears; the
rows then add to dense (system × task) sums that grow as ids appear. Duplicate (system,
task_id, trial) rows are found with a bitmap of trial numbers per cell, or a spill to sorted
temporary files when trial numbers are too sparse for the bitmap's memory budget.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from passhat._frames import to_numbers
from passhat._ids import (
    case_variant_notes,
    clean_ids,
    id_key,
    normalisation_clash,
    number_text_clash,
)
from passhat._status import FAILURE_STATUSES, status_notes
from passhat.errors import FormatError, ValidationError
from passhat.io._scan import Batch
from passhat.trials import (
    DEFAULT_SYSTEM,
    MAX_COUNT,
    UNSCORED_STATUSES,
    check_scalar_column,
    coerce_success,
    coerce_trial,
    finite_column,
)

__all__ = ["BITMAP_BYTES", "FIELDS", "Counts", "Ids", "factorize"]

#: Most memory the duplicate check's bitmaps of trial numbers may take; beyond it, a spill.
BITMAP_BYTES = 256 * 2**20
#: The data-model columns a tidy source is read for.
FIELDS: tuple[str, ...] = ("system", "task_id", "trial", "success", "status", "score")
FIELDS += ("weight", "category", "cluster", "scenario_hash", "duration_s", "cost")
_TASK_ATTRS = ("category", "cluster", "scenario_hash")


# ----------------------------------------------------------------- columns
def factorize(col: Any, *, strict: bool = False) -> tuple[np.ndarray, list[Any]]:
    """Codes (-1 = missing) and distinct values of an Arrow array or a pandas Series.

    Lists and dicts (unhashable) raise TypeError with ``strict``; otherwise they come back as
    one value, for the type check that names the row.
    """
    if isinstance(col, pd.Series):
        try:
            codes, uniques = pd.factorize(col, sort=False)
        except TypeError:  # unhashable values (lists, dicts): the type check names the row
            if strict:
                raise
            return np.zeros(len(col), dtype=np.int64), [col.iloc[0]]
        return codes.astype(np.int64, copy=False), list(uniques)
    import pyarrow as pa
    import pyarrow.compute as pc

    if strict and pa.types.is_nested(col.type):
        raise TypeError(f"a column of {col.type}")
    if not pa.types.is_dictionary(col.type):
        col = pc.dictionary_encode(col)
    codes = pc.fill_null(col.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return codes, col.dictionary.to_pylist()


def _first_rows(codes: np.ndarray, n_uniques: int, offset: int) -> np.ndarray:
    """The 1-based file row where each distinct value first appears."""
    big = np.iinfo(np.int64).max
    first = np.full(n_uniques, big, dtype=np.int64)
    ok = codes >= 0
    np.minimum.at(first, codes[ok], np.flatnonzero(ok))
    return np.where(first == big, -1, first + 1 + offset)  # -1: not in this batch


def _check_arrow_type(col: Any, name: str, where: str) -> None:
    """Refuse list, struct, map, date/time, binary and boolean columns as ids or trial numbers."""
    if isinstance(col, pd.Series):
        return
    import pyarrow as pa

    t = col.type.value_type if pa.types.is_dictionary(col.type) else col.type
    ok = pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t)
    ok = ok or pa.types.is_floating(t) or pa.types.is_null(t)
    if hasattr(pa.types, "is_string_view"):
        ok = ok or pa.types.is_string_view(t)
    if not ok:
        need = "a whole number" if name == "trial" else "text or a whole number"
        raise ValidationError(f"{where}: {name} is a column of {t}; {name} must be {need}")


def _missing_row(codes: np.ndarray, batch: Batch, name: str) -> None:
    if (codes < 0).any():
        row = int(np.flatnonzero(codes < 0)[0]) + 1 + batch.offset
        raise ValidationError(f"{batch.where}: row {row}: {name} is missing")


def _check_numeric(col: Any, name: str, batch: Batch) -> np.ndarray:
    """Per-row float values of a numeric column (score, weight, ...); text and ±inf refused."""
    codes, uniques = factorize(col)
    rows = _first_rows(codes, len(uniques), batch.offset)
    vals = finite_column(pd.Series(uniques, dtype=object), name, where=batch.where, rows=rows)
    per = vals.to_numpy(dtype=float)
    return np.where(codes >= 0, per[np.maximum(codes, 0)] if len(per) else np.nan, np.nan)


class Ids:
    """One id column's global table: text → index, in order of first appearance.

    Raw values already seen (as read: maybe not NFC, maybe numbers) are looked up in C: an
    Arrow batch's dictionary against the Arrow array of raw keys seen (a part file's dictionary
    equal to a recent one reuses its map without a lookup), a pandas batch's values in a pandas
    hash index. Only new values go through the Python checks, once each.
    """

    #: Recent Arrow dictionaries kept with their maps (part files often share one).
    RECENT = 4

    def __init__(self, column: str) -> None:
        self.column = column
        self.index: dict[str, int] = {}
        self.names: list[str] = []
        #: per index: (written as a number?, file, row) where first seen: 7 and "7" are refused
        self.first: list[tuple[bool, str, int]] = []
        #: per index, the first raw form when it differs from the NFC text (None: none given yet)
        self.first_raw: dict[int, str | None] = {}
        #: stripped text → id, for the ids with surrounding spaces (" a" and "a" are refused)
        self.spaced: dict[str, str] = {}
        self.raw_keys: list[Any] = []
        self.raw_ids: list[int] = []
        self._lookup: tuple[pd.Index, np.ndarray] | None = None
        #: Arrow raw keys seen, by kind ("text" or "number": the key is the number's text)
        self._arrow_keys: dict[str, list[Any]] = {"text": [], "number": []}
        self._arrow_ids: dict[str, list[np.ndarray]] = {"text": [], "number": []}
        self._arrow_known: dict[str, tuple[Any, np.ndarray]] = {}
        self._recent: list[tuple[str, Any, Any, np.ndarray]] = []

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)  # a worker's table travels without its lookup caches
        state.update(_lookup=None, _arrow_known={}, _recent=[])
        return state

    def first_seen(self, text: str) -> tuple[bool, str, int]:
        """(written as a number?, file, row) where an id was first seen."""
        return self.first[self.index[text]]

    def add(
        self, text: str, where: str, row: int, raw: str | None = None, *, number: bool = False
    ) -> int:
        """The index of an id (``text``: NFC, as :func:`clean_ids` made it; ``raw``: as written,
        when it may differ, so a name written both composed and decomposed is refused;
        ``number``: written as a number, so that ``7`` and ``"7"`` are refused, as in memory)."""
        i = self.index.get(text)
        if i is not None:
            was_number, w0, r0 = self.first[i]
            if was_number != number:
                raise number_text_clash(self.column, text, (w0, r0), (where, row), was_number)
            if raw is not None:
                first = self.first_raw.get(i, text)
                if first is None:  # first seen with no raw form (a system name given)
                    self.first_raw[i] = first = raw
                if first != raw:
                    raise normalisation_clash(self.column, where, (first, r0), (raw, row))
            return i
        key = text.strip()
        other = self.spaced.get(key, key if key in self.index else text)
        if other != text:
            raise ValidationError(
                f"{where}: row {row}: {self.column} {other!r} and {text!r} differ only by "
                "surrounding spaces and would count as two; fix the file"
            )
        if key != text:
            self.spaced[key] = text
        i = len(self.names)
        self.index[text] = i
        self.names.append(text)
        self.first.append((number, where, row))
        if raw != text:
            self.first_raw[i] = raw
        return i

    def _add_many(
        self, texts: list[str], raws: list[str], rows: list[int], number: bool, where: str
    ) -> list[int]:
        """:meth:`add` for many new ids at once (their first rows in order): when every one is
        new, NFC as written and without surrounding spaces, in bulk; else one by one."""
        if (
            texts == raws
            and not (self.index.keys() & texts)
            and not (self.spaced.keys() & texts)
            and not any(t[0].isspace() or t[-1].isspace() for t in texts)  # blanks refused
        ):
            n0 = len(self.names)
            self.index.update(zip(texts, range(n0, n0 + len(texts)), strict=True))
            self.names.extend(texts)
            self.first.extend((number, where, r) for r in rows)
            return list(range(n0, n0 + len(texts)))
        return [
            self.add(t, where, r, raw=v, number=number)
            for t, v, r in zip(texts, raws, rows, strict=True)
        ]

    def _known(self, uniques: list[Any]) -> np.ndarray:
        if not self.raw_keys:
            return np.full(len(uniques), -1, dtype=np.int64)
        if self._lookup is None:
            self._lookup = (pd.Index(self.raw_keys, dtype=object), np.array(self.raw_ids))
        index, ids = self._lookup
        pos = index.get_indexer(pd.Index(uniques, dtype=object))
        return np.where(pos >= 0, ids[pos], -1)

    def codes(self, col: Any, batch: Batch) -> np.ndarray:
        """Global index of each row's id (new ids checked and added in order of appearance)."""
        _check_arrow_type(col, self.column, batch.where)
        kind = _arrow_id_kind(col)
        if kind is not None:
            return self._arrow_codes(col, kind, batch)
        if isinstance(col, pd.Series) and col.dtype == object:
            if pd.api.types.infer_dtype(col, skipna=True) not in ("string", "empty"):
                col = pd.Series([id_key(v) for v in col], index=col.index, dtype=object)
        codes, uniques = factorize(col)
        # numbers as ("number", text): Python's 1 == 1.0 == True would merge them in the lookup
        # below (a JSON file's 1 and the next batch's 1.0, Parquet parts of ints and of floats),
        # and 7 and "7" reach add() as two keys, where they are refused
        if pd.api.types.infer_dtype(uniques, skipna=True) not in ("string", "empty"):
            uniques = [id_key(u) for u in uniques]  # text is its own key
        _missing_row(codes, batch, self.column)
        glob = self._known(uniques)
        new = np.flatnonzero(glob < 0)
        if len(new):
            rows = _first_rows(codes, len(uniques), batch.offset)[new]
            used = rows > 0  # a dictionary may hold values no row of the batch uses
            new, rows = new[used], rows[used]
            order = np.argsort(rows, kind="stable")
            new, rows = new[order], rows[order]
            keys = [uniques[i] for i in new]
            vals = pd.Series([k[1] if isinstance(k, tuple) else k for k in keys], dtype=object)
            check_scalar_column(vals, self.column, where=batch.where, rows=rows)
            numbers = [isinstance(k, tuple) for k in keys]
            glob[new] = self._add_new(vals, rows, numbers, batch.where)
            self.raw_keys.extend(keys)
            self.raw_ids.extend(glob[new].tolist())
            self._lookup = None
        return glob[codes]

    def _add_new(self, vals: pd.Series, rows: np.ndarray, numbers: Any, where: str) -> list[int]:
        """Check new raw ids (text or a number's text, with the file row of each) and add them;
        their indices."""
        text = clean_ids(vals, column=self.column, where=where, rows=rows).tolist()
        raws, at = vals.tolist(), rows.tolist()
        if isinstance(numbers, bool):
            return self._add_many(text, raws, at, numbers, where)
        return [
            self.add(t, where, r, raw=v, number=bool(num))
            for t, r, v, num in zip(text, at, raws, numbers, strict=True)
        ]

    # --------------------------------------------------------------- Arrow batches
    def _arrow_codes(self, col: Any, kind: str, batch: Batch) -> np.ndarray:
        """The global index of each row of an Arrow text or integer id column."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if not pa.types.is_dictionary(col.type):
            col = pc.dictionary_encode(col)
        dictionary = col.dictionary
        codes = pc.fill_null(col.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
        if dictionary.null_count:  # a null in the dictionary is a missing id too
            null_at = np.flatnonzero(dictionary.is_null().to_numpy(zero_copy_only=False))
            codes[np.isin(codes, null_at)] = -1
        _missing_row(codes, batch, self.column)
        keys, glob = self._dictionary_map(dictionary, kind)
        used = np.bincount(codes, minlength=len(keys)) > 0
        need = np.flatnonzero(used & (glob < 0))
        if len(need):
            rows = _first_rows(codes, len(keys), batch.offset)[need]
            order = np.argsort(rows, kind="stable")
            need, rows = need[order], rows[order]
            vals = pd.Series(keys.take(pa.array(need)).to_pylist(), dtype=object)
            glob[need] = self._add_new(vals, rows, kind == "number", batch.where)
            self._arrow_keys[kind].append(keys.take(pa.array(need)))
            self._arrow_ids[kind].append(glob[need].copy())
            self._arrow_known.pop(kind, None)
        return glob[codes]

    def _dictionary_map(self, dictionary: Any, kind: str) -> tuple[Any, np.ndarray]:
        """A dictionary's raw keys (large strings) and the global index of each (-1: not seen),
        from a recent equal dictionary's map or by a lookup of the keys seen."""
        import pyarrow as pa
        import pyarrow.compute as pc

        for i, (k, d, keys, glob) in enumerate(self._recent):
            if k == kind and len(d) == len(dictionary) and d.equals(dictionary):
                self._recent.insert(0, self._recent.pop(i))
                return keys, glob
        keys = pc.cast(dictionary, pa.large_string())
        glob = np.full(len(keys), -1, dtype=np.int64)
        known = self._known_arrow(kind)
        if known is not None:
            pos = pc.index_in(keys, value_set=known[0]).to_numpy(zero_copy_only=False)
            hit = ~np.isnan(pos)
            glob[hit] = known[1][pos[hit].astype(np.int64)]
        self._recent = [(kind, dictionary, keys, glob), *self._recent[: self.RECENT - 1]]
        return keys, glob

    def _known_arrow(self, kind: str) -> tuple[Any, np.ndarray] | None:
        """The Arrow raw keys seen of a kind, as one array, and their global indices."""
        import pyarrow as pa

        if not self._arrow_keys[kind]:
            return None
        if kind not in self._arrow_known:
            self._arrow_known[kind] = (
                pa.concat_arrays(self._arrow_keys[kind]),
                np.concatenate(self._arrow_ids[kind]),
            )
        return self._arrow_known[kind]


def _arrow_id_kind(col: Any) -> str | None:
    """``text`` or ``number`` for an Arrow id column of strings or integers (looked up in C),
    None for anything else (pandas columns, floats: checked value by value in Python)."""
    if isinstance(col, pd.Series):
        return None
    import pyarrow as pa

    t = col.type.value_type if pa.types.is_dictionary(col.type) else col.type
    if pa.types.is_integer(t):
        return "number"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "text"
    return None


# ----------------------------------------------------------------- the count grid
class Counts:
    """Dense (system × task) sums that grow as ids appear, with the duplicate check."""

    def __init__(self) -> None:
        self.systems = Ids("system")
        self.tasks = Ids("task_id")
        self.cap = (1, 1024)
        self.sums = {k: np.zeros(self.cap, dtype=np.int64) for k in ("rows", "n", "c")}
        self.wmin = np.full(self.cap, np.inf)
        self.wmax = np.full(self.cap, -np.inf)
        self.attrs: dict[str, np.ndarray] = {}
        self.bits: np.ndarray | None = None  # (S_cap, T_cap, words) uint64
        self.bits_set = 0
        self.spill: _Spill | None = None
        self.rows = 0
        #: runs counted as failures by their status (no verdict), runs graded as passes with
        #: such a status: counts and statuses, for the notes
        self.flags: dict[str, tuple[int, set[str]]] = {"failed": (0, set()), "passed": (0, set())}
        self.weights = False
        self.has_trial: bool | None = None
        #: With ``defer_duplicates`` (set while the system column is undecided), the first
        #: duplicate's error is kept here instead of raised: two systems' runs in one unmapped
        #: column look like duplicates until the column is read as the system.
        self.defer_duplicates = False
        self.deferred: ValidationError | None = None

    def _fit(self) -> None:
        need = (max(len(self.systems.names), 1), max(len(self.tasks.names), 1))
        if need[0] <= self.cap[0] and need[1] <= self.cap[1]:
            return
        cap = (max(self.cap[0], _pow2(need[0])), max(self.cap[1], _pow2(need[1])))
        s0, t0 = self.cap
        for name, arr in [*self.sums.items(), ("wmin", self.wmin), ("wmax", self.wmax)]:
            fill = {"wmin": np.inf, "wmax": -np.inf}.get(name, 0)
            grown = np.full(cap, fill, dtype=arr.dtype)
            grown[:s0, :t0] = arr
            if name in self.sums:
                self.sums[name] = grown
            else:
                setattr(self, name, grown)
        for name, arr in self.attrs.items():
            grown_attr = np.full(cap[1], None, dtype=object)
            grown_attr[:t0] = arr
            self.attrs[name] = grown_attr
        if self.bits is not None:
            bits = np.zeros((*cap, self.bits.shape[2]), dtype=np.uint64)
            bits[:s0, :t0] = self.bits
            self.bits = bits
            self._bitmap_budget()
        self.cap = cap

    def _bitmap_budget(self) -> None:
        if self.bits is not None and self.bits.nbytes > BITMAP_BYTES:
            self.spill = _Spill.from_bits(self.bits, self.cap)
            self.bits = None

    def add(self, batch: Batch, plan: dict[str, str], opts: dict[str, Any]) -> np.ndarray:
        """Count one batch; the rows' global task codes are returned."""
        cols = batch.columns
        n_rows = batch.rows
        if "system" in plan:
            s = self.systems.codes(cols[plan["system"]], batch)
        else:
            name = opts.get("system_name") or DEFAULT_SYSTEM
            s = np.full(n_rows, self.systems.add(str(name), batch.where, batch.offset + 1))
        t = self.tasks.codes(cols[plan["task_id"]], batch)
        decided, success, flags = _outcomes(cols, plan, opts, batch)
        for flag, (count, statuses) in flags.items():
            total, seen = self.flags[flag]
            self.flags[flag] = (total + count, seen | statuses)
        self._fit()
        flat = s * self.cap[1] + t
        size = self.cap[0] * self.cap[1]
        for key, w in (("rows", None), ("n", decided), ("c", success)):
            add = np.bincount(flat, weights=w, minlength=size)
            self.sums[key] += add.astype(np.int64).reshape(self.cap)
        if "trial" in plan:
            self._trials(cols[plan["trial"]], flat, s, t, batch)
        elif self.has_trial:
            raise FormatError(f"{batch.where}: no trial column, while earlier files have one")
        self.has_trial = self.has_trial or "trial" in plan
        if "weight" in plan:
            self.weights = True
            w = _check_numeric(cols[plan["weight"]], "weight", batch)
            if (w < 0).any():
                row = int(np.flatnonzero(w < 0)[0])
                value = float(w[row])
                raise ValidationError(
                    f"{batch.where}: row {row + 1 + batch.offset}: weight {value!r} is not a "
                    "non-negative number"
                )
            ok = ~np.isnan(w)
            np.minimum.at(self.wmin.reshape(-1), flat[ok], w[ok])
            np.maximum.at(self.wmax.reshape(-1), flat[ok], w[ok])
        for attr in _TASK_ATTRS:
            if attr in plan:
                self._first_attr(attr, cols[plan[attr]], t, batch.where)
        for col in ("duration_s", "cost", "score"):
            if col in plan and not (col == "score" and opts.get("threshold") is not None):
                _check_numeric(cols[plan[col]], col, batch)
        self.rows += n_rows
        return t

    def _first_attr(self, attr: str, col: Any, t: np.ndarray, where: str) -> None:
        if attr not in self.attrs:
            self.attrs[attr] = np.full(self.cap[1], None, dtype=object)
        codes, uniques = factorize(col)
        ok = codes >= 0
        tasks, first = np.unique(t[ok], return_index=True)
        unset = np.array([self.attrs[attr][i] is None for i in tasks], dtype=bool)
        vals = np.empty(len(uniques), dtype=object)
        vals[:] = uniques
        if attr == "cluster" and not ok.all():  # a cluster is never guessed
            name = self.tasks.names[int(t[np.flatnonzero(~ok)[0]])]
            raise ValidationError(
                f"{where}: task {name!r}: a run has no cluster; with a cluster column every "
                "run names its task's cluster"
            )
        if attr in ("category", "cluster"):  # a task's one category: two are an error
            pairs = np.unique(np.stack([t[ok], codes[ok]]), axis=1)
            known = self.attrs[attr][pairs[0]]
            clash = (np.bincount(pairs[0])[pairs[0]] > 1) | np.array(
                [k is not None and k != vals[c] for k, c in zip(known, pairs[1], strict=True)],
                dtype=bool,
            )
            if clash.any():
                task = int(pairs[0][np.flatnonzero(clash)[0]])
                seen = {str(v) for v in vals[pairs[1][pairs[0] == task]]}
                seen |= {str(self.attrs[attr][task])} if self.attrs[attr][task] else set()
                rule = (
                    "runs name different clusters ({}); a task belongs to one cluster"
                    if attr == "cluster"
                    else "runs declare different categories ({}); a category belongs to a task"
                )
                shown = ", ".join(map(repr, sorted(seen)[:4]))
                raise ValidationError(
                    f"{where}: task {self.tasks.names[task]!r}: " + rule.format(shown)
                )
        self.attrs[attr][tasks[unset]] = vals[codes[ok][first[unset]]]

    def _trials(self, col: Any, flat: np.ndarray, s: np.ndarray, t: np.ndarray, b: Batch) -> None:
        trial = _trial_numbers(col, b)
        if self.has_trial is False:
            raise FormatError(f"{b.where}: a trial column, while earlier files have none")
        top = int(trial.max()) if len(trial) else 0
        if self.spill is None:
            words = top // 64 + 1
            if self.bits is None:
                self.bits = np.zeros((*self.cap, words), dtype=np.uint64)
            elif words > self.bits.shape[2]:
                grown = np.zeros((*self.cap, words), dtype=np.uint64)
                grown[:, :, : self.bits.shape[2]] = self.bits
                self.bits = grown
            self._bitmap_budget()
        if self.spill is not None:
            self.spill.add(s, t, trial)
            return
        if self.bits is None:  # pragma: no cover - set just above
            raise RuntimeError("no bitmap")
        w = self.bits.shape[2]
        idx = flat * w + (trial >> 6)
        bit = np.left_shift(np.uint64(1), (trial & 63).astype(np.uint64))
        flat_bits = self.bits.reshape(-1)
        seen = (flat_bits[idx] & bit) != 0
        if seen.any():
            i = int(np.flatnonzero(seen)[0])
            self._duplicate(s[i], t[i], trial[i], b, [i + 1 + b.offset], earlier=True)
        np.bitwise_or.at(flat_bits, idx, bit)
        total = _popcount(flat_bits)
        if total - self.bits_set != len(idx) and not seen.any():  # (else: deferred above)
            key = flat * (int(trial.max()) + 1) + trial
            _, inv, counts = np.unique(key, return_inverse=True, return_counts=True)
            rows = np.flatnonzero(counts[inv] > 1)
            i = int(rows[0])
            same = rows[key[rows] == key[i]]
            self._duplicate(s[i], t[i], trial[i], b, list(same[:5] + 1 + b.offset))
        self.bits_set = total

    def _duplicate(
        self, s: int, t: int, trial: int, b: Batch, rows: list[int], *, earlier: bool = False
    ) -> None:
        key = f"({self.systems.names[s]}, {self.tasks.names[t]}, {trial})"
        where = ", ".join(str(r) for r in rows)
        also = " (an earlier row has it too)" if earlier else ""
        err = ValidationError(
            f"{b.where}: duplicate (system, task_id, trial) = {key} at row"
            f"{'s' if len(rows) > 1 else ''} {where}{also}; duplicates are never summed"
        )
        if not self.defer_duplicates:
            raise err
        self.deferred = self.deferred or err

    def duplicate_error(self, where: str) -> ValidationError | None:
        """The first duplicate (system, task_id, trial) found (the spill sorted now), or None."""
        if self.spill is not None:
            dup = self.spill.first_duplicate()
            self.spill = None
            if dup is not None and self.deferred is None:
                s, t, trial = dup
                self.deferred = ValidationError(
                    f"{where}: duplicate (system, task_id, trial) = ({self.systems.names[s]}, "
                    f"{self.tasks.names[t]}, {trial}); duplicates are never summed"
                )
        return self.deferred

    def finish(self, where: str) -> xr.Dataset:
        err = self.duplicate_error(where)
        if err is not None:
            raise err
        if self.rows == 0:
            raise ValidationError(f"{where}: no trials (the table is empty)")
        S, T = len(self.systems.names), len(self.tasks.names)
        rows, n, c = (self.sums[k][:S, :T] for k in ("rows", "n", "c"))
        weight = np.ones((S, T))
        attrs: dict[str, Any] = {}
        if self.weights and np.isfinite(self.wmin[:S, :T]).any():  # an empty column: none
            lo, hi = self.wmin[:S, :T], self.wmax[:S, :T]
            differ = (np.isfinite(lo) & (lo != hi)) | (~np.isfinite(lo) & (rows > 0))
            if differ.any():
                i, j = np.argwhere(differ)[0]
                what = (
                    f"runs declare different weights ({lo[i, j]:g} and {hi[i, j]:g})"
                    if np.isfinite(lo[i, j])
                    else "no weight"
                )
                raise ValidationError(
                    f"{where}: task {self.tasks.names[j]!r} (system {self.systems.names[i]!r}): "
                    f"{what}; "
                    "a weight belongs to a task, and a weight column needs one for every task"
                )
            weight = np.where(np.isfinite(lo), lo, 1.0)
            attrs["declared_weights"] = 1
        notes = status_notes(self.flags["failed"], self.flags["passed"])
        notes += case_variant_notes(self.systems.names)
        if notes:
            attrs["notes"] = notes
        ds = xr.Dataset(
            {
                "n": (("system", "task"), n.copy()),
                "c": (("system", "task"), c.copy()),
                "unscored": (("system", "task"), rows - n),
                "present": (("system", "task"), rows > 0),
                "weight": (("system", "task"), weight),
            },
            coords={
                "system": np.array(self.systems.names, dtype=object),
                "task": np.array(self.tasks.names, dtype=object),
            },
            attrs=attrs,
        )
        for attr, vals in self.attrs.items():
            ds = ds.assign_coords({attr: ("task", vals[:T])})
        return ds


_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _popcount(words: np.ndarray) -> int:
    """Number of bits set in an array of uint64 words."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2
        return int(np.bitwise_count(words).sum())
    return int(_POP8[words.view(np.uint8)].sum())  # pragma: no cover - numpy 1.26


def _pow2(x: int) -> int:
    return 1 << max(int(x) - 1, 1).bit_length()


class _Spill:
    """(system, task, trial) keys in temporary files, partitioned by task, for the duplicate
    check when trial numbers are too sparse for a bitmap; each part is sorted at the end."""

    PARTS = 64

    def __init__(self) -> None:
        self.dir = tempfile.TemporaryDirectory(prefix="passhat-dups-")
        self.files = [open(Path(self.dir.name) / f"{i}.bin", "ab") for i in range(self.PARTS)]

    @classmethod
    def from_bits(cls, bits: np.ndarray, cap: tuple[int, int]) -> _Spill:
        spill = cls()
        s, t, w = np.nonzero(bits)
        for start in range(0, len(s), 1 << 20):
            sl = slice(start, start + (1 << 20))
            words = bits[s[sl], t[sl], w[sl]]
            ub = np.unpackbits(words.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
            r, b = np.nonzero(ub)
            spill.add(s[sl][r], t[sl][r], w[sl][r] * 64 + b)
        return spill

    def add(self, s: np.ndarray, t: np.ndarray, trial: np.ndarray) -> None:
        keys = np.stack([s.astype(np.int64), t.astype(np.int64), trial.astype(np.int64)], axis=1)
        part = t % self.PARTS
        for p in np.unique(part):
            keys[part == p].tofile(self.files[p])

    def first_duplicate(self) -> tuple[int, int, int] | None:
        try:
            for f in self.files:
                f.close()
            for f in self.files:
                keys = np.fromfile(f.name, dtype=np.int64).reshape(-1, 3)
                if len(keys) < 2:
                    continue
                order = np.lexsort(keys.T[::-1])
                k = keys[order]
                same = (k[1:] == k[:-1]).all(axis=1)
                if same.any():
                    s, t, trial = k[int(np.flatnonzero(same)[0])]
                    return int(s), int(t), int(trial)
            return None
        finally:
            self.dir.cleanup()


def _trial_numbers(col: Any, b: Batch) -> np.ndarray:
    """Whole non-negative trial numbers as int64 (the same rules as the in-memory reader)."""
    _check_arrow_type(col, "trial", b.where)
    if not isinstance(col, pd.Series):
        import pyarrow as pa

        if pa.types.is_integer(col.type) and col.null_count == 0:
            vals = col.to_numpy().astype(np.int64)
            bad = (vals < 0) | (vals > MAX_COUNT)
            if col.type == pa.uint64():
                bad |= col.to_numpy() > MAX_COUNT
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                raise ValidationError(
                    f"{b.where}: row {row + 1 + b.offset}: trial {col[row].as_py()!r} is not a "
                    "non-negative whole number up to 2^53"
                )
            return vals
    codes, uniques = factorize(col)
    if (codes < 0).any():
        row = int(np.flatnonzero(codes < 0)[0]) + 1 + b.offset
        raise ValidationError(
            f"{b.where}: row {row}: trial is missing (a trial column needs a number in every row)"
        )
    rows = _first_rows(codes, len(uniques), b.offset)
    per = coerce_trial(pd.Series(uniques, dtype=object), where=b.where, rows=rows).to_numpy()
    return per[codes]


def _boolean_verdicts(col: Any) -> np.ndarray | None:
    """Per row 1 (pass), 0 (fail) or -1 (missing) of an Arrow boolean column; None for any
    other column (its distinct values are read as the in-memory reader reads them)."""
    if isinstance(col, pd.Series):
        return None
    import pyarrow as pa

    if not pa.types.is_boolean(col.type):
        return None
    value = np.asarray(col.fill_null(False).to_numpy(zero_copy_only=False), dtype=np.int8)
    if col.null_count:
        value[~np.asarray(col.is_valid().to_numpy(zero_copy_only=False), dtype=bool)] = -1
    return value


def _outcomes(
    cols: dict[str, Any], plan: dict[str, str], opts: dict[str, Any], b: Batch
) -> tuple[np.ndarray, np.ndarray, dict[str, tuple[int, set[str]]]]:
    """Per row: decided (counted in n) and success, as the in-memory reader decides them.

    Also, per flag, a count and the statuses: ``failed``, runs with no verdict whose status
    says the system failed (counted as failures, :data:`passhat._status.FAILURE_STATUSES`);
    ``passed``, runs graded as passes with such a status (kept).
    """
    threshold = opts.get("threshold")
    if threshold is not None:
        name = "score" if "score" in plan else "success"
        codes, uniques = factorize(cols[plan[name]])
        rows = _first_rows(codes, len(uniques), b.offset)
        raw = pd.Series(uniques, dtype=object)
        num = to_numbers(raw)
        bad = num.isna().to_numpy() & raw.notna().to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValidationError(
                f"{b.where}: row {rows[i]}: {name} {uniques[i]!r} is not a number "
                f"(threshold={threshold} needs numeric scores)"
            )
        score = finite_column(raw, "score", where=b.where, rows=rows).to_numpy(dtype=float)
        verdict = np.where(np.isnan(score), -1, (score >= threshold).astype(np.int8))
        per_row = np.where(codes >= 0, verdict[np.maximum(codes, 0)] if len(verdict) else -1, -1)
    else:
        booleans = _boolean_verdicts(cols[plan["success"]])
        if booleans is not None:
            per_row = booleans
        else:
            codes, uniques = factorize(cols[plan["success"]])
            vals = pd.Series(uniques, dtype=object)
            try:  # the rows of the distinct values are found only to name a bad one
                ok = coerce_success(vals, where=b.where, rows=np.zeros(len(uniques), np.int64))
            except ValidationError:
                coerce_success(vals, where=b.where, rows=_first_rows(codes, len(uniques), b.offset))
                raise
            verdict = np.where(ok.isna().to_numpy(), -1, ok.fillna(False).to_numpy(dtype=np.int8))
            per_row = np.where(
                codes >= 0, verdict[np.maximum(codes, 0)] if len(verdict) else -1, -1
            )
    decided = per_row >= 0
    failed = passed = np.zeros(len(per_row), dtype=bool)
    fail_names: set[str] = set()
    pass_names: set[str] = set()
    if "status" in plan:
        st_codes, st_uniques = factorize(cols[plan["status"]])
        names = [str(u).strip() for u in st_uniques]
        unscored = np.array([u.casefold() in UNSCORED_STATUSES for u in names], dtype=bool)
        if len(unscored):
            decided &= ~np.where(st_codes >= 0, unscored[np.maximum(st_codes, 0)], False)
            # no verdict, but the status says the system failed the run: a failure
            failure = np.array([u.casefold() in FAILURE_STATUSES for u in names], dtype=bool)
            marked = np.where(st_codes >= 0, failure[np.maximum(st_codes, 0)], False)
            failed = ~decided & marked
            decided |= failed
            fail_names = {names[code] for code in np.unique(st_codes[failed])}
            passed = decided & marked & (per_row == 1)  # the verdict stands; a note says so
            pass_names = {names[code] for code in np.unique(st_codes[passed])}
    flags = {"failed": (int(failed.sum()), fail_names), "passed": (int(passed.sum()), pass_names)}
    return decided, decided & (per_row == 1), flags
