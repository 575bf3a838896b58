"""What the hook writes, and whether it writes at all: the ``PASSHAT_INSPECT`` environment variable
and the task's metadata.

The hook is **off unless asked**, per log:

* the environment variable ``PASSHAT_INSPECT``: ``1`` (also ``true``, ``yes``, ``on``,
  ``estimate``) writes the estimate; ``report`` writes the estimate and the report; a JSON
  object (``{"k": [1, 2, 4], "ci": 0.9, "report": true}``) writes with those settings; unset,
  empty, ``0``, ``false``, ``no`` or ``off`` asks nothing;
* the task's (or ``eval(metadata=...)``'s) metadata key ``"passhat"``: ``True``, ``"report"``,
  or a dict of the same settings turns it on for that task's log (over the environment's
  settings, key by key); ``False`` turns it off for that log whatever the environment says.

The settings: ``k`` (a whole number or a list; default: the k of passhat's reducers in the
log, else passhat's default k), ``ci`` (0.95), ``scorer`` (needed when the log has several),
``threshold`` (1.0; the reducers' own), ``report`` (false), ``model`` (true: the report fits
passhat's hierarchical model, which takes a minute; false leaves it out), ``n_boot`` (10,000),
``seed`` (0).

Inspect asks a hook whether it is enabled before every event. This one is enabled when the
environment variable asks, or once passhat's reducers or metric have been created in the
process (a task using them is being run: its metadata may ask); otherwise Inspect does not
list it among the enabled hooks and it costs nothing.

Examples
--------
>>> HookSettings.parse("report").report
True
>>> s = HookSettings.parse('{"k": [1, 2], "ci": 0.9}')
>>> s.k, s.ci, s.report
((1, 2), 0.9, False)
>>> HookSettings.parse("0") is None
True
>>> HookSettings.resolve(env="1", metadata={"passhat": {"report": True}}).report
True
>>> HookSettings.resolve(env="1", metadata={"passhat": False}) is None
True
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, fields, replace
from typing import Any

from passhat.errors import OptionError

__all__ = ["ENV_VAR", "METADATA_KEY", "HookSettings", "asked", "mark_used"]

#: The environment variable that turns the hook on (see the module doc).
ENV_VAR = "PASSHAT_INSPECT"
#: The task-metadata key that turns it on for one task.
METADATA_KEY = "passhat"

_OFF = ("", "0", "false", "no", "off")
_ON = ("1", "true", "yes", "on", "estimate")

_state = {"used": False}


def mark_used() -> None:
    """Note that passhat's reducers or metric were created (a task using them will run)."""
    _state["used"] = True


def asked() -> bool:
    """Whether the hook should listen: the environment asks, or passhat's pieces are in use."""
    return _state["used"] or HookSettings.parse_env() is not None


@dataclass(frozen=True)
class HookSettings:
    """What the hook computes and writes for one log (see the module doc)."""

    k: tuple[int, ...] | None = None
    ci: float = 0.95
    scorer: str | None = None
    threshold: float = 1.0
    report: bool = False
    model: bool = True
    n_boot: int = 10_000
    seed: int = 0

    @classmethod
    def parse(cls, text: str, *, where: str = ENV_VAR) -> HookSettings | None:
        """The settings a ``PASSHAT_INSPECT`` value asks for; None when it asks nothing."""
        value = text.strip()
        if value.lower() in _OFF:
            return None
        if value.lower() in _ON:
            return cls()
        if value.lower() == "report":
            return cls(report=True)
        if value.startswith("{"):
            return cls().updated(cls._json(value, where), where=where)
        raise OptionError(
            f"{where}={value[:80]!r}: give 1 (write the estimate), report (and the report), "
            '0 (nothing) or a JSON object such as {"k": [1, 2], "ci": 0.9}'
        )

    @staticmethod
    def _json(text: str, where: str) -> Any:
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise OptionError(f"{where}: not valid JSON ({err.msg}): {text[:80]!r}") from err

    @classmethod
    def parse_env(cls) -> HookSettings | None:
        """The settings of the environment variable (None: unset or off)."""
        return cls.parse(os.environ.get(ENV_VAR, ""))

    @classmethod
    def resolve(cls, *, env: str | None, metadata: dict[str, Any] | None) -> HookSettings | None:
        """One log's settings: the environment's (``env``, the variable's value), then the
        log's metadata key ``"passhat"`` over them; None when neither asks."""
        base = cls.parse(env or "")
        if not metadata or METADATA_KEY not in metadata:
            return base
        where = f"task metadata {METADATA_KEY!r}"
        value = metadata[METADATA_KEY]
        if value is False or value is None:
            return None
        if value is True:
            return base or cls()
        if isinstance(value, str) and not value.strip().startswith("{"):
            own = cls.parse(value, where=where)
            start = base or cls()
            return None if own is None else replace(start, report=start.report or own.report)
        if isinstance(value, str):
            value = cls._json(value, where)
        if isinstance(value, dict):
            return (base or cls()).updated(value, where=where)
        raise OptionError(f"{where}: give true, false, 'report' or a dict (got {value!r})")

    def updated(self, values: Any, *, where: str) -> HookSettings:
        """These settings with ``values`` (a mapping of setting → value) over them, checked."""
        if not isinstance(values, dict):
            raise OptionError(f"{where}: settings are a JSON object / dict (got {values!r})")
        names = [f.name for f in fields(self)]
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise OptionError(
                f"{where}: unknown setting(s) {', '.join(map(repr, unknown))}; "
                f"the settings are {', '.join(names)}"
            )
        return replace(self, **{key: _checked(key, v, where) for key, v in values.items()})


def _checked(key: str, value: Any, where: str) -> Any:
    """One setting's value, checked (an OptionError naming ``where`` and the setting)."""
    from passhat._validate import check_ci, check_n_boot, norm_k

    try:
        if key == "k":
            return None if value is None else tuple(norm_k(value))
        if key == "ci":
            return check_ci(value)
        if key == "n_boot":
            return check_n_boot(value)
        if key in ("report", "model") and isinstance(value, bool):
            return value
        if key == "scorer" and (value is None or isinstance(value, str)):
            return value
        if key == "seed" and isinstance(value, int) and not isinstance(value, bool):
            return value
        if key == "threshold" and isinstance(value, int | float) and not isinstance(value, bool):
            if math.isfinite(value):
                return float(value)
    except OptionError as err:
        raise OptionError(f"{where}: {err}") from err
    kinds = {
        "report": "true or false",
        "model": "true or false",
        "scorer": "a scorer's name",
        "seed": "a whole number",
        "threshold": "a finite number",
    }
    raise OptionError(f"{where}: {key} must be {kinds[key]} (got {value!r})")
