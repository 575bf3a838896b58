#!/bin/bash
# Issue 32, goal 8: `passhat fit --model joint` on 20 systems x 500 tasks x 5 runs with the
# default sampler settings (4 chains x 1000 draws + 1000 tuning), cold then warm, each in a
# fresh process. "cold": empty numba and PyTensor caches (fresh NUMBA_CACHE_DIR and
# base_compiledir); "warm": the same caches, written by the cold run.
#   usage: benchmarks/bench_joint_cli.sh DATA.csv TAG [FIT OPTIONS...]   (from the worktree root)
#   e.g. "--method nuts" runs NUTS as before the independence sampler (issue 32's "before")
# DATA.csv: a tidy file (system, task_id, trial, success); the one measured was simulated from
# the joint model (theta_s ~ N(0, 1), beta_i ~ N(0, 2), kappa = 8, numpy seed 1; see
# bench_joint_issue32.txt). Prints wall / user / sys seconds, peak memory and load average.
data=$1
tag=${2:-run}
shift 2
export NUMBA_CACHE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/numba-XXXX")
export PYTENSOR_FLAGS="base_compiledir=$(mktemp -d "${TMPDIR:-/tmp}/ptbase-XXXX")"
for label in cold warm; do
  echo "== $tag $label, load average $(cut -d' ' -f1 /proc/loadavg), $(date -u +%T)"
  /usr/bin/time -f "wall %e s user %U s sys %S s maxrss %M KB" nice .venv/bin/passhat fit \
    "$data" --model joint --json "$@" > "${TMPDIR:-/tmp}/joint_${tag}_$label.json" 2> "${TMPDIR:-/tmp}/joint_${tag}_$label.err"
  tail -1 "${TMPDIR:-/tmp}/joint_${tag}_$label.err"
  echo "load average after: $(cut -d' ' -f1 /proc/loadavg)"
done
