"""Post-processing of a saved joint fit (issue 32, goal 8): CPU seconds per part.

Loads a fit saved by ``passhat fit --model joint --output FIT.nc`` (or ``JointFit.to_netcdf``)
and times, in one process with a CPU clock (``time.process_time``), what ``passhat fit`` does
after sampling: the summary (both scopes), the parameters, the correlations, the dispersion
check, the diagnostics, then the JSON document and the view. Run it with the old and the new
code on the same file to compare (e.g. ``PYTHONPATH=/path/to/old/src``)::

    nice .venv/bin/python benchmarks/bench_joint_post.py FIT.nc [--json OUT.json]

``--json`` writes the fit's ``to_dict()`` (to compare numbers between versions).
"""

from __future__ import annotations

import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")

import passhat as ph  # noqa: E402


def main() -> None:
    print(f"passhat from {ph.__file__}", flush=True)
    fit = ph.load_fit(sys.argv[1])
    parts = {
        "summary (both scopes)": lambda: fit.summary(k=fit.k),
        "parameters": lambda: fit.hyper_summary(),
        "correlation": lambda: fit.correlation(),
        "dispersion check": lambda: fit.dispersion_check(),
        "diagnostics": lambda: fit.diagnostics,
    }
    total = 0.0
    for name, f in parts.items():
        t = time.process_time()
        f()
        dt = time.process_time() - t
        total += dt
        print(f"{name:24s} {dt:7.2f} s CPU", flush=True)
    fresh = ph.load_fit(sys.argv[1])
    t = time.process_time()
    doc = fresh.to_dict()
    fresh.view()
    dt = time.process_time() - t
    print(f"{'sum of the parts':24s} {total:7.2f} s CPU")
    print(f"{'to_dict() + view() fresh':24s} {dt:7.2f} s CPU (what passhat fit does)")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as fh:
            json.dump(doc, fh, indent=1, default=str)


if __name__ == "__main__":
    main()
