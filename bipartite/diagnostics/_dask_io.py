"""Reading and computing for the out-of-core statistics (:mod:`bipartite.diagnostics._dask_passes`;
docs/out_of_core.md): the Parquet files of a folder or glob, their footers checked and their
row groups cut into partitions, the dask frame of the needed columns, the client to use and
``compute`` with reading errors that name what was read."""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
from collections.abc import Iterator, Sequence
from typing import Any

import pandas as pd

__all__ = ["InputChanged", "check_address", "check_unchanged", "file_identity", "parquet_files"]


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


class InputChanged(ValueError):
    """An input file of an out-of-core run changed while the run read it (docs/out_of_core.md,
    "Inputs that change"): the run stops instead of mixing two versions of the data."""


def _stat(path: str) -> tuple[int, int]:
    """(size in bytes, modification time in ns) of ``path``; (-1, -1) when it is gone."""
    try:
        st = os.stat(path)
    except OSError:
        return -1, -1
    return st.st_size, st.st_mtime_ns


def _footer_digest(path: str) -> str:
    """A digest of the Parquet footer's bytes (the schema, every row group's row count, sizes
    and column statistics): the file's content as its footer describes it."""
    with open(path, "rb") as fh:
        fh.seek(-8, os.SEEK_END)
        tail = fh.read(8)
        size = int.from_bytes(tail[:4], "little")
        fh.seek(-8 - size, os.SEEK_END)
        return hashlib.blake2b(fh.read(size), digest_size=16).hexdigest()


def file_identity(path: str) -> tuple:
    """``(size, mtime_ns, footer rows, footer digest)`` of a Parquet file: what the run
    records of each input at the start and checks before each later pass and at the end
    (:func:`check_unchanged`); the footer's schema and row groups are in its digest."""
    import pyarrow.parquet as pq

    size, mtime = _stat(path)
    md = pq.ParquetFile(path).metadata
    return size, mtime, md.num_rows, _footer_digest(path)


def _when(stat: tuple[int, int]) -> str:
    """A (size, mtime_ns) pair for messages."""
    import datetime

    if stat[0] < 0:
        return "gone"
    t = datetime.datetime.fromtimestamp(stat[1] / 1e9, datetime.timezone.utc)
    return f"{stat[0]} bytes, modified {t.isoformat(timespec='milliseconds')}"


def _changed(path: str, what: str, then: Any, now: Any) -> InputChanged:
    return InputChanged(
        f"The Parquet file {path!r} changed while the report was reading it ({what}: "
        f"{then} when the run started, {now} now): stopped rather than mix two versions of the "
        "data. Run it again on files that stay unchanged while it runs (docs/out_of_core.md).")


def check_unchanged(pieces: list[tuple] | None) -> None:
    """Every input file of ``pieces`` as recorded at the start: its :func:`file_identity` now
    (size, modification time, the footer's row count and digest) equal to the one recorded,
    else :class:`InputChanged` naming the file and the first part that differs. Nothing to
    check for a dask or pandas DataFrame (``pieces`` None)."""
    for path, ident in {p[0]: p[4] for p in pieces or []}.items():
        if _stat(path)[0] < 0:
            raise _changed(path, "existence", "present", "gone")
        try:
            now = file_identity(path)
        except Exception as e:  # pyarrow raises ArrowInvalid / OSError subclasses
            raise _changed(path, "footer", "readable", f"unreadable ({e})") from None
        if now[:2] != ident[:2]:
            raise _changed(path, "size and modification time", _when(ident[:2]),
                           _when(now[:2]))
        if now[2] != ident[2]:
            raise _changed(path, "rows", ident[2], now[2])
        if now[3] != ident[3]:
            raise _changed(path, "footer (schema, row groups, statistics)", "one", "another")


