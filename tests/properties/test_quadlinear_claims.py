"""Property tests of the HAP-VR claims about AP surrogates (docs/theory.md §8; papers/hapvr/claims.toml).

One test per claim. The docstring states the claim as the paper words it (section), the scope in
which it holds, and the verdict. Where a claim is refuted or narrowed, the test *searches* for the
counterexample with :func:`hypothesis.find` (the search must succeed) and also checks a pinned
literal counterexample, found by that search and copied here, so that the result is stable.

Notation: ``d_ji = s_j - s_i``; ``R⁻`` = :func:`bipartite.surrogates.quadlinear` (Eq. 10);
``H(x) = 1[x > 0]`` (HAP-VR §3.1); AP risk ``AP↓`` = :func:`bipartite.surrogates.ap_risk` (1 - AP,
sklearn's tie rule).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import find, given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score

from bipartite.surrogates import (
    ap_risk,
    heaviside_gt,
    quadlinear,
    quadlinear_ap_loss,
    smooth_ap_loss,
)
from bipartite.surrogates._ap import _ap_kernel

# Searches for counterexamples: deterministic, no example database, bounded.
SEARCH = settings(max_examples=400, derandomize=True, database=None, deadline=None)

deltas = st.floats(0.01, 1.0)
xs = st.floats(-3.0, 3.0, allow_nan=False)


def R(x: float, delta: float) -> float:
    return quadlinear(torch.tensor(float(x), dtype=torch.float64), delta).item()


def dR(x: float, delta: float, order: int = 1) -> float:
    """Autograd derivative of R⁻ of the given order at x."""
    t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    y = quadlinear(t, delta)
    for _ in range(order):
        (y,) = torch.autograd.grad(y, t, create_graph=True)
    return y.item()


def paper_derivative(x: float, delta: float) -> float:
    """dR⁻/dx as printed in HAP-VR §A.2.1."""
    if x >= 0:
        return 2 / delta
    if x >= -delta:
        return 2 * x / delta**2 + 2 / delta
    return 0.0


@st.composite
def queries(draw, *, min_n=2, max_n=6, grid=False, need_neg=True, k_max=8):
    """(scores, labels) of one query with >= 1 positive (and >= 1 negative if need_neg).

    ``grid=True`` draws scores on the dyadic grid k/4, |k| <= k_max (exact differences, ties).
    """
    n = draw(st.integers(min_n, max_n))
    labels = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    labels[0] = 1
    if need_neg:
        labels[-1] = 0
    if grid:
        scores = draw(st.lists(st.integers(-k_max, k_max).map(lambda k: k / 4), min_size=n,
                               max_size=n))
    else:
        scores = draw(st.lists(st.floats(-2, 2, allow_nan=False), min_size=n, max_size=n))
    return scores, labels


def t64(x):
    return torch.as_tensor(np.asarray(x, dtype=np.float64))


def ql(scores, labels, delta, rho):
    return quadlinear_ap_loss(t64(scores), t64(labels), delta=delta, rho=rho).item()


def risk(scores, labels):
    return ap_risk(t64(scores), t64(labels)).item()


# ---------------------------------------------------------------------------------------------
# R⁻ itself (HAP-VR §A.2)
# ---------------------------------------------------------------------------------------------


def test_rminus_is_c1_not_c2():
    """Claim (HAP-VR §A.2.1-A.2.2, Eq. 10): R⁻(x; δ) is differentiable and "smooth", i.e. its
    derivative is continuous, with R⁻'(-δ) = 0 and R⁻'(0) = 2/δ.

    Scope/verdict: holds in the paper's sense (C¹) for every δ > 0; "smooth" means C¹ only: the
    second derivative jumps from 0 to 2/δ² at -δ and from 2/δ² to 0 at 0, so R⁻ is not C². The
    search finds a point where the left and right second derivatives differ (pinned: δ = 0.5,
    x = 0, jump 8 = 2/δ²).
    """

    @given(delta=deltas, x=xs, h=st.floats(1e-7, 1e-4))
    def c1(delta, x, h):
        assert math.isclose(dR(x, delta), paper_derivative(x, delta), rel_tol=1e-9, abs_tol=1e-9)
        # At the breakpoints: one-sided difference quotients and one-sided derivatives both
        # converge to the value there, within the bound |R''| <= 2/δ² times h.
        for b, want in ((-delta, 0.0), (0.0, 2 / delta)):
            assert math.isclose(dR(b, delta), want, rel_tol=1e-12, abs_tol=1e-12)
            for side in (-1.0, 1.0):
                quotient = (R(b + side * h, delta) - R(b, delta)) / (side * h)
                assert abs(quotient - want) <= 2 * h / delta**2 + 1e-6 * (1 + want)
                assert abs(dR(b + side * h, delta) - want) <= 2 * h / delta**2 + 1e-9

    c1()

    def second_derivative_jump(args):
        delta, at_zero = args
        b = 0.0 if at_zero else -delta
        h = 1e-6 * delta
        return abs(dR(b + h, delta, order=2) - dR(b - h, delta, order=2))

    found = find(st.tuples(deltas, st.booleans()),
                 lambda a: second_derivative_jump(a) > 1.0 / a[0] ** 2, settings=SEARCH)
    assert second_derivative_jump(found) > 1.0 / found[0] ** 2
    pinned = (0.5, True)
    assert math.isclose(second_derivative_jump(pinned), 2 / 0.5**2, rel_tol=1e-9)


@given(delta=deltas, x1=xs, x2=xs, t=st.floats(0.0, 1.0))
def test_rminus_is_convex_and_nondecreasing(delta, x1, x2, t):
    """Claim (HAP-VR §A.2.3-A.2.4, §3.3.2 design principle): R⁻(x; δ) is convex and
    (non-strictly) monotonically increasing in x.

    Scope/verdict: holds for every δ > 0 and all real x (checked on x in [-3, 3], δ in
    [0.01, 1]): R⁻(t x1 + (1-t) x2) <= t R⁻(x1) + (1-t) R⁻(x2) and x1 <= x2 ⇒ R⁻(x1) <= R⁻(x2).
    """
    mid = R(t * x1 + (1 - t) * x2, delta)
    chord = t * R(x1, delta) + (1 - t) * R(x2, delta)
    assert mid <= chord + 1e-9 * (1 + abs(chord))
    lo, hi = min(x1, x2), max(x1, x2)
    assert R(lo, delta) <= R(hi, delta)


@given(delta=deltas, x=st.one_of(xs, st.just(0.0)))
def test_rminus_upper_bounds_heaviside(delta, x):
    """Claim (HAP-VR §A.2.5): R⁻(x; δ) is an upper bound of the Heaviside function H.

    Scope/verdict: holds for every δ > 0 and x, for H(x) = 1[x > 0] (the paper's) and even for
    the tie-pessimistic 1[x >= 0] (R⁻(0) = 1).
    """
    assert R(x, delta) >= float(x > 0)
    assert R(x, delta) >= float(x >= 0)


# ---------------------------------------------------------------------------------------------
# The AP risk (Eq. 6/8) and its surrogates (Eq. 7, 11)
# ---------------------------------------------------------------------------------------------


def _strict_eq6(scores, labels):
    """HAP-VR Eq. 6/8 with the paper's H(x) = 1[x > 0] on both pair types."""
    per, _ = _ap_kernel(t64(scores), t64(labels), torch.ones(len(scores), dtype=torch.bool),
                        neg_step=heaviside_gt, pos_step=heaviside_gt)
    return per.item()


def test_ap_risk_eq6_equals_one_minus_ap_tie_free():
    """Claim (HAP-VR Eq. 6, Eq. 8, §3.1): AP↓_k = 1 - AP_k, written with H(x) = 1[x > 0].

    Scope/verdict: holds-narrower. Exactly 1 - AP (sklearn's average_precision_score) on
    tie-free scores. With tied scores, H(x) = 1[x > 0] counts a tied item as ranked *below*
    (optimistic) while AP (sklearn) treats a tie group as one threshold: they differ. The search
    finds such a tie (pinned: scores [0, 0], labels [1, 0]: Eq. 6 gives 0, 1 - AP = 1/2).
    ``ap_risk`` uses 1[x >= 0], which equals sklearn with and without ties.
    """

    @given(q=queries(max_n=7))
    def tie_free(q):
        scores, labels = q
        if len(set(scores)) < len(scores):
            return
        want = 1 - average_precision_score(labels, scores)
        assert math.isclose(_strict_eq6(scores, labels), want, abs_tol=1e-12)
        assert math.isclose(risk(scores, labels), want, abs_tol=1e-12)

    tie_free()

    def differs(q):
        scores, labels = q
        return abs(_strict_eq6(scores, labels) - (1 - average_precision_score(labels, scores))
                   ) > 1e-9

    found = find(queries(grid=True), differs, settings=SEARCH)
    assert differs(found) and len(set(found[0])) < len(found[0])
    pinned = ([0.0, 0.0], [1, 0])
    assert _strict_eq6(*pinned) == 0.0 and average_precision_score(pinned[1], pinned[0]) == 0.5
    assert risk(*pinned) == 0.5


def test_quadlinear_loss_upper_bounds_ap_risk_for_rho_le_1():
    """Claim (docs/theory.md §8, from HAP-VR §A.2.5 + Eq. 11): since R⁻ >= H, the QuadLinear-AP loss
    upper-bounds the AP risk AP↓ = 1 - AP.

    Scope/verdict: holds-narrower: true for every ρ in [0, 1] and δ > 0 (ties included: h is
    increasing, R⁻ >= 1[x >= 0] in the numerator, and 1 + ρP <= 1 + P in the denominator). It
    FAILS for ρ > 1 (HAP-VR trains the frame level with ρ_f = 5): the search finds a query where
    the loss is below AP↓ (pinned: the search's shrunk example, loss 2/7 < AP↓ = 1/3; and scores
    [1, 0, 0], labels [1, 1, 0], δ = 0.1, ρ = 2: loss 1/8 < AP↓ = 1/6).
    """

    @given(q=queries(grid=True), delta=st.floats(0.01, 0.5), rho=st.floats(0.0, 1.0))
    def bound(q, delta, rho):
        scores, labels = q
        assert ql(scores, labels, delta, rho) >= risk(scores, labels) - 1e-12

    bound()

    def violates(args):
        (scores, labels), delta, rho = args
        return ql(scores, labels, delta, rho) < risk(scores, labels) - 1e-9

    found = find(st.tuples(queries(grid=True), st.floats(0.01, 0.5), st.floats(1.0, 10.0)),
                 violates, settings=SEARCH)
    assert violates(found) and found[2] > 1
    # The search's shrunk counterexample (loss 2/7 < AP risk 1/3), pinned:
    assert violates((([0.0, 0.0, 0.0, 0.0, 0.25, 0.0], [1, 0, 0, 0, 1, 0]), 0.25, 2.0))
    assert math.isclose(ql([0.0, 0.0, 0.0, 0.0, 0.25, 0.0], [1, 0, 0, 0, 1, 0], 0.25, 2.0), 2 / 7)
    # A smaller hand-made one, explained in the docstring:
    pinned = (([1.0, 0.0, 0.0], [1, 1, 0]), 0.1, 2.0)
    assert violates(pinned)
    assert math.isclose(ql([1.0, 0.0, 0.0], [1, 1, 0], 0.1, 2.0), 1 / 8)
    assert math.isclose(risk([1.0, 0.0, 0.0], [1, 1, 0]), 1 / 6)


def _lone_pair_grads(d, delta, tau):
    """d(loss)/d(s_neg) for one positive at 0 and one negative at d: QuadLinear-AP, Smooth-AP."""
    out = []
    for fn in (lambda s, y: quadlinear_ap_loss(s, y, delta=delta),
               lambda s, y: smooth_ap_loss(s, y, tau=tau)):
        s = torch.tensor([0.0, d], dtype=torch.float64, requires_grad=True)
        fn(s, torch.tensor([1.0, 0.0], dtype=torch.float64)).backward()
        out.append(s.grad[1].item())
    return out


@given(delta=deltas, tau=st.floats(0.005, 0.05), x=st.floats(0.0, 10.0))
def test_rminus_gradient_persists_sigmoid_vanishes(delta, tau, x):
    """Claim (HAP-VR §3.3.2, Fig. 4): on a mis-ranked positive-negative pair (x = d_ji >= 0)
    the sigmoid of Smooth-AP falls into a gradient-vanishing area while R⁻ "still provides
    sufficiently large gradients".

    Scope/verdict: holds at the level of the step functions: R⁻'(x) = 2/δ for every x >= 0,
    while G'(x; τ) = G(1 - G)/τ <= e^{-x/τ}/τ, which is below 1e-6 · 2/δ once x >= 25 τ (e.g.
    x >= 0.25 for τ = 0.01). For the full losses see the next test.
    """
    assert math.isclose(dR(x, delta), 2 / delta, rel_tol=1e-12)
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.sigmoid(t / tau), t)
    # autograd forms G (1 - G) in float64: 1 - G carries an absolute rounding error ~1.1e-16
    assert g.item() <= math.exp(-x / tau) / tau + 2.5e-16 / tau
    if x >= 25 * tau:
        assert g.item() < 1e-6 * 2 / delta


