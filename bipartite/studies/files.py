"""The files of a study folder: layout, atomic writes, task records and their checks (the
records themselves live in segments, :mod:`bipartite.studies.records`; the per-task files of
0.5.0 and earlier are read here).

Every file the runner writes goes to a unique temporary name in its own folder
(``.<name>.<pid>-<8 hex>.tmp``, created with ``O_EXCL``), is flushed and ``fsync``-ed, then moved
into place with :func:`os.replace`: readers see the old file or the new one, never a part, and two
writers never share a temporary file. Temporary files of processes that are gone (a ``kill -9``
between write and rename) are removed by the next run (:func:`remove_stale_temp_files`).
"""


from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import operator
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from bipartite._utils.files import OutputError, prepare_output_dir, temp_path
from bipartite._utils.files import check_writable as check_folder_writable
from bipartite.studies.configfile import NotRegularFileError, read_regular_file
from bipartite.studies.errors import CorruptTaskFileWarning, StudyIOError, study_io_error
from bipartite.studies.tasks import (
    LEGACY_RECORD_FORMAT,
    RECORD_FORMAT,
    canonical_json,
    record_checksum,
)

if TYPE_CHECKING:
    from bipartite.studies.tasks import Task

MANIFEST = "manifest.json"
TASKS_DIR = "tasks"
RESULTS_PARQUET = "results.parquet"
RESULTS_CSV = "results.csv"
FAILURES_CSV = "failures.csv"
TASK_INDEX_CSV = "task_index.csv"
#: The tables a run writes (:func:`~bipartite.studies.collect_results`).
TABLE_FILES = (RESULTS_PARQUET, RESULTS_CSV, TASK_INDEX_CSV, FAILURES_CSV)
#: The stamp of a study folder's tables: the state of the records they were made from (the
#: segments' inode, size and modification time) and the tables' own, as the run that wrote
#: them left them (:func:`bipartite.studies.results.tables_current`).
TABLES_STAMP = ".tables-stamp.json"
#: The format of the tables a run writes from the records (their columns, order, types and
#: file options), recorded in :data:`TABLES_STAMP`: a stamp of another format (or of none,
#: before this constant) is not trusted and the tables are written again. Raise it with any
#: change to what :func:`~bipartite.studies.collect_results` writes for the same records, so
#: that a folder keeps no old-format tables even where ``bipartite.__version__`` is unchanged
#: (a development install).
TABLES_FORMAT = 1
#: Folder of a study folder where corrupt task files are moved: ``quarantine/<file>.corrupt-<UTC
#: time>`` (older versions moved them beside the task files, in ``tasks/``).
QUARANTINE_DIR = "quarantine"
#: Suffix of a task file moved aside because it was corrupt: ``<file>.corrupt-<UTC time>``.
CORRUPT_SUFFIX = ".corrupt-"
#: Largest task record read (bytes); a larger file is corrupt (records are a few kB).
MAX_RECORD_BYTES = 256 * 2**20

#: Temporary files written by :func:`atomic_path` / :func:`write_text_atomic`.
TEMP_RE = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)-(?P<token>[0-9a-f]{8})\.tmp$")
#: Temporary files of older versions of the runner (fixed or ``mkstemp`` names).
LEGACY_TEMP_RE = re.compile(r"^\..+\.tmp$")


# --------------------------------------------------------------------------------------------
# Atomic writes
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a unique temporary path beside ``path``; on success move it onto ``path``
    (:func:`os.replace`), on any error remove it.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     with atomic_path(Path(d) / "a.txt") as tmp:
    ...         _ = tmp.write_text("hi")
    ...     sorted(os.listdir(d))
    ['a.txt']
    """
    path = Path(path)
    tmp = temp_path(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a unique temporary file in the same folder
    (created exclusively, flushed and fsync-ed), then :func:`os.replace`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())


def pid_alive(pid: int) -> bool:
    """Is a process with this id running on this machine?"""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temp_files(folder: Path) -> list[Path]:
    """Remove the runner's temporary files in ``folder`` whose writer is gone (its pid is not
    running, or a name of an older runner version); call it while holding the folder's lock.
    Returns the removed paths."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return removed
    for entry in entries:
        name = entry.name
        if not name.startswith(".") or not name.endswith(".tmp") or not entry.is_file():
            continue
        m = TEMP_RE.match(name)
        if m is not None and pid_alive(int(m["pid"])):
            continue
        if m is None and not LEGACY_TEMP_RE.match(name):
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


# --------------------------------------------------------------------------------------------
# The study folder
# --------------------------------------------------------------------------------------------


