"""Real Inspect AI logs written by Inspect itself (not by this test suite), read by passhat.

Oracle: Inspect AI's own reader (``inspect_ai.log.read_eval_log``) on the same file — the
sample scores it returns and the ``accuracy`` metric Inspect stored in the log's results.
The files are copied unchanged from the Inspect AI repository (MIT; see
``tests/io/data/inspect_ai/README.md``): an ``.eval`` log with 2 epochs, one evaluation in both
the ``.eval`` and the ``.json`` form, a cancelled evaluation and a log that was never scored.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import passhat as ph
from passhat.errors import FormatError

pytest.importorskip("inspect_ai")

DATA = Path(__file__).parent / "data" / "inspect_ai"


def _inspect_counts(path: Path) -> dict[str, tuple[int, int]]:
    """(n, c) per sample id from Inspect's own reader: C = 1, I = 0, as its accuracy."""
    from inspect_ai.log import read_eval_log

    out: dict[str, tuple[int, int]] = {}
    for s in read_eval_log(str(path)).samples or []:
        n, c = out.get(str(s.id), (0, 0))
        out[str(s.id)] = (n + 1, c + int(s.scores["match"].value == "C"))
    return out


def test_epochs_log_matches_inspect(capsys: pytest.CaptureFixture[str]) -> None:
    from inspect_ai.log import read_eval_log

    from passhat.cli import main

    f = DATA / "log_streaming.eval"
    t = ph.read_trials(f)
    ds = t.counts()
    ours = {
        str(task): (int(n), int(c))
        for task, n, c in zip(ds["task"].values, ds["n"].values[0], ds["c"].values[0], strict=True)
    }
    assert ours == _inspect_counts(f) == {"1": (2, 1), "2": (2, 2)}
    assert t.systems == ["azureai/Meta-Llama-3-1-405B-Instruct-jqf"]
    accuracy = read_eval_log(str(f)).results.scores[0].metrics["accuracy"].value
    mean = ph.estimate(t, k=1).table.query("metric == 'mean'")["value"].iloc[0]
    assert mean == pytest.approx(accuracy)  # 0.75, as Inspect wrote it
    assert main(["estimate", str(f), "--k", "1,2", "--json"]) == 0
    assert t.notes == []  # a finished log: nothing to say


def test_eval_and_json_forms_read_alike() -> None:
    a = ph.read_trials(DATA / "log_formats.eval").frame
    b = ph.read_trials(DATA / "log_formats.json").frame
    cols = ["system", "task_id", "trial", "success", "status", "score", "scenario_hash"]
    assert a[cols].equals(b[cols])


def test_cancelled_log_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """A cancelled evaluation was read without a word; now a note says the log's status and
    how many of the planned sample epochs it holds (3 of 3 here: ``--limit 3``)."""
    from passhat.cli import main

    f = DATA / "popularity_cancelled.json"
    t = ph.read_trials(f)
    assert len(t) == 3 and t.source["log_status"] == "cancelled"
    assert len(t.notes) == 1 and "was cancelled (log status 'cancelled')" in t.notes[0]
    assert "all 3 planned sample epoch(s)" in t.notes[0]
    assert main(["estimate", str(f)]) == 0
    assert "was cancelled" in capsys.readouterr().err


def test_cancelled_log_short_of_its_plan(tmp_path: Path) -> None:
    """The same log with a limit of 10: 3 of 10 planned sample epochs were run."""
    text = (DATA / "popularity_cancelled.json").read_text(encoding="utf-8")
    assert text.count('"limit": 3') == 1
    f = tmp_path / "short.json"
    f.write_text(text.replace('"limit": 3', '"limit": 10'), encoding="utf-8")
    (note,) = ph.read_trials(f).notes
    assert "read the 3 sample epoch(s) it holds of the 10 planned" in note


