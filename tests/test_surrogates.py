"""Tests of bipartite.surrogates against slow, obvious NumPy references (docs/theory.md §8).

Every loss is compared with a loop implementation written from the formula; then batched ==
looped, masked == sliced (with garbage in the padding), float64 gradcheck, finite gradients on
degenerate queries, ``ap_risk`` == 1 - sklearn's average precision (ties included), and errors.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
import torch
from sklearn.metrics import average_precision_score, roc_auc_score

from bipartite import UndefinedMetricWarning
from bipartite._pair_losses import pair_loss_sum
from bipartite.surrogates import (
    PairWeightRows,
    ap_risk,
    label_aggregation_pair_weights,
    loss_aggregation_pair_weights,
    lsep_loss,
    margin_ranking_loss,
    pairwise_loss,
    quadlinear,
    quadlinear_ap_loss,
    rlsep_loss,
    smooth_ap_loss,
)
from bipartite.surrogates._ap import _ap_kernel
from bipartite.surrogates._lsep import _sample_pairs

KINDS = ["logistic", "exponential", "hinge", "squared_hinge"]


# ---------------------------------------------------------------------------------------------
# Slow references: loops over items and pairs, straight from the formulas
# ---------------------------------------------------------------------------------------------


def ref_phi(kind, x, margin=1.0):
    if kind == "logistic":
        return math.log1p(math.exp(-x))
    if kind == "exponential":
        return math.exp(-x)
    if kind == "hinge":
        return max(0.0, margin - x)
    return max(0.0, margin - x) ** 2


def ref_pairwise(s, y, kind, w=None, margin=1.0):
    """(sum of w_ij phi(s_i - s_j) over pairs y_i > y_j, sum of w_ij)."""
    total, count = 0.0, 0.0
    n = len(s)
    for i in range(n):
        for j in range(n):
            if y is not None and not y[i] > y[j]:
                continue
            wij = 1.0 if w is None else w[i][j]
            if y is None and wij <= 0:
                continue
            total += wij * ref_phi(kind, s[i] - s[j], margin)
            count += wij
    return total, count


def ref_lse(s, pairs):
    """log(1 + sum_{(u, v) in pairs} exp(s_v - s_u))."""
    return math.log(1.0 + sum(math.exp(s[v] - s[u]) for u, v in pairs))


def ref_rank_pairs(r):
    n = len(r)
    return [(u, v) for u in range(n) for v in range(n) if r[u] > r[v]]


def ref_ap(s, y):
    """AP with tied scores as one threshold: positive i gets precision #pos{>=s_i}/#{>=s_i}."""
    pos = [i for i in range(len(s)) if y[i] == 1]
    precs = []
    for i in pos:
        above = [j for j in range(len(s)) if s[j] >= s[i]]
        precs.append(sum(y[j] for j in above) / len(above))
    return sum(precs) / len(precs)


def ref_ap_generic(s, y, neg_step, pos_step, rho=1.0):
    """HAP-VR Eq. 8/11 with loops: mean over positives of h(N / (1 + rho P))."""
    n = len(s)
    pos = [i for i in range(n) if y[i] == 1]
    if not pos:
        return 0.0
    out = 0.0
    for i in pos:
        N = sum(neg_step(s[j] - s[i]) for j in range(n) if y[j] == 0)
        P = sum(pos_step(s[j] - s[i]) for j in pos if j != i)
        x = N / (1 + rho * P)
        out += x / (1 + x)
    return out / len(pos)


def ref_sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def ref_quadlinear(x, delta):
    if x < -delta:
        return 0.0
    if x < 0:
        return (1 + x / delta) ** 2
    return 1 + 2 * x / delta


def ref_smooth_ap(s, y, tau):
    g = lambda d: ref_sigmoid(d / tau)  # noqa: E731
    return ref_ap_generic(s, y, g, g)


def ref_ql_ap(s, y, delta, rho):
    return ref_ap_generic(s, y, lambda d: ref_quadlinear(d, delta), lambda d: float(d > 0), rho)


def ref_la_weights(Y, a):
    n, K = Y.shape
    W = np.zeros((n, n))
    for k in range(K):
        npos = sum(Y[i, k] == 1 for i in range(n))
        nneg = n - npos
        if npos == 0 or nneg == 0:
            continue
        for i in range(n):
            for j in range(n):
                if Y[i, k] == 1 and Y[j, k] == 0:
                    W[i, j] += a[k] / (npos * nneg)
    return W


COST_FUNCS = {
    "uniform": lambda a, b: 1.0,
    "linear": lambda a, b: a - b,
    "squared": lambda a, b: (a - b) ** 2,
    "gain": lambda a, b: 2.0**a - 2.0**b,
}


def ref_label_weights(ybar, cost):
    n = len(ybar)
    W = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if ybar[i] > ybar[j]:
                W[i, j] = cost(ybar[i], ybar[j])
    total = W.sum()
    return W / total if total > 0 else W


def t64(x):
    return torch.as_tensor(np.asarray(x, dtype=np.float64))


# ---------------------------------------------------------------------------------------------
# Pairwise losses
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_pairwise_matches_reference(kind, rng):
    for _ in range(5):
        n = int(rng.integers(2, 8))
        s = rng.normal(size=n)
        y = rng.integers(0, 3, size=n).astype(float)  # graded labels
        w = rng.uniform(0, 2, size=(n, n))
        for weights in (None, w):
            total, count = ref_pairwise(s, y, kind, weights)
            pw = None if weights is None else t64(weights)
            got_sum = pairwise_loss(t64(s), t64(y), kind=kind, pair_weights=pw, reduction="sum")
            got_mean = pairwise_loss(t64(s), t64(y), kind=kind, pair_weights=pw)
            assert got_sum.item() == pytest.approx(total, rel=1e-12, abs=1e-12)
            want_mean = total / count if count > 0 else 0.0
            assert got_mean.item() == pytest.approx(want_mean, rel=1e-12, abs=1e-12)


def test_pairwise_none_reduction_is_the_pair_matrix(rng):
    s, y = rng.normal(size=5), np.array([2.0, 0.0, 1.0, 1.0, 0.0])
    got = pairwise_loss(t64(s), t64(y), kind="hinge", margin=0.5, reduction="none").numpy()
    for i, j in itertools.product(range(5), repeat=2):
        want = max(0.0, 0.5 - (s[i] - s[j])) if y[i] > y[j] else 0.0
        assert got[i, j] == pytest.approx(want)


