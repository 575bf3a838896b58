"""passhat inside a real Inspect AI eval, end to end: reducers, metric and hook against the log.

One ``inspect_ai.eval`` run (``mockllm/model`` with scripted answers: :mod:`inspect_run`), its
epochs reduced by passhat's reducers and by Inspect's own ``pass_k`` / ``pass_at`` / ``mean``,
the task's metadata asking the hook for the estimate. Oracles:

* the counts by hand (the A's of each sample's script; an errored epoch is unscored) and the
  unbiased formulas written out with :func:`math.comb`;
* Inspect's own reducers in the same run (per sample and their ``accuracy``);
* passhat's estimate of the log read back from disk by passhat's Inspect reader
  (``ph.estimate(ph.read(log), ...)``): the metric's values and intervals, and the JSON the
  hook wrote beside the log;
* Inspect's log listing, which must still see exactly one log in the directory.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "inspect_ai", reason="inspect_ai is not installed (pip install 'passhat[inspect]')"
)

from inspect_run import CI, EPOCHS, SCRIPT, K, run_eval

import passhat as ph

#: Each view's reducer name in the log: passhat's and Inspect's for the same estimate.
VIEWS = {
    "pass_hat_k": (f"passhat/pass_hat_{K}", f"pass_k_{K}", f"pass^{K}"),
    "pass_at_k": (f"passhat/pass_at_{K}", f"pass_at_{K}", f"pass@{K}"),
    "mean": ("passhat/mean", "mean", "mean"),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    log_dir = tmp_path_factory.mktemp("inspect") / "logs"
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("PASSHAT_INSPECT", raising=False)  # the task's metadata alone asks the hook
        log = run_eval(log_dir, metadata={"passhat": {"ci": CI}})
    path = Path(log.location)
    est = ph.estimate(ph.read(path), k=K, ci=CI)
    return {"log": log, "path": path, "dir": log_dir, "est": est}


def _scores(log: Any) -> dict[str, Any]:
    return {s.reducer: s for s in log.results.scores}


def _by_hand(metric: str) -> float:
    """The benchmark value from the script: each sample's unbiased estimate, averaged."""
    values = []
    for answers in SCRIPT.values():
        n, c = _scored(answers), answers.count("A")
        per = {
            "pass_hat_k": math.comb(c, K) / math.comb(n, K),
            "pass_at_k": 1 - math.comb(n - c, K) / math.comb(n, K),
            "mean": c / n,
        }
        values.append(per[metric])
    return sum(values) / len(values)


def _scored(answers: str) -> int:
    return len(answers) - answers.count("E")


def test_log_counts_are_the_script(run: dict[str, Any]) -> None:
    counts = run["est"]._counts.sel(system="mockllm/model")
    got = {
        key: dict(zip(counts["task"].values, counts[key].values.tolist(), strict=True))
        for key in ("n", "c", "unscored")
    }
    assert got["n"] == {sid: _scored(answers) for sid, answers in SCRIPT.items()}
    assert got["c"] == {sid: answers.count("A") for sid, answers in SCRIPT.items()}
    assert got["unscored"] == {sid: answers.count("E") for sid, answers in SCRIPT.items()}
    assert all(len(answers) == EPOCHS for answers in SCRIPT.values())
    flips = [sid for sid, answers in SCRIPT.items() if 0 < answers.count("A") < _scored(answers)]
    assert len(flips) == 4  # some samples flip between epochs


@pytest.mark.parametrize("metric", list(VIEWS))
def test_values_equal_inspect_and_passhat(run: dict[str, Any], metric: str) -> None:
    ours, theirs, label = VIEWS[metric]
    scores = _scores(run["log"])
    value = run["est"].value(metric, K)
    assert value == pytest.approx(_by_hand(metric), abs=1e-12)
    assert scores[ours].metrics["accuracy"].value == pytest.approx(value, abs=1e-12)
    assert scores[theirs].metrics["accuracy"].value == pytest.approx(value, abs=1e-12)
    assert scores[ours].metrics[label].value == pytest.approx(value, abs=1e-12)
    assert scores[ours].metrics[label].group == "interval"


@pytest.mark.parametrize("metric", list(VIEWS))
def test_per_sample_reductions_equal_inspect(run: dict[str, Any], metric: str) -> None:
    ours, theirs, _ = VIEWS[metric]
    red = {r.reducer: {s.sample_id: s for s in r.samples} for r in run["log"].reductions}
    assert sorted(red[ours]) == sorted(red[theirs]) == sorted(SCRIPT)
    for sid, answers in SCRIPT.items():
        mine = red[ours][sid]
        assert mine.value == pytest.approx(red[theirs][sid].value, abs=1e-12), sid
        counts = mine.metadata["passhat"]
        # an errored epoch never reaches a reducer: out of n, as passhat's reader leaves it
        assert (counts["n"], counts["c"]) == (_scored(answers), answers.count("A"))


@pytest.mark.parametrize("metric", list(VIEWS))
def test_intervals_equal_passhat_estimate_of_the_log(run: dict[str, Any], metric: str) -> None:
    ours, _, _ = VIEWS[metric]
    got = _scores(run["log"])[ours].metrics
    for scope in ("benchmark", "population"):
        lo, hi = run["est"].interval(metric, K, scope=scope)
        assert got[f"{scope}_lower"].value == pytest.approx(lo, abs=1e-12)
        assert got[f"{scope}_upper"].value == pytest.approx(hi, abs=1e-12)
        assert got[f"{scope}_lower"].params == {"ci": CI, "n_boot": 10_000, "seed": 0}
        assert lo <= run["est"].value(metric, K) <= hi


def test_inspect_views_get_no_interval(run: dict[str, Any]) -> None:
    scores = _scores(run["log"])
    for _, theirs, _ in VIEWS.values():
        assert sorted(scores[theirs].metrics) == ["accuracy", "stderr"]


def test_hook_wrote_the_estimate_beside_the_log(run: dict[str, Any]) -> None:
    path = run["path"]
    written = path.with_name(f"passhat-{path.stem}.json")
    doc = json.loads(written.read_text())
    # the hook: k of the log's reducers, ci from the task's metadata, tasks short of k left out
    again = ph.estimate(ph.read(path), k=[K], ci=CI, on_short="exclude").to_dict()
    assert doc == json.loads(json.dumps(again))
    assert doc["schema"] == "passhat.estimate"
    rows = {(r["metric"], r["scope"]): r for r in doc["estimates"]}
    for metric in VIEWS:
        for scope in ("benchmark", "population"):
            row = rows[(metric, scope)]
            assert (row["lower"], row["upper"]) == pytest.approx(
                run["est"].interval(metric, K, scope=scope), abs=1e-12
            )
            assert row["method"]  # each interval names how it was computed
    assert sorted(p.name for p in run["dir"].iterdir()) == sorted([path.name, written.name])


def test_inspect_still_lists_one_log(run: dict[str, Any]) -> None:
    from inspect_ai.log import list_eval_logs

    logs = list_eval_logs(str(run["dir"]))
    assert [Path(info.name).name for info in logs] == [run["path"].name]
