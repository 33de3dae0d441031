"""``bipartite report`` on bad input (issue 22): a clean ``bipartite report: error: ...`` with exit
status 2 and no traceback, naming the argument (``--n-boot``), the folder (``--out``) or the file
and its line. Run through :func:`bipartite.cli.main` in-process (and Ctrl-C in a subprocess).

The bad-input families: sizes past the documented limit, unusable output folders (a file, below a
file, a read-only file system, no room), bad cells (NaN, text, labels outside {0, 1}, negative
weights, missing query ids) in CSV, TSV, gzip, CRLF, blank-line and Parquet files, non-UTF-8 bytes,
an open quote, ragged rows, header-only and empty files. (The fuzz suite exempts the CLI to this
file and tests/test_cli.py.)
"""

from __future__ import annotations

import errno
import gzip
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bipartite._utils.files import OutputError
from bipartite.cli import main
from bipartite.diagnostics import MAX_BOOT_BYTES, MAX_N_BOOT, Diagnostics, diagnose

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 60
    y1, y2 = rng.integers(0, 2, n), rng.integers(0, 2, n)
    return pd.DataFrame({"s": y1 + rng.normal(size=n), "y1": y1, "y2": y2,
                         "q": rng.integers(0, 6, n), "w": rng.uniform(0.5, 2, n)})


def report(capsys, path, *extra: str) -> tuple[int, str]:
    code = main(["report", str(path), "--score", "s", "--label", "y1", "--label", "y2",
                 "--no-progress", *extra])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def one_error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("bipartite report: error: ")]
    assert len(lines) == 1, err
    return lines[0]


# --------------------------------------------------------------------------------------------
# 1. --n-boot past the documented limit: refused before anything is read or allocated
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_boot", ["1000000000000", str(MAX_N_BOOT + 1)])
def test_n_boot_past_limit_is_refused_at_once(capsys, table, tmp_path, n_boot):
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    start = time.perf_counter()
    code, err = report(capsys, path, "--n-boot", n_boot)
    assert time.perf_counter() - start < 1.0
    assert code == 2
    assert "'n_boot' parameter (--n-boot) must be at most 1,000,000 (MAX_N_BOOT)" in one_error(err)


def test_n_boot_memory_limit_names_n_boot(table):
    """60 labels: 2·60 + 1770 = 1890 replicate rows per scorer; 10^6 replicates need 14.1 GiB,
    past MAX_BOOT_BYTES, refused before the (missing) file is even looked at."""
    labels = [f"y{k}" for k in range(60)]
    need = 8 * MAX_N_BOOT * (2 * 60 + 60 * 59 // 2)
    assert need > MAX_BOOT_BYTES
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"'n_boot' parameter \(--n-boot\) = 1,000,000 needs "
                                         r"14\.1 GiB .*lower n_boot to at most 142,029"):
        diagnose("no/such/file.csv", scores="s", labels=labels, n_boot=MAX_N_BOOT)
    assert time.perf_counter() - start < 1.0
    assert MAX_BOOT_BYTES // (8 * 1890) == 142_029
    diagnose(table, scores="s", labels=["y1", "y2"], n_boot=0)  # the limit leaves 0 alone


# --------------------------------------------------------------------------------------------
# 2. --out: a file, below a file, a read-only file system, no room while writing
# --------------------------------------------------------------------------------------------


def test_out_is_a_file_or_below_one(capsys, table, tmp_path):
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    code, err = report(capsys, path, "--out", str(blocker))
    assert code == 2
    assert f"cannot use {blocker} as the report folder (--out): it is {blocker}, which is a " \
           "file, not a folder" in one_error(err)
    code, err = report(capsys, path, "--out", str(blocker / "x"))
    assert code == 2
    assert f"it is below {blocker}, which is a file" in one_error(err)
    assert not (tmp_path / "x").exists() and blocker.read_text() == "x"