def test_never_scored_log_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    from passhat.cli import main

    f = DATA / "popularity_unscored.eval"
    with pytest.raises(FormatError, match=r"none of its 10 samples was scored .*inspect score"):
        ph.read_trials(f)
    assert main(["estimate", str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(f) in err[0]


def test_directory_reads_json_logs_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A directory holding an .eval and a .json log read only the .eval (the .json log's model
    was dropped without a word), and a directory of .json logs was 'no data files'."""
    from passhat.cli import main

    d = tmp_path / "logs"
    d.mkdir()
    shutil.copy(DATA / "log_streaming.eval", d)
    shutil.copy(DATA / "popularity_cancelled.json", d)
    (d / "logs.json").write_text('{"a.eval": {}}', encoding="utf-8")  # Inspect's listing
    t = ph.read_trials(d)
    assert sorted(t.systems) == ["azureai/Meta-Llama-3-1-405B-Instruct-jqf", "openai/gpt-4o-mini"]
    assert len(t) == 4 + 3
    assert any("not read, not Inspect AI logs: logs.json" in n for n in t.notes)
    assert any("was cancelled" in n for n in t.notes)  # each log's own notes are kept
    only_json = tmp_path / "json_only"
    only_json.mkdir()
    shutil.copy(DATA / "log_formats.json", only_json)
    assert ph.read_trials(only_json).systems == ["ollama/llama3.1"]
    (d / "extra.csv").write_text("task_id,trial,success\na,0,1\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"mixes Inspect AI logs with data files \(extra.csv\)"):
        ph.read_trials(d)
    assert main(["estimate", str(d)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("cut", ["half", "header", "text", "crc"])
def test_damaged_eval_is_an_unreadable_inspect_log(
    tmp_path: Path, cut: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A truncated or damaged .eval said 'cannot tell the format'; now it is named an
    unreadable Inspect AI .eval log (a zip archive) with the reason."""
    from passhat.cli import main

    raw = (DATA / "log_streaming.eval").read_bytes()
    f = tmp_path / "run.eval"
    if cut == "half":
        f.write_bytes(raw[: len(raw) // 2])
    elif cut == "header":
        f.write_bytes(raw[:30])
    elif cut == "text":
        f.write_text("not a zip", encoding="utf-8")
    else:  # a member's compressed bytes overwritten: the archive opens, the member does not
        import zipfile

        with zipfile.ZipFile(f, "w") as zf:
            zf.writestr("header.json", '{"version": 2}' * 200, compress_type=zipfile.ZIP_DEFLATED)
        data = bytearray(f.read_bytes())
        data[40:60] = b"\xff" * 20
        f.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"an unreadable Inspect AI \.eval log.*zip archive"):
        ph.read_trials(f)
    assert main(["estimate", str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unreadable Inspect AI .eval log" in err[0] and str(f) in err[0]


def test_dict_valued_score_says_why(tmp_path: Path) -> None:
    """A dict-valued score (several values per sample) is refused with the reason."""
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.scorer import Score

    log = read_eval_log(str(DATA / "log_streaming.eval"))
    log.samples[0].scores["match"] = Score(value={"accuracy": 1, "f1": 0.5})
    f = tmp_path / "dict.eval"
    write_eval_log(log, str(f))
    with pytest.raises(FormatError, match=r"sample 1 epoch 1: .*dict-valued score"):
        ph.read_trials(f)


def test_two_logs_repeating_runs_are_named(tmp_path: Path) -> None:
    """Two logs of one model holding the same sample epochs (a rerun, a copy) were refused as
    'duplicate ... at rows 1, 5' of the stacked logs; the error now names both files."""
    d = tmp_path / "logs"
    d.mkdir()
    shutil.copy(DATA / "log_streaming.eval", d / "a.eval")
    shutil.copy(DATA / "log_streaming.eval", d / "b.eval")
    with pytest.raises(
        FormatError, match=r"a\.eval and b\.eval both hold model .* sample '1', epoch 1"
    ):
        ph.read_trials(d)


def test_a_log_under_the_other_extension_is_read(tmp_path: Path) -> None:
    """A .json log saved as .eval was refused as a damaged zip, and an .eval log saved as
    .json as bad JSON; the content decides now."""
    want = ph.read_trials(DATA / "log_formats.eval").frame[["task_id", "trial", "success"]]
    for src, name in (("log_formats.json", "log.eval"), ("log_formats.eval", "log.json")):
        shutil.copy(DATA / src, tmp_path / name)
        got = ph.read_trials(tmp_path / name).frame[["task_id", "trial", "success"]]
        assert got.equals(want)
        assert len(ph.read_traces(tmp_path / name).trials) == 1  # traces read it the same way


def test_sample_ids_written_as_number_and_as_text_are_refused(tmp_path: Path) -> None:
    """Inspect sample ids are int or str; sample 1 and sample "1" in one log were one task
    (str() of each id), where the other readers refuse them. Oracle: the log's one sample,
    copied as epoch 2 with its id written as text."""
    doc = json.loads((DATA / "log_formats.json").read_text(encoding="utf-8"))
    (sample,) = doc["samples"]
    assert sample["id"] == 1 and sample["epoch"] == 1
    doc["samples"].append({**sample, "id": "1", "epoch": 2})
    f = tmp_path / "mixed.json"
    f.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ph.ValidationError, match=r"task_id 1 \(a number\) and '1' \(text\)"):
        ph.read_trials(f)
    doc["samples"][1]["id"] = 1  # both numbers: one task of 2 runs, read as '1'
    f.write_text(json.dumps(doc), encoding="utf-8")
    counts = ph.read_counts(f)
    assert counts["task"].values.tolist() == ["1"] and counts["n"].values.tolist() == [[2]]


def test_a_log_directory_with_the_hooks_outputs_still_reads(tmp_path: Path) -> None:
    """passhat's Inspect hook writes ``passhat-<log>.json`` and ``passhat-<log>-report/`` (with
    a tasks.parquet) beside each log; reading the log directory afterwards took it for a
    Parquet dataset ("tasks.parquet: required column 'success' is missing")."""
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(DATA / "log_streaming.eval", logs)
    report = logs / "passhat-log_streaming-report"
    report.mkdir()
    (report / ".passhat-manifest.json").write_text("{}")
    pd.DataFrame({"task": ["1"], "n": [2], "c": [1]}).to_parquet(report / "tasks.parquet")
    (logs / "passhat-log_streaming.json").write_text('{"estimates": []}')
    t = ph.read_trials(logs)
    alone = ph.read_trials(DATA / "log_streaming.eval")
    assert t.source["format"] == "inspect" and t.systems == alone.systems
    assert t.counts()["c"].values.tolist() == alone.counts()["c"].values.tolist()
    assert t.counts()["n"].values.tolist() == alone.counts()["n"].values.tolist()


def test_a_table_below_a_log_directory_is_not_read_for_the_logs(tmp_path: Path) -> None:
    """A log directory with an ``analysis/runs.parquet`` below it was read as a Parquet dataset
    (the Parquet sniffer runs first): the logs were dropped without a word."""
    logs = tmp_path / "logs"
    (logs / "analysis").mkdir(parents=True)
    shutil.copy(DATA / "log_streaming.eval", logs)
    frame = {"system": ["other"], "task_id": ["x"], "trial": [0], "success": [1]}
    pd.DataFrame(frame).to_parquet(logs / "analysis" / "runs.parquet")
    t = ph.read_trials(logs)
    assert t.source["format"] == "inspect" and "other" not in t.systems
    assert any("subdirectories are not read (analysis)" in n for n in t.notes), t.notes


def test_logs_in_subdirectories_are_named(tmp_path: Path) -> None:
    """Inspect lists logs recursively; passhat reads one directory's: a log in a subdirectory
    was left out without a note, and a directory with logs only below it was "a directory
    with no data files (.csv, ...)"."""
    logs = tmp_path / "logs"
    (logs / "run2").mkdir(parents=True)
    shutil.copy(DATA / "log_formats.eval", logs / "run2")
    with pytest.raises(FormatError, match=r"its subdirectories hold logs \(run2 \(1 log\)\)"):
        ph.read_trials(logs)
    shutil.copy(DATA / "log_streaming.eval", logs)
    t = ph.read_trials(logs)
    assert any("subdirectories are not read (run2 (1 log))" in n for n in t.notes), t.notes
