"""The task records of a study folder, kept in a few append-only segment files (a segment here is
a file of records, not a query: ``bipartite.studies.segments`` before issue 36).

Layout
------
``<study_dir>/tasks/segment-<NNNNNN>.jsonl``: each run that has tasks to run appends their
records to one new segment (numbered after the highest one present). A line holds one record::

    {"checksum":"sha256:<64 hex>","record":<canonical JSON of the record without its checksum>}

The ``record`` text is the canonical JSON of :func:`~bipartite.studies.tasks.record_body_text`,
so the line's checksum *is* the record's checksum (:func:`~bipartite.studies.tasks.record_checksum`,
set by the worker): a reader checks it by hashing the bytes between the fixed prefix and the
final ``}``, without re-serialising. A line is valid JSON (``jq`` reads a segment).

Group commit
------------
The driver buffers the records that come back and writes them with one ``write`` and one
``fsync`` per batch (:class:`SegmentWriter`): when :data:`FLUSH_INTERVAL_S` has passed since the
last flush, when :data:`MAX_BATCH_RECORDS` are waiting, from a timer thread when no record has
come for that long, and when the run ends, however it ends (an interrupt, an error). A
``kill -9`` loses at most the records of the batch not yet flushed: those tasks have no record
and are run again. A write that fails half-way is cut back to the last whole batch.

Reading and repair
------------------
:func:`read_store` reads every segment once (and the per-task files of bipartite 0.5.0 and
earlier, ``tasks/<key>.json`` and ``tasks/<key>.failed.json``): a last line without its newline
(a write cut by a crash) is ignored; a line whose checksum or shape is wrong is *damaged*. A task
with several valid records takes its first success, proved identical to any other success by
the checksums (records that differ are flagged with a
:class:`~bipartite.studies.DuplicateRecordWarning` and the first is kept), else its last failure.
A run (which holds the folder's lock) repairs the folder (:func:`repair_store`): damaged lines and
files go to ``quarantine/``, and when the folder holds damaged or torn lines, duplicates,
per-task files or more than :data:`MAX_SEGMENTS` segments, the valid records are compacted into
one new segment (written under a temporary name, fsync-ed, renamed), after which the old
segments and per-task files are removed. A crash during compaction leaves records in two
segments: they are the same records (same checksums) and are read once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import errno
import hashlib
import json
import os
import re
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from bipartite.studies.configfile import NotRegularFileError, read_regular_file
from bipartite.studies.errors import (
    CorruptTaskFileWarning,
    DuplicateRecordWarning,
    StudyIOError,
    study_io_error,
)
from bipartite.studies.files import (
    CORRUPT_SUFFIX,
    QUARANTINE_DIR,
    TASKS_DIR,
    atomic_path,
    quarantine,
    read_task_record,
    record_problem,
)
from bipartite.studies.tasks import (
    CHECKSUM_PREFIX,
    RECORD_FORMAT,
    gc_paused,
    record_body_text,
    record_checksum,
)

if TYPE_CHECKING:
    from bipartite.studies.tasks import Task

#: Name of a segment: ``segment-<number, 6 digits or more>.jsonl``.
SEGMENT_RE = re.compile(r"^segment-(?P<seq>\d{6,})\.jsonl$")
#: Per-task record files of bipartite 0.5.0 and earlier (``<key>.json``, ``<key>.failed.json``).
LEGACY_FILE_RE = re.compile(r"^(?P<key>[0-9a-f]{16})(?P<failed>\.failed)?\.json$")
#: Seconds between group commits (at most this long between a record's arrival and its fsync,
#: while records keep arriving; the timer thread flushes a quiet buffer after as long).
FLUSH_INTERVAL_S = 0.1
#: A batch is flushed at once when this many records wait.
MAX_BATCH_RECORDS = 4096
#: More segments than this are compacted into one at the start of a run.
MAX_SEGMENTS = 16
#: Largest segment read (bytes).
MAX_SEGMENT_BYTES = 64 * 2**30

_PREFIX = b'{"checksum":"' + CHECKSUM_PREFIX.encode("ascii")
_MIDDLE = b'","record":'
_HEX = 64
_START = len(_PREFIX) + _HEX + len(_MIDDLE)
_HEX_RE = re.compile(rb"^[0-9a-f]{64}$")


def segment_name(seq: int) -> str:
    return f"segment-{seq:06d}.jsonl"


def list_segments(tasks_dir: Path) -> list[tuple[int, Path]]:
    """``(number, path)`` of the segments of a ``tasks`` folder, in order."""
    found = []
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for entry in os.scandir(tasks_dir):
            m = SEGMENT_RE.match(entry.name)
            if m is not None:
                found.append((int(m["seq"]), Path(entry.path)))
    return sorted(found)


def encode_record(record: dict) -> tuple[bytes, str]:
    """The segment line of a record and the checksum of its content
    (:func:`~bipartite.studies.tasks.record_checksum`), from one serialisation."""
    text = record_body_text(record).encode("ascii")
    digest = hashlib.sha256(text).hexdigest()
    return _PREFIX + digest.encode("ascii") + _MIDDLE + text + b"}\n", CHECKSUM_PREFIX + digest


def decode_line(line: bytes) -> tuple[dict | None, str | None]:
    """``(record, None)`` for a whole, intact segment line (with its newline), else
    ``(None, why)``. The record's ``checksum`` is the line's (format-2 records)."""
    if not line.endswith(b"\n"):
        return None, "not a record line (bad frame)"
    return _decode_body(line[:-1], _loads_payload, 0)[:2]


def _loads_payload(body: bytes, pos: int = 0) -> object:
    return json.loads(body[_START:-1])


_BAD_FRAME = "not a record line (bad frame)"
_DIGEST = slice(len(_PREFIX), len(_PREFIX) + _HEX)


def _decode_body(body: bytes, parse: Callable[[bytes, int], object],
                 pos: int) -> tuple[dict | None, str | None, str | None]:
    """:func:`decode_line` of a line without its newline, and the line's checksum
    (``"sha256:<hex>"``, ``None`` for a damaged line); ``parse(body, pos)`` parses the payload
    ``body[_START:-1]`` of the line at offset ``pos`` of its segment (or raises ``ValueError``,
    ``UnicodeDecodeError``, ``RecursionError``) once the frame and the checksum hold."""
    if (not body.startswith(_PREFIX) or not body.endswith(b"}") or len(body) < _START + 2
            or body[_DIGEST.stop:_START] != _MIDDLE):
        return None, _BAD_FRAME, None
    digest = body[_DIGEST]
    if hashlib.sha256(body[_START:-1]).hexdigest().encode("ascii") != digest:
        # (a digest equal to a hexdigest is 64 lowercase hex digits: checked only here)
        return None, (_BAD_FRAME if not _HEX_RE.match(digest) else
                      "checksum mismatch: the record was changed after it was written"), None
    try:
        record = parse(body, pos)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, f"not valid JSON ({type(exc).__name__}: {exc})", None
    if not isinstance(record, dict):
        return None, f"a JSON {type(record).__name__}, not an object", None
    checksum = CHECKSUM_PREFIX + digest.decode("ascii")
    if record.get("format") == RECORD_FORMAT:
        record["checksum"] = checksum
    return record, None, checksum


def _payload_parser(data: bytes) -> Callable[[bytes, int], object]:
    """The payload parser of :func:`_decode_body` for the lines of the segment ``data``. The
    payloads of an ASCII segment are parsed in place by the C scanner of :mod:`json` from one
    text (no copy or decoding per line); a payload the scanner does not end exactly at its
    closing ``}`` (trailing data, bad JSON) goes to ``json.loads``, whose result or error is the
    one given, as for any line of a segment that is not ASCII."""
    if not data.isascii():
        return _loads_payload
    text = data.decode("ascii")
    scan = json.JSONDecoder().scan_once

    def parse(body: bytes, pos: int) -> object:
        try:
            record, stop = scan(text, pos + _START)
        except (StopIteration, ValueError, RecursionError):
            stop = -1
        if stop != pos + len(body) - 1:
            return _loads_payload(body)
        return record
    return parse


def _parse_key(body: bytes) -> dict | None:
    """``{"key": ...}`` of a damaged line (without its newline) whose payload still parses,
    else None."""
    try:
        record = json.loads(body[_START:-1])
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    key = record.get("key") if isinstance(record, dict) else None
    return {"key": key} if isinstance(key, str) else None


@dataclasses.dataclass(slots=True)
class Entry:
    """One record found in a study folder: a segment line or a per-task file of 0.5.0."""

    source: Path  # the segment or the file
    line: int | None  # 1-based line of a segment; None for a per-task file
    record: dict | None  # None when damaged
    problem: str | None = None  # why it is damaged
    raw: bytes | None = None  # the bytes of a damaged segment line (for quarantine)
    checksum: str | None = None  # checksum of the record's content
    key: str | None = dataclasses.field(init=False)  # the record's task key (None: unknown)
    checked: bool = dataclasses.field(init=False, default=False)  # found a valid record

    def __post_init__(self) -> None:
        key = self.record.get("key") if isinstance(self.record, dict) else None
        self.key = key if isinstance(key, str) else None

    def where(self, study_dir: Path) -> str:
        rel = self.source.relative_to(study_dir) if self.source.is_relative_to(study_dir) \
            else self.source
        return f"{rel} line {self.line}" if self.line is not None else str(rel)


@dataclasses.dataclass
class _Segment:
    signature: tuple[int, int, int]  # inode, size, mtime (ns): a segment unchanged is not reread
    entries: list[Entry]
    valid_bytes: int  # length of the segment up to its last whole line
    torn: bool  # a last line without its newline


def _read_segment(path: Path) -> _Segment | None:
    try:
        data = read_regular_file(path, max_bytes=MAX_SEGMENT_BYTES)
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except NotRegularFileError as exc:
        return _Segment((0, 0, 0), [Entry(path, None, None, str(exc.strerror))], 0, False)
    except OSError as exc:
        raise study_io_error(exc, "reading", path) from None
    end = data.rfind(b"\n") + 1
    entries = []
    parse = _payload_parser(data)
    pos = 0  # offset of the line in data
    lines = data.split(b"\n")
    lines.pop()  # what follows the last newline: a line cut short (torn), or nothing
    for number, body in enumerate(lines, 1):
        record, problem, checksum = _decode_body(body, parse, pos)
        pos += len(body) + 1
        if problem is None:
            entries.append(Entry(path, number, record, None, None, checksum))
            continue
        if problem.startswith("checksum mismatch"):
            record = _parse_key(body)  # an edited record: its task is known
        entries.append(Entry(path, number, record, problem, body + b"\n"))
    return _Segment((st.st_ino, st.st_size, st.st_mtime_ns), entries, end, end < len(data))


@dataclasses.dataclass
class Store:
    """Every record of a study folder, read once (:func:`read_store`)."""

    study_dir: Path
    segments: dict[Path, _Segment]
    legacy: list[Entry]  # the per-task files of 0.5.0 and earlier, read
    by_key: dict[str, list[Entry]]  # entries with a parsed record, by key, oldest first
    damaged: list[Entry]  # entries that cannot be attributed to a task (no record)

    @property
    def n_segments(self) -> int:
        return len(self.segments)

    @property
    def torn(self) -> list[Path]:
        return [p for p, s in self.segments.items() if s.torn]


def _read_legacy(tasks_dir: Path, tasks: dict[str, Task]) -> list[Entry]:
    """The per-task files of bipartite 0.5.0 and earlier, checked against their task."""
    entries = []
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        names = sorted(e.name for e in os.scandir(tasks_dir))
        for name in names:
            m = LEGACY_FILE_RE.match(name)
            if m is None or name.startswith(".") or SEGMENT_RE.match(name):
                continue
            path = tasks_dir / name
            status = "failed" if m["failed"] else "ok"
            task = tasks.get(m["key"])
            if task is None:
                entries.append(Entry(path, None, {"key": m["key"]},
                                     "not a task of this study"))
                continue
            record, problem = read_task_record(path, task, status)
            if record is None and problem is None:  # vanished meanwhile
                continue
            # a record of 0.3.0 carries no checksum: its content's, so that the same record
            # met again in a segment (a migration cut by a crash) is known as the same
            entries.append(Entry(path, None, record if record is not None else
                                 {"key": m["key"]}, problem,
                                 checksum=(record.get("checksum") or record_checksum(record))
                                 if record else None))
    return entries


def read_store(study_dir: Path, tasks: Iterable[Task], *, previous: Store | None = None) -> Store:
    """Read the records of a study folder: each segment once (one unchanged since ``previous``
    is not read again) and the per-task files of older versions."""
    with gc_paused():
        return _read_store(study_dir, tasks, previous)


def _read_store(study_dir: Path, tasks: Iterable[Task], previous: Store | None) -> Store:
    tasks_dir = study_dir / TASKS_DIR
    by_task = {t.key: t for t in tasks}
    segments = {}
    for _, path in list_segments(tasks_dir):
        old = previous.segments.get(path) if previous is not None else None
        if old is not None:
            with contextlib.suppress(OSError):
                st = os.stat(path)
                if (st.st_ino, st.st_size, st.st_mtime_ns) == old.signature:
                    segments[path] = old
                    continue
        seg = _read_segment(path)
        if seg is not None:
            segments[path] = seg
    legacy = _read_legacy(tasks_dir, by_task)
    by_key: dict[str, list[Entry]] = {}
    damaged = []
    for entry in [*legacy, *(e for s in segments.values() for e in s.entries)]:
        key = entry.key
        if isinstance(key, str):
            by_key.setdefault(key, []).append(entry)
        else:
            damaged.append(entry)
    return Store(study_dir, segments, legacy, by_key, damaged)


@dataclasses.dataclass(slots=True)
class TaskState:
    """The state of one task: ``status`` (``ok``, ``failed``, ``corrupt``, ``pending``), its
    chosen record, the damaged entries of the task, and other records that differ."""

    status: str
    record: dict | None
    entry: Entry | None
    damaged: list[Entry]
    conflicts: list[Entry]


def _entry_status(entry: Entry, task: Task) -> str | None:
    """``"ok"`` or ``"failed"`` for an entry holding a valid record of ``task``, else ``None``
    (and ``entry.problem`` says why). An entry is checked once (a segment read before and
    unchanged since was checked then)."""
    if entry.problem is not None:
        return None
    status = entry.record.get("status")
    if not entry.checked:
        problem = (record_problem(entry.record, task, status, checksum=entry.checksum)
                   if status in ("ok", "failed") else f"status {status!r}")
        if problem is not None:
            entry.problem = problem
            return None
        entry.checked = True
    return status


def task_states(store: Store, tasks: Iterable[Task]) -> dict[str, TaskState]:
    """The state of every task from its records: the first valid success (the others must have
    the same checksum, else they are ``conflicts``), else the last valid failure."""
    with gc_paused():
        return _task_states(store.by_key, tasks)


def _task_states(by_key: dict[str, list[Entry]], tasks: Iterable[Task]) -> dict[str, TaskState]:
    states = {}
    for task in tasks:
        entries = by_key.get(task.key, ())
        if len(entries) == 1:  # the usual case: one record
            entry = entries[0]
            status = _entry_status(entry, task)
            states[task.key] = (TaskState(status, entry.record, entry, [], []) if status
                                else TaskState("corrupt", None, None, [entry], []))
            continue
        ok, failed, damaged = [], [], []
        for entry in entries:
            status = _entry_status(entry, task)
            (ok if status == "ok" else failed if status == "failed" else damaged).append(entry)
        if ok:
            first = ok[0]
            conflicts = [e for e in ok[1:] if e.checksum != first.checksum]
            states[task.key] = TaskState("ok", first.record, first, damaged, conflicts)
        elif failed:
            states[task.key] = TaskState("failed", failed[-1].record, failed[-1], damaged, [])
        else:
            states[task.key] = TaskState("corrupt" if damaged else "pending", None, None,
                                         damaged, [])
    return states


def stray_entries(store: Store, tasks: Iterable[Task]) -> list[Entry]:
    """Records whose key is not a task of the study (a damaged or foreign line)."""
    keys = {t.key for t in tasks}
    return [e for k, entries in store.by_key.items() if k not in keys for e in entries]


def warn_conflicts(study_dir: Path, states: dict[str, TaskState]) -> None:
    """One :class:`DuplicateRecordWarning` for tasks holding two different successes."""
    flagged = [(k, s) for k, s in states.items() if s.conflicts]
    if not flagged:
        return
    shown = "; ".join(f"task {k}: {s.entry.where(study_dir)} kept, "
                      f"{', '.join(e.where(study_dir) for e in s.conflicts)} differ"
                      for k, s in flagged[:5])
    warnings.warn(f"{study_dir}: {len(flagged)} task(s) have two different successful records "
                  f"(the task ran twice, e.g. two folders merged by hand); the first of each is "
                  f"used: {shown}{' ...' if len(flagged) > 5 else ''}.", DuplicateRecordWarning,
                  stacklevel=3)


# --------------------------------------------------------------------------------------------
# Repair: quarantine and compaction (a run, holding the folder's lock)
# --------------------------------------------------------------------------------------------


def fsync_dir(folder: Path) -> None:
    """fsync a folder (its entries: a new, renamed or removed file), where the OS allows."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _fate(key: object, states: dict[str, TaskState]) -> str:
    """What runs after a damaged entry of task ``key`` is quarantined (told in its warning)."""
    if not isinstance(key, str):
        return ("its task cannot be read from it; every task without a valid record runs, the "
                "others keep their results")
    state = states.get(key)
    if state is None:
        return f"{key!r} is not a task of this study: nothing runs for it"
    if state.status == "ok":
        return f"task {key} keeps its other, valid record and does not run again"
    if state.status == "failed":
        return (f"task {key} keeps its valid failure record (it runs again unless "
                "retry_failed=False)")
    return f"task {key} has no valid record left and runs again; no other task is affected"