def test_out_read_only_file_system_monkeypatched(capsys, table, tmp_path, monkeypatch):
    """EROFS from the file system (simulated: os.open raises it in the folder), named as a
    read-only file system, before the diagnosis runs."""
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    ro = tmp_path / "ro"
    ro.mkdir()
    real_open = os.open

    def erofs(p, *args, **kwargs):
        if Path(p).parent == ro:
            raise OSError(errno.EROFS, "Read-only file system", str(p))
        return real_open(p, *args, **kwargs)

    monkeypatch.setattr(os, "open", erofs)
    ran = []
    monkeypatch.setattr("bipartite.diagnostics.diagnose", lambda *a, **k: ran.append(1))
    code, err = report(capsys, path, "--out", str(ro / "rep"))
    line = one_error(err)
    assert code == 2 and not ran
    assert f"cannot write {ro}: Read-only file system [EROFS]. The file system is read-only" in line
    assert "not writable by this user" not in line


def _bind_read_only(folder: Path) -> bool:
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("mount"):
        return False
    return subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(folder)],
                          capture_output=True).returncode == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bind mounts are Linux's")
def test_out_on_a_read_only_bind_mount(capsys, table, tmp_path):
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    ro = tmp_path / "ro"
    ro.mkdir()
    if not _bind_read_only(ro):
        pytest.skip("needs root and mount(8) to bind-mount a read-only folder")
    try:
        code, err = report(capsys, path, "--out", str(ro / "rep"))
        d = diagnose(path, scores="s", labels="y1", n_boot=0)
        with pytest.raises(OutputError, match=r"Read-only file system \[EROFS\]"):
            d.save(ro / "rep", figure=False)
    finally:
        subprocess.run(["umount", str(ro)], check=True)
    assert code == 2 and "Read-only file system [EROFS]" in one_error(err)


def test_save_disk_full_while_writing(table, tmp_path, monkeypatch):
    """ENOSPC in the middle of Diagnostics.save: an OutputError naming the file and the cause."""
    d = diagnose(table, scores="s", labels=["y1", "y2"], n_boot=0)

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OutputError, match=r"cannot write .*report\.md: No space left on device "
                                          r"\[ENOSPC\]\. The disk is full") as info:
        d.save(tmp_path / "rep", figure=False)
    assert isinstance(info.value, OSError) and info.value.errno == errno.ENOSPC


def test_save_still_writes_every_file(table, tmp_path):
    d = diagnose(table, scores="s", labels=["y1", "y2"], n_boot=0)
    paths = Diagnostics.save(d, tmp_path / "a" / "b", figure=False)
    assert sorted(p.name for p in paths) == sorted(p.name for p in (tmp_path / "a" / "b").iterdir())


# --------------------------------------------------------------------------------------------
# 3. Bad cells: the 1-based file line (CSV/TSV: line 1 = the header) or Parquet row
# --------------------------------------------------------------------------------------------


def _write(df: pd.DataFrame, path: Path, form: str) -> None:
    if form == "parquet":
        df.to_parquet(path)
    elif form == "tsv":
        df.to_csv(path, index=False, sep="\t")
    elif form == "gzip":
        with gzip.open(path, "wt") as fh:
            df.to_csv(fh, index=False)
    elif form == "crlf":
        df.to_csv(path, index=False, lineterminator="\r\n")
    elif form == "utf16":
        df.to_csv(path, index=False, encoding="utf-16")
    elif form == "blank_lines":  # blank lines after the header: pandas skips them, lines shift by 2
        text = df.to_csv(index=False).split("\n", 1)
        path.write_text(text[0] + "\n\n\n" + text[1])
    else:
        df.to_csv(path, index=False)


FORMS = {"csv": (".csv", 2), "tsv": (".tsv", 2), "gzip": (".csv.gz", 2), "crlf": (".csv", 2),
         "utf16": (".csv", 2), "blank_lines": (".csv", 4), "parquet": (".parquet", None)}
