"""File families of the fuzz suite (issue 22) for the data loaders: LETOR (SVMlight), Bank
Marketing (CSV) and Banking (CSV).

Each loader gets a small valid file (the head of the real data set) and its hostile variants:

- a named pipe (FIFO) and a directory given as the file: refused quickly, naming the path (a FIFO
  must not block waiting for a writer);
- CRLF line ends: valid, the same data as LF;
- UTF-16 text, and gzip bytes under a plain name: refused, naming the file;
- gzip under a ``.gz`` name: the same data for LETOR (it reads gzip by extension, as sklearn
  does); refused by name for the CSV loaders;
- a header-only (or comment-only) file: refused, naming the file;
- a file truncated inside its last row (no final newline): refused with file:line, or — where the
  cut left every value intact (inside a LETOR comment) — exactly the untruncated data.

Every call runs under the fuzz guard (time limit, memory cap). The tests skip, with the reason,
when the data folder does not hold the data set.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pytest

from bipartite.data import data_file, load_bank_marketing, load_bank_personal_loan, load_letor
from tests.fuzz.guard import run_guarded

#: (loader, data file in the data folder, suffix, rows kept, header lines)
LOADERS = {
    "letor": (load_letor, "letor/mq2008_S1.txt", ".txt", 60, 0),
    "bank_marketing": (load_bank_marketing, "bank_marketing_full.csv", ".csv", 60, 1),
    "banking": (load_bank_personal_loan, "bank_personal_loan.csv", ".csv", 60, 1),
}
#: Seconds a refusal may take (a FIFO must not block).
REFUSE_WITHIN = 10.0


def _head(name: str) -> bytes:
    _, rel, _, rows, header = LOADERS[name]
    src = data_file(rel)
    if src is None:
        pytest.skip(f"{rel} is not in the data folder (BIPARTITE_DATA or ../shared/data)")
    with open(src, "rb") as fh:
        return b"".join(fh.readline() for _ in range(rows + header))


def _arrays(bunch) -> dict[str, np.ndarray]:
    """The data of a loaded Bunch, dense, for comparison."""
    out = {}
    for key, value in bunch.items():
        if hasattr(value, "toarray"):
            value = value.toarray()
        if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
            out[key] = value
    return out


def _same_data(a, b) -> bool:
    A, B = _arrays(a), _arrays(b)
    return A.keys() == B.keys() and all(np.array_equal(A[k], B[k]) for k in A)


def _write(tmp_path: Path, name: str, data: bytes, suffix: str | None = None) -> Path:
    path = tmp_path / f"{name}{suffix or LOADERS[name][2]}"
    path.write_bytes(data)
    return path


def _refused(loader, path: Path, *, line: bool = False) -> None:
    r = run_guarded(lambda: loader(path), timeout=REFUSE_WITHIN)
    assert r.outcome != "hang", f"{path}: {r}"
    assert r.kind in ("ValueError", "FileNotFoundError", "TypeError", "OSError",
                      "IsADirectoryError", "NotADirectoryError"), f"{path}: {r}"
    assert str(path) in r.message, f"the error does not name the file {path}: {r.message}"
    if line:
        assert f"{path}:" in r.message, f"the error does not name the line: {r.message}"


@pytest.mark.parametrize("name", LOADERS)
def test_fifo_and_directory_are_refused_quickly_by_name(name, tmp_path):
    loader = LOADERS[name][0]
    fifo = tmp_path / f"pipe{LOADERS[name][2]}"
    os.mkfifo(fifo)
    _refused(loader, fifo)
    folder = tmp_path / f"folder{LOADERS[name][2]}"
    folder.mkdir()
    _refused(loader, folder)


@pytest.mark.parametrize("name", LOADERS)
def test_crlf_gives_the_same_data(name, tmp_path):
    loader = LOADERS[name][0]
    data = _head(name)
    ref = loader(_write(tmp_path, name, data))
    assert _same_data(ref, loader(_write(tmp_path, name + "_crlf",
                                         data.replace(b"\n", b"\r\n"), LOADERS[name][2])))


@pytest.mark.parametrize("name", LOADERS)
def test_utf16_and_misnamed_gzip_are_refused_by_name(name, tmp_path):
    loader = LOADERS[name][0]
    data = _head(name)
    _refused(loader, _write(tmp_path, name + "_utf16", data.decode().encode("utf-16"),
                            LOADERS[name][2]))
    _refused(loader, _write(tmp_path, name + "_gz_inside", gzip.compress(data), LOADERS[name][2]))


@pytest.mark.parametrize("name", LOADERS)
def test_gzip_by_extension(name, tmp_path):
    """LETOR reads ``.gz`` files (as sklearn's SVMlight loader does): the same data. The CSV
    loaders read plain text only: a ``.gz`` file is refused by name."""
    loader = LOADERS[name][0]
    data = _head(name)
    path = _write(tmp_path, name, gzip.compress(data), LOADERS[name][2] + ".gz")
    if name == "letor":
        assert _same_data(loader(_write(tmp_path, name, data)), loader(path))
    else:
        _refused(loader, path)


@pytest.mark.parametrize("name", LOADERS)
def test_header_only_is_refused_by_name(name, tmp_path):
    loader = LOADERS[name][0]
    header = LOADERS[name][4]
    data = _head(name)
    only = (b"".join(data.splitlines(keepends=True)[:header]) if header
            else b"# a LETOR file with comments only\n")
    _refused(loader, _write(tmp_path, name + "_header", only, LOADERS[name][2]))


@pytest.mark.parametrize("share", [0.0, 0.1, 0.5, 0.9])
@pytest.mark.parametrize("name", LOADERS)
def test_truncated_last_row_is_refused_or_intact(name, share, tmp_path):
    """The file cut inside its last row (its line end and at least one more byte gone: 1 byte,
    or a share of the row): refused with file:line, or, when the cut fell where no value changes
    (inside a LETOR comment), the data of the complete file. Never the last row with missing
    values silently 0."""
    loader = LOADERS[name][0]
    data = _head(name)
    body = data.rstrip(b"\r\n")
    last = body.rsplit(b"\n", 1)[1]
    cut = max(1, int(share * len(last)))
    path = _write(tmp_path, name + f"_cut{cut}", body[:-cut], LOADERS[name][2])
    r = run_guarded(lambda: loader(path), timeout=REFUSE_WITHIN)
    if r.outcome in ("silent", "nan"):
        assert name == "letor" and b"#" in last[:-cut], f"{path}: a truncated row was accepted"
        assert _same_data(loader(_write(tmp_path, name, data)), loader(path)), \
            f"{path}: the truncated file loaded different data"
    else:
        _refused(loader, path, line=True)
