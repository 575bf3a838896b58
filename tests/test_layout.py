"""The source tree's shape: no import cycle among passhat's modules, no module over 600 lines.

Oracle: the import statements themselves (read with :mod:`ast`, nothing is executed), including
imports inside functions and ``importlib.import_module("passhat…")`` calls, so a cycle cannot hide
behind a late import.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "passhat"
MAX_LINES = 600


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


def test_no_module_over_the_line_limit() -> None:
    long = {
        str(p.relative_to(SRC.parent)): n
        for p in sorted(SRC.rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines (split them along their seams): {long}"