CELLS = {  # column, bad value, extra argv, expected message (row 5 is data row 5, 0-based)
    "nan_score": ("s", np.nan, [], "the score column 's' must hold finite numbers, got nan"),
    "text_score": ("s", "abc", [], "the score column 's' must hold finite numbers, got 'abc'"),
    "label_2": ("y1", 2, [], "the label column 'y1' must hold only 0 and 1, got 2"),
    "negative_weight": ("w", -1.0, ["--weight", "w"], "the weight column 'w' must be "
                                                      "non-negative, got -1"),
    "missing_qid": ("q", None, ["--qid", "q"], "the qid column 'q' must have no missing value"),
}


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("cell", list(CELLS))
def test_bad_cell_names_file_and_line(capsys, table, tmp_path, form, cell):
    col, value, extra, words = CELLS[cell]
    df = table.astype({col: object})
    df.loc[5, col] = value
    if form == "parquet" and isinstance(value, str):
        df[col] = df[col].astype(str)  # Parquet columns have one type
    suffix, offset = FORMS[form]
    path = tmp_path / f"t{suffix}"
    _write(df, path, form)
    code, err = report(capsys, path, *extra, "--n-boot", "0")
    at = "row 6" if offset is None else f"line {5 + offset}"
    assert code == 2
    assert one_error(err).startswith(f"bipartite report: error: '{path}', {at}: {words}"), err


def test_multiline_field_counts_lines(capsys, table, tmp_path):
    """A quoted field spanning two lines (a text column) shifts the file line of later rows."""
    df = table.assign(note="x").astype({"s": object})
    df.loc[2, "note"] = "two\nlines"
    df.loc[5, "s"] = "bad"
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    code, err = report(capsys, path, "--n-boot", "0")
    assert code == 2 and f"'{path}', line 8: the score column 's'" in one_error(err)
    assert path.read_text().splitlines()[7].startswith("bad,")


def test_in_memory_rows_say_counting_from_zero(table):
    with pytest.raises(ValueError, match=r"label column 'y1' of the data must hold only 0 and 1, "
                                         r"got 2 at row 5 \(counting from 0\)"):
        diagnose(table.assign(y1=np.where(np.arange(len(table)) == 5, 2, table.y1)),
                 scores="s", labels="y1", n_boot=0)


@pytest.mark.parametrize("case, words", [
    ("latin1", r"'{p}', line 4 \(byte 3 of the line\): not UTF-8 text"),
    ("open_quote", r"EOF inside string starting at line 62"),
    ("ragged", r"Expected 4 fields in line 62, saw 7"),
    ("header_only", r"must have at least 2 rows, got 0"),
    ("empty", r"Could not read the score file '{p}' as csv: No columns to parse"),
    # a folder is read out of core (docs/out_of_core.md): this one holds no Parquet file
    ("directory", r"names no Parquet file: '{p}' is not a file, a folder holding \*\.parquet"),
])
def test_malformed_files(capsys, table, tmp_path, case, words):
    import re

    path = tmp_path / "t.csv"
    text = table.drop(columns="w").to_csv(index=False)
    if case == "latin1":
        lines = text.encode().splitlines(True)
        lines[3] = lines[3][:2] + b"\xe9" + lines[3][2:]
        path.write_bytes(b"".join(lines))
    elif case == "open_quote":
        path.write_text(text + '"1,2,3\n')
    elif case == "ragged":
        path.write_text(text + "1,2,3,4,5,6,7\n")
    elif case == "header_only":
        path.write_text(text.splitlines()[0] + "\n")
    elif case == "empty":
        path.write_text("")
    else:
        path.mkdir()
    code, err = report(capsys, path)
    assert code == 2
    assert re.search(words.format(p=re.escape(str(path))), one_error(err)), err


