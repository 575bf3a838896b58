"""The sniffers of passhat's own trial and count readers, apart from the readers.

A sniffer says from a file's name and first 64 KiB (``head``) whether the file is in its format.
The reader modules register these very functions (:func:`passhat.io._registry.register_reader`;
a reader that also reads a directory adds its directory test with :func:`with_directories`), and
:func:`passhat.io._registry.sniff` runs them on a file from :data:`SNIFFERS`, in the same order,
without importing the reader modules, which load pandas: ``passhat estimate FILE`` imports the
one reader it chose, not all twelve (a directory is sniffed by the registered readers, all
imported). ``tests/io/test_sniff.py`` checks that this table and the registrations agree (name,
kind, priority, function) and give the same answers.

Examples
--------
>>> [s.name for s in SNIFFERS][:3]
['parquet', 'lm-eval', 'harbor']
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from passhat.errors import FormatError, InputError
from passhat.io._scan import delimiter, file_kind, header, header_delimiter, source_files

__all__ = [
    "HELM_FILE",
    "HELM_RUN_FILES",
    "LM_EVAL_RESULTS",
    "LM_EVAL_SAMPLES",
    "SNIFFERS",
    "Sniffer",
    "dataset_of",
    "harbor_job",
    "is_count_schema",
    "looks_like_log",
    "with_directories",
]


@dataclass(frozen=True)
class Sniffer:
    """A built-in reader's sniffer, its format name, kind and priority (lower sniffs first)."""

    name: str
    kind: str
    priority: int
    sniff: Callable[[Path, str], bool]


def with_directories(
    file_sniff: Callable[[Path, str], bool], dir_sniff: Callable[[Path], bool]
) -> Callable[[Path, str], bool]:
    """The sniffer a reader registers: ``dir_sniff`` for a directory (it needs the reader's
    own helpers), else ``file_sniff`` (the one :data:`SNIFFERS` lists, kept as ``.file_sniff``).

    Examples
    --------
    >>> import tempfile
    >>> sniff = with_directories(tau_bench, lambda path: True)
    >>> sniff(Path(tempfile.mkdtemp()), ""), sniff.file_sniff is tau_bench
    (True, True)
    """

    def sniff(path: Path, head: str) -> bool:
        return dir_sniff(path) if path.is_dir() else file_sniff(path, head)

    sniff.file_sniff = file_sniff  # type: ignore[attr-defined]
    return sniff


# ------------------------------------------------------------------ tidy tables
def _first_line(head: str) -> str:
    return head.splitlines()[0] if head.strip() else ""


def is_count_schema(names: list[str]) -> bool:
    """Whether column names are a count table's (``task_id``/``task``, ``n``, ``c``, no
    ``success``).

    Examples
    --------
    >>> is_count_schema(["task_id", "n", "c"]), is_count_schema(["task_id", "success"])
    (True, False)
    """
    cols = {str(c).strip() for c in names}
    return {"n", "c"} <= cols and bool(cols & {"task_id", "task"}) and "success" not in cols


def dataset_of(path: Path, kinds: tuple[str, ...]) -> bool:
    """A directory of part files of these kinds (not a τ²-bench run directory)."""
    if (path / "results.json").is_file():
        return False
    try:
        files = source_files(path)
    except InputError:
        return False
    return (file_kind(files[0]) or "csv") in kinds


def tabular_csv(path: Path, head: str) -> bool:
    """A CSV or TSV trial table (a directory of them: :mod:`passhat.io.tidy`)."""
    kind = file_kind(path)
    if kind not in ("csv", "tsv") and path.suffix.lower() not in {".txt", ""}:
        return False
    first = _first_line(head)
    sep = "\t" if kind == "tsv" else header_delimiter(first)
    return sep in first and not first.lstrip().startswith(("{", "["))


