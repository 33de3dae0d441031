"""The polynomial-cost route of ``multipartite_auc`` (``bipartite/metrics/_polynomial.py``;
docs/theory.md §3.2): squared costs and user matrices ``C_ab = p(y_a − y_b)`` against the O(n²)
pair count, the general O(n L) route, and exact rational arithmetic, and its pieces against
brute force."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bipartite.labels import cost_matrix
from bipartite.metrics import _dominance as D
from bipartite.metrics import _multipartite as M
from bipartite.metrics import _polynomial as P
from bipartite.metrics import multipartite_auc


def pair_count(y, s, C, w=None):
    """docs/theory.md §3.2 vectorised: pairs with ȳ_i > ȳ_j weigh C ω_i ω_j, ties count ½."""
    w = np.ones(len(y)) if w is None else w
    cost = np.tril(C, -1)[y[:, None], y[None, :]] * w[:, None] * w[None, :]
    win = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
    return float((cost * win).sum() / cost.sum())


def general_route(y, s, C, w=None):
    """The same value from the general O(n L) route, the polynomial detection bypassed."""
    return M.multipartite_from_levels(s.astype(float), y, len(C), w, ("general", C))


def poly_matrix(levels, alpha):
    d = levels[:, None] - levels[None, :]
    return np.tril(sum(a * d**m for m, a in enumerate(alpha)), -1)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_polynomial_route_equals_pair_count_and_general_route(data):
    """Claim: for any polynomial costs of degree ≤ 4 with non-negative values (integer or real
    coefficients, integer or real levels), tie-heavy scores and optional weights, the
    polynomial route equals the O(n²) pair count and the general route."""
    L = data.draw(st.sampled_from([3, 4, 7, 17, 70, 300]))
    n = data.draw(st.integers(2, 60))
    y = np.array(data.draw(st.lists(st.integers(0, L - 1), min_size=n, max_size=n)))
    y[:2] = [0, L - 1]
    s = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=float)
    alpha = data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 0.5, 3.25]), min_size=3,
                               max_size=5))
    alpha[2] = alpha[2] or 1.0                                   # degree ≥ 2: not difference form
    step = data.draw(st.sampled_from([1.0, 0.25, 3.0]))
    present, y = np.unique(y, return_inverse=True)             # C is indexed by the levels present
    levels = present * step - 1.0
    C = poly_matrix(levels, alpha)
    w = None
    if data.draw(st.booleans()):
        w = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), float)
        w[:2] = 1.0
    got = multipartite_auc(levels[y], s, costs=C, sample_weight=w)
    assert got == pytest.approx(pair_count(y, s, C, w), abs=1e-12)
    assert got == pytest.approx(general_route(y, s, C, w), abs=1e-12)


@pytest.mark.parametrize("L", [2, 4, 64, 65, 256, 1024])
@pytest.mark.parametrize("kind", ["continuous", "ties"])
def test_squared_costs_match_general_route(L, kind):
    """Every route of the sort (coded keys up to 64 levels, a sort order beyond; weights) on
    random tied data: the general route's value."""
    rng = np.random.default_rng(L)
    n = 3000
    y = rng.integers(0, L, n)
    y[:L] = np.arange(L)
    s = rng.normal(size=n) if kind == "continuous" else rng.integers(-5, 6, n).astype(float)
    C = cost_matrix(np.arange(float(L)), "squared")
    for w in (None, rng.random(n)):
        want = general_route(y, s, C, w)
        assert multipartite_auc(y, s, costs="squared", sample_weight=w) == pytest.approx(
            want, abs=1e-12)


