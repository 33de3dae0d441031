"""Input of the diagnostics: the score table (a DataFrame, a mapping of columns or a CSV/TSV/Parquet
file) and its columns, checked with errors that name the file, the column and the row."""

from __future__ import annotations

import csv
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite._utils.files import first_non_utf8, open_maybe_gzip
from bipartite._utils.query_ids import factorize_ids
from bipartite._utils.validation import check_array, check_group_ids, first_index

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["STDIN", "Source", "as_names", "column", "frame", "label_bits", "load_scores", "plain", "qid_problem", "query_ids"]

#: The path that means standard input (``bipartite report - ...``).
STDIN = "-"

_READERS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}


def plain(v: Any) -> Any:
    """A numpy scalar as the Python value (JSON-friendly query ids)."""
    return v.item() if isinstance(v, np.generic) else v


def _encoding(p: Path) -> str:
    """UTF-16 when the file starts with its byte-order mark, else UTF-8 (a UTF-8 BOM is
    skipped)."""
    with open_maybe_gzip(p) as fh:
        head = fh.read(2)
    return "utf-16" if head in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"


def csv_line(p: Path, kind: str, row: int) -> int | None:
    """The 1-based file line where data row ``row`` (0-based, as pandas counts: blank lines
    skipped, a quoted field may span lines) of a CSV/TSV file starts; line 1 holds the header
    when the file has no blank or multi-line records. None when the file has fewer rows."""
    seen, start = -1, 1  # -1: the header
    with open_maybe_gzip(p, "rt", encoding=_encoding(p), newline="") as fh:
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
    with its byte-order mark) into a DataFrame. ``path`` ``"-"`` reads standard input: Parquet
    when it starts with Parquet's magic bytes, else CSV (TSV when the header has tabs and no
    comma).

    ``columns``: the columns that must be present; a missing one raises a ``ValueError`` naming
    the file, the column and the columns it has. A missing file raises ``FileNotFoundError``
    naming it. A file that cannot be parsed raises a ``ValueError`` naming the file and, where
    known, the line.
    """
    import pandas as pd

    if str(path) == STDIN:
        return _read_stdin(columns)
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
        at = None if encoding == "utf-16" else first_non_utf8(p)
        where = f"'{p}', line {at[0]} (byte {at[1]} of the line)" if at else f"'{p}'"
        raise ValueError(f"{where}: not {encoding.removesuffix('-sig').upper()} text "
                         f"({exc.reason}); save the score file as UTF-8.") from None
    except Exception as exc:  # the reader's error, with the file named
        raise ValueError(f"Could not read the score file '{p}' as {kind}: "
                         f"{_line_based(str(exc))}") from exc
    return _require_columns(df, columns, f"The score file '{p}'")


def _read_stdin(columns: Sequence[str] | None) -> pd.DataFrame:
    """The table on standard input: Parquet when it starts with Parquet's magic bytes, else CSV
    (TSV when the header line has a tab and no comma); UTF-8."""
    import io
    import sys

    import pandas as pd

    raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    if not raw.strip():
        raise ValueError("The score table on standard input ('-') is empty.")
    try:
        if raw[:4] == b"PAR1":
            df = pd.read_parquet(io.BytesIO(raw))
        else:
            header = raw.split(b"\n", 1)[0]
            sep = "\t" if b"\t" in header and b"," not in header else ","
            df = pd.read_csv(io.BytesIO(raw), sep=sep, encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"The score table on standard input is not UTF-8 text ({exc.reason})."
                         ) from None
    except Exception as exc:
        raise ValueError(f"Could not read the score table on standard input: "
                         f"{_line_based(str(exc))}") from exc
    return _require_columns(df, columns, "The score table on standard input")


def _require_columns(df: pd.DataFrame, columns: Sequence[str] | None, what: str) -> pd.DataFrame:
    """``df``, or a ValueError naming ``what``'s first missing column and its columns."""
    missing = [c for c in (columns or []) if c not in df.columns]
    if missing:
        raise ValueError(f"{what} has no column {missing[0]!r}; its columns are "
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


def _foreign_table(data: Any) -> pd.DataFrame | None:
    """A polars or pyarrow table (or another table with the dataframe interchange protocol) as a
    pandas DataFrame; None for anything else. polars and pyarrow are not imported here: the
    object's own ``to_pandas`` does the conversion."""
    import pandas as pd

    root = type(data).__module__.split(".")[0]
    if root == "polars" and type(data).__name__ == "LazyFrame":
        raise TypeError("The 'data' parameter is a polars LazyFrame: collect() it first "
                        "(data.collect()).")
    if root in ("polars", "pyarrow") and callable(getattr(data, "to_pandas", None)):
        return data.to_pandas()
    if callable(getattr(data, "__dataframe__", None)):
        return pd.api.interchange.from_dataframe(data)
    return None


def frame(data: Any, needed: list[str]) -> tuple[pd.DataFrame, Source]:
    """The table as a pandas DataFrame with its :class:`Source`: a path (``"-"``: standard
    input), a pandas, polars or pyarrow table, or a mapping of columns."""
    import pandas as pd

    if isinstance(data, str | os.PathLike):
        if str(data) == STDIN:
            return load_scores(STDIN, columns=needed), Source("standard input")
        p = Path(data)
        kind = _READERS.get(Path(p.name.lower().removesuffix(".gz")).suffix)
        return load_scores(data, columns=needed), Source(f"file '{data}'", p, kind)
    if isinstance(data, pd.DataFrame | Mapping):
        df = (data if isinstance(data, pd.DataFrame) else pd.DataFrame(
            {k: np.asarray(v) for k, v in data.items()}))
    else:
        df = _foreign_table(data)
        if df is None:
            t = type(data)
            raise TypeError(f"The 'data' parameter must be a pandas, polars or pyarrow table, a "
                            f"mapping of columns or a path to a CSV/Parquet file ('-': standard "
                            f"input), got {t.__module__}.{t.__qualname__}.")
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise ValueError(f"The 'data' parameter has no column {missing[0]!r}; its columns are "
                         f"{list(map(str, df.columns))}.")
    return df, Source("data")


def _row(df: pd.DataFrame, i: int) -> int:
    """The original 0-based row of position ``i`` (rows may have been dropped: ``dropna``)."""
    return int(df.index[i])


def _positive(df: pd.DataFrame, col: str, positive: Any, source: Source) -> np.ndarray:
    """A two-valued label column as 0/1: 1 where the value is ``positive`` (compared as a
    number when the column is numeric or boolean and ``positive`` reads as one, else as text,
    blanks around it ignored). A numeric 0/1 column with a ``positive`` that is not a number
    (``"yes"``) is read as it is, so one positive label serves a table mixing yes/no and 0/1
    labels."""
    import pandas as pd

    raw = df[col]
    miss = raw.isna().to_numpy()
    if miss.any():
        i = first_index(miss)
        raise ValueError(source.problem(_row(df, i), f"the label column {col!r}", "must have no "
                                        "missing value", "an empty field or NaN")
                         + f" ({int(miss.sum())} such rows in all; dropna=True / --dropna drops "
                           "them).")
    values = pd.unique(raw)
    if len(values) > 2:
        shown = ", ".join(repr(plain(v)) for v in values[:5])
        raise ValueError(f"The label column {col!r} of the {source.where} must have two values "
                         f"(positive_label={positive!r} marks the positive one), got "
                         f"{len(values)}: {shown}{', ...' if len(values) > 5 else ''}.")
    target: Any = positive
    numeric = pd.api.types.is_numeric_dtype(raw) or pd.api.types.is_bool_dtype(raw)
    if numeric and isinstance(positive, str):
        text = positive.strip().lower()
        target = {"true": 1.0, "false": 0.0}.get(text)
        if target is None:
            try:
                target = float(text)
            except ValueError:
                target = None
    if numeric and target is None and set(np.asarray(values, dtype=np.float64)) <= {0.0, 1.0}:
        return raw.to_numpy(dtype=np.float64)  # a 0/1 column beside yes/no ones: as it is
    hit = (raw.to_numpy() == target) if numeric and target is not None else (
        raw.astype(str).str.strip().to_numpy() == str(positive).strip())
    if len(values) == 2 and not hit.any():
        raise ValueError(f"The label column {col!r} of the {source.where} has no value "
                         f"{positive!r} (positive_label, --positive-label); its values are "
                         f"{[plain(v) for v in values]}.")
    if len(values) == 1 and not hit.any():
        warnings.warn(f"The label column {col!r} of the {source.where} has one value, "
                      f"{plain(values[0])!r}, which is not positive_label {positive!r}: every row "
                      "is read as negative (check the spelling of --positive-label).",
                      UserWarning, stacklevel=4)
    return hit.astype(np.float64)


def column(df: pd.DataFrame, col: str, role: str, source: Source, *,
           positive_label: Any = None) -> np.ndarray:
    """A numeric column as float64; errors name the column, its role and the first bad row (its
    file line, for a CSV/TSV file). A label column with ``positive_label`` is read as 0/1 by
    that value (:func:`_positive`). A score column of 64-bit integers beyond 2**53 (which
    float64 would round into ties) is read as its exact dense ranks, as the metrics read scores
    (``check_array(exact_integers="order")``): every statistic of the report uses scores only
    through their order (the near-tie tolerance then counts in ranks)."""
    import pandas as pd

    if role == "label" and positive_label is not None:
        return _positive(df, col, positive_label, source)
    dt = df[col].dtype
    if role != "label" and dt == np.float64:  # the common case, as it is (no copy) when valid
        v = df[col].to_numpy()
        if np.isfinite(v).all() and (role != "weight" or not (v < 0).any()):
            return v
    if (role == "score" and pd.api.types.is_integer_dtype(dt) and getattr(dt, "itemsize", 8) == 8
            and not df[col].isna().any()):
        raw = df[col].to_numpy(dtype=np.uint64 if dt.kind == "u" else np.int64)
        return check_array(raw, col, ndim=1, exact_integers="order")
    v = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=np.float64)
    # an integer column: every value finite, and the checks below read its own (narrower) type
    x = df[col].to_numpy() if isinstance(dt, np.dtype) and dt.kind in "iu" else v
    bad = np.flatnonzero(~np.isfinite(v)) if x is v else np.zeros(0, dtype=np.intp)
    subject = f"the {role} column {col!r}"
    if bad.size:
        raw = plain(df[col].iloc[int(bad[0])])
        hint = ""
        if df[col].iloc[bad].isna().all():
            hint = "; dropna=True (--dropna) drops the rows with a missing value"
        elif role == "label":
            hint = ("; for labels such as yes/no give the positive value: positive_label='yes' "
                    "(--positive-label yes)")
        raise ValueError(source.problem(_row(df, int(bad[0])), subject,
                                        "must hold finite numbers", f"{raw!r}")
                         + f" ({bad.size} such row{'s' if bad.size > 1 else ''} in all{hint}).")
    off = np.flatnonzero((x != 0) & (x != 1) if role == "label" else (x < 0) if role == "weight"
                         else np.zeros(0, dtype=bool))
    if off.size:
        must = "must hold only 0 and 1" if role == "label" else "must be non-negative"
        hint = (" (for another pair of values give the positive one: positive_label=, "
                "--positive-label)" if role == "label" else "")
        raise ValueError(source.problem(_row(df, int(off[0])), subject, must, f"{v[off[0]]:g}")
                         + hint + ".")
    return v


