"""An Inspect AI log directory with one ``.eval`` per model reads as several systems.

Oracle: real ``.eval`` logs written in this test by ``inspect_ai.eval`` (models
``mockllm/NAME``, a solver that sets the scored letter itself: no model call, no
network); each model's success pattern per sample and epoch is scripted, so the
counts per (system, task) are known, and ``passhat.rank`` on the directory must
rank the systems the way the script orders them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import passhat as ph
from passhat.errors import FormatError, OptionError

pytest.importorskip("inspect_ai")

SAMPLES = [f"q{i}" for i in range(8)]
EPOCHS = 3
#: model → how many of the 8 samples pass in every epoch (the others fail in every epoch)
PASSING = {"alpha": 8, "beta": 6, "gamma": 3, "delta": 3}


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from inspect_testdata import scripted_eval

    tmp = tmp_path_factory.mktemp("inspect_models")
    for name, passing in PASSING.items():

        def act(state: Any, passing: int = passing) -> None:
            state.output.completion = "C" if SAMPLES.index(str(state.sample_id)) < passing else "I"

        scripted_eval(tmp, SAMPLES, EPOCHS, act, model=f"mockllm/{name}")
    return tmp / "logs"


def test_directory_reads_as_several_systems(log_dir: Path) -> None:
    assert len(list(log_dir.glob("*.eval"))) == 4
    trials = ph.read_trials(log_dir)  # sniffed: a directory of .eval logs
    assert sorted(trials.systems) == sorted(f"mockllm/{m}" for m in PASSING)
    ds = trials.counts()
    for name, passing in PASSING.items():
        c = ds["c"].sel(system=f"mockllm/{name}").values
        assert (ds["n"].sel(system=f"mockllm/{name}").values == EPOCHS).all()
        assert int((c == EPOCHS).sum()) == passing and int((c == 0).sum()) == 8 - passing
    assert [d["file"] for d in trials.source["logs"]] == sorted(p.name for p in log_dir.iterdir())


def test_rank_on_the_log_directory(log_dir: Path) -> None:
    r = ph.rank(ph.read_trials(log_dir), k=[1, 3], n_boot=500, seed=0)
    t = r.table[(r.table["metric"] == "pass_hat_k") & (r.table["k"] == 3)]
    assert t["system"].tolist()[:2] == ["mockllm/alpha", "mockllm/beta"]
    ties = t.set_index("system").loc[["mockllm/gamma", "mockllm/delta"]]
    assert ties["rank"].tolist() == [3, 3]  # equal counts: a shared rank
    assert ties["group"].nunique() == 1


def test_directory_errors(log_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="--system-name applies to one log file"):
        ph.read_trials(log_dir, format="inspect", system_name="x")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FormatError, match=r"without Inspect AI logs \(\.eval or \.json\)"):
        ph.read_trials(tmp_path / "empty", format="inspect")
