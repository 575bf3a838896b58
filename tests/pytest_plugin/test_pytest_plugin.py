"""The reliability marker end to end, in pytest sessions run by ``pytester``.

Oracle: each marked test draws its outcomes from a seeded ``random.Random``, so the test here
rebuilds the same stream and asks the stopping rule (checked against ``passhat gate``'s
decisions in test_rule.py) where it stops; the plugin must stop there, report that verdict,
and write exactly those runs. A test passing 95% of the time passes, one at 70% fails (goal
pass^2 ≥ 0.7, i.e. p ≥ 0.837 per run); fixtures are set up afresh for each run; bad markers,
unscored runs, skips, setup errors and the report file's rules are each checked.
"""

from __future__ import annotations

import math
import random
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

import passhat as ph
from passhat.pytest_plugin.reliability import reliability
from passhat.pytest_plugin.rule import stopping_rule
from passhat.pytest_plugin.spec import reliability_spec

pytest_plugins = ["pytester"]


def _warm_up() -> None:
    """pytester's in-process sessions forget the modules imported while they ran (a module
    imported again then fails, and importlib.metadata stops finding the plugin's entry point),
    so everything these tests use is imported here once: a verdict, and the readers."""
    reliability([True] * 30, k=2, min_pass_hat=0.7)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "runs.jsonl"
        path.write_text('{"task_id": "a", "trial": 0, "success": true}\n')
        ph.read(path)
        ph.read(path, aggregate=True)


_warm_up()
# plugins that import much at each session are left out of the sessions run here
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:zarr", "-p", "no:anyio")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """An in-process pytest session with passhat's plugin (loaded from its entry point)."""
    return pytester.runpytest_inprocess(*QUIET, *args)


FLAKY = """
import random
import pytest

R95, R70 = random.Random(95), random.Random(70)

@pytest.mark.reliability(k=2, min_pass_hat=0.7, ci=0.95, max_runs=200)
def test_95():
    assert R95.random() < 0.95

@pytest.mark.reliability(k=2, min_pass_hat=0.7, ci=0.95, max_runs=200)
def test_70():
    assert R70.random() < 0.70, "the agent did not book the flight"

def test_plain():
    pass
"""


def _stream(seed: int, rate: float, n: int = 200) -> list[bool]:
    rng = random.Random(seed)
    return [rng.random() < rate for _ in range(n)]


def _expected(seed: int, rate: float) -> tuple[int, str]:
    runs, what = stopping_rule(reliability_spec(k=2, min_pass_hat=0.7)).stop([_stream(seed, rate)])
    return int(runs[0]), str(what[0])


def test_95_percent_passes_and_70_percent_fails_where_the_rule_stops(pytester, tmp_path) -> None:
    pytester.makepyfile(test_flaky=FLAKY)
    report = tmp_path / "runs.csv"
    res = run(pytester, "--passhat-report", str(report))
    res.assert_outcomes(passed=2, failed=1)
    n95, what95 = _expected(95, 0.95)
    n70, what70 = _expected(70, 0.70)
    assert (what95, what70) == ("pass", "fail")
    out = res.stdout.str()
    assert "test_flaky.py::test_95: pass: pass^2 ≥ 0." in out
    assert f"(95% anytime lower bound; goal 0.7) after {n95} runs" in out
    assert "test_flaky.py::test_70: fail: pass^2 ≤ 0." in out
    assert f"(95% anytime upper bound; goal 0.7) after {n70} runs" in out
    assert "the agent did not book the flight" in out  # the last failing run's own message
    assert f"passhat: wrote {n95 + n70} runs of 2 test(s) to {report}" in out
    runs = pd.read_csv(report)
    assert runs.groupby("task_id").size().to_dict() == {
        "test_flaky.py::test_70": n70,
        "test_flaky.py::test_95": n95,
    }
    got = runs[runs.task_id == "test_flaky.py::test_95"]["success"].tolist()
    assert got == _stream(95, 0.95)[:n95]
    trials = ph.read(report)  # passhat reads the file it wrote
    assert sorted(trials.tasks) == ["test_flaky.py::test_70", "test_flaky.py::test_95"]


