"""``passhat._format.printable``: what names look like wherever passhat shows them.

Oracle: :mod:`unicodedata` — every code point of the categories Cc, Cf, Zl, Zp and Cs is
escaped, and nothing else is (checked over the whole code space).
"""

from __future__ import annotations

import sys
import unicodedata

from passhat._format import printable

INVISIBLE = {"Cc", "Cf", "Zl", "Zp", "Cs"}


def test_escapes_exactly_the_invisible_categories() -> None:
    wrong = []
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        escaped = printable(ch) != ch
        if escaped != (unicodedata.category(ch) in INVISIBLE):
            wrong.append(f"U+{cp:04X} {unicodedata.category(ch)}")
    assert wrong == [], wrong[:20]


def test_escape_forms_are_readable_and_reversible() -> None:
    cases = {
        "\x1b[31mred": "\\x1b[31mred",
        "nul\x00id": "nul\\x00id",
        "rtl\u202egnp.exe": "rtl\\u202egnp.exe",
        "zw\u200bsp": "zw\\u200bsp",
        "tag\U000e0041": "tag\\U000e0041",
        "line\nbreak\ttab": "line\\x0abreak\\x09tab",
        "[red]t2[/red] $x^$ <b>&": "[red]t2[/red] $x^$ <b>&",
        "café 東京 🙂": "café 東京 🙂",
    }
    for raw, shown in cases.items():
        assert printable(raw) == shown
        if shown.isascii():  # an escape reads back as the character it stands for
            assert shown.encode("ascii").decode("unicode_escape") == raw
    assert printable("a\nb\tc\r", keep_newlines=True) == "a\nb\tc\\x0d"
    assert printable(12) == "12"


def test_lone_surrogate_printable_and_encodable() -> None:
    text = printable("bad\udcff")
    assert text == "bad\\udcff"
    text.encode("utf-8")  # would raise UnicodeEncodeError before
