"""The fuzz suite (reliability issue): every public callable is in the registry (or exempt with a
reason), its valid call works, every bad-input family is refused by name (or gives the documented
NaN), alternative valid forms give the same answer, and nothing hangs or blows up memory (each
call runs in a forked worker under a time limit and an address-space cap: tests/fuzz/guard.py).

Every bad input must be refused cleanly: an unclear error, a silent value or a hang fails the
suite (there is no list of tolerated gaps). A family value that is *valid* input for a callable is
listed in its case's ``accepts`` with the reason, and must give a value. ``python -m
tests.fuzz.census`` prints the counts by outcome class.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bipartite import metrics
from tests.fuzz.discover import public_callables
from tests.fuzz.exempt import EXEMPT
from tests.fuzz.guard import run_guarded
from tests.fuzz.registry import CASES, accepted_inputs, bad_inputs


def _marks(case):
    return [pytest.mark.slow] if case.slow else []


def test_registry_is_complete():
    names = set(public_callables())
    missing = sorted(names - set(CASES) - set(EXEMPT))
    assert not missing, f"public callables missing from tests/fuzz registry or exempt: {missing}"
    stale = sorted((set(CASES) | set(EXEMPT)) - names)
    assert not stale, f"registry/exempt entries that are no longer public: {stale}"
    assert not set(CASES) & set(EXEMPT)
    assert all(isinstance(r, str) and r for r in EXEMPT.values())


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(c)) for n, c in CASES.items()])
def test_valid_call(name):
    r = run_guarded(CASES[name].call)
    assert r.outcome in ("silent", "nan"), f"{name}: valid call failed: {r}"


_BAD = [
    pytest.param(name, param, fam, value, id=f"{name.removeprefix('bipartite.')}-{param}-{fam}",
                 marks=_marks(case))
    for name, case in CASES.items()
    for param, fam, value in bad_inputs(name)
]


@pytest.mark.parametrize("name, param, fam, value", _BAD)
def test_bad_input_is_refused_by_name(name, param, fam, value):
    case = CASES[name]
    r = run_guarded(lambda: case.call(**{param: value}), (param,))
    assert r.outcome in ("clean", "nan"), f"{name}({param}={fam}) -> {r.outcome}: {r.message}"


_ACCEPTED = [
    pytest.param(name, param, fam, value, id=f"{name.removeprefix('bipartite.')}-{param}-{fam}",
                 marks=_marks(case))
    for name, case in CASES.items()
    for param, fam, value, _ in accepted_inputs(name)
]


@pytest.mark.parametrize("name, param, fam, value", _ACCEPTED)
def test_documented_valid_inputs_give_a_value(name, param, fam, value):
    """The families a case lists in ``accepts`` (with the reason) are valid input there: they
    must give a value, not an error (and they are not counted as bad inputs)."""
    case = CASES[name]
    r = run_guarded(lambda: case.call(**{param: value}), (param,))
    assert r.outcome in ("silent", "nan"), f"{name}({param}={fam}) -> {r.outcome}: {r.message}"


# ---------------------------------------------------------------------------------------------
# valid alternative forms give the same answer
# ---------------------------------------------------------------------------------------------
def _forms(v):
    a = np.asarray(v)
    ro = a.copy()
    ro.setflags(write=False)
    neg = np.ascontiguousarray(a[::-1])[::-1]  # same values, negative stride
    strided = np.repeat(a, 2, axis=0)[::2]
    out = {"list": a.tolist(), "read_only": ro, "negative_stride": neg, "strided": strided}
    if a.dtype.kind == "f":
        f32 = a.astype(np.float32)
        if np.array_equal(f32.astype(np.float64), a):
            out["float32"] = f32
    if a.dtype.kind in "iu" and set(np.unique(a)) <= {0, 1}:
        out["bool"] = a.astype(bool)
    if a.ndim == 1:
        out["pandas"] = pd.Series(a)
    elif a.ndim == 2:
        out["pandas"] = pd.DataFrame(a)
    return out


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if hasattr(a, "detach"):
        a, b = a.detach().numpy(), b.detach().numpy()
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-6, equal_nan=True)


ALT = [n for n, c in CASES.items() if c.alt_forms]


@pytest.mark.parametrize("name", ALT)
def test_alternative_forms_give_the_same_answer(name):
    case = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = case.call()
        for param in case.kinds:
            if param not in case.kwargs or not isinstance(case.kwargs[param], np.ndarray):
                continue
            for form, value in _forms(case.kwargs[param]).items():
                got = case.call(**{param: value})
                assert _same(ref, got), f"{name}: {param} as {form} changed the answer"


WEIGHTED = [n for n, c in CASES.items() if c.weight]


@pytest.mark.parametrize("scale", [1e-170, 1e-3, 7.0, 1e170])
@pytest.mark.parametrize("name", WEIGHTED)
def test_rescaled_sample_weights_give_the_same_answer(name, scale):
    case = CASES[name]
    w = np.asarray(case.kwargs[case.weight])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _same(case.call(), case.call(**{case.weight: w * scale}))


# ---------------------------------------------------------------------------------------------
# hypothesis: a NaN anywhere in otherwise valid scores is refused by name, never propagated
# ---------------------------------------------------------------------------------------------
@given(st.integers(2, 30), st.data())
def test_nan_anywhere_is_refused_by_name(n, data):
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    s = np.array(data.draw(st.lists(st.floats(-1e6, 1e6), min_size=n, max_size=n)))
    s[data.draw(st.integers(0, n - 1))] = data.draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    for fn in (metrics.auc, metrics.average_precision):
        with pytest.raises(ValueError, match="'y_score'"):
            fn(y, s)


def test_guard_turns_a_hang_into_a_failure():
    import time

    r = run_guarded(lambda: time.sleep(60), timeout=1)
    assert r.outcome == "hang"


def _touch_gib() -> int:
    a = np.ones(2**30, dtype=np.uint8)  # 1 GiB, written (not only reserved)
    return int(a[:: 2**20].sum())


def test_guard_turns_a_memory_blow_up_into_a_failure():
    """The address-space cap is what stops it: the same 1 GiB allocation succeeds with 3 GiB of
    headroom and is refused with 256 MiB."""
    assert run_guarded(_touch_gib, timeout=60, headroom=3 * 2**30).outcome == "silent"
    r = run_guarded(_touch_gib, timeout=60, headroom=2**28)
    assert r.outcome == "hang" and r.kind == "MemoryError"


def test_short_argument_names_must_be_quoted_to_count_as_named():
    from tests.fuzz.guard import names_argument

    assert not names_argument("The 'pi' parameter must be a vector [ValueError]", ("a",))
    assert names_argument("The 'a' parameter must be non-negative [ValueError]", ("a",))
    assert names_argument("The 'tol' parameter must be finite [ValueError]", ("tol",))
