"""Tables for papers (passhat._paper): LaTeX and Markdown that show every name as itself.

Oracles, independent of the code under test:
* LaTeX: a decoder written here from LaTeX's rules (what ``\\&``, ``\\textbackslash{}``, ``--``,
  ``{}``... print) reads every escaped string back to the original; it refuses a bare special
  character (``& % $ # _ ^ ~ \\``) or an unbalanced brace, so a string that decodes is also one
  that cannot break a table. Each body row of a rendered table has exactly one ``&`` fewer than
  columns. With ``pdflatex`` installed, a document holding the tables compiles (integration).
* Markdown: markdown-it (CommonMark with GitHub's tables) parses the table: as many cells per row
  as columns, each cell's text the name itself, and no element (link, emphasis, code, HTML) made
  from a name.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from passhat._format import printable
from passhat._paper import (
    PaperTable,
    interval_cell,
    latex_escape,
    latex_table,
    level_words,
    markdown_table,
    md_escape,
    method_words,
    scope_words,
)

#: Names that break an unescaped LaTeX or Markdown table, or read as markup.
HOSTILE = [
    "a_b & c",
    "100% $x^2$ #1",
    "{br}~ace\\",
    "[1em] first",
    "gpt--4 ``q'' !` ,,",
    "<b>|pipe|</b>",
    "`code` *em* _u_ [l](http://x)",
    "τ-bench ≥ κ − 1 …",
    "\\textbf{x} \\\\ \\end{table}",
    "plain",
]

# ------------------------------------------------------------------ a LaTeX decoder
#: What each text-mode escape prints (LaTeX's rules, written out here).
_TEXT = {
    r"\textbackslash{}": "\\",
    r"\&": "&",
    r"\%": "%",
    r"\$": "$",
    r"\#": "#",
    r"\_": "_",
    r"\{": "{",
    r"\}": "}",
    r"\textasciitilde{}": "~",
    r"\textasciicircum{}": "^",
    r"\textless{}": "<",
    r"\textgreater{}": ">",
    r"\textbar{}": "|",
    r"\ldots{}": "…",
}
#: What each math symbol prints (a few checked by hand below; the rest by round trip).
_MATH = {
    "-": "−",
    r"\geq": "≥",
    r"\leq": "≤",
    r"\kappa": "κ",
    r"\mu": "μ",
    r"\times": "×",
    r"\pm": "±",
    r"\cdot": "·",
}
_TOKEN = re.compile(
    r"\\ensuremath\{((?:[^{}]|\{[^{}]*\})*)\}|\\[a-z]+\{\}|\\[&%$#_{}]|---|--|\{\}|\\|.", re.S
)


def _math_table() -> dict[str, str]:
    """Every math symbol the escaper writes, from its own table (the hand-checked ones agree)."""
    from passhat._paper import _LATEX

    found = {}
    for ch, tex in _LATEX.items():
        m = re.fullmatch(r"\\ensuremath\{(.*)\}", tex)
        if m:
            found[m.group(1)] = ch
    assert {k: found[k] for k in _MATH} == _MATH
    return found


MATH = _math_table()


def decode(tex: str) -> str:
    """The text a LaTeX fragment prints; AssertionError on a bare special or stray brace."""
    out = []
    for m in _TOKEN.finditer(tex):
        tok = m.group(0)
        if m.group(1) is not None:
            out.append(MATH[m.group(1)])
        elif tok in _TEXT:
            out.append(_TEXT[tok])
        elif tok == "---":
            out.append("—")
        elif tok == "--":
            out.append("–")
        elif tok == "{}":
            continue
        else:
            assert tok not in set("&%$#_^~\\{}"), f"bare {tok!r} in {tex!r}"
            out.append(tok)
    return "".join(out)


@pytest.mark.parametrize("name", HOSTILE)
def test_latex_escape_reads_back_as_the_name(name: str) -> None:
    assert decode(latex_escape(name)) == name


def test_latex_escape_by_hand() -> None:
    assert latex_escape("50% a_b") == r"50\% a\_b"
    assert latex_escape("--") == "-{}-"  # two hyphens, not an en dash
    assert latex_escape("–") == "--"  # an en dash
    assert latex_escape("≥ κ") == r"\ensuremath{\geq} \ensuremath{\kappa}"
    assert latex_escape("\\") == r"\textbackslash{}"


_ALPHABET = st.sampled_from(
    [*"&%$#_{}~^\\<>|-`'!?,[] aZ09.é中", "−", "–", "—", "…", "≥", "κ", "×", "²", "₀"]
)


@given(st.text(_ALPHABET, max_size=40))
@settings(max_examples=300, deadline=None)
def test_latex_escape_round_trips_any_text(text: str) -> None:
    tex = latex_escape(text)
    assert decode(tex) == text
    assert "\n" not in tex


# ------------------------------------------------------------------ LaTeX tables
def _frame(names: list[str]) -> PaperTable:
    return PaperTable(
        pd.DataFrame(
            {
                "system": names,
                "mean": [interval_cell("0.420", "0.367", "0.473")] * len(names),
                "p": ["<0.0001"] * len(names),
            }
        ),
        "Mean success of " + ", ".join(HOSTILE) + " (95% intervals, population scope).",
        group="system",
    )


def _body_rows(tex: str) -> list[str]:
    lines = tex.splitlines()
    start = lines.index(r"\midrule") + 1
    end = lines.index(r"\bottomrule")
    return [line for line in lines[start:end] if line != r"\midrule"]


def _cells(row: str) -> list[str]:
    """A body row split at its column separators (an escaped ``\\&`` is not one)."""
    assert row.endswith(r" \\"), row
    return [c.strip() for c in re.split(r"(?<!\\)&", row[: -len(r" \\")])]


def test_latex_table_keeps_every_name_in_its_cell() -> None:
    table = _frame(HOSTILE)
    tex = latex_table(table, label="tab:x")
    assert tex.startswith("\\begin{table}\n\\centering\n\\caption{")
    assert "\\label{tab:x}" in tex and tex.rstrip().endswith("\\end{table}")
    assert tex.count("\\begin{") == tex.count("\\end{") == 2
    rows = _body_rows(tex)
    assert len(rows) == len(HOSTILE)
    for name, row in zip(HOSTILE, rows, strict=True):
        cells = _cells(row)
        assert len(cells) == 3
        assert decode(cells[0]) == name
        assert decode(cells[1]) == "0.420 [0.367, 0.473]"
        assert decode(cells[2]) == "<0.0001"
    caption = re.search(r"\\caption\{(.*)\}\n", tex).group(1)  # type: ignore[union-attr]
    assert decode(caption) == table.caption


def test_latex_row_opening_with_a_bracket_is_no_optional_argument() -> None:
    tex = latex_table(PaperTable(pd.DataFrame({"system": ["[2em] x"]}), "c"))
    assert _body_rows(tex) == [r"{}[2em] x \\"]


def test_latex_rules_between_groups_and_alignment() -> None:
    frame = pd.DataFrame({"metric": ["mean", "mean", "pass^2"], "system": ["a", "b", "a"]})
    tex = latex_table(PaperTable(frame, "c", group="metric"))
    lines = tex.splitlines()
    assert "\\begin{tabular}{ll}" in lines
    body = lines[lines.index("\\midrule") + 1 : lines.index("\\bottomrule")]
    assert body == [r"mean & a \\", r"mean & b \\", "\\midrule", r"pass\textasciicircum{}2 & a \\"]


def test_control_characters_are_shown_escaped() -> None:
    tex = latex_table(PaperTable(pd.DataFrame({"system": ["e\x1b[31mred"]}), "c"))
    assert "\x1b" not in tex and decode(_cells(_body_rows(tex)[0])[0]) == printable("e\x1b[31mred")


# ------------------------------------------------------------------ Markdown tables
def _parse_markdown(text: str) -> tuple[list[list[str]], list[str], str]:
    """(rows of cell texts incl. the header, token types inside cells, caption paragraph)."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    rows: list[list[str]] = []
    kinds: list[str] = []
    caption = ""
    in_cell = False
    for tok in tokens:
        if tok.type == "tr_open":
            rows.append([])
        elif tok.type in ("th_open", "td_open"):
            in_cell = True
        elif tok.type in ("th_close", "td_close"):
            in_cell = False
        elif tok.type == "inline" and in_cell:
            kinds += [c.type for c in tok.children or []]
            rows[-1].append("".join(c.content for c in tok.children or []))
        elif tok.type == "inline":
            caption = "".join(c.content for c in tok.children or [])
    return rows, kinds, caption


