"""Alignment of failing runs against passing runs: where each stops following each, and how.

Two readings of a run, one per rule of :func:`passhat.divergence` (the rules
are in :mod:`passhat.traces.divergence_points`):

* **strict** (:func:`align_strict`): each maximal stretch of consecutive
  lookup steps is one block keyed by the multiset of its tokens (order-free);
  any other step is a block of its own. An optimal LCS alignment can always
  match equal leading blocks, so the first unmatched column of a failing run F
  and a passing run P is their longest common block prefix.
* **tolerant** (:func:`align_tolerant`): each run is read as alternating
  columns ``L0 A1 L1 … An Ln`` (``Ai`` its i-th non-lookup action, ``Li`` the
  multiset of lookups between two actions, possibly empty); F follows P at an
  action column when the tokens are equal and at a lookup column when F's
  lookups contain P's.

Both take the normalised steps of the trials being compared (columns ``_tid``,
the trial's row number, ``token`` and ``lookup``; rows ordered by trial, then
step) and the (failing, passing) pairs, and return the run × column code
matrix, the first column where each pair parts, and a :data:`Refine` function
that reads off, at that column, the step of F where it leaves P, the kind of
difference, what P does there, the marker tool and the lookups tolerated
before it. Pure computation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["END", "Refine", "align_strict", "align_tolerant"]

#: What a run "does" after its last step (a stop, or a passing run that has ended).
END = "<end>"

#: ``refine(tid_f, tid_p, column)`` → (local step of F, kind, P's tokens there, marker, extra
#: lookups tolerated before the point).
Refine = Callable[[int, int, int], tuple[int, str, list[str], str | None, int]]


def _block_keys(steps: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Block index of each step and each block's integer key and trial-local order.

    Consecutive lookup steps of one trial form one block keyed by the multiset
    of their tokens (an order-free 64-bit sum of per-token random keys); any
    other step is a block of its own.
    """
    codes, uniques = pd.factorize(steps["token"], sort=False)
    rng = np.random.default_rng(20260511)
    r_lookup = rng.integers(1, 2**63, size=len(uniques), dtype=np.uint64)
    r_single = rng.integers(1, 2**63, size=len(uniques), dtype=np.uint64)
    trial_start = np.ones(len(steps), dtype=bool)
    if len(steps):
        tid = steps["_tid"].to_numpy()
        trial_start[1:] = tid[1:] != tid[:-1]
    lookup = steps["lookup"].to_numpy(dtype=bool)
    prev_lookup = np.zeros(len(steps), dtype=bool)
    prev_lookup[1:] = lookup[:-1]
    new_block = trial_start | ~lookup | ~prev_lookup
    block = np.cumsum(new_block) - 1
    starts = np.flatnonzero(new_block)
    with np.errstate(over="ignore"):
        lk = np.where(lookup, r_lookup[codes], np.uint64(0))
        sums = np.add.reduceat(lk, starts) if len(starts) else np.zeros(0, np.uint64)
    single = r_single[codes[starts]] if len(starts) else np.zeros(0, np.uint64)
    key = np.where(lookup[starts], sums, single) if len(starts) else np.zeros(0, np.uint64)
    block_codes, _ = pd.factorize(key)
    return block, block_codes.astype(np.int64), starts