def jsonl(path: Path, head: str) -> bool:
    """A JSON-lines trial table (a directory of them: :mod:`passhat.io.tidy`)."""
    lines = [ln for ln in head.splitlines() if ln.strip()]
    return (
        bool(lines)
        and lines[0].lstrip().startswith("{")
        and (file_kind(path) == "jsonl" or (len(lines) > 1 and lines[1].lstrip().startswith("{")))
    )


def parquet(path: Path, head: str) -> bool:
    """A Parquet trial table, not a count table (a directory of them: :mod:`passhat.io.tidy`)."""
    if not (file_kind(path) == "parquet" or head.startswith("PAR1")):
        return False
    try:
        return not is_count_schema(header(path))
    except FormatError:
        return True  # named .parquet: the reader says what is wrong with it


def counts(path: Path, head: str) -> bool:
    """A count table (``task_id``, ``n``, ``c``): CSV/TSV, JSON lines or Parquet."""
    if path.is_dir():
        return False
    kind = file_kind(path)
    if kind == "parquet" or head.startswith("PAR1"):
        return is_count_schema(header(path))
    first = head.splitlines()[0] if head.strip() else ""
    if first.lstrip().startswith("{"):
        import json

        try:
            return is_count_schema(list(json.loads(first)))
        except (ValueError, RecursionError):  # not one JSON object per line: not counts
            return False
    return is_count_schema([c.strip('"') for c in first.split(delimiter(path))])


# --------------------------------------------------------------- other harnesses
def harbor_job(path: Path) -> bool:
    """Whether a directory is a Harbor job: its ``result.json`` counts trials."""
    f = path / "result.json"
    if not f.is_file():
        return False
    with open(f, "rb") as fh:
        return b'"n_total_trials"' in fh.read(65536)


def harbor(path: Path, head: str) -> bool:
    """A Harbor job's or trial's ``result.json`` (a directory: :mod:`passhat.io.harbor`)."""
    if path.name != "result.json":
        return False
    if '"n_total_trials"' in head:
        return harbor_job(path.parent)
    return '"task_name"' in head and '"trial_name"' in head and '"agent_info"' in head


#: HELM's per-instance statistics, and the other files of a HELM run directory.
HELM_FILE = "per_instance_stats.json"
HELM_RUN_FILES = frozenset({"stats.json", "run_spec.json", "scenario_state.json", "scenario.json"})


def helm(path: Path, head: str) -> bool:
    """HELM's per-instance statistics, or another file of its run (a directory:
    :mod:`passhat.io.helm`)."""
    if path.name == HELM_FILE or (
        path.name in HELM_RUN_FILES and (path.parent / HELM_FILE).is_file()
    ):
        return True
    text = head.lstrip()
    return (
        text.startswith("[")
        and '"instance_id"' in head
        and '"train_trial_index"' in head
        and '"stats"' in head
    )


def looks_like_log(path: Path, head: str) -> bool:
    """Whether a file is an Inspect AI log: an ``.eval`` (a zip archive, damaged ones included:
    the reader refuses them by name) or a JSON log (``head``: its first characters). A directory
    of them: :mod:`passhat.io.inspect_log`."""
    if path.suffix.lower() == ".eval":  # Inspect's own extension: damaged ones are ours to refuse
        return True
    if head.startswith("PK"):  # a zip under another name: an .eval log by its members
        if "_journal/" in head[:512] or "header.json" in head:
            import zipfile

            return zipfile.is_zipfile(path)
        return False
    text = head.lstrip()
    if not text.startswith("{"):
        return False
    window = text[:4096]
    return (
        '"eval"' in window
        and '"version"' in window
        and ('"status"' in window or '"plan"' in window)
    )


#: lm-evaluation-harness file names: a task's samples, and a run's aggregated results.
LM_EVAL_SAMPLES = re.compile(
    r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)"
    r"\.jsonl(?:\.gz)?$"
)
LM_EVAL_RESULTS = re.compile(
    r"^results_(?P<date>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.json$"
)


