"""Input of the diagnostics: the score table (a DataFrame, a mapping of columns or a CSV/TSV/Parquet
file) and its columns, checked with errors that name the file, the column and the row."""

from __future__ import annotations

import csv
import gzip
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Source", "as_names", "column", "frame", "load_scores", "plain"]

_READERS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}


def plain(v: Any) -> Any:
    """A numpy scalar as the Python value (JSON-friendly query ids)."""
    return v.item() if isinstance(v, np.generic) else v


def _open(p: Path, mode: str = "rb", **kwargs):
    return gzip.open(p, mode, **kwargs) if p.name.lower().endswith(".gz") else open(p, mode, **kwargs)


def _encoding(p: Path) -> str:
    """UTF-16 when the file starts with its byte-order mark, else UTF-8 (a UTF-8 BOM is
    skipped)."""
    with _open(p) as fh:
        head = fh.read(2)
    return "utf-16" if head in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"


def _first_bad_line(p: Path, encoding: str) -> tuple[int, int] | None:
    """(line, byte) of the first byte that is not text in ``encoding`` (1-based), UTF-8 only."""
    if encoding == "utf-16":
        return None
    with _open(p) as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return lineno, exc.start + 1
    return None


def csv_line(p: Path, kind: str, row: int) -> int | None:
    """The 1-based file line where data row ``row`` (0-based, as pandas counts: blank lines
    skipped, a quoted field may span lines) of a CSV/TSV file starts; line 1 holds the header
    when the file has no blank or multi-line records. None when the file has fewer rows."""
    seen, start = -1, 1  # -1: the header
    with _open(p, "rt", encoding=_encoding(p), newline="") as fh:
        reader = csv.reader(fh, delimiter="\t" if kind == "tsv" else ",")
        for record in reader:
            if record and any(f.strip() for f in record):
                if seen == row:
                    return start
                seen += 1
            start = reader.line_num + 1
    return None


@dataclass(frozen=True)
class Source:
    """Where a table came from: ``where`` for messages (``file 'x.csv'``, ``data``), the file
    and its kind; :meth:`locate` says where a data row is in it."""

    where: str
    path: Path | None = None
    kind: str | None = None

    def locate(self, row: int) -> str | None:
        """``'x.csv', line N`` (CSV/TSV: the 1-based file line of the 0-based data row),
        ``'x.parquet', row N`` (1-based), None for in-memory data."""
        if self.path is None:
            return None
        if self.kind == "parquet":
            return f"'{self.path}', row {row + 1}"
        try:
            line = csv_line(self.path, self.kind or "csv", row)
        except (OSError, EOFError, UnicodeDecodeError, csv.Error):
            line = None
        return (f"'{self.path}', line {line}" if line is not None
                else f"'{self.path}', data row {row + 1}")

    def problem(self, row: int, subject: str, must: str, got: str) -> str:
        """A message: ``'x.csv', line 7: the score column 's' must ..., got ...`` (files) or
        ``The score column 's' of the data must ..., got ... at row 3 (counting from 0)`` (in
        memory: the position, as ``iloc``)."""
        loc = self.locate(row)
        if loc is None:
            return f"{subject[:1].upper()}{subject[1:]} of the {self.where} {must}, got {got} " \
                   f"at row {row} (counting from 0)"
        return f"{loc}: {subject} {must}, got {got}"