@pytest.mark.parametrize("kind", KINDS)
def test_pairwise_batched_equals_looped(kind, rng):
    s = rng.normal(size=(2, 3, 6))
    y = rng.integers(0, 2, size=(2, 3, 6)).astype(float)
    batched = pairwise_loss(t64(s), t64(y), kind=kind, reduction="none")
    total = count = 0.0
    for b, q in itertools.product(range(2), range(3)):
        row = pairwise_loss(t64(s[b, q]), t64(y[b, q]), kind=kind, reduction="none")
        torch.testing.assert_close(batched[b, q], row)
        t, c = ref_pairwise(s[b, q], y[b, q], kind)
        total, count = total + t, count + c
    mean = pairwise_loss(t64(s), t64(y), kind=kind)
    assert mean.item() == pytest.approx(total / count, rel=1e-12)  # pooled over the batch


@pytest.mark.parametrize("kind", KINDS)
def test_pairwise_masked_equals_sliced(kind, rng):
    s = rng.normal(size=7)
    y = rng.integers(0, 3, size=7).astype(float)
    keep = np.array([True, False, True, True, False, True, True])
    s_pad, y_pad = s.copy(), y.copy()
    s_pad[~keep], y_pad[~keep] = np.nan, 99.0  # garbage in the padding
    for red in ("mean", "sum"):
        st = t64(s_pad).requires_grad_(True)
        masked = pairwise_loss(st, t64(y_pad), kind=kind, where=torch.as_tensor(keep),
                               reduction=red)
        masked.backward()
        ss = t64(s[keep]).requires_grad_(True)
        sliced = pairwise_loss(ss, t64(y[keep]), kind=kind, reduction=red)
        sliced.backward()
        torch.testing.assert_close(masked, sliced)
        torch.testing.assert_close(st.grad[torch.as_tensor(keep)], ss.grad)
        assert torch.all(st.grad[~torch.as_tensor(keep)] == 0)


def test_pairwise_zero_pairs_mean_is_zero_with_finite_grad():
    s = t64([0.3, -0.2, 1.0]).requires_grad_(True)
    loss = pairwise_loss(s, t64([1.0, 1.0, 1.0]), kind="exponential")
    loss.backward()
    assert loss.item() == 0.0
    assert torch.all(torch.isfinite(s.grad)) and torch.all(s.grad == 0)


def test_logistic_is_stable_for_huge_differences():
    s = t64([1000.0, -1000.0]).requires_grad_(True)
    y = t64([0.0, 1.0])  # the positive is 2000 below: loss ~ 2000, not inf
    loss = pairwise_loss(s, y, kind="logistic")
    loss.backward()
    assert loss.item() == pytest.approx(2000.0)
    torch.testing.assert_close(s.grad, t64([1.0, -1.0]))


@pytest.mark.parametrize("kind", KINDS)
def test_pairwise_gradcheck(kind, rng):
    s = t64(rng.normal(size=(2, 5))).requires_grad_(True)
    y = t64(rng.integers(0, 3, size=(2, 5)))
    w = t64(rng.uniform(0.1, 1, size=(2, 5, 5)))
    assert torch.autograd.gradcheck(
        lambda x: pairwise_loss(x, y, kind=kind, pair_weights=w), (s,))


# ---------------------------------------------------------------------------------------------
# The fused, chunked pair sum (the training path's kernel) against the dense reference
# ---------------------------------------------------------------------------------------------


def _dense_rows(W):
    return lambda r0, r1: W[..., r0:r1, :]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_pair_loss_sum_matches_loops_and_dense_autograd(kind, chunk, rng):
    """Claim: for any chunking (one row per chunk, ragged chunks, one chunk), the fused kernel's
    value and weight are the loop sums Σ w_ij φ(s_i − s_j) and Σ w_ij, and its gradient is the
    autograd gradient of the dense expression w * φ(s_i − s_j) (the slow reference)."""
    from bipartite.surrogates import make_pair_loss

    phi = make_pair_loss(kind, 0.7)
    for _ in range(3):
        B, n = int(rng.integers(1, 4)), int(rng.integers(2, 9))
        s_np = rng.normal(size=(B, n))
        W_np = rng.uniform(0, 2, size=(B, n, n)) * (rng.random((B, n, n)) < 0.6)
        s = t64(s_np).requires_grad_(True)
        total, weight = pair_loss_sum(s, _dense_rows(t64(W_np)), phi, chunk=chunk)
        want = sum(W_np[b, i, j] * ref_phi(kind, s_np[b, i] - s_np[b, j], 0.7)
                   for b in range(B) for i in range(n) for j in range(n))
        assert total.item() == pytest.approx(want, rel=1e-12, abs=1e-12)
        assert weight.item() == pytest.approx(W_np.sum(), rel=1e-12)
        (g,) = torch.autograd.grad(total, s)
        s2 = t64(s_np).requires_grad_(True)
        W = t64(W_np)
        dense = (W * phi(torch.where(W != 0, s2[..., :, None] - s2[..., None, :], 0.0))).sum()
        (g_ref,) = torch.autograd.grad(dense, s2)
        torch.testing.assert_close(g, g_ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_pair_loss_sum_gradcheck(kind, rng):
    from bipartite.surrogates import make_pair_loss

    s = t64(rng.normal(size=(2, 6))).requires_grad_(True)
    W = t64(rng.uniform(0.1, 1, size=(2, 6, 6)))
    phi = make_pair_loss(kind)
    assert torch.autograd.gradcheck(lambda x: pair_loss_sum(x, _dense_rows(W), phi, chunk=5)[0],
                                    (s,))


def test_pair_loss_sum_never_overflows_on_unweighted_pairs():
    """A zero-weight pair with a huge reversed difference must not turn 0 · inf into NaN."""
    from bipartite.surrogates import make_pair_loss

    s = t64([0.0, 1000.0]).requires_grad_(True)
    W = t64([[0.0, 0.0], [1.0, 0.0]])  # only (1, 0); (0, 1) would be exp(1000)
    total, _ = pair_loss_sum(s, _dense_rows(W), make_pair_loss("exponential"), chunk=1)
    total.backward()
    assert torch.isfinite(total) and torch.isfinite(s.grad).all()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_pairwise_fused_equals_dense_path(kind, reduction, rng):
    """The fused path (built-in kind) equals the dense path (the same φ passed as pair_loss_fn),
    with ragged lists, labels and weights, in value and gradient."""
    from bipartite.surrogates import make_pair_loss

    s_np = rng.normal(size=(3, 9))
    y = t64(rng.integers(0, 3, size=(3, 9)))
    w = t64(rng.uniform(0, 1, size=(3, 9, 9)))
    keep = torch.as_tensor(rng.random((3, 9)) < 0.8)
    for weights in (None, w):
        got, ref = t64(s_np).requires_grad_(True), t64(s_np).requires_grad_(True)
        a = pairwise_loss(got, y, kind=kind, pair_weights=weights, where=keep,
                          reduction=reduction)
        b = pairwise_loss(ref, y, pair_weights=weights, where=keep, reduction=reduction,
                          pair_loss_fn=make_pair_loss(kind))
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)
        a.backward()
        b.backward()
        torch.testing.assert_close(got.grad, ref.grad, rtol=1e-12, atol=1e-12)


