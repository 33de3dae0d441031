"""Input of the diagnostics: the score table (a DataFrame, a mapping of columns or a CSV/TSV/Parquet
file) and its columns, checked with errors that name the file, the column and the row."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["as_names", "column", "frame", "load_scores", "plain"]

_READERS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}


def plain(v: Any) -> Any:
    """A numpy scalar as the Python value (JSON-friendly query ids)."""
    return v.item() if isinstance(v, np.generic) else v


def load_scores(path: str | os.PathLike, *, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Read a score table (CSV, TSV or Parquet, by suffix; ``.gz`` CSV too) into a DataFrame.

    ``columns``: the columns that must be present; a missing one raises a ``ValueError`` naming
    the file, the column and the columns it has. A missing file raises ``FileNotFoundError``
    naming it.
    """
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"The score file '{p}' does not exist (or is not a file).")
    kind = _READERS.get(Path(p.name.lower().removesuffix(".gz")).suffix)
    if kind is None:
        raise ValueError(f"The score file '{p}' must end in one of {sorted(_READERS)} (or .csv.gz)"
                         f", got {''.join(p.suffixes) or 'no suffix'!r}.")
    try:
        df = pd.read_parquet(p) if kind == "parquet" else pd.read_csv(
            p, sep="\t" if kind == "tsv" else ",")
    except Exception as exc:  # the reader's error, with the file named
        raise ValueError(f"Could not read the score file '{p}' as {kind}: {exc}") from exc
    missing = [c for c in (columns or []) if c not in df.columns]
    if missing:
        raise ValueError(f"The score file '{p}' has no column {missing[0]!r}; its columns are "
                         f"{list(map(str, df.columns))}.")
    return df


def as_names(value: Any, name: str) -> list[str]:
    names = [value] if isinstance(value, str) else list(value if value is not None else [])
    if not names or not all(isinstance(v, str) for v in names):
        raise ValueError(f"The '{name}' parameter must be a column name or a non-empty list of "
                         f"column names, got {value!r}.")
    if len(set(names)) != len(names):
        raise ValueError(f"The '{name}' parameter has repeated columns: {names}.")
    return names


def frame(data: pd.DataFrame | Mapping[str, ArrayLike] | str | os.PathLike, needed: list[str]) -> tuple[pd.DataFrame, str]:
    import pandas as pd

    if isinstance(data, str | os.PathLike):
        return load_scores(data, columns=needed), f"file '{data}'"
    if isinstance(data, pd.DataFrame | Mapping):
        df, where = (data if isinstance(data, pd.DataFrame) else pd.DataFrame(
            {k: np.asarray(v) for k, v in data.items()})), "data"
    else:
        raise TypeError(f"The 'data' parameter must be a DataFrame, a mapping of columns or a path "
                        f"to a CSV/Parquet file, got {type(data).__name__}.")
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise ValueError(f"The 'data' parameter has no column {missing[0]!r}; its columns are "
                         f"{list(map(str, df.columns))}.")
    return df, where


def column(df: pd.DataFrame, col: str, role: str, where: str) -> np.ndarray:
    """A numeric column as float64; errors name the column, its role and the first bad row."""
    import pandas as pd

    v = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(v))
    if bad.size:
        raw = plain(df[col].iloc[int(bad[0])])
        raise ValueError(f"The {role} column {col!r} of the {where} must hold finite numbers, got "
                         f"{raw!r} at row {int(bad[0])} ({bad.size} such rows).")
    off = np.flatnonzero((v != 0) & (v != 1) if role == "label" else (v < 0) if role == "weight"
                         else np.zeros(len(v), dtype=bool))
    if off.size:
        must = "hold only 0 and 1" if role == "label" else "be non-negative"
        raise ValueError(f"The {role} column {col!r} of the {where} must {must}, got "
                         f"{v[off[0]]:g} at row {int(off[0])}.")
    return v

