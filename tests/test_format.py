"""``passhat._format``: what names and shares look like wherever passhat shows them.

Oracle: :mod:`unicodedata` — every code point of the categories Cc, Cf, Zl, Zp and Cs is
escaped, and nothing else is (checked over the whole code space).
"""

from __future__ import annotations

import sys
import unicodedata

import pytest

from passhat._format import fixed, pct, printable

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


@pytest.mark.parametrize("x", [1e-9, 4e-4, 0.99996, 0.9999, 1 - 1e-9])
def test_a_share_strictly_inside_0_1_never_reads_as_0_or_100_percent(x: float) -> None:
    # oracle: the printed number read back lies strictly between 0 and 100 and is within half
    # a unit of its last decimal of 100·x; exact ends keep their one decimal
    text = pct(x)
    shown = float(text[:-1])
    decimals = len(text[:-1].split(".")[1])
    assert 0 < shown < 100 and abs(shown - 100 * x) <= 0.5 * 10**-decimals + 1e-12
    assert (pct(0.0), pct(1.0), pct(0.25)) == ("0.0%", "100.0%", "25.0%")


def test_runs_to_detect_reasoning_states_the_rates_it_used() -> None:
    # at f = 1e-9, q = 0.9999 the text read "fails 0.0% ... probability 1^n ... 99.99% ≥ 100.0%"
    import passhat as ph

    text = ph.plan.runs_to_detect(flip_rate=1e-9, ci=0.9999).reasoning
    assert "0.0000001%" in text and "0.999999999^n" in text and "≥ 99.99%" in text
    assert "100.0%" not in text and " 1^" not in text


@pytest.mark.parametrize(
    ("x", "digits", "sign", "text"),
    [
        (-0.0, 3, False, "0.000"),
        (-0.0004, 3, False, "0.000"),
        (-0.00004, 4, True, "0.0000"),
        (0.00004, 4, True, "0.0000"),
        (-0.0005001, 3, False, "-0.001"),
        (0.1234, 3, True, "+0.123"),
        (-0.1234, 2, True, "-0.12"),
    ],
)
def test_fixed_never_prints_negative_zero(x: float, digits: int, sign: bool, text: str) -> None:
    """``plan power`` printed "-0.000" for a difference of -0.0001. Oracle: Python's own
    rounding (format spec .Nf) with the sign of a value that rounds to zero dropped."""
    assert fixed(x, digits, sign=sign) == text


def test_pct_never_prints_negative_zero() -> None:
    assert pct(-1e-9) == "0.0%" and pct(-0.0) == "0.0%" and pct(-0.5) == "-50.0%"
