"""The label-pair kernel of the training path (``bipartite._pair_losses.label_pair_sum``) against
slow references: NumPy loops over all n² pairs for the value and the pair count, and torch autograd
through the dense masked expression for the gradient (docs/theory.md §8.1).

The kernel sorts each list by grade and visits only the blocks of the sorted pair matrix that hold
pairs (with a mask where a block is not all pairs), so the claims are checked over the cases that
change the blocks: binary, graded and all-distinct grades, ragged lists, batches of one and many
lists, lists with and without equal counts (unmasked and masked blocks), chunks of one row, a few
rows and everything. Below ``LABEL_SORT_MIN`` entries the kernel walks the unsorted matrix in
masked row chunks instead; every claim is checked for both walks (``WALKS``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import bipartite._pair_losses as pair_losses
from bipartite._pair_losses import label_pair_sum
from bipartite.surrogates import make_pair_loss, pairwise_loss

KINDS = ["logistic", "exponential", "hinge", "squared_hinge"]
CHUNKS = [1, 7, 1 << 20]
#: label_pair_sum's two walks: sorted (every size) and unsorted (its default below LABEL_SORT_MIN)
WALKS = {"sorted": dict(sort_min=0), "unsorted": dict(sort_min=1 << 62)}


def t64(x):
    return torch.as_tensor(np.asarray(x, dtype=np.float64))


def ref_phi(kind, x, margin):
    if kind == "logistic":
        return math.log1p(math.exp(-x)) if x > -30 else -x + math.log1p(math.exp(x))
    if kind == "exponential":
        return math.exp(-x)
    return max(0.0, margin - x) ** (1 if kind == "hinge" else 2)


def ref_label_sum(s, y, keep, kind, margin):
    """Loops over all ordered pairs of every list: (Σ φ(s_i − s_j) over y_i > y_j, both kept;
    the number of such pairs)."""
    total, count = 0.0, 0
    for b in range(s.shape[0]):
        for i in range(s.shape[1]):
            for j in range(s.shape[1]):
                if keep[b, i] and keep[b, j] and y[b, i] > y[b, j]:
                    total += ref_phi(kind, s[b, i] - s[b, j], margin)
                    count += 1
    return total, count


def hi_lo(y, keep):
    y, keep = t64(y), torch.as_tensor(keep)
    return torch.where(keep, y, -torch.inf), torch.where(keep, y, torch.inf)


def draw(rng, case):
    """(scores, grades, keep) [B, n] for one case of the block structure."""
    B, n = int(rng.integers(1, 5)), int(rng.integers(1, 11))
    s = rng.normal(size=(B, n)) * 3
    if case == "binary":
        y = (rng.random((B, n)) < 0.4).astype(float)
    elif case == "graded":
        y = rng.integers(0, 4, size=(B, n)).astype(float)
    elif case == "distinct":
        y = rng.normal(size=(B, n))
    else:  # "equal counts": every list has the same number of positives (unmasked blocks)
        y = np.zeros((B, n))
        y[:, : max(1, n // 3)] = 1.0
        y = rng.permuted(y, axis=1)
    keep = np.ones((B, n), bool) if case == "equal counts" else rng.random((B, n)) < 0.8
    return s, y, keep


@pytest.mark.parametrize("walk", WALKS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("case", ["binary", "graded", "distinct", "equal counts"])
def test_label_pair_sum_matches_loops_and_dense_autograd(kind, chunk, case, walk, rng):
    """Claim: for both walks, every block structure and chunking, the value and the pair count
    are the loop sums over all n² ordered pairs, and the gradient is autograd's through the
    dense masked expression 1[y_i > y_j] φ(s_i − s_j) (the slow reference)."""
    phi = make_pair_loss(kind, 0.7)
    for _ in range(4):
        s_np, y_np, keep_np = draw(rng, case)
        s = t64(s_np).requires_grad_(True)
        hi, lo = hi_lo(y_np, keep_np)
        total, count = label_pair_sum(s, hi, lo, phi, chunk=chunk, **WALKS[walk])
        want, want_count = ref_label_sum(s_np, y_np, keep_np, kind, 0.7)
        assert total.item() == pytest.approx(want, rel=1e-12, abs=1e-12)
        assert count.item() == want_count and count.dtype == s.dtype
        (g,) = torch.autograd.grad(total, s)
        s2 = t64(s_np).requires_grad_(True)
        pair = hi[..., :, None] > lo[..., None, :]
        dense = torch.where(pair, phi(torch.where(pair, s2[..., :, None] - s2[..., None, :], 0.0)),
                            0.0).sum()
        (g_ref,) = torch.autograd.grad(dense, s2)
        torch.testing.assert_close(g, g_ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("walk", WALKS)
@pytest.mark.parametrize("kind", KINDS)
def test_label_pair_sum_gradcheck(kind, walk, rng):
    """Claim: the first-order backward of the blocked kernel is the derivative (float64
    gradcheck), on a batch with graded labels, a ragged list and several masked blocks."""
    s = t64(rng.normal(size=(3, 7))).requires_grad_(True)
    hi, lo = hi_lo(rng.integers(0, 3, size=(3, 7)), rng.random((3, 7)) < 0.85)
    phi = make_pair_loss(kind)
    assert torch.autograd.gradcheck(
        lambda x: label_pair_sum(x, hi, lo, phi, chunk=4, **WALKS[walk])[0], (s,))


@pytest.mark.parametrize("walk", WALKS)
def test_label_pair_sum_one_dimensional_and_batch_dims(walk, rng):
    """Claim: a single list [n] and a batch [a, b, n] give the per-list sums of the flat batch."""
    phi = make_pair_loss("logistic")
    s = t64(rng.normal(size=(2, 3, 6)))
    hi, lo = hi_lo(rng.integers(0, 3, size=(2, 3, 6)), np.ones((2, 3, 6), bool))
    total, count = label_pair_sum(s, hi, lo, phi, **WALKS[walk])
    parts = [label_pair_sum(s[a, b], hi[a, b], lo[a, b], phi, **WALKS[walk])
             for a in range(2) for b in range(3)]
    assert total.item() == pytest.approx(sum(p[0].item() for p in parts), rel=1e-12)
    assert count.item() == sum(p[1].item() for p in parts)


def _visited(monkeypatch, s, hi, lo, chunk=1 << 20, blocks=False):
    """(entries visited, blocks that were unmasked[, blocks]) by one call of the kernel."""
    seen = []
    apply = pair_losses._PairSum.apply

    def spy(scores, blocks, phi, count, order=None):
        seen.extend((r1 - r0) * (c1 - c0) * scores.shape[0] for r0, r1, c0, c1, _ in blocks)
        seen.extend("full" for *_, weights in blocks if weights()[0] is None)
        return apply(scores, blocks, phi, count, order)

    monkeypatch.setattr(pair_losses._PairSum, "apply", spy)
    label_pair_sum(s, hi, lo, make_pair_loss("logistic"), chunk=chunk, sort_min=0)
    visited = [v for v in seen if v != "full"]
    return (sum(visited), seen.count("full")) + ((len(visited),) if blocks else ())


def test_binary_lists_visit_only_positive_negative_pairs(monkeypatch, rng):
    """Claim (the point of the kernel): one list with n₊ positives and n₋ negatives costs n₊ n₋
    entries in unmasked blocks, not n²; lists with the same counts as well; lists with different
    counts at most (max n₊)(n − min n₊) per list, in masked blocks."""
    n = 40
    y = np.zeros((1, n))
    y[0, rng.choice(n, 9, replace=False)] = 1.0
    s = t64(rng.normal(size=(1, n)))
    hi, lo = hi_lo(y, np.ones((1, n), bool))
    assert _visited(monkeypatch, s, hi, lo) == (9 * 31, 1)
    assert _visited(monkeypatch, s, hi, lo, chunk=5 * 31) == (9 * 31, 2)  # split in row chunks
    Y = np.stack([rng.permutation(y[0]) for _ in range(3)])
    hi, lo = hi_lo(Y, np.ones((3, n), bool))
    assert _visited(monkeypatch, s.expand(3, n), hi, lo) == (3 * 9 * 31, 1)
    Y[1, np.flatnonzero(Y[1] == 0)[:4]] = 1.0  # 13 positives in list 1
    hi, lo = hi_lo(Y, np.ones((3, n), bool))
    assert _visited(monkeypatch, s.expand(3, n), hi, lo) == (3 * 13 * 31, 0)


def test_graded_lists_get_few_blocks(monkeypatch, rng):
    """Claim: with a budget of about one grade run's entries, one list with a few grades is
    walked in unmasked blocks, one per run, visiting exactly its pairs; one list of all-distinct
    grades (the upper triangle) in blocks of about ``chunk`` entries (at most twice as many as
    the budget alone), not one block per row."""
    n = 60
    y = rng.permutation(np.repeat([0.0, 1.0, 2.0, 3.0], 15))[None]
    s = t64(rng.normal(size=(1, n)))
    hi, lo = hi_lo(y, np.ones((1, n), bool))
    visited, full, blocks = _visited(monkeypatch, s, hi, lo, chunk=15 * n, blocks=True)
    assert (visited, full, blocks) == (15 * 45 + 15 * 30 + 15 * 15, 3, 3)
    y = rng.permutation(n)[None].astype(float)
    hi, lo = hi_lo(y, np.ones((1, n), bool))
    visited, full, blocks = _visited(monkeypatch, s, hi, lo, chunk=300, blocks=True)
    assert blocks <= 2 * (n * (n - 1) // 2) // 300 + 2
    assert n * (n - 1) // 2 <= visited <= n * (n - 1) // 2 + 2 * 300


@pytest.mark.parametrize("walk", WALKS)
def test_no_pair_is_a_zero_loss_with_zero_gradient(walk):
    """Claim: lists without a pair (one grade, or one valid item) and a batch of no list give 0,
    a count of 0 and a zero gradient; pairwise_loss's mean is then 0 as documented."""
    s = t64([[0.5, -1.0, 2.0], [1.0, 0.0, 3.0]]).requires_grad_(True)
    hi, lo = hi_lo([[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]], [[True, True, True], [False, True, False]])
    total, count = label_pair_sum(s, hi, lo, make_pair_loss("logistic"), **WALKS[walk])
    assert total.item() == 0.0 and count.item() == 0.0
    empty = torch.zeros((0, 4), dtype=torch.float64, requires_grad=True)  # a batch of no list
    total, count = label_pair_sum(empty, empty.detach(), empty.detach(), make_pair_loss("hinge"),
                                  **WALKS[walk])
    total.backward()
    assert total.item() == 0.0 and count.item() == 0.0 and empty.grad.shape == (0, 4)
    loss = pairwise_loss(s, t64([[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]]),
                         where=torch.as_tensor([[True, True, True], [False, True, False]]))
    loss.backward()
    assert loss.item() == 0.0 and torch.equal(s.grad, torch.zeros_like(s))