def test_unmaterialised_weights_equal_dense_and_unchecked(rng):
    """dense=False (PairWeightRows) gives the dense weights row block by row block, with or
    without input checks, and pairwise_loss takes either form to the same value."""
    Y = t64(rng.integers(0, 2, size=(4, 10, 3)))
    ybar = Y.sum(-1)
    keep = torch.as_tensor(rng.random((4, 10)) < 0.8)
    a = t64([1.0, 0.5, 2.0])
    for make, arg, kw in [(loss_aggregation_pair_weights, Y, dict(a=a)),
                          (label_aggregation_pair_weights, ybar, dict(costs="gain"))]:
        dense = make(arg, where=keep, **kw)
        lazy = make(arg, where=keep, dense=False, check_input=False, **kw)
        assert isinstance(lazy, PairWeightRows) and lazy.shape == tuple(dense.shape)
        torch.testing.assert_close(lazy.dense(), dense, rtol=1e-12, atol=0)
        torch.testing.assert_close(lazy.rows(3, 7), dense[..., 3:7, :], rtol=1e-12, atol=0)
        s = t64(rng.normal(size=(4, 10)))
        want = pairwise_loss(s, None, pair_weights=dense, where=keep, reduction="sum")
        got = pairwise_loss(s, None, pair_weights=lazy, where=keep, reduction="sum",
                            check_input=False)
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-14)


def test_label_weights_over_given_levels_equal_the_batch_levels(rng):
    """Claim: costs given over a superset of levels (a training set's) give the batch's weights:
    a family depends on the two levels only, a matrix is used on the present rows/columns."""
    ybar = t64([[0.0, 2.0, 2.0, 5.0], [5.0, 0.0, 0.0, 2.0]])
    levels = [0.0, 1.0, 2.0, 5.0]
    for costs in ("linear", "gain"):
        torch.testing.assert_close(label_aggregation_pair_weights(ybar, costs=costs, levels=levels),
                                   label_aggregation_pair_weights(ybar, costs=costs))
    M = np.tril(rng.uniform(0.5, 2.0, size=(4, 4)), -1)
    sub = M[np.ix_([0, 2, 3], [0, 2, 3])]
    torch.testing.assert_close(label_aggregation_pair_weights(ybar, costs=M, levels=levels),
                               label_aggregation_pair_weights(ybar, costs=sub))
    with pytest.raises(ValueError, match="'ybar'.*not one of the given 'levels'"):
        label_aggregation_pair_weights(ybar, levels=[0.0, 2.0])


def test_pairwise_check_input_false_skips_only_the_data_checks():
    s = t64([1.0, 0.0])
    # unchecked: a negative grade is the caller's responsibility (validated once per fit)
    pairwise_loss(s, t64([-1.0, 0.0]), check_input=False)
    with pytest.raises(ValueError, match="'labels'.*non-negative"):
        pairwise_loss(s, t64([-1.0, 0.0]))
    with pytest.raises(ValueError, match="'reduction'"):
        pairwise_loss(s, t64([1.0, 0.0]), reduction="max", check_input=False)


# ---------------------------------------------------------------------------------------------
# Pair weights of loss aggregation (§4) and label aggregation (§3)
# ---------------------------------------------------------------------------------------------


def test_loss_aggregation_weights_match_reference_and_auc(rng):
    for _ in range(5):
        n, K = int(rng.integers(3, 9)), int(rng.integers(1, 4))
        Y = rng.integers(0, 2, size=(n, K))
        a = rng.uniform(0.1, 2.0, size=K)
        W = loss_aggregation_pair_weights(t64(Y), a=a).numpy()
        np.testing.assert_allclose(W, ref_la_weights(Y, a), rtol=1e-12, atol=1e-15)
        # Σ_ij W_ij 1[f_i > f_j] = Σ_k a_k AUC_k on tie-free scores (sklearn's AUC).
        f = rng.permutation(n).astype(float)
        S = (f[:, None] > f[None, :]).astype(float)
        want = sum(a[k] * roc_auc_score(Y[:, k], f) for k in range(K)
                   if 0 < Y[:, k].sum() < n)
        assert (W * S).sum() == pytest.approx(want, rel=1e-12)


def test_loss_aggregation_weights_batched_and_masked(rng):
    Y = rng.integers(0, 2, size=(3, 6, 2)).astype(float)
    keep = rng.random((3, 6)) < 0.7
    Y_pad = Y.copy()
    Y_pad[~keep] = np.nan  # garbage in the padding
    W = loss_aggregation_pair_weights(t64(Y_pad), where=torch.as_tensor(keep)).numpy()
    for b in range(3):
        idx = np.flatnonzero(keep[b])
        want = ref_la_weights(Y[b][idx], np.ones(2))
        np.testing.assert_allclose(W[b][np.ix_(idx, idx)], want, rtol=1e-12, atol=1e-15)
        off = np.ones((6, 6), dtype=bool)
        off[np.ix_(idx, idx)] = False
        assert np.all(W[b][off] == 0)


def test_pairwise_loss_with_loss_aggregation_weights_is_weighted_per_label_mean(rng):
    n, K = 8, 3
    Y = rng.integers(0, 2, size=(n, K))
    Y[0], Y[1] = 1, 0  # every label has both classes
    a = np.array([1.0, 0.5, 2.0])
    s = rng.normal(size=n)
    W = loss_aggregation_pair_weights(t64(Y), a=a)
    got = pairwise_loss(t64(s), None, kind="logistic", pair_weights=W, reduction="sum")
    want = 0.0
    for k in range(K):
        total, count = ref_pairwise(s, Y[:, k], "logistic")
        want += a[k] * total / count
    assert got.item() == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("costs", ["uniform", "linear", "squared", "gain"])
def test_label_aggregation_weights_match_reference(costs, rng):
    for _ in range(4):
        n = int(rng.integers(2, 9))
        ybar = rng.integers(0, 4, size=n).astype(float)
        W = label_aggregation_pair_weights(t64(ybar), costs=costs).numpy()
        np.testing.assert_allclose(W, ref_label_weights(ybar, COST_FUNCS[costs]),
                                   rtol=1e-12, atol=1e-15)