def test_quadlinear_loss_gradient_persists_but_decays():
    """Claim (HAP-VR §3.3.2, bullet "Suitable gradients for low AP area"): "persistent and
    suitable gradients in the loss function force the model to correct wrongly ranked
    positive-negative pairs, avoiding gradient vanishing in the low AP area".

    Scope/verdict: holds-narrower. In the full loss the gradient to a mis-ranked negative never
    vanishes (it is > 0 for every d >= 0, while Smooth-AP's is < 1e-30 beyond d = 1 for
    τ = 0.01), but it is not "persistent" at the 2/δ of R⁻: h(x) = x/(1+x) has h'(x) = 1/(1+x)²,
    so for one positive and one negative at distance d the gradient is δ / (2 (δ + d)²), which
    decays like 1/d². The search finds a d where it has fallen below 1% of its value at d = 0
    (pinned: δ = 0.1, d = 1: 0.0413 vs 5.0).
    """

    @given(delta=deltas, d=st.floats(0.0, 10.0))
    def closed_form(delta, d):
        g_ql, g_smooth = _lone_pair_grads(d, delta, 0.01)
        assert g_ql > 0
        assert math.isclose(g_ql, delta / (2 * (delta + d) ** 2), rel_tol=1e-9)
        if d >= 1.0:
            assert g_smooth < 1e-30

    closed_form()

    def decayed(args):
        delta, d = args
        return _lone_pair_grads(d, delta, 0.01)[0] < 0.01 * _lone_pair_grads(0.0, delta, 0.01)[0]

    found = find(st.tuples(deltas, st.floats(0.0, 10.0)), decayed, settings=SEARCH)
    assert decayed(found)
    assert decayed((0.1, 1.0))
    assert math.isclose(_lone_pair_grads(1.0, 0.1, 0.01)[0], 0.1 / (2 * 1.1**2), rel_tol=1e-9)


