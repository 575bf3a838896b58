"""HELM ``per_instance_stats.json`` reader.

Fixture (tests/io/data/helm/v1, written by hand in the shape of HELM's ``PerInstanceStats``
and ``Stat`` of ``src/helm/benchmark/metrics/metric.py`` / ``statistic.py``, with the
``run_spec.json`` and ``stats.json`` that ``runner.py`` writes beside it): a suite with boolq
for openai/gpt2 (4 instances × 3 train trials, plus typos-perturbed instances of trial 0) and
eleutherai/pythia-1b-v0 (one instance-trial without exact_match: HELM drops NaN stats).
Oracles: counts by hand; HELM's own ``stats.json`` mean of exact_match (mean over train
trials of each trial's mean) against passhat's mean at k = 1.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from framework_data import cells, write_helm

import passhat as ph
from passhat.errors import FormatError, OptionError
from passhat.io.helm import parse_run_name

SUITE = Path(__file__).parent / "data" / "helm" / "v1"
GPT2 = SUITE / "boolq:model=openai_gpt2"
PYTHIA = SUITE / "boolq:model=eleutherai_pythia-1b-v0"


def _mean_k1(trials: ph.Trials, system: str) -> float:
    frame = ph.estimate(trials, k=[1]).to_frame()
    return float(frame[(frame["system"] == system) & (frame["metric"] == "mean")]["value"].iloc[0])


def test_a_suite_counted_by_hand() -> None:
    """exact_match per instance over train trials 0, 1, 2: gpt2 id10 111, id11 010, id12 000,
    id13 101; pythia id10 111, id11 110, id12 0-0 (trial 1 has no exact_match), id13 111."""
    t = ph.read_trials(SUITE)
    assert cells(t) == {
        ("openai/gpt2", "id10"): [3, 3, 0],
        ("openai/gpt2", "id11"): [3, 1, 0],
        ("openai/gpt2", "id12"): [3, 0, 0],
        ("openai/gpt2", "id13"): [3, 2, 0],
        ("eleutherai/pythia-1b-v0", "id10"): [3, 3, 0],
        ("eleutherai/pythia-1b-v0", "id11"): [3, 2, 0],
        ("eleutherai/pythia-1b-v0", "id12"): [2, 0, 1],
        ("eleutherai/pythia-1b-v0", "id13"): [3, 3, 0],
    }
    assert t.source["stat"] == "exact_match"
    assert t.source["system_from"] == "run_spec.json adapter_spec.model"
    missing = t.frame[t.frame["status"] == "no_stat"]
    assert missing[["task_id", "trial"]].values.tolist() == [["id12", 1]]
    said = "4 per-instance stat(s) of perturbed instances (typos) are not read"
    assert any(said in n for n in t.notes)


def test_helms_own_mean_is_the_mean_at_k1() -> None:
    """Oracle: stats.json's exact_match (split valid) mean for gpt2, 0.5."""
    stats = json.loads((GPT2 / "stats.json").read_text())
    helm = next(s["mean"] for s in stats if s["name"] == {"name": "exact_match", "split": "valid"})
    t = ph.read_trials(GPT2)
    assert helm == pytest.approx(0.5)
    assert _mean_k1(t, "openai/gpt2") == pytest.approx(helm)
    assert t.source["runs"][0]["exact_match,valid"] == helm


def test_a_perturbation_is_read_when_named() -> None:
    t = ph.read_trials(GPT2, perturbation="typos")
    assert [c for c in cells(t).values()] == [[1, 1, 0], [1, 0, 0], [1, 0, 0], [1, 0, 0]]
    stats = json.loads((GPT2 / "stats.json").read_text())
    helm = next(
        s["mean"]
        for s in stats
        if s["name"].get("perturbation", {}).get("name") == "typos"
        and s["name"]["name"] == "exact_match"
    )
    assert _mean_k1(t, "openai/gpt2") == pytest.approx(helm)  # 0.25
    assert any("12 per-instance stat(s) of the original instances" in n for n in t.notes)
    with pytest.raises(OptionError, match="no instance has perturbation 'dialect'"):
        ph.read_trials(GPT2, perturbation="dialect")


def test_stat_option_and_threshold(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match=r"stat 'f1_score' is not in the per-instance stats"):
        ph.read_trials(GPT2, stat="f1_score")
    with pytest.raises(FormatError, match=r"stat 'num_prompt_tokens' takes values other than 0"):
        ph.read_trials(GPT2, stat="num_prompt_tokens")
    t = ph.read_trials(GPT2, stat="num_prompt_tokens", threshold=400)
    assert t.frame.groupby("task_id")["success"].sum().to_dict() == {
        "id10": 3, "id11": 1, "id12": 3, "id13": 0
    }  # fmt: skip  # 412/505 + 7t ≥ 400 always; 388 + 7t only at t = 2; 297 never


def test_model_from_the_run_name_without_run_spec(tmp_path: Path) -> None:
    d = tmp_path / "boolq:model=openai_gpt2"
    shutil.copytree(GPT2, d)
    (d / "run_spec.json").unlink()
    t = ph.read_trials(d)
    assert t.systems == ["openai_gpt2"] and t.source["system_from"] == "run name"