def test_label_aggregation_weights_user_matrix_batched_masked(rng):
    ybar = np.array([[0.0, 1.0, 2.0, 1.0], [2.0, 2.0, 0.0, np.nan]])  # NaN is masked out
    keep = np.array([[True, True, True, True], [True, True, True, False]])
    C = np.array([[0.0, 0.0, 0.0], [3.0, 0.0, 0.0], [1.0, 4.0, 0.0]])  # over levels 0, 1, 2
    W = label_aggregation_pair_weights(t64(ybar), costs=C, where=torch.as_tensor(keep)).numpy()
    lv = {0.0: 0, 1.0: 1, 2.0: 2}
    cost = lambda a, b: C[lv[a], lv[b]]  # noqa: E731
    np.testing.assert_allclose(W[0], ref_label_weights(ybar[0], cost), rtol=1e-12)
    want1 = np.zeros((4, 4))
    want1[:3, :3] = ref_label_weights(ybar[1, :3], cost)
    np.testing.assert_allclose(W[1], want1, rtol=1e-12)


def test_label_aggregation_weights_give_multipartite_auc(rng):
    # Σ W_ij 1[f_i > f_j] is AUC_MP (docs/theory.md §3, ties 0) on tie-free scores: brute force.
    ybar = rng.integers(0, 3, size=9).astype(float)
    f = rng.normal(size=9)
    W = label_aggregation_pair_weights(t64(ybar), costs="linear").numpy()
    num = den = 0.0
    for i, j in itertools.product(range(9), repeat=2):
        if ybar[i] > ybar[j]:
            num += (ybar[i] - ybar[j]) * (f[i] > f[j])
            den += ybar[i] - ybar[j]
    assert (W * (f[:, None] > f[None, :])).sum() == pytest.approx(num / den, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# LSEP / RLSEP
# ---------------------------------------------------------------------------------------------


def test_lsep_and_rlsep_match_reference(rng):
    for _ in range(6):
        n = int(rng.integers(2, 8))
        s = rng.normal(scale=3, size=n)
        y = rng.integers(0, 2, size=n)
        r = rng.integers(0, 4, size=n)
        assert lsep_loss(t64(s), t64(y)).item() == pytest.approx(
            ref_lse(s, ref_rank_pairs(y)), rel=1e-12, abs=1e-15)
        assert rlsep_loss(t64(s), t64(r)).item() == pytest.approx(
            ref_lse(s, ref_rank_pairs(r)), rel=1e-12, abs=1e-15)


def test_lsep_is_stable_for_huge_violations():
    s = t64([-500.0, 500.0]).requires_grad_(True)
    loss = lsep_loss(s, t64([1.0, 0.0]))
    loss.backward()
    assert loss.item() == pytest.approx(1000.0)
    torch.testing.assert_close(s.grad, t64([-1.0, 1.0]))


def test_lsep_batched_looped_masked_sliced(rng):
    s = rng.normal(size=(4, 6))
    r = rng.integers(0, 3, size=(4, 6)).astype(float)
    keep = rng.random((4, 6)) < 0.7
    keep[:, 0] = True
    s_pad, r_pad = s.copy(), r.copy()
    s_pad[~keep], r_pad[~keep] = np.inf, -7.0
    st = t64(s_pad).requires_grad_(True)
    per = rlsep_loss(st, t64(r_pad), where=torch.as_tensor(keep), reduction="none")
    per.sum().backward()
    for b in range(4):
        ss = t64(s[b][keep[b]]).requires_grad_(True)
        one = rlsep_loss(ss, t64(r[b][keep[b]]))
        one.backward()
        torch.testing.assert_close(per[b], one)
        torch.testing.assert_close(st.grad[b][torch.as_tensor(keep[b])], ss.grad)
    assert torch.all(st.grad[~torch.as_tensor(keep)] == 0)
    mean = rlsep_loss(t64(s_pad), t64(r_pad), where=torch.as_tensor(keep))
    torch.testing.assert_close(mean, per.mean())


def test_rlsep_equals_lsep_for_binary_ranks_with_sampling(rng):
    s = t64(rng.normal(size=(3, 7)))
    y = t64(rng.integers(0, 2, size=(3, 7)))
    torch.testing.assert_close(rlsep_loss(s, y), lsep_loss(s, y))
    a = lsep_loss(s, y, num_pairs=3, generator=torch.Generator().manual_seed(5))
    b = rlsep_loss(s, y, num_pairs=3, generator=torch.Generator().manual_seed(5))
    torch.testing.assert_close(a, b)


def test_sampled_pairs_are_a_uniform_subset(rng):
    s = rng.normal(size=6)
    y = np.array([1, 1, 0, 0, 0, 1])
    pairs = ref_rank_pairs(y)  # 9 pairs
    # Enough pairs requested -> the full loss; the same seed -> the same value.
    full = lsep_loss(t64(s), t64(y)).item()
    assert lsep_loss(t64(s), t64(y), num_pairs=50, generator=1).item() == pytest.approx(full)
    v1 = lsep_loss(t64(s), t64(y), num_pairs=4, generator=123).item()
    assert v1 == lsep_loss(t64(s), t64(y), num_pairs=4, generator=123).item()
    subset_values = [ref_lse(s, c) for c in itertools.combinations(pairs, 4)]
    assert min(abs(v1 - v) for v in subset_values) < 1e-12  # the value of some 4-subset
    # Each valid pair is drawn with frequency t / #pairs = 4 / 9; invalid pairs never.
    mask = torch.as_tensor(y[:, None] > y[None, :])
    g = torch.Generator().manual_seed(0)
    counts = sum(_sample_pairs(mask, 4, g).to(torch.float64) for _ in range(3000))
    assert torch.all(counts[~mask] == 0)
    assert torch.all(counts.sum() == 4 * 3000)
    freq = counts[mask] / 3000
    assert torch.all((freq - 4 / 9).abs() < 0.04)  # ~4.4 binomial sd


# ---------------------------------------------------------------------------------------------
# Margin ranking
# ---------------------------------------------------------------------------------------------


def test_margin_ranking_matches_torch_and_numpy(rng):
    a, b = rng.normal(size=10), rng.normal(size=10)
    got = margin_ranking_loss(t64(a), t64(b), margin=0.3, reduction="none").numpy()
    np.testing.assert_allclose(got, np.maximum(0.0, 0.3 - (a - b)))
    want = torch.nn.functional.margin_ranking_loss(t64(a), t64(b), torch.ones(10,
                                                   dtype=torch.float64), margin=0.3)
    torch.testing.assert_close(margin_ranking_loss(t64(a), t64(b), margin=0.3), want)
    assert margin_ranking_loss(t64(a), t64(b), reduction="sum").item() == pytest.approx(
        np.maximum(0.0, 1.0 - (a - b)).sum())
    x = t64(a).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda u: margin_ranking_loss(u, t64(b), margin=0.3), (x,))


