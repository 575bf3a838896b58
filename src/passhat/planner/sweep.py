"""Parallel simulation sweeps: map a pure function over a grid of keyword sets through dask.

The planner's simulation checks (:func:`~passhat.planner.design_check.simulate_design`,
:func:`~passhat.planner.copula.simulate_power`) run one design per call;
:func:`sweep` runs a grid of them on dask's local schedulers, a local
distributed cluster or an existing one, and returns one row per grid point in
the grid's order. dask is imported only when a sweep runs.

Examples
--------
>>> from passhat import plan
>>> df = plan.sweep(lambda x, y: {"x": x, "sum": x + y}, [{"x": 1}, {"x": 2}],
...     scheduler="synchronous", y=10)
>>> df["sum"].tolist()
[11, 12]
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pandas as pd

from passhat.errors import DependencyError, OptionError

__all__ = ["current_sweep_options", "sweep", "sweep_options"]

_OPTIONS: contextvars.ContextVar[tuple[str | None, bool]] = contextvars.ContextVar(
    "passhat_sweep_options", default=(None, False)
)


@contextlib.contextmanager
def sweep_options(*, scheduler: str | None = None, progress: bool = False) -> Iterator[None]:
    """Where the sweeps of planner calls inside the block run, and whether they show progress
    (a simulated :func:`passhat.plan.power` grid; :meth:`DesignResult.check
    <passhat.planner.design_result.DesignResult.check>` takes them as arguments). ``scheduler``
    and ``progress`` as for :func:`sweep`; outside a block: a local cluster, no progress.

    Examples
    --------
    >>> from passhat import plan
    >>> with plan.sweep_options(scheduler="synchronous"):
    ...     r = plan.power(delta=0.1, tasks=[20], runs_per_task=[3], method="simulation",
    ...                    replicates=100, prior=plan.Assumptions(mean=0.6, icc=0.3))
    >>> r.table["tasks"].tolist()
    [20]
    """
    token = _OPTIONS.set((scheduler, progress))
    try:
        yield
    finally:
        _OPTIONS.reset(token)


def current_sweep_options() -> tuple[str | None, bool]:
    """The (scheduler, progress) of the innermost :func:`sweep_options` block."""
    return _OPTIONS.get()


def sweep(
    func: Callable[..., dict[str, Any]],
    points: Iterable[dict[str, Any]],
    *,
    scheduler: str | None = None,
    progress: bool = False,
    **common: Any,
) -> pd.DataFrame:
    """Map a simulation over a grid of keyword sets in parallel through dask.

    Parameters
    ----------
    func : callable
        A pure function returning a dict (e.g. :func:`~passhat.planner.copula.simulate_power`).
    points : iterable of dict
        The grid: one keyword set per call; ``common`` keywords are added.
    scheduler : str, optional
        ``None``: a local distributed cluster (2 workers); ``"synchronous"`` or
        ``"threads"`` (or ``"processes"``): dask's local schedulers; anything
        else: the address of an existing distributed scheduler.
    progress : bool
        A progress bar on stderr (only when stderr is a terminal).

    Returns
    -------
    pandas.DataFrame
        One row per point, in the grid's order.

    Examples
    --------
    >>> from passhat import plan
    >>> from passhat.planner.design_check import simulate_design
    >>> pts = [{"tasks": 10, "runs_per_task": 3}]
    >>> df = plan.sweep(simulate_design, pts, scheduler="synchronous", k=1,
    ...     prior=plan.Assumptions(mean=0.5, icc=0.5), replicates=50)
    >>> len(df)
    1
    """
    try:
        import dask
    except ImportError as err:  # pragma: no cover - dask is in the dev/dask extras
        raise DependencyError("parallel sweeps need dask: pip install 'passhat[dask]'") from err
    pts = [dict(p, **common) for p in points]
    show = progress and sys.stderr.isatty()
    if scheduler in ("synchronous", "threads", "processes", "single-threaded", "sync"):
        tasks = [dask.delayed(func)(**p) for p in pts]
        if show:
            from dask.diagnostics import ProgressBar

            with ProgressBar(out=sys.stderr):
                results = dask.compute(*tasks, scheduler=scheduler)
        else:
            results = dask.compute(*tasks, scheduler=scheduler)
        return pd.DataFrame(list(results))
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as err:  # pragma: no cover
        raise DependencyError(
            "a dask cluster needs distributed: pip install 'passhat[dask]'"
        ) from err
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
    else:
        try:
            client = Client(scheduler)
        except (ValueError, TypeError, OSError) as err:
            raise OptionError(
                f"{{param}} {scheduler!r}: cannot connect ({err}); give a dask scheduler "
                "address like tcp://host:8786, or synchronous / threads / processes",
                param="scheduler",
            ) from err
    try:
        futures = [client.submit(func, pure=False, **p) for p in pts]
        if show:
            from rich.progress import Progress

            with Progress(transient=True, console=None) as bar:
                job = bar.add_task("simulating", total=len(futures))
                for _ in as_completed(futures):
                    bar.advance(job)
        results = client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return pd.DataFrame(list(results))
