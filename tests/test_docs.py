"""The documentation: the Sphinx site builds with warnings as errors, the API reference lists
every public name, and the README stays a front page whose links resolve."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import passhat as ph

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
API_PAGE = DOCS / "api" / "index.rst"
README = ROOT / "README.md"
README_LIMIT = 15_000  # bytes: the manual lives in docs/


@pytest.mark.integration  # a minute of Sphinx (make integration)
def test_site_builds_without_warnings(tmp_path: Path) -> None:
    """`make docs` in a temporary output folder: any Sphinx warning fails (-W)."""
    pytest.importorskip("sphinx", reason="the docs need the docs extra: pip install -e '.[docs]'")
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    env.pop("PASSHAT_DOCS_INTERSPHINX", None)  # offline: no inventories fetched
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, f"sphinx-build failed:\n{proc.stderr[-6000:]}"
    html = tmp_path / "html"
    for page in ("index", "guide/numbers", "guide/cli", "api/index", "evidence"):
        assert (html / f"{page}.html").exists(), page
    # the notebooks are rendered with their committed outputs, not as bare code
    quickstart = (html / "examples" / "01-quickstart.html").read_text(encoding="utf-8")
    assert "what a uniform spread would give" in quickstart
    # the API reference documents the public names where users reach them
    assert (html / "api" / "generated" / "passhat.plan.design.html").exists()
    assert (html / "api" / "generated" / "passhat.estimate.html").exists()


def _public(namespace: object) -> list[str]:
    """Functions and classes a namespace exports (constants and sub-namespaces excluded)."""
    names = getattr(namespace, "__all__", [])
    return [n for n in names if not n.startswith("_") and callable(getattr(namespace, n))]


def test_api_reference_lists_every_public_name() -> None:
    text = API_PAGE.read_text(encoding="utf-8")
    listed = set(re.findall(r"^\s{3}([A-Za-z_][\w.]*)\s*$", text, flags=re.MULTILINE))
    wanted = [n for n in _public(ph) if n not in {"io", "plan"}]
    wanted += [f"plan.{n}" for n in _public(ph.plan)]
    wanted += [f"io.{n}" for n in _public(ph.io) if n not in _public(ph)]  # ph.read is ph.io.read
    missing = [n for n in wanted if n not in listed]
    assert not missing, f"add these public names to {API_PAGE.relative_to(ROOT)}: {missing}"


def test_readme_is_a_front_page() -> None:
    size = README.stat().st_size
    assert size < README_LIMIT, f"README.md is {size} bytes; move detail to docs/ (< 15 KB)"
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(((?!https?://|#)[^)#\s]+)", text)
    assert targets, "the README links into the docs"
    broken = [t for t in targets if not (ROOT / t).exists()]
    assert not broken, f"README links to missing files: {broken}"