def test_quadlinear_loss_is_not_convex():
    """Claim (HAP-VR §3.3.2, bullet "Favorable mathematical properties"): "QuadLinear-AP is
    continuous, convex, and (non-strictly) monotonically increasing".

    Scope/verdict: refuted for the loss as a function of the scores (convexity holds for R⁻
    only, see test_rminus_is_convex_and_nondecreasing): h(x) = x/(1+x) is concave and the
    denominator is a step function. The search finds two score vectors whose midpoint loss lies
    above the chord (pinned: one positive at 0, one negative at 0 or 1, δ = 0.1, ρ = 1: losses
    1/2 and 21/22, midpoint 11/12 > 0.727).
    """

    @st.composite
    def segments(draw):
        scores, labels = draw(queries(max_n=4))
        other = draw(st.lists(st.floats(-2, 2, allow_nan=False), min_size=len(scores),
                              max_size=len(scores)))
        return scores, other, labels, draw(st.floats(0.0, 1.0))

    def violates(args):
        x, y, labels, t = args
        mid = [t * a + (1 - t) * b for a, b in zip(x, y, strict=True)]
        chord = t * ql(x, labels, 0.1, 1.0) + (1 - t) * ql(y, labels, 0.1, 1.0)
        return ql(mid, labels, 0.1, 1.0) > chord + 1e-9

    found = find(segments(), violates, settings=SEARCH)
    assert violates(found)
    pinned = ([0.0, 0.0], [0.0, 1.0], [1, 0], 0.5)
    assert violates(pinned)
    assert math.isclose(ql([0.0, 0.5], [1, 0], 0.1, 1.0), 11 / 12)


