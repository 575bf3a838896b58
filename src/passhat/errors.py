"""Error hierarchy.

Every error passhat raises on purpose is a :class:`PasshatError`. The CLI
prints its message on one line and exits with the class's ``exit_code`` (2: bad
input or options; 4: an input could not be read or an output written); the Python API lets it
propagate. Messages name the file, row or task and the rule that was broken.

Examples
--------
>>> import passhat as ph
>>> try:
...     ph.pass_hat_k(3, 4, 2)
... except ph.PasshatError as err:
...     print(type(err).__name__)
CountError
"""

from __future__ import annotations

__all__ = [
    "EXIT_CONTINUE",
    "EXIT_FAIL",
    "EXIT_INPUT",
    "EXIT_INTERRUPT",
    "EXIT_IO",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "CountError",
    "DependencyError",
    "FormatError",
    "InputError",
    "ModelError",
    "OptionError",
    "OutputError",
    "PasshatError",
    "ReadError",
    "ShortTaskError",
    "ValidationError",
]


#: Exit statuses of every command (docs/guide/cli.md): success; a gate decided "fail"; bad input
#: or options; a sequential gate says "continue" (more runs needed); an I/O error (disk full,
#: permission, memory); interrupted (SIGINT, SIGTERM).
EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_CONTINUE, EXIT_IO = 0, 1, 2, 3, 4
EXIT_INTERRUPT, EXIT_TERMINATED = 130, 143


class PasshatError(Exception):
    """Base class of every error passhat raises deliberately.

    ``exit_code`` is the status the command line exits with (2: bad input or options).
    """

    exit_code: int = EXIT_INPUT


class InputError(PasshatError, ValueError):
    """The data given to passhat break a rule (file, row, task named)."""


class FormatError(InputError):
    """A file is not in the format claimed or cannot be sniffed/parsed."""


class ValidationError(InputError):
    """A trial table breaks a data-model rule (duplicates, bad values, missing columns)."""


class CountError(InputError):
    """Counts are invalid: c > n, negative, or not whole numbers."""


class ReadError(InputError):
    """An input exists but cannot be read (no permission, an I/O error); the path is named.
    The CLI exits with status 4, as for any I/O error."""

    exit_code = EXIT_IO


class ShortTaskError(InputError):
    """A requested k exceeds the decided runs n of some tasks.

    Attributes
    ----------
    tasks : list of (system, task, n)
        The offending tasks.
    """

    def __init__(self, message: str, tasks: list[tuple[str, str, int]] | None = None) -> None:
        super().__init__(message)
        self.tasks = tasks or []


class OptionError(PasshatError, ValueError):
    """An option is out of range or contradicts another option.

    ``param`` names the parameter as the Python API spells it (``"ci"``, ``"half_width"``), and
    ``also`` any other parameter the message names; ``{param}`` (or ``{ci}``, ``{half_width}``)
    in the message stands for each. The command line shows the options instead (``--ci``,
    ``--half-width``): its command fills :attr:`options` from click's own parameter table, so
    the same error reads in each user's terms and no message is rewritten. ``example`` is a call
    that would work (``runs_to_detect(flip_rate=0.1)``), shown after the message; a command
    that has an example of its own shows that instead (``passhat plan detect --flip-rate 0.1``).

    Examples
    --------
    >>> err = OptionError("{param} needs {ci} (a confidence level)", param="predictive",
    ...                   also=("ci",))
    >>> str(err)
    'predictive needs ci (a confidence level)'
    >>> err.options.update({"predictive": "--predictive", "ci": "--ci"})
    >>> str(err)
    '--predictive needs --ci (a confidence level)'
    >>> str(OptionError("give {runs}", also=("runs",), example="runs_to_detect(runs=10)"))
    'give runs; e.g. runs_to_detect(runs=10)'
    """

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        also: tuple[str, ...] = (),
        example: str | None = None,
    ):
        super().__init__(message)
        self.template = message
        self.param = param
        self.params = tuple(p for p in (param, *also) if p is not None)
        self.options: dict[str, str] = {}
        self.example = example

    def __str__(self) -> str:
        text = self.template
        if self.param is not None:
            text = text.replace("{param}", self.options.get(self.param, self.param))
        for name in self.params:
            text = text.replace("{" + name + "}", self.options.get(name, name))
        return text if self.example is None else f"{text}; e.g. {self.example}"


class DependencyError(PasshatError, ImportError):
    """An optional dependency is needed and not installed (the extra is named)."""


class ModelError(PasshatError, RuntimeError):
    """A model could not be built, fitted or loaded."""


class OutputError(PasshatError, OSError):
    """An output file could not be written (disk full, permission, busy); the file is named.

    Nothing was replaced: a previous output at that place is still complete. The CLI exits
    with status 4.
    """

    exit_code = EXIT_IO
