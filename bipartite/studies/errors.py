"""Errors and warnings of the study runner (besides :class:`~bipartite.studies.ConfigError`).

Every error the runner raises for a problem outside a task names the path (study folder, file)
or the key it is about, and says what to do next. Command-line front ends map
:class:`StudyError` to exit status 2 and :class:`StudyTerminated` (a ``SystemExit``) to 143.
"""


from __future__ import annotations

import os

from bipartite._utils.files import (  # noqa: F401  (re-exported: their home is _utils)
    NO_PERMISSION_ERRNOS,
    NO_SPACE_ERRNOS,
    explain_os_error,
)

#: Exit status of a driver stopped by SIGTERM (128 + 15, the shell convention).
EXIT_SIGTERM = 143


class StudyError(Exception):
    """The runner cannot go on (folder in use, not writable, scheduler unreachable, worker pool
    broken...). The message names the folder, file or address and what to do."""


class StudyLockedError(StudyError):
    """Another run holds the study folder's lock (:mod:`bipartite.studies.locking`).

    Attributes: ``study_dir``, ``lock_path``, ``holder`` (``{"pid", "host", "started_at"}`` as
    written by the holder; values may be ``None`` when unreadable).
    """

    def __init__(self, message: str, *, study_dir: str | os.PathLike | None = None,
                 lock_path: str | os.PathLike | None = None, holder: dict | None = None):
        super().__init__(message)
        self.study_dir = study_dir
        self.lock_path = lock_path
        self.holder = holder or {}


class StudyIOError(StudyError, OSError):
    """A file of the study folder could not be written or read (disk full, not a folder, no
    permission...). Also an :class:`OSError`; ``errno`` is that of the underlying error and
    ``path`` the file concerned."""

    def __init__(self, message: str, *, path: str | os.PathLike | None = None, errno: int | None = None):
        super().__init__(message)
        self.path = path
        self.errno = errno


class StudyTerminated(SystemExit):
    """Raised by the runner once it has stopped its workers and saved the finished tasks after a
    SIGTERM: a ``SystemExit`` with code 143, so a script or the CLI exits with that status unless
    the caller catches it."""

    def __init__(self, message: str = "terminated by SIGTERM"):
        super().__init__(EXIT_SIGTERM)
        self.message = message

    def __str__(self) -> str:
        return self.message


class CorruptTaskFileWarning(UserWarning):
    """A task file was unreadable, of the wrong shape or failed its checksum; it was moved aside
    (``<study_dir>/quarantine/``) and the task rerun."""


class DuplicateRecordWarning(UserWarning):
    """A task has two successful records that differ (it ran twice: e.g. record segments of two
    folders merged by hand). The first is used; identical copies (a crash while records were
    compacted) are read once without a warning."""


class LegacyRecordWarning(UserWarning):
    """Task records written by bipartite 0.3.0 carry no checksum: they are read (their shape and
    task are checked) but cannot be verified against later edits."""


class StudyIncompleteError(StudyError):
    """At the end of a run, some tasks have no valid record (a file vanished or was damaged
    while the study ran, or a result never came back). ``missing`` lists their keys; the
    message names them and says how to resume."""

    def __init__(self, message: str, *, study_dir: str | os.PathLike | None = None,
                 missing: list[str] | None = None):
        super().__init__(message)
        self.study_dir = study_dir
        self.missing = list(missing or [])


def study_io_error(exc: OSError, action: str, path: str | os.PathLike | None = None, *,
                   study_dir: str | os.PathLike | None = None) -> StudyIOError:
    """A :class:`StudyIOError` for ``exc`` raised while ``action`` (e.g. ``"writing"``) ``path``,
    with a hint that depends on the cause.

    >>> import errno
    >>> err = study_io_error(OSError(errno.ENOSPC, "No space left on device"), "writing",
    ...                      "out/results.csv", study_dir="out")
    >>> print(err)  # doctest: +NORMALIZE_WHITESPACE
    cannot write out/results.csv: No space left on device [ENOSPC]. The disk is full (or over
    quota, or the file too large): free space, then run `bipartite study resume out`; finished
    tasks are kept in out/tasks.
    """
    path = path if path is not None else exc.filename
    message = explain_os_error(exc, action, path, no_space=(
        f" then run `bipartite study resume {study_dir}`; finished tasks are kept in "
        f"{study_dir}/tasks." if study_dir is not None else " then try again."))
    return StudyIOError(message, path=path, errno=exc.errno)
