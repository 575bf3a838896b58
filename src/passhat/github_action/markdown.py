"""The Action's Markdown: passhat's ``--json`` documents as tables for a job summary or a comment.

One function per document (``passhat gate``, ``passhat compare``, ``passhat estimate``), each
reading only the document's keys, so that this module is the one place to change when the
commands print Markdown themselves. Names from the data (systems, the gate's words) are
escaped: a ``|`` or ``<`` in a system name cannot break the table or inject HTML.

Examples
--------
>>> print(table(["system", "value"], [[escape("a|b"), "0.5"]]))
| system | value |
|---|---|
| a\\|b | 0.5 |
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from typing import Any

__all__ = [
    "MARKER",
    "comparison_markdown",
    "error_markdown",
    "escape",
    "estimate_markdown",
    "gate_markdown",
    "notes_markdown",
    "provenance_markdown",
    "table",
]

#: The first line of every comment file the Action writes (how it knows the file is its own).
MARKER = "<!-- passhat-action -->"

_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_LINE_START = re.compile(r"^([#>+=-])")
_LIST_NUMBER = re.compile(r"^(\d+)([.)])")
_LABELS = {"mean": "mean", "pass_at_k": "pass@{k}", "pass_hat_k": "pass^{k}"}


def escape(value: object) -> str:
    """Text for a Markdown cell or line: HTML escaped, Markdown's emphasis, code, link and table
    characters backslashed (and a heading, quote or list mark at its start), line breaks as
    spaces, control characters dropped.

    Examples
    --------
    >>> print(escape("<b>x_y</b>|*"))
    &lt;b&gt;x\\_y&lt;/b&gt;\\|\\*
    >>> print(escape("# not a heading (but text)"))
    \\# not a heading (but text)
    >>> print(escape("1. not a list"))
    1\\. not a list
    """
    text = "".join(ch if ch.isprintable() else " " for ch in str(value))
    text = _SPECIAL.sub(r"\\\1", html.escape(text, quote=False))
    return _LIST_NUMBER.sub(r"\1\\\2", _LINE_START.sub(r"\\\1", text))


def table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table; cells are used as given (escape names first)."""
    head = "| " + " | ".join(columns) + " |"
    sep = "|" + "|".join("---" for _ in columns) + "|"
    return "\n".join([head, sep, *("| " + " | ".join(r) + " |" for r in rows)])


def _num(x: object, digits: int = 3, *, sign: bool = False) -> str:
    if not isinstance(x, int | float) or isinstance(x, bool) or not math.isfinite(x):
        return "—"
    text = f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"
    return text.replace("-0.000", "0.000").replace("+0.000", "0.000")


def _interval(row: dict[str, Any], *, sign: bool = False, digits: int = 3) -> str:
    lower, upper = (_num(row.get(side), digits, sign=sign) for side in ("lower", "upper"))
    return f"[{lower}, {upper}]"


def _label(metric: str, k: object) -> str:
    return _LABELS.get(metric, metric).format(k=k)


def _pct(x: object) -> str:
    return f"{100 * x:.2f}%" if isinstance(x, int | float) and math.isfinite(x) else "—"


_ICON = {"pass": "✅", "fail": "❌", "continue": "⏳"}


def gate_markdown(doc: dict[str, Any]) -> str:
    """``passhat gate --json``: the decision, the gate's own reasoning, its numbers."""
    g = doc["gate"]
    bound = g["mode"] == "bound"

    def value(x: object) -> str:
        return _pct(x) if bound else _num(x, 4, sign=True)

    level = f"{1 - g['alpha']:.0%}"
    rows = [
        ["estimand", escape(g["estimand"])],
        ["estimate", value(g["estimate"])],
        [f"{level} anytime bounds", f"{value(g['lower'])} … {value(g['upper'])}"],
        [
            "e-value for pass / fail",
            f"{g['e_pass']:.3g} / {g['e_fail']:.3g} (decide at {g['threshold']:g})",
        ],
        ["complete rounds", f"{g['rounds']} × {g['tasks']} task(s) × {g['k']} run(s)"],
        ["runs used / set aside", f"{g['runs_used']} / {g['runs_set_aside']}"],
    ]
    rows += _reached_rows(g)
    if g.get("further_runs") is not None:
        rows.append(["further runs to decide", f"{g['further_runs']} ({escape(g['projected'])})"])
    parts = [
        f"### {_ICON.get(g['decision'], '')} passhat gate: **{g['decision']}** "
        f"(exit {g['exit_code']})",
        escape(g["reasoning"]),
        table(["quantity", "value"], rows),
    ]
    parts += [f"> note: {escape(w)}" for w in g.get("warnings", [])]
    return "\n\n".join(parts)