def _study_error(exc: OutputError, study_dir: Path | None = None) -> StudyIOError:
    if exc.os_error is not None:
        return study_io_error(exc.os_error, exc.action, exc.filename, study_dir=study_dir)
    return StudyIOError(str(exc), path=exc.filename, errno=exc.errno)


def prepare_study_dir(study_dir: Path) -> None:
    """Create the study folder (and its parents), with clear errors when a part of the path is
    a file or the folder cannot be created (:func:`bipartite._utils.files.prepare_output_dir`,
    the one output-folder check, as a :class:`~bipartite.studies.StudyIOError`)."""
    try:
        prepare_output_dir(study_dir, what="a study folder")
    except OutputError as exc:
        raise _study_error(exc) from None


def check_writable(folder: Path, study_dir: Path) -> None:
    """Create and remove a temporary file in ``folder``: a folder that cannot be written (a
    read-only file system, no permission, a full disk) raises
    :class:`~bipartite.studies.StudyIOError` here, before any worker starts
    (:func:`bipartite._utils.files.check_writable`)."""
    try:
        check_folder_writable(folder)
    except OutputError as exc:
        raise _study_error(exc, study_dir) from None


def prepare_tasks_dir(study_dir: Path) -> Path:
    """The ``tasks`` folder of a study folder, created if missing; an error if it is a file."""
    tasks_dir = study_dir / TASKS_DIR
    if (tasks_dir.exists() or tasks_dir.is_symlink()) and not tasks_dir.is_dir():
        raise StudyIOError(
            f"{tasks_dir} is a file, not a folder: the study folder {study_dir} is damaged. "
            "Move that file aside (the finished tasks live in that folder) and run again.",
            path=tasks_dir, errno=errno.ENOTDIR)
    try:
        tasks_dir.mkdir(exist_ok=True)
    except OSError as exc:
        raise study_io_error(exc, "creating", tasks_dir, study_dir=study_dir) from None
    return tasks_dir


# --------------------------------------------------------------------------------------------
# Task records
# --------------------------------------------------------------------------------------------


def ok_path(study_dir: Path, key: str) -> Path:
    """``tasks/<key>.json``: the record of a finished task in the layout of 0.5.0 and earlier
    (one file per task; the runner now appends records to segments,
    :mod:`bipartite.studies.records`, and reads these files as they are)."""
    return study_dir / TASKS_DIR / f"{key}.json"


def failed_path(study_dir: Path, key: str) -> Path:
    """``tasks/<key>.failed.json``: the record of a task that raised (layout of 0.5.0)."""
    return study_dir / TASKS_DIR / f"{key}.failed.json"


def write_task_record(study_dir: Path, record: dict) -> Path:
    """Write a task's record (``ok`` or ``failed``) atomically in the layout of 0.5.0 (one file
    per task: what the runner wrote up to 0.5.0; a run moves such files into a segment); a
    success removes an older failure record of the task. Disk full and the like raise
    :class:`StudyIOError`."""
    key = record["key"]
    path = ok_path(study_dir, key) if record["status"] == "ok" else failed_path(study_dir, key)
    try:
        write_text_atomic(path, json.dumps(record, indent=1))
        if record["status"] == "ok":
            with contextlib.suppress(FileNotFoundError):
                os.unlink(failed_path(study_dir, key))
    except OSError as exc:
        raise study_io_error(exc, "writing", path, study_dir=study_dir) from None
    return path


#: The fields of a record that must equal its task's (and the status asked for).
_IDENTITY_FIELDS = ("key", "status", "study", "function", "replicate", "seed")
_identity = operator.itemgetter(*_IDENTITY_FIELDS)