# ---------------------------------------------------------------------------------------------
# AP family
# ---------------------------------------------------------------------------------------------


def test_ap_risk_equals_one_minus_sklearn_ap_with_ties(rng):
    for _ in range(40):
        n = int(rng.integers(2, 12))
        y = rng.integers(0, 2, size=n)
        y[0] = 1
        s = rng.integers(0, 4, size=n).astype(float)  # many ties
        want = 1.0 - average_precision_score(y, s)
        assert ap_risk(t64(s), t64(y)).item() == pytest.approx(want, abs=1e-12)
        assert ref_ap(s, y) == pytest.approx(1.0 - want, abs=1e-12)  # the reference agrees


def test_ap_risk_batched_masked_sliced(rng):
    s = rng.integers(0, 5, size=(3, 8)).astype(float)
    y = rng.integers(0, 2, size=(3, 8))
    y[:, 0] = 1
    keep = rng.random((3, 8)) < 0.75
    keep[:, 0] = True
    s_pad = np.where(keep, s, np.nan)
    y_pad = np.where(keep, y, 3)
    got = ap_risk(t64(s_pad), t64(y_pad), where=torch.as_tensor(keep))
    for b in range(3):
        want = 1.0 - average_precision_score(y[b][keep[b]], s[b][keep[b]])
        assert got[b].item() == pytest.approx(want, abs=1e-12)
    torch.testing.assert_close(ap_risk(t64(s_pad), t64(y_pad), where=torch.as_tensor(keep),
                                       reduction="mean"), got.mean())


def test_ap_risk_undefined_without_positives():
    s = t64([[0.1, 0.5, 0.2], [0.3, 0.2, 0.1]])
    y = t64([[0, 0, 0], [1, 0, 1]])
    with pytest.warns(UndefinedMetricWarning):
        got = ap_risk(s, y)
    assert math.isnan(got[0].item())
    assert got[1].item() == pytest.approx(1 - average_precision_score([1, 0, 1], [0.3, 0.2, 0.1]))
    with pytest.warns(UndefinedMetricWarning):
        assert ap_risk(s, y, reduction="mean").item() == pytest.approx(got[1].item())
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(ap_risk(s[:1], y[:1], reduction="mean").item())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ap_risk(s[1:], t64([[1, 1, 1]])).item() == 0.0  # all positive: AP = 1


def test_smooth_and_quadlinear_ap_match_reference(rng):
    for _ in range(8):
        n = int(rng.integers(2, 9))
        s = rng.normal(scale=0.2, size=n)
        y = rng.integers(0, 2, size=n)
        tau, delta, rho = float(rng.uniform(0.01, 0.3)), float(rng.uniform(0.05, 0.5)), \
            float(rng.uniform(0, 3))
        if y.sum() > 0:
            assert smooth_ap_loss(t64(s), t64(y), tau=tau).item() == pytest.approx(
                ref_smooth_ap(s, y, tau), rel=1e-12, abs=1e-14)
            assert quadlinear_ap_loss(t64(s), t64(y), delta=delta, rho=rho).item() == \
                pytest.approx(ref_ql_ap(s, y, delta, rho), rel=1e-12, abs=1e-14)


def test_quadlinear_matches_reference_and_gradcheck(rng):
    x = rng.uniform(-0.5, 0.5, size=50)
    got = quadlinear(t64(x), delta=0.2).numpy()
    np.testing.assert_allclose(got, [ref_quadlinear(v, 0.2) for v in x], rtol=1e-13)
    xt = t64(x).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda u: quadlinear(u, delta=0.2), (xt,))


@pytest.mark.parametrize("loss_name", ["smooth_ap", "quadlinear_ap"])
def test_ap_losses_batched_masked_sliced_gradcheck(loss_name, rng):
    def loss(s, y, **kw):
        if loss_name == "smooth_ap":
            return smooth_ap_loss(s, y, tau=0.1, **kw)
        return quadlinear_ap_loss(s, y, delta=0.3, rho=0.5, **kw)

    s = rng.normal(scale=0.3, size=(3, 7))
    y = rng.integers(0, 2, size=(3, 7))
    y[:, 0] = 1
    keep = rng.random((3, 7)) < 0.75
    keep[:, 0] = True
    s_pad, y_pad = np.where(keep, s, np.nan), np.where(keep, y, -1)
    st = t64(s_pad).requires_grad_(True)
    per = loss(st, t64(y_pad), where=torch.as_tensor(keep), reduction="none")
    per.sum().backward()
    for b in range(3):
        ss = t64(s[b][keep[b]]).requires_grad_(True)
        one = loss(ss, t64(y[b][keep[b]]))
        one.backward()
        torch.testing.assert_close(per[b], one)
        torch.testing.assert_close(st.grad[b][torch.as_tensor(keep[b])], ss.grad)
    assert torch.all(st.grad[~torch.as_tensor(keep)] == 0)
    torch.testing.assert_close(loss(t64(s_pad), t64(y_pad), where=torch.as_tensor(keep)),
                               per.mean())
    x = t64(s).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda u: loss(u, t64(y)), (x,))


def test_one_ap_kernel_serves_all_three(rng):
    """The kernel with H = 1[d >= 0] everywhere is ap_risk; QuadLinear with R- -> H, rho = 1 too."""
    s = t64(rng.integers(0, 4, size=(5, 9)))
    y = t64(rng.integers(0, 2, size=(5, 9)))
    y[:, 0] = 1
    valid = torch.ones(s.shape, dtype=torch.bool)
    ge = lambda d: (d >= 0).to(d.dtype)  # noqa: E731
    per, has = _ap_kernel(s, y, valid, neg_step=ge, pos_step=ge)
    torch.testing.assert_close(per, ap_risk(s, y))
    assert bool(has.all())


@pytest.mark.parametrize("name", ["pairwise", "lsep", "rlsep", "smooth_ap", "quadlinear_ap",
                                  "ap_risk"])
