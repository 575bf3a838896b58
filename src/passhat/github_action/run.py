"""What the GitHub Action runs: ``passhat gate`` / ``compare`` / ``estimate``, then its outputs.

``action.yml`` (at the repository root) installs passhat and calls
``python -m passhat.github_action`` with its inputs. This module:

1. runs the commands the inputs ask for, each with ``--json``, as a user would in a shell step
   (the command lines are printed in the log, to rerun locally):

   * ``passhat gate FILES --baseline BASE --margin M`` (with ``margin``) or
     ``passhat gate FILES --max-failure-rate F`` (with ``max-failure-rate``), at
     ``--alpha`` = 1 − ci and ``--k``;
   * ``passhat compare BASE FILES`` when there is a baseline, else ``passhat estimate FILES``,
     at ``--ci`` and ``--k``: the table;

2. renders their JSON documents as Markdown (:mod:`passhat.github_action.markdown`) and
   appends it to ``$GITHUB_STEP_SUMMARY``, writes it to the comment file (for a pull-request
   comment step), and appends ``decision``, ``exit-code`` and ``comment-file`` to
   ``$GITHUB_OUTPUT``;

3. exits with the step's status: the gate's 0 pass, 1 fail, 3 continue (``on-continue: pass``
   makes a continue 0, with a warning), or the first error status of a command (2 bad input,
   4 I/O). Any non-zero status fails a GitHub step.

Nothing here computes a statistic: the numbers are the commands'.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from passhat.github_action.markdown import (
    MARKER,
    comparison_markdown,
    error_markdown,
    estimate_markdown,
    gate_markdown,
    provenance_markdown,
)

__all__ = [
    "ActionError",
    "Inputs",
    "Ran",
    "annotation",
    "check_comment",
    "commands",
    "main",
    "markdown",
    "parse_inputs",
    "run_command",
    "step_status",
    "write_comment",
    "write_outputs",
]

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_CONTINUE, EXIT_IO = 0, 1, 2, 3, 4
_METRICS = ("pass_hat_k", "pass_at_k", "mean")


class ActionError(Exception):
    """A bad input or output of the Action itself (the message names it)."""

    def __init__(self, message: str, code: int = EXIT_INPUT) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Inputs:
    """The Action's inputs, checked."""

    files: str
    baseline: str | None
    k: int
    margin: float | None
    max_failure_rate: float | None
    ci: float
    on_continue: str
    comment_file: Path
    metric: str = "pass_hat_k"
    fmt: str | None = None
    threshold: float | None = None

    @property
    def alpha(self) -> str:
        """1 − ci as the gate's ``--alpha`` (0.95 → "0.05")."""
        return f"{1 - self.ci:.12g}"


@dataclass(frozen=True)
class Ran:
    """One command: its name, command line, exit status, JSON document and messages."""

    name: str
    argv: tuple[str, ...]
    code: int
    doc: dict[str, Any] | None
    stderr: str

    @property
    def shown(self) -> str:
        """The command line as a user types it."""
        return "passhat " + shlex.join(self.argv)


def _number(name: str, text: str, *, low: float, high: float, closed_low: bool = False) -> float:
    try:
        x = float(text)
    except ValueError:
        raise ActionError(f"input {name}: not a number ({text!r})") from None
    if not (low <= x < high if closed_low else low < x < high):
        side = "[" if closed_low else "("
        raise ActionError(f"input {name}: must lie in {side}{low:g}, {high:g}) (got {text})")
    return x


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m passhat.github_action", description=__doc__)
    ap.add_argument("--files", required=True, help="The candidate's runs: one path or pattern.")
    ap.add_argument("--baseline", default="", help="The baseline's runs (compare, --margin).")
    ap.add_argument("--k", default="1", help="Runs per block (pass^k) and the tables' k.")
    ap.add_argument("--margin", default="", help="Gate: at most this far below the baseline.")
    ap.add_argument("--max-failure-rate", default="", help="Gate: 1 − pass^k below this.")
    ap.add_argument("--ci", default="0.95", help="Level: intervals, and the gate's 1 − alpha.")
    ap.add_argument("--on-continue", default="fail", help="fail or pass: a 'continue' gate.")
    ap.add_argument("--comment-file", default="", help="Where the comment's Markdown goes.")
    ap.add_argument("--metric", default="pass_hat_k", help="Gate: pass_hat_k, pass_at_k, mean.")
    ap.add_argument("--format", default="", help="Input format (sniffed when empty).")
    ap.add_argument("--threshold", default="", help="A numeric score → success when ≥ this.")
    return ap


