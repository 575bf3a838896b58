"""Shared argument checks and defaults: confidence level, resamples, seed, k and method names.

Every entry point (API and CLI) validates its options through these, so the
same bad value gets the same message wherever it is given, and takes its
defaults from here: :data:`DEFAULT_N_BOOT` bootstrap resamples and the fixed
:data:`DEFAULT_SEED`, so the same data give the same intervals from
``estimate``, ``compare``, ``spread``, ``report`` and ``fit`` on every run
(each records the resamples and the seed it used).

Examples
--------
>>> from passhat._validate import check_ci, norm_k
>>> check_ci(0.9), norm_k([5, 1, 1])
(0.9, [1, 5])
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from passhat._lazy import is_numpy
from passhat.errors import OptionError

if TYPE_CHECKING:  # numpy loads in the functions that compute: a closed form needs none
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "DEFAULT_N_BOOT",
    "DEFAULT_SEED",
    "MAX_N_BOOT",
    "check_ci",
    "check_flag",
    "check_k",
    "check_k_values",
    "check_method",
    "check_min_runs",
    "check_n_boot",
    "check_weight",
    "check_weight_tasks",
    "make_rng",
    "memory_text",
    "named_rng",
    "norm_k",
    "resolve_seed",
    "root_seed",
    "stable_scale",
]

#: Bootstrap resamples of every task bootstrap (intervals, paired tests, report), unless given.
DEFAULT_N_BOOT = 10_000

#: The most bootstrap resamples (or posterior draws) an entry point accepts: 10^6 already pins a
#: 95% percentile to about ±0.0002 on a [0, 1] scale, and each resample costs memory (8 bytes
#: for every value it carries), so a larger count is refused before anything is allocated.
MAX_N_BOOT = 1_000_000

#: Seed of every random step unless one is given; ``seed=None`` asks for a fresh seed,
#: which is drawn, used and recorded (:func:`resolve_seed`).
DEFAULT_SEED = 0


def check_ci(ci: float, *, name: str = "ci") -> float:
    """Validate a confidence level: a number strictly between 0 and 1 (``name`` is the option's)."""
    try:  # text is not a level ("0.95" would be read as 0.95 here and refused elsewhere)
        val = float(ci) if not isinstance(ci, str | bytes) else float("nan")
    except (TypeError, ValueError) as err:
        raise OptionError(f"{{param}} must be a number in (0, 1) (got {ci!r})", param=name) from err
    if isinstance(ci, bool) or not 0.0 < val < 1.0:
        raise OptionError(
            f"{{param}} must lie strictly between 0 and 1, e.g. 0.95 (got {ci!r})", param=name
        )
    return val


def check_n_boot(n_boot: int) -> int:
    """Validate the number of bootstrap resamples (a whole number in [100, :data:`MAX_N_BOOT`]).

    Examples
    --------
    >>> check_n_boot(2000)
    2000
    >>> check_n_boot(10**12)
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: n_boot must be at most 1,000,000 (got 1000000000000): that many \
resamples would need at least 7.3 TiB of memory (8 bytes per resample for each value)
    """
    if (
        isinstance(n_boot, bool)
        or not (isinstance(n_boot, int) or is_numpy(n_boot, "integer"))
        or n_boot < 100
    ):
        raise OptionError(
            f"{{param}} must be a whole number ≥ 100 (got {n_boot!r})", param="n_boot"
        )
    if n_boot > MAX_N_BOOT:
        raise OptionError(
            f"{{param}} must be at most {MAX_N_BOOT:,} (got {n_boot!r}): that many resamples "
            f"would need at least {memory_text(8 * int(n_boot))} of memory (8 bytes per resample "
            "for each value)",
            param="n_boot",
        )
    return int(n_boot)


def memory_text(n_bytes: float) -> str:
    """A byte count as text with a binary unit, for messages about memory.

    Examples
    --------
    >>> memory_text(512), memory_text(8e12)
    ('512 B', '7.3 TiB')
    """
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
    value, unit = float(n_bytes), 0
    while value >= 1024 and unit < len(units) - 1:
        value, unit = value / 1024, unit + 1
    return f"{value:.0f} {units[unit]}" if unit == 0 else f"{value:.1f} {units[unit]}"


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A generator from ``seed`` (None, a whole number ≥ 0, or a Generator passed through)."""
    import numpy as np

    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (
        isinstance(seed, bool)
        or not (isinstance(seed, int) or is_numpy(seed, "integer"))
        or seed < 0
    ):
        raise OptionError(
            f"{{param}} must be None or a whole number ≥ 0 (got {seed!r})", param="seed"
        )
    return np.random.default_rng(seed)


def root_seed(seed: int | np.random.Generator | None) -> int:
    """The whole number every named stream (:func:`named_rng`) of a run is derived from: ``seed``
    itself, one number drawn from a Generator, or fresh entropy for None.

    Examples
    --------
    >>> root_seed(7)
    7
    """
    import numpy as np

    if isinstance(seed, np.random.Generator):
        return int(seed.integers(2**63))
    return int(make_rng(seed).integers(2**63)) if seed is None else resolve_seed(seed)


def named_rng(root: int, *names: str) -> np.random.Generator:
    """The random stream of one system (or of one pair of systems, one name each) in a run
    seeded with ``root``: derived from the seed and the names only, so a system's interval is
    the same alone or beside other systems, in any order.

    Examples
    --------
    >>> a = named_rng(0, "baseline").random()
    >>> a == named_rng(0, "baseline").random() != named_rng(0, "guided").random()
    True
    """
    import hashlib

    import numpy as np

    text = "\x00".join(names).encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(text).digest()
    words = np.frombuffer(digest, dtype="<u4").tolist()
    return np.random.default_rng([int(root), len(names), *words])


def resolve_seed(seed: int | None) -> int:
    """The seed a run uses: ``seed`` checked, or for None a fresh one (recorded, so it repeats).

    Raises
    ------
    OptionError
        ``seed`` is not a whole number ≥ 0.

    Examples
    --------
    >>> resolve_seed(7), 0 <= resolve_seed(None) < 2**31
    (7, True)
    """
    if seed is None:
        import numpy as np

        seed = int(np.random.SeedSequence().entropy) % (2**31)  # type: ignore[arg-type]
    if (
        isinstance(seed, bool)
        or not (isinstance(seed, int) or is_numpy(seed, "integer"))
        or seed < 0
    ):
        raise OptionError(f"{{param}} must be a whole number ≥ 0 (got {seed!r})", param="seed")
    return int(seed)


def check_k(k: object, *, minimum: int = 1) -> int:
    """Validate one k: a whole number (int or numpy integer) ≥ ``minimum``, never a boolean.

    ``True`` is an int in Python (and ``numpy.True_`` converts to 1), so ``k=True`` would
    silently mean k = 1: every option taking k is checked here or in :func:`norm_k` /
    :func:`check_k_values`, which share the rule.

    Examples
    --------
    >>> check_k(5)
    5
    >>> check_k(True)
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: k must be a whole number ≥ 1, not a boolean (got True)
    """
    if isinstance(k, bool) or is_numpy(k, "bool_"):
        raise OptionError(
            f"{{param}} must be a whole number ≥ {minimum}, not a boolean (got {k!r})", param="k"
        )
    if not (isinstance(k, int) or is_numpy(k, "integer")) or k < minimum:
        raise OptionError(f"{{param}} must be a whole number ≥ {minimum} (got {k!r})", param="k")
    return int(k)


@overload
def check_min_runs(min_runs: object, *, optional: Literal[False]) -> int: ...


@overload
def check_min_runs(min_runs: object, *, optional: bool = True) -> int | None: ...


def check_min_runs(min_runs: object, *, optional: bool = True) -> int | None:
    """Validate ``min_runs`` (the fewest decided runs a task needs): a whole number ≥ 1 (an
    int or numpy integer, never a boolean or a float such as 2.0: the rule of
    :func:`check_k`), or None where ``optional``.

    One rule for every entry point that takes it (:func:`passhat.estimate`,
    :func:`passhat.compare`, :func:`passhat.classify`).

    Examples
    --------
    >>> check_min_runs(3), check_min_runs(None)
    (3, None)
    >>> check_min_runs(2.0)
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: min_runs must be a whole number ≥ 1 (got 2.0)
    """
    if min_runs is None and optional:
        return None
    whole = (isinstance(min_runs, int) or is_numpy(min_runs, "integer")) and not (
        isinstance(min_runs, bool) or is_numpy(min_runs, "bool_")
    )
    if not whole or min_runs < 1:  # type: ignore[operator]
        raise OptionError(
            f"{{param}} must be a whole number ≥ 1 (got {min_runs!r})", param="min_runs"
        )
    return int(min_runs)  # type: ignore[call-overload]


def check_k_values(k: object) -> NDArray[np.float64]:
    """Validate k given as a number or an array of them (vectorised estimators): whole
    numbers ≥ 1 as floats; booleans refused, as by :func:`check_k`.

    Examples
    --------
    >>> check_k_values([1, 3]).tolist()
    [1.0, 3.0]
    >>> check_k_values([True, 2])
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: k must be whole numbers ≥ 1, not booleans (got [True, 2])
    """
    import numpy as np

    raw = k if isinstance(k, np.ndarray) else np.asarray(k, dtype=object)
    if raw.dtype == np.bool_ or (
        raw.dtype == object
        and any((isinstance(v, bool) or is_numpy(v, "bool_")) for v in raw.ravel())
    ):
        raise OptionError(
            f"{{param}} must be whole numbers ≥ 1, not booleans (got {raw.ravel()[:5].tolist()})",
            param="k",
        )
    try:
        k_arr = np.asarray(k, dtype=float)
    except (TypeError, ValueError) as err:
        raise OptionError(f"{{param}} must be whole numbers ≥ 1 (got {k!r})", param="k") from err
    if not np.all(np.isfinite(k_arr)) or np.any(k_arr != np.floor(k_arr)) or np.any(k_arr < 1):
        raise OptionError(
            f"{{param}} must be whole numbers ≥ 1 (got {np.ravel(k_arr)[:5].tolist()})", param="k"
        )
    return k_arr


def norm_k(k: int | Sequence[int]) -> list[int]:
    """Validate k (a whole number ≥ 1 or a sequence of them): sorted, without repeats."""
    # a scalar that is not a whole number (1.5, "2") must reach the check below, not list()
    if isinstance(k, Mapping):  # its keys would pass silently for the k values
        raise OptionError(
            f"{{param}} must be a whole number or a sequence of them (got {k!r})", param="k"
        )
    ks = list(k) if isinstance(k, Iterable) and not isinstance(k, str | bytes) else [k]
    if not ks:
        raise OptionError("{param} must name at least one value", param="k")
    for v in ks:
        if isinstance(v, bool) or is_numpy(v, "bool_"):
            raise OptionError(
                f"{{param}} must be whole numbers ≥ 1, not booleans (got {v!r})", param="k"
            )
        if not (isinstance(v, int) or is_numpy(v, "integer")) or v < 1:
            raise OptionError(f"{{param}} must be whole numbers ≥ 1 (got {v!r})", param="k")
    return sorted({int(v) for v in ks})


def check_flag(value: object, name: str) -> bool:
    """A yes/no option: True or False (numpy's too); ``"no"`` would be truthy, so text is refused.

    Examples
    --------
    >>> check_flag(True, "matched")
    True
    >>> check_flag("no", "matched")
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: matched must be True or False (got 'no')
    """
    if not (isinstance(value, bool) or is_numpy(value, "bool_")):
        raise OptionError(f"{{param}} must be True or False (got {value!r})", param=name)
    return bool(value)


def check_method(method: str, allowed: Sequence[str], what: str) -> str:
    """Validate a method name (case-insensitive) against the allowed ones; return it lower-cased."""
    m = str(method).lower()
    if m not in allowed:
        raise OptionError(
            f"{{param}} must be one of {', '.join(allowed)} (got {method!r})", param=what
        )
    return m


def check_weight(key: object, value: object) -> float:
    """One weight of a task or category mapping: a finite number ≥ 0, else an OptionError.

    Examples
    --------
    >>> check_weight("t1", 2)
    2.0
    >>> check_weight("t1", "heavy")
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: weight of 't1' must be a finite and non-negative number, got 'heavy'
    """
    try:
        w = float(value) if not isinstance(value, bool | str | bytes) else float("nan")  # type: ignore[arg-type]
    except (TypeError, ValueError):
        w = float("nan")
    if not (math.isfinite(w) and w >= 0):
        raise OptionError(
            f"weight of {key!r} must be a finite and non-negative number, got {value!r}"
        )
    return w


def check_weight_tasks(
    given: Iterable[str], tasks: Sequence[str], known: Iterable[object] | None = None
) -> None:
    """A per-task weight mapping (its keys ``given``) must cover every task of ``tasks`` (those
    weighted) and name no task outside ``known`` (every task of the input; default ``tasks``):
    a weight of a task the data do not hold (a typo, another benchmark's list) would be ignored.

    Examples
    --------
    >>> check_weight_tasks(["t1", "t2", "t9"], ["t1", "t2"])
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: weights name 1 task(s) the data do not hold: 't9'; give weights \
of the data's tasks only
    """
    keys = set(given)
    missing = [t for t in tasks if t not in keys]
    if missing:
        raise OptionError(
            f"no weight given for {len(missing)} task(s), e.g. {', '.join(missing[:5])}"
        )
    extra = sorted(keys - {str(t) for t in (tasks if known is None else known)})
    if extra:
        shown = ", ".join(map(repr, extra[:5])) + (" ..." if len(extra) > 5 else "")
        raise OptionError(
            f"weights name {len(extra)} task(s) the data do not hold: {shown}; give weights of "
            "the data's tasks only"
        )


#: Weights whose largest lies outside [2^-400, 2^400] are scaled into it before being summed.
_SCALE_LIMIT = 400


def stable_scale(w: Any) -> Any:
    """``w`` (a DataArray of weights) times one power of two (exact: no ratio changes) so that
    its largest finite value is about 1, when that value is beyond 2^±400; else ``w``.

    Examples
    --------
    >>> import xarray as xr
    >>> w = stable_scale(xr.DataArray([[1e308, 1e308, 0.0]]))
    >>> float(w.sum()) > 0 and float(w[0, 0]) == float(w[0, 1])
    True
    """
    import numpy as np

    vals = np.asarray(w.values, dtype=float)
    finite = vals[np.isfinite(vals) & (vals > 0)]
    if finite.size == 0:
        return w
    _, exp = np.frexp(finite.max())
    if abs(int(exp)) <= _SCALE_LIMIT:
        return w
    return w.copy(data=np.ldexp(vals, -int(exp)))
