"""Clustered tasks: each task's cluster, how many clusters a computation uses, and the notes.

Tasks that arrive in groups (issues of one repository, questions about one document) carry a
``cluster`` task coordinate (:func:`passhat.trials.task_clusters`). Every computation with a
population scope then treats the cluster as the unit drawn: :func:`passhat.estimate`
resamples clusters (cluster bootstrap), :func:`passhat.compare` and :func:`passhat.rank`
flip the signs of whole clusters (cluster sign flips) and resample clusters. The one rule of
which coordinate counts, how the clusters are counted, and the words the notes use live
here, shared by those entry points.

Examples
--------
>>> import numpy as np
>>> from passhat.clusters import cluster_codes, cluster_notes
>>> cluster_codes(np.array(["r1", "r1", "r2"], dtype=object)).tolist()
[0, 0, 1]
>>> cluster_notes({"agent": 3}, ci=True)[1][:25]
'only 3 clusters (agent: 3'
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat.errors import ValidationError

__all__ = [
    "BOOTSTRAP",
    "FEW_CLUSTERS",
    "FEW_RULE",
    "RANK_CLUSTERS",
    "SIGN_FLIPS",
    "cluster_codes",
    "cluster_notes",
    "clusters_of",
    "without_clusters",
]

#: Below this many clusters a population interval on clusters is flagged as possibly too
#: narrow (studies/cluster_coverage: 5 clusters covered 0.66–0.83 at 90%, 20 clusters 0.85–0.92).
FEW_CLUSTERS = 20

#: How :func:`passhat.estimate`'s population scope uses the clusters (the notes' words).
BOOTSTRAP = "population intervals resample clusters, each with all its tasks (cluster bootstrap)"

#: What :func:`passhat.estimate`'s population scope uses below :data:`FEW_CLUSTERS` clusters
#: (studies/cluster_coverage: the cluster bootstrap covered 0.66–0.83 at 90% with 5 clusters,
#: the CR1 logit-t 0.79–0.92; the candidates compared: studies/cluster_coverage/few_rules.py).
FEW_RULE = (
    "cluster jackknife logit-t interval (leave-one-cluster-out standard error of the logit, "
    "G − 1 degrees of freedom)"
)

#: How :func:`passhat.compare`'s population scope uses the clusters (the notes' words).
SIGN_FLIPS = (
    "population tests and intervals flip the signs of whole clusters (cluster sign flips; "
    "the paired Bayesian bootstrap draws clusters where few differ)"
)


#: How :func:`passhat.rank`'s bootstrap engine and pairwise tests use the clusters.
RANK_CLUSTERS = (
    "the paired bootstrap resamples clusters, each with all its tasks, and the pairwise tests "
    "flip the signs of whole clusters"
)


def clusters_of(ds: xr.Dataset) -> NDArray[Any] | None:
    """Each task's cluster when the count table has a cluster coordinate, else None.

    A task without a cluster (a count table built without the trial reader's check) is an
    error naming it.

    Examples
    --------
    >>> from passhat.trials import counts_from_arrays
    >>> ds = counts_from_arrays([2, 2], [1, 2], tasks=["t1", "t2"])
    >>> clusters_of(ds) is None
    True
    >>> clusters_of(ds.assign_coords(cluster=("task", ["r", "r"]))).tolist()
    ['r', 'r']
    """
    if "cluster" not in ds.coords:
        return None
    groups = np.asarray(ds["cluster"].values, dtype=object)
    blank = pd.isna(pd.Series(groups, dtype=object)).to_numpy()
    if blank.any():
        raise ValidationError(
            f"task {ds['task'].values[int(np.flatnonzero(blank)[0])]!r} has no cluster; "
            "with a cluster column every task names its cluster"
        )
    return groups


def cluster_codes(groups: NDArray[Any]) -> NDArray[np.int64]:
    """Integer codes 0, 1, … of the clusters, in order of first appearance.

    Examples
    --------
    >>> import numpy as np
    >>> cluster_codes(np.array(["b", "a", "b"], dtype=object)).tolist()
    [0, 1, 0]
    """
    return np.asarray(pd.factorize(pd.Series(groups, dtype=object))[0], dtype=np.int64)


def cluster_notes(
    counts: dict[str, int],
    *,
    ci: bool,
    how: str = BOOTSTRAP,
    method: str = "cluster bootstrap",
    few_rule: str | None = None,
) -> list[str]:
    """The notes on the clusters: how many, how the population scope uses them (``how``), and
    a warning below :data:`FEW_CLUSTERS` clusters (``method`` names the construction).

    ``counts`` maps who (a system, a pair) to its number of clusters; ``ci``: whether
    intervals were computed; ``few_rule``: the interval used instead below
    :data:`FEW_CLUSTERS` clusters (then the note says so rather than warn).

    Examples
    --------
    >>> cluster_notes({"system": 2}, ci=True)[1][:40]
    'only 2 clusters (system: 2): the cluster'
    >>> cluster_notes({}, ci=True)
    []
    """
    if not counts:
        return []
    shown = ", ".join(f"{s}: {g}" for s, g in counts.items())
    if few_rule is not None:
        how = f"{how} with ≥ {FEW_CLUSTERS} clusters; below, the {few_rule}"
    scope = how if ci else f"with ci, {how}"
    notes = [
        f"clustered tasks ({shown} clusters): {scope}; the benchmark scope is unchanged; "
        "without the cluster coordinate (counts.drop_vars('cluster'), --ignore-clusters) the "
        "tasks count as independent"
    ]
    if one := [s for s, g in counts.items() if g < 2]:
        notes.append(
            f"one cluster only ({', '.join(one)}): no population interval (new tasks would come "
            "from new clusters, and one cluster says nothing of how clusters differ)"
        )
    few = {s: g for s, g in counts.items() if 2 <= g < FEW_CLUSTERS}
    if few and few_rule is not None:
        notes.append(
            f"only {', '.join(map(str, sorted(set(few.values()))))} clusters "
            f"({', '.join(f'{s}: {g}' for s, g in few.items())}): the population interval is "
            f"the {few_rule} (where that is undefined, the estimate or a mean without one "
            "cluster at 0 or 1, Clopper–Pearson with the clusters as trials: each row's method "
            f"says which), as the {method} under-covers below "
            f"{FEW_CLUSTERS} clusters"
        )
    elif few:
        notes.append(
            f"only {', '.join(map(str, sorted(set(few.values()))))} clusters "
            f"({', '.join(f'{s}: {g}' for s, g in few.items())}): the {method}'s "
            f"population interval may be too narrow below {FEW_CLUSTERS} clusters"
        )
    return notes


def without_clusters(data: Any) -> Any:
    """The input (trials, a count table, or a list of them) without its cluster column: its
    tasks count as independent (``--ignore-clusters``).

    Examples
    --------
    >>> from passhat.trials import counts_from_arrays
    >>> ds = counts_from_arrays([2], [1], tasks=["t1"]).assign_coords(cluster=("task", ["r"]))
    >>> "cluster" in without_clusters(ds).coords
    False
    """
    if isinstance(data, list | tuple):
        return [without_clusters(d) for d in data]
    if isinstance(data, xr.Dataset):
        return data.drop_vars("cluster", errors="ignore")
    if "cluster" in data.frame.columns:  # trials
        return replace(data, frame=data.frame.drop(columns="cluster"))
    return data