def parse_inputs(argv: Sequence[str], env: Mapping[str, str]) -> Inputs:
    """Check the inputs; an :class:`ActionError` names the bad one.

    Examples
    --------
    >>> inp = parse_inputs(["--files", "runs.csv", "--max-failure-rate", "0.05", "--k", "2"], {})
    >>> inp.k, inp.max_failure_rate, inp.alpha, inp.comment_file.name
    (2, 0.05, '0.05', 'passhat-comment.md')
    >>> parse_inputs(["--files", "runs.csv", "--margin", "0.05"], {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    passhat.github_action.run.ActionError: input margin compares with a baseline: ...
    """
    a = _parser().parse_args(list(argv))
    files = a.files.strip()
    if not files:
        raise ActionError("input files: give the candidate's runs (a file, directory or pattern)")
    if "\n" in files:
        raise ActionError("input files: give one path (a file, a directory or a glob pattern)")
    if not a.k.strip().isdigit() or int(a.k) < 1:
        raise ActionError(f"input k: must be a whole number ≥ 1 (got {a.k!r})")
    margin = _number("margin", a.margin, low=0, high=1, closed_low=True) if a.margin else None
    bound = a.max_failure_rate.strip()
    max_rate = _number("max-failure-rate", bound, low=0, high=1) if bound else None
    if margin is not None and max_rate is not None:
        raise ActionError(
            "inputs margin and max-failure-rate: give one (the gate asks one question)"
        )
    baseline = a.baseline.strip() or None
    if margin is not None and baseline is None:
        raise ActionError("input margin compares with a baseline: give the baseline input too")
    if a.on_continue not in ("fail", "pass"):
        raise ActionError(f"input on-continue: fail or pass (got {a.on_continue!r})")
    if a.metric not in _METRICS:
        raise ActionError(f"input metric: one of {', '.join(_METRICS)} (got {a.metric!r})")
    threshold = (
        _number("threshold", a.threshold, low=-math.inf, high=math.inf)
        if a.threshold.strip()
        else None
    )
    default = Path(env.get("RUNNER_TEMP") or ".") / "passhat-comment.md"
    return Inputs(
        files=files,
        baseline=baseline,
        k=int(a.k),
        margin=margin,
        max_failure_rate=max_rate,
        ci=_number("ci", a.ci, low=0, high=1),
        on_continue=a.on_continue,
        comment_file=Path(a.comment_file) if a.comment_file.strip() else default,
        metric=a.metric,
        fmt=a.format.strip() or None,
        threshold=threshold,
    )


def _arg(path: str) -> str:
    """A path as a command's argument: one that starts with ``-`` is not taken for an option.

    Examples
    --------
    >>> _arg("-runs.csv"), _arg("runs.csv")
    ('./-runs.csv', 'runs.csv')
    """
    return f"./{path}" if path.startswith("-") else path


def commands(inp: Inputs) -> list[tuple[str, list[str]]]:
    """The passhat commands the inputs ask for, in order (name, arguments).

    Examples
    --------
    >>> inp = parse_inputs(["--files", "new.csv", "--baseline", "old.csv", "--margin", "0.05"], {})
    >>> for name, args in commands(inp):
    ...     print(" ".join(args))
    gate new.csv --baseline old.csv --margin 0.05 --k 1 --alpha 0.05 --json
    compare old.csv new.csv --k 1 --ci 0.95 --json
    """
    out: list[tuple[str, list[str]]] = []
    files = _arg(inp.files)
    base = _arg(inp.baseline) if inp.baseline is not None else None
    read = ["--format", inp.fmt] if inp.fmt else []
    read += ["--threshold", repr(inp.threshold)] if inp.threshold is not None else []
    metric = ["--metric", inp.metric] if inp.metric != "pass_hat_k" else []
    k = ["--k", str(inp.k)]
    if inp.margin is not None and base is not None:
        gate = ["--baseline", base, "--margin", repr(inp.margin)]
        out.append(
            ("gate", ["gate", files, *read, *gate, *metric, *k, "--alpha", inp.alpha, "--json"])
        )
    elif inp.max_failure_rate is not None:
        gate = ["--max-failure-rate", repr(inp.max_failure_rate)]
        out.append(
            ("gate", ["gate", files, *read, *gate, *metric, *k, "--alpha", inp.alpha, "--json"])
        )
    level = ["--ci", repr(inp.ci)]
    if base is not None:
        out.append(("compare", ["compare", base, files, *read, *k, *level, "--json"]))
    else:
        out.append(("estimate", ["estimate", files, *read, *k, *level, "--json"]))
    return out


