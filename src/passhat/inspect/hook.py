"""The Inspect hook ``passhat/estimate``: passhat's estimate written beside each log of a run.

At the end of a run (Inspect's ``on_run_end``), for each log whose settings ask
(:mod:`passhat.inspect.settings`: the ``PASSHAT_INSPECT`` environment variable or the task's
metadata), the log is read back from disk by passhat's Inspect reader (:func:`passhat.read`),
estimated (:func:`passhat.estimate` with intervals) and written beside it:

* ``passhat-<log name>.json``: :meth:`passhat.Estimate.to_dict` (every value with its
  benchmark- and population-scope interval and the method that made it, the settings, the
  notes, the log's path and hash);
* with ``report``: the report directory ``passhat-<log name>-report/`` (:func:`passhat.report`).

The names start with ``passhat-``, not with the log's timestamp, so Inspect's log listing
(``inspect view``, ``list_eval_logs``) does not take them for logs. An existing file is never
replaced, the log is never written to, and a file is written whole or not at all
(:mod:`passhat._write`). k is the setting's, else the k of the log's ``pass_k`` / ``pass_at``
reducers (passhat's or Inspect's), else passhat's default k; tasks with fewer scored epochs than
the largest k are left out and named in the notes (``on_short="exclude"``).

A problem (a log with several scorers and no ``scorer`` setting, a log that is not on this file
system, a file in the way) is one warning in Inspect's log naming the log and the fix; the run
is never failed by the hook.

Examples
--------
>>> from passhat.inspect.hook import output_paths
>>> [p.name for p in output_paths("logs/2025-01-01T00-00-00_task_abc.eval")]
['passhat-2025-01-01T00-00-00_task_abc.json', 'passhat-2025-01-01T00-00-00_task_abc-report']
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from inspect_ai.hooks import Hooks, RunEnd, hooks

from passhat.errors import OptionError, PasshatError
from passhat.inspect.settings import ENV_VAR, HookSettings, asked

__all__ = ["PasshatHook", "Written", "output_paths", "reducer_ks", "write_outputs"]

logger = logging.getLogger(__name__)

_REDUCER_K = re.compile(r"^(?:passhat/)?pass_(?:hat|k|at)_(\d+)$")


@dataclass(frozen=True)
class Written:
    """What the hook wrote for one log."""

    log: Path
    estimate: Path
    report: Path | None


def output_paths(log: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Where the estimate JSON and the report go for a log: beside it, named after it."""
    path = Path(log)
    return path.with_name(f"passhat-{path.stem}.json"), path.with_name(
        f"passhat-{path.stem}-report"
    )


def reducer_ks(epochs_reducer: list[str] | None) -> tuple[int, ...] | None:
    """The k values of a log's pass^k / pass@k reducers (passhat's or Inspect's), if any.

    Examples
    --------
    >>> reducer_ks(["passhat/pass_hat_2", "pass_at_4", "passhat/mean", "mean"])
    (2, 4)
    >>> reducer_ks(["mean"]) is None
    True
    """
    ks = sorted({int(m.group(1)) for r in epochs_reducer or () if (m := _REDUCER_K.match(r))})
    return tuple(ks) or None


def write_outputs(
    log: str | os.PathLike[str], settings: HookSettings | None = None, *, force: bool = False
) -> Written:
    """Read an Inspect log, estimate, and write the estimate (and the report) beside it.

    What the hook does for each log of a run; callable on any local log afterwards.

    Parameters
    ----------
    log : path
        An Inspect AI log (``.eval`` or ``.json``).
    settings : HookSettings, optional
        k, ci, scorer, threshold, report, model, n_boot, seed (default: :class:`HookSettings`).
    force : bool
        Replace the outputs of an earlier call (the hook never does: a log's name is new).

    Returns
    -------
    Written
        The paths written.

    Raises
    ------
    PasshatError
        The log cannot be read (e.g. several scorers and none chosen), or an output is in the
        way (an existing file is not replaced).

    Examples
    --------
    >>> write_outputs("logs/my-run.eval")  # doctest: +SKIP
    Written(log=PosixPath('logs/my-run.eval'), estimate=PosixPath('logs/passhat-my-run.json'), \
report=None)
    """
    import passhat as ph
    from passhat._write import check_file, write_bytes

    cfg = settings or HookSettings()
    path = Path(log)
    target, report_dir = output_paths(path)
    if not force and os.path.lexists(target):
        raise OptionError(f"{target}: exists; not replaced (force=True replaces it)")
    check_file(target, inputs=(path,), force=force)  # before the work: a bad target is refused
    data = ph.read(path, format="inspect", scorer=cfg.scorer, threshold=cfg.threshold)
    k = list(cfg.k) if cfg.k is not None else None
    est = ph.estimate(data, k=k, ci=cfg.ci, n_boot=cfg.n_boot, seed=cfg.seed, on_short="exclude")
    text = json.dumps(est.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    write_bytes(target, text, inputs=(path,), force=force)
    if not cfg.report:
        return Written(path, target, None)
    ph.report(
        data, report_dir, k=est.settings["k"], ci=cfg.ci, n_boot=cfg.n_boot, seed=cfg.seed,
        model=cfg.model, title=f"Inspect AI log {path.name}", force=force,
    )  # fmt: skip
    return Written(path, target, report_dir)


def _local_path(location: str) -> Path | None:
    """The log's path on this file system (None for a remote location such as s3://)."""
    if location.startswith("file://"):
        return Path(location.removeprefix("file://"))
    return None if "://" in location else Path(location)


def write_for_log(log: Any) -> Written | None:
    """The hook's work for one log of a run: its settings, then :func:`write_outputs`; a
    problem becomes one warning naming the log."""
    where = str(getattr(log, "location", "") or "")
    try:
        settings = HookSettings.resolve(
            env=os.environ.get(ENV_VAR), metadata=getattr(log.eval, "metadata", None)
        )
        if settings is None:
            return None
        path = _local_path(where)
        if path is None:
            raise OptionError(
                f"{where}: not a local file; passhat writes beside local logs only (run "
                "passhat.inspect.write_outputs on a downloaded copy)"
            )
        if settings.k is None:
            settings = replace(settings, k=reducer_ks(log.eval.config.epochs_reducer))
        written = write_outputs(path, settings)
    except PasshatError as err:
        why = str(err) if where and where in str(err) else f"{where or 'a log'}: {err}"
        logger.warning(f"passhat: nothing written: {why}")
        return None
    logger.info(f"passhat: wrote {written.estimate}")
    return written


@hooks(
    name="estimate",
    description=(
        f"pass^k / pass@k with intervals beside each log when {ENV_VAR} or the task's "
        "metadata 'passhat' asks"
    ),
)
class PasshatHook(Hooks):
    """Writes passhat's estimate beside each log at the end of a run (see the module doc)."""

    def enabled(self) -> bool:
        """Listen only when asked: the environment variable, or passhat's pieces in use."""
        try:
            return asked()
        except OptionError:
            return True  # a bad PASSHAT_INSPECT: on_run_end says what is wrong with it

    async def on_run_end(self, data: RunEnd) -> None:
        """Write each asking log's estimate (and report) beside it."""
        for log in data.logs:
            write_for_log(log)
