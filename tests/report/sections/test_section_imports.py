"""The report's sections compute nothing: they import no module that computes, and take no
seed, interval level or resample count (issue 27: "sections are pure functions results →
Section").

Oracle: the sections' source, parsed with ``ast`` (every ``import`` anywhere in a module,
inside functions and ``if TYPE_CHECKING:`` blocks too), against the list below of the
modules that compute. Result and text modules of a computing package (``rank/result.py``,
``spread/sentences.py``) are allowed: they hold what a computation returned and words about
it. The checker itself is checked on sources that break each rule.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import passhat
from passhat.report import sections

SECTIONS = Path(sections.__file__).parent

#: Modules (and packages: every module under them) that compute. A section may import none.
COMPUTE_MODULES = (
    "passhat.estimate",
    "passhat.estimators",
    "passhat.bootstrap",
    "passhat.intervals",
    "passhat.scopes",
    "passhat.hierarchical",
    "passhat.signflip",
    "passhat.signflip_shared",
    "passhat._kernels",
    "passhat.betabinom",
    "passhat.exclusions",
    "passhat.compare",
    "passhat.rank",
    "passhat.model",
    "passhat.planner",
    "passhat.slices",
    "passhat.spread",
    "passhat.traces",
    "passhat.io",
    "passhat.report.build",
    "passhat.report.figure_data",
    "passhat.report.plots",
    "passhat.report.plots_rank",
    "scipy",
    "statsmodels",
    "pymc",
    "pytensor",
    "arviz",
    "nutpie",
    "numba",
)

#: Module names that mark a result or text module inside a computing package
#: (``passhat.rank.result``, ``passhat.spread.sentences``), and what they hold.
RESULT_OR_TEXT = ("result", "results", "sentences", "text", "estimate_result")

#: Parameters a section may not take: the report's computation settings.
SETTINGS = ("seed", "ci", "n_boot")


def _imported(tree: ast.AST, package: str) -> list[tuple[int, str]]:
    """(line, module) of every import in the tree; ``from a import b`` gives ``a`` and ``a.b``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the section's own package
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out.append((node.lineno, base))
            out += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return out


def _computes(module: str) -> bool:
    if any(part in RESULT_OR_TEXT for part in module.split(".")):
        return False
    return any(module == m or module.startswith(m + ".") for m in COMPUTE_MODULES)


def compute_imports(source: str, package: str = "passhat.report.sections") -> list[str]:
    """The imports of compute modules in a section's source, as ``line: module``."""
    tree = ast.parse(source)
    return sorted(
        {f"{line}: {module}" for line, module in _imported(tree, package) if _computes(module)}
    )


def setting_parameters(source: str) -> list[str]:
    """Functions of a section's source that take a seed, an interval level or a resample
    count, as ``function(parameter)``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
            out += [f"{node.name}({n})" for n in names if n in SETTINGS]
    return out


def _modules() -> list[Path]:
    return sorted(SECTIONS.glob("*.py"))


def test_every_section_module_is_checked() -> None:
    names = {p.stem for p in _modules()}
    assert {"data", "headline", "comparison", "leaderboard", "spread", "model"} <= names
    assert {"flaky", "plan", "divergence", "summary", "__init__"} <= names


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_a_section_imports_no_compute_module(path: Path) -> None:
    assert compute_imports(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_a_section_takes_no_seed_level_or_resamples(path: Path) -> None:
    assert setting_parameters(path.read_text(encoding="utf-8")) == []


def test_each_section_is_a_function_of_the_results() -> None:
    from passhat.report.sections import (
        data,
        divergence,
        flaky,
        headline,
        leaderboard,
        model,
        plan,
        spread,
        summary,
    )

    for module in (data, divergence, flaky, headline, leaderboard, model, plan, spread):
        name = module.__name__.rsplit(".", 1)[-1]
        params = list(inspect.signature(getattr(module, f"{name}_section")).parameters)
        assert params == ["results"], (name, params)
    assert list(inspect.signature(summary.summary_section).parameters) == ["sections", "results"]


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from passhat.compare import compare",
         ["1: passhat.compare", "1: passhat.compare.compare"]),
        ("import passhat.planner", ["1: passhat.planner"]),
        ("from passhat import estimate", ["1: passhat.estimate"]),
        ("from passhat.model.fit import fit", ["1: passhat.model.fit", "1: passhat.model.fit.fit"]),
        ("def f():\n    from scipy import stats", ["2: scipy", "2: scipy.stats"]),
        ("import typing\nif typing.TYPE_CHECKING:\n    from passhat.slices import Slices",
         ["3: passhat.slices", "3: passhat.slices.Slices"]),
        ("from ..build import compute_results", ["1: passhat.report.build",
                                                  "1: passhat.report.build.compute_results"]),
        ("from passhat.rank.result import Ranking", []),
        ("from passhat.spread.sentences import describe_parts", []),
        ("from passhat.estimate_result import Estimate", []),
        ("from passhat.report.results import ReportResults", []),
        ("from passhat._format import pct", []),
    ],
)  # fmt: skip
def test_the_checker_finds_each_kind_of_import(source: str, found: list[str]) -> None:
    assert compute_imports(source) == found


def test_the_checker_finds_setting_parameters() -> None:
    source = "def a(results, *, ci=None): ...\ndef b(x, seed, n_boot=10): ...\ndef c(results): ..."
    assert setting_parameters(source) == ["a(ci)", "b(seed)", "b(n_boot)"]


def test_the_compute_modules_listed_exist() -> None:
    """A renamed module would make its line in the list silently match nothing."""
    root = Path(passhat.__file__).parent
    for name in COMPUTE_MODULES:
        if not name.startswith("passhat."):
            continue
        rel = Path(*name.split(".")[1:])
        assert (root / f"{rel}.py").is_file() or (root / rel / "__init__.py").is_file(), name
