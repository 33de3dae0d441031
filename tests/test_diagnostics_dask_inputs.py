"""Inputs that change under a running out-of-core report (issue 35, R4-1): a clear error naming
the file and a non-zero exit, never a wrong table.

Each input file's identity (size, modification time, the footer's row count and a digest of its
bytes) is recorded when the run starts and checked by every read and on the driver before each
later pass and at the end (docs/out_of_core.md, "Inputs that change"). The tests replace a file
deterministically after its first, second or third read (the three passes), through a hook on
the piece reader (local threads) or between the driver's passes (the CLI's process cluster).
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pytest

import bipartite.diagnostics._dask_io as dask_io
import bipartite.diagnostics._dask_passes as dask_passes
from bipartite.cli import main
from bipartite.diagnostics import diagnose, placement_stats

pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")

N = 2000


def frame(seed: int, q_lo: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    return pd.DataFrame({"s": y + rng.normal(size=N), "y": y,
                         "q": rng.integers(q_lo, q_lo + 50, N).astype(np.int64)})


def write(df: pd.DataFrame, path) -> None:
    # uncompressed, no dictionary: a replacement of the same shape has the same size
    df.to_parquet(path, compression=None, use_dictionary=False)


@pytest.fixture
def folder(tmp_path):
    df = frame(0, 0)
    write(df.iloc[: N // 2], tmp_path / "a.parquet")
    write(df.iloc[N // 2:], tmp_path / "b.parquet")
    return tmp_path


def replacement(path, kind: str) -> None:
    """Replace ``path`` by another valid file: the same rows with other query ids (``same``),
    that with its old size and modification time restored (``disguised``: only the footer
    digest tells), or a shorter one (``shorter``)."""
    old = os.stat(path)
    new = frame(1, 50).iloc[: N // 2]
    write(new.iloc[: N // 4] if kind == "shorter" else new, path)
    if kind == "disguised":
        assert os.stat(path).st_size == old.st_size
        os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))


def swap_after_read(monkeypatch, nth: int, kind: str = "same") -> dict:
    """Replace a.parquet right after its ``nth`` read (pass ``nth``)."""
    reads: dict = {}
    orig = dask_io._read_piece

    def hook(piece, columns=None):
        out = orig(piece, columns)
        path = piece[0]
        reads[path] = reads.get(path, 0) + 1
        if path.endswith("a.parquet") and reads[path] == nth:
            replacement(path, kind)
        return out

    monkeypatch.setattr(dask_io, "_read_piece", hook)
    return reads


@pytest.mark.parametrize("nth", [1, 2, 3])
@pytest.mark.parametrize("kind", ["same", "shorter"])
def test_a_file_replaced_after_a_read_is_named(folder, monkeypatch, nth, kind):
    swap_after_read(monkeypatch, nth, kind)
    with pytest.raises(dask_io.InputChanged, match=r"Parquet file '.*a\.parquet' changed"):
        placement_stats(str(folder), "s", "y", qid="q")


def test_a_disguised_replacement_is_caught_by_the_footer(folder, monkeypatch):
    """Claim: a replacement with the same size and a restored modification time (and the same
    row count) still differs in its footer (the query ids' statistics) and is named."""
    swap_after_read(monkeypatch, 1, "disguised")
    with pytest.raises(dask_io.InputChanged, match=r"a\.parquet' changed .*footer"):
        placement_stats(str(folder), "s", "y", qid="q")


def test_unchanged_files_give_the_in_memory_table(folder):
    """The checks pass on files that stay unchanged: the out-of-core AUC equals the in-memory
    one of the same rows."""
    df = pd.concat([pd.read_parquet(folder / "a.parquet"), pd.read_parquet(folder / "b.parquet")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ooc = diagnose(str(folder), "s", "y", qid="q").tables["auc"]["auc"].iloc[0]
        mem = diagnose(df, "s", "y", qid="q").tables["auc"]["auc"].iloc[0]
    assert ooc == pytest.approx(mem, abs=1e-12)


@pytest.mark.parametrize(("when", "step"), [("before", "_pass_count"), ("before", "_pass_place"),
                                            ("after", "_pass_place")])
def test_cli_fails_naming_the_file(folder, monkeypatch, capsys, when, step):
    """The CLI on its local process cluster: the file replaced on the driver between passes
    (after the first, the second or the third pass) gives one error line naming the file and
    exit status 2, no table."""
    orig = getattr(dask_passes, step)

    def swapped(*args, **kwargs):
        if when == "before":
            replacement(folder / "a.parquet", "same")
        out = orig(*args, **kwargs)
        if when == "after":
            replacement(folder / "a.parquet", "same")
        return out

    monkeypatch.setattr(dask_passes, step, swapped)
    code = main(["report", str(folder), "--score", "s", "--label", "y", "--qid", "q",
                 "--no-progress", "--workers", "1"])
    out = capsys.readouterr()
    assert code == 2 and out.out == ""
    lines = [ln for ln in out.err.splitlines() if ln.startswith("bipartite report: error: ")]
    assert len(lines) == 1 and "a.parquet' changed" in lines[0], out.err
    assert "Traceback" not in out.err