def _reached_rows(g: dict[str, Any]) -> list[list[str]]:
    """Rows on rounds not every task has completed (the gate counts their incomplete blocks
    against each decision), as ``passhat gate`` prints them; none when every task has them."""
    reached = g.get("rounds_reached")
    if not isinstance(reached, int) or reached <= g["rounds"]:
        return []
    reruns = g.get("reruns") or []
    need = sum(int(r.get("runs", 0)) for r in reruns)
    return [
        [
            "rounds with every decided run",
            f"{reached} (incomplete blocks count against each decision)",
        ],
        [f"runs to complete round {reached}", f"{need} on {len(reruns)} task(s) (reruns)"],
    ]


def _methods(rows: Sequence[dict[str, Any]], key: str = "method") -> list[str]:
    """Each scope's method(s), once: how every interval was computed."""
    seen: dict[tuple[str, str], None] = {}
    for r in rows:
        if r.get(key):
            seen[(str(r.get("scope", "")), str(r[key]))] = None
    return [f"{escape(scope)}: {escape(m)}" for scope, m in seen]


def comparison_markdown(doc: dict[str, Any]) -> str:
    """``passhat compare --json``: candidate − baseline per metric and scope, with intervals."""
    rows = doc["comparison"]
    ci = doc.get("settings", {}).get("ci", 0.95)
    shown = _once(rows)
    body = [
        [
            escape(r["candidate"]),
            escape(r["baseline"]),
            _label(r["metric"], r["k"]),
            escape(r["scope"]),
            _num(r["base_value"]),
            _num(r["cand_value"]),
            _num(r["difference"], sign=True),
            _interval(r, sign=True),
            _p(r.get("p_value")),
        ]
        for r in shown
    ]
    cols = ["candidate", "baseline", "metric", "scope", "baseline value", "candidate value",
            "difference", f"{ci:.0%} interval", "p"]  # fmt: skip
    parts = ["### passhat compare: candidate − baseline on matched tasks", table(cols, body)]
    if any(r["k"] == 1 and r["metric"] != "mean" for r in rows):
        parts.append("k = 1: pass@1 and pass^1 equal the mean (their rows are the mean's).")
    parts.append(_scopes_text() + "\n" + "\n".join(f"- {m}" for m in _methods(shown)))
    return "\n\n".join(parts + notes_markdown(doc))