def _pieces(files: list[str], rows_per_partition: int
            ) -> tuple[list[tuple], pd.DataFrame, dict[str, Any]]:
    """Every file's footer read (a malformed or truncated file is a ``ValueError`` naming it)
    and its row groups cut into pieces ``(path, row groups, first row, rows, identity)`` of
    about ``rows_per_partition`` rows (identity: :func:`file_identity`, recorded now); the
    (empty) frame of the first file's schema; every file's schema. A file with duplicate
    column names is refused by name."""
    import pyarrow.parquet as pq

    pieces, schema, schemas = [], None, {}
    for f in files:
        try:
            ident = file_identity(f)
            md = pq.ParquetFile(f).metadata
            sch = pq.read_schema(f)
        except Exception as e:  # pyarrow raises ArrowInvalid / OSError subclasses
            raise ValueError(f"The Parquet file {f!r} cannot be read (malformed or truncated): "
                             f"{e}") from None
        dup = sorted({c for c in sch.names if sch.names.count(c) > 1})
        if dup:
            raise ValueError(f"The Parquet file {f!r} has duplicate column names {dup}: each "
                             "column must have its own name.")
        schemas[f] = sch
        schema = sch if schema is None else schema
        first, group, rows = 0, [], 0
        for g in range(md.num_row_groups):
            group.append(g)
            rows += md.row_group(g).num_rows
            if rows >= rows_per_partition or g == md.num_row_groups - 1:
                pieces.append((f, tuple(group), first, rows, ident))
                first, group, rows = first + rows, [], 0
    return pieces, schema.empty_table().to_pandas(), schemas


def _read_piece(piece: tuple, columns: list[str] | None = None) -> pd.DataFrame:
    """One partition: row groups of one Parquet file (errors name the file). The file must be
    the one recorded at the start (size and modification time, before and after the read) and
    give the piece's row count (:class:`InputChanged` otherwise), in every pass."""
    import pyarrow.parquet as pq

    path, groups, _, n_rows, ident = piece
    if _stat(path) != ident[:2]:
        raise _changed(path, "size and modification time", _when(ident[:2]), _when(_stat(path)))
    try:
        df = pq.ParquetFile(path).read_row_groups(list(groups), columns=columns).to_pandas()
    except Exception as e:
        raise ValueError(f"The Parquet file {path!r} cannot be read (row groups {groups[0]}.."
                         f"{groups[-1]}; malformed or truncated): {e}") from None
    if _stat(path) != ident[:2]:  # replaced while it was read
        raise _changed(path, "size and modification time", _when(ident[:2]), _when(_stat(path)))
    if len(df) != n_rows:
        raise _changed(path, f"rows of row groups {groups[0]}..{groups[-1]}", n_rows, len(df))
    return df if columns is None else df[list(columns)]


def dask_frame(data: Any, needed: list[str], rows_per_partition: int,
               numeric: dict[str, str] | None = None):
    """(dask DataFrame of the needed columns, what it is (for messages), the Parquet pieces of
    its partitions or None). ``numeric``: column → role of the columns that must hold numbers
    (:func:`check_dtypes`), checked in every file's schema, not only the first's."""
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
        pieces, meta, schemas = _pieces(files, rows_per_partition)
        for f, sch in schemas.items():
            gone = [c for c in needed if c not in sch.names]
            if gone:
                raise ValueError(f"The Parquet file {f!r} has no column {gone[0]!r} (given as a "
                                 f"score, label, qid or weight); its columns are {sch.names}.")
            for col, what in (numeric or {}).items():
                _check_type(sch.field(col).type, f"{what} column {col!r}",
                            f"Parquet file {f!r}")
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


def _check_type(typ: Any, what: str, where: str) -> None:
    """A pyarrow column type must be numbers or booleans."""
    import pyarrow as pa

    if not (pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_boolean(typ)
            or pa.types.is_decimal(typ) or pa.types.is_null(typ)):
        raise ValueError(f"The {what} of the {where} must hold numbers, got type {typ}.")


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
        address = check_address(scheduler)
        try:
            client = Client(address, set_as_default=False, timeout=CONNECT_SECONDS)
        except Exception as e:  # OSError, TimeoutError, or garbage from a non-dask server
            raise ValueError(f"The 'scheduler' parameter {scheduler!r}: no dask scheduler "
                             f"answered there within {CONNECT_SECONDS} s ({type(e).__name__}). "
                             "Start one (dask scheduler) or give its address, such as "
                             "'tcp://host:8786'.") from None
        with client:
            yield client
    else:
        raise ValueError("The 'scheduler' parameter must be None, a distributed.Client or a "
                         f"scheduler address such as 'tcp://host:8786', got {scheduler!r}.")


