"""JSON Schemas of passhat's JSON documents: every ``--json`` output, and ``results.json``.

Every document passhat writes opens with the same header: ``schema`` (``passhat.<name>``),
``schema_version`` and ``passhat_version`` (:func:`passhat._result.header`). The schema of
``passhat.<name>`` ships in this package as ``<name>.json`` (JSON Schema, draft 2020-12), so a
program can check what it reads:

=================  ==================================================================
schema             written by
=================  ==================================================================
estimate           ``passhat estimate --json``, :meth:`passhat.Estimate.to_dict`
threshold_curve    ``Estimate.curve.to_dict()`` (``estimate(..., scores=True)``)
estimate_by        ``Estimate.by_category.to_dict()`` (``estimate(..., by="category")``)
cost               ``Estimate.cost.to_dict()`` (a ``cost`` column)
grader_correction  ``passhat estimate --grader-… --json``, :func:`passhat.correct_grader`
comparison         ``passhat compare --json``
comparison_by      ``passhat compare --by category --json``
comparison_cost    ``passhat compare --cost --json``, :func:`passhat.compare_cost`
classification     ``passhat compare --classify --json``
ranking            ``passhat rank --json``
ranking_by         ``Ranking.by_category.to_dict()`` (``rank(..., by="category")``)
fit                ``passhat fit --json`` (``--model beta`` / ``inflated``)
joint_fit          ``passhat fit --model joint`` / ``rasch --json``
diagnostics        a fit's diagnostics (also inside ``fit`` and ``joint_fit``)
model_comparison   :func:`passhat.compare_models`
gate               ``passhat gate --json``
plan               ``passhat plan detect | bound | certify | width | retry --json``
plan_table         ``passhat plan table --json``
plan_audit         ``passhat plan audit --json``
plan_design        ``passhat plan design --json``
plan_power         ``passhat plan power --json``
plan_more_runs     ``passhat plan more-runs --json``
plan_next          ``passhat plan next --json``
slices             ``passhat slices --json``
spread             ``passhat spread RUNS --json``
spread_summary     ``passhat spread --mean M --pass-hat P --k K --json``
divergence         ``passhat traces --json``
report             ``passhat report --json``
results            ``results.json`` beside a report
=================  ==================================================================

The schemas name the keys every document has (``required``), their types, and the values of
metrics, scopes and verdicts. They allow keys they do not name: ``schema_version`` is raised
when a key is renamed or removed, not when one is added, so a reader should ignore keys it
does not know.

Examples
--------
>>> import passhat as ph
>>> from passhat import schemas
>>> schemas.schema("estimate")["properties"]["schema"]
{'const': 'passhat.estimate'}
>>> schemas.validate(ph.estimate(ph.load_example("abcd"), k=2).to_dict())
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from passhat.errors import DependencyError, OptionError

__all__ = ["NAMES", "schema", "validate"]

#: The schemas shipped, by name (``passhat.<name>`` in a document's ``schema`` key).
NAMES = (
    "classification",
    "comparison",
    "comparison_by",
    "comparison_cost",
    "cost",
    "diagnostics",
    "divergence",
    "estimate",
    "estimate_by",
    "fit",
    "gate",
    "grader_correction",
    "joint_fit",
    "model_comparison",
    "plan",
    "plan_audit",
    "plan_design",
    "plan_more_runs",
    "plan_next",
    "plan_power",
    "plan_table",
    "ranking",
    "ranking_by",
    "reliability",
    "report",
    "results",
    "slices",
    "spread",
    "spread_summary",
    "threshold_curve",
)


@cache
def _text(name: str) -> str:
    return resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema of the documents named ``passhat.<name>`` (a fresh dict each call).

    Parameters
    ----------
    name : str
        One of :data:`NAMES`, with or without the ``passhat.`` prefix.
    """
    key = name.removeprefix("passhat.")
    if key not in NAMES:
        raise OptionError(f"no schema named {name!r}; passhat has {', '.join(NAMES)}", param="name")
    return dict(json.loads(_text(key)))


def validate(document: dict[str, Any]) -> None:
    """Check a document against the schema its ``schema`` key names.

    Needs the ``jsonschema`` package (``pip install jsonschema``).

    Raises
    ------
    jsonschema.ValidationError
        The first key that breaks the schema, with its path in the document.
    passhat.errors.OptionError
        The document names no schema passhat has.
    """
    try:
        import jsonschema
    except ImportError as err:  # pragma: no cover - an optional dependency
        raise DependencyError(
            "validating a document needs jsonschema: pip install jsonschema"
        ) from err
    name = document.get("schema") if isinstance(document, dict) else None
    if not isinstance(name, str):
        raise OptionError("the document has no 'schema' key naming its schema", param="document")
    jsonschema.Draft202012Validator(schema(name)).validate(document)
