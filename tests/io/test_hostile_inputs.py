"""Hostile inputs across the readers: encodings, compression, number-typed ids, links,
permissions, and errors that must name the file.

Oracles: the same content in a plain UTF-8 file (what a correct read gives), the ids as the
file writes them (``"1"`` and ``"1.0"`` are two tasks), and the in-memory reader against the
streamed one at several batch sizes (they must agree, row for row or error for error).
"""

from __future__ import annotations

import builtins
import gzip
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import passhat as ph
from passhat.errors import FormatError, InputError, ReadError, ValidationError

TIDY = "task_id,trial,success\na,0,1\na,1,0\nb,0,1\n"
BATCHES = (1, 2, 1000)


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    from passhat.cli import main

    code = main(args)
    return code, capsys.readouterr().err.strip().splitlines()


def _counts(path: Path, **options: Any) -> dict[str, tuple[int, int]]:
    ds = ph.read_counts(path, **options)
    return {
        str(t): (int(n), int(c))
        for t, n, c in zip(ds["task"].values, ds["n"].values[0], ds["c"].values[0], strict=True)
    }


# ------------------------------------------------------------------ encodings
WIDE = {
    "utf16.csv": ("utf-16", TIDY, "UTF-16"),
    "utf16le_no_bom.csv": ("utf-16-le", TIDY, "UTF-16"),
    "utf16.jsonl": ("utf-16", '{"task_id": "a", "trial": 0, "success": true}\n', "UTF-16"),
    "utf16.json": ("utf-16", '[{"task_id": "a", "reward": 1.0, "trial": 0}]', "UTF-16"),
    "counts16.csv": ("utf-16", "task_id,n,c\na,3,2\n", "UTF-16"),
    "utf32.csv": ("utf-32", TIDY, "UTF-32"),
}