def test_markdown_table_cells_are_the_names_and_nothing_else() -> None:
    table = _frame(HOSTILE)
    rows, kinds, caption = _parse_markdown(markdown_table(table))
    assert rows[0] == ["system", "mean", "p"]
    assert [r[0] for r in rows[1:]] == HOSTILE
    assert all(r[1:] == ["0.420 [0.367, 0.473]", "<0.0001"] for r in rows[1:])
    assert set(kinds) == {"text"}  # no link, emphasis, code span or HTML from a name
    assert caption == "Table: " + table.caption


def test_markdown_own_text_stays_readable_in_the_source() -> None:
    text = markdown_table(_frame(["plain"]))
    assert "| plain | 0.420 [0.367, 0.473] | <0.0001 |" in text.splitlines()
    assert text.splitlines()[1] == "|:---|---:|---:|"


def test_md_escape_keeps_table_rows_and_html_inert() -> None:
    assert md_escape("a|b`*_[x]\\\n<i>&") == "a\\|b\\`\\*\\_\\[x\\]\\\\ &lt;i&gt;&amp;"


@pytest.mark.parametrize("name", ["# x", "## x", "- x", "+ x", "#", "-"])
def test_md_escape_keeps_a_name_at_a_line_start_literal(name: str) -> None:
    """A report sentence starts with a system's name ("- NAME against ...: ..."): a name that
    begins like a heading or a list item was rendered as one and lost its marker ('# x' read
    'x' in a heading). Oracle: markdown-it's rendering of the bullet."""
    html = MarkdownIt("commonmark").render(f"- {md_escape(name)} against base: text\n")
    assert html == f"<ul>\n<li>{name} against base: text</li>\n</ul>\n"


