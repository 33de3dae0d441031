"""Tests of :mod:`bipartite._utils.compiled`, the package's one door to numba."""

from __future__ import annotations

import numpy as np

from bipartite._utils.compiled import compiled


def test_compiled_without_a_writable_cache(monkeypatch):
    """Claim: where numba finds no writable cache folder (it raises at ``cache=True``), the
    pass is compiled for the process only and gives the same sum."""
    import numba

    real = numba.njit

    def no_cache(*args, **kwargs):
        if kwargs.get("cache"):
            raise RuntimeError("cannot cache function 'run': no locator available for file 'x'")
        return real(*args, **kwargs)

    monkeypatch.setattr(numba, "njit", no_cache)

    def f(x):
        return x.sum() * 2

    assert compiled(f)(np.arange(4)) == 12
