"""Reading a study folder: its manifest (:func:`read_manifest`), the census of its task records
(:func:`take_census`) and the tidy tables gathered from them (:func:`collect_results`,
:func:`read_results`), with the stamp that tells a run whether the tables are current
(:func:`tables_current`, :func:`stamp_tables`). Running a study is
:mod:`bipartite.studies.runner`; the records themselves are read and repaired by
:mod:`bipartite.studies.records`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bipartite.studies.config import ConfigError, check_manifest
from bipartite.studies.configfile import NotRegularFileError, read_regular_file
from bipartite.studies.errors import CorruptTaskFileWarning, LegacyRecordWarning, study_io_error
from bipartite.studies.files import (
    FAILURES_CSV,
    MANIFEST,
    MAX_RECORD_BYTES,
    RESULTS_CSV,
    RESULTS_PARQUET,
    TABLE_FILES,
    TABLES_FORMAT,
    TABLES_STAMP,
    TASK_INDEX_CSV,
    atomic_path,
    is_legacy,
    write_text_atomic,
)
from bipartite.studies.records import (
    Store,
    TaskState,
    read_store,
    repair_store,
    stray_entries,
    task_states,
    warn_conflicts,
)
from bipartite.studies.tasks import Task, canonical_json, expand_tasks, gc_paused

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["collect_results", "read_manifest", "read_results"]


def read_manifest(study_dir: str | os.PathLike) -> dict:
    """The resolved configuration of a study folder (``manifest.json``), shape-checked
    (:func:`~bipartite.studies.config.check_manifest`: errors name the file and the key)."""
    study_dir = Path(study_dir)
    path = study_dir / MANIFEST
    try:
        text = read_regular_file(path, max_bytes=MAX_RECORD_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"{study_dir} is not a study folder: {MANIFEST} is missing "
                                "(start a study with `bipartite study run CONFIG.toml`).") from None
    except NotRegularFileError as exc:
        raise ConfigError(f"{path}: the manifest {exc.strerror}; the study folder is damaged or "
                          "was not written by this runner.") from None
    except OSError as exc:
        raise study_io_error(exc, "reading", path) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: the manifest is not UTF-8 text ({exc}).") from None
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: the manifest is not valid JSON: {exc}") from None
    return check_manifest(manifest, str(path))


@dataclasses.dataclass
class Census:
    """The state of every task of a study folder, read once."""

    tasks: list[Task]
    states: dict[str, TaskState]
    counts: dict[str, int]
    missing: list[str]  # keys of tasks without a valid record (pending or corrupt)
    legacy: list[str]  # keys of valid records without a checksum (bipartite 0.3.0)
    failures: list[dict]  # failure records, in task order
    unreadable: int = 0  # damaged records whose task is unknown
    store: Store | None = None  # the records read (after any repair)


def take_census(study_dir: Path, tasks: list[Task], *, repair: bool,
            store: Store | None = None, states: dict[str, TaskState] | None = None) -> Census:
    """The census of a folder from its records (``store``, else read now; ``states``, the
    tasks' states in ``store`` when known). With ``repair`` (a run, holding the lock), damaged
    records are moved to ``quarantine/`` and the rest compacted
    (:func:`~bipartite.studies.records.repair_store`)."""
    if store is None:
        store = read_store(study_dir, tasks)
    if states is None:
        states = task_states(store, tasks)
        warn_conflicts(study_dir, states)
    unreadable = len(store.damaged) + len(stray_entries(store, tasks))
    if repair and (unreadable or any(s.damaged for s in states.values())):
        repair_store(store, tasks, states)
        store = read_store(study_dir, tasks)
        states = task_states(store, tasks)
        unreadable = 0
    counts = {"ok": 0, "failed": 0, "corrupt": 0, "pending": 0}
    missing, legacy, failures = [], [], []
    for t in tasks:
        state = states[t.key]
        counts[state.status] += 1
        if state.status in ("pending", "corrupt"):
            missing.append(t.key)
        elif is_legacy(state.record):
            legacy.append(t.key)
        if state.status == "failed":
            failures.append(state.record)
    return Census(tasks, states, counts, missing, legacy, failures, unreadable, store)


def _table_value(value: Any) -> Any:
    if isinstance(value, list | dict):
        return canonical_json(value)
    return value


def collect_results(study_dir: str | os.PathLike, *, tasks: list[Task] | None = None,
                    write: bool = True) -> pd.DataFrame:
    """Gather the finished tasks of a study folder into one tidy ``pandas.DataFrame``.

    One row per result row of each task, in task order (never completion order): columns
    ``study, function, task, replicate, seed``, then the parameters, then the study's own
    columns. Lists are stored as JSON text. With ``write``, also writes ``results.parquet``,
    ``results.csv``, ``task_index.csv`` (status and time of each task) and ``failures.csv``,
    each atomically; a write error (disk full...) raises :class:`~bipartite.studies.StudyIOError`
    naming the file. A corrupt task file (bad JSON or shape, checksum mismatch) is left in
    place, counted as ``corrupt`` in ``task_index.csv`` with a
    :class:`~bipartite.studies.CorruptTaskFileWarning` (a run moves it aside and reruns the
    task). Records of bipartite 0.3.0 (no checksum) are used, with one
    :class:`~bipartite.studies.LegacyRecordWarning`.
    """
    study_dir = Path(study_dir)
    if tasks is None:
        tasks = expand_tasks(read_manifest(study_dir))
    census = take_census(study_dir, tasks, repair=False)
    corrupt = [t.key for t in tasks if census.states[t.key].status == "corrupt"]
    if corrupt:
        warnings.warn(f"{study_dir}: {len(corrupt)} corrupt task file(s) (tasks "
                      f"{', '.join(corrupt[:5])}{', ...' if len(corrupt) > 5 else ''}); "
                      f"`bipartite study resume {study_dir}` moves them aside and reruns them.",
                      CorruptTaskFileWarning, stacklevel=2)
    return write_results(study_dir, census, write=write)


def warn_legacy(study_dir: Path, census: Census, stacklevel: int = 4) -> None:
    if census.legacy:
        warnings.warn(f"{study_dir}: {len(census.legacy)} task record(s) written by bipartite "
                      "0.3.0 carry no checksum: their shape and task were checked, but edits "
                      "made to them cannot be detected (records written from now on carry a "
                      "checksum).", LegacyRecordWarning, stacklevel=stacklevel)


def write_results(study_dir: Path, census: Census, *, write: bool = True,
                   warn: bool = True) -> pd.DataFrame:
    """The tidy table of a census (and, with ``write``, the files of :func:`collect_results`;
    with ``warn``, the :class:`~bipartite.studies.LegacyRecordWarning` of its records)."""
    import pandas as pd

    if warn:
        warn_legacy(study_dir, census)
    with gc_paused():  # (many small acyclic objects: see gc_paused)
        df, index, failures = _tables(census)
    if write:
        _write_table(df, study_dir / RESULTS_PARQUET, study_dir / RESULTS_CSV, study_dir)
        _write_csv(pd.DataFrame(index), study_dir / TASK_INDEX_CSV, study_dir)
        failures_path = study_dir / FAILURES_CSV
        if failures:
            _write_csv(pd.DataFrame(failures), failures_path, study_dir)
        else:
            with contextlib.suppress(FileNotFoundError):
                failures_path.unlink()
    return df


def _tables(census: Census) -> tuple[pd.DataFrame, list[dict], list[dict]]:
    """The results table, the rows of the task index and those of the failures of a census."""
    import pandas as pd

    rows, index, failures = [], [], []
    for t in census.tasks:
        state = census.states[t.key]
        status, rec = state.status, state.record
        if status == "failed":
            failures.append({"task": t.key, "replicate": t.replicate,
                             "params": t.params_json, "error": rec.get("error"),
                             "file": str(state.entry.source), "line": state.entry.line})
        ok = rec if status == "ok" else None
        index.append({"task": t.key, "replicate": t.replicate, "seed": t.seed,
                      "params": t.params_json, "status": status,
                      "elapsed_s": (ok or {}).get("elapsed_s"),
                      "cpu_s": (ok or {}).get("cpu_s")})
        if ok is None:
            continue
        base = {"study": t.study, "function": t.function, "task": t.key,
                "replicate": t.replicate, "seed": t.seed}
        base.update({k: _table_value(v) for k, v in t.params.items()})
        for row in ok["rows"]:
            rows.append({**base, **{k: _table_value(v) for k, v in row.items()}})
    return pd.DataFrame(rows), index, failures


def _file_signature(path: Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise study_io_error(exc, "reading", path) from None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _tables_stamp(study_dir: Path, store: Store) -> dict | None:
    """What :data:`~bipartite.studies.files.TABLES_STAMP` holds for the folder now; None when its records are not all in
    segments (per-task files of 0.5.0, or a segment that is not a regular file)."""
    from bipartite import __version__

    if store.legacy or any(not any(seg.signature) for seg in store.segments.values()):
        return None
    return {"bipartite_version": __version__, "tables_format": TABLES_FORMAT,
            "segments": {path.name: list(seg.signature) for path, seg in
                         sorted(store.segments.items())},
            "tables": {name: _file_signature(study_dir / name) for name in TABLE_FILES}}


def tables_current(study_dir: Path, store: Store) -> bool:
    """Are the folder's tables those of its records as read in ``store``? True when the stamp
    left by the run that wrote them (:func:`stamp_tables`) names the same segments, each with
    the same inode, size and modification time (no record added, compacted, moved or edited
    since), the same bipartite version and :data:`~bipartite.studies.files.TABLES_FORMAT`, and
    the tables as it left them (none removed, replaced or edited). The tables are a function of the records (and the manifest, fixed for the
    folder), so a run that ran nothing need not write them again."""
    try:
        raw = read_regular_file(study_dir / TABLES_STAMP, max_bytes=MAX_RECORD_BYTES)
        stamp = json.loads(raw)
    except (OSError, ValueError):  # none (yet), unreadable or damaged: the tables are written
        return False
    now = _tables_stamp(study_dir, store)
    return now is not None and stamp == now


def stamp_tables(study_dir: Path, store: Store) -> None:
    """Record, after the tables were written from the records of ``store``, the stamp that
    :func:`tables_current` checks (or remove a stamp when the records are not all in
    segments)."""
    path = study_dir / TABLES_STAMP
    stamp = _tables_stamp(study_dir, store)
    try:
        if stamp is None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        else:
            write_text_atomic(path, json.dumps(stamp))
    except OSError as exc:
        raise study_io_error(exc, "writing", path, study_dir=study_dir) from None


def _write_csv(df, path: Path, study_dir: Path) -> None:
    try:
        with atomic_path(path) as tmp:
            df.to_csv(tmp, index=False)
    except OSError as exc:
        raise study_io_error(exc, "writing", path, study_dir=study_dir) from None


def _write_table(df, parquet_path: Path, csv_path: Path, study_dir: Path) -> None:
    """Parquet (pyarrow) + CSV; object columns mixing types are stored as text in Parquet."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object:
            kinds = {type(v) for v in out[col] if v is not None and not
                     (isinstance(v, float) and math.isnan(v))}
            if len(kinds) > 1:
                out[col] = out[col].map(lambda v: None if v is None else str(v))
    try:
        with atomic_path(parquet_path) as tmp:
            out.to_parquet(tmp, index=False, engine="pyarrow")
    except OSError as exc:
        raise study_io_error(exc, "writing", parquet_path, study_dir=study_dir) from None
    _write_csv(df, csv_path, study_dir)


def read_results(study_dir: str | os.PathLike) -> pd.DataFrame:
    """The tidy results table of a finished study folder (``results.parquet``)."""
    import pandas as pd

    path = Path(study_dir) / RESULTS_PARQUET
    if not path.is_file():
        return collect_results(study_dir)
    return pd.read_parquet(path)