def test_md_escape_leaves_names_that_are_no_marker() -> None:
    assert [md_escape(n) for n in ("1.5-pro", "#1", "-x", "gpt-4")] == [
        "1.5-pro",
        "#1",
        "-x",
        "gpt-4",
    ]


# ------------------------------------------------------------------ words
def test_words() -> None:
    assert level_words(0.9) == "90%" and level_words(0.975) == "97.5%"
    assert scope_words("benchmark").startswith("benchmark scope (these tasks")
    rows = pd.DataFrame(
        {"system": ["a", "a", "b"], "metric": ["mean"] * 3, "k": [1] * 3, "method": list("xxy")}
    )
    assert method_words(rows) == "Method (a: mean): x. Method (b: mean): y."


# ------------------------------------------------------------------ compiles (integration)
@pytest.mark.integration
def test_pdflatex_compiles_every_table(tmp_path: Path) -> None:
    exe = shutil.which("pdflatex")
    if exe is None:
        pytest.skip("pdflatex is not installed here (the decoder tests above still ran)")
    import passhat as ph

    rows = []
    for i, system in enumerate([*HOSTILE[:4], "plain"]):
        for t in range(12):
            for r in range(4):
                ok = (r + t + i) % 3 > 0
                rows.append({"system": system, "task_id": f"t{t}", "trial": r, "success": ok})
    data = ph.Trials.from_frame(pd.DataFrame(rows))
    tables = [
        ph.estimate(data, k=[1, 2], ci=0.9, n_boot=200).to_latex(label="tab:estimate"),
        ph.compare(data, k=2, n_boot=200, baseline="plain").to_latex(),
        ph.rank(data, k=2, n_boot=200).to_latex(),
        ph.spread(data, k=2, ci=0.9, n_boot=200).to_latex(),
        latex_table(_frame(HOSTILE)),
    ]
    doc = "\n".join(
        [
            r"\documentclass{article}",
            r"\usepackage[T1]{fontenc}",
            r"\usepackage{booktabs}",
            r"\begin{document}",
            *tables,
            r"\end{document}",
        ]
    )
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    done = subprocess.run(
        [exe, "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:]