def _quarantine_line(study_dir: Path, entry: Entry, fate: str) -> None:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    folder = study_dir / QUARANTINE_DIR
    target = folder / f"{entry.source.name}.line{entry.line}{CORRUPT_SUFFIX}{stamp}"
    try:
        folder.mkdir(exist_ok=True)
        with atomic_path(target) as tmp:
            tmp.write_bytes(entry.raw or b"")
    except OSError as exc:
        raise study_io_error(exc, "writing", target, study_dir=study_dir) from None
    warnings.warn(f"quarantined the line {entry.where(study_dir)} ({entry.problem}): its bytes "
                  f"are in {QUARANTINE_DIR}/{target.name} and it is dropped from the records; "
                  f"{fate}.", CorruptTaskFileWarning, stacklevel=4)


def repair_store(store: Store, tasks: list[Task], states: dict[str, TaskState]) -> bool:
    """Quarantine the damaged records of a folder and, when needed, compact its records into one
    new segment (see the module docstring). Returns whether anything changed."""
    study_dir = store.study_dir
    tasks_dir = study_dir / TASKS_DIR
    damaged = [*store.damaged, *stray_entries(store, tasks),
               *(e for s in states.values() for e in s.damaged)]
    for entry in damaged:
        if entry.problem is None:
            entry.problem = "not a task of this study"
        fate = _fate(entry.key, states)
        if entry.line is None:  # a file: moved aside as before
            quarantine(entry.source, entry.problem, key=str(entry.key), fate=fate)
        else:
            _quarantine_line(study_dir, entry, fate)
    n_entries = sum(len(s.entries) for s in store.segments.values())
    n_chosen = sum(1 for s in states.values() if s.entry is not None)
    if not (damaged or store.torn or store.legacy or n_entries != n_chosen
            or len(store.segments) > MAX_SEGMENTS):
        return False
    seq = max((n for n, _ in list_segments(tasks_dir)), default=0) + 1
    target = tasks_dir / segment_name(seq)
    chosen = [states[t.key].record for t in tasks if states[t.key].entry is not None]
    try:
        with atomic_path(target) as tmp:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "wb") as fh:
                for rec in chosen:
                    fh.write(encode_record(rec)[0])
                fh.flush()
                os.fsync(fh.fileno())
        fsync_dir(tasks_dir)
        for path in store.segments:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        for entry in store.legacy:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.source)
        fsync_dir(tasks_dir)
    except OSError as exc:
        raise study_io_error(exc, "compacting the records into", target,
                             study_dir=study_dir) from None
    return True