def label_bits(df: pd.DataFrame, col: str, source: Source, positive_label: Any = None
               ) -> np.ndarray:
    """A label column as (n,) bool: :func:`column`'s reading and checks (the same errors),
    without its float64 copy for a boolean column or an integer one holding only 0 and 1 (a
    one-byte column of 0/1 is its own bools: a view)."""
    dt = df[col].dtype
    if positive_label is None and isinstance(dt, np.dtype) and dt.kind in "biu":
        x = df[col].to_numpy()
        if dt.kind == "b":
            return x
        if dt.itemsize == 1:
            if not (x.view(np.uint8) > 1).any():
                return x.view(bool)
        elif not ((x != 0) & (x != 1)).any():
            return x != 0
    return column(df, col, "label", source, positive_label=positive_label) != 0


def qid_problem(v: pd.Series) -> tuple[int, str, str] | None:
    """The first missing or non-finite id of the query-id column ``v``: ``(row, what the column
    must do, the value as written)``, or None when every id is present and finite. The one
    check of a query-id column, for the report in memory (:func:`query_ids`) and for each part
    out of core (:func:`bipartite.diagnostics._dask_kernels.check_part`); the ids then take the
    package's query-id check (:func:`bipartite._utils.validation.check_group_ids`)."""
    import pandas as pd

    bad = v.isna().to_numpy()
    if not bad.any() and pd.api.types.is_float_dtype(v.dtype):
        bad = ~np.isfinite(v.to_numpy(dtype=np.float64))
    if not bad.any():
        return None
    i = first_index(bad)
    raw = v.iloc[i]
    if pd.isna(raw):
        return i, "have no missing value", "an empty field or NaN"
    return i, "hold finite ids", repr(plain(raw))


