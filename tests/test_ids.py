"""Ids read from data: NFC normalisation and refusal of invisible / control characters.

Oracles: :mod:`unicodedata` of the running Python (which code points are control, format,
separator or surrogate characters; what NFC is), and the hand-worked means of issue 13
(café typed two ways is one task: mean 2/3, not 1/2).
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path

import pandas as pd
import pytest

import passhat as ph
from passhat._ids import INVISIBLE, clean_ids, missing_column
from passhat.errors import ValidationError

NFC = "caf\u00e9"
NFD = "cafe\u0301"


def _perl_default_ignorables() -> set[int] | None:
    """Default_Ignorable_Code_Point from Perl's own Unicode tables (an independent copy of
    Unicode's DerivedCoreProperties.txt), or None without Perl."""
    import shutil
    import subprocess

    if shutil.which("perl") is None:
        return None
    script = (
        "for my $c (0..0x10FFFF) { next if $c >= 0xD800 && $c <= 0xDFFF;"
        ' print "$c\\n" if chr($c) =~ /\\p{Default_Ignorable_Code_Point}/ }'
    )
    out = subprocess.run(["perl", "-e", script], capture_output=True, text=True, timeout=60)
    return {int(x) for x in out.stdout.split()} if out.returncode == 0 else None


def test_invisible_class_is_unicodes_invisible_set() -> None:
    """Refused: the categories Cc, Cf, Cs, Zl, Zp (:mod:`unicodedata`), every
    Default_Ignorable_Code_Point (Perl's tables; issue 33, item 9: U+034F, U+FE00-FE0F, U+180B,
    the Hangul fillers passed before) and U+2800; nothing else that this Python knows."""
    refused = {"Cc", "Cf", "Cs", "Zl", "Zp"}
    ignorable = _perl_default_ignorables()
    blank = {0x2800}
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        cat = unicodedata.category(ch)
        matched = INVISIBLE.match(ch) is not None
        listed = cat in refused or cp in blank or (ignorable is not None and cp in ignorable)
        if listed:
            assert matched, f"U+{cp:04X} ({cat}) is not refused"
        elif matched:  # newer Unicode than this Python's (or Perl's) may list more
            assert cat == "Cn" or ignorable is None, f"U+{cp:04X} ({cat}) is refused but visible"
    for cp in (0x034F, 0xFE00, 0xFE0F, 0x180B, 0x3164, 0x115F, 0xFFA0, 0x2800, 0xE0100):
        assert INVISIBLE.match(chr(cp)), f"U+{cp:04X}"


@pytest.mark.parametrize("ch", ["\u034f", "\ufe00", "\ufe0f", "\u180b", "\u3164", "\u2800"])
def test_lookalike_ids_refused_in_a_file(tmp_path: Path, ch: str) -> None:
    """ "task" and "ta͏sk" printed alike and counted as two tasks."""
    f = tmp_path / "runs.csv"
    f.write_text(f"task_id,success\ntask,1\nta{ch}sk,0\n", encoding="utf-8")
    with pytest.raises(ValidationError, match=rf"row 2: task_id .*U\+{ord(ch):04X}"):
        ph.read_trials(f)
    with pytest.raises(ValidationError, match=rf"U\+{ord(ch):04X}"):
        ph.read_counts(f)


def test_nfd_alone_reads_as_its_nfc_form(tmp_path: Path) -> None:
    """A name written only decomposed is one task, shown in its composed form (same text)."""
    assert NFC != NFD and unicodedata.normalize("NFC", NFD) == NFC
    f = tmp_path / "runs.csv"
    f.write_text(f"task_id,trial,success\n{NFD},0,1\n{NFD},1,0\nx,0,1\n", encoding="utf-8")
    t = ph.read_trials(f)
    assert t.tasks == [NFC, "x"]
    assert ph.read_counts(f)["n"].values.tolist() == [[2, 1]]


