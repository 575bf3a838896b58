"""``action.yml`` at the repository root: it parses, is a composite action, references only the
inputs and steps it declares, passes exactly the options ``python -m passhat.github_action``
takes, and its gate step, run by bash as GitHub runs it (the ``${{ }}`` expressions of its
``env`` resolved from the inputs' defaults and the given values), maps the gate's decisions to
the step's exit status. The install step (``pip install``, network) is checked for shape only.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # PyYAML: in the test extra

from passhat.github_action.run import _parser

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
EXPR = re.compile(r"\$\{\{(.*?)\}\}")
BASH = shutil.which("bash")


@pytest.fixture(scope="module")
def action() -> dict[str, Any]:
    doc = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def _expressions(node: Any) -> list[str]:
    """Every ``${{ … }}`` expression in the document (and every step's ``if``)."""
    if isinstance(node, dict):
        out = [node["if"]] if isinstance(node.get("if"), str) else []
        return out + [e for v in node.values() for e in _expressions(v)]
    if isinstance(node, list):
        return [e for v in node for e in _expressions(v)]
    return [m.strip() for m in EXPR.findall(node)] if isinstance(node, str) else []


def test_it_is_a_composite_action_with_the_issues_inputs(action: dict[str, Any]) -> None:
    assert action["name"] and action["description"]
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    # the issue's inputs; its "confidence" is passhat's ci (the level's name everywhere)
    for name in ("files", "baseline", "k", "margin", "ci", "python-version"):
        assert name in inputs and inputs[name]["description"]
    assert inputs["files"]["required"] is True
    assert set(action["outputs"]) == {"decision", "exit-code", "comment-file"}
    for step in action["runs"]["steps"]:
        assert ("run" in step) != ("uses" in step)
        if "run" in step:
            assert step["shell"] == "bash"
            assert "${{" not in step["run"]  # inputs reach the script through env only


def test_it_references_only_what_it_declares_and_uses_every_input(
    action: dict[str, Any],
) -> None:
    used_inputs, ids = set(), [s.get("id") for s in action["runs"]["steps"]]
    for expr in _expressions(action):
        used_inputs |= set(re.findall(r"\binputs\.([A-Za-z0-9_-]+)", expr))
        for step_id, output in re.findall(r"\bsteps\.([\w-]+)\.outputs\.([\w-]+)", expr):
            assert step_id in ids, f"{expr}: no step {step_id}"
            if step_id == "passhat":
                assert output in {"decision", "exit-code", "comment-file"}
    assert used_inputs == set(action["inputs"])


def test_the_gate_step_passes_exactly_the_scripts_options(action: dict[str, Any]) -> None:
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "passhat")
    passed = set(
        re.findall(r"(--[a-z-]+)=\"\$", step["run"])
    )  # --opt="$VALUE": a value may start with -
    options = {o for a in _parser()._actions for o in a.option_strings if o.startswith("--")}
    assert passed == options - {"--help"}
    assert "-m passhat.github_action" in step["run"]


def _resolve(expr: str, inputs: dict[str, str], steps: dict[str, str]) -> str:
    """A GitHub expression of the forms this action uses: ``a || b`` of ``inputs.X``,
    ``steps.ID.outputs.Y`` and ``github.action_path``."""
    for term in (t.strip() for t in expr.split("||")):
        if term.startswith("inputs."):
            value = inputs[term.removeprefix("inputs.")]
        elif term.startswith("steps."):
            value = steps[term]
        elif term == "github.action_path":
            value = str(ROOT)
        else:
            raise AssertionError(f"an expression this test does not know: {term}")
        if value:
            return value
    return ""


def _run_gate_step(
    action: dict[str, Any], given: dict[str, str], tmp_path: Path
) -> tuple[int, dict[str, str], str]:
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs.update(given)
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "passhat")
    steps = {"steps.install.outputs.python": sys.executable}
    env = {
        k: EXPR.sub(lambda m: _resolve(m.group(1), inputs, steps), v)
        for k, v in step["env"].items()
    }
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    summary.touch()
    output.touch()
    env |= {
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "RUNNER_TEMP": str(tmp_path),
        "PATH": "/usr/bin:/bin",
        **{k: os.environ[k] for k in ("HOME", "PYTENSOR_FLAGS") if k in os.environ},
    }
    proc = subprocess.run(
        [BASH, "-e", "-c", step["run"]], env=env, capture_output=True, text=True, check=False
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return proc.returncode, outputs, summary.read_text()


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_the_gate_step_run_by_bash_maps_the_decision_to_its_status(
    action: dict[str, Any], runs_dir: Path, tmp_path: Path
) -> None:
    given = {"files": str(runs_dir / "cand.csv"), "max-failure-rate": "0.01", "k": "2"}
    code, outputs, summary = _run_gate_step(action, given, tmp_path)
    assert (code, outputs["decision"], outputs["exit-code"]) == (1, "fail", "1")
    assert Path(outputs["comment-file"]) == (tmp_path / "passhat-comment.md").resolve()
    assert "passhat gate: **fail** (exit 1)" in summary
    assert "$ passhat gate " in summary and "--alpha 0.05" in summary  # ci 0.95