def test_the_printed_bound_is_the_gates(pytester) -> None:
    pytester.makepyfile(test_flaky=FLAKY)
    res = run(pytester, "-k", "test_70")
    n70, _ = _expected(70, 0.70)
    verdict = reliability(_stream(70, 0.70)[:n70], k=2, min_pass_hat=0.7, test="t")
    gate = verdict.gate
    assert gate is not None and gate.decision == "fail"
    assert verdict.upper == pytest.approx((1 - gate.lower) ** 2)
    shown = math.ceil(verdict.upper * 1000) / 1000  # rounded outwards: up for an upper bound
    assert verdict.upper <= shown < verdict.upper + 0.001
    res.stdout.fnmatch_lines([f"*fail: pass^2 ≤ {shown:.3f}*after {n70} runs*"])


def test_fixtures_are_fresh_for_every_run_and_module_fixtures_set_up_once(pytester) -> None:
    pytester.makepyfile(
        test_fix="""
        import pytest

        SEEN = {"module": 0, "function": 0, "calls": 0}

        @pytest.fixture(scope="module")
        def shared():
            SEEN["module"] += 1
            yield
            SEEN["module_down"] = SEEN.get("module_down", 0) + 1

        @pytest.fixture
        def fresh():
            SEEN["function"] += 1
            return []

        @pytest.mark.reliability(min_pass_hat=0.8)
        def test_always(shared, fresh):
            SEEN["calls"] += 1
            fresh.append(1)
            assert fresh == [1]

        def test_after(shared):
            assert SEEN["module"] == 1 and "module_down" not in SEEN
            assert SEEN["function"] == SEEN["calls"] == 19
        """
    )
    res = run(pytester)
    res.assert_outcomes(passed=2)
    assert stopping_rule(reliability_spec(min_pass_hat=0.8)).fewest_runs_to_pass == 19


@pytest.mark.parametrize(
    ("option", "outcome"),
    [
        ((), "passed"),
        (("--passhat-undecided", "fail"), "failed"),
        (("--passhat-undecided", "skip"), "skipped"),
    ],
)
def test_undecided_is_configurable(pytester, option: tuple[str, ...], outcome: str) -> None:
    # 4 passes then 1 failure, over and over: 80% against a goal of 80% — never decided in 60
    pytester.makepyfile(
        test_und="""
        import itertools
        import pytest

        CYCLE = itertools.cycle([True, True, True, True, False])

        @pytest.mark.reliability(min_pass_hat=0.8, max_runs=60)
        def test_at_the_goal():
            assert next(CYCLE)
        """
    )
    res = run(pytester, *option)
    res.assert_outcomes(**{outcome: 1})
    res.stdout.fnmatch_lines(
        [f"*undecided (reported as {outcome}): pass^1 in [[]0.*, *[]]*after 60 runs, 12 failed*"]
    )


def test_the_markers_undecided_wins_over_the_option(pytester) -> None:
    pytester.makepyfile(
        test_und="""
        import pytest

        @pytest.mark.reliability(min_pass_hat=0.5, max_runs=10, undecided="skip")
        def test_alternates():
            test_alternates.n = getattr(test_alternates, "n", 0) + 1
            assert test_alternates.n % 2
        """
    )
    res = run(pytester, "--passhat-undecided", "fail")
    res.assert_outcomes(skipped=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("min_pass_hat=1.5", "min_pass_hat must lie strictly between 0 and 1 (got 1.5)"),
        ("k=2", "give min_pass_hat, the goal on pass^k"),
        ("min_pass_hat=0.9, confidence=0.9", "unknown option confidence=0.9: the level is ci"),
        ("k=5, min_pass_hat=0.9, max_runs=100", "max_runs = 100 is too few: pass^5 ≥ 0.9 at ci"),
        ("0.9", "options are named"),
    ],
)
def test_a_bad_marker_is_a_one_line_setup_error(pytester, args: str, message: str) -> None:
    pytester.makepyfile(
        test_bad=f"""
        import pytest

        @pytest.mark.reliability({args})
        def test_x():
            pass
        """
    )
    res = run(pytester)
    res.assert_outcomes(errors=1)
    res.stdout.fnmatch_lines([f"*@pytest.mark.reliability: {message}*"])
    assert "Traceback" not in res.stdout.str()