# --------------------------------------------------------------------------------------------
# Group commit
# --------------------------------------------------------------------------------------------


class SegmentWriter:
    """Append records to a new segment of ``tasks_dir`` with group commit (module docstring).

    :meth:`add` buffers a record's line; batches are written with one ``write`` and one
    ``fsync``. ``on_saved(record)`` is called in the thread that calls :meth:`add` or
    :meth:`close`, once the record's batch is on disk. :meth:`close` flushes the last batch
    (call it however the run ends). A write error raises
    :class:`~bipartite.studies.StudyIOError` naming the segment (from :meth:`add` or
    :meth:`close` when the timer thread met it)."""

    def __init__(self, tasks_dir: Path, *, interval: float = FLUSH_INTERVAL_S,
                 max_batch: int = MAX_BATCH_RECORDS,
                 on_saved: Callable[[dict], object] | None = None,
                 study_dir: Path | None = None):
        self.tasks_dir = tasks_dir
        self.study_dir = study_dir
        seq = max((n for n, _ in list_segments(tasks_dir)), default=0) + 1
        self.path = tasks_dir / segment_name(seq)
        self.interval, self.max_batch, self.on_saved = interval, max_batch, on_saved
        self.n_flushes = 0
        self.n_records = 0
        self._fd: int | None = None
        self._offset = 0
        self._lines: list[bytes] = []
        self._records: list[dict] = []
        self._saved: list[dict] = []
        self._error: StudyIOError | None = None
        self._last = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._timer, daemon=True,
                                        name="bipartite-group-commit")
        self._thread.start()

    def add(self, line: bytes, record: dict) -> None:
        """Buffer one record (its line from :func:`encode_record`)."""
        self._raise_error()
        with self._lock:
            self._lines.append(line)
            self._records.append(record)
            if (len(self._lines) >= self.max_batch
                    or time.monotonic() - self._last >= self.interval):
                self._flush_locked()
        self._deliver()

    def flush(self) -> None:
        """Write and fsync the buffered records now."""
        self._raise_error()
        with self._lock:
            self._flush_locked()
        self._deliver()

    def close(self) -> None:
        """Stop the timer, flush the last batch, close the segment."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()
        try:
            self._raise_error()
            with self._lock:
                self._flush_locked()
        finally:
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None
        self._deliver()

    def _raise_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            self._lines.clear()
            self._records.clear()
            raise error

    def _deliver(self) -> None:
        if self.on_saved is None:
            self._saved.clear()
            return
        while self._saved:
            with self._lock:
                saved, self._saved = self._saved, []
            for record in saved:
                self.on_saved(record)

    def _timer(self) -> None:
        while not self._stop.wait(self.interval / 2):
            with self._lock:
                if self._lines and time.monotonic() - self._last >= self.interval:
                    try:
                        self._flush_locked()
                    except StudyIOError as exc:
                        self._error = exc
                        return

    def _flush_locked(self) -> None:
        self._last = time.monotonic()
        if not self._lines:
            return
        data = b"".join(self._lines)
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND
                                   | getattr(os, "O_CLOEXEC", 0), 0o644)
                fsync_dir(self.tasks_dir)
            view = memoryview(data)
            while view:
                view = view[write_some(self._fd, view):]
            os.fsync(self._fd)
        except BaseException as exc:
            if self._fd is not None:  # cut a half-written batch back to the last whole one
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, self._offset)
            self._lines.clear()
            self._records.clear()
            if isinstance(exc, OSError):
                raise study_io_error(exc, "writing", self.path, study_dir=self.study_dir) \
                    from None
            raise
        self._offset += len(data)
        self.n_flushes += 1
        self.n_records += len(self._records)
        self._saved.extend(self._records)
        self._lines.clear()
        self._records.clear()


def write_some(fd: int, data: memoryview) -> int:
    """``os.write`` (one call; the fault tests replace it to fill the disk)."""
    written = os.write(fd, data)
    if written <= 0:
        raise OSError(errno.EIO, "write returned no bytes")
    return written


__all__ = ["FLUSH_INTERVAL_S", "MAX_BATCH_RECORDS", "MAX_SEGMENTS", "Entry", "SegmentWriter",
           "Store", "TaskState", "decode_line", "encode_record", "list_segments", "read_store",
           "repair_store", "segment_name", "task_states", "warn_conflicts"]
