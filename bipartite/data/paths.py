"""Where the data lives: one setting for every loader, study and test.

The data folder is found, in this order, from

1. an explicit argument (``path=``; a loader's own file argument),
2. the environment variable ``BIPARTITE_DATA``,
3. ``../shared/data`` relative to the current working directory (the layout of this project's
   checkouts and CI).

Nothing is downloaded: the files are documented in ``../shared/data/README.md`` (provenance,
checksums) and are never copied into the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA_ENV", "data_dir", "data_file", "missing_file_error"]

#: The environment variable naming the data folder.
DATA_ENV = "BIPARTITE_DATA"
_DEFAULT = Path("..") / "shared" / "data"


def data_dir(path: str | os.PathLike | None = None) -> Path:
    """The data folder: ``path`` if given, else ``$BIPARTITE_DATA``, else ``../shared/data``.

    The folder is returned whether or not it exists; use :func:`data_file` to find a file and get a
    clear error when it is missing.

    >>> str(data_dir("/some/where"))
    '/some/where'
    """
    if path is not None:
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"The 'path' parameter must be a path, got {type(path).__name__}.")
        return Path(path)
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    return _DEFAULT


def data_file(name: str | os.PathLike, path: str | os.PathLike | None = None, *,
              required: bool = False) -> Path | None:
    """The file ``name`` inside :func:`data_dir` (``path`` overrides the folder).

    Returns ``None`` when the file is absent, or raises :class:`FileNotFoundError` naming the
    folder and the setting when ``required=True``.
    """
    folder = data_dir(path)
    target = folder / name
    if target.exists():
        return target
    if required:
        raise FileNotFoundError(
            f"{name} not found in the data folder {folder} (set by the 'path' argument, the "
            f"{DATA_ENV} environment variable or the default ../shared/data).")
    return None


def missing_file_error(path: Path, what: str, how: str) -> FileNotFoundError:
    """The error a loader raises for a missing data file: what it is and where it comes from."""
    return FileNotFoundError(f"{what} file '{path}' does not exist. Get it from: {how}.")