def load_scores(path: str | os.PathLike, *, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Read a score table (CSV, TSV or Parquet, by suffix; ``.gz`` CSV too; UTF-8, or UTF-16
    with its byte-order mark) into a DataFrame.

    ``columns``: the columns that must be present; a missing one raises a ``ValueError`` naming
    the file, the column and the columns it has. A missing file raises ``FileNotFoundError``
    naming it. A file that cannot be parsed raises a ``ValueError`` naming the file and, where
    known, the line.
    """
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"The score file '{p}' does not exist (or is not a file).")
    kind = _READERS.get(Path(p.name.lower().removesuffix(".gz")).suffix)
    if kind is None:
        raise ValueError(f"The score file '{p}' must end in one of {sorted(_READERS)} (or .csv.gz)"
                         f", got {''.join(p.suffixes) or 'no suffix'!r}.")
    encoding = "utf-8"
    try:
        if kind == "parquet":
            df = pd.read_parquet(p)
        else:
            encoding = _encoding(p)
            df = pd.read_csv(p, sep="\t" if kind == "tsv" else ",", encoding=encoding)
    except UnicodeDecodeError as exc:
        at = _first_bad_line(p, encoding)
        where = f"'{p}', line {at[0]} (byte {at[1]} of the line)" if at else f"'{p}'"
        raise ValueError(f"{where}: not {encoding.removesuffix('-sig').upper()} text "
                         f"({exc.reason}); save the score file as UTF-8.") from None
    except Exception as exc:  # the reader's error, with the file named
        raise ValueError(f"Could not read the score file '{p}' as {kind}: "
                         f"{_line_based(str(exc))}") from exc
    missing = [c for c in (columns or []) if c not in df.columns]
    if missing:
        raise ValueError(f"The score file '{p}' has no column {missing[0]!r}; its columns are "
                         f"{list(map(str, df.columns))}.")
    return df


def _line_based(message: str) -> str:
    """pandas' tokenizer counts ``row`` from 0 in "EOF inside string starting at row N" (its
    ``line N`` is 1-based already): say the 1-based file line."""
    import re

    return re.sub(r"starting at row (\d+)", lambda m: f"starting at line {int(m[1]) + 1}",
                  message)


def as_names(value: Any, name: str) -> list[str]:
    names = [value] if isinstance(value, str) else list(value if value is not None else [])
    if not names or not all(isinstance(v, str) for v in names):
        raise ValueError(f"The '{name}' parameter must be a column name or a non-empty list of "
                         f"column names, got {value!r}.")
    if len(set(names)) != len(names):
        raise ValueError(f"The '{name}' parameter has repeated columns: {names}.")
    return names


def frame(data: pd.DataFrame | Mapping[str, ArrayLike] | str | os.PathLike, needed: list[str]
          ) -> tuple[pd.DataFrame, Source]:
    import pandas as pd

    if isinstance(data, str | os.PathLike):
        p = Path(data)
        kind = _READERS.get(Path(p.name.lower().removesuffix(".gz")).suffix)
        return load_scores(data, columns=needed), Source(f"file '{data}'", p, kind)
    if isinstance(data, pd.DataFrame | Mapping):
        df = (data if isinstance(data, pd.DataFrame) else pd.DataFrame(
            {k: np.asarray(v) for k, v in data.items()}))
    else:
        raise TypeError(f"The 'data' parameter must be a DataFrame, a mapping of columns or a path "
                        f"to a CSV/Parquet file, got {type(data).__name__}.")
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise ValueError(f"The 'data' parameter has no column {missing[0]!r}; its columns are "
                         f"{list(map(str, df.columns))}.")
    return df, Source("data")


def column(df: pd.DataFrame, col: str, role: str, source: Source) -> np.ndarray:
    """A numeric column as float64; errors name the column, its role and the first bad row (its
    file line, for a CSV/TSV file)."""
    import pandas as pd

    v = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(v))
    subject = f"the {role} column {col!r}"
    if bad.size:
        raw = plain(df[col].iloc[int(bad[0])])
        raise ValueError(source.problem(int(bad[0]), subject, "must hold finite numbers",
                                        f"{raw!r}") + f" ({bad.size} such row"
                         f"{'s' if bad.size > 1 else ''} in all).")
    off = np.flatnonzero((v != 0) & (v != 1) if role == "label" else (v < 0) if role == "weight"
                         else np.zeros(len(v), dtype=bool))
    if off.size:
        must = "must hold only 0 and 1" if role == "label" else "must be non-negative"
        raise ValueError(source.problem(int(off[0]), subject, must, f"{v[off[0]]:g}") + ".")
    return v