def test_degenerate_queries_have_finite_gradients(name):
    """All-negative, all-positive and fully padded queries: finite (zero) gradients, no NaN."""
    s = t64([[0.2, -0.1, 0.4], [0.3, 0.0, -0.2], [0.1, 0.2, 0.3], [0.5, -0.5, 0.0]])
    y = t64([[0, 0, 0], [1, 1, 1], [1, 0, 1], [1, 0, 0]])
    where = torch.tensor([[True] * 3, [True] * 3, [True] * 3, [False] * 3])
    st = s.clone().requires_grad_(True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        fn = {
            "pairwise": lambda: pairwise_loss(st, y, kind="exponential", where=where),
            "lsep": lambda: lsep_loss(st, y, where=where),
            "rlsep": lambda: rlsep_loss(st, y, where=where),
            "smooth_ap": lambda: smooth_ap_loss(st, y, where=where),
            "quadlinear_ap": lambda: quadlinear_ap_loss(st, y, where=where),
            "ap_risk": lambda: ap_risk(st, y, where=where, reduction="mean"),
        }[name]
        loss = fn()
    if name == "ap_risk":  # a metric: piecewise constant, returned without a graph
        assert not loss.requires_grad and torch.isfinite(loss)
        return
    loss.backward()
    assert torch.isfinite(loss)
    assert torch.all(torch.isfinite(st.grad))
    assert torch.all(st.grad[:2] == 0) and torch.all(st.grad[3] == 0)
    # Queries with no positives are left out of the AP means; all-positive ones count (loss 0).
    if name in ("smooth_ap", "quadlinear_ap"):
        only = {"smooth_ap": smooth_ap_loss, "quadlinear_ap": quadlinear_ap_loss}[name]
        torch.testing.assert_close(loss, only(s[2:3], y[2:3]) / 2)
    empty = {"smooth_ap": smooth_ap_loss, "quadlinear_ap": quadlinear_ap_loss,
             "lsep": lsep_loss}.get(name)
    if empty is not None:
        x = s[:1].clone().requires_grad_(True)
        out = empty(x, y[:1])
        out.backward()
        assert out.item() == 0.0 and torch.all(x.grad == 0)


# ---------------------------------------------------------------------------------------------
# Errors name the argument and the bad value
# ---------------------------------------------------------------------------------------------


def test_errors_name_the_argument():
    s, y = t64([0.1, 0.2, 0.3]), t64([1, 0, 2])
    with pytest.raises(ValueError, match=r"'labels'.*only 0 and 1, got 2 at index 2"):
        smooth_ap_loss(s, y)
    with pytest.raises(ValueError, match=r"'ranks'.*shape"):
        rlsep_loss(s, t64([1, 0]))
    with pytest.raises(ValueError, match=r"'kind'.*'cubic'"):
        pairwise_loss(s, y, kind="cubic")
    with pytest.raises(ValueError, match=r"'reduction'.*'avg'"):
        lsep_loss(s, t64([1, 0, 0]), reduction="avg")
    with pytest.raises(ValueError, match=r"'pair_weights'.*non-negative, got -1"):
        w = torch.zeros(3, 3, dtype=torch.float64)
        w[0, 1] = -1
        pairwise_loss(s, None, pair_weights=w)
    with pytest.raises(ValueError, match=r"'labels' parameter may be None"):
        pairwise_loss(s, None)
    with pytest.raises(TypeError, match=r"'where'.*boolean"):
        ap_risk(s, t64([1, 0, 0]), where=torch.ones(3))
    with pytest.raises(ValueError, match=r"'tau'.*> 0, got 0"):
        smooth_ap_loss(s, t64([1, 0, 0]), tau=0)
    with pytest.raises(ValueError, match=r"'rho'.*>= 0, got -1"):
        quadlinear_ap_loss(s, t64([1, 0, 0]), rho=-1)
    with pytest.raises(ValueError, match=r"'delta'.*> 0"):
        quadlinear(s, delta=-0.1)
    with pytest.raises(ValueError, match=r"'num_pairs'.*got 0"):
        lsep_loss(s, t64([1, 0, 0]), num_pairs=0)
    with pytest.raises(ValueError, match=r"'scores'.*finite, got nan at index 1"):
        lsep_loss(t64([0.0, np.nan, 1.0]), t64([1, 0, 0]))
    with pytest.raises(ValueError, match=r"'Y'.*only 0 and 1"):
        loss_aggregation_pair_weights(t64([[0, 2], [1, 0]]))
    with pytest.raises(ValueError, match=r"'a'.*shape \(2,\)"):
        loss_aggregation_pair_weights(t64([[0, 1], [1, 0]]), a=[1.0])
    with pytest.raises(ValueError, match=r"'costs'"):
        label_aggregation_pair_weights(t64([0, 1, 2]), costs="cubic")
    with pytest.raises(TypeError, match=r"'generator'"):
        lsep_loss(s, t64([1, 0, 0]), num_pairs=1, generator="seed")
    with pytest.raises(ValueError, match=r"'scores_a' and 'scores_b'.*broadcastable"):
        margin_ranking_loss(t64([1, 2]), t64([1, 2, 3]))


# ---------------------------------------------------------------------------------------------
# The logistic pair loss is exact in float64 (no softplus threshold): value and gradient
# ---------------------------------------------------------------------------------------------
def exact_logistic(x: float) -> float:
    """``log(1 + e^{−x})`` in float64 with no cancellation and no overflow (the reference)."""
    return math.log1p(math.exp(-x)) if x >= 0 else -x + math.log1p(math.exp(x))


def exact_logistic_grad(x: float) -> float:
    """``d/dx log(1 + e^{−x}) = −1 / (1 + e^x)``, written so that neither branch overflows."""
    return -math.exp(-x) / (1.0 + math.exp(-x)) if x >= 0 else -1.0 / (1.0 + math.exp(x))


LOGISTIC_GRID = [-50.0, -37.0, -30.0, -25.0, -20.5, -20.0, -19.5, -3.0, -1e-9, 0.0, 1e-9, 0.75,
                 19.5, 20.0, 20.5, 37.0, 50.0]


@pytest.mark.parametrize("x", LOGISTIC_GRID)
def test_logistic_pair_loss_is_exact_in_float64(x):
    """One pair with score difference x: value and both gradients within a few ulps of the exact
    reference. A softplus with the usual threshold (20) returns −x below −20 and a gradient of
    exactly −1: wrong by e^{x} (≈ 1.2e-9 relative at x = −20.5)."""
    s = torch.tensor([x, 0.0], dtype=torch.float64, requires_grad=True)
    loss = pairwise_loss(s, t64([1, 0]), kind="logistic")
    loss.backward()
    g = exact_logistic_grad(x)
    assert loss.item() == pytest.approx(exact_logistic(x), rel=1e-15, abs=0)
    assert s.grad[0].item() == pytest.approx(g, rel=1e-15, abs=0)
    assert s.grad[1].item() == pytest.approx(-g, rel=1e-15, abs=0)


def test_logistic_pair_loss_minimal_input_is_exact():
    """Scores [0, 20.5], labels [1, 0]: the loss is log(1 + e^{20.5}) = 20.50000000125…, the
    gradient −(1 − 1.25e-9) on the positive; a thresholded softplus gives 20.5 and −1."""
    s = torch.tensor([0.0, 20.5], dtype=torch.float64, requires_grad=True)
    loss = pairwise_loss(s, t64([1, 0]))
    loss.backward()
    assert loss.item() == pytest.approx(20.50000000125, abs=1e-12)
    assert loss.item() == pytest.approx(exact_logistic(-20.5), rel=1e-15, abs=0)
    assert loss.item() != 20.5
    g = exact_logistic_grad(-20.5)
    assert g == pytest.approx(-(1 - 1.2501528663867e-9), rel=1e-15)
    np.testing.assert_allclose(s.grad.numpy(), [g, -g], rtol=1e-15, atol=0)


def test_logistic_pair_loss_batch_sum_is_exact():
    """Many pairs at once (|x| ≤ 50, reduction "sum"): the value is the correctly summed
    reference and every score's gradient is exact."""
    xs = np.array(LOGISTIC_GRID)
    s = torch.tensor(np.r_[xs, 0.0], dtype=torch.float64, requires_grad=True)  # one negative at 0
    loss = pairwise_loss(s, t64(np.r_[np.ones(len(xs)), 0.0]), kind="logistic", reduction="sum")
    loss.backward()
    assert loss.item() == pytest.approx(math.fsum(map(exact_logistic, xs)), rel=1e-14)
    want = np.array([exact_logistic_grad(x) for x in xs])
    np.testing.assert_allclose(s.grad.numpy()[:-1], want, rtol=1e-15, atol=0)
    assert s.grad[-1].item() == pytest.approx(-math.fsum(want), rel=1e-14)


# ---------------------------------------------------------------------------------------------
# LSEP / RLSEP are exact in float64 too: log(1 + Σ e^z) with full relative precision
# ---------------------------------------------------------------------------------------------
def mp_lse(s, pairs):
    """``log(1 + Σ_{(u,v)} e^{s_v − s_u})`` and its gradient in 60-digit arithmetic (mpmath):
    an independent reference, rounded to float64 at the end."""
    import mpmath

    with mpmath.workdps(60):
        e = [(u, v, mpmath.exp(mpmath.mpf(s[v]) - mpmath.mpf(s[u]))) for u, v in pairs]
        tot = 1 + mpmath.fsum(x for _, _, x in e)
        g = [mpmath.mpf(0)] * len(s)
        for u, v, x in e:
            g[v] += x / tot
            g[u] -= x / tot
        return float(mpmath.log(tot)), np.array([float(x) for x in g])


@pytest.mark.parametrize("x", LOGISTIC_GRID)
def test_lsep_single_pair_is_the_exact_logistic_loss(x):
    """One positive at x above one negative: LSEP is log(1 + e^{−x}), value and gradient to the
    last bits at |x| ≤ 50. logsumexp([0, −x]) returned 0 for x ≥ 38 (log of 1 + tiny)."""
    s = torch.tensor([x, 0.0], dtype=torch.float64, requires_grad=True)
    loss = lsep_loss(s, t64([1, 0]))
    loss.backward()
    g = exact_logistic_grad(x)
    assert loss.item() == pytest.approx(exact_logistic(x), rel=1e-15, abs=0)
    np.testing.assert_allclose(s.grad.numpy(), [g, -g], rtol=1e-15, atol=0)


@pytest.mark.parametrize("scale", [1.0, 20.0, 50.0])
def test_lsep_and_rlsep_equal_high_precision_reference(scale, rng):
    """Random lists with score gaps up to ±50 (well ranked, badly ranked, mixed), ties in the
    ranks: value and gradient of LSEP and RLSEP within 1e-14 relative of the mpmath reference."""
    for _ in range(8):
        n = int(rng.integers(2, 7))
        s = rng.uniform(-scale, scale, size=n)
        y = rng.integers(0, 2, size=n)
        r = rng.integers(0, 3, size=n)
        for fn, lab in ((lsep_loss, y), (rlsep_loss, r)):
            st = t64(s).requires_grad_(True)
            loss = fn(st, t64(lab), reduction="sum")
            loss.backward()
            want, gwant = mp_lse(s, ref_rank_pairs(lab))
            assert loss.item() == pytest.approx(want, rel=1e-14, abs=0)
            np.testing.assert_allclose(st.grad.numpy(), gwant, rtol=1e-13, atol=1e-300)


def test_lsep_well_ranked_list_keeps_its_tiny_value():
    """Every pair ranked right by 40 to 48: the loss is ≈ Σ e^{−gap} ≈ 4.4e-18, not 0."""
    s = t64([48.0, 40.0, 0.0, -0.0]).requires_grad_(True)
    loss = rlsep_loss(s, t64([3, 2, 1, 1]), reduction="sum")
    loss.backward()
    want, g = mp_lse(s.detach().numpy(), ref_rank_pairs([3, 2, 1, 1]))
    assert want > 4e-18
    assert loss.item() == pytest.approx(want, rel=1e-15)
    np.testing.assert_allclose(s.grad.numpy(), g, rtol=1e-14, atol=0)


@pytest.mark.parametrize("shift", [0.0, 30.0, -45.0])
def test_lsep_rlsep_gradcheck_at_large_gaps(shift, rng):
    """torch.autograd.gradcheck (float64 finite differences) of both losses, batched and masked,
    with score gaps from near 0 to about ±50."""
    s = rng.normal(size=(2, 5)) + shift * np.array([1, -1, 0, 0.5, 0])
    y = t64([[1, 0, 1, 0, 0], [0, 1, 1, 0, 1]])
    r = t64([[2, 0, 1, 1, 3], [0, 1, 2, 0, 1]])
    where = torch.tensor([[True, True, True, True, False], [True] * 5])
    x = t64(s).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda z: lsep_loss(z, y, where=where), (x,))
    assert torch.autograd.gradcheck(lambda z: rlsep_loss(z, r, where=where), (x,))


