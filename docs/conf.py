"""Sphinx configuration of passhat's documentation (``make docs``).

The site is built with warnings as errors (``sphinx-build -W --keep-going``) by ``make docs``
and by ``tests/test_docs.py``. Notebooks are rendered from their committed outputs (never
executed here: ``make notebooks`` refreshes them, and the test suite checks they are current).
Intersphinx needs the network, which a build may not have: it is enabled only when
``PASSHAT_DOCS_INTERSPHINX=1`` or when local inventories sit in ``docs/_inventories/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import passhat

DOCS = Path(__file__).resolve().parent

# -- project -------------------------------------------------------------------------------
project = "passhat"
author = "the passhat developers"
copyright = "passhat developers, MIT licence"
release = passhat.__version__
version = ".".join(release.split(".")[:2])

# -- extensions ----------------------------------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "sphinx_click",
    "sphinx_copybutton",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "execute_notebooks.py"]
templates_path = ["_templates"]

# -- autodoc / autosummary / numpydoc ------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
autodoc_default_options = {"member-order": "bysource"}
numpydoc_show_class_members = False  # members are listed by the class template
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()  # formatting is checked by the build, not style
numpydoc_xref_param_type = False

# -- notebooks and MyST --------------------------------------------------------------------
nb_execution_mode = "off"  # render the committed outputs; the tests execute the notebooks
nb_merge_streams = True
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath", "substitution"]
myst_heading_anchors = 3

# -- intersphinx (offline unless asked) ----------------------------------------------------
_INVENTORIES = {
    "python": "https://docs.python.org/3",
    "numpy": "https://numpy.org/doc/stable",
    "scipy": "https://docs.scipy.org/doc/scipy",
    "pandas": "https://pandas.pydata.org/docs",
    "xarray": "https://docs.xarray.dev/en/stable",
    "arviz": "https://python.arviz.org/en/stable",
    "pymc": "https://www.pymc.io/projects/docs/en/stable",
    "statsmodels": "https://www.statsmodels.org/stable",
}
_ONLINE = os.environ.get("PASSHAT_DOCS_INTERSPHINX") == "1"
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}
for _name, _url in _INVENTORIES.items():
    _local = DOCS / "_inventories" / f"{_name}.inv"
    if _local.exists():
        intersphinx_mapping[_name] = (_url, str(_local))
    elif _ONLINE:
        intersphinx_mapping[_name] = (_url, None)
intersphinx_timeout = 10

# -- HTML ----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"passhat {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
html_sidebars = {"index": [], "evidence": [], "development": []}  # single pages: no section nav
