"""Reading and computing for the out-of-core statistics (:mod:`bipartite.diagnostics._dask`;
docs/out_of_core.md): the Parquet files of a folder or glob, their footers checked and their
row groups cut into partitions, the dask frame of the needed columns, the client to use and
``compute`` with reading errors that name what was read."""

from __future__ import annotations

import contextlib
import glob
import os
from collections.abc import Iterator, Sequence
from typing import Any

import pandas as pd

__all__ = ["parquet_files"]


def parquet_files(data: str | os.PathLike | Sequence[str | os.PathLike]) -> list[str]:
    """The Parquet files of a folder (its ``*.parquet``, ``*.parq``, ``*.pq`` files), a glob
    pattern, one file or a list of files, sorted (each item's files)."""
    items = [data] if isinstance(data, str | os.PathLike) else list(data)
    files: list[str] = []
    for item in items:
        p = os.fspath(item)
        if os.path.isdir(p):
            found = sorted(f for ext in ("parquet", "parq", "pq")
                           for f in glob.glob(os.path.join(glob.escape(p), f"*.{ext}")))
        elif os.path.isfile(p):
            found = [p]
        else:
            found = sorted(glob.glob(p))
        if not found:
            raise ValueError(f"The 'data' parameter names no Parquet file: {p!r} is not a file, "
                             "a folder holding *.parquet files, or a glob that matches any.")
        files += found
    return files


def _pieces(files: list[str], rows_per_partition: int) -> tuple[list[tuple], pd.DataFrame]:
    """Every file's footer read (a malformed or truncated file is a ``ValueError`` naming it)
    and its row groups cut into pieces ``(path, row groups, first row)`` of about
    ``rows_per_partition`` rows; the (empty) frame of the first file's schema."""
    import pyarrow.parquet as pq

    pieces, schema = [], None
    for f in files:
        try:
            md = pq.ParquetFile(f).metadata
            sch = pq.read_schema(f)
        except Exception as e:  # pyarrow raises ArrowInvalid / OSError subclasses
            raise ValueError(f"The Parquet file {f!r} cannot be read (malformed or truncated): "
                             f"{e}") from None
        schema = sch if schema is None else schema
        first, group, rows = 0, [], 0
        for g in range(md.num_row_groups):
            group.append(g)
            rows += md.row_group(g).num_rows
            if rows >= rows_per_partition or g == md.num_row_groups - 1:
                pieces.append((f, tuple(group), first))
                first, group, rows = first + rows, [], 0
    return pieces, schema.empty_table().to_pandas()


def _read_piece(piece: tuple, columns: list[str] | None = None) -> pd.DataFrame:
    """One partition: row groups of one Parquet file (errors name the file)."""
    import pyarrow.parquet as pq

    path, groups, _ = piece
    try:
        df = pq.ParquetFile(path).read_row_groups(list(groups), columns=columns).to_pandas()
    except Exception as e:
        raise ValueError(f"The Parquet file {path!r} cannot be read (row groups {groups[0]}.."
                         f"{groups[-1]}; malformed or truncated): {e}") from None
    return df if columns is None else df[list(columns)]


def dask_frame(data: Any, needed: list[str], rows_per_partition: int):
    """(dask DataFrame of the needed columns, what it is (for messages), the Parquet pieces of
    its partitions or None)."""
    import dask.dataframe as dd

    pieces = None
    if isinstance(data, dd.DataFrame):
        ddf, where = data, "dask DataFrame"
    elif isinstance(data, pd.DataFrame):
        ddf = dd.from_pandas(data, npartitions=max(1, -(-len(data) // rows_per_partition)))
        where = "DataFrame"
    elif isinstance(data, str | os.PathLike | list | tuple):
        files = parquet_files(data)
        where = (f"Parquet file {files[0]!r}" if len(files) == 1 else
                 f"{len(files)} Parquet files ({files[0]!r}, ...)")
        pieces, meta = _pieces(files, rows_per_partition)
        missing = [c for c in needed if c not in meta.columns]
        if not missing:
            ddf = dd.from_map(_read_piece, pieces, meta=meta, enforce_metadata=False)
    else:
        raise ValueError("The 'data' parameter must be a dask or pandas DataFrame, or a Parquet "
                         f"folder, glob, file or list of files, got {type(data).__name__}.")
    cols = list(meta.columns) if pieces is not None else list(ddf.columns)
    missing = [c for c in needed if c not in cols]
    if missing:
        raise ValueError(f"The {where} has no column {missing[0]!r} (given as a score, label, "
                         f"qid or weight); its columns are {cols}.")
    return ddf[needed], where, pieces


def check_dtypes(ddf: Any, where: str, numeric: dict[str, str]) -> None:
    """Score, label and weight columns must be numbers (or booleans), from the metadata."""
    for col, what in numeric.items():
        dt = ddf[col].dtype
        if not (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt)):
            raise ValueError(f"The {what} column {col!r} of the {where} must hold numbers, got "
                             f"dtype {dt}.")


@contextlib.contextmanager
def connect(scheduler: Any):
    """The distributed client to use: None (dask's current default), a ``Client`` or the address
    of a running scheduler (connected for the call, then closed; the cluster keeps running)."""
    if scheduler is None:
        yield None
        return
    from distributed import Client

    if isinstance(scheduler, Client):
        yield scheduler
    elif isinstance(scheduler, str):
        with Client(scheduler, set_as_default=False) as client:
            yield client
    else:
        raise ValueError("The 'scheduler' parameter must be None, a distributed.Client or a "
                         f"scheduler address such as 'tcp://host:8786', got {scheduler!r}.")


@contextlib.contextmanager
def _reading(where: str) -> Iterator[None]:
    """Errors of reading the files (OS, import, pyarrow's) become a ValueError naming ``where``."""
    try:
        yield
    except (OSError, ImportError) as e:
        raise ValueError(f"Reading the {where} failed: {type(e).__name__}: {e}") from e
    except Exception as e:
        if type(e).__module__.startswith("pyarrow"):
            raise ValueError(f"Reading the {where} failed: {type(e).__name__}: {e}") from e
        raise


def compute(client: Any, *objs: Any, where: str = "") -> tuple:
    import dask

    with _reading(where):
        if client is None:
            return dask.compute(*objs)
        return tuple(client.compute(list(objs), sync=True))



def compute_parts(client: Any, *objs: Any, where: str = "") -> list[list]:
    """Every dask DataFrame of ``objs`` computed together (shared inputs read once), each as the
    list of its partitions: on a cluster the partitions are gathered one by one to the caller,
    so no worker concatenates a whole result (a table of every query)."""
    import dask

    with _reading(where):
        if client is None:
            return [[r] for r in dask.compute(*objs)]
        from distributed import futures_of

        done = client.persist(list(objs))
        out = []
        for d in done:  # a frame's partition i is the key (name, i)
            futs = sorted(futures_of(d), key=lambda f: f.key[1])
            out.append(client.gather(futs))
            del futs
        return out
