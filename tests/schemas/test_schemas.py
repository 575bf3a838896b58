"""The published JSON Schemas (passhat.schemas): every command's ``--json`` and ``results.json``
validate against the schema their ``schema`` key names, and the schemas bite.

Each command runs in-process (passhat.cli.main) on the bundled examples with small settings;
its stdout is parsed and validated with jsonschema's Draft 2020-12 validator. The schemas were
written from the ``to_dict`` code (required keys, types, the values of metric, scope, verdict,
decision), not generated from these outputs; the mutation test checks that a renamed metric,
a missing key, a wrong type or another schema_version is refused, and that an added key is
not (the ``schema_version`` policy).
"""

from __future__ import annotations

import copy
import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import passhat
from passhat import schemas
from passhat._result import Result
from passhat.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "src" / "passhat" / "schemas"
AGENTS = str(ROOT / "src" / "passhat" / "examples" / "agents.csv")

#: Command lines covering every --json document and each of its forms (fast settings; "{agents}"
#: is the bundled agents.csv, given as a file).
COMMANDS: dict[str, str] = {
    "estimate": "estimate --example agents --k 1,2 --json",
    "estimate_ci_per_task": "estimate --example agents --ci 0.9 --n-boot 100 --predictive 50 "
    "--per-task --json",
    "estimate_exclusions": "estimate --example abcd --k 2,5 --min-runs 5 --json",
    "estimate_grader": "estimate --example agents --k 1,2 --grader-audit 95,5,90,10 --ci 0.9 "
    "--n-boot 100 --per-task --json",
    "estimate_grader_stated": "estimate --example abcd --k 2 --grader-sensitivity 0.9 "
    "--grader-specificity 0.9 --json",
    "compare": "compare --example agents --k 1,2 --n-boot 100 --json",
    "compare_many": "compare --example leaderboard --baseline baseline --k 2 --n-boot 100 --json",
    "compare_cost": "compare --example agents --cost --k 1,2 --n-boot 100 --json",
    "classify": "compare --example agents --classify --fail-on flaky --json",
    "rank": "rank --example leaderboard --k 1,2 --n-boot 100 --json",
    "rank_by": "rank --example leaderboard --k 1,2 --n-boot 100 --by category --json",
    "compare_by": "compare --example agents --k 1,2 --n-boot 100 --by category --json",
    "fit": "fit --example abcd --method grid --k 1,2 --draws 100 --chains 2 --json",
    "gate": "gate --example agents --system guided --max-failure-rate 0.3 --json",
    "gate_baseline": "gate --example agents --system guided --baseline-system baseline "
    "--margin 0.05 --json",
    "slices": "slices --example agents --json",
    "spread": "spread --example agents --k 1,2 --n-boot 100 --json",
    "spread_summary": "spread --mean 0.774 --pass-hat 0.53 --k 5 --json",
    "spread_unexplained": "spread --mean 0.5 --pass-hat 0.2 --k 2 --json",
    "traces": "traces --example tau-airline --json",
    "plan_detect": "plan detect --flip-rate 0.1 --json",
    "plan_bound": "plan bound --runs 20 --failures 1 --json",
    "plan_certify": "plan certify --max-failure-rate 0.05 --json",
    "plan_width": "plan width --half-width 0.1 --rate 0.8 --json",
    "plan_retry": "plan retry --rate 0.8 --attempts 3 --json",
    "plan_table": "plan table --json",
    "plan_audit": "plan audit --grader-sensitivity 0.9 --grader-specificity 0.85 --mean 0.6 "
    "--k 2 --grader-share 0.2 --other-half-width 0.05 --json",
    "plan_design": "plan design --budget-runs 300 --mean 0.6 --icc 0.3 --json",
    "plan_design_check": "plan design --budget-runs 100 --mean 0.6 --icc 0.3 --check 5 "
    "--scheduler synchronous --json",
    "plan_design_money": "plan design --budget-cost 20 --from {agents} --system guided --k 2 "
    "--json",
    "plan_power": "plan power --delta 0.05 --runs-per-task 5 --power 0.8 --mean 0.6 --icc 0.3 "
    "--json",
    "plan_power_pilot": "plan power --example agents --delta 0.05 --runs-per-task 5 --power 0.8 "
    "--json",
    "plan_power_designs": "plan power --delta 0.05 --power 0.8 --mean 0.6 --icc 0.3 --json",
    "plan_power_grid": "plan power --delta 0.1 --grid-tasks 25 --grid-runs 3,5 --scheduler "
    "synchronous --replicates 20 --mean 0.6 --icc 0.3 --json",
    "plan_more_runs": "plan more-runs --example abcd --k 2 --runs 1,2 --simulations 10 --json",
    "plan_next": "plan next --example agents --system guided --budget 30 --json",
    "plan_next_money": "plan next --example agents --system guided --budget-cost 3 --json",
    "plan_next_population": "plan next --example agents --system guided --budget 30 "
    "--scope population --json",
    "plan_next_prior": "plan next --example agents --system guided --budget 30 "
    "--prior-from {agents} --prior-system baseline --json",
}


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    """Run a command in-process and parse its JSON document (exit 0, 1 or 3: it decided)."""
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc in (0, 1, 3), (rc, err)
    doc: dict[str, Any] = json.loads(out)
    return doc


def check(doc: dict[str, Any]) -> None:
    """Validate ``doc`` against the schema it names, listing every violation."""
    validator = jsonschema.Draft202012Validator(schemas.schema(doc["schema"]))
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
    assert not errors, "\n".join(errors[:20])


