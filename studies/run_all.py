"""Run every study in studies/ and write its outputs under reports/ (``make study`` calls this).

Each study is a script ``studies/<name>/<name>.py`` (or the one script in
``studies/<name>/``) with a ``main(argv) -> int``; a study
whose data are missing skips with a reason and counts as passed. Exit status: non-zero
when any study fails its own checks.

Run::

    .venv/bin/python studies/run_all.py            # all
    .venv/bin/python studies/run_all.py consistency_gap tau_bench_airline
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# studies/ holds directories such as studies/coverage that would shadow real packages
# (numba imports `coverage`): keep this directory off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]


def discover() -> dict[str, Path]:
    """Study name → script: ``<dir>/<dir>.py``, or the one script in ``<dir>``."""
    out = {}
    for d in sorted(HERE.iterdir()):
        if not d.is_dir() or d.name.startswith(("_", ".")):
            continue
        scripts = sorted(p for p in d.glob("*.py") if not p.name.startswith("_"))
        named = d / f"{d.name}.py"
        if named.is_file():
            out[d.name] = named
        elif len(scripts) == 1:
            out[d.name] = scripts[0]
    return out


def run_study(name: str, path: Path) -> int:
    spec = importlib.util.spec_from_file_location(f"study_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return int(module.main([]))


def main(argv: list[str] | None = None) -> int:
    names = list(argv if argv is not None else sys.argv[1:])
    studies = discover()
    unknown = [n for n in names if n not in studies]
    if unknown:
        print(f"unknown studies: {', '.join(unknown)}; have {', '.join(studies)}", file=sys.stderr)
        return 2
    failed = []
    for name in names or list(studies):
        t0 = time.perf_counter()
        print(f"== {name}", flush=True)
        rc = run_study(name, studies[name])
        status = "ok" if rc == 0 else f"FAILED ({rc})"
        print(f"== {name}: {status} in {time.perf_counter() - t0:.1f} s")
        if rc:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
