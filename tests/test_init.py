"""The package top: every public name is listed, typed and reachable, and loads on first use.

Oracles: the ``TYPE_CHECKING`` imports of ``passhat/__init__.py`` read with :mod:`ast` (what
type checkers see) against ``_EXPORTS`` (what runs), and the objects in the defining modules
(``ph.X is module.X``).
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import passhat as ph

INIT = Path(ph.__file__)


def _type_checking_imports() -> dict[str, tuple[str, str | None]]:
    """name → (module, attribute or None for a module) from the ``if TYPE_CHECKING:`` block."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    block = next(
        n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"
    )
    found: dict[str, tuple[str, str | None]] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module is not None
        for alias in node.names:
            name = alias.asname or alias.name
            if node.module == "passhat":  # `from passhat import io`, `... planner as plan`
                found[name] = (f"passhat.{alias.name}", None)
            else:
                found[name] = (node.module, alias.name)
    return found


def test_type_checking_imports_match_the_lazy_table() -> None:
    lazy = {n: (m, n) for m, names in ph._EXPORTS.items() for n in names}
    lazy.update({n: (m, None) for n, m in ph._MODULES.items()})
    assert _type_checking_imports() == lazy


def test_every_public_name_is_listed_resolves_and_is_the_defining_object() -> None:
    where = _type_checking_imports()
    eager = {n for n in ph.__all__ if n.endswith("Error")}
    assert set(ph.__all__) == set(where) | eager
    assert set(ph.__all__) <= set(dir(ph))
    for name, (module, attr) in where.items():
        mod = importlib.import_module(module)
        assert getattr(ph, name) is (mod if attr is None else getattr(mod, attr)), name


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        ph.no_such_name  # noqa: B018
    except AttributeError as err:
        assert "no_such_name" in str(err)
    else:  # pragma: no cover - the assertion below reports it
        raise AssertionError("ph.no_such_name did not raise")


def test_functions_named_like_their_module_stay_functions_whatever_loads_first() -> None:
    # passhat.estimate, .compare, .slices, .spread, .report are modules and functions;
    # importing the modules first (as the CLI and the report do) must not shadow the functions.
    code = (
        "import passhat as ph\n"
        "import passhat.estimate, passhat.compare.paired, passhat.slices, passhat.spread\n"
        "import passhat.report.build\n"
        "from passhat import compare, report\n"
        "names = ['estimate', 'compare', 'slices', 'spread', 'report']\n"
        "assert all(callable(getattr(ph, n)) for n in names), [getattr(ph, n) for n in names]\n"
        "assert callable(compare) and callable(report)\n"
        "from passhat.estimate import Estimate\n"
        "assert ph.Estimate is Estimate\n"
        "print('ok')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


def test_dir_lists_the_public_api_only() -> None:
    """``dir(passhat)`` is what a user may call: ``__all__``, without the module's machinery."""
    assert dir(ph) == sorted(ph.__all__)
    for machinery in ("TYPE_CHECKING", "annotations", "lazy_exports", "_EXPORTS"):
        assert machinery not in dir(ph)


def test_help_is_a_users_page() -> None:
    """``help(passhat)`` says what passhat does, names the entry points and where the docs are;
    no implementation talk (PEP 562, test files)."""
    doc = ph.__doc__ or ""
    for entry in ("read(path)", "estimate(", "compare(", "rank(", "fit(", "report(", "plan"):
        assert entry in doc, entry
    assert "docs/" in doc and "passhat --help" in doc
    assert "PEP 562" not in doc and "tests/" not in doc
