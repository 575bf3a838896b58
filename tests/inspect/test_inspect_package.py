"""passhat.inspect as a package: no import cost when unused, found by Inspect through its entry
point, a clear error without inspect_ai.

Oracles: ``sys.modules`` of fresh interpreters (what was imported), the installed package's
entry points (importlib.metadata) and Inspect's own registry lookups by name.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points

import pytest


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )


def _imported_after(code: str) -> set[str]:
    probe = (
        "import io, json, sys, contextlib\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    {code}\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    res = _run(probe)
    assert res.returncode == 0, res.stderr
    return set(json.loads(res.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "code",
    [
        "import passhat",
        "import passhat as ph; ph.estimate(ph.load_example('abcd'), k=2)",
        "from passhat.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass",
    ],
)
def test_passhat_and_the_cli_do_not_import_inspect(code: str) -> None:
    assert "inspect_ai" not in _imported_after(code)


def test_without_inspect_ai_a_clear_error() -> None:
    res = _run(
        "import sys\nsys.modules['inspect_ai'] = None\n"
        "import passhat.errors\n"
        "try:\n    import passhat.inspect\n"
        "except passhat.errors.DependencyError as err:\n    print('refused:', err)\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == (
        "refused: passhat.inspect needs the inspect_ai package: pip install 'passhat[inspect]'"
    )


def test_entry_point_registers_everything_by_name() -> None:
    pytest.importorskip(
        "inspect_ai", reason="inspect_ai is not installed (pip install 'passhat[inspect]')"
    )
    [ep] = [e for e in entry_points(group="inspect_ai") if e.name == "passhat"]
    assert ep.value == "passhat.inspect._registry"
    # a fresh interpreter that never imports passhat itself: Inspect loads the entry point
    res = _run(
        "from inspect_ai.scorer._reducer import create_reducers, reducer_log_name\n"
        "from inspect_ai.scorer._metric import metric_create\n"
        "from inspect_ai._util.registry import registry_info\n"
        "from inspect_ai.hooks._startup import _load_registry_hooks\n"
        "print([reducer_log_name(r) for r in create_reducers("
        "['passhat/pass_hat_2', 'passhat/pass_at_3', 'passhat/mean'])])\n"
        "print(registry_info(metric_create('passhat/interval', ci=0.9)).name)\n"
        "print([registry_info(h).name for h in _load_registry_hooks()])\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        "['passhat/pass_hat_2', 'passhat/pass_at_3', 'passhat/mean']",
        "passhat/interval",
        "['passhat/estimate']",
    ]


def test_entry_point_module_loads_no_estimator() -> None:
    pytest.importorskip(
        "inspect_ai", reason="inspect_ai is not installed (pip install 'passhat[inspect]')"
    )
    mods = _imported_after("import passhat.inspect._registry")
    assert {"scipy", "xarray", "pandas", "pymc", "matplotlib"} & mods == set()
