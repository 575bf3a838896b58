"""lm-evaluation-harness ``--log_samples`` reader.

Fixtures (tests/io/data/lm_eval, written by hand in the shape of lm-eval's own
``lm_eval/result_schema.py`` SampleResult/EvalResults and the file names of
``lm_eval/loggers/evaluation_tracker.py``): two runs (two dates) of arc_easy, 4 documents, for
EleutherAI/pythia-160m, with their results files; one gsm8k self-consistency run (repeats 4,
filters score-first and maj@4). Oracles: counts by hand, and lm-eval's own aggregate in each
results file (``acc,none`` etc.) against passhat's mean at k = 1 on the same samples.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from framework_data import cells, write_lm_eval

import passhat as ph
from passhat.errors import FormatError, OptionError

DATA = Path(__file__).parent / "data" / "lm_eval"
PYTHIA = DATA / "EleutherAI__pythia-160m"
RUN1 = PYTHIA / "samples_arc_easy_2025-03-01T10-00-00.000001.jsonl"
GSM = DATA / "gsm8k_sc"


def _mean_k1(trials: ph.Trials, system: str) -> float:
    frame = ph.estimate(trials, k=[1]).to_frame()
    row = frame[(frame["system"] == system) & (frame["metric"] == "mean")]
    return float(row["value"].iloc[0])


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[str]]:
    from passhat.cli import main

    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err.strip().splitlines()


def test_two_runs_of_one_task_are_two_trials_counted_by_hand() -> None:
    """acc per document: run 1 (2025-03-01) 1,0,1,1; run 2 (2025-03-02) 1,0,0,1."""
    t = ph.read_trials(PYTHIA)
    assert t.systems == ["EleutherAI/pythia-160m"]
    assert t.source["system_from"] == "results file"
    assert cells(t) == {
        ("EleutherAI/pythia-160m", "0"): [2, 2, 0],
        ("EleutherAI/pythia-160m", "1"): [2, 0, 0],
        ("EleutherAI/pythia-160m", "2"): [2, 1, 0],
        ("EleutherAI/pythia-160m", "3"): [2, 2, 0],
    }
    by_trial = t.frame.groupby("trial")["success"].sum().to_dict()
    assert by_trial == {0: 3, 1: 2}  # trial 0 is the earlier date
    assert any("repeated runs, numbered by date" in n for n in t.notes)


@pytest.mark.parametrize("metric", ["acc", "acc_norm"])
@pytest.mark.parametrize("name", sorted(p.name for p in PYTHIA.glob("samples_*.jsonl")))
def test_lm_evals_own_accuracy_is_the_mean_at_k1(name: str, metric: str) -> None:
    """Oracle: ``results[task]["<metric>,none"]`` of the results file of the same date."""
    f = PYTHIA / name
    date = name.removeprefix("samples_arc_easy_").removesuffix(".jsonl")
    reported = json.loads((PYTHIA / f"results_{date}.json").read_text())["results"]["arc_easy"]
    t = ph.read_trials(f, metric=metric)
    assert _mean_k1(t, "EleutherAI/pythia-160m") == pytest.approx(reported[f"{metric},none"])
    assert t.source["runs"][0][f"{metric},none"] == reported[f"{metric},none"]


def test_repeats_keep_one_score_per_document_and_say_so() -> None:
    """gsm8k self-consistency with repeats 4: exact_match under score-first is 1,0,0 and under
    maj@4 1,1,0 (lm-eval's own 0.333 and 0.667)."""
    reported = json.loads(next(GSM.glob("results_*.json")).read_text())["results"]
    first = ph.read_trials(GSM)
    assert cells(first) == {
        ("Qwen/Qwen2.5-0.5B-Instruct", str(i)): [1, c, 0] for i, c in enumerate([1, 0, 0])
    }
    assert any("repeats=4" in n and "one filtered score per document" in n for n in first.notes)
    assert any("filters maj@4" in n for n in first.notes)
    maj = ph.read_trials(GSM, filter="maj@4")
    task = "gsm8k_cot_self_consistency"
    assert _mean_k1(maj, "Qwen/Qwen2.5-0.5B-Instruct") == pytest.approx(
        reported[task]["exact_match,maj@4"]
    )
    assert _mean_k1(first, "Qwen/Qwen2.5-0.5B-Instruct") == pytest.approx(
        reported[task]["exact_match,score-first"]
    )


def test_estimate_with_no_options_on_a_file_and_a_directory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for path in (RUN1, PYTHIA, DATA):
        code, out, _ = _cli(["estimate", str(path), "--k", "1"], capsys)
        assert code == 0 and "EleutherAI/pythia-160m" in out


def test_an_output_directory_of_several_models_and_tasks(tmp_path: Path) -> None:
    """The larger fixture: 2 models × 3 dates × (arc_easy 60 docs, gsm8k 40 docs); each lm-eval
    task keeps its own default metric and filter, task ids carry the lm-eval task."""
    truth = write_lm_eval(tmp_path)
    t = ph.read_trials(tmp_path)
    assert cells(t) == {k: v for k, v in truth.cells.items()}
    assert set(t.frame["category"]) == {"arc_easy", "gsm8k"}
    assert t.source["read"] == {
        "arc_easy": {"metric": "acc", "filter": "none"},
        "gsm8k": {"metric": "exact_match", "filter": "strict-match"},
    }
    for f in sorted(tmp_path.glob("*/samples_gsm8k_*.jsonl"))[:2]:
        one = ph.read_trials(f)
        model = one.systems[0]
        run = sorted(q.name for q in f.parent.glob("samples_gsm8k_*")).index(f.name)
        want = truth.summary[(model, "gsm8k", run)]["exact_match,strict-match"]
        assert _mean_k1(one, model) == pytest.approx(want)


def test_metric_and_filter_options(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match=r"metric 'f1' is not in the samples of lm-eval task "):
        ph.read_trials(PYTHIA, metric="f1")
    with pytest.raises(OptionError, match=r"filters: score-first, maj@4"):
        ph.read_trials(GSM, filter="maj@64")
    norm = ph.read_trials(PYTHIA, metric="acc_norm")
    assert int(norm.counts()["c"].sum()) == 2 + 2  # acc_norm 0,1,0,1 and 1,0,0,1


def test_a_score_other_than_0_or_1_needs_a_threshold(tmp_path: Path) -> None:
    f = tmp_path / "samples_squad_2025-01-01T00-00-00.000001.jsonl"
    rows = [{"doc_id": i, "filter": "none", "metrics": ["f1"], "f1": x, "resps": [["a"]],
             "filtered_resps": ["a"]} for i, x in enumerate([1.0, 0.5, 0.0])]  # fmt: skip
    f.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(FormatError, match=r"metric 'f1' takes values other than 0 and 1 \(0\.5"):
        ph.read_trials(f)
    t = ph.read_trials(f, threshold=0.5)
    assert t.frame["success"].tolist() == [True, True, False]
    assert t.frame["score"].tolist() == [1.0, 0.5, 0.0]


def test_system_from_model_args_then_directory(tmp_path: Path) -> None:
    d = tmp_path / "my-model"
    shutil.copytree(PYTHIA, d)
    for f in d.glob("results_*.json"):
        doc = json.loads(f.read_text())
        del doc["model_name"]
        f.write_text(json.dumps(doc))
    assert ph.read_trials(d).systems == ["EleutherAI/pythia-160m"]  # pretrained= of model_args
    for f in d.glob("results_*.json"):
        f.unlink()
    t = ph.read_trials(d)
    assert t.systems == ["my-model"] and t.source["system_from"] == "directory name"
    assert ph.read_trials(d, system_name="pythia").systems == ["pythia"]


def test_a_document_scored_twice_in_one_run_is_refused(tmp_path: Path) -> None:
    f = tmp_path / RUN1.name
    lines = RUN1.read_text().splitlines()
    f.write_text("\n".join([*lines, lines[1]]) + "\n")
    with pytest.raises(FormatError, match=r"lines 2 and 5 both hold doc_id 1 under filter 'none'"):
        ph.read_trials(f)


def test_a_missing_value_is_unscored(tmp_path: Path) -> None:
    f = tmp_path / RUN1.name
    rows = [json.loads(x) for x in RUN1.read_text().splitlines()]
    rows[2]["acc"] = None
    f.write_text("\n".join(json.dumps(r) for r in rows))
    t = ph.read_trials(f)
    assert t.frame["status"].tolist() == ["ok", "ok", "no_score", "ok"]
    assert int(t.counts()["unscored"].sum()) == 1


def test_a_results_file_reads_its_runs_samples(tmp_path: Path) -> None:
    """lm-eval's results_<date>.json names the run: its samples beside it are read; alone it is
    refused with where the per-document outcomes are."""
    results = PYTHIA / "results_2025-03-01T10-00-00.000001.json"
    t = ph.read_trials(results)
    assert len(t) == 4 and int(t.counts()["c"].sum()) == 3  # run 1's acc 1,0,1,1
    alone = tmp_path / results.name
    shutil.copy(results, alone)
    with pytest.raises(FormatError, match=r"without the per-document samples .*--log_samples"):
        ph.read_trials(alone)


def test_a_corpus_level_metric_is_refused_with_the_fix(tmp_path: Path) -> None:
    """lm-eval's bleu keeps (reference, prediction) per document for its corpus aggregate."""
    f = tmp_path / "samples_wmt16_2025-01-01T00-00-00.000001.jsonl"
    rows = [{"doc_id": 0, "filter": "none", "metrics": ["bleu", "exact_match"],
             "bleu": [["ref"], "pred"], "exact_match": 0.0}]  # fmt: skip
    f.write_text(json.dumps(rows[0]) + "\n")
    with pytest.raises(FormatError, match=r"not a per-document score; .*--map metric=NAME"):
        ph.read_trials(f)
    assert ph.read_trials(f, metric="exact_match").frame["success"].tolist() == [False]


@pytest.mark.parametrize("options", [{}, {"metric": "bypass", "threshold": 1.0}])
def test_predict_only_samples_hold_no_scores(tmp_path: Path, options: dict[str, object]) -> None:
    """``lm_eval --predict_only`` logs metric 'bypass' = 999 for every document; the error
    suggested ``--threshold 1``, which read every document as a success."""
    rows = [
        {"doc_id": i, "filter": "none", "metrics": ["bypass"], "bypass": 999, "resps": [["a"]]}
        for i in range(3)
    ]
    f = tmp_path / "samples_gsm8k_2025-01-01T00-00-00.000001.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(FormatError, match=r"task 'gsm8k' hold no scores: metric 'bypass'"):
        ph.read_trials(f, **options)
