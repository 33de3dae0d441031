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
    report's order key, the walk's prefetch) are taken from numba's disk cache in a second process, not compiled and
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
            "auc(rng.integers(0, 2, n), s)\n"
            "from bipartite.diagnostics import diagnose\n"
            "import bipartite.diagnostics._scan as S\n"
            "import pandas as pd\n"
            "S.COMPILED_MIN_ROWS = 0  # the report's compiled walk (prefetching) at 3000 rows\n"
            "n = 3000; q = np.sort(rng.integers(0, 60, n))\n"
            "df = pd.DataFrame({'q': q, 'a': rng.random(n) < 0.3, 'b': rng.random(n) < 0.1,\n"
            "                   's': rng.normal(size=n)})\n"
            "diagnose(df, scores=['s'], labels=['a', 'b'], qid='q')\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_DEBUG_CACHE": "1"}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           check=True) for _ in range(2)]
    assert "data saved" in runs[0].stdout + runs[0].stderr  # the first process compiled them
    second = runs[1].stdout + runs[1].stderr
    assert "data saved" not in second, second


_prefetch = None  # bound by compiled(calls=...) below


def test_prefetch_is_a_hint_that_changes_no_value():
    """Claim: ``compiled_prefetch()`` compiles to LLVM's prefetch instruction (a write hint, kept
    in every cache level) for 1-D and 2-D arrays and any integer index type, and a pass that
    calls it computes what NumPy computes; a non-array argument is refused at typing."""
    import numba
    import pytest

    from bipartite._utils.compiled import compiled_prefetch

    def f(a, b, idx, ahead):
        s = 0.0
        for j in range(idx.shape[0]):
            if j + ahead < idx.shape[0]:
                _prefetch(a, idx[j + ahead])
                _prefetch(b, idx[j + ahead])
            s += a[idx[j], 1] + b[idx[j]]
        return s

    g = compiled(f, calls={"_prefetch": compiled_prefetch()})
    rng = np.random.default_rng(0)
    a, b = rng.random((500, 3)), rng.random(500)
    for dtype in (np.int64, np.uint32, np.int32):
        idx = rng.integers(0, 500, 4000).astype(dtype)
        for ahead in (0, 1, 8):
            assert g(a, b, idx, ahead) == pytest.approx((a[idx, 1] + b[idx]).sum(), rel=1e-12)
    # the machine code compiled afresh (one loaded from the disk cache has no IR to inspect)
    fresh = numba.njit(g.py_func)
    fresh(a, b, idx, 8)
    ir = "".join(fresh.inspect_llvm().values())
    assert "call void @llvm.prefetch" in ir and "i32 1, i32 3, i32 1)" in ir

    def bad(x):
        _prefetch(x, 0)

    with pytest.raises(numba.core.errors.TypingError):
        compiled(bad, calls={"_prefetch": compiled_prefetch()})(1.5)
