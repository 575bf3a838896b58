"""``passhat report`` on the command line: where the report is, bad input in one line, the bare
``--example``, and ``--traces`` (read by the command, analysed by :func:`passhat.report`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passhat.cli import main

from .cli_helpers import GOOD, HEADER, TAU, bad, write


def test_report_cli_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rep"
    rc = main(["report", "--example", "abcd", "-o", str(out), "--k", "1,2", "--no-model"])
    assert rc == 0
    text = capsys.readouterr().out
    assert f"open:     {out / 'index.html'}" in text
    assert "uniform spread" in text  # the spread sentence is printed
    # the resamples and the seed are said once, on the k line (not again as a note)
    assert "bootstrap 10000 resamples, seed 0" in text
    assert "note: intervals:" not in text
    for name in ("index.html", "report.md", "results.json"):
        assert (out / name).is_file()
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["stamp"]["settings"]["k"] == [1, 2]
    assert doc["stamp"]["settings"]["model"] is False


def test_report_cli_quiet_title(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "q"
    argv = ["report", "--example", "abcd", "-o", str(out), "--k", "2", "--no-model", "-q"]
    assert main([*argv, "--title", "My <agent>"]) == 0
    assert capsys.readouterr().out.strip() == str(out / "index.html")
    assert "<title>My &lt;agent&gt;</title>" in (out / "index.html").read_text(encoding="utf-8")


def test_report_cli_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs.csv"
    runs.write_text(
        "task_id,trial,success\n"
        + "".join(f"t{t},{i},{int(i < t)}\n" for t in range(4) for i in range(3))
    )
    assert main(["report", str(runs), "-o", str(tmp_path / "o"), "--k", "1,3", "--no-model"]) == 0
    doc = json.loads((tmp_path / "o" / "results.json").read_text(encoding="utf-8"))
    assert doc["stamp"]["input"]["path"].endswith("runs.csv")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["report", "missing.csv", "-o", "{out}"], "missing.csv"),
        (["report", "--example", "abcd", "-o", "{out}", "--k", "0"], "k must be"),
        (["report", "--example", "abcd", "-o", "{out}", "--k", "9"], "exceeds"),
        (["report", "--example", "abcd", "-o", "{out}", "--ci", "1.5"], "--ci"),
        (["report", "{bad}", "-o", "{out}"], "boolean-like"),
        (["report", "--example", "abcd"], "-o"),
    ],
)
def test_report_cli_bad_input_one_line(
    argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("task_id,trial,success\na,0,maybe\na,1,yes\n")
    args = [a.format(out=tmp_path / "o", bad=bad) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("passhat: error:") and err.count("\n") == 1, err
    assert words in err
    assert not (tmp_path / "o" / "index.html").exists()


def test_report_cli_bare_example_means_agents(tmp_path: Path) -> None:
    out = tmp_path / "bare"
    assert main(["report", "--example", "-o", str(out), "--no-model", "--no-plan", "-q"]) == 0
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["stamp"]["input"]["example"] == "agents"


@pytest.mark.parametrize(
    ("args", "example"),
    [
        (["--example", "abcd"], "abcd"),  # a name still names the example
        (["--example=abcd"], "abcd"),
        (["--no-model", "--example"], "agents"),  # alone as the last argument
    ],
)
def test_report_cli_example_name_or_bare(args: list[str], example: str, tmp_path: Path) -> None:
    out = tmp_path / "ex"
    argv = ["report", "-o", str(out), "--no-model", "--no-plan", "--k", "1,2", "-q", *args]
    assert main(argv) == 0
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["stamp"]["input"]["example"] == example


def test_report_cli_help_names_the_bare_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--help"]) == 0
    assert "(alone: 'agents')" in " ".join(capsys.readouterr().out.split())
    assert main(["estimate", "--help"]) == 0  # the other commands' --example needs a name
    assert "alone" not in capsys.readouterr().out


def test_report_three_systems_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import pandas as pd

    import passhat as ph

    frame = ph.load_example("agents").frame
    third = frame[frame["system"] == "guided"].assign(system="third")
    runs = tmp_path / "three.csv"
    pd.concat([frame, third]).to_csv(runs, index=False)
    out = tmp_path / "three"
    argv = ["report", str(runs), "-o", str(out), "--k", "1,5", "--no-model", "--n-boot", "200"]
    assert main([*argv, "--baseline", "guided", "-q"]) == 0
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    head = next(s for s in doc["sections"] if s["id"] == "headline")
    cmp = next(t for t in head["tables"] if t["id"] == "headline_compare")
    assert {r["baseline"] for r in cmp["rows"]} == {"guided"}
    assert {r["candidate"] for r in cmp["rows"]} == {"baseline", "third"}
    # the same system against itself: difference exactly zero
    third_rows = [r for r in cmp["rows"] if r["candidate"] == "third"]
    assert all(r["difference"] == 0 for r in third_rows)
    assert main([*argv, "--baseline", "nope"]) == 2
    assert "baseline 'nope' is not a system" in capsys.readouterr().err


def test_tolerate_extra_lookups_needs_traces(tmp_path, capsys):
    """The option only makes sense with --traces: one clear line, exit 2."""
    from passhat.cli import main

    rc = main(
        [
            "report",
            "--example",
            "agents",
            "-o",
            str(tmp_path / "r"),
            "--no-model",
            "--tolerate-extra-lookups",
            "-q",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 1 and "--tolerate-extra-lookups needs --traces" in err[0]


def test_report_cli_traces_add_the_divergence_section(
    tau_airline_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--traces FILE: the same section as report(divergence=divergence(read_traces(FILE)))."""
    import passhat as ph

    out = tmp_path / "t"
    argv = ["report", str(tau_airline_path), "--traces", str(tau_airline_path), "-o", str(out)]
    opts = ["--k", "1,2", "--no-model", "--no-plan", "--n-boot", "200", "-q"]
    assert main([*argv, *opts, "--tolerate-extra-lookups"]) == 0
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    got = next(s for s in doc["sections"] if s["id"] == "divergence")
    div = ph.divergence(ph.read_traces(tau_airline_path), tolerate_extra_lookups=True)
    want = ph.report(
        ph.read(tau_airline_path),
        tmp_path / "api",
        k=[1, 2],
        model=False,
        plan=False,
        n_boot=200,
        divergence=div,
    ).data.section("divergence")
    assert got == json.loads(json.dumps(want.to_json()))