def lm_eval(path: Path, head: str) -> bool:
    """lm-evaluation-harness samples or results (a directory: :mod:`passhat.io.lm_eval`)."""
    if LM_EVAL_SAMPLES.match(path.name):
        return True
    if LM_EVAL_RESULTS.match(path.name):
        return '"results"' in head and ('"n-samples"' in head or '"configs"' in head)
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    return first.lstrip().startswith("{") and '"doc_id"' in first and '"filtered_resps"' in first


#: The start of ``promptfoo export``'s file (``Eval.toResultsFile``: version, createdAt, then the
#: summary with its own version and timestamp), which has no evalId and may hold prompts longer
#: than the sniffed head before the first result.
_PROMPTFOO_EXPORT = re.compile(
    r'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"createdAt"\s*:\s*"[^"]*"\s*,\s*"results"\s*:\s*'
    r'\{\s*"version"\s*:\s*[23]\s*,\s*"timestamp"\s*:'
)


def promptfoo(path: Path, head: str) -> bool:
    """A promptfoo results file (``promptfoo eval -o`` or ``promptfoo export``)."""
    if path.is_dir() or not head.lstrip().startswith("{"):
        return False
    if ('"evalId"' in head and '"results"' in head) or _PROMPTFOO_EXPORT.match(head):
        return True
    return '"testIdx"' in head and '"promptIdx"' in head and '"version"' in head


def swebench(path: Path, head: str) -> bool:
    """A SWE-bench run report or experiment results (a directory: :mod:`passhat.io.swebench`)."""
    if not head.lstrip().startswith("{"):
        return False
    if '"resolved_ids"' in head and '"unresolved_ids"' in head:
        return True
    if '"patch_successfully_applied"' in head and '"tests_status"' in head:
        return True  # a per-instance report: refused with the file to give instead
    return '"resolved"' in head and any(
        f'"{k}"' in head for k in ("no_generation", "no_logs", "generated")
    )


_OBJECT_START = re.compile(r"^\s*\{")


def tau2_bench(path: Path, head: str) -> bool:
    """τ²-bench results (a run directory: :mod:`passhat.io.tau2_bench`)."""
    if not _OBJECT_START.match(head):
        return False
    if '"simulations"' in head and ('"termination_reason"' in head or '"info"' in head):
        return True
    # big task lists can push "simulations" past the sniffed head
    has_info = '"agent_info"' in head or '"user_info"' in head
    return has_info and ('"tasks"' in head or '"simulation_index"' in head)


_ARRAY_OF_OBJECTS = re.compile(r"^\s*\[\s*\{")


def tau_bench(path: Path, head: str) -> bool:
    """A τ-bench result file (a JSON array of runs with ``traj`` or ``info``)."""
    if not _ARRAY_OF_OBJECTS.match(head):
        return False
    window = head[:65536]
    return (
        '"task_id"' in window
        and '"reward"' in window
        and ('"traj"' in window or '"info"' in window)
        and '"simulations"' not in window
    )


#: The built-in trial and count readers' sniffers, in sniffing order (priority, then name).
SNIFFERS: tuple[Sniffer, ...] = tuple(
    sorted(
        (
            Sniffer("parquet", "trials", 10, parquet),
            Sniffer("lm-eval", "trials", 12, lm_eval),
            Sniffer("harbor", "trials", 13, harbor),
            Sniffer("helm", "trials", 14, helm),
            Sniffer("inspect", "trials", 15, looks_like_log),
            Sniffer("swe-bench", "trials", 16, swebench),
            Sniffer("promptfoo", "trials", 17, promptfoo),
            Sniffer("counts", "counts", 20, counts),
            Sniffer("tau2-bench", "trials", 25, tau2_bench),
            Sniffer("tau-bench", "trials", 30, tau_bench),
            Sniffer("csv", "trials", 80, tabular_csv),
            Sniffer("jsonl", "trials", 80, jsonl),
        ),
        key=lambda s: (s.priority, s.name),
    )
)
