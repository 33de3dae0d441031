"""The package's one door to numba: :func:`compiled` (docs/theory.md §3.2 names the passes that
use it). numba is imported on the first call, not by ``import bipartite``."""

from __future__ import annotations

import types

__all__ = ["compiled"]


def compiled(f, calls: dict | None = None):
    """``f`` compiled by numba (imported here, on the first use), its machine code cached on disk
    (next to its module, else in the user's cache folder); where no cache folder is writable,
    numba refuses to cache, and ``f`` is compiled for this process only.

    ``calls``: compiled functions that ``f`` calls, by the global names ``f`` reads them under
    (``f`` is compiled with its module's globals plus these). They must not reach ``f`` through
    its closure: numba keys its disk cache by ``f``'s code and its closure's contents, pickled,
    and a compiled function pickles with an identifier new in every process, so such an ``f``
    would be compiled again, and one more copy cached, in every process. numba does not see a
    change to a called function's file: after editing one, delete the ``__pycache__/*.nbi``
    and ``*.nbc`` files of its callers (or set ``NUMBA_CACHE_DIR`` to a fresh folder)."""
    import numba

    if calls:
        g = dict(f.__globals__)
        g.update(calls)
        h = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
        h.__qualname__, h.__module__, h.__doc__ = f.__qualname__, f.__module__, f.__doc__
        f = h
    try:
        return numba.njit(cache=True, nogil=True)(f)
    except RuntimeError:   # "cannot cache function ...: no locator available"
        return numba.njit(nogil=True)(f)
