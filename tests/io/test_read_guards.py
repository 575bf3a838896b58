"""Silent wrong reads and size guards (issue 13, items 9 and 12), and format detection.

Each test states the input that was read wrongly (or too slowly, or with an empty message)
before, and the rule now: refused with one line naming the file/row, or read right.
Oracles: counts worked out by hand; the sizes of generated files (sparse files via
``truncate``); a memory limit set with :mod:`resource` in a subprocess.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import passhat as ph
from passhat.errors import CountError, FormatError, ValidationError

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------- item 9
def test_two_success_columns_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "runs.csv"
    f.write_text("task_id,success,success\na,1,0\na,0,1\n")
    with pytest.raises(FormatError, match=r"columns 2 and 3 are both named 'success'"):
        ph.read_trials(f)
    with pytest.raises(FormatError, match=r"columns 2 and 3 are both named 'success'"):
        ph.read_counts(f)
    f.write_text("task_id,success, success\na,1,0\n")  # the same after trimming spaces
    with pytest.raises(FormatError, match="both named 'success'"):
        ph.read_trials(f)


def test_duplicate_parquet_columns_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "runs.parquet"
    tbl = pa.Table.from_arrays(
        [pa.array(["a"]), pa.array([True]), pa.array([False])],
        names=["task_id", "success", "success"],
    )
    pq.write_table(tbl, f)
    with pytest.raises(FormatError, match="both named 'success'"):
        ph.read_trials(f)


@pytest.mark.parametrize("literal", ["Infinity", "-Infinity", "NaN"])
def test_tau_bench_reward_must_be_finite(tmp_path: Path, literal: str) -> None:
    f = tmp_path / "run.json"
    f.write_text(
        '[{"task_id": 0, "trial": 0, "reward": 1.0, "info": {}, "traj": []},'
        f' {{"task_id": 1, "trial": 0, "reward": {literal}, "info": {{}}, "traj": []}}]'
    )
    with pytest.raises(FormatError, match=r"record 1: reward is -?(inf|nan), not a finite number"):
        ph.read_trials(f)


def test_tau2_bench_infinite_reward_is_refused(tmp_path: Path) -> None:
    sims = [
        {
            "task_id": "0",
            "trial": 0,
            "termination_reason": "user_stop",
            "reward_info": {"reward": 1.0},
        },
        {
            "task_id": "1",
            "trial": 0,
            "termination_reason": "user_stop",
            "reward_info": {"reward": float("inf")},
        },
    ]
    f = tmp_path / "results.json"
    f.write_text(json.dumps({"info": {}, "tasks": [], "simulations": sims}))
    with pytest.raises(FormatError, match=r"simulations\[1\] \(task '1'\): reward is inf"):
        ph.read_trials(f)


def test_tidy_infinite_score_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "runs.csv"
    f.write_text("task_id,score\na,1.0\na,inf\n")
    with pytest.raises(ValidationError, match=r"row 2: score inf is not a finite number"):
        ph.read_trials(f, threshold=0.5)
    with pytest.raises(ValidationError, match=r"row 2: score 'inf' is not a finite number"):
        ph.read_counts(f, threshold=0.5)


@pytest.mark.parametrize(
    ("column", "array", "what"),
    [
        ("task_id", pa.array([[1, 2], [3]]), "list"),
        ("task_id", pa.array([{"a": 1}, {"a": 2}]), "struct"),
        ("task_id", pa.array(pd.to_datetime(["2024-01-01", "2024-01-02"])), "timestamp"),
        ("trial", pa.array(pd.to_datetime(["2024-01-01", "2024-01-02"])), "timestamp"),
        ("trial", pa.array([[0], [1]]), "list"),
        ("system", pa.array([{"a": 1}, {"a": 2}]), "struct"),
    ],
)
def test_parquet_nested_and_date_columns_are_not_ids(
    tmp_path: Path, column: str, array: pa.Array, what: str
) -> None:
    cols = {
        "task_id": pa.array(["a", "b"]),
        "trial": pa.array([0, 0]),
        "success": pa.array([True, False]),
    }
    cols[column] = array
    f = tmp_path / "runs.parquet"
    pq.write_table(pa.table(cols), f)
    need = "a whole number" if column == "trial" else "text or a whole number"
    with pytest.raises(ValidationError, match=rf"{column} .*; {column} must be {need}"):
        ph.read_trials(f)
    with pytest.raises(ValidationError, match=rf"{column} is a column of {what}"):
        ph.read_counts(f)


def test_huge_count_is_one_line_with_the_real_value(tmp_path: Path) -> None:
    f = tmp_path / "counts.csv"
    f.write_text("task_id,n,c\na,99999999999999999999999,1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning on the way
        with pytest.raises(CountError) as info:
            ph.read_counts(f)
    msg = str(info.value)
    assert "\n" not in msg
    assert "n = 99999999999999999999999 is too large" in msg and "-9223372036854775808" not in msg
    g = tmp_path / "counts.parquet"
    pq.write_table(
        pa.table({"task_id": ["a"], "n": pa.array([2**63 + 5], pa.uint64()), "c": [1]}), g
    )
    with pytest.raises(CountError, match=r"n = 9223372036854775813 is too large"):
        ph.read_counts(g)
    big = ph.counts_from_arrays  # arrays beyond 2^53 too
    with pytest.raises(CountError, match="too large"):
        big([1e30], [1])


def test_huge_trial_number_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "runs.csv"
    f.write_text("task_id,trial,success\na,99999999999999999999999,1\n")
    with pytest.raises(ValidationError, match=r"row 1: trial '99999999999999999999999'"):
        ph.read_trials(f)
    with pytest.raises(ValidationError, match=r"row 1: trial '99999999999999999999999'"):
        ph.read_counts(f)


# ----------------------------------------------------------------- format detection
def test_parquet_count_table_is_recognised(tmp_path: Path) -> None:
    f = tmp_path / "counts.parquet"
    pd.DataFrame({"task_id": ["a", "b"], "n": [5, 4], "c": [5, 1]}).to_parquet(f)
    ds = ph.read(f)
    assert not isinstance(ds, ph.Trials) and ds.attrs["source_format"] == "counts"
    assert ds["c"].values.tolist() == [[5, 1]]


def test_bom_csv_count_table_and_bom_json(tmp_path: Path) -> None:
    f = tmp_path / "counts.csv"
    f.write_bytes(b"\xef\xbb\xbftask_id,n,c\na,5,2\n")
    ds = ph.read(f)
    assert not isinstance(ds, ph.Trials) and ds["n"].values.tolist() == [[5]]
    j = tmp_path / "runs.jsonl"
    j.write_bytes(b'\xef\xbb\xbf{"task_id": "a", "success": 1}\n{"task_id": "a", "success": 0}\n')
    assert ph.read_trials(j).counts()["c"].values.tolist() == [[1]]
    assert ph.read_counts(j)["n"].values.tolist() == [[2]]
    tau = tmp_path / "tau.json"
    rec = [{"task_id": 0, "trial": 0, "reward": 1.0, "info": {}, "traj": []}]
    tau.write_bytes(b"\xef\xbb\xbf" + json.dumps(rec).encode())
    assert ph.read_trials(tau).counts()["c"].values.tolist() == [[1]]


def test_tsv_reads_with_tabs_and_csv_gz_is_sniffed(tmp_path: Path) -> None:
    t = tmp_path / "runs.tsv"
    t.write_text("task_id\tsuccess\na,1\t1\nb\t0\n")
    tr = ph.read_trials(t)
    assert tr.tasks == ["a,1", "b"]  # a comma inside a tab-separated id stays in the id
    assert ph.read_counts(t)["n"].values.tolist() == [[1, 1]]
    g = tmp_path / "runs.csv.gz"
    with gzip.open(g, "wt") as fh:
        fh.write("task_id,success\na,1\na,0\nb,1\n")
    assert ph.read_trials(g).counts()["c"].values.tolist() == [[1, 1]]
    assert ph.read_counts(g)["n"].values.tolist() == [[2, 1]]
    c = tmp_path / "counts.tsv.gz"
    with gzip.open(c, "wt") as fh:
        fh.write("task_id\tn\tc\na\t4\t3\n")
    assert ph.read(c)["c"].values.tolist() == [[3]]


# ----------------------------------------------------------------- item 12: size guards
def _sparse(path: Path, head: bytes, size: int) -> Path:
    path.write_bytes(head)
    os.truncate(path, size)  # the rest reads as NUL bytes and takes no disk
    return path


def _cli(
    *args: str, limit_mb: int | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    code = "import sys; from passhat.cli import main; sys.exit(main(sys.argv[1:]))"
    if limit_mb is not None:  # a limit above what the interpreter already holds
        code = (  # the CLI imports lazily: import what a command needs before the limit
            "import resource, sys; from passhat.cli import main; import passhat.io, pyarrow\n"
            "vm = [int(x.split()[1]) for x in open('/proc/self/status')"
            " if x.startswith('VmSize')][0]\n"
            f"lim = vm * 1024 + {limit_mb} * 2**20\n"
            "resource.setrlimit(resource.RLIMIT_AS, (lim, lim))\n"
            "sys.exit(main(sys.argv[1:]))"
        )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.parametrize(
    ("name", "head"), [("big.csv", b"task_id,success\n"), ("big.json", b'[{"task_id": ')]
)
def test_sparse_2gb_file_is_refused_at_once(tmp_path: Path, name: str, head: bytes) -> None:
    f = _sparse(tmp_path / name, head, 2 * 2**30)
    t0 = time.perf_counter()
    proc = _cli("estimate", str(f), limit_mb=400)
    took = time.perf_counter() - t0
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert line.startswith("passhat: error: ") and "\n" not in line
    assert "NUL" in line and "binary file" in line
    assert took < 30  # was 52 s and 6.5 GB


def test_nul_after_the_head_of_a_json_file(tmp_path: Path) -> None:
    rec = [{"task_id": i, "trial": 0, "reward": 1.0, "info": {}, "traj": []} for i in range(3000)]
    f = tmp_path / "run.json"
    f.write_bytes(json.dumps(rec).encode()[:-1] + b"\x00" * 10 + b"]")
    with pytest.raises(FormatError, match=r"byte \d+ is NUL: a binary file"):
        ph.read_trials(f, format="tau-bench")


def test_out_of_memory_prints_a_message(tmp_path: Path) -> None:
    # a valid τ-bench file whose parse needs far more than the limit allows
    f = tmp_path / "run.json"
    blob = "x" * (300 * 2**20)
    f.write_text(json.dumps([{"task_id": 0, "trial": 0, "reward": 1.0, "info": {"x": blob}}]))
    proc = _cli("estimate", str(f), limit_mb=200)
    line = proc.stderr.strip()
    assert proc.returncode == 4, line
    assert line.startswith("passhat: error: out of memory") and "\n" not in line


def test_eval_member_with_absurd_ratio_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    f = tmp_path / "bomb.eval"
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps({"version": 2, "status": "success"}))
        zf.writestr("samples/1_epoch_1.json", b"\x00" * (48 * 2**20))
    t0 = time.perf_counter()
    with pytest.raises(FormatError, match=r"member 'samples/1_epoch_1.json' inflates [\d,]+ times"):
        ph.read_trials(f)
    assert time.perf_counter() - t0 < 5


def test_big_tidy_file_is_counted_out_of_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from passhat.io import _registry

    f = tmp_path / "runs.csv"
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "task_id": [f"t{i % 50}" for i in range(2000)],
            "trial": np.arange(2000) // 50,
            "success": rng.integers(0, 2, 2000),
        }
    )
    df.to_csv(f, index=False)
    monkeypatch.setattr(_registry, "STREAM_ROWS", 1000)  # the file is "big"
    ds = ph.read(f)
    assert not isinstance(ds, ph.Trials)
    assert ds.attrs["source_rows"] == 2000 and ds.attrs["source_format"] == "csv"
    ref = ph.read_trials(f).counts()
    assert (ds["c"].values == ref["c"].values).all() and (ds["n"].values == 40).all()
    assert ROOT.exists()


# ----------------------------------------------------------------- issue 33, item 6
def _lying_zip(path: Path, inflated: int, declared: int) -> None:
    """An .eval archive whose sample member declares ``declared`` bytes and inflates to
    ``inflated`` (its sizes patched in both headers, as a hostile archive writes them)."""
    import io
    import struct

    buf = io.BytesIO()
    name = "samples/1_epoch_1.json"
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps({"version": 2, "status": "success"}))
        zf.writestr(name, b"\x00" * inflated)
    raw = bytearray(buf.getvalue())
    for sig, at, name_at in ((b"PK\x01\x02", 24, 46), (b"PK\x03\x04", 22, 30)):
        i = raw.find(sig)
        while i >= 0:
            size_at = i + (28 if sig == b"PK\x01\x02" else 26)
            n_len = struct.unpack_from("<H", raw, size_at)[0]
            if raw[i + name_at : i + name_at + n_len] == name.encode():
                struct.pack_into("<I", raw, i + at, declared)
            i = raw.find(sig, i + 4)
    path.write_bytes(bytes(raw))


def test_zip_member_that_inflates_past_its_declared_size(tmp_path: Path) -> None:
    """The guard trusted declared sizes (a member declaring 1 MiB that inflated to 1.6 GB was
    read: 3.39 GB peak). Now every member is inflated once and counted by the bytes it gives."""
    f = tmp_path / "bomb.eval"
    _lying_zip(f, inflated=64 * 2**20, declared=2**20)
    with zipfile.ZipFile(f) as zf:
        assert zf.getinfo("samples/1_epoch_1.json").file_size == 2**20  # the lie
    t0 = time.perf_counter()
    with pytest.raises(FormatError, match=r"declares 1,048,576 bytes and inflates to more"):
        ph.read_trials(f)
    assert time.perf_counter() - t0 < 3


def test_first_line_without_end_is_read_bounded(tmp_path: Path) -> None:
    """A file with no line break: the delimiter sniffer read the whole of it as one line (2 GB
    file: 4.27 GB of memory). Now at most 1 MiB is read for a header; in a child limited to
    about 120 MiB more than the interpreter holds, a 200 MB line is refused at once."""
    f = tmp_path / "noline.csv"
    with open(f, "wb") as fh:
        fh.write(b"task_id,success")
        for _ in range(200):
            fh.write(b"a" * 2**20)
    proc = _cli("estimate", str(f), limit_mb=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        f"passhat: error: {f}: the first line is longer than 1,048,576 characters (no line "
        "break): not a table or JSON lines file passhat reads\n"
    )


def test_device_is_refused(tmp_path: Path) -> None:
    """``/dev/zero`` grew without bound."""
    with pytest.raises(FormatError, match=r"/dev/zero: is a character device, not a file"):
        ph.read_trials("/dev/zero")


def test_named_pipe_is_read_once(tmp_path: Path) -> None:
    """A FIFO is read once into a temporary file: sniffing consumed its head and the reader
    then said "the file is empty". The source names the FIFO, its hash is of the bytes read."""
    import hashlib
    import threading

    body = b"task_id,success\na,1\na,0\nb,1\n"
    fifo = tmp_path / "runs.csv"
    os.mkfifo(fifo)

    def feed() -> None:
        time.sleep(0.3)  # the reader waits for its writer
        with open(fifo, "wb") as fh:
            fh.write(body)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        trials = ph.read_trials(fifo)
    finally:
        writer.join(timeout=10)
    assert trials.counts()["n"].values.tolist() == [[2, 1]]
    assert trials.source["path"] == str(fifo)
    assert trials.source["sha256"] == hashlib.sha256(body).hexdigest()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.csv"]


def test_named_pipe_without_writer_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FIFO nobody writes blocked forever; now refused after WRITER_WAIT (shortened here)."""
    from passhat.io import _guards

    monkeypatch.setattr(_guards, "WRITER_WAIT", 0.5)
    fifo = tmp_path / "runs.csv"
    os.mkfifo(fifo)
    with pytest.raises(FormatError, match=r"runs\.csv: a named pipe with no writer for 0 s"):
        ph.read_trials(fifo)


