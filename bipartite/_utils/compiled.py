"""The package's one door to numba: :func:`compiled` (docs/theory.md §3.2 names the passes that
use it). numba is imported on the first call, not by ``import bipartite``."""

from __future__ import annotations

__all__ = ["compiled"]


def compiled(f):
    """``f`` compiled by numba (imported here, on the first use), its machine code cached on disk
    (next to its module, else in the user's cache folder); where no cache folder is writable,
    numba refuses to cache, and ``f`` is compiled for this process only."""
    import numba

    try:
        return numba.njit(cache=True, nogil=True)(f)
    except RuntimeError:   # "cannot cache function ...: no locator available"
        return numba.njit(nogil=True)(f)