@pytest.mark.parametrize("trials", [("0", "1"), ("0", "0")])
@pytest.mark.parametrize("batch_rows", [None, 1, 2, 1000])
def test_nfc_and_nfd_of_one_name_are_refused(
    tmp_path: Path, trials: tuple[str, str], batch_rows: int | None
) -> None:
    """One file holding 'café' composed and decomposed: the two were merged into one task
    without a word (or reported as a duplicate of 'café' with 'café'); now an error names both
    rows and says they differ only in Unicode normalisation, in memory and streamed."""
    f = tmp_path / "runs.csv"
    f.write_text(
        f"task_id,trial,success\n{NFC},{trials[0]},1\nx,0,1\n{NFD},{trials[1]},0\n",
        encoding="utf-8",
    )
    pattern = r"rows 1 and 3: task_id .* differ only in Unicode normalisation \(the second is"
    with pytest.raises(ValidationError, match=pattern):
        if batch_rows is None:
            ph.read_trials(f)
        else:
            ph.io.aggregate_counts(f, batch_rows=batch_rows)


def test_nfc_and_nfd_in_two_part_files_are_refused(tmp_path: Path) -> None:
    d = tmp_path / "parts"
    d.mkdir()
    (d / "a.csv").write_text(f"task_id,trial,success\n{NFC},0,1\n", encoding="utf-8")
    (d / "b.csv").write_text(f"task_id,trial,success\n{NFD},1,0\n", encoding="utf-8")
    with pytest.raises(ValidationError, match="differ only in Unicode normalisation"):
        ph.read_counts(d)