def record_problem(record: object, task: Task, status: str, *,
                   checksum: str | None = None) -> str | None:
    """Why a parsed task record is not a valid record of ``task`` with ``status`` (``"ok"`` or
    ``"failed"``), or ``None`` if it is.

    A record of format :data:`~bipartite.studies.tasks.RECORD_FORMAT` must carry the checksum of
    its content (:func:`~bipartite.studies.tasks.record_checksum`): a record edited or damaged
    after it was written is refused. A record of bipartite 0.3.0
    (:data:`~bipartite.studies.tasks.LEGACY_RECORD_FORMAT`, no checksum) is valid when its
    shape and task match (:func:`is_legacy`: callers warn, :class:`LegacyRecordWarning`).
    ``checksum``: the checksum of the record's content when the caller computed it already
    (a segment line's, :func:`bipartite.studies.records.encode_record`), else it is computed;
    with it, the parameters of a checksummed record are compared by value (its key, checked
    first, is the hash of the canonical parameters), else by their canonical JSON.
    """
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not an object"
    fmt = record.get("format")
    if fmt not in (RECORD_FORMAT, LEGACY_RECORD_FORMAT) or isinstance(fmt, bool):
        return f"format {fmt!r}, expected {RECORD_FORMAT}"
    if fmt == RECORD_FORMAT:
        if not isinstance(record.get("checksum"), str):
            return "no checksum"
        if (record_checksum(record) if checksum is None else checksum) != record["checksum"]:
            return "checksum mismatch: the record was changed after it was written"
    get = record.get
    wants = (task.key, status, task.study, task.function, task.replicate, task.seed)
    try:  # (one lookup and one comparison; the loop names the first field that differs)
        same = _identity(record) == wants
    except KeyError:
        same = False
    if not same:
        for field, want in zip(_IDENTITY_FIELDS, wants, strict=True):
            if get(field) != want:
                return f"{field} {get(field)!r}, expected {want!r}"
    if checksum is not None and fmt == RECORD_FORMAT:
        # content proved by its checksum and key (a hash of the canonical parameters) matched:
        # the parameters are compared by value
        same = record.get("params") == task.params
    else:
        try:
            same = canonical_json(record.get("params")) == task.params_json
        except (TypeError, ValueError):
            same = False
    if not same:
        return f"params {record.get('params')!r}, expected {task.params!r}"
    if status == "ok":
        rows = get("rows")
        # (dict.__instancecheck__(r) is isinstance(r, dict))
        if not isinstance(rows, list) or not all(map(dict.__instancecheck__, rows)):
            return "'rows' is not a list of objects"
    elif not isinstance(record.get("error"), str):
        return "'error' is not a string"
    return None


def is_legacy(record: dict) -> bool:
    """Is this a valid record of bipartite 0.3.0 (no checksum)?"""
    return record.get("format") == LEGACY_RECORD_FORMAT


def read_task_record(path: Path, task: Task, status: str) -> tuple[dict | None, str | None]:
    """``(record, None)`` for a valid record, ``(None, None)`` if there is no file,
    ``(None, reason)`` if the file is corrupt (not a regular file, unreadable, not JSON, wrong
    shape or task, checksum mismatch)."""
    try:
        raw = read_regular_file(path, max_bytes=MAX_RECORD_BYTES)
    except FileNotFoundError:
        return None, None
    except NotRegularFileError as exc:
        return None, str(exc.strerror)
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            return None, str(exc.strerror)
        raise study_io_error(exc, "reading", path) from None
    if not raw.strip():
        return None, "empty file"
    try:
        record = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, f"not valid JSON ({type(exc).__name__}: {exc})"
    problem = record_problem(record, task, status)
    return (None, problem) if problem else (record, None)


def quarantine(path: Path, reason: str, *, key: str, fate: str | None = None) -> Path:
    """Move a corrupt task file to ``<study_dir>/quarantine/<name>.corrupt-<UTC time>`` and warn
    (:class:`CorruptTaskFileWarning`) saying what was moved and what will and will not run
    (``fate``; by default the task runs again unless it has another valid record); return the
    new path. (``path`` is in ``<study_dir>/tasks``.)"""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    folder = path.parent.parent / QUARANTINE_DIR
    target = folder / f"{path.name}{CORRUPT_SUFFIX}{stamp}"
    if target.exists():
        target = target.with_name(f"{target.name}-{os.getpid()}")
    try:
        folder.mkdir(exist_ok=True)
        os.replace(path, target)
    except OSError as exc:
        raise study_io_error(exc, "moving", path) from None
    fate = fate or (f"task {key} will run again unless it has another valid record; no other "
                    "task is affected")
    warnings.warn(f"quarantined the file {path} ({reason}): moved to "
                  f"{QUARANTINE_DIR}/{target.name}; {fate}.", CorruptTaskFileWarning,
                  stacklevel=3)
    return target


def task_state(study_dir: Path, task: Task, *, repair: bool) -> tuple[str, dict | None]:
    """``(status, record)`` of one task from its files in the layout of 0.5.0: ``"ok"``,
    ``"failed"``, ``"pending"``, or (when not ``repair``) ``"corrupt"``. With ``repair``, a corrupt file is moved aside
    (:func:`quarantine`) and the task counts as pending."""
    corrupt = False
    for status, path in (("ok", ok_path(study_dir, task.key)),
                         ("failed", failed_path(study_dir, task.key))):
        record, problem = read_task_record(path, task, status)
        if record is not None:
            if status == "ok" and repair:  # a success supersedes an older failure record
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(failed_path(study_dir, task.key))
            return status, record
        if problem is not None:
            if repair:
                quarantine(path, problem, key=task.key)
            else:
                corrupt = True
    return ("corrupt" if corrupt else "pending"), None