def test_quadlinear_loss_is_discontinuous_at_tied_positives():
    """Claim (HAP-VR §3.3.2, bullets "Differentiable AP optimization" and "Favorable
    mathematical properties"): QuadLinear-AP is differentiable and continuous.

    Scope/verdict: holds-narrower. The loss is continuous (and C¹) in the scores except where two
    positives tie (for ρ > 0 and a negative within reach of R⁻): there the step H(d) of the
    positive-positive pairs makes the value at the tie differ from its limit, whatever value H(0)
    is given, and the one-sided derivatives differ. This set has measure zero but contains the
    all-equal scores of a constant initialisation. The search finds a tie with a jump > 1e-3; its
    shrunk example is exactly that initialisation (pinned: scores [0, 0, 0], labels [1, 1, 0],
    δ = 0.5, ρ = 1: loss 1/2 at the tie, 5/12 just off it; and positives at 0, 0 with the
    negative at 1, δ = 0.1: 21/22 at the tie vs about 0.934 off it).
    """

    def jump(args):
        (scores, labels), delta, rho = args
        moved = list(scores)
        moved[0] += 1e-9
        return abs(ql(scores, labels, delta, rho) - ql(moved, labels, delta, rho))

    found = find(st.tuples(queries(grid=True, k_max=2), st.floats(0.01, 0.5),
                           st.floats(0.1, 2.0)), lambda a: jump(a) > 1e-3, settings=SEARCH)
    scores, labels = found[0]
    assert jump(found) > 1e-3
    assert any(labels[j] == 1 and scores[j] == scores[0] for j in range(1, len(scores)))
    assert math.isclose(ql([0.0, 0.0, 0.0], [1, 1, 0], 0.5, 1.0), 1 / 2)
    assert math.isclose(ql([1e-9, 0.0, 0.0], [1, 1, 0], 0.5, 1.0), 5 / 12, rel_tol=1e-6)
    assert jump((([0.0, 0.0, 0.0], [1, 1, 0]), 0.5, 1.0)) > 0.08
    pinned = (([0.0, 0.0, 1.0], [1, 1, 0]), 0.1, 1.0)
    assert math.isclose(ql([0.0, 0.0, 1.0], [1, 1, 0], 0.1, 1.0), 21 / 22)
    assert math.isclose(ql([1e-9, 0.0, 1.0], [1, 1, 0], 0.1, 1.0), (21 / 22 + 21 / 23) / 2,
                        rel_tol=1e-6)
    assert jump(pinned) > 0.02