@pytest.mark.parametrize("name", sorted(WIDE))
@pytest.mark.parametrize("fmt", [None, "csv"])
def test_utf16_files_name_their_encoding(
    tmp_path: Path, name: str, fmt: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A UTF-16 file (Excel's "Unicode text", PowerShell's redirect) was 'a binary file' (line 1
    holds NUL bytes) or 'cannot tell the format'; now the error names the encoding and the fix."""
    encoding, text, label = WIDE[name]
    f = tmp_path / name
    f.write_bytes(text.encode(encoding))
    with pytest.raises(FormatError, match=rf"{label} text; passhat reads UTF-8"):
        ph.read(f, format=fmt)
    code, err = _cli(["estimate", str(f)] + (["--format", fmt] if fmt else []), capsys)
    assert code == 2 and len(err) == 1 and f"iconv -f {label} -t UTF-8" in err[0]


def test_utf16_inside_gzip_and_in_a_directory(tmp_path: Path) -> None:
    gz = tmp_path / "runs.csv.gz"
    gz.write_bytes(gzip.compress(TIDY.encode("utf-16")))
    with pytest.raises(FormatError, match="UTF-16 text"):
        ph.read_trials(gz)
    d = tmp_path / "parts"
    d.mkdir()
    (d / "a.csv").write_text(TIDY, encoding="utf-8")
    (d / "b.csv").write_bytes(TIDY.replace("a,", "c,").encode("utf-16"))
    with pytest.raises(FormatError, match=r"b\.csv: UTF-16 text"):
        ph.read_counts(d)


def test_utf16_step_log_for_traces(tmp_path: Path) -> None:
    f = tmp_path / "steps.jsonl"
    row = {"task_id": "t", "trial": 0, "step": 0, "action": "a", "success": True}
    f.write_bytes((json.dumps(row) + "\n").encode("utf-16"))
    with pytest.raises(FormatError, match="UTF-16 text"):
        ph.read_traces(f)


# ------------------------------------------------------------------ gzip
def test_gzip_jsonl_reads_like_the_plain_file(tmp_path: Path) -> None:
    """A .jsonl.gz was read by the streamed reader but refused in memory ('byte 0x8b is not
    UTF-8'); both now read it, and both equal the plain file."""
    rows = [
        {"task_id": t, "trial": i, "success": (i + len(t)) % 2 == 0}
        for t in "xyz"
        for i in range(3)
    ]
    text = "".join(json.dumps(r) + "\n" for r in rows)
    plain = tmp_path / "runs.jsonl"
    plain.write_text(text, encoding="utf-8")
    packed = tmp_path / "runs.jsonl.gz"
    packed.write_bytes(gzip.compress(text.encode("utf-8")))
    want = _counts(plain)
    assert ph.read_trials(packed).frame.equals(ph.read_trials(plain).frame)
    assert _counts(packed) == want
    for b in BATCHES:
        ds = ph.io.aggregate_counts(packed, batch_rows=b)
        assert ds["n"].values.tolist() == ph.read_counts(plain)["n"].values.tolist()


@pytest.mark.parametrize("name", ["runs.jsonl.gz", "runs.csv.gz"])
def test_truncated_gzip_is_named_damaged(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A truncated .gz was 'line 1 holds NUL bytes: a binary file'; now 'a damaged gzip file'."""
    body = TIDY * 50 if name.endswith("csv.gz") else '{"task_id": "a", "success": true}\n' * 200
    f = tmp_path / name
    f.write_bytes(gzip.compress(body.encode("utf-8"))[:40])
    with pytest.raises(FormatError, match=r"a damaged gzip file .*truncated"):
        ph.read_trials(f)
    code, err = _cli(["estimate", str(f)], capsys)
    assert code == 2 and len(err) == 1 and "damaged gzip" in err[0]


# ------------------------------------------------------------------ ids that JSON types
def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("ids", "tasks"),
    [
        ([1, 1.0], ["1", "1.0"]),  # was one task '1.0' (a duplicate at trial 0)
        ([True, 1], ["True", "1"]),  # was one task 'True'
        (
            [12345678901234567, 12345678901234568, 1.5],
            ["12345678901234567", "12345678901234568", "1.5"],
        ),
        (["007", 7], ["007", "7"]),
    ],
)
def test_json_ids_keep_the_text_json_wrote(
    tmp_path: Path, ids: list[Any], tasks: list[str]
) -> None:
    """JSON ids of mixed number types were turned into floats (1 → '1.0', big integers rounded
    to one task) or merged by Python's 1 == 1.0 == True; each id now keeps its own text, in
    memory and streamed alike."""
    f = _jsonl(tmp_path / "runs.jsonl", [{"task_id": t, "trial": 0, "success": True} for t in ids])
    assert ph.read_trials(f).tasks == tasks
    for b in BATCHES:
        assert list(ph.io.aggregate_counts(f, batch_rows=b)["task"].values) == tasks


def test_json_ids_across_part_files(tmp_path: Path) -> None:
    d = tmp_path / "parts"
    d.mkdir()
    _jsonl(d / "a.jsonl", [{"task_id": 1, "trial": 0, "success": True}])
    _jsonl(d / "b.jsonl", [{"task_id": 1.0, "trial": 0, "success": False}])
    assert list(ph.read_counts(d)["task"].values) == ["1", "1.0"]


def test_json_count_table_ids(tmp_path: Path) -> None:
    f = _jsonl(
        tmp_path / "counts.jsonl",
        [{"task_id": 1, "n": 3, "c": 1}, {"task_id": 1.0, "n": 3, "c": 2}],
    )
    assert _counts(f) == {"1": (3, 1), "1.0": (3, 2)}


def test_tau_bench_ids_7_and_7_0(tmp_path: Path) -> None:
    f = tmp_path / "tau.json"
    recs = [{"task_id": t, "reward": 1.0, "trial": 0, "info": {}, "traj": []} for t in (7, 7.0)]
    f.write_text(json.dumps(recs), encoding="utf-8")
    assert ph.read_trials(f, format="tau-bench").tasks == ["7", "7.0"]  # was one task '7.0'


# ------------------------------------------------------------------ task attributes name the file
@pytest.mark.parametrize(
    ("body", "option", "pattern"),
    [
        ("task_id,trial,success,category\na,0,1,x\na,1,0,y\n", {}, "different categories"),
        ("task_id,trial,success,weight\na,0,1,1\nb,0,1,\n", {}, "task 'b' .*: no weight"),
        ("task_id,trial,success,weight\na,0,1,1\na,1,1,2\n", {}, "different weights"),
    ],
)
def test_task_attribute_errors_name_the_file(
    tmp_path: Path,
    body: str,
    option: dict[str, Any],
    pattern: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """'task 'a': runs declare different categories' named no file; now every path does."""
    f = tmp_path / "runs.csv"
    f.write_text(body, encoding="utf-8")
    with pytest.raises(ValidationError, match=rf"^{f}: .*{pattern}"):
        ph.read_trials(f).counts()
    for b in BATCHES:
        with pytest.raises(ValidationError, match=rf"^{f}: .*{pattern}"):
            ph.io.aggregate_counts(f, batch_rows=b)
    code, err = _cli(["estimate", str(f)], capsys)
    assert code == 2 and len(err) == 1 and str(f) in err[0]


# ------------------------------------------------------------------ links and permissions
def test_symbolic_link_loops_and_dangling_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link to itself was 'no such file or directory'; now it says it loops, or where the
    dangling link points."""
    loop = tmp_path / "loop.csv"
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling.csv"
    dangling.symlink_to(tmp_path / "gone.csv")
    with pytest.raises(InputError, match="a symbolic link that loops"):
        ph.read_trials(loop)
    with pytest.raises(InputError, match=r"a symbolic link to '.*gone\.csv', which does not exist"):
        ph.read_trials(dangling)
    code, err = _cli(["estimate", str(loop)], capsys)
    assert code == 2 and len(err) == 1 and "loops" in err[0]
    # a directory holding a link to itself is read once, without looping
    d = tmp_path / "parts"
    d.mkdir()
    (d / "a.csv").write_text(TIDY, encoding="utf-8")
    (d / "self").symlink_to(d)
    assert _counts(d) == {"a": (2, 1), "b": (1, 1)}


def test_unreadable_file_is_an_io_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file without read permission: the API raised a bare PermissionError and the CLI said
    "Path is not readable" with exit 2; now a ReadError naming the file, and exit 4 (I/O).
    Tests run as root here (which reads any file), so the denial is simulated at open()."""
    f = tmp_path / "runs.csv"
    f.write_text(TIDY, encoding="utf-8")
    real_open = builtins.open

    def denying_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(file) == str(f) if isinstance(file, str | os.PathLike) else False:
            raise PermissionError(13, "Permission denied", str(f))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", denying_open)
    with pytest.raises(ReadError, match=rf"^{f}: cannot read it: permission denied"):
        ph.read_trials(f)
    assert ReadError.exit_code == 4
    code, err = _cli(["estimate", str(f)], capsys)
    assert code == 4 and err == [f"passhat: error: {f}: cannot read it: permission denied"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files without read permission")
def test_unreadable_file_for_real(tmp_path: Path) -> None:
    f = tmp_path / "runs.csv"
    f.write_text(TIDY, encoding="utf-8")
    f.chmod(0)
    with pytest.raises(ReadError, match="permission denied"):
        ph.read_trials(f)


# ------------------------------------------------------------------ what already held: kept
@pytest.mark.parametrize(
    ("raw", "want"),
    [
        (("\ufeff" + TIDY).encode("utf-8"), {"a": (2, 1), "b": (1, 1)}),  # BOM
        (TIDY.replace("\n", "\r\n").encode(), {"a": (2, 1), "b": (1, 1)}),  # CRLF
        (TIDY.replace(",", ";").encode(), {"a": (2, 1), "b": (1, 1)}),  # ';'-separated
        (
            b"task_id,trial,success\n007,0,1\n7,0,0\n1.0,0,1\n1,0,0\n",
            {"007": (1, 1), "7": (1, 0), "1.0": (1, 1), "1": (1, 0)},
        ),
        (f"task_id,trial,success\n{'x' * 10_000},0,1\n".encode(), {"x" * 10_000: (1, 1)}),
        (
            b'task_id,trial,success\na,0,1.0\na,1,True\na,2,yes\na,3,PASS\na,4,C\na,5,0.0\na,6,"1"\n',
            {"a": (7, 6)},
        ),
    ],
)
def test_plain_hostile_tables_read_alike_in_memory_and_streamed(
    tmp_path: Path, raw: bytes, want: dict[str, tuple[int, int]]
) -> None:
    f = tmp_path / "runs.csv"
    f.write_bytes(raw)
    t = ph.read_trials(f).counts()
    got = {
        str(k): (int(n), int(c))
        for k, n, c in zip(t["task"].values, t["n"].values[0], t["c"].values[0], strict=True)
    }
    assert got == want
    # (the streamed CSV reader reads blocks of 16 bytes × batch_rows, at least 4 KiB: a row
    # must fit in one block, so the 10,000-character id needs batches of 1000 rows or more)
    for b in BATCHES if len(raw) < 4096 else (1000, 1 << 20):
        ds = ph.io.aggregate_counts(f, batch_rows=b)
        assert list(ds["task"].values) == list(t["task"].values)
        assert np.array_equal(ds["n"].values, t["n"].values) and np.array_equal(
            ds["c"].values, t["c"].values
        )


@pytest.mark.parametrize(
    ("body", "pattern"),
    [
        ("", "the file is empty"),
        ("task_id,trial,success\n", "no trials"),
        ("\n\n   \n", "only whitespace"),
        ("task_id,trial,success\na,0,2\n", "saw '2'"),
        ("task_id,trial,success\na,0,-1\n", "saw '-1'"),
        ("task_id,trial,success\na,0,0.5\n", "saw '0.5'"),
        ('task_id,trial,success\n"a\tb",0,1\n', "U\\+0009 TAB"),
        ('task_id,trial,success\n"a\nb",0,1\n', "U\\+000A LINE FEED"),
        ("task_id,success,trial,trial\na,1,0,1\n", "both named 'trial'"),
        ("task_id,trial,success\n a,0,1\na,1,0\n", "differ only by surrounding spaces"),
    ],
)
def test_plain_hostile_tables_are_refused_in_one_line(
    tmp_path: Path, body: str, pattern: str, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "runs.csv"
    f.write_text(body, encoding="utf-8")
    with pytest.raises(InputError, match=pattern):
        ph.read_trials(f)
    code, err = _cli(["estimate", str(f)], capsys)
    assert code == 2 and len(err) == 1 and str(f) in err[0]


def test_missing_trial_says_missing(tmp_path: Path) -> None:
    """An empty trial cell was 'trial nan is not a non-negative whole number' (in memory) and
    'trial None ...' (streamed); both now say the trial is missing, at the same row."""
    f = tmp_path / "runs.csv"
    f.write_text("task_id,trial,success\na,0,1\na,,0\n", encoding="utf-8")
    pattern = rf"^{f}: row 2: trial is missing"
    with pytest.raises(ValidationError, match=pattern):
        ph.read_trials(f)
    for b in BATCHES:
        with pytest.raises(ValidationError, match=pattern):
            ph.io.aggregate_counts(f, batch_rows=b)


@pytest.mark.parametrize(
    ("doc", "pattern"),
    [
        ([{"task_id": "a", "success": True}], r"a JSON array of 1 record\(s\) .*jq -c"),
        ([{"task_id": "a", "reward": 1.0}], r"if it is one, pass --format tau-bench"),
        ({"runs": []}, r"a JSON file holding an object with keys runs"),
        ([], r"a JSON file holding an empty array"),
        (None, r"a JSON file holding null"),
    ],
)
def test_json_nobody_reads_says_what_it_holds(
    tmp_path: Path, doc: Any, pattern: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A valid JSON file no reader recognises was 'cannot tell the format'; now the message
    says what the file holds and the nearest format passhat reads."""
    f = tmp_path / "runs.json"
    f.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(FormatError, match=pattern):
        ph.read_trials(f)
    code, err = _cli(["estimate", str(f)], capsys)
    assert code == 2 and len(err) == 1


@pytest.mark.parametrize(
    "empty", [b"", b"\n\n  \n", gzip.compress(b"", mtime=0)], ids=["zero", "blank", "gzip"]
)
def test_empty_part_files_are_skipped_with_a_note(
    tmp_path: Path, empty: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty part file in a dataset directory (a writer's empty partition) stopped the whole
    read with "required column 'task_id' is missing (columns: )"; it holds no rows, so it is
    now skipped and named in a note. A directory of empty files only is refused."""
    d = tmp_path / "parts"
    d.mkdir()
    (d / "part-0.csv").write_text(TIDY, encoding="utf-8")
    name = "part-1.csv.gz" if empty.startswith(b"\x1f\x8b") else "part-1.csv"
    (d / name).write_bytes(empty)
    ds = ph.read_counts(d)
    assert _counts(d) == {"a": (2, 1), "b": (1, 1)}
    (note,) = ds.attrs["notes"]
    assert note == f"1 empty part file(s) hold no rows and were skipped: {d / name}"
    code, err = _cli(["estimate", str(d)], capsys)
    assert code == 0 and any("empty part file" in line for line in err)
    (d / "part-0.csv").write_bytes(b"")
    with pytest.raises(FormatError, match="every one of its 2 data files is empty"):
        ph.read_counts(d)


def test_linked_directories_in_a_dataset_are_read(tmp_path: Path) -> None:
    """A dataset directory holding a link to another directory of parts skipped that directory
    without a word (its runs were lost); links to directories are now followed, each real
    directory once (a link back to the root ends there)."""
    data, other = tmp_path / "data", tmp_path / "other"
    data.mkdir()
    other.mkdir()
    (data / "a.csv").write_text("task_id,trial,success\na,0,1\n", encoding="utf-8")
    (other / "b.csv").write_text("task_id,trial,success\nb,0,0\n", encoding="utf-8")
    (data / "linked").symlink_to(other)
    (data / "again").symlink_to(data)
    assert _counts(data) == {"a": (1, 1), "b": (1, 0)}
    assert ph.read_counts(data).attrs["source_files"] == 2


def test_count_table_ids_differing_by_spaces_are_refused(tmp_path: Path) -> None:
    """A count table with ' a' and 'a' read them as two tasks nobody can tell apart in a
    table; the trial readers refused that, and now the count reader does too."""
    f = tmp_path / "counts.csv"
    f.write_text("task_id,n,c\n a,3,1\na,3,2\n", encoding="utf-8")
    with pytest.raises(ValidationError, match=r"row 1: task_id ' a' and 'a' differ only by"):
        ph.read_counts(f)


def test_directory_of_json_results_says_how_to_read_them(tmp_path: Path) -> None:
    """A directory of τ²-bench result files (tau2's data/simulations/) said only 'no data
    files (.csv, ...)'; now it names the .json files and how to read them."""
    d = tmp_path / "simulations"
    d.mkdir()
    for name in ("a.json", "b.json"):
        (d / name).write_text('{"info": {}, "tasks": [], "simulations": []}', encoding="utf-8")
    with pytest.raises(
        InputError, match=r"its 2 \.json file\(s\) \(a\.json, b\.json\) are read one"
    ):
        ph.read_counts(d)


def test_a_field_mapped_twice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--map success=passed --map success=trial read the last column without a word."""
    f = tmp_path / "runs.csv"
    f.write_text("q,trial,passed\na,0,1\na,1,0\n", encoding="utf-8")
    args = ["estimate", str(f), "--map", "task=q", "--map", "success=passed"]
    code, err = _cli([*args, "--map", "success=trial"], capsys)
    assert code == 2 and err == [
        "passhat: error: --map success= given twice ('passed' and 'trial'); give it once"
    ]
    assert _cli([*args, "--map", "success=passed"], capsys)[0] == 0  # the same twice is harmless


def test_gzip_tau_results_read_like_the_plain_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gzip-compressed τ-bench or τ²-bench results file was sniffed (through the gzip) and
    then refused as 'byte 8 is NUL: a binary file'; it is now read like the plain file, with
    the system named without '.json'. An Inspect log in gzip is refused with the fix."""
    tau = [
        {"task_id": t, "trial": i, "reward": float((t + i) % 2), "info": {}, "traj": []}
        for t in range(3)
        for i in range(2)
    ]
    sims = [
        {
            "task_id": str(t),
            "trial": i,
            "termination_reason": "user_stop",
            "reward_info": {"reward": float(i)},
        }
        for t in range(2)
        for i in range(2)
    ]
    tau2 = {"info": {"agent_info": {"llm": "m"}}, "tasks": [], "simulations": sims}
    for name, doc in (("tau", tau), ("tau2", tau2)):
        plain = tmp_path / f"{name}.json"
        plain.write_text(json.dumps(doc), encoding="utf-8")
        packed = tmp_path / f"{name}.json.gz"
        packed.write_bytes(gzip.compress(plain.read_bytes()))
        a, b = ph.read_trials(plain), ph.read_trials(packed)
        cols = ["system", "task_id", "trial", "success"]
        assert a.frame[cols].equals(b.frame[cols])
    assert ph.read_trials(tmp_path / "tau.json.gz").systems == ["tau"]
    log = tmp_path / "log.json.gz"
    log.write_bytes(gzip.compress(b'{"version": 2, "status": "success", "eval": {}}'))
    with pytest.raises(FormatError, match=r"gzip-compressed Inspect AI log; .* gunzip it first"):
        ph.read_trials(log, format="inspect")
    truncated = tmp_path / "cut.json.gz"
    truncated.write_bytes((tmp_path / "tau.json.gz").read_bytes()[:-12])
    with pytest.raises(FormatError, match="a damaged gzip file"):
        ph.read_trials(truncated)


@pytest.mark.parametrize("name", ["runs.csv.gz", "runs.jsonl.gz", "runs.csv"])
def test_gzip_damaged_past_its_head_is_named(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gzip file cut past its first 64 KiB (the sniffed head) ended the CLI with "passhat:
    interrupted", status 130 (pandas' EOFError, which click reads as Ctrl-D), or, counted out of
    core, with Arrow's bare "Truncated compressed stream" (no file named, status 4) or an
    EOFError; a gzip CSV without .gz in its name could not be counted out of core at all."""
    rows = [{"task_id": f"t{i % 99}", "trial": i, "success": i % 2} for i in range(12_000)]
    text = (
        "task_id,trial,success\n" + "".join(f"t{i % 99},{i},{i % 2}\n" for i in range(12_000))
        if ".csv" in name
        else "".join(json.dumps(r) + "\n" for r in rows)
    )
    packed = gzip.compress(text.encode("utf-8"))
    whole = tmp_path / f"whole-{name}"
    whole.write_bytes(packed)  # runs.csv: gzip content, no .gz in the name
    assert ph.read_counts(whole)["n"].values.sum() == 12_000
    f = tmp_path / name
    f.write_bytes(packed[: len(packed) * 9 // 10])  # past the first 64 KiB of text
    with pytest.raises(FormatError, match=rf"{name}: a damaged gzip file .*truncated"):
        ph.read_trials(f)
    for b in (1000, 1 << 20):
        with pytest.raises(FormatError, match=rf"{name}: a damaged gzip file .*truncated"):
            ph.io.aggregate_counts(f, batch_rows=b)
    code, err = _cli(["estimate", str(f)], capsys)
    assert code == 2 and len(err) == 1 and "damaged gzip" in err[0]
