"""An advisory lock on a study folder, so that only one run works in it at a time.

The lock is ``fcntl.flock(LOCK_EX)`` on ``<study_dir>/.lock``, taken by the driver process for the
whole of a run (:func:`~bipartite.studies.run_study`, :func:`~bipartite.studies.resume_study`).
The kernel drops it when the holder exits, however it exits (``kill -9`` included), so a lock is
never stale; the file itself stays (deleting a lock file while others wait on it would let two
runs in). The holder writes ``{"pid", "host", "started_at"}`` into the file, which a refused run
quotes in its error.

Scope: POSIX systems (Linux, macOS, BSD). ``flock`` is advisory (it stops other runs of this
runner, nothing else) and works on local file systems; on NFS, Linux emulates it with byte-range
locks, which work across machines only if the server supports them. Where ``fcntl`` is missing
(Windows) the runner warns and runs unlocked.
"""


from __future__ import annotations

import contextlib
import datetime as _dt
import json
import math
import os
import platform
import time
import warnings
from pathlib import Path

from bipartite.studies.errors import StudyLockedError, study_io_error

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

#: Name of the lock file inside a study folder.
LOCK_FILE = ".lock"
#: Default of ``lock_timeout``: a second run on a busy folder fails at once (0 s).
DEFAULT_LOCK_TIMEOUT = 0.0
#: How often a waiting run retries the lock (seconds).
LOCK_POLL_S = 0.1


def read_lock_holder(lock_path: str | os.PathLike) -> dict:
    """What the holder wrote into a lock file: ``{"pid", "host", "started_at"}`` (values
    ``None`` when the file is empty or unreadable, e.g. while the holder is writing it)."""
    holder = {"pid": None, "host": None, "started_at": None}
    for _ in range(3):
        try:
            data = json.loads(Path(lock_path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            time.sleep(0.02)
            continue
        if isinstance(data, dict):
            holder.update({k: data.get(k) for k in holder})
            break
    return holder


def check_lock_timeout(value: object, name: str = "The 'lock_timeout' parameter"
                       ) -> float | None:
    """A lock wait in seconds: ``None`` or ``inf`` (wait for ever) -> ``None``; a finite number
    >= 0 -> itself; anything else (negative, NaN, a bool, text) raises ``ValueError`` naming
    ``name`` (``--wait`` on the command line).

    >>> check_lock_timeout(float("inf")) is None, check_lock_timeout(2)
    (True, 2.0)
    >>> check_lock_timeout(-1, "--wait")
    Traceback (most recent call last):
    ...
    ValueError: --wait must be a number of seconds >= 0 (or no value: wait for ever), got -1.
    """
    if value is None or (isinstance(value, float) and value == math.inf):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a number of seconds >= 0 (or no value: wait for "
                         f"ever), got {value!r}.")
    return float(value)


class StudyLock:
    """Exclusive advisory lock on a study folder (a context manager).

    Parameters
    ----------
    study_dir : the study folder (must exist).
    timeout : seconds to wait for a busy lock: ``0`` (default) fails at once, ``None`` waits
        for ever. On failure, :class:`~bipartite.studies.StudyLockedError` names the folder and
        the holder's pid and host.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     with StudyLock(d):
    ...         try:
    ...             StudyLock(d).acquire()
    ...         except StudyLockedError as exc:
    ...             print(exc.holder["pid"] == os.getpid())
    True
    """

    def __init__(self, study_dir: str | os.PathLike, *, timeout: float | None = DEFAULT_LOCK_TIMEOUT):
        timeout = check_lock_timeout(timeout, "The 'lock_timeout' parameter")
        self.study_dir = Path(study_dir)
        self.path = self.study_dir / LOCK_FILE
        self.timeout = timeout
        self._fd: int | None = None

    @property
    def locked(self) -> bool:
        return self._fd is not None

    def acquire(self) -> StudyLock:
        if self._fd is not None:
            return self
        if fcntl is None:  # pragma: no cover - Windows
            warnings.warn(f"{self.study_dir}: file locking needs POSIX fcntl; running without a "
                          "lock (do not start two runs on this folder).", RuntimeWarning,
                          stacklevel=2)
            return self
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise study_io_error(exc, "creating", self.path, study_dir=self.study_dir) from None
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if deadline is not None and time.monotonic() >= deadline:
                        raise self._busy_error() from None
                    time.sleep(LOCK_POLL_S if deadline is None
                               else max(0.0, min(LOCK_POLL_S, deadline - time.monotonic())))
            info = {"pid": os.getpid(), "host": platform.node(),
                    "started_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
            data = json.dumps(info).encode()
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)
        except BaseException:
            os.close(fd)  # closing drops the lock if we had it
            raise
        self._fd = fd
        return self

    def _busy_error(self) -> StudyLockedError:
        holder = read_lock_holder(self.path)
        who = f"pid {holder['pid'] if holder['pid'] is not None else '(unknown)'}"
        if holder["host"]:
            who += f" on {holder['host']}"
        if holder["started_at"]:
            who += f", since {holder['started_at']}"
        waited = ("" if not self.timeout else f" (waited {self.timeout:g} s)")
        return StudyLockedError(
            f"{self.study_dir} is in use by another run ({who}){waited}. Wait for it to finish "
            f"(`bipartite study status {self.study_dir}`) or stop that process; the lock is "
            f"{self.path} and is released when its holder exits.",
            study_dir=self.study_dir, lock_path=self.path, holder=holder)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            # Clearing the holder record is best effort: the flock is what protects the folder,
            # and closing the descriptor drops it even when the file cannot be truncated (a full
            # or read-only disk); a stale record is overwritten by the next holder.
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # drops the flock

    def __enter__(self) -> StudyLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