def test_smooth_ap_tends_to_ap_risk_tie_free():
    """Claim (HAP-VR §3.3.2 after Eq. 7): "When τ → 0, AP~↓ → AP↓, thus the approximation error
    is small" (Smooth-AP with the sigmoid G(x; τ)).

    Scope/verdict: holds-narrower. On tie-free scores Smooth-AP converges to AP↓ = 1 - AP (here:
    within 1e-6 at τ = gap/50, gap = the smallest score difference). With tied scores
    G(0; τ) = 1/2 for every τ, so the limit counts a tie as half above: neither 1 - AP (sklearn)
    nor the paper's Eq. 6. The search finds such a tie (pinned: scores [0, 0], labels [1, 0]:
    limit 1/3, 1 - AP = 1/2).
    """

    @given(q=queries(max_n=6))
    def tie_free(q):
        scores, labels = q
        gap = min((abs(a - b) for i, a in enumerate(scores) for b in scores[i + 1:]),
                  default=1.0)
        if gap < 1e-3:
            return
        s = smooth_ap_loss(t64(scores), t64(labels), tau=gap / 50).item()
        assert abs(s - risk(scores, labels)) < 1e-6

    tie_free()

    def far(q):
        scores, labels = q
        s = smooth_ap_loss(t64(scores), t64(labels), tau=1e-6).item()
        return abs(s - risk(scores, labels)) > 1e-3

    found = find(queries(grid=True), far, settings=SEARCH)
    assert far(found) and len(set(found[0])) < len(found[0])
    pinned = ([0.0, 0.0], [1, 0])
    assert far(pinned)
    assert math.isclose(smooth_ap_loss(t64(pinned[0]), t64(pinned[1]), tau=1e-6).item(), 1 / 3)
