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
import torch
from hypothesis import given
from hypothesis import strategies as st

from bipartite import metrics
from tests.fuzz.discover import public_callables
from tests.fuzz.exempt import EXEMPT
from tests.fuzz.guard import run_guarded, run_guarded_batch
from tests.fuzz.registry import (
    CASES,
    FORM_FAMILIES,
    accepted_inputs,
    bad_inputs,
    exact_reference,
    huge_integer_forms,
)


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
    for param, fam, value in bad_inputs(name) if fam not in FORM_FAMILIES
]


@pytest.mark.parametrize("name, param, fam, value", _BAD)
def test_bad_input_is_refused_by_name(name, param, fam, value):
    case = CASES[name]
    r = run_guarded(lambda: case.call(**{param: value}), (param,))
    assert r.outcome in ("clean", "nan"), f"{name}({param}={fam}) -> {r.outcome}: {r.message}"


def _form_groups():
    groups: dict[tuple[str, str], list[tuple[str, object]]] = {}
    for name in CASES:
        for param, fam, value in bad_inputs(name):
            if fam in FORM_FAMILIES:
                groups.setdefault((name, param), []).append((fam, value))
    return [pytest.param(name, param, fams, id=f"{name.removeprefix('bipartite.')}-{param}",
                         marks=_marks(CASES[name]))
            for (name, param), fams in groups.items()]


@pytest.mark.parametrize("name, param, fams", _form_groups())
def test_foreign_forms_are_refused_by_name(name, param, fams):
    """Issue 22's families (masked arrays, object arrays with a hole, pandas NA, complex,
    datetime, timedelta and structured dtypes, meta and sparse tensors, SciPy sparse matrices,
    mixed-type and missing group ids): a plain NumPy conversion would drop the mask or the
    imaginary part, cast datetimes to numbers, or fail inside NumPy/torch without naming the
    argument. Each must be refused by name. One forked worker runs a parameter's families."""
    case = CASES[name]
    calls = [lambda v=value: case.call(**{param: v}) for _, value in fams]
    results = run_guarded_batch(calls, (param,))
    bad = [f"{fam} -> {r.outcome}: {r.message[:200]}" for (fam, _), r in zip(fams, results, strict=True)
           if r.outcome not in ("clean", "nan")]
    assert not bad, f"{name}({param}=...): " + "; ".join(bad)


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
    # issue 22: object arrays of numbers, pandas nullable dtypes and categoricals without a
    # missing value, masked arrays with nothing masked, and tensors that require grad are the
    # same numbers
    out["object"] = a.astype(object)
    out["masked_nothing"] = np.ma.masked_array(a, mask=np.zeros(a.shape, dtype=bool))
    nullable = ("boolean" if a.dtype == bool else "Int64" if a.dtype.kind in "iu"
                else "Float64" if a.dtype.kind == "f" else None)
    if nullable and a.ndim == 1:
        out[f"pandas_{nullable}"] = pd.Series(pd.array(a, dtype=nullable))
        out["pandas_category"] = pd.Series(a).astype("category")
    elif nullable and a.ndim == 2:
        out[f"pandas_{nullable}"] = pd.DataFrame(a).astype(nullable)
    if a.dtype.kind == "f":
        out["torch_requires_grad"] = torch.tensor(a, requires_grad=True)
    if a.dtype.kind in "iu":
        out["uint64"] = a.astype(np.uint64) if a.min() >= 0 else a.astype(np.int32)
    return out


def _same(a, b, rtol=1e-6):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], rtol) for k in a)
    if isinstance(a, tuple | list) and not isinstance(a, np.ndarray) and a and not np.isscalar(
            a[0]):
        return len(a) == len(b) and all(_same(x, y, rtol) for x, y in zip(a, b, strict=True))
    if hasattr(a, "detach"):
        a = a.detach().numpy()
    if hasattr(b, "detach"):
        b = b.detach().numpy()
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=rtol, atol=0 if rtol == 0
                       else 1e-8, equal_nan=True)


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


