"""Output folders, checked before any work, and OS errors explained (the one home of both).

The study runner (:mod:`bipartite.studies`) and the report (:meth:`bipartite.diagnostics.Diagnostics.save`,
``bipartite report --out``) check their output folder here: a part of the path that is a file,
a read-only file system, no permission or a full disk gives an :class:`OutputError` (an
``OSError``) whose message names the path, the cause (``[EROFS]``...) and what to do.
"""

from __future__ import annotations

import contextlib
import errno as _errno
import gzip
import os
import secrets
from pathlib import Path

__all__ = ["NO_PERMISSION_ERRNOS", "NO_SPACE_ERRNOS", "OutputError", "check_output_dir",
           "check_writable", "explain_os_error", "first_non_utf8", "open_maybe_gzip",
           "prepare_output_dir", "temp_path"]

#: errno values meaning "no room left" (disk full, quota, file too large).
NO_SPACE_ERRNOS = frozenset(e for e in (getattr(_errno, name, None)
                                        for name in ("ENOSPC", "EDQUOT", "EFBIG")) if e)
#: errno values meaning "not allowed to write here" (EROFS: a read-only file system).
NO_PERMISSION_ERRNOS = frozenset(e for e in (getattr(_errno, name, None)
                                             for name in ("EACCES", "EPERM", "EROFS")) if e)


class OutputError(OSError):
    """An output folder or file that cannot be used. ``errno`` and ``filename`` are those of the
    cause; ``action`` (``"writing"``, ``"creating"``, ``"using"``) what was tried and
    ``os_error`` the underlying ``OSError`` (None when the path itself is wrong, e.g. a part of it
    is a file)."""

    def __init__(self, message: str, *, path: str | os.PathLike | None = None,
                 errno: int | None = None, action: str = "using",
                 os_error: OSError | None = None):
        super().__init__(message)
        self.errno = errno
        self.filename = None if path is None else os.fspath(path)
        self.action = action
        self.os_error = os_error

    def __str__(self) -> str:
        return self.args[0]


def explain_os_error(exc: OSError, action: str, path: str | os.PathLike | None = None, *,
                     no_space: str = " then try again.") -> str:
    """``cannot <verb> PATH: <reason> [ERRNO].`` and a hint that depends on the cause (``no_space``
    ends the disk-full hint)."""
    path = path if path is not None else exc.filename
    code = exc.errno
    name = _errno.errorcode.get(code, str(code)) if code is not None else type(exc).__name__
    reason = exc.strerror or str(exc) or type(exc).__name__
    verb = {"writing": "write", "reading": "read", "creating": "create",
            "moving": "move", "locking": "lock"}.get(action, action)
    message = f"cannot {verb} {path}: {reason} [{name}]."
    if code in NO_SPACE_ERRNOS:
        message += " The disk is full (or over quota, or the file too large): free space," + no_space
    elif code == getattr(_errno, "EROFS", None):
        message += (" The file system is read-only (mounted read-only): choose another --out "
                    "folder, on a writable file system.")
    elif code in NO_PERMISSION_ERRNOS:
        message += " The folder is not writable by this user: choose another --out folder."
    elif code == _errno.ENOTDIR:
        message += " A part of this path is a file, not a folder: choose another --out folder."
    return message


def _output_error(exc: OSError, action: str, path: Path) -> OutputError:
    return OutputError(explain_os_error(exc, action, path), path=path, errno=exc.errno,
                       action=action, os_error=exc)


def temp_path(path: Path) -> Path:
    """A fresh temporary name beside ``path``: ``.<name>.<pid>-<8 random hex>.tmp``."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")


def _check_parts(folder: Path, what: str) -> Path | None:
    """The deepest existing part of ``folder``'s path (None if none exists); an error if that
    part is a file or a broken link."""
    for part in [folder, *folder.parents]:
        if part.exists() or part.is_symlink():
            if not part.is_dir():
                where = "is" if part == folder else "is below"
                kind = "a broken link" if not part.exists() else "a file"
                raise OutputError(
                    f"cannot use {folder} as {what}: it {where} {part}, which is {kind}, not a "
                    "folder. Choose another --out folder.", path=part, errno=_errno.ENOTDIR)
            return part
    return None


def check_writable(folder: Path) -> None:
    """Create and remove a temporary file in ``folder``: a folder that cannot be written (a
    read-only file system, no permission, a full disk) raises :class:`OutputError`."""
    probe = temp_path(Path(folder) / "write-check")
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(probe)
        raise _output_error(exc, "writing", Path(folder)) from None


def check_output_dir(folder: str | os.PathLike, *, what: str = "an output folder") -> None:
    """Before any work, without creating anything: every existing part of ``folder``'s path is a
    folder, and the deepest existing one can be written (so ``folder`` can be created and
    written). Raises :class:`OutputError` naming the path and the cause.
    """
    folder = Path(folder)
    existing = _check_parts(folder, what)
    if existing is not None:
        check_writable(existing)


def prepare_output_dir(folder: str | os.PathLike, *, what: str = "an output folder") -> Path:
    """Create ``folder`` (and its parents), with an :class:`OutputError` naming the path when a
    part of it is a file or it cannot be created; returns it as a ``Path``."""
    folder = Path(folder)
    _check_parts(folder, what)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _output_error(exc, "creating", folder) from None
    return folder


def open_maybe_gzip(path: str | os.PathLike, mode: str = "rb", **kwargs):
    """``open(path, mode)``, through :func:`gzip.open` when the name ends in ``.gz``."""
    path = Path(path)
    return gzip.open(path, mode, **kwargs) if path.name.lower().endswith(".gz") else open(path, mode, **kwargs)


def first_non_utf8(path: str | os.PathLike) -> tuple[int, int] | None:
    """``(line, byte)``, both 1-based, of the first byte of ``path`` that is not UTF-8 text (the
    byte counted within its line), or None when the whole file decodes; gzip files (``.gz``) are
    read decompressed. The one home of the "which line is not text" check behind the readers'
    ``file:line: not UTF-8 text`` errors."""
    with open_maybe_gzip(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return lineno, exc.start + 1
    return None