@pytest.mark.parametrize("kind", ["continuous", "ties"])
def test_squared_costs_unweighted_are_exact_beyond_2_53(kind):
    """Unweighted integer levels: A and Z are exact integers in int64 (here up to ~1e17, beyond
    float64's 2^53), so the value is the exact rational rounded."""
    rng = np.random.default_rng(5)
    n, L = 2000, 64
    levels = np.arange(L) * 3000
    y = rng.integers(0, L, n)
    y[:L] = np.arange(L)
    s = rng.normal(size=n) if kind == "continuous" else rng.integers(-5, 6, n).astype(float)
    assert P.exact_bound(n, levels - levels[0], np.array([0, 0, 1]))
    cost = ((levels[:, None] - levels[None, :]) ** 2 * np.tri(L, k=-1, dtype=np.int64))[
        y[:, None], y[None, :]]
    win2 = 2 * (s[:, None] > s[None, :]) + (s[:, None] == s[None, :])
    num, den = int((cost * win2).sum()), 2 * int(cost.sum())
    assert den > 2**53
    want = Fraction(num, den)
    assert abs(multipartite_auc(levels[y], s, costs="squared") - float(want)) <= 4e-16


def test_polynomial_detection_only_where_it_holds():
    """"squared" and user matrices p(y_a − y_b) take the polynomial route; a bent entry, a
    matrix not of that form, and difference-form or constant matrices keep their routes."""
    lv = np.array([0.0, 1.0, 2.5, 4.0, 7.0, 7.5])
    assert M.cost_structure(lv, "squared")[0] == "polynomial"
    C = poly_matrix(lv, [1.5, 0.0, 2.0, 1.0])
    kind, (v, alpha) = M.cost_structure(lv, C)
    assert kind == "polynomial"
    np.testing.assert_allclose(alpha, [1.5, 0.0, 2.0, 1.0], atol=1e-9)
    np.testing.assert_array_equal(v, lv - lv[0])
    assert M.cost_structure(lv, poly_matrix(lv, [0, 0, 3]))[1][1].tolist() == [0, 0, 3]  # ints
    bent = C.copy()
    bent[4, 1] *= 1 + 1e-9
    assert M.cost_structure(lv, bent)[0] == "general"
    rng = np.random.default_rng(0)
    assert M.cost_structure(lv, np.tril(rng.random((6, 6)), -1))[0] == "general"
    assert M.cost_structure(lv, poly_matrix(lv, [0, 2.0]))[0] == "difference"
    assert M.cost_structure(lv, poly_matrix(lv, [2.0]))[0] == "uniform"


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 37)), min_size=1, max_size=50),
       st.booleans(), st.lists(st.integers(-3, 3), min_size=1, max_size=5), st.booleans())
def test_ordered_pairs_is_the_pair_sum(rows, weighted, alpha, coded):
    """Claim: both passes (vector and Fenwick) equal Σ_{f_p < f_q} ω_p ω_q K_{ℓ_q ℓ_p}, K_ab = ±p(|v_a − v_b|)
    (+ when the lower level scores lower; tied pairs 0), for integer (exact) and float values,
    with ties told by separate keys (mask 0) or by coded keys (score above 6 level bits)."""
    rows = sorted(rows, key=lambda r: r[0])          # ascending score; levels in any order
    score = np.array([r[0] for r in rows], dtype=np.int64)
    seq = [r[1] for r in rows]
    lev = np.array(seq, dtype=np.uint8)
    keys, mask = ((score << 6) | lev, 63) if coded else (score, 0)
    w = np.linspace(0.5, 3.0, len(seq)) if weighted else None
    ww = np.ones(len(seq)) if w is None else w
    v = np.arange(38, dtype=np.int64) * 2

    def p(d):
        return sum(a * d**m for m, a in enumerate(alpha))
    want = sum(ww[i] * ww[j] * np.sign(seq[j] - seq[i]) * p(abs(int(v[seq[j]] - v[seq[i]])))
               for i in range(len(seq)) for j in range(len(seq))
               if score[i] < score[j] and seq[i] != seq[j])
    top = P.VECTOR_MAX_LEVELS
    try:
        for P.VECTOR_MAX_LEVELS in (top, 0):    # the vector pass, then the Fenwick pass
            got = P.ordered_pairs(lev, keys, mask, w, v if w is None else v.astype(float), alpha, 6)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-9)
            if w is None:
                assert isinstance(got, int) and got == want
    finally:
        P.VECTOR_MAX_LEVELS = top