@pytest.mark.parametrize("case", sorted(COMMANDS))
def test_every_json_output_validates(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, [a.replace("{agents}", AGENTS) for a in COMMANDS[case].split()])
    check(doc)
    schemas.validate(doc)  # the public entry point agrees


def test_results_schema_knows_every_report_column_format() -> None:
    """The report's column formats (report.document.Fmt) are the schema's enum, in full."""
    from typing import get_args

    from passhat.report.document import Fmt

    found: list[list[str]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            fmt = node.get("format")
            if isinstance(fmt, dict) and "enum" in fmt:
                found.append(fmt["enum"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schemas.schema("results"))
    assert found, "the results schema names the column formats"
    assert all(sorted(e) == sorted(get_args(Fmt)) for e in found)


def test_report_json_and_results_json_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r"
    argv = ["report", "--example", "agents", "-o", str(out), "--k", "1,2", "--no-model"]
    doc = run_json(capsys, [*argv, "--n-boot", "100", "--json"])
    check(doc)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert list(results)[:3] == ["schema", "schema_version", "passhat_version"]
    assert results["schema"] == "passhat.results"
    check(results)


# ------------------------------------------------------------------ the schemas themselves
def test_every_schema_is_valid_and_named_after_its_file() -> None:
    files = sorted(p.stem for p in SCHEMA_DIR.glob("*.json"))
    assert files == sorted(schemas.NAMES)
    for name in schemas.NAMES:
        s = schemas.schema(name)
        jsonschema.Draft202012Validator.check_schema(s)
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert s["properties"]["schema"] == {"const": f"passhat.{name}"}
        assert s["properties"]["schema_version"] == {"const": passhat._result.SCHEMA_VERSION}
        assert {"schema", "schema_version", "passhat_version"} <= set(s["required"])
        assert "additionalProperties" not in s  # keys may be added (schema_version's policy)


def _result_classes() -> list[type[Result]]:
    for mod in pkgutil.walk_packages(passhat.__path__, "passhat."):
        if ".inspect" in mod.name or mod.name.endswith("__main__"):
            continue  # passhat.inspect needs the inspect extra (its results are Estimates)
        importlib.import_module(mod.name)
    out: list[type[Result]] = []
    todo = list(Result.__subclasses__())
    while todo:
        cls = todo.pop()
        out.append(cls)
        todo += cls.__subclasses__()
    return out


def test_every_result_has_a_published_schema() -> None:
    names = {cls.schema for cls in _result_classes() if cls.__module__.startswith("passhat.")}
    assert names - {"result"} <= set(schemas.NAMES), names - set(schemas.NAMES)
    assert set(schemas.NAMES) - names == {"results"}  # results.json is the report's file


def test_shared_definitions_are_the_same_in_every_schema() -> None:
    seen: dict[str, dict[str, Any]] = {}
    for name in schemas.NAMES:
        for key, definition in schemas.schema(name).get("$defs", {}).items():
            assert seen.setdefault(key, definition) == definition, (name, key)
    assert {"source", "diagnostics", "settings"} <= set(seen)


def test_schema_lookup_errors() -> None:
    with pytest.raises(passhat.OptionError, match="no schema named 'nope'"):
        schemas.schema("nope")
    with pytest.raises(passhat.OptionError, match="no 'schema' key"):
        schemas.validate({"estimates": []})


# ------------------------------------------------------------------ the schemas bite
@pytest.fixture(scope="module")
def estimate_doc() -> dict[str, Any]:
    return passhat.estimate(passhat.load_example("agents"), k=[1, 2], ci=0.9, n_boot=100).to_dict(
        per_task=True
    )


@pytest.mark.parametrize(
    ("change", "refused"),
    [
        (lambda d: d["estimates"][0].update(metric="pass_hat"), True),
        (lambda d: d["estimates"][0].update(scope="everywhere"), True),
        (lambda d: d.pop("estimates"), True),
        (lambda d: d["estimates"][0].pop("value"), True),
        (lambda d: d["summary"][0].update(tasks="168"), True),
        (lambda d: d.update(schema_version=2), True),
        (lambda d: d["settings"].update(k=[0]), True),
        (lambda d: d["tasks"][0].update(pass_hat_2="high"), True),
        (lambda d: d.update(a_new_key=[1, 2]), False),
        (lambda d: d["estimates"][0].update(a_new_column=0.5), False),
    ],
)
def test_a_changed_document_is_refused_and_an_added_key_is_not(
    estimate_doc: dict[str, Any], change: Any, refused: bool
) -> None:
    doc = copy.deepcopy(estimate_doc)
    check(doc)
    change(doc)
    if refused:
        with pytest.raises(jsonschema.ValidationError):
            schemas.validate(doc)
    else:
        schemas.validate(doc)


def test_reliability_verdict_validates() -> None:
    """The pytest marker's verdict (pass after a decision, and before any decided run)."""
    from passhat.pytest_plugin.reliability import reliability

    for runs in ([True] * 30, [False, True] * 20, []):
        doc = reliability(runs, k=2, min_pass_hat=0.7).to_dict()
        schemas.validate(doc)
    bad = reliability([True] * 30, k=2, min_pass_hat=0.7).to_dict()
    bad["reliability"]["decision"] = "maybe"
    with pytest.raises(Exception, match="maybe"):
        schemas.validate(bad)
