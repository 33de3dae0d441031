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


_callee = None  # bound by compiled(calls=...) in the test below


def test_calls_are_globals_not_closure_cells():
    """Claim: a compiled function that calls another reads it under a global name bound by
    ``calls`` (its closure holds no compiled function), keeps its name and module (numba's cache
    files are named by them), and computes with the callee."""
    def twice(x):
        return 2 * x

    def f(x):
        return _callee(x) + 1

    g = compiled(f, calls={"_callee": compiled(twice)})
    assert g(np.int64(5)) == 11
    assert g.py_func.__closure__ is None
    assert g.py_func.__qualname__ == f.__qualname__ and g.py_func.__module__ == f.__module__


def test_compiled_passes_load_from_the_disk_cache(tmp_path):
    """Claim: the compiled passes that call other compiled functions (the float key, the
    report's order key) are taken from numba's disk cache in a second process, not compiled and
    cached again (a compiled function in a closure pickles with an identifier new in every
    process: every process compiled them again and added one more cache file)."""
    import os
    import subprocess
    import sys

    code = ("import numpy as np\n"
            "from bipartite.diagnostics._walk import sorted_rows\n"
            "from bipartite.diagnostics._packed import packed\n"
            "from bipartite.metrics import auc\n"
            "rng = np.random.default_rng(0); n = 500\n"
            "s = rng.normal(size=n); s[:4] = [0.0, -0.0, 1.0, 1.0 + 2**-50]\n"
            "sorted_rows(s, rng.integers(0, 8, n).astype(np.uint32), np.zeros(0), True)\n"
            "sorted_rows(s, rng.integers(0, 2**40, n), rng.random(n), False)\n"
            "packed(rng.random((2, n)) < 0.5, rng.integers(0, 9, n), 9, compiled=True)\n"
            "auc(rng.integers(0, 2, n), s)\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_DEBUG_CACHE": "1"}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           check=True) for _ in range(2)]
    assert "data saved" in runs[0].stdout + runs[0].stderr  # the first process compiled them
    second = runs[1].stdout + runs[1].stderr
    assert "data saved" not in second, second