# ---------------------------------------------------------------------------------------------
# The binary cross-entropies of contrib (label ranking BCE, threshold network, multitask) are
# log-sigmoids: exact in float64 where BCE-with-logits cancels (x ≪ 0 with target 0)
# ---------------------------------------------------------------------------------------------
def exact_bce(x: float, y: float) -> float:
    """``y log(1 + e^{−x}) + (1 − y) log(1 + e^{x})`` from the branch-free reference."""
    return y * exact_logistic(x) + (1 - y) * exact_logistic(-x)


def test_label_ranking_bce_loss_is_exact_in_float64():
    from bipartite.contrib.label_ranking import LabelRankingMLP

    xs = np.array(LOGISTIC_GRID)
    scores = torch.tensor(np.stack([xs, -xs]), dtype=torch.float64, requires_grad=True)
    target = torch.tensor(np.stack([np.arange(len(xs)) % 2, np.arange(len(xs)) % 3 == 0]),
                          dtype=torch.float64)
    loss = LabelRankingMLP(loss="bce")._loss_fn(scores, target, None)
    loss.backward()
    Y = target.numpy()
    want = math.fsum(exact_bce(x, y) for x, y in zip(scores.detach().numpy().ravel(), Y.ravel(),
                                                    strict=True)) / Y.size
    assert loss.item() == pytest.approx(want, rel=1e-14, abs=0)
    # d/dx = y · d/dx log(1 + e^{−x}) + (1 − y) · d/dx log(1 + e^{x}), each branch exact
    g = np.vectorize(lambda x, y: y * exact_logistic_grad(x) - (1 - y) * exact_logistic_grad(-x)
                     )(scores.detach().numpy(), Y)
    np.testing.assert_allclose(scores.grad.numpy(), g / Y.size, rtol=1e-14, atol=0)
    # torch's BCE-with-logits loses the value for target 0 at x = −50 (x − log σ(x) = 0):
    ref = torch.nn.functional.binary_cross_entropy_with_logits(
        t64([-50.0]), t64([0.0]), reduction="none").item()
    assert exact_bce(-50.0, 0.0) == pytest.approx(1.9287498479639178e-22, rel=1e-15)
    assert ref != pytest.approx(exact_bce(-50.0, 0.0), rel=1e-3, abs=0)