def test_nfc_and_nfd_cli_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from passhat.cli import main

    f = tmp_path / "runs.csv"
    f.write_text(f"task_id,trial,success\n{NFC},0,1\n{NFD},1,0\n", encoding="utf-8")
    assert main(["estimate", str(f)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "differ only in Unicode normalisation" in lines[0]
    assert "U+0301 COMBINING ACUTE ACCENT" in lines[0] and str(f) in lines[0]


@pytest.mark.parametrize(
    ("char", "name"),
    [
        ("\u200b", "U+200B ZERO WIDTH SPACE"),
        ("\u200d", "U+200D ZERO WIDTH JOINER"),
        ("\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
        ("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("\x00", "U+0000 NUL"),
        ("\x1b", "U+001B ESCAPE"),
    ],
)
def test_invisible_characters_in_ids_are_refused_with_rows(
    tmp_path: Path, char: str, name: str
) -> None:
    rows = [{"task_id": "t1", "success": True}, {"task_id": f"t{char}1", "success": False}]
    rows.append({"task_id": f"t{char}1", "success": True})
    f = tmp_path / "runs.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows))
    kind = r"an? (invisible|control) character"
    msg = rf"runs\.jsonl: rows 2, 3: task_id .* contains {kind} \({re.escape(name)}\)"
    with pytest.raises(ValidationError, match=msg):
        ph.read_trials(f)
    with pytest.raises(ValidationError, match=rf"row 2: task_id .*\({re.escape(name)}\)"):
        ph.read_counts(f)


def test_system_names_are_checked_too() -> None:
    df = pd.DataFrame({"system": ["a", "a\u2060"], "task_id": ["t", "t"], "success": [1, 0]})
    with pytest.raises(ValidationError, match=r"row 2: system 'a\\u2060' contains an invisible"):
        ph.Trials.from_frame(df, where="frame")


def test_count_tables_and_traces_normalise_and_refuse() -> None:
    from passhat.io.counts import counts_from_table
    from passhat.traces import Traces

    ds = counts_from_table(pd.DataFrame({"task_id": [NFD], "n": [3], "c": [1]}))
    assert ds["task"].values.tolist() == [NFC]
    with pytest.raises(ValidationError, match=r"U\+200B"):
        counts_from_table(pd.DataFrame({"task_id": ["a\u200b"], "n": [3], "c": [1]}))
    steps = pd.DataFrame({"task_id": [NFD], "trial": [0], "action": ["x"]})
    trials = pd.DataFrame({"task_id": [NFC], "trial": [0], "success": [True]})
    tr = Traces.from_frames(steps, trials)
    assert tr.steps["task_id"].tolist() == [NFC]
    with pytest.raises(ValidationError, match=r"U\+0000 NUL"):
        Traces.from_frames(steps.assign(task_id="a\x00"), trials)


def test_clean_ids_reports_file_rows_of_distinct_values() -> None:
    s = pd.Series(["ok", "b\u200b"])
    with pytest.raises(ValidationError, match=r"f: row 17: task_id"):
        clean_ids(s, column="task_id", where="f", rows=[3, 17])


def test_blank_ids_are_refused(tmp_path: Path) -> None:
    """An empty or all-space id names nothing a reader can tell apart: it was read as a task
    (or a system) printed as an empty cell; now it is an error naming the row, from a frame,
    a CSV (where "" is missing but "  " is text), a count table and --system-name."""
    df = pd.DataFrame({"task_id": ["a", ""], "success": [1, 0]})
    with pytest.raises(ValidationError, match=r"row 2: task_id '' is blank"):
        ph.Trials.from_frame(df, where="frame")
    with pytest.raises(ValidationError, match=r"row 1: system '\\u3000' is blank"):
        ph.Trials.from_frame(df.assign(system="\u3000", task_id=["a", "b"]), where="frame")
    csv = tmp_path / "runs.csv"
    csv.write_text('task_id,trial,success\nb,0,1\n"  ",0,1\n"  ",1,0\n')
    with pytest.raises(ValidationError, match=r"runs.csv: row 2: task_id '  ' is blank"):
        ph.read_trials(csv)
    with pytest.raises(ValidationError, match=r"system ' ' is blank"):
        ph.read_trials(tmp_path / "runs.csv", system_name=" ")
    from passhat.io.counts import counts_from_table

    with pytest.raises(ValidationError, match="blank"):
        counts_from_table(pd.DataFrame({"task_id": [" "], "n": [3], "c": [1]}))
    assert clean_ids(pd.Series([" a "]), column="task_id", where="f").tolist() == [" a "]


def test_missing_column_names_a_column_that_differs_only_in_case_or_separators() -> None:
    text = missing_column("f.csv", "task_id", ["Task-ID", "ok"], field="task")
    assert text == (
        "f.csv: required column 'task_id' is missing (columns: Task-ID, ok); 'Task-ID' differs "
        "only in case or separators: rename it to 'task_id' or pass --map task=Task-ID"
    )
    assert missing_column("f.csv", "n", ["N ", "c"]).endswith("rename it to 'n'")
    assert missing_column("f.csv", "task_id", ["question", "ok"]) == (
        "f.csv: required column 'task_id' is missing (columns: question, ok)"
    )


def test_a_capitalised_header_gets_the_hint_in_memory_and_streamed(tmp_path: Path) -> None:
    f = tmp_path / "case.csv"
    f.write_text("Task_ID,trial,success\nt1,1,1\nt1,2,0\n")
    with pytest.raises(ValidationError, match="'Task_ID' differs only in case"):
        ph.read(f)
    with pytest.raises(ValidationError, match="'Task_ID' differs only in case"):
        ph.io.aggregate_counts(f)


def test_spaced_ids_are_refused_by_every_reader(tmp_path: Path) -> None:
    """'a' and 'a ' were two tasks in τ-bench, τ²-bench and Inspect files (only tidy and count
    files refused them): the rule now sits in Trials.from_frame, which every reader uses."""
    recs = [
        {"task_id": "a", "trial": 0, "reward": 1.0, "info": {}, "traj": []},
        {"task_id": "a ", "trial": 0, "reward": 0.0, "info": {}, "traj": []},
    ]
    f = tmp_path / "tau.json"
    f.write_text(json.dumps(recs))
    with pytest.raises(ValidationError, match="differ only by surrounding spaces"):
        ph.read(f, format="tau-bench")
    frame = pd.DataFrame({"task_id": [" b", "b"], "trial": [0, 0], "success": [True, False]})
    with pytest.raises(ValidationError, match="' b' and 'b' differ only by surrounding"):
        ph.Trials.from_frame(frame)


CASE_NOTE = (
    "2 system names differ only in letter case ('GPT-4o' and 'gpt-4o'); they are kept as "
    "separate systems: rename them in the data if they are one"
)


@pytest.mark.parametrize(
    ("content", "options"),
    [
        ("system,task_id,trial,success\nGPT-4o,a,0,1\ngpt-4o,a,0,0\nGPT-4o,b,0,1\n", {}),
        ("system,task_id,trial,success\nGPT-4o,a,0,1\ngpt-4o,a,0,0\n", {"aggregate": True}),
        ("system,task_id,n,c\nGPT-4o,a,3,1\ngpt-4o,a,3,2\n", {}),
    ],
    ids=["trials", "aggregated", "count-table"],
)
def test_system_names_differing_only_in_case_stay_two_with_a_note(
    tmp_path: Path, content: str, options: dict[str, bool]
) -> None:
    """'GPT-4o' and 'gpt-4o' were two systems with no word said. Oracle: the file by hand
    (two distinct names, kept literally) and the note's text."""
    path = tmp_path / "runs.csv"
    path.write_text(content)
    data = ph.read(path, **options)
    notes = data.notes if isinstance(data, ph.Trials) else data.attrs.get("notes", [])
    systems = data.systems if isinstance(data, ph.Trials) else list(data["system"].values)
    assert systems == ["GPT-4o", "gpt-4o"]
    assert CASE_NOTE in notes


def test_case_variant_note_in_cli_and_not_for_distinct_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from passhat._ids import case_variant_notes
    from passhat.cli import main

    assert case_variant_notes(["a", "B", "c"]) == []
    many = case_variant_notes(["A", "a", "B", "b", "C", "c", "D", "d"])
    assert many[0].startswith("8 system names") and "and 1 more such groups" in many[0]
    path = tmp_path / "runs.csv"
    path.write_text("system,task_id,trial,success\nGPT-4o,a,0,1\ngpt-4o,a,0,0\n")
    assert main(["estimate", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"passhat: note: {CASE_NOTE}" in err


def test_case_variants_across_two_input_files_are_noted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """'GPT-4o' in one file and 'gpt-4o' in another were ranked and compared as two systems
    with no word said (each reader sees one file). Oracle: the files by hand (the two names
    differ only in letter case; 'claude' differs from both) and the note's text; a clash within
    one file stays the reader's note only (said once)."""
    from passhat.cli import main

    runs = "system,task_id,trial,success\n" + "".join(
        f"{{s}},t{t},{r},{(t + r) % 2}\n" for t in range(4) for r in range(2)
    )
    paths = []
    for name in ("GPT-4o", "gpt-4o", "claude"):
        paths.append(tmp_path / f"{name}.csv")
        paths[-1].write_text(runs.format(s=name))
    a, b, c = (ph.read(p) for p in paths)
    assert CASE_NOTE in ph.compare(a, b, n_boot=200).notes
    assert CASE_NOTE in ph.rank([a, b, c], k=1, n_boot=200).notes
    assert not any("letter case" in n for n in ph.compare(a, c, n_boot=200).notes)
    assert not any("letter case" in n for n in ph.rank([a, c], k=1, n_boot=200).notes)
    assert main(["compare", str(paths[0]), str(paths[1]), "--n-boot", "200"]) == 0
    assert CASE_NOTE in capsys.readouterr().out
    both = tmp_path / "both.csv"
    both.write_text(runs.format(s="GPT-4o") + runs.format(s="gpt-4o").split("\n", 1)[1])
    assert main(["rank", str(both), str(paths[2]), "--k", "1", "--n-boot", "200"]) == 0
    out, err = capsys.readouterr()
    assert (out + err).count("letter case") == 1, (out, err)


def test_printable_ascii_holds_no_invisible_character() -> None:
    """clean_ids skips the Unicode pattern for ids of printable ASCII: exactly the ASCII
    characters the pattern lets pass (all 128 checked against it)."""
    from passhat._ids import _visible_ascii

    for cp in range(128):
        assert _visible_ascii(chr(cp)) == (INVISIBLE.match(chr(cp)) is None), f"U+{cp:04X}"
    assert _visible_ascii("task 1 (a, b)") and not _visible_ascii("task\x7f")
