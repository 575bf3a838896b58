"""Ids read from data (system and task names): one text, one task.

Two ids that look the same must be the same id. :func:`clean_ids` therefore
normalises every id to Unicode NFC (``café`` typed with a combining accent reads as the
precomposed ``café``), and refuses one file holding both forms of a name (they would merge
two names the file keeps apart: an error naming both rows), and ids holding characters a
reader cannot see: control characters (NUL, escape, line breaks, ...), format
characters (zero-width space and joiners, byte-order mark, bidirectional
overrides, soft hyphen, ...), line/paragraph separators and lone surrogates, and
blank ids (empty or only spaces).
It works on the distinct ids only, so its cost follows the number of tasks,
not of rows.

Examples
--------
>>> import pandas as pd
>>> clean_ids(pd.Series(["cafe\\u0301", "tea"]), column="task_id", where="t").tolist()
['café', 'tea']
>>> try:
...     clean_ids(pd.Series(["cafe\\u0301", "caf\\u00e9"]), column="task_id", where="t")
... except ValueError as err:
...     print(str(err).encode("ascii", "backslashreplace").decode()[:63])
t: rows 1 and 2: task_id 'cafe\\u0301' and 'caf\\xe9' differ only
>>> clean_ids(pd.Series(["a", "b\\u200bc"]), column="task_id", where="runs.csv")
Traceback (most recent call last):
...
passhat.errors.ValidationError: runs.csv: row 2: task_id 'b\\u200bc' contains an invisible \
character (U+200B ZERO WIDTH SPACE); ids must be visible text (1 row)
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from passhat.errors import ValidationError

__all__ = [
    "INVISIBLE",
    "case_variant_notes",
    "check_spaced_ids",
    "clean_ids",
    "describe_char",
    "id_key",
    "missing_column",
    "normalisation_clash",
    "number_text",
    "number_text_clash",
    "scalars_as_text",
]


class _Pattern:
    """A ``regex`` pattern compiled on first use (importing ``regex`` and compiling the Unicode
    property classes costs a command's start ~0.05 s; ids of printable ASCII never need it).

    Examples
    --------
    >>> _Pattern(r"\\p{Cc}").search("a\\x00b").start()
    1
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    @functools.cached_property
    def compiled(self) -> Any:
        """The compiled pattern."""
        import regex  # the Unicode property tables: only for ids that are not plain ASCII

        return regex.compile(self.pattern)

    def search(self, text: str) -> Any:
        return self.compiled.search(text)

    def match(self, text: str) -> Any:
        return self.compiled.match(text)

    def sub(self, repl: Any, text: str) -> str:
        return str(self.compiled.sub(repl, text))


#: Characters an id must not hold: controls (Cc), format characters (Cf), line and paragraph
#: separators (Zl, Zp), lone surrogates (Cs), every Default_Ignorable_Code_Point of Unicode (what a
#: renderer draws as nothing: variation selectors U+FE00-FE0F and U+180B-180F, the combining
#: grapheme joiner U+034F, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, tags, ...), and the
#: blank Braille pattern U+2800, which draws as a space but is no space. The properties come from
#: the ``regex`` module's Unicode tables, not from a hand list; tests/test_ids.py checks them
#: against :mod:`unicodedata` and Perl's Unicode tables.
INVISIBLE = _Pattern(
    r"[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}"
    r"\u115f\u1160\u3164\uffa0\u2800]"
)


def _visible_ascii(text: str) -> bool:
    """Whether ``text`` is printable ASCII (U+0020-U+007E), which holds no :data:`INVISIBLE`
    character: the common case answered without the pattern (tests/test_ids.py checks all 128).

    Examples
    --------
    >>> _visible_ascii("task 1"), _visible_ascii("t\\tab"), _visible_ascii("café")
    (True, False, False)
    """
    return text.isascii() and text.isprintable()


def missing_column(where: str, col: str, columns: Any, *, field: str | None = None) -> str:
    """The error text for a required column that is missing, with a hint for a near match.

    A column equal to ``col`` but for letter case and ``_``/``-``/space separators
    (``Task_ID``, ``task-id``) is named, with the rename or the ``--map FIELD=COLUMN`` that
    reads it (``field``: the map's field name; without it, the rename only).

    Examples
    --------
    >>> missing_column("runs.csv", "task_id", ["Task_ID", "Success"], field="task")
    "runs.csv: required column 'task_id' is missing (columns: Task_ID, Success); 'Task_ID' \
differs only in case or separators: rename it to 'task_id' or pass --map task=Task_ID"
    """
    names = [str(c) for c in columns]
    text = f"{where}: required column {col!r} is missing (columns: {', '.join(names)})"

    def key(name: str) -> str:
        return re.sub(r"[\s_-]+", "", name).casefold()

    near = [c for c in names if key(c) == key(col)]
    if near:
        how = f" or pass --map {field}={near[0]}" if field else ""
        text += f"; {near[0]!r} differs only in case or separators: rename it to {col!r}{how}"
    return text


def check_spaced_ids(df: pd.DataFrame, where: str) -> None:
    """Refuse ids that differ from another id only by surrounding whitespace.

    Every reader's frame passes here (:meth:`passhat.Trials.from_frame`, count tables), so
    τ-bench, τ²-bench, Inspect and tidy files follow one rule.

    Examples
    --------
    >>> check_spaced_ids(pd.DataFrame({"task_id": ["a", "a "]}), "runs.csv")
    Traceback (most recent call last):
    ...
    passhat.errors.ValidationError: runs.csv: row 1: task_id 'a' and 'a ' differ only by \
surrounding spaces and would count as two; fix the file
    """
    for col in ("system", "task_id"):
        if col not in df.columns:
            continue
        vals = df[col].where(df[col].isna(), df[col].astype(str))
        text = vals.dropna()
        key = text.str.strip()
        if (text == key).all():
            continue
        forms = text.groupby(key, sort=False).unique()
        clash = forms[forms.map(len) > 1]
        if not clash.empty:
            a, b = (str(x) for x in clash.iloc[0][:2])
            first = text[key == clash.index[0]]
            row = int(np.flatnonzero(df.index == first.index[0])[0]) + 1
            raise ValidationError(
                f"{where}: row {row}: {col} {a!r} and {b!r} differ only by surrounding "
                "spaces and would count as two; fix the file"
            )


def case_variant_notes(names: Any, *, column: str = "system") -> list[str]:
    """A note (in a list, empty when none) naming ids that differ only in letter case.

    ``GPT-4o`` and ``gpt-4o`` stay two ids (names are data, printed literally), but a user
    who meant one should hear of it: every reader adds this to its notes, which the CLI
    prints.

    Examples
    --------
    >>> case_variant_notes(["GPT-4o", "claude", "gpt-4o", "GPT-4o"])
    ["2 system names differ only in letter case ('GPT-4o' and 'gpt-4o'); they are kept \
as separate systems: rename them in the data if they are one"]
    >>> case_variant_notes(["a", "b"])
    []
    """
    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys(str(v) for v in names):  # distinct, in order of appearance
        groups.setdefault(name.casefold(), []).append(name)
    clash = [g for g in groups.values() if len(g) > 1]
    if not clash:
        return []
    shown = "; ".join(" and ".join(repr(x) for x in g) for g in clash[:3])
    more = f"; and {len(clash) - 3} more such groups" if len(clash) > 3 else ""
    return [
        f"{sum(map(len, clash))} {column} names differ only in letter case ({shown}{more}); "
        f"they are kept as separate {column}s: rename them in the data if they are one"
    ]


def case_variant_notes_across(inputs: Sequence[Iterable[object]]) -> list[str]:
    """:func:`case_variant_notes` for names from several inputs: the clashes between inputs.

    Each reader notes the case variants within its own input; a clash between two inputs
    (``GPT-4o`` in one file, ``gpt-4o`` in another) is seen only where they are combined.
    A clash within one input is left to its reader (not said twice).

    Examples
    --------
    >>> case_variant_notes_across([["GPT-4o"], ["gpt-4o", "claude"]])
    ["2 system names differ only in letter case ('GPT-4o' and 'gpt-4o'); they are kept \
as separate systems: rename them in the data if they are one"]
    >>> case_variant_notes_across([["a", "A"], ["b"]])
    []
    """
    where: dict[str, dict[str, int]] = {}  # casefolded -> name -> first input holding it
    for i, names in enumerate(inputs):
        for name in map(str, names):
            where.setdefault(name.casefold(), {}).setdefault(name, i)
    spanning = [g for g in where.values() if len(set(g.values())) > 1]
    return case_variant_notes([name for g in spanning for name in g])


def describe_char(ch: str) -> str:
    """A code point as ``U+XXXX NAME`` for messages.

    Examples
    --------
    >>> describe_char("\\x00"), describe_char("\\u200d")
    ('U+0000 NUL', 'U+200D ZERO WIDTH JOINER')
    """
    names = {0: "NUL", 9: "TAB", 10: "LINE FEED", 13: "CARRIAGE RETURN", 27: "ESCAPE"}
    name = names.get(ord(ch)) or unicodedata.name(ch, "") or f"category {unicodedata.category(ch)}"
    return f"U+{ord(ch):04X} {name}"


def normalisation_clash(
    column: str, where: str, first: tuple[str, int], other: tuple[str, int]
) -> ValidationError:
    """The error for two ids written differently that NFC normalisation would make one
    (``(id, row)`` each).

    Examples
    --------
    >>> err = normalisation_clash("task_id", "t.csv", ("caf\\u00e9", 1), ("cafe\\u0301", 3))
    >>> "rows 1 and 3" in str(err) and "the second is decomposed" in str(err)
    True
    """
    (ra, a), (rb, b) = sorted([(first[1], first[0]), (other[1], other[0])])
    odd, which = (b, "second") if not unicodedata.is_normalized("NFC", b) else (a, "first")
    at = next((i for i, ch in enumerate(odd) if unicodedata.combining(ch)), len(odd) - 1)
    shown = " + ".join(describe_char(ch) for ch in odd[max(at - 1, 0) : at + 1])
    return ValidationError(
        f"{where}: rows {ra} and {rb}: {column} {a!r} and {b!r} differ only in Unicode "
        f"normalisation (the {which} is decomposed: {shown}) and would be read as one "
        f"{column}; write them one way, or rename one"
    )


def _refuse_merged_forms(
    text: list[str],
    nfc: np.ndarray,
    changed: list[int],
    codes: np.ndarray,
    *,
    column: str,
    where: str,
    rows: np.ndarray | None,
) -> None:
    """Two distinct ids whose NFC forms are equal (``café`` composed and decomposed) are an
    error naming both rows: normalising them would merge two names the file keeps apart."""
    keys = {nfc[i] for i in changed}
    forms: dict[str, dict[str, int]] = {}
    for i, x in enumerate(text):
        if nfc[i] in keys:
            forms.setdefault(nfc[i], {}).setdefault(x, i)

    def row(u: int) -> int:
        at = int(np.flatnonzero(codes == u)[0])
        return int(at + 1 if rows is None else np.asarray(rows)[at])

    clashes = [
        sorted((row(i), x) for x, i in seen.items()) for seen in forms.values() if len(seen) > 1
    ]
    if clashes:
        (ra, a), (rb, b) = min(clashes)[:2]
        raise normalisation_clash(column, where, (a, ra), (b, rb))


def scalars_as_text(s: pd.Series) -> pd.Series:
    """An object column mixing numbers (or booleans) of several types, as JSON may write ids
    (``1`` and ``1.0``, ``7`` and ``"7"``, ``true`` and ``1``), with each number as the text
    Python writes for it, so that ``1`` and ``1.0`` stay two ids (Python's ``1 == 1.0 == True``
    would make them one when hashed). Other columns come back unchanged; missing values, lists
    and dicts are kept for the checks that refuse them.

    Examples
    --------
    >>> scalars_as_text(pd.Series([1, 1.0, True, "7", None], dtype=object)).tolist()
    ['1', '1.0', 'True', '7', None]
    >>> scalars_as_text(pd.Series([np.int64(1), np.float64(1.0)], dtype=object)).tolist()
    ['1', '1.0']
    """
    if s.dtype != object or pd.api.types.infer_dtype(s, skipna=True) in ("string", "empty"):
        return s
    return pd.Series([number_text(v) for v in s], index=s.index, dtype=object)


def _refuse_number_text_clash(
    s: pd.Series, as_text: pd.Series, *, column: str, where: str, rows: np.ndarray | None
) -> None:
    """A number and a text that read alike (``7`` and ``"7"`` in one column) are an error naming
    both rows: as text they would be one id, yet the source wrote them apart (as with NFC forms,
    :func:`normalisation_clash`).

    Examples
    --------
    >>> s = pd.Series([7, "7", "b"], dtype=object)
    >>> _refuse_number_text_clash(s, scalars_as_text(s), column="task_id", where="t", rows=None)
    Traceback (most recent call last):
    ...
    passhat.errors.ValidationError: t: rows 1 and 2: task_id 7 (a number) and '7' (text) would \
both read as '7'; write every id the same way (all text, or all numbers)
    """
    is_text = np.fromiter((isinstance(v, str) for v in s), dtype=bool, count=len(s))
    if not is_text.any() or is_text.all():
        return
    vals = as_text.to_numpy(dtype=object)
    numbers = pd.Index(vals[~is_text & s.notna().to_numpy()])
    clash = pd.Index(vals[is_text]).intersection(numbers)
    if clash.empty:
        return
    key = clash[0]
    at_num = int(np.flatnonzero(~is_text & (vals == key))[0])
    at_text = int(np.flatnonzero(is_text & (vals == key))[0])
    ra, rb = sorted(
        (int(at + 1 if rows is None else np.asarray(rows)[at]), at) for at in (at_num, at_text)
    )
    raise ValidationError(
        f"{where}: rows {ra[0]} and {rb[0]}: {column} {number_text(s.iloc[at_num])} (a number) "
        f"and {key!r} (text) would both read as {key!r}; write every id the same way (all text, "
        "or all numbers)"
    )


def number_text(v: Any) -> Any:
    """A number or boolean as the text Python writes for it (``1``, ``1.0``, ``True``); any
    other value (text, a missing value, a list) unchanged."""
    if isinstance(v, bool | int | np.bool_ | np.integer):
        return str(v)
    return str(v) if isinstance(v, float | np.floating) and v == v else v


def clean_ids(
    s: pd.Series, *, column: str, where: str, rows: np.ndarray | None = None
) -> pd.Series:
    """Ids as NFC-normalised ``str``; an invisible or control character, or a blank id, is an
    error.

    Parameters
    ----------
    s : pandas.Series
        The ids (any scalar values; missing values must have been refused before).
    column : str
        Its name in messages (``task_id``, ``system``).
    where : str
        The file, for messages.
    rows : numpy.ndarray, optional
        The 1-based file row of each value (a streamed reader passes a batch's distinct
        values with the first row of each); default: the position + 1.

    Returns
    -------
    pandas.Series
        Object dtype, the same index.

    Raises
    ------
    ValidationError
        Naming the first rows (data rows from 1), the id and the character.
    """
    as_text = scalars_as_text(s)
    if as_text is not s:
        _refuse_number_text_clash(s, as_text, column=column, where=where, rows=rows)
    codes, uniques = pd.factorize(as_text, sort=False)
    if pd.api.types.infer_dtype(uniques, skipna=False) == "string":
        text = uniques.tolist()  # already str: no conversion one by one
    else:
        text = [str(u) for u in uniques]
    joined = " ".join(text)  # one scan of every id (a space is no invisible character)
    search = INVISIBLE.search
    if not _visible_ascii(joined) and search(joined) is not None:
        has_bad = np.fromiter((search(x) is not None for x in text), dtype=bool, count=len(text))
    else:
        has_bad = np.zeros(len(text), dtype=bool)
    if has_bad.any():
        bad = np.flatnonzero(has_bad)
        value = text[int(bad[0])]
        ch = next(c for c in value if INVISIBLE.match(c))
        at = np.flatnonzero(np.isin(codes, bad))
        count = f" ({len(at)} row{'s' if len(at) != 1 else ''})" if rows is None else ""
        rows = at + 1 if rows is None else np.asarray(rows)[at]
        shown = ", ".join(str(r) for r in rows[:5]) + (" ..." if len(rows) > 5 else "")
        kind = "a control" if unicodedata.category(ch) == "Cc" else "an invisible"
        kind = "a blank" if ch == "\u2800" else kind
        raise ValidationError(
            f"{where}: row{'s' if len(rows) > 1 else ''} {shown}: {column} {_shown(value)} "
            f"contains {kind} character ({describe_char(ch)}); ids must be visible text{count}"
        )
    blank = [i for i, x in enumerate(text) if not x or x.isspace()]
    if blank:  # "" or only spaces: a name nobody can read or tell apart in a table
        at = np.flatnonzero(codes == blank[0])
        row = int(at[0] + 1 if rows is None else np.asarray(rows)[at[0]])
        raise ValidationError(
            f"{where}: row {row}: {column} {text[blank[0]]!r} is blank; ids must be visible text"
        )
    nfc = np.empty(len(text), dtype=object)
    changed: list[int] = []
    if unicodedata.is_normalized("NFC", joined):  # a space between ids composes with nothing
        nfc[:] = text
    else:
        nfc[:] = [
            x if unicodedata.is_normalized("NFC", x) else unicodedata.normalize("NFC", x)
            for x in text
        ]
        changed = [i for i, x in enumerate(text) if nfc[i] is not x]
    if changed:
        _refuse_merged_forms(text, nfc, changed, codes, column=column, where=where, rows=rows)
    ok = codes >= 0
    out = np.empty(len(codes), dtype=object)
    out[ok] = nfc[codes[ok]]
    if not ok.all():  # missing values: as ``astype(str)`` writes them (callers refuse them first)
        out[~ok] = [str(v) for v in s.to_numpy(dtype=object)[~ok]]
    return pd.Series(out, index=s.index, dtype=object)


def _shown(value: str) -> str:
    """An id for a message: quoted, every invisible character escaped (``'ta\\u034fsk'``; repr
    leaves a combining joiner or a Hangul filler as it is, and the id would read as ``'task'``).

    Examples
    --------
    >>> print(_shown("ta\u034fsk"))
    'ta\\u034fsk'
    """

    def esc(m: Any) -> str:
        cp = ord(m.group())
        return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"

    return str(INVISIBLE.sub(esc, repr(value)))


def id_key(v: Any) -> Any:
    """An id as read, as a streamed reader's lookup key: text as it is, a number (or boolean) as
    ``("number", its text)``, so that ``1``, ``1.0`` and ``"1"`` are three keys.

    Examples
    --------
    >>> [id_key(v) for v in (7, 1.0, "7", None)]
    [('number', '7'), ('number', '1.0'), '7', None]
    """
    t = number_text(v)
    return ("number", t) if isinstance(t, str) and not isinstance(v, str) else v


def number_text_clash(
    column: str, text: str, earlier: tuple[str, int], here: tuple[str, int], number_first: bool
) -> ValidationError:
    """7 (a number) and "7" (text) in one source (``(file, row)`` where each was seen): an error,
    as :func:`clean_ids` refuses them in one table, since as text they would be one id."""
    rows = (
        f"rows {earlier[1]} and {here[1]}"
        if earlier[0] == here[0]
        else f"row {here[1]} (and row {earlier[1]} of {earlier[0]})"
    )
    number, word = ("first", "second") if number_first else ("second", "first")
    return ValidationError(
        f"{here[0]}: {rows}: {column} {text!r} is written as a number in the {number} and as "
        f"text in the {word}; as text both read as {text!r}: write every id the same way (all "
        "text, or all numbers)"
    )