#: Seconds to wait for a scheduler at a given address.
CONNECT_SECONDS = 10


def check_address(scheduler: str) -> str:
    """A scheduler address (``tcp://host:port``, ``host:port``, ``tls://``, ``inproc://``...)
    checked before connecting: dask's local scheduler names (``"synchronous"``, ``"threads"``,
    ``"processes"``) and text without a port are refused by name."""
    from distributed.comm import parse_address

    local = ("synchronous", "sync", "single-threaded", "threads", "threading", "processes",
             "multiprocessing")
    if scheduler.strip().lower() in local:
        raise ValueError(f"The 'scheduler' parameter must be the address of a running dask "
                         f"scheduler, such as 'tcp://host:8786', got {scheduler!r}: dask's local "
                         "schedulers are not addresses (pass scheduler=None to use dask's "
                         "current scheduler; dask.config.set(scheduler='synchronous') sets it).")
    try:
        proto, loc = parse_address(scheduler if "://" in scheduler else f"tcp://{scheduler}")
        if proto in ("tcp", "tls", "ws", "wss", "ucx"):
            host, _, port = loc.rpartition(":")
            if not host or not port.isdigit() or not 0 < int(port) < 65536:
                raise ValueError("no port")
    except (ValueError, TypeError):
        raise ValueError(f"The 'scheduler' parameter must be a dask scheduler address such as "
                         f"'tcp://host:8786' (with its port), got {scheduler!r}.") from None
    return scheduler


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


@contextlib.contextmanager
def _worker_deaths(client: Any) -> Iterator[None]:
    """``KilledWorker`` (a worker restarted past its memory limit, or killed) as one line
    naming the limit and the fix (:func:`bipartite.diagnostics._dask_wait.killed`; the limit is
    asked for now, while the workers live)."""
    from bipartite.diagnostics._dask_wait import killed, worker_limit

    limit = worker_limit(client)
    try:
        yield
    except Exception as e:
        if type(e).__name__ == "KilledWorker":
            raise killed(e, limit) from None
        raise


def compute(client: Any, *objs: Any, where: str = "", step: str | None = None,
            progress: bool = False) -> tuple:
    """``objs`` computed together (shared inputs read once); ``step`` names the pass on its
    progress bar (stderr, with ``progress``); on a cluster, the watchdog and the memory errors
    of :mod:`bipartite.diagnostics._dask_wait`."""
    import dask

    from bipartite.diagnostics._dask_wait import LocalProgress, wait

    with _reading(where), _worker_deaths(client):
        if client is None:
            with LocalProgress(step, progress):
                return dask.compute(*objs)
        futs = client.compute(list(objs))
        wait(client, futs, step, progress)
        return tuple(client.gather(futs))


def compute_parts(client: Any, *objs: Any, where: str = "", step: str | None = None,
                  progress: bool = False) -> list[list]:
    """Every dask DataFrame of ``objs`` computed together (shared inputs read once), each as the
    list of its partitions: on a cluster the partitions are gathered one by one to the caller,
    so no worker concatenates a whole result (a table of every query). ``step``, ``progress``
    and the watchdog as :func:`compute`."""
    import dask

    from bipartite.diagnostics._dask_wait import LocalProgress, wait

    with _reading(where), _worker_deaths(client):
        if client is None:
            with LocalProgress(step, progress):
                return [[r] for r in dask.compute(*objs)]
        from distributed import futures_of

        done = client.persist(list(objs))
        wait(client, [f for d in done for f in futures_of(d)], step, progress)
        out = []
        for d in done:  # a frame's partition i is the key (name, i)
            futs = sorted(futures_of(d), key=lambda f: f.key[1])
            out.append(client.gather(futs))
            del futs
        return out