def test_several_scenarios_name_tasks_by_scenario(tmp_path: Path) -> None:
    """The larger fixture: 2 models × 2 scenarios × 30 instances × 3 train trials, one
    instance-trial per run without the stat; HELM's stats.json mean per run."""
    truth = write_helm(tmp_path)
    t = ph.read_trials(tmp_path)
    assert cells(t) == truth.cells
    mmlu = "mmlu:subject=anatomy,method=multiple_choice_joint"
    assert set(t.frame["category"]) == {"boolq", mmlu}
    for (model, scen), helm_mean in truth.summary.items():
        runs = t.source["runs"]
        run = next(r for r in runs if r["system"] == model and r["run"].startswith(scen))
        assert run["exact_match,test"] == pytest.approx(helm_mean)
    # with every instance-trial scored, HELM's mean of trial means is passhat's mean at k=1
    one = next(tmp_path.glob("boolq*"))
    entries = json.loads((one / "per_instance_stats.json").read_text())
    model = json.loads((one / "run_spec.json").read_text())["adapter_spec"]["model"]
    full = [e for e in entries if any(s["name"]["name"] == "exact_match" for s in e["stats"])]
    hole = next(e for e in entries if e not in full)
    others = [e for e in full if e["instance_id"] != hole["instance_id"]]
    (one / "per_instance_stats.json").write_text(json.dumps(others))
    by_trial = [
        sum(s["mean"] for e in others if e["train_trial_index"] == k for s in e["stats"]
            if s["name"]["name"] == "exact_match") / 29
        for k in range(3)
    ]  # fmt: skip
    assert _mean_k1(ph.read_trials(one), model) == pytest.approx(sum(by_trial) / 3)


def test_two_runs_of_one_model_and_scenario_are_refused(tmp_path: Path) -> None:
    for suite in ("v1", "v2"):
        shutil.copytree(GPT2, tmp_path / suite / GPT2.name)
    with pytest.raises(FormatError, match=r"two HELM runs of model 'openai/gpt2' on 'boolq'"):
        ph.read_trials(tmp_path)


def test_parse_run_name_keeps_the_scenario_arguments() -> None:
    assert parse_run_name("boolq:model=openai_gpt2") == ("boolq", {"model": "openai_gpt2"})
    assert parse_run_name("natural_qa:mode=closedbook,model=a_b,model_deployment=c")[0] == (
        "natural_qa:mode=closedbook"
    )


def test_estimate_with_no_options(capsys: pytest.CaptureFixture[str]) -> None:
    from passhat.cli import main

    for path in (SUITE, GPT2, GPT2 / "per_instance_stats.json"):
        assert main(["estimate", str(path), "--k", "1"]) == 0
        assert "openai/gpt2" in capsys.readouterr().out


def test_the_other_files_of_a_run_name_the_run() -> None:
    for name in ("stats.json", "run_spec.json"):
        assert cells(ph.read_trials(GPT2 / name)) == cells(ph.read_trials(GPT2))


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"count": 0, "sum": 0.0, "mean": 0.0}, r"has count 0 .* but mean 0\.0"),
        ({"count": 1, "sum": 0.0, "mean": 1.0}, r"mean 1\.0 is not its sum 0\.0 / count 1"),
    ],
    ids=["count-0-with-a-mean", "mean-against-sum"],
)
def test_a_stat_whose_numbers_disagree_is_refused(
    tmp_path: Path, change: dict[str, float], said: str
) -> None:
    """HELM's Stat has no mean without values (count 0) and mean = sum / count; a file that
    says otherwise was edited, and reading its mean would count a run HELM never scored."""
    run = tmp_path / PYTHIA.name
    shutil.copytree(PYTHIA, run)
    f = run / "per_instance_stats.json"
    doc = json.loads(f.read_text(encoding="utf-8"))
    stat = next(s for s in doc[0]["stats"] if s["name"]["name"] == "exact_match")
    stat.update(change)
    f.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(
        FormatError, match=rf"entry 0 \(instance 'id10'\): stat 'exact_match' {said}"
    ):
        ph.read_trials(run)


def test_helms_output_directory_is_read(tmp_path: Path) -> None:
    """``helm-run`` writes ``benchmark_output/runs/<suite>/<run>/``; ``passhat estimate
    benchmark_output`` said "a directory with no data files (.csv, ...)"."""
    out = tmp_path / "benchmark_output"
    shutil.copytree(SUITE, out / "runs" / "v1")
    (out / "runs" / "v1" / "groups").mkdir()  # helm-summarize's output beside the runs
    (out / "runs" / "v1" / "groups" / "core_scenarios.json").write_text("[]")
    (out / "runs" / "v1" / "summary.json").write_text('{"suite": "v1"}')
    t = ph.read_trials(out)
    assert t.source["format"] == "helm" and cells(t) == cells(ph.read_trials(SUITE))