# ---------------------------------------------------------------------------------------------
# integers beyond 2**53: the exact answer (issue 22), not ties from a float64 rounding
# ---------------------------------------------------------------------------------------------
EXACT = [pytest.param(n, p, id=f"{n.removeprefix('bipartite.')}-{p}")
         for n, c in CASES.items() for p in c.exact]


@pytest.mark.parametrize("name, param", EXACT)
def test_huge_integers_give_the_exact_answer(name, param):
    """Integers past 2**53 (int64, uint64, Python ints, pandas Int64) give exactly the answer of
    the small integers they are a shift of: the parameter uses only their order ("order") or
    their order and differences ("shift"). The reference is the same callable on the small
    integers (float64-exact), and for the AUC-type metrics scikit-learn on them
    (test_huge_integer_scores_match_sklearn)."""
    case = CASES[name]
    r = exact_reference(case.kwargs[param], case.exact[param])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = case.call(**{param: r.astype(np.float64)})
        assert _same(ref, case.call()), "the rank/shift reference must give the valid answer"
        for form, value in huge_integer_forms(r).items():
            assert _same(ref, case.call(**{param: value}), rtol=0), f"{name}: {param} as {form}"


def test_huge_integer_scores_match_sklearn():
    """The issue's reproducers against scikit-learn on the rank-transformed scores."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    from bipartite.diagnostics import delong_auc_variance
    from tests.fuzz.registry import Y2, s1, w1, y1

    r = exact_reference(s1, "order")
    assert metrics.auc([0, 1], np.array([2**62, 2**62 + 1])) == 1.0
    for form, value in huge_integer_forms(r).items():
        assert metrics.auc(y1, value, sample_weight=w1) == pytest.approx(
            roc_auc_score(y1, r, sample_weight=w1), abs=1e-15), form
        assert metrics.average_precision(y1, value, sample_weight=w1) == pytest.approx(
            average_precision_score(y1, r, sample_weight=w1), abs=1e-15), form
        np.testing.assert_allclose(metrics.multilabel_auc(Y2, value),
                                   [roc_auc_score(Y2[:, k], r) for k in range(2)], atol=1e-15)
        assert delong_auc_variance(y1, value)[0] == pytest.approx(roc_auc_score(y1, r), abs=1e-15)


# ---------------------------------------------------------------------------------------------
# group ids: interleaved rows and other id values give the same answer
# ---------------------------------------------------------------------------------------------
GROUPED = [n for n, c in CASES.items() if c.groups]


@pytest.mark.parametrize("name", GROUPED)
def test_non_contiguous_group_ids_give_the_same_answer(name):
    """Rows of one query need not be adjacent, and ids need not be 0..G-1 (nor numbers): the
    rows interleaved across queries (every row-aligned argument permuted alike), ids mapped to
    large, negative, sparse or string values, and the ids as a strided view give the answer of
    the contiguous 0..G-1 layout."""
    case = CASES[name]
    g = np.asarray(case.kwargs[case.groups])
    n = len(g)
    within = np.array([np.count_nonzero(g[:i] == g[i]) for i in range(n)])
    perm = np.lexsort((g, within))  # one row of each query in turn
    assert not np.array_equal(perm, np.arange(n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = case.call()
        rows = {k: np.asarray(v)[perm] for k, v in case.kwargs.items()
                if isinstance(v, np.ndarray) and v.ndim >= 1 and len(v) == n}
        assert _same(ref, case.call(**rows)), f"{name}: interleaved rows changed the answer"
        for label, ids in {"large": g * 10**12 + 7, "negative": -g - 5,
                           "strings": np.array([f"q{x}" for x in g]),
                           "strided": np.repeat(g, 2)[::2]}.items():
            assert _same(ref, case.call(**{case.groups: ids})), f"{name}: {label} ids"


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
