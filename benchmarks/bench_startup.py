"""Benchmark: what a user waits for before passhat does anything (not a timed test).

Every command runs in a fresh interpreter, as a user runs it; the commands are interleaved
with the baseline ``python -c "import numpy"`` and each is repeated ``--repeat`` times
(default 7). The result is the median wall time and its **ratio to the baseline's median
in the same run**, which carries over between machines and loads better than seconds do.

Commands timed (τ-bench gpt-4o airline file from ../shared, 50 tasks × 4 runs):

* ``python -c pass`` (the interpreter alone) and ``import passhat``;
* ``passhat --help`` and ``passhat --version``;
* ``passhat estimate TAU`` (the default table), the same as in an installation without the
  ``[dask]`` extra (xarray imports dask whenever it is installed), and with
  ``--k 1,2,4 --ci 0.95`` (bootstrap);
* ``passhat fit TAU`` with its default method, and ``--method nuts`` (``--slow`` only:
  NUTS compiles, so it takes tens of seconds; the PyTensor cache is the project's
  ``.pytensor``, warm after a first run, as ``make`` leaves it).

``--python PATH`` also times the same commands with another interpreter (e.g. the main
checkout's ``.venv/bin/python``, whose passhat is that checkout's), interleaved in the same
run: before and after side by side.

Targets (issue 12): ``passhat --help`` < 0.5 s and ``estimate`` on τ-bench < 1.5 s on the
machine where the issue measured ``import numpy`` at about 0.1–0.15 s: about 4× and 12×
the baseline.

Run::

    .venv/bin/python benchmarks/bench_startup.py [--repeat 7] [--python OTHER] [--slow]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TAU = ROOT.parent / "shared" / "data" / "tau-bench" / "gpt-4o-airline.json"
TARGETS = {
    "passhat --help": 0.5,
    "passhat estimate TAU": 1.5,
    "passhat estimate TAU, no dask installed": 1.5,
}
# dask (the [dask] extra, in the dev environment) is imported by xarray as soon as a Dataset is
# made, whoever asks for it (~0.3 s); a plain `pip install passhat` does not have it. This
# runs the same command with dask made unimportable, as in such an installation.
NO_DASK = (
    "import sys; sys.modules['dask'] = None; from passhat.cli import main; "
    "sys.exit(main(['estimate', {tau!r}]))"
)


def commands(python: str, *, slow: bool) -> dict[str, list[str]]:
    """Label → argv, for one interpreter (its ``passhat`` script when it has one)."""
    script = Path(python).parent / "passhat"
    cli = [str(script)] if script.exists() else [python, "-m", "passhat.cli"]
    tau = str(TAU)
    cmds = {
        'python -c "import numpy"': [python, "-c", "import numpy"],
        "python -c pass": [python, "-c", "pass"],
        "import passhat": [python, "-c", "import passhat"],
        "passhat --help": [*cli, "--help"],
        "passhat --version": [*cli, "--version"],
        "passhat estimate TAU": [*cli, "estimate", tau],
        "passhat estimate TAU, no dask installed": [python, "-c", NO_DASK.format(tau=tau)],
        "passhat estimate TAU --k 1,2,4 --ci 0.95": [
            *cli,
            "estimate",
            tau,
            "--k",
            "1,2,4",
            "--ci",
            "0.95",
            "--seed",
            "0",
        ],
        "passhat fit TAU (default method)": [*cli, "fit", tau, "--k", "1,2,4", "--seed", "0"],
    }
    if slow:
        cmds["passhat fit TAU --method nuts"] = [
            *cli,
            "fit",
            tau,
            "--k",
            "1,2,4",
            "--seed",
            "0",
            "--method",
            "nuts",
        ]
    return cmds


def run_once(argv: list[str]) -> float:
    env = dict(os.environ)
    env.setdefault("PYTENSOR_FLAGS", f"compiledir={ROOT / '.pytensor'}")
    t0 = time.perf_counter()
    res = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({res.returncode}):\n{res.stderr[-2000:]}")
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--python", default=None, help="another interpreter to time alongside")
    parser.add_argument("--slow", action="store_true", help="also time the NUTS fit")
    args = parser.parse_args()
    if not TAU.exists():
        print(f"τ-bench data not found at {TAU} (../shared is absent): nothing to time")
        return 0
    pythons = {"this checkout": sys.executable}
    if args.python:
        pythons["--python"] = args.python
    plan = {who: commands(py, slow=args.slow) for who, py in pythons.items()}
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeat):  # interleaved: a change of load hits every command alike
        for who, cmds in plan.items():
            for label, argv in cmds.items():
                if "nuts" in label and len(times.get((who, label), [])) >= 2:
                    continue  # tens of seconds each: two runs are enough to see it
                times.setdefault((who, label), []).append(run_once(argv))
    print(f"median of {args.repeat} fresh processes (NUTS fit: of 2); ratio to import numpy")
    for who in pythons:
        base = statistics.median(times[(who, 'python -c "import numpy"')])
        print(f"\n{who}: {pythons[who]}")
        print(f"  {'command':46s} {'median s':>9s} {'× numpy':>8s}  target")
        for label in plan[who]:
            med = statistics.median(times[(who, label)])
            target = TARGETS.get(label)
            note = ""
            if target is not None:
                note = f"< {target} s: {'met' if med < target else 'NOT met'}"
            print(f"  {label:46s} {med:9.3f} {med / base:8.1f}  {note}")
    if len(pythons) == 2:
        print("\nthis checkout / --python (median wall time):")
        for label in plan["this checkout"]:
            a = statistics.median(times[("this checkout", label)])
            b = statistics.median(times[("--python", label)])
            print(f"  {label:46s} {a / b:6.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