def test_unscored_runs_are_counted_and_left_out(pytester, tmp_path) -> None:
    pytester.makepyfile(
        test_uns="""
        import itertools
        import pytest

        OUTAGE = itertools.cycle([False, False, True])  # every third run: the service is down

        @pytest.mark.reliability(min_pass_hat=0.8, unscored=(ConnectionError,))
        def test_service():
            if next(OUTAGE):
                raise ConnectionError("service down")
        """
    )
    report = tmp_path / "runs.jsonl"
    res = run(pytester, "--passhat-report", str(report))
    res.assert_outcomes(passed=1)
    # 19 decided passes are needed; every third run is unscored: 28 runs, the 28th a pass
    res.stdout.fnmatch_lines(
        ["*pass: pass^1 ≥ 0.8* after 28 runs, 0 failed, 9 unscored (not used)*"]
    )
    rows = pd.read_json(report, lines=True)
    assert rows["status"].value_counts().to_dict() == {"ok": 19, "unscored": 9}
    assert rows.loc[rows.status == "unscored", "success"].isna().all()
    counts = ph.read(report, aggregate=True)
    assert int(counts["n"].sum()) == 19 and int(counts["unscored"].sum()) == 9


def test_setup_errors_and_skips_stop_the_runs_and_say_so(pytester) -> None:
    pytester.makepyfile(
        test_stop="""
        import pytest

        RUNS = {"setup": 0, "skip": 0}

        @pytest.fixture
        def flaky_setup():
            RUNS["setup"] += 1
            if RUNS["setup"] == 3:
                raise RuntimeError("database gone")

        @pytest.mark.reliability(min_pass_hat=0.8)
        def test_setup(flaky_setup):
            pass

        @pytest.mark.reliability(min_pass_hat=0.8)
        def test_skips():
            RUNS["skip"] += 1
            if RUNS["skip"] == 4:
                pytest.skip("no network")
        """
    )
    res = run(pytester, "-rA")
    res.assert_outcomes(errors=1, skipped=1)
    out = res.stdout.str()
    assert "database gone" in out
    assert "setup failed on run 3: the runs stopped; the 2 run(s) before it give no verdict" in out
    assert "skipped on run 4: the runs stopped; the 3 run(s) before it give no verdict" in out


def test_the_report_file_is_never_replaced_unless_asked(pytester, tmp_path) -> None:
    pytester.makepyfile(test_flaky=FLAKY)
    report = tmp_path / "runs.csv"
    report.write_text("someone's file\n")
    res = run(pytester, "--passhat-report", str(report))
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*--passhat-report*runs.csv: exists; passhat does not replace*"])
    assert report.read_text() == "someone's file\n"
    res = run(pytester, "-k", "test_95", "--passhat-report", str(report), "--passhat-report-force")
    res.assert_outcomes(passed=1)
    assert report.read_text().startswith("system,task_id,trial,success,status,duration_s\n")
    res = run(pytester, "--passhat-report", "x.txt")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*--passhat-report x.txt: give a .csv or .jsonl file*"])


def test_no_marked_test_no_heavy_import_and_no_file(pytester, tmp_path) -> None:
    """The plugin loads in every session (from its entry point) and imports nothing heavy
    until a marked test runs; without one it writes nothing."""
    pytester.makeconftest(
        """
        import sys

        def pytest_sessionfinish(session):
            heavy = [m for m in ("numpy", "pandas", "scipy", "xarray") if m in sys.modules]
            plugin = session.config.pluginmanager.get_plugin("passhat")
            print("HEAVY:", heavy, "PLUGIN:", plugin.__name__)
        """
    )
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    report = tmp_path / "runs.csv"
    # (zarr's pytest plugin imports numpy: it is left out here)
    res = pytester.runpytest_subprocess(*QUIET, "-s", "--passhat-report", str(report))
    res.assert_outcomes(passed=1)
    res.stdout.fnmatch_lines(
        [
            "*HEAVY: [[][]] PLUGIN: passhat.pytest_plugin.plugin*",
            "*no reliability-marked test ran; --passhat-report not written*",
        ]
    )
    assert not report.exists()


def test_marker_is_registered_for_strict_markers(pytester) -> None:
    res = run(pytester, "--markers")
    res.stdout.fnmatch_lines(["@pytest.mark.reliability(min_pass_hat, k=1, ci=0.95, max_runs=200*"])
    assert sys.modules["passhat.pytest_plugin.plugin"].__doc__
    assert Path(sys.modules["passhat.pytest_plugin.plugin"].__file__).name == "plugin.py"