@pytest.mark.parametrize("walk", WALKS)
def test_masked_block_never_overflows_on_non_pairs(walk):
    """Claim: a non-pair inside a masked block with a huge reversed difference (e^{1000} for the
    exponential) does not turn 0 · inf into NaN in the value or the gradient."""
    # list 0 sorted: item 0 (grade 2) above items 1, 2 (grade 1, tied: no pair, d = 0 − 1000);
    # list 1 has other counts, so the block rows 0:2 × columns 1:3 is masked and holds (1, 2)
    s = t64([[2000.0, 0.0, 1000.0], [0.0, 1.0, 2.0]]).requires_grad_(True)
    y = t64([[2.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    hi, lo = hi_lo(y, np.ones((2, 3), bool))
    loss = label_pair_sum(s, hi, lo, make_pair_loss("exponential"), **WALKS[walk])[0]
    torch.testing.assert_close(loss, pairwise_loss(s, y, kind="exponential", reduction="sum"))
    loss.backward()
    want = math.exp(-2000.0) + math.exp(-1000.0) + math.exp(2.0) + math.exp(1.0)
    assert loss.item() == pytest.approx(want, rel=1e-12)
    assert torch.isfinite(s.grad).all()
    torch.testing.assert_close(s.grad, t64([[0.0, 0.0, 0.0], [-math.exp(2.0), -math.exp(1.0),
                                                              math.exp(2.0) + math.exp(1.0)]]))


@pytest.mark.parametrize("kind", KINDS)
def test_pairwise_loss_label_path_equals_the_weighted_path(kind, rng):
    """Claim: pairwise_loss with labels only (the label kernel) equals pairwise_loss with the
    same pairs given as 0/1 pair weights (the row-chunked weight kernel), in value and gradient,
    on float32 scores of a batch of ragged lists (above LABEL_SORT_MIN: the sorted walk)."""
    assert 5 * 90 * 90 >= pair_losses.LABEL_SORT_MIN
    s_np = rng.normal(size=(5, 90)).astype(np.float32)
    y = torch.as_tensor(rng.integers(0, 3, size=(5, 90)).astype(np.float32))
    keep = torch.as_tensor(rng.random((5, 90)) < 0.9)
    W = ((y[..., :, None] > y[..., None, :]) & keep[..., :, None] & keep[..., None, :]).float()
    a, b = torch.tensor(s_np, requires_grad=True), torch.tensor(s_np, requires_grad=True)
    la = pairwise_loss(a, y, kind=kind, where=keep)
    lb = pairwise_loss(b, None, kind=kind, pair_weights=W, where=keep)
    torch.testing.assert_close(la, lb, rtol=1e-5, atol=1e-6)
    la.backward()
    lb.backward()
    torch.testing.assert_close(a.grad, b.grad, rtol=1e-5, atol=1e-7)