def test_truncated_files(capsys, table, tmp_path):
    """A CSV cut inside its last row (fields gone: refused with that row's line) and a gzip file
    cut short (refused, naming the file). A cut inside the last field, leaving a shorter number
    and every field present, cannot be told from a file without a final newline."""
    text = table.drop(columns="w").to_csv(index=False)
    path = tmp_path / "t.csv"
    path.write_text(text.rstrip("\n")[:-7])  # ",1,0,3" and one more character gone
    code, err = report(capsys, path)
    assert code == 2 and f"'{path}', line 61: the label column 'y1' must hold finite numbers, " \
                         "got nan" in one_error(err)
    gz = tmp_path / "t.csv.gz"
    gz.write_bytes(gzip.compress(text.encode())[:-20])
    code, err = report(capsys, gz)
    assert code == 2 and f"Could not read the score file '{gz}' as csv" in one_error(err)


def test_fifo_is_refused_without_blocking(capsys, tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    fifo = tmp_path / "t.csv"
    os.mkfifo(fifo)
    start = time.perf_counter()
    code, err = report(capsys, fifo)
    assert code == 2 and time.perf_counter() - start < 5
    assert "does not exist (or is not a file)" in one_error(err)


# --------------------------------------------------------------------------------------------
# 4. Ctrl-C: a report-specific message, exit 130, and the process stops
# --------------------------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_report(tmp_path):
    rng = np.random.default_rng(1)
    n = 20_000
    y = rng.integers(0, 2, (n, 2))
    pd.DataFrame({"s": y @ [1, 1] + rng.normal(size=n), "y1": y[:, 0], "y2": y[:, 1],
                  "q": rng.integers(0, 500, n)}).to_csv(tmp_path / "big.csv", index=False)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bipartite", "report", str(tmp_path / "big.csv"), "--score", "s",
         "--label", "y1", "--label", "y2", "--qid", "q", "--n-boot", str(MAX_N_BOOT),
         "--no-progress", "--out", str(tmp_path / "rep")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
        # a shell's background job ignores SIGINT (and Python keeps it ignored): start with the
        # default handling, as a terminal's foreground job has
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(6)  # imported, reading or in the bootstrap
    assert proc.poll() is None
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert time.monotonic() - sent < 10
    assert proc.returncode == 130
    assert "Traceback" not in err and "study resume" not in err
    assert "bipartite report: interrupted; nothing was written" in err
    assert not (tmp_path / "rep").exists()


# --------------------------------------------------------------------------------------------
# Round 4 (issue 35): out-of-core inputs and addresses, one line each
# --------------------------------------------------------------------------------------------
def _dup_folder(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pa.table([pa.array([0.1, 0.2, 0.3, 0.4]), pa.array([0, 1, 0, 1]), pa.array([0, 0, 1, 1]),
                  pa.array([0.5, 0.6, 0.7, 0.8])], names=["s", "y1", "q", "s"])
    pq.write_table(t, tmp_path / "a.parquet")
    return tmp_path


def _string_score_folder(tmp_path):
    pd.DataFrame({"s": [0.1, 0.2, 0.3, 0.4], "y1": [0, 1, 0, 1], "q": [0, 0, 1, 1]}).to_parquet(
        tmp_path / "a.parquet")
    pd.DataFrame({"s": ["a", "b", "c", "d"], "y1": [0, 1, 0, 1], "q": [2, 2, 3, 3]}).to_parquet(
        tmp_path / "b.parquet")
    return tmp_path


@pytest.mark.parametrize(("make", "match"), [
    (_dup_folder, r"a\.parquet' has duplicate column names \['s'\]"),
    (_string_score_folder, r"score column 's' of the Parquet file '.*b\.parquet' must hold "
                           r"numbers, got type large_string")])
def test_out_of_core_bad_folder_is_named(tmp_path, make, match):
    with pytest.raises(ValueError, match=match):
        diagnose(str(make(tmp_path)), "s", "y1", qid="q")


def test_cli_bad_folder_one_line(tmp_path, capsys):
    folder = _dup_folder(tmp_path)
    code = main(["report", str(folder), "--score", "s", "--label", "y1", "--qid", "q",
                 "--no-progress", "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "duplicate column names" in one_error(err) and "Traceback" not in err


@pytest.mark.parametrize(("address", "match"), [
    ("synchronous", "dask's local schedulers are not addresses"),
    ("threads", "dask's local schedulers are not addresses"),
    ("localhost", "with its port"),
    ("tcp://host:notaport", "with its port")])
def test_scheduler_that_is_not_an_address(table, address, match):
    t = time.monotonic()
    with pytest.raises(ValueError, match=f"'scheduler' parameter.*{match}"):
        diagnose(table, "s", "y1", qid="q", scheduler=address)
    assert time.monotonic() - t < 5  # refused before connecting or reading


def test_scheduler_that_does_not_answer(table, capsys, tmp_path):
    t = time.monotonic()
    with pytest.raises(ValueError, match=r"'tcp://127\.0\.0\.1:1': no dask scheduler answered"):
        diagnose(table, "s", "y1", qid="q", scheduler="tcp://127.0.0.1:1")
    assert time.monotonic() - t < 30
    table.to_csv(tmp_path / "t.csv", index=False)
    code, err = report(capsys, tmp_path / "t.csv", "--qid", "q", "--scheduler", "synchronous")
    assert code == 2 and "not addresses" in one_error(err)


@pytest.mark.parametrize("bad", [[0, 0, np.inf, np.inf], [{"a": 1}] * 4, [0, 0, "a", "a"]])
def test_query_ids_one_check_for_metrics_and_report(bad):
    """The report refuses exactly the query ids that group_auc refuses (one check: non-finite,
    unhashable, mixed types), naming the column (issue 36)."""
    from bipartite.metrics import group_auc

    y, s = [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4]
    with pytest.raises((TypeError, ValueError)) as metric:
        group_auc(y, s, bad)
    with pytest.raises(type(metric.value), match="qid column 'q'"):
        diagnose(pd.DataFrame({"s": s, "y": y, "q": bad}), "s", "y", qid="q")


def test_cli_warnings_are_one_line(tmp_path):
    """A warning of the report (few queries) is printed as ``bipartite report: warning: ...``,
    one line, not in Python's ``file:line: Category: message`` form with the source line. Run as
    a user runs it, in its own process: inside pytest every warning is recorded by pytest's own
    ``catch_warnings(record=True)`` and never printed."""
    import subprocess
    import sys
    from pathlib import Path

    pd.DataFrame({"s": [0.1, 0.4, 0.35, 0.8], "y1": [0, 0, 1, 1], "y2": [1, 0, 1, 0],
                  "q": [0, 0, 1, 1]}).to_csv(tmp_path / "t.csv", index=False)
    root = str(Path(__file__).resolve().parents[1])
    proc = subprocess.run(
        [sys.executable, "-W", "always", "-m", "bipartite", "report", str(tmp_path / "t.csv"),
         "--score", "s", "--label", "y1", "--label", "y2", "--qid", "q", "--no-progress"],
        capture_output=True, text=True, timeout=120, cwd=root)
    err = proc.stderr
    assert proc.returncode == 0, err
    lines = [ln for ln in err.splitlines() if "Only 2 queries" in ln]
    assert len(lines) == 1 and lines[0].startswith("bipartite report: warning: Only 2 queries")
    assert "UserWarning:" not in err and ".py:" not in err


def test_cli_worker_error_is_one_line_without_the_worker_log(tmp_path, capfd):
    """An error raised in a dask worker's task (a uint64 score past the out-of-core range)
    reaches the CLI as its one error line; the worker's "Compute Failed" log block and the
    dashboard's port warning are not printed (file descriptors captured: the workers are
    processes)."""
    pd.DataFrame({"s": np.array([1, 2, 3, np.iinfo(np.int64).max]), "y1": [0, 1, 0, 1],
                  "q": [0, 0, 1, 1]}).to_parquet(tmp_path / "a.parquet")
    code = main(["report", str(tmp_path), "--score", "s", "--label", "y1", "--qid", "q",
                 "--no-progress", "--workers", "1"])
    err = capfd.readouterr().err
    assert code == 2 and "score column 's' holds the integer" in one_error(err)
    assert "Compute Failed" not in err and "Traceback" not in err and "8787" not in err
