"""A fit's posterior draws of one system as the parts of its mixing distribution.

Every single-system model (:data:`passhat.model.build.MODELS`) describes the spread of task
rates by the parts of :mod:`passhat.model.mixing`: point masses at 1 and 0, a Beta, nodes on a
grid of p. :func:`hyper_draws` reads a fit's posterior variables into those parts, draw by
draw, so that every metric, check and table has one formula whatever the model:

* ``beta``: ``mu``, ``kappa`` → a = μκ, b = (1 − μ)κ;
* ``inflated``: the same and ``pi_pass``, ``pi_fail``;
* ``discrete``: ``node_weight`` (the Beta's share is 0; a = b = 1 stand in);
* ``auto`` (stacked): each draw from the model named by ``component`` (0 Beta, 1 inflated,
  2 discrete): the Beta model's ``mu``, ``kappa``, the inflated model's ``inflated_mu``,
  ``inflated_kappa``, ``pi_pass``, ``pi_fail``, the discrete model's ``node_weight``.

Examples
--------
>>> import numpy as np, xarray as xr
>>> post = xr.Dataset({"mu": (("chain", "draw", "system"), np.full((1, 2, 1), 0.5)),
...                    "kappa": (("chain", "draw", "system"), np.full((1, 2, 1), 4.0))})
>>> h = hyper_draws(post, 0, "beta")
>>> h["a"].tolist(), h["b"].tolist()
([2.0, 2.0], [2.0, 2.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["COMPONENTS", "component_idata", "hyper_draws", "model_variables"]

#: The models a stacked fit stacks, in this order: a stacked draw's ``component`` is the index.
COMPONENTS: tuple[str, ...] = ("beta", "inflated", "discrete")


def _flat(post: Any, name: str, si: int) -> NDArray[np.float64]:
    return np.asarray(post[name].values[..., si], dtype=float).ravel()


def _nodes(post: Any, si: int) -> NDArray[np.float64]:
    w = np.asarray(post["node_weight"].values[:, :, si, :], dtype=float)
    return w.reshape(-1, w.shape[-1])


def hyper_draws(post: Any, si: int, model: str) -> dict[str, NDArray[np.float64]]:
    """System ``si``'s draws of a fit of ``model`` as parts of the mixing distribution:
    ``a``, ``b`` (the Beta part), and where the model has them ``pi_pass``, ``pi_fail``,
    ``node_weight`` (draws, nodes) with ``node_p`` (nodes,)."""
    if model in ("beta", "inflated"):
        mu, kappa = _flat(post, "mu", si), _flat(post, "kappa", si)
        out = {"a": mu * kappa, "b": (1.0 - mu) * kappa}
        if model == "inflated":
            out["pi_pass"] = _flat(post, "pi_pass", si)
            out["pi_fail"] = _flat(post, "pi_fail", si)
        return out
    node_p = np.asarray(post["node"].values, dtype=float)
    if model == "discrete":
        w = _nodes(post, si)
        ones = np.ones(w.shape[0])
        return {"a": ones, "b": ones, "node_weight": w, "node_p": node_p}
    code = np.asarray(post["component"].values[..., si]).ravel()
    beta, infl = code == 0, code == 1
    a_beta = _flat(post, "mu", si) * _flat(post, "kappa", si)
    b_beta = _flat(post, "kappa", si) - a_beta
    a_infl = _flat(post, "inflated_mu", si) * _flat(post, "inflated_kappa", si)
    b_infl = _flat(post, "inflated_kappa", si) - a_infl
    return {
        "a": np.where(beta, a_beta, np.where(infl, a_infl, 1.0)),
        "b": np.where(beta, b_beta, np.where(infl, b_infl, 1.0)),
        "pi_pass": np.where(infl, _flat(post, "pi_pass", si), 0.0),
        "pi_fail": np.where(infl, _flat(post, "pi_fail", si), 0.0),
        "node_weight": _nodes(post, si),
        "node_p": node_p,
    }


def model_variables(model: str) -> list[str]:
    """The posterior variables whose R-hat and ESS a fit's diagnostics check: the sampled
    hyperparameters of the Beta and inflated models, the population mean of the others (their
    draws are independent; the check is on what they say)."""
    if model == "beta":
        return ["mu", "kappa"]
    if model == "inflated":
        return ["mu", "kappa", "pi_pass", "pi_fail"]
    return ["mean_population"]


def component_idata(idata: Any, name: str) -> Any:
    """A stacked fit's InferenceData reduced to one of its models ("beta" or "inflated"):
    that model's draws (every one) under the names a fit of that model uses, the fit's
    attributes with ``passhat_model`` set to it, the same divergences and count data."""
    post = idata.posterior
    if name == "beta":
        chosen = post[["mu", "kappa"]]
    else:
        chosen = post[["inflated_mu", "inflated_kappa", "pi_pass", "pi_fail"]].rename(
            {"inflated_mu": "mu", "inflated_kappa": "kappa"}
        )
    chosen = chosen.drop_vars([v for v in chosen.coords if v not in ("chain", "draw", "system")])
    attrs = {k: v for k, v in post.attrs.items() if k != "passhat_stacking"}
    attrs["passhat_model"] = name
    chosen.attrs = attrs
    groups = {"posterior": chosen, "constant_data": idata.constant_data}
    if "sample_stats" in idata:
        groups["sample_stats"] = idata.sample_stats
    return type(idata)(**groups)