def run_command(name: str, args: Sequence[str]) -> Ran:
    """Run ``passhat ARGS`` with this interpreter; parse its JSON document when it printed one."""
    import json

    proc = subprocess.run(
        [sys.executable, "-m", "passhat", *args], capture_output=True, text=True, check=False
    )
    doc = None
    if proc.stdout.strip():
        try:
            doc = json.loads(proc.stdout)
        except ValueError:
            doc = None
    return Ran(name, tuple(args), proc.returncode, doc, proc.stderr)


_RENDER = {"gate": gate_markdown, "compare": comparison_markdown, "estimate": estimate_markdown}
#: The statuses with which a command still printed its document (a gate's fail and continue).
_DECIDED = {"gate": (EXIT_OK, EXIT_FAIL, EXIT_CONTINUE), "compare": (0,), "estimate": (0,)}


def _answered(r: Ran) -> bool:
    return r.doc is not None and r.code in _DECIDED[r.name]


def step_status(ran: Sequence[Ran], on_continue: str) -> tuple[int, str]:
    """The step's exit status and the gate's decision ("none" without a gate, "error" when a
    command failed: its status wins).

    Examples
    --------
    >>> gate = Ran("gate", (), 3, {"gate": {"decision": "continue"}}, "")
    >>> step_status([gate], "fail"), step_status([gate], "pass")
    ((3, 'continue'), (0, 'continue'))
    >>> step_status([gate, Ran("compare", (), 2, None, "passhat: error: ...")], "fail")
    (2, 'error')
    """
    for r in ran:
        if not _answered(r):
            return (r.code if r.code not in (0, 1, 3) else EXIT_INPUT), "error"
    gate = next((r for r in ran if r.name == "gate"), None)
    if gate is None or gate.doc is None:
        return EXIT_OK, "none"
    decision = str(gate.doc["gate"]["decision"])
    code = gate.code
    if code == EXIT_CONTINUE and on_continue == "pass":
        code = EXIT_OK
    return code, decision


def markdown(ran: Sequence[Ran], decision: str, code: int) -> str:
    """The job summary: the decision, each command's table (or its error), the commands and
    what they read."""
    import html

    parts = ["## passhat"]
    for r in ran:
        parts.append(
            _RENDER[r.name](r.doc)
            if _answered(r) and r.doc
            else error_markdown(r.shown, r.code, r.stderr)
        )
    what = {"none": "no gate", "error": "a command failed"}.get(decision, f"gate: {decision}")
    parts.append(f"**Step exit status: {code}** ({what})")
    shown = html.escape("\n".join(f"$ {r.shown}" for r in ran))
    source = provenance_markdown([r.doc for r in ran if r.doc is not None])
    parts.append(
        f"<details><summary>commands and inputs</summary>\n\n<pre>{shown}</pre>\n\n"
        f"{source}\n\n</details>"
    )
    return "\n\n".join(parts) + "\n"


def _workflow_escape(text: str, *, prop: bool = False) -> str:
    """A workflow command's message (%, CR and LF escaped as GitHub reads them), or with
    ``prop`` a property's value (``title=``: also ``:`` and ``,``).

    Examples
    --------
    >>> _workflow_escape("50% done\\nnext")
    '50%25 done%0Anext'
    >>> _workflow_escape("passhat gate: pass, 0", prop=True)
    'passhat gate%3A pass%2C 0'
    """
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _command(level: str, title: str, message: str) -> str:
    """One workflow command line: ``::level title=...::message``."""
    return f"::{level} title={_workflow_escape(title, prop=True)}::{_workflow_escape(message)}"