@pytest.mark.parametrize("L", [3, 300, 70_000])
def test_dominance_sums_wide_level_indices(L):
    """Claim: the same sums for uint16 and int64 level indices (L up to 70 000: a tree of 2^17
    nodes), against the O(n²) sums of each sign, exactly."""
    rng = np.random.default_rng(L)
    n = 300
    lev = rng.integers(0, L, n).astype(np.uint16 if L < 1 << 16 else np.int64)
    keys = np.sort(rng.integers(0, 40, n))
    bits = max(1, (L - 1).bit_length())
    v = np.arange(L, dtype=np.int64)
    beta = {(0, 0): 1, (1, 0): -1, (0, 1): 1}          # c = 1 + v_hi − v_lo
    plus, minus = D.dominance_sums(lev, keys, 0, None, v, beta, bits)
    lv = lev.astype(np.int64)
    lt = keys[:, None] < keys[None, :]
    c = 1 + np.abs(lv[:, None] - lv[None, :])
    assert plus == int((c * (lt & (lv[:, None] < lv[None, :]))).sum())
    assert minus == int((c * (lt & (lv[:, None] > lv[None, :]))).sum())


@pytest.mark.parametrize("top", [3, 2**24, 2**40])
@pytest.mark.parametrize("B", [1, 2, 7, None])
def test_level_pair_sum_exact_folds(top, B):
    """Claim: the exact vector pass gives the O(n²) sum whether its rows enter int32 sums folded
    into int64 every B rows (any B, ties across a fold included) or int64 sums (a table too
    large for int32), exactly."""
    rng = np.random.default_rng(top)
    n, L = 200, 9
    lev = rng.integers(0, L, n).astype(np.uint8)
    keys = np.sort(rng.integers(0, 60, n))
    K = rng.integers(-top, top + 1, (L, L)).astype(np.int64)
    want = sum(int(K[lev[q], lev[p]]) for p in range(n) for q in range(n) if keys[p] < keys[q])
    assert D.level_pair_sum(lev, keys, 0, None, K) == want
    if B is not None and top < 2**31 // 9:     # the kernel itself, with a fold every B rows
        KT = np.ascontiguousarray(K.T).astype(np.int32)
        assert int(D._vector_kernel(True)(lev, keys, keys.dtype.type(0), KT, B)) == want


def test_tiny_level_mass_keeps_precision_with_polynomial_matrices():
    """One heavy level beside levels of weight 1e-100: every running sum of the weighted route is
    of one side's rows, so nothing of the heavy level's own pairs cancels (the reference sums
    non-negative pair weights only)."""
    rng = np.random.default_rng(1)
    n, L = 400, 40
    y = rng.integers(0, L, n)
    s = rng.integers(-6, 7, n).astype(float)
    levels = np.arange(float(L)) / 100
    C = poly_matrix(levels, [0.5, 0.0, 1.0, 2.0])
    for heavy in (0, L // 2, L - 1):
        w = np.where(y == heavy, 1.0, 1e-100) * (0.5 + rng.random(n))
        assert multipartite_auc(levels[y], s, costs=C, sample_weight=w) == pytest.approx(
            pair_count(y, s, C, w), abs=1e-13)


def test_the_compiler_loads_on_first_use_only():
    """Claim: ``import bipartite`` and its metrics do not import numba (the compiled dominance
    pass loads it on its first call), and the first call then gives the O(n²) count."""
    code = ("import sys, numpy as np, bipartite, bipartite.metrics\n"
            "assert 'numba' not in sys.modules\n"
            "from bipartite.metrics import multipartite_auc\n"
            "v = multipartite_auc([0, 1, 2], [0.0, 2.0, 1.0], costs='squared')\n"
            "assert 'numba' in sys.modules\n"
            "print(v)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert float(out.stdout) == pytest.approx(5 / 6, abs=1e-15)   # docs/theory.md §3.2's example
