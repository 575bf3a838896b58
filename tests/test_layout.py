"""The source tree's shape: no import cycle among passhat's modules, no hidden import, and
functions, not files, as the unit kept small (≤ 100 body lines, ≤ 15 parameters); modules are
split by concept, whatever their length.

Oracle: the source itself, read with :mod:`ast` (nothing is executed), including imports inside
functions and ``importlib.import_module("passhat…")`` calls, so a cycle cannot hide behind a late
import.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "passhat"


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Edges module → passhat modules it imports (the package top ``passhat`` excluded)."""
    mods = {_module(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute | ast.Name)
                and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                names = [node.args[0].value]
            graph[m] |= {n for n in names if n in mods and n not in (m, "passhat")}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found: list[list[str]] = []
    seen: set[str] = set()

    def dfs(u: str, path: list[str]) -> None:
        seen.add(u)
        path.append(u)
        for v in sorted(graph[u]):
            if v in path:
                found.append([*path[path.index(v) :], v])
            elif v not in seen:
                dfs(v, path)
        path.pop()

    for m in sorted(graph):
        if m not in seen:
            dfs(m, [])
    return found


def test_cycle_finder_finds_a_planted_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_src() -> None:
    graph = import_graph()
    assert len(graph) > 40  # the walk found the package
    cycles = find_cycles(graph)
    assert not cycles, "import cycles: " + "; ".join(" → ".join(c) for c in cycles)


# ------------------------------------------------------ functions are the unit
#: Longest function body, in lines (the docstring, decorators and signature not counted).
MAX_BODY_LINES = 100
#: Most parameters of a function; a CLI command function takes its parsed options and is exempt.
MAX_PARAMS = 15


def _functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found = []
    for p in sorted(SRC.rglob("*.py")):
        rel = str(p.relative_to(SRC.parent))
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((rel, node))
    return found


def _body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = node.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return (body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1 if body else 0


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = node.args
    return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)


def _is_command(rel: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A click command function of passhat.commands (decorated with ``@command``/``@click.command``
    or a group's ``.command``)."""
    if not rel.startswith("passhat/commands/"):
        return False
    return any("command" in ast.unparse(d) for d in node.decorator_list)


def test_no_function_over_the_body_limit() -> None:
    long = [
        f"{rel}:{node.lineno} {node.name} ({n} lines)"
        for rel, node in _functions()
        if (n := _body_lines(node)) > MAX_BODY_LINES
    ]
    assert not long, f"functions over {MAX_BODY_LINES} lines (one question each): {long}"


def test_no_function_with_too_many_parameters() -> None:
    wide = [
        f"{rel}:{node.lineno} {node.name} ({n} parameters)"
        for rel, node in _functions()
        if (n := _params(node)) > MAX_PARAMS and not _is_command(rel, node)
    ]
    assert not wide, f"functions with over {MAX_PARAMS} parameters (group them in a type): {wide}"


def _hidden_imports(source: str) -> list[str]:
    """Imports that an import statement does not show: ``importlib.import_module``,
    ``__import__``, and modules looked up in ``sys.modules``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in ("import_module", "__import__"):
                out.append(f"{node.lineno}: {ast.unparse(node)[:80]}")
        if isinstance(node, ast.Attribute) and node.attr == "modules":
            if isinstance(node.value, ast.Name) and node.value.id == "sys":
                out.append(f"{node.lineno}: {ast.unparse(node)[:80]}")
    return out


def test_hidden_import_finder_finds_each_kind() -> None:
    code = (
        "import importlib, sys\n"
        "importlib.import_module('passhat.fit')\n"
        "__import__('passhat')\n"
        "sys.modules.get('passhat')\n"
        "from passhat import fit\n"
    )
    assert [h.split(":")[0] for h in _hidden_imports(code)] == ["2", "3", "4"]


def test_no_hidden_import_in_src() -> None:
    """Every import is an import statement, so the layout (and this file's cycle check) sees
    it; the package's own lazy loader (``_lazy.py``) is the one exception."""
    hidden = {
        str(p.relative_to(SRC.parent)): h
        for p in sorted(SRC.rglob("*.py"))
        if p.name != "_lazy.py" and (h := _hidden_imports(p.read_text(encoding="utf-8")))
    }
    assert not hidden, f"imports hidden from the layout: {hidden}"
