"""docs/guide/safety.md names, for each promise, the test that holds it: every test it names
exists (a renamed or removed test would leave a promise without its test)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "guide" / "safety.md"


def _named_tests() -> list[tuple[str, str | None]]:
    """(file, test or None) for every ``tests/…py`` and ``::test`` the page names, a bare
    ``::name`` taking the file named before it in the same cell."""
    out: list[tuple[str, str | None]] = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        current = None
        for m in re.finditer(r"`(tests/[\w/]+\.py)?(?:::(\w+))?", line):
            path, name = m.group(1), m.group(2)
            if path is None and name is None:
                continue
            current = path or current
            if current is not None:
                out.append((current, name))
    return out


def test_every_test_the_safety_page_names_exists() -> None:
    named = _named_tests()
    assert len(named) > 30
    for path, name in named:
        file = ROOT / path
        assert file.is_file(), path
        if name is not None:
            tree = ast.parse(file.read_text(encoding="utf-8"))
            defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
            assert name in defined, f"{path}::{name}"