def annotation(ran: Sequence[Ran], decision: str) -> str:
    """One line GitHub shows on the run: the gate's decision, or the first error."""
    if decision == "error":
        r = next(r for r in ran if not _answered(r))
        first = (r.stderr.strip().splitlines() or [f"exit {r.code}"])[0]
        return _command("error", f"passhat {r.name}", first)
    gate = next((r for r in ran if r.name == "gate" and r.doc is not None), None)
    if gate is None or gate.doc is None:
        return _command("notice", "passhat", ran[-1].shown)
    level = {"pass": "notice", "fail": "error"}.get(decision, "warning")
    first = str(gate.doc["gate"]["reasoning"]).split(". ")[0]
    return _command(level, f"passhat gate: {decision}", first)


def _append(path: str, text: str, what: str) -> None:
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
    except OSError as err:
        raise ActionError(f"{what} {path}: cannot append to it: {err.strerror}", EXIT_IO) from err


def check_comment(path: Path) -> None:
    """Refuse, before any work, a comment file this Action did not write: an existing path
    whose first line is not :data:`~passhat.github_action.markdown.MARKER`, a symbolic link,
    a directory."""
    if not os.path.lexists(path):
        return
    if path.is_symlink() or not path.is_file():
        what = "a symbolic link" if path.is_symlink() else "not a regular file"
        raise ActionError(f"comment-file {path}: is {what}; nothing written: choose another path")
    try:
        with open(path, "rb") as f:
            first = f.read(len(MARKER) + 1)
    except OSError as err:
        raise ActionError(f"comment-file {path}: cannot read it: {err.strerror}", EXIT_IO) from err
    if first not in (MARKER.encode(), MARKER.encode() + b"\n"):
        raise ActionError(
            f"comment-file {path}: exists and was not written by this Action (its first line "
            f"is not {MARKER}); nothing written: choose another path"
        )


def write_comment(path: Path, text: str) -> None:
    """The comment file: written whole and atomically, only over a file this Action wrote
    (:func:`check_comment`)."""
    from passhat._write import write_bytes
    from passhat.errors import PasshatError

    check_comment(path)
    try:
        write_bytes(path, f"{MARKER}\n{text}", force=True)
    except PasshatError as err:
        raise ActionError(f"comment-file: {err}", err.exit_code) from err


def write_outputs(inp: Inputs, text: str, decision: str, code: int, env: Mapping[str, str]) -> None:
    """Job summary, comment file and step outputs."""
    if env.get("GITHUB_STEP_SUMMARY"):
        _append(env["GITHUB_STEP_SUMMARY"], text, "GITHUB_STEP_SUMMARY")
    write_comment(inp.comment_file, text)
    if env.get("GITHUB_OUTPUT"):
        path = str(inp.comment_file.resolve())
        if "\n" in path:
            raise ActionError(f"comment-file {path!r}: a line break in the path")
        lines = f"decision={decision}\nexit-code={code}\ncomment-file={path}\n"
        _append(env["GITHUB_OUTPUT"], lines, "GITHUB_OUTPUT")


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run the Action's step; returns its exit status."""
    env = os.environ if env is None else env
    try:
        inp = parse_inputs(sys.argv[1:] if argv is None else argv, env)
        check_comment(inp.comment_file)
        ran = []
        for name, args in commands(inp):
            r = run_command(name, args)
            print(f"$ {r.shown}")
            if r.stderr:
                print(r.stderr, end="" if r.stderr.endswith("\n") else "\n")
            ran.append(r)
        code, decision = step_status(ran, inp.on_continue)
        print(annotation(ran, decision))
        write_outputs(inp, markdown(ran, decision, code), decision, code, env)
    except ActionError as err:
        print(_command("error", "passhat action", str(err)))
        print(f"passhat action: {err}", file=sys.stderr)
        return err.code
    print(f"passhat action: {decision}, exit {code}; Markdown in {inp.comment_file}")
    return code