def test_negative_seed_is_an_option_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path, "good.csv", GOOD)
    args = ["report", "{good}", "-o", "{out}", "--k", "1", "--no-model", "--seed", "-1"]
    argv = [a.format(good=good, out=tmp_path / "rep") for a in args]
    bad(capsys, argv, r"--seed.*-1")


def test_report_without_model_on_all_pass_runs_still_writes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "runs.csv", HEADER + "A,t1,0,1\nA,t1,1,1\nA,t2,0,1\nA,t2,1,1\n")
    out = tmp_path / "rep"
    assert main(["report", path, "-o", str(out), "--k", "1,2", "--no-model", "-q"]) == 0
    capsys.readouterr()
    assert "no design of the budget" in (out / "report.md").read_text(encoding="utf-8")


def test_report_traces_that_share_no_task_with_the_runs_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    traces = write(tmp_path, "tau.json", TAU)  # tasks "0", "1"
    runs = write(tmp_path, "runs.csv", GOOD)  # tasks t1, t2, t3
    out = str(tmp_path / "rep")
    args = ["report", runs, "-o", out, "--k", "1", "--no-model", "--no-plan", "-q"]
    bad(capsys, [*args, "--traces", traces], r"tau\.json: none of its 2 task\(s\).*runs\.csv")


def test_report_unknown_baseline_is_refused_with_one_system_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["report", "--example", "abcd", "-o", str(tmp_path / "r"), "--no-model", "-q"]
    bad(capsys, [*args, "--baseline", "nosuch"], r"baseline 'nosuch' is not a system")


def test_report_default_k_follows_the_runs(tmp_path, capsys):
    """No --k: k = 1, 2, 5 capped at the fewest decided runs (4 → 1, 2, 4), not a k = 5 error."""
    import pandas as pd

    from passhat.cli import main

    rows = [
        {"task_id": t, "trial": r, "success": (r + i) % 3 != 0}
        for i, t in enumerate(["a", "b", "c"])
        for r in range(4)
    ]
    f = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(f, index=False)
    assert main(["report", str(f), "-o", str(tmp_path / "r"), "--no-model", "-q"]) == 0
    import json

    stamp = json.loads((tmp_path / "r" / "results.json").read_text())["stamp"]
    assert stamp["settings"]["k"] == [1, 2, 4]


def test_report_json_says_where_the_files_are(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Before: `No such option '--json'` (exit 2); every other command has --json. The payload is
    strict JSON with the same keys every time; the paths it names are the files written."""
    out = tmp_path / "rep"
    argv = ["report", "--example", "abcd", "-o", str(out), "--k", "1,2", "--no-model"]
    assert main([*argv, "--n-boot", "200", "--json"]) == 0
    text = capsys.readouterr().out

    def strict(token: str) -> None:
        raise ValueError(token)  # NaN, Infinity: not JSON

    doc = json.loads(text, parse_constant=strict)
    assert list(doc) == [
        "schema",
        "schema_version",
        "passhat_version",
        "input",
        "out_dir",
        "files",
        "seed",
        "settings",
        "summary",
        "sections",
        "notes",
    ]
    files = doc["files"]
    for key in ("html", "markdown", "json", "tasks"):
        assert Path(files[key]).is_file(), key
    assert files["figures"] and all(Path(f).is_file() for f in files["figures"])
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["settings"] == results["stamp"]["settings"]
    summary = next(s for s in results["sections"] if s["id"] == "summary")
    assert doc["summary"] == summary["sentences"]
    assert [s["id"] for s in doc["sections"]] == [s["id"] for s in results["sections"]]
    assert {s["status"] for s in doc["sections"]} <= {"ok", "skipped", "failed"}


def test_report_default_fits_once_on_the_grid_with_no_sampler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before (issue 32 goal 2): the report's model comparison fitted the inflated model by NUTS
    (and its progress bar ignored --quiet). Now the default stacked fit carries its own
    comparison: one fit per report, on the grid, nothing sampled."""
    import importlib

    build = importlib.import_module("passhat.report.build")
    real_fit, seen = build.fit, []

    def recording(d, **kw):  # type: ignore[no-untyped-def]
        seen.append(kw)
        return real_fit(d, **kw)

    monkeypatch.setattr(build, "fit", recording)
    argv = ["report", "--example", "abcd", "-o", str(tmp_path / "r"), "--k", "1", "--no-plan"]
    assert main([*argv, "--n-boot", "100", "-q"]) == 0
    assert main([*argv, "--n-boot", "100"]) == 0
    capsys.readouterr()
    assert len(seen) == 2
    assert all(kw.get("model", "auto") == "auto" for kw in seen)
    assert all(kw.get("method") in (None, "auto", "grid") for kw in seen)