def _once(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows to show: the mean once per pair and scope (it does not depend on k), no
    pass@1 / pass^1 (they equal the mean)."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for r in rows:
        if r["metric"] == "mean":
            key = (str(r["candidate"]), str(r["baseline"]), str(r["scope"]))
            if key in seen:
                continue
            seen.add(key)
        elif r["k"] == 1:
            continue
        out.append(r)
    return out


def _p(p: object) -> str:
    if not isinstance(p, int | float) or not math.isfinite(p):
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _scopes_text() -> str:
    return (
        "Scopes: *benchmark* = these tasks, uncertain only through their finite runs; "
        "*population* = tasks like these (adds which tasks were drawn). Methods:"
    )


def estimate_markdown(doc: dict[str, Any]) -> str:
    """``passhat estimate --ci … --json``: each system's values with both scopes' intervals."""
    rows = doc["estimates"]
    ci = doc.get("settings", {}).get("ci", 0.95)
    by_key: dict[tuple[str, int, str], dict[str, Any]] = {}
    for r in rows:
        key = (str(r["system"]), int(r["k"]), str(r["metric"]))
        by_key.setdefault(key, {"value": r["value"], "tasks": r["tasks"]})[r.get("scope", "")] = r
    runs = {str(r["system"]): f"{r['runs']} ({r['unscored']})" for r in doc.get("summary", [])}
    body, means = [], set()
    for (system, k, metric), cell in by_key.items():
        if metric == "mean":  # one row per system: the mean does not depend on k
            if system in means:
                continue
            means.add(system)
        elif k == 1:  # pass@1 = pass^1 = the mean
            continue
        body.append(
            [
                escape(system),
                str(cell["tasks"]),
                runs.get(system, "—"),
                _label(metric, k),
                _num(cell["value"]),
                _interval(cell["benchmark"]) if "benchmark" in cell else "—",
                _interval(cell["population"]) if "population" in cell else "—",
            ]
        )
    cols = ["system", "tasks", "runs (unscored)", "metric", "value", f"benchmark {ci:.0%}",
            f"population {ci:.0%}"]  # fmt: skip
    methods = "\n".join(f"- {m}" for m in _methods(rows))
    parts = ["### passhat estimate", table(cols, body), _scopes_text() + "\n" + methods]
    return "\n\n".join(parts + notes_markdown(doc))


def _describe(item: object) -> str:
    """One excluded or dropped entry of a document: its fields as ``key: value``."""
    if isinstance(item, dict):
        return "; ".join(f"{k}: {v}" for k, v in item.items())
    return str(item)


def notes_markdown(doc: dict[str, Any]) -> list[str]:
    """A document's notes, and every task or row it dropped or excluded, one quote each:
    nothing left out of a table goes unsaid.

    Examples
    --------
    >>> doc = {"notes": ["2 runs unscored"], "dropped": [{"task_id": "t|1", "why": "x"}]}
    >>> print("\\n".join(notes_markdown(doc)))
    > note: 2 runs unscored
    > dropped: task\\_id: t\\|1; why: x
    """
    out = [f"> note: {escape(n)}" for n in doc.get("notes") or []]
    for key in ("dropped", "excluded"):
        out += [f"> {key}: {escape(_describe(item))}" for item in doc.get(key) or []]
    return out


def provenance_markdown(docs: Sequence[dict[str, Any]]) -> str:
    """What the numbers came from: passhat's version, each input file with its SHA-256, and
    the resamples and seed of the intervals (from the documents' headers and settings).

    Examples
    --------
    >>> doc = {"passhat_version": "0.1.0", "settings": {"n_boot": 100, "seed": 0},
    ...        "input": {"path": "r.csv", "format": "csv", "sha256": "ab12"}}
    >>> print(provenance_markdown([doc]))
    - passhat 0.1.0
    - input r.csv (csv), SHA-256 ab12
    - intervals: 100 resamples or posterior draws, seed 0
    """
    versions = {str(d["passhat_version"]) for d in docs if d.get("passhat_version")}
    lines = [f"passhat {', '.join(sorted(versions))}"] if versions else []  # passhat's own
    seen: dict[tuple[str, str], str] = {}
    for d in docs:
        inp = d.get("input") or {}
        for f in [inp] if "path" in inp else inp.values():
            if isinstance(f, dict) and f.get("path"):
                seen.setdefault((str(f["path"]), str(f.get("sha256"))), str(f.get("format")))
    lines += [
        f"input {escape(p)} ({escape(fmt)}), SHA-256 {escape(h)}" for (p, h), fmt in seen.items()
    ]
    for d in docs:
        st = d.get("settings") or {}
        if "n_boot" in st and "seed" in st:
            lines.append(
                f"intervals: {st['n_boot']} resamples or posterior draws, seed {st['seed']}"
            )
            break
    return "\n".join(f"- {line}" for line in lines)


def error_markdown(command: str, code: int, message: str) -> str:
    """A command that failed: its command line, exit status and message."""
    text = escape(message.strip() or "(no message)")
    return f"### ⚠️ {escape(command)} exited {code}\n\n{text}"
