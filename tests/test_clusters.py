"""passhat.clusters: the shared rules of clustered tasks, and clusters across inputs.

Oracles: the counts by hand; the merged table of two inputs keeps each task's one cluster,
and a task placed in two clusters is refused by name.
"""

from __future__ import annotations

import numpy as np
import pytest

import passhat as ph
from passhat.clusters import FEW_CLUSTERS, cluster_notes, clusters_of, without_clusters
from passhat.inputs import concat_systems
from passhat.trials import counts_from_arrays


def _table(system: str, clusters: list[str] | None) -> object:
    ds = counts_from_arrays([2, 2, 2], [1, 2, 0], tasks=["t1", "t2", "t3"], system=system)
    return ds if clusters is None else ds.assign_coords(cluster=("task", clusters))


def test_notes_count_warn_and_name_the_construction() -> None:
    notes = cluster_notes({"a vs b": 5}, ci=True, how="HOW", method="cluster sign-flip test")
    assert notes[0].startswith("clustered tasks (a vs b: 5 clusters): HOW;")
    assert f"below {FEW_CLUSTERS} clusters" in notes[1] and "cluster sign-flip test's" in notes[1]
    assert len(cluster_notes({"s": FEW_CLUSTERS}, ci=False)) == 1
    assert "one cluster only (s)" in cluster_notes({"s": 1}, ci=True)[1]


def test_notes_name_the_few_clusters_rule_instead_of_warning() -> None:
    """estimate's notes (few_rule): below FEW_CLUSTERS the rule is named, no "too narrow"."""
    notes = cluster_notes({"s": 5}, ci=True, few_rule="RULE")
    assert "below, the RULE" in notes[0]
    assert "the population interval is the RULE" in notes[1] and "too narrow" not in notes[1]
    assert "a mean without one cluster at 0 or 1, Clopper–Pearson with the clusters" in notes[1]
    assert len(cluster_notes({"s": FEW_CLUSTERS}, ci=True, few_rule="RULE")) == 1


def test_concat_keeps_each_tasks_cluster() -> None:
    merged = concat_systems([_table("A", ["r1", "r1", "r2"]), _table("B", None)])
    assert clusters_of(merged).tolist() == ["r1", "r1", "r2"]
    with pytest.raises(ph.ValidationError, match=r"task 't2' is in cluster 'r1' in one input"):
        concat_systems([_table("A", ["r1", "r1", "r2"]), _table("B", ["r1", "r3", "r2"])])
    assert "cluster" not in concat_systems([_table("A", None), _table("B", None)]).coords


def test_a_task_without_a_cluster_is_named() -> None:
    ds = _table("A", ["r1", None, "r2"])
    with pytest.raises(ph.ValidationError, match=r"task 't2' has no cluster"):
        clusters_of(ds)


def test_without_clusters_on_trials_tables_and_lists() -> None:
    ds = _table("A", ["r1", "r1", "r2"])
    assert "cluster" not in without_clusters([ds])[0].coords
    import pandas as pd

    df = pd.DataFrame(
        {"task_id": ["a", "b"], "trial": [1, 1], "success": [1, 0], "cluster": ["x", "y"]}
    )
    trials = ph.Trials.from_frame(df)
    assert "cluster" in trials.counts().coords
    assert "cluster" not in without_clusters(trials).counts().coords
    assert np.array_equal(without_clusters(trials).counts()["n"], trials.counts()["n"])