# ---- the pair-loss table (docs/theory.md §8.1, "Adding a surrogate") --------------------------
#: One line per entry of PAIR_LOSSES: an independent reference φ(d; m) (NumPy, written out here
#: from the formula, not from the package) and the grid it is checked on (kinks avoided).
PAIR_LOSS_REFERENCES = {
    "logistic": lambda d, m: np.log1p(np.exp(-d)),
    "exponential": lambda d, m: np.exp(-d),
    "hinge": lambda d, m: np.maximum(0.0, m - d),
    "squared_hinge": lambda d, m: np.maximum(0.0, m - d) ** 2,
}


def test_every_pair_loss_has_a_reference_line():
    from bipartite.surrogates import PAIR_LOSSES, PAIRWISE_KINDS

    assert PAIRWISE_KINDS == tuple(PAIR_LOSSES)
    assert set(PAIR_LOSSES) == set(PAIR_LOSS_REFERENCES), "add the new kind's reference line"
    for kind, entry in PAIR_LOSSES.items():
        assert entry.kind == kind
        assert entry.torch is not None  # every pair loss trains
        assert not entry.smooth or entry.numpy is not None


@pytest.mark.parametrize("kind", list(PAIR_LOSS_REFERENCES))
@pytest.mark.parametrize("margin", [1.0, 0.5])
def test_pair_loss_forms_agree(kind, margin):
    """The forms of one table entry agree: torch, NumPy and cvxpy values with the reference on a
    grid; the NumPy φ' and φ'' with torch autograd and with central finite differences."""
    import cvxpy as cp

    from bipartite.surrogates import PAIR_LOSSES

    entry = PAIR_LOSSES[kind]
    d = np.linspace(-6.0, 6.0, 97)
    d = d[np.abs(d - margin) > 1e-3]  # the hinges' kink
    ref = PAIR_LOSS_REFERENCES[kind](d, margin)
    x = torch.tensor(d, dtype=torch.float64, requires_grad=True)
    t = entry.torch(x, margin)
    np.testing.assert_allclose(t.detach().numpy(), ref, rtol=1e-12, atol=1e-14)
    (g1,) = torch.autograd.grad(t.sum(), x, create_graph=True)
    (g2,) = torch.autograd.grad(g1.sum(), x)
    if entry.cvxpy is not None:
        expr = entry.cvxpy(cp.Constant(d), margin)
        assert expr.is_convex()
        np.testing.assert_allclose(expr.value, ref, rtol=1e-10, atol=1e-12)
        v = cp.Variable(len(d))  # convex in an affine argument (the minimiser's use)
        assert entry.cvxpy(v[::-1] - 1.0, margin).is_dcp()
    if entry.numpy is None:
        return
    for order in (0, 1, 2):
        out = entry.numpy(d, margin, order)
        assert len(out) == order + 1
        np.testing.assert_allclose(out[0], ref, rtol=1e-12, atol=1e-14)
    phi, d1, d2 = entry.numpy(d, margin, 2)
    np.testing.assert_allclose(d1, g1.detach().numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(d2, g2.numpy(), rtol=1e-10, atol=1e-14)
    h = 1e-5
    fd1 = (entry.numpy(d + h, margin, 0)[0] - entry.numpy(d - h, margin, 0)[0]) / (2 * h)
    fd2 = (entry.numpy(d + h, margin, 1)[1] - entry.numpy(d - h, margin, 1)[1]) / (2 * h)
    np.testing.assert_allclose(d1, fd1, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d2, fd2, rtol=1e-6, atol=1e-8)


def test_make_pair_loss_is_the_table_torch_form():
    from bipartite.surrogates import PAIR_LOSSES, make_pair_loss

    x = torch.linspace(-3, 3, 13, dtype=torch.float64)
    for kind, entry in PAIR_LOSSES.items():
        assert torch.equal(make_pair_loss(kind, margin=0.7)(x), entry.torch(x, 0.7))


def test_a_missing_form_is_an_error_naming_the_kind(monkeypatch):
    """A form that is None is refused by name, never replaced by another loss: a fifth kind
    without a cvxpy form passes the option check and then stops at the minimiser."""
    from bipartite import consistency
    from bipartite.population import FiniteProblem
    from bipartite.surrogates import PAIR_LOSSES, PairLoss, get_pair_loss, make_pair_loss

    with pytest.raises(ValueError, match="'hinge' has no NumPy form"):
        PAIR_LOSSES["hinge"].form("numpy")
    with pytest.raises(ValueError, match="'squared_hinge' has no NumPy form"):
        consistency.smooth_pair_loss("squared_hinge", [0.0])
    with pytest.raises(ValueError, match="'name' parameter"):
        PAIR_LOSSES["hinge"].form("jax")
    with pytest.raises(ValueError, match="'kind' parameter must be one of"):
        get_pair_loss("cubic")
    with pytest.raises(ValueError, match="marked smooth but has no NumPy form"):
        PairLoss("broken", lambda x, m: x, None, None, smooth=True)
    fifth = PairLoss("softsign", lambda x, m: 1 - x / (1 + x.abs()), None, None, smooth=False,
                     missing="not convex")
    monkeypatch.setitem(PAIR_LOSSES, "softsign", fifth)
    assert make_pair_loss("softsign")(torch.tensor(0.0)).item() == 1.0
    P = FiniteProblem.random(4, 1, seed=0)
    with pytest.raises(ValueError, match="'softsign' has no cvxpy form"):
        consistency.surrogate_minimizer(P, surrogate="softsign")