def query_ids(df: pd.DataFrame, col: str, source: Source) -> tuple[np.ndarray, int, Any]:
    """The query id column as codes 0..G−1 (int64, in sorted id order), G and the sorted ids.
    The ids are checked by :func:`qid_problem` and the package's one query-id check
    (:func:`bipartite._utils.validation.check_group_ids`: hashable, finite if numbers, one type,
    none missing), so that the report and the metrics accept the same ids; errors name the
    column and the first bad row."""
    import pandas as pd

    v = df[col]
    bad = qid_problem(v)
    if bad is not None:
        i, must, got = bad
        raise ValueError(source.problem(_row(df, i), f"the qid column {col!r}", f"must {must}",
                                        got) + (" (dropna=True, --dropna, drops such rows)."
                                                if must == "have no missing value" else "."))
    try:
        check_group_ids(v.to_numpy(), "qid")
    except (TypeError, ValueError) as e:
        raise type(e)(f"The qid column {col!r} of the {source.where}: {e}") from None
    dense = _dense_codes(v)
    g, qvalues = dense if dense is not None else pd.factorize(v, sort=True)
    return g.astype(np.int64, copy=False), len(qvalues), qvalues


def _dense_codes(v: pd.Series) -> tuple[np.ndarray, pd.Index] | None:
    """``pd.factorize(v, sort=True)`` of integer ids by :func:`bipartite._utils.query_ids
    .factorize_ids` (query ids are often 0..G−1, or a log's dense numbering: one count of the
    ids instead of a hash table); None for other ids. Native int64 ids that are already codes
    are their own codes: a read-only view, no copy."""
    import pandas as pd

    a = v.to_numpy() if isinstance(v.dtype, np.dtype) else None
    if a is None or a.dtype.kind not in "iu" or not len(a):
        return None
    ids, codes = factorize_ids(a)
    return codes, pd.Index(ids)