def _lcp_chunks(mat: np.ndarray, pf: np.ndarray, pp: np.ndarray, chunk: int) -> np.ndarray:
    """Longest common prefix (in columns) of rows pf and pp of ``mat`` (-1 = padding)."""
    width = mat.shape[1]
    lcp = np.empty(len(pf), dtype=np.int64)
    step_rows = max(1, chunk // width)
    for lo in range(0, len(pf), step_rows):
        hi = min(len(pf), lo + step_rows)
        a = mat[pf[lo:hi]]
        b = mat[pp[lo:hi]]
        b = np.where(b < 0, -2, b)  # padding never matches padding
        eq = np.concatenate([a == b, np.zeros((hi - lo, 1), dtype=bool)], axis=1)
        lcp[lo:hi] = np.argmin(eq, axis=1)
    return lcp


def align_strict(
    steps: pd.DataFrame,
    n_trials: int,
    pf: np.ndarray,
    pp: np.ndarray,
    tok: np.ndarray,
    act: np.ndarray,
    islk: np.ndarray,
    trial_first_step: np.ndarray,
    n_steps_of: np.ndarray,
    chunk: int,
) -> tuple[np.ndarray, np.ndarray, Refine]:
    """Strict alignment: block matrix (lookup stretches as order-free blocks), prefixes, refinement.

    Parameters
    ----------
    steps : pandas.DataFrame
        Normalised steps of the compared trials, ordered by ``_tid`` (the
        trial's number, 0 .. ``n_trials`` - 1) and step; ``token`` and
        ``lookup`` columns.
    n_trials : int
        Number of trials.
    pf, pp : numpy.ndarray
        The pairs compared: failing and passing trial numbers.
    tok, act, islk : numpy.ndarray
        The steps' tokens, tool names and lookup flags.
    trial_first_step, n_steps_of : numpy.ndarray
        Per trial: the row of its first step, its number of steps.
    chunk : int
        Bound on (pairs × columns) compared at once (memory).

    Returns
    -------
    mat : numpy.ndarray
        Trial × block codes (-1 = padding).
    lcp : numpy.ndarray
        Per pair, the first block column where F and P differ.
    refine : Refine
        What differs there (its last value, tolerated lookups, is always 0).

    Examples
    --------
    A failing run (trial 1) looks up ``a`` and stops; the passing run (trial
    0) looks it up and pays:

    >>> import numpy as np, pandas as pd
    >>> steps = pd.DataFrame({"_tid": [0, 0, 1], "token": ["get_a()", "pay()", "get_a()"],
    ...                       "action": ["get_a", "pay", "get_a"], "lookup": [True, False, True]})
    >>> tok, act = steps["token"].to_numpy(object), steps["action"].to_numpy(object)
    >>> islk = steps["lookup"].to_numpy(bool)
    >>> first, size = np.array([0, 2]), np.array([2, 1])
    >>> mat, lcp, refine = align_strict(steps, 2, np.array([1]), np.array([0]), tok, act, islk,
    ...                                 first, size, 1000)
    >>> int(lcp[0]), refine(1, 0, int(lcp[0]))
    (1, (1, 'stops', ['pay()'], 'pay', 0))
    """
    _block, bcode, bstart = _block_keys(steps)
    btid = steps["_tid"].to_numpy()[bstart] if len(bstart) else np.zeros(0, np.int64)
    nblocks = np.bincount(btid, minlength=n_trials) if n_trials else np.zeros(0, np.int64)
    first_block = np.concatenate([[0], np.cumsum(nblocks)[:-1]]) if n_trials else nblocks
    width = int(nblocks.max()) + 1 if n_trials and len(bstart) else 1
    mat = np.full((n_trials, width), -1, dtype=np.int64)
    if len(bstart):
        col = np.arange(len(bstart)) - first_block[btid]
        mat[btid, col] = bcode
    lcp = _lcp_chunks(mat, pf, pp, chunk)

    def block_steps(tid: int, b: int) -> range:
        """Step rows (global) of block b of trial tid."""
        gb = first_block[tid] + b
        s0 = bstart[gb]
        s1 = (
            bstart[gb + 1]
            if gb + 1 < len(bstart) and btid[gb + 1] == tid
            else (trial_first_step[tid] + n_steps_of[tid])
        )
        return range(s0, s1)

    def refine(tid_f: int, tid_p: int, b: int) -> tuple[int, str, list[str], str | None, int]:
        out = _refine(
            tid_f,
            tid_p,
            b,
            int(nblocks[tid_f]),
            int(nblocks[tid_p]),
            int(trial_first_step[tid_f]),
            mat,
            block_steps,
            tok,
            act,
            islk,
        )
        return (*out, 0)

    return mat, lcp, refine


def align_tolerant(
    steps: pd.DataFrame,
    n_trials: int,
    pf: np.ndarray,
    pp: np.ndarray,
    tok: np.ndarray,
    act: np.ndarray,
    trial_first_step: np.ndarray,
    chunk: int,
) -> tuple[np.ndarray, np.ndarray, Refine]:
    """Alignment under which extra lookups of the failing run are not a divergence.

    Each trial is read as alternating columns ``L0 A1 L1 A2 ... An Ln``: ``Ai``
    its i-th non-lookup action, ``Li`` the multiset of lookups between ``Ai``
    and ``Ai+1`` (possibly empty). A failing run F follows a passing run P at
    an action column when the tokens are equal, at a lookup column when F's
    multiset contains P's (F may look up more, never less or otherwise). The
    prefix length is the first column where F stops following P.

    Parameters and returns are those of :func:`align_strict` (``islk`` and
    ``n_steps_of`` are not needed); the last value of ``refine`` counts the
    lookups of F before the point that P did not make.

    Examples
    --------
    The failing run (trial 1) looks up ``u`` as well, then refunds where the
    passing run (trial 0) pays: one tolerated lookup, then the difference.

    >>> import numpy as np, pandas as pd
    >>> steps = pd.DataFrame({"_tid": [0, 0, 1, 1, 1],
    ...                       "token": ["get_a()", "pay()", "get_a()", "get_u()", "refund()"],
    ...                       "action": ["get_a", "pay", "get_a", "get_u", "refund"],
    ...                       "lookup": [True, False, True, True, False]})
    >>> tok, act = steps["token"].to_numpy(object), steps["action"].to_numpy(object)
    >>> mat, lcp, refine = align_tolerant(steps, 2, np.array([1]), np.array([0]), tok, act,
    ...                                   np.array([0, 2]), 1000)
    >>> int(lcp[0]), refine(1, 0, int(lcp[0]))
    (1, (2, 'substitutes', ['pay()'], 'refund', 1))
    """
    cols = _TolerantColumns.of(steps, n_trials, trial_first_step)
    lcp = _tolerant_lcp(cols, pf, pp, chunk)
    return cols.mat, lcp, _tolerant_refine(cols, tok, act, trial_first_step)


@dataclass(frozen=True)
class _TolerantColumns:
    """Each trial read as columns ``L0 A1 L1 … An Ln``: per (trial, column) a code (an action's
    token; a lookup multiset's order-free key, 0 = empty; -1 = padding) and its step rows."""

    mat: np.ndarray  # (trial, column) codes
    codes: np.ndarray  # per step: its token's code
    cstart: np.ndarray  # (trial, column): first step row
    cend: np.ndarray  # (trial, column): one past the last step row
    replen: np.ndarray  # per trial: its number of columns, 2·actions + 1
    width: int
    _contains: dict[tuple[int, int], bool] = field(default_factory=dict)

    @classmethod
    def of(
        cls, steps: pd.DataFrame, n_trials: int, trial_first_step: np.ndarray
    ) -> _TolerantColumns:
        n = len(steps)
        tid = steps["_tid"].to_numpy().astype(np.int64)
        lookup = steps["lookup"].to_numpy(dtype=bool)
        is_act = (~lookup).astype(np.int64)
        codes, uniques = pd.factorize(steps["token"], sort=False)
        cum = np.cumsum(is_act)
        base = np.concatenate([[0], cum])[trial_first_step] if n_trials else np.zeros(0, np.int64)
        col = 2 * (cum - is_act - base[tid]) + is_act if n else np.zeros(0, np.int64)
        n_acts = np.bincount(tid[is_act == 1], minlength=n_trials) if n_trials else np.zeros(0)
        replen = (2 * n_acts + 1).astype(np.int64)
        width = int(replen.max()) if n_trials else 1
        flat = tid * width + col
        cnt = np.bincount(flat, minlength=n_trials * width).reshape(n_trials, width)
        cend = trial_first_step[:, None] + np.cumsum(cnt, axis=1)
        # lookup columns: order-free 64-bit key of the multiset (0 = empty); action columns: token
        rng = np.random.default_rng(20260511)
        r_lookup = rng.integers(1, 2**63, size=len(uniques), dtype=np.uint64)
        h = np.zeros(n_trials * width, dtype=np.uint64)
        lk_rows = np.flatnonzero(lookup)
        if len(lk_rows):
            lflat = flat[lk_rows]
            starts = np.flatnonzero(np.r_[True, lflat[1:] != lflat[:-1]])
            with np.errstate(over="ignore"):
                h[lflat[starts]] = np.add.reduceat(r_lookup[codes[lk_rows]], starts)
        h2 = h.reshape(n_trials, width)
        colidx = np.arange(width)
        valid = colidx[None, :] < replen[:, None]
        mat = np.full((n_trials, width), -1, dtype=np.int64)
        even = valid & (colidx[None, :] % 2 == 0)
        mat[even] = pd.factorize(h2[even])[0]
        acts = np.flatnonzero(is_act)
        mat[tid[acts], col[acts]] = codes[acts]
        return cls(mat, codes, cend - cnt, cend, replen, width)

    def contains(self, tf: int, tp: int, c: int) -> bool:
        """Whether F's lookup multiset at column c contains P's."""
        k = (int(self.mat[tf, c]), int(self.mat[tp, c]))
        v = self._contains.get(k)
        if v is None:
            have = Counter(self.codes[self.cstart[tf, c] : self.cend[tf, c]].tolist())
            need = Counter(self.codes[self.cstart[tp, c] : self.cend[tp, c]].tolist())
            v = not (need - have)
            self._contains[k] = v
        return v


def _tolerant_lcp(cols: _TolerantColumns, pf: np.ndarray, pp: np.ndarray, chunk: int) -> np.ndarray:
    """Per pair, the first column where F stops following P: equal codes, or at a lookup
    column F's multiset containing P's."""
    mat, replen = cols.mat, cols.replen
    lcp = np.empty(len(pf), dtype=np.int64)
    step_rows = max(1, chunk // cols.width)
    for lo in range(0, len(pf), step_rows):
        hi = min(len(pf), lo + step_rows)
        a = mat[pf[lo:hi]]
        b = mat[pp[lo:hi]]
        b = np.where(b < 0, -2, b)
        eq = np.concatenate([a == b, np.zeros((hi - lo, 1), dtype=bool)], axis=1)
        pos = np.argmin(eq, axis=1)
        both = np.minimum(replen[pf[lo:hi]], replen[pp[lo:hi]])
        active = np.arange(hi - lo)
        while len(active):
            q = pos[active]
            active = active[(q % 2 == 0) & (q < both[active])]
            if not len(active):
                break
            ok = np.fromiter(
                (cols.contains(int(pf[lo + r]), int(pp[lo + r]), int(pos[r])) for r in active),
                dtype=bool,
                count=len(active),
            )
            active = active[ok]
            eq[active, pos[active]] = True
            pos[active] = np.argmin(eq[active], axis=1)
        lcp[lo:hi] = pos
    return lcp


def _tolerant_refine(
    cols: _TolerantColumns, tok: np.ndarray, act: np.ndarray, trial_first_step: np.ndarray
) -> Refine:
    """What differs where F stops following P (see :data:`Refine`)."""
    mat, cstart, cend, replen = cols.mat, cols.cstart, cols.cend, cols.replen
    size = cend - cstart

    def refine(tid_f: int, tid_p: int, c: int) -> tuple[int, str, list[str], str | None, int]:
        f0 = int(trial_first_step[tid_f])
        lf, lp = int(replen[tid_f]), int(replen[tid_p])
        extra = int((size[tid_f, 0:c:2] - size[tid_p, 0:c:2]).sum())
        if c >= lf and c >= lp:
            return (10**9, "none", [], None, extra)
        if c % 2 == 0:  # F's lookups here lack some of P's
            fs = range(int(cstart[tid_f, c]), int(cend[tid_f, c]))
            ps = range(int(cstart[tid_p, c]), int(cend[tid_p, c]))
            return _lookups_lacking(fs, ps, f0, tok, act, extra)
        if c >= lf:  # F ended after following P: it stops
            pa = int(cstart[tid_p, c])
            return (int(cend[tid_f, lf - 1]) - f0, "stops", [str(tok[pa])], str(act[pa]), extra)
        fa = int(cstart[tid_f, c])
        if c >= lp:  # P ended, F acts
            return (fa - f0, "continues", [END], str(act[fa]), extra)
        pa = int(cstart[tid_p, c])
        p_tokens = [str(tok[pa])]
        f_rest = mat[tid_f, c + 2 : lf : 2]
        p_rest = mat[tid_p, c + 2 : lp : 2]
        fi = np.flatnonzero(p_rest == mat[tid_f, c])  # F's action comes later in P: F skipped
        pi = np.flatnonzero(f_rest == mat[tid_p, c])  # P's action comes later in F: F inserted
        if len(fi) and (not len(pi) or fi[0] <= pi[0]):
            return (fa - f0, "skips", p_tokens, str(act[pa]), extra)
        if len(pi):
            return (fa - f0, "extra", p_tokens, str(act[fa]), extra)
        if act[fa] == act[pa]:
            return (fa - f0, "differs", p_tokens, str(act[fa]), extra)
        return (fa - f0, "substitutes", p_tokens, str(act[fa]), extra)

    return refine


def _lookups_lacking(
    fs: range, ps: range, f0: int, tok: np.ndarray, act: np.ndarray, extra: int
) -> tuple[int, str, list[str], str | None, int]:
    """At a lookup column where F's lookups lack some of P's: a changed lookup ("differs"),
    or the missing ones skipped before the next action ("skips")."""
    pool = Counter(str(tok[s]) for s in ps)
    left = []
    for s in fs:
        t = str(tok[s])
        if pool.get(t, 0) > 0:
            pool[t] -= 1
        else:
            left.append(s)
    missing = sorted(set(pool.elements()))
    for i, s in enumerate(left):
        same_tool = [m for m in missing if m.split("(", 1)[0] == act[s]]
        if same_tool:
            return (s - f0, "differs", same_tool, str(act[s]), extra + i)
    first = next(str(act[s]) for s in ps if pool.get(str(tok[s]), 0) > 0)  # P's order
    return (fs.stop - f0, "skips", missing, first, extra + len(left))


def _refine(
    tid_f: int,
    tid_p: int,
    b: int,
    nb_f: int,
    nb_p: int,
    f0: int,
    mat: np.ndarray,
    block_steps: Callable[[int, int], range],
    tok: np.ndarray,
    act: np.ndarray,
    islk: np.ndarray,
) -> tuple[int, str, list[str], str | None]:
    """Local step of F where it leaves P (first unmatched column b), what P does, the kind."""
    if b >= nb_f and b >= nb_p:
        return (10**9, "none", [], None)  # identical block sequences
    if b >= nb_f:  # F ended, P continues
        ps = block_steps(tid_p, b)
        return (
            int(block_steps(tid_f, nb_f - 1).stop - f0) if nb_f else 0,
            "stops",
            [str(tok[s]) for s in ps],
            str(act[ps[0]]),
        )
    fs = block_steps(tid_f, b)
    if b >= nb_p:  # P ended, F continues
        return (fs.start - f0, "continues", [END], str(act[fs.start]))
    ps = block_steps(tid_p, b)
    f_lk, p_lk = bool(islk[fs.start]), bool(islk[ps.start])
    if f_lk and p_lk:
        pool = Counter(str(tok[s]) for s in ps)
        for s in fs:
            t = str(tok[s])
            if pool.get(t, 0) > 0:
                pool[t] -= 1
                continue
            same_tool = [p for p in pool.elements() if p.split("(", 1)[0] == act[s]]
            if same_tool:
                return (s - f0, "differs", sorted(set(same_tool)), str(act[s]))
            return (
                s - f0,
                "extra",
                sorted(set(pool.elements())) or [str(tok[ps.stop - 1])],
                str(act[s]),
            )
        missing = sorted(set(pool.elements()))
        return (fs.stop - f0, "skips", missing, missing[0].split("(", 1)[0])
    p_tokens = [str(tok[s]) for s in ps]
    # which gap does the alignment of the remainder prefer? the nearest rejoin
    f_rest = mat[tid_f, b + 1 : nb_f]
    p_rest = mat[tid_p, b + 1 : nb_p]
    fi = np.flatnonzero(p_rest == mat[tid_f, b])  # F's block appears later in P: F skipped
    pi = np.flatnonzero(f_rest == mat[tid_p, b])  # P's block appears later in F: F inserted
    if len(fi) and (not len(pi) or fi[0] <= pi[0]):
        return (fs.start - f0, "skips", p_tokens, str(act[ps.start]))
    if len(pi):
        return (fs.start - f0, "extra", p_tokens, str(act[fs.start]))
    if not f_lk and not p_lk and act[fs.start] == act[ps.start]:
        return (fs.start - f0, "differs", p_tokens, str(act[fs.start]))
    return (fs.start - f0, "substitutes", p_tokens, str(act[fs.start]))
