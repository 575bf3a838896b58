"""One timed ``ph.rank`` of 50 systems × 10,000 tasks × 5 runs (issue 32, goal 8), for A/B runs.

Run it alternately with two source trees (``PYTHONPATH=OLD/src`` and ``PYTHONPATH=NEW/src``,
``TAG=old`` / ``TAG=new``) so machine load hits both alike; it prints wall and CPU time, the
load average, the CPU time of the calling thread alone (what two idle cores cannot
overlap: the floor of the wall time there) and a hash of the result's JSON document
(without its input record), which must be equal for the two trees. See ``bench_rank_issue32.txt``.
"""

import hashlib
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_rank import data

import passhat as ph
from passhat.trials import counts_from_arrays

n, c = data(50, 10_000, 5)
tables = [counts_from_arrays(n[i], c[i], system=f"s{i:02d}") for i in range(50)]
c0, t0, m0 = time.process_time(), time.perf_counter(), time.thread_time()
r = ph.rank(tables, n_boot=10_000, seed=1)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
main = time.thread_time() - m0  # this thread only: the serial part, a floor of idle wall time
doc = r.to_dict()
doc["input"] = None
h = hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:16]
tag, load = os.environ.get("TAG", "?"), os.getloadavg()[0]
print(
    f"{tag}: ph.rank wall {wall:.2f} s CPU {cpu:.2f} s (main thread {main:.2f} s) load {load:.1f} "
    f"sha {h} src {ph.__file__}",
    flush=True,
)