def test_process_substitution_is_read(tmp_path: Path) -> None:
    """``passhat estimate <(cat runs.csv)``: the shell passes /dev/fd/63, a pipe."""
    runs = tmp_path / "runs.csv"
    runs.write_text("task_id,success\na,1\na,0\nb,1\n")
    cmd = f"{sys.executable} -m passhat.cli estimate <(cat {runs}) --json"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["input"]["path"].startswith("/dev/fd/")
    rows = doc.get("estimates") or doc["table"]
    means = [r["value"] for r in rows if r["metric"] == "mean"]
    assert means == [0.75]


# ----------------------------------------------------------------- issue 33, item 11
def test_gzip_named_parquet_says_gzip(tmp_path: Path) -> None:
    """Was: "Parquet magic bytes not found in footer"."""
    f = tmp_path / "runs.parquet"
    f.write_bytes(gzip.compress(b"task_id,success\na,1\n"))
    with pytest.raises(FormatError, match=r"runs\.parquet: a gzip-compressed file named \.parquet"):
        ph.read_trials(f)
    f.write_bytes(b"task_id,success\na,1\n")
    with pytest.raises(FormatError, match=r"named \.parquet but not a Parquet file"):
        ph.read_counts(f)


def _unprivileged(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` without the right to ignore file permissions (root drops its capabilities
    with capsh: the kernel then checks permissions as for anyone)."""
    import shlex
    import shutil

    if os.geteuid() != 0:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if shutil.which("capsh") is None:
        pytest.skip("running as root without capsh: permissions cannot be enforced")
    drop = "--drop=cap_dac_override,cap_dac_read_search"
    return subprocess.run(
        ["capsh", drop, "--", "-c", shlex.join(argv)], capture_output=True, text=True, timeout=60
    )


def test_file_in_an_unreadable_directory_names_it(tmp_path: Path) -> None:
    """Was a raw ``[Errno 13] Permission denied: '...'``."""
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "runs.csv").write_text("task_id,success\na,1\n")
    locked.chmod(0)
    try:
        proc = _unprivileged(
            [sys.executable, "-m", "passhat.cli", "estimate", str(locked / "runs.csv")]
        )
    finally:
        locked.chmod(0o755)
    assert proc.returncode == 4, proc.stderr
    assert proc.stderr == (
        f"passhat: error: {locked}/runs.csv: permission denied (the directory {locked} cannot be "
        "entered)\n"
    )


def test_unreadable_subdirectory_of_a_dataset_is_an_io_error(tmp_path: Path) -> None:
    """A dataset directory whose p2/ could not be entered was read without it (os.walk skips
    what it cannot list): task b's runs were lost at exit 0."""
    ds = tmp_path / "ds"
    for part, task in (("p1", "a"), ("p2", "b")):
        (ds / part).mkdir(parents=True)
        (ds / part / "part.csv").write_text(f"task_id,trial,success\n{task},0,1\n")
    (ds / "p2").chmod(0)
    try:
        proc = _unprivileged([sys.executable, "-m", "passhat.cli", "estimate", str(ds)])
    finally:
        (ds / "p2").chmod(0o755)
    assert proc.returncode == 4, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.count("\n") == 1 and f"{ds / 'p2'}" in proc.stderr, proc.stderr
    assert "permission denied" in proc.stderr, proc.stderr
