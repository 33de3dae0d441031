"""The pair-loss table: every pairwise surrogate φ once, in each form the package uses (docs/theory.md §8.1, §9).

Public as :data:`bipartite.surrogates.PAIR_LOSSES` (and its keys as
:data:`bipartite.surrogates.PAIRWISE_KINDS`). One :class:`PairLoss` entry per kind holds

* ``torch(x, margin)``: φ on a tensor of score differences, the form the losses and learners
  train with (:func:`bipartite.surrogates.make_pair_loss`, :func:`~bipartite.surrogates.pairwise_loss`);
* ``numpy(d, margin, order)``: ``(φ,)``, ``(φ, φ')`` or ``(φ, φ', φ'')`` in NumPy, the form the
  Newton polish and the large-support population minimiser need
  (:func:`bipartite.consistency.smooth_pair_loss`, docs/theory.md §9.2);
* ``cvxpy(d, margin)``: φ as a convex cvxpy expression, the form the exact population minimiser
  solves (:func:`bipartite.consistency.surrogate_minimizer`); cvxpy is imported when it is called;

or ``None`` where a form does not exist: asking for it (:meth:`PairLoss.form`) is then a
``ValueError`` that names the kind, never a fallback to another loss.

**Adding a surrogate** is one entry in :data:`PAIR_LOSSES` (its forms, ``None`` where one does
not exist, and ``smooth``) plus its line in the agreement test
(``tests/test_surrogates.py::test_pair_loss_forms_agree``, which iterates over the table and checks
the forms against each other: values on a grid, NumPy derivatives against finite differences and
torch autograd). Every option check, the minimiser and the learners read the table
(docs/theory.md §8.1, "Adding a surrogate").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from bipartite._utils.validation import check_option

__all__ = ["PAIR_LOSSES", "PairLoss", "PairWeightRows", "get_pair_loss", "label_pair_sum",
           "pair_loss_sum"]

#: The form names of an entry, with the words used in errors.
FORMS = {"torch": "torch", "numpy": "NumPy", "cvxpy": "cvxpy"}


@dataclass(frozen=True)
class PairLoss:
    """One pairwise surrogate ``φ(d)`` of a score difference ``d = f_i − f_j`` (i should rank
    above j), in every form it has (docs/theory.md §8.1).

    Attributes
    ----------
    kind : str
        Its name (the key in :data:`PAIR_LOSSES`).
    torch : callable ``(x, margin) -> tensor``
        φ elementwise on a tensor.
    numpy : callable ``(d, margin, order) -> tuple of ndarrays``, or None
        ``(φ, φ', …)`` up to the derivative ``order`` (0, 1 or 2) on an ndarray.
    cvxpy : callable ``(d, margin) -> cvxpy expression``, or None
        φ as a DCP-convex expression of an affine expression ``d``.
    smooth : bool
        φ is twice differentiable, strictly convex and positive with ``φ → 0`` at ``+∞``: the
        population risk may have its infimum at infinity (``infimum_attained``), and the cvxpy
        minimiser is polished by Newton steps on the NumPy form (which a smooth entry must have).
    missing : str
        Why the forms that are None do not exist (quoted in the error).
    """

    kind: str
    torch: Callable[[torch.Tensor, float], torch.Tensor]
    numpy: Callable[[np.ndarray, float, int], tuple[np.ndarray, ...]] | None
    cvxpy: Callable[[Any, float], Any] | None
    smooth: bool
    missing: str = ""

    def __post_init__(self) -> None:
        if self.smooth and self.numpy is None:
            raise ValueError(f"The pair loss {self.kind!r} is marked smooth but has no NumPy form "
                             "(the Newton polish needs φ' and φ'').")

    def form(self, name: str) -> Callable[..., Any]:
        """The form ``name`` ("torch", "numpy" or "cvxpy"); a ``ValueError`` naming the kind when
        this loss has none.

        >>> PAIR_LOSSES["hinge"].form("numpy")
        Traceback (most recent call last):
        ...
        ValueError: The pair loss 'hinge' has no NumPy form (PAIR_LOSSES['hinge'].numpy is None): not twice differentiable (kink at d = margin).
        """
        check_option(name, "name", tuple(FORMS))
        fn = getattr(self, name)
        if fn is None:
            raise ValueError(f"The pair loss {self.kind!r} has no {FORMS[name]} form "
                             f"(PAIR_LOSSES[{self.kind!r}].{name} is None): {self.missing}.")
        return fn


# ------------------------------------------------------------------------------------------------
# The forms
# ------------------------------------------------------------------------------------------------
def _logistic_torch(x: torch.Tensor, margin: float) -> torch.Tensor:
    # log(1 + e^{-x}) = -log σ(x): logsigmoid never forms e^{-x} for very negative x (overflow)
    # and keeps full precision for large x, where log(1 + tiny) would round to 0. softplus(-x) is
    # *not* exact: above its threshold (20) it returns -x, losing e^{x} ≈ 2e-9 per pair in value
    # and gradient in float64.
    return -torch.nn.functional.logsigmoid(x)


def _logistic_numpy(d: np.ndarray, margin: float, order: int) -> tuple[np.ndarray, ...]:
    # φ = logaddexp(0, −d) (stable), φ' = −σ(−d) (never σ(d) − 1: cancellation), φ'' = σ(−d) σ(d)
    from scipy.special import expit

    value = np.logaddexp(0.0, -d)
    if order == 0:
        return (value,)
    s = expit(-d)
    return (value, -s) if order == 1 else (value, -s, s * expit(d))


def _logistic_cvxpy(d: Any, margin: float) -> Any:
    import cvxpy as cp

    return cp.logistic(-d)


def _exponential_torch(x: torch.Tensor, margin: float) -> torch.Tensor:
    return torch.exp(-x)


def _exponential_numpy(d: np.ndarray, margin: float, order: int) -> tuple[np.ndarray, ...]:
    e = np.exp(-d)
    return ((e,), (e, -e), (e, -e, e))[order]


def _exponential_cvxpy(d: Any, margin: float) -> Any:
    import cvxpy as cp

    return cp.exp(-d)


def _hinge_torch(x: torch.Tensor, margin: float) -> torch.Tensor:
    return torch.relu(margin - x)


def _hinge_cvxpy(d: Any, margin: float) -> Any:
    import cvxpy as cp

    return cp.pos(margin - d)


def _squared_hinge_torch(x: torch.Tensor, margin: float) -> torch.Tensor:
    return torch.relu(margin - x) ** 2


def _squared_hinge_cvxpy(d: Any, margin: float) -> Any:
    import cvxpy as cp

    return cp.square(cp.pos(margin - d))


#: The pair losses, one entry per kind (docs/theory.md §8.1): ``"logistic"``
#: ``φ(d) = log(1 + e^{−d})``, ``"exponential"`` ``e^{−d}``, ``"hinge"`` ``max(0, m − d)`` and
#: ``"squared_hinge"`` ``max(0, m − d)²`` (margin ``m``; the population minimiser uses m = 1).
PAIR_LOSSES: dict[str, PairLoss] = {
    "logistic": PairLoss("logistic", _logistic_torch, _logistic_numpy, _logistic_cvxpy,
                         smooth=True),
    "exponential": PairLoss("exponential", _exponential_torch, _exponential_numpy,
                            _exponential_cvxpy, smooth=True),
    "hinge": PairLoss("hinge", _hinge_torch, None, _hinge_cvxpy, smooth=False,
                      missing="not twice differentiable (kink at d = margin)"),
    "squared_hinge": PairLoss("squared_hinge", _squared_hinge_torch, None, _squared_hinge_cvxpy,
                              smooth=False,
                              missing="φ'' jumps at d = margin (not twice differentiable)"),
}


def get_pair_loss(kind: str, name: str = "kind") -> PairLoss:
    """The table entry of ``kind``; an unknown kind is refused naming the argument ``name``.

    >>> get_pair_loss("exponential").smooth
    True
    """
    check_option(kind, name, tuple(PAIR_LOSSES))
    return PAIR_LOSSES[kind]


# ------------------------------------------------------------------------------------------------
# The fused pair sums (the training path's kernels)
# ------------------------------------------------------------------------------------------------
#: Pairs per chunk (block) of the fused sums: their temporaries are a few chunks (4 MiB each in
#: float32), whatever the number of pairs.
PAIR_CHUNK = 1 << 20

#: Entries (lists × n²) from which :func:`label_pair_sum` sorts the lists and visits only the
#: pairs: below, its few extra small operations cost more than the entries they skip (measured
#: with 1 thread: 1.2–1.6× the row-chunked walk at 2^12–2^14 entries, 0.8× at 2^16).
LABEL_SORT_MIN = 1 << 15

#: ``rows(start, stop)`` -> the pair weights ``W[..., start:stop, :]`` (0 = no pair).
WeightRows = Callable[[int, int], torch.Tensor]


@dataclass(frozen=True)
class PairWeightRows:
    """Pair weights ``W[..., i, j]`` kept unmaterialised: ``rows(start, stop)`` gives the block
    ``W[..., start:stop, :]`` and :meth:`dense` the whole [..., n, n] tensor.

    What :func:`~bipartite.surrogates.loss_aggregation_pair_weights` and :func:`~bipartite.surrogates.label_aggregation_pair_weights` return
    with ``dense=False``; :func:`~bipartite.surrogates.pairwise_loss` takes it as ``pair_weights`` and asks for one
    chunk of rows at a time, so that no n × n weight matrix is ever formed (the weights carry no
    gradient). ``shape`` is the shape of the full matrix.
    """

    shape: tuple[int, ...]
    rows: Callable[[int, int], torch.Tensor]

    def dense(self) -> torch.Tensor:
        """The whole [..., n, n] weight matrix."""
        return self.rows(0, self.shape[-1])


def _chunk_rows(scores: torch.Tensor, chunk: int) -> int:
    """Rows of the pair matrix per chunk: about ``chunk`` pairs over all lists."""
    per_row = max(1, scores.numel() // max(scores.shape[-1], 1) * scores.shape[-1])
    return max(1, min(scores.shape[-1], chunk // per_row))


#: One block of the pair matrix: ``(r0, r1, c0, c1, weights)``, the rows ``r0:r1`` and columns
#: ``c0:c1``; ``weights()`` gives ``(w, keep)``: the weights ``W[..., r0:r1, c0:c1]`` and the
#: boolean pair mask (``None``: ``w != 0``), or ``(None, None)`` when every entry is a pair of
#: weight 1.
Block = tuple[int, int, int, int, Callable[[], tuple[torch.Tensor | None, torch.Tensor | None]]]


class _PairSum(torch.autograd.Function):
    """``Σ w_ij φ(s_i − s_j)`` and its gradient in one pass over blocks of the pair matrix (see
    :func:`pair_loss_sum` and :func:`label_pair_sum`)."""

    @staticmethod
    def forward(ctx, scores, blocks, phi, count, order=None):  # noqa: D102
        # count: also sum the weights (else the caller knows them and 0 is returned); order: the
        # blocks index the scores permuted by ``order`` along the last axis
        s = scores.detach() if order is None else scores.detach().gather(-1, order)
        total = torch.zeros((), dtype=s.dtype, device=s.device)
        wsum = torch.zeros((), dtype=s.dtype, device=s.device)
        grad = torch.zeros_like(s) if ctx.needs_input_grad[0] else None
        # On the CPU with every difference finite (|s| <= max / 2, one O(n) check), the mask is
        # a product with the 0/1 pattern of the weights, exactly (d · 1 = d, d · 0 = ±0 and
        # φ(±0) = φ(0)) and ~10x cheaper there than a boolean mask (measured, 1 thread).
        by_product = s.device.type == "cpu" and s.numel() > 0 and bool(
            s.abs().max() <= torch.finfo(s.dtype).max / 2)
        for r0, r1, c0, c1, weights in blocks:
            w, keep = weights()
            d = s[..., r0:r1, None] - s[..., None, c0:c1]  # d[..., i, j] = s_i − s_j
            if w is not None:
                # Pairs of weight 0 see d = 0 (finite φ), so that e^{-d} cannot overflow there
                # and turn 0 · inf into NaN in the value or the gradient.
                if by_product:  # keep, where given, is w != 0
                    m = w.sign().abs_()
                    d = d.mul_(m) if m.shape == d.shape else d * m  # in place unless it broadcasts
                else:
                    d = d.masked_fill_(w == 0, 0.0) if keep is None else torch.where(keep, d, 0.0)
                del keep
            if grad is None:
                v = phi(d)
            else:
                with torch.enable_grad():
                    d.requires_grad_(True)
                    v = phi(d)
                    # w φ'(d); all-ones weights as a stride-0 tensor (no n × n fill)
                    gw = w if w is not None else torch.ones(
                        (), dtype=s.dtype, device=s.device).expand(d.shape)
                    (g,) = torch.autograd.grad(v, d, grad_outputs=gw)
                    del gw
                v = v.detach()
                grad[..., r0:r1] += g.sum(-1)
                grad[..., c0:c1] -= g.sum(-2)
                del g
            total += v.sum() if w is None else torch.dot(w.reshape(-1), v.reshape(-1))
            if count:
                wsum += v.numel() if w is None else w.sum()
        if grad is not None and order is not None:  # back to the given order (a permutation)
            grad = torch.empty_like(grad).scatter_(-1, order, grad)
        ctx.save_for_backward(grad)
        ctx.mark_non_differentiable(wsum)
        return total, wsum

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_total, grad_weight):  # noqa: D102
        (grad,) = ctx.saved_tensors
        return (None if grad is None else grad_total * grad), None, None, None, None


def pair_loss_sum(scores: torch.Tensor, rows: WeightRows, phi: Callable[[torch.Tensor], torch.Tensor],
                  *, chunk: int = PAIR_CHUNK) -> tuple[torch.Tensor, torch.Tensor]:
    """``(Σ_ij w_ij φ(s_i − s_j), Σ_ij w_ij)`` over the pairs of ``scores`` [..., n], without an
    n × n temporary: the fused kernel of :func:`bipartite.surrogates.pairwise_loss` for given pair
    weights (docs/theory.md §8.1).

    ``rows(start, stop)`` gives the weights ``W[..., start:stop, :]`` (0 = not a pair; the
    weights carry no gradient); ``phi`` is the torch form of a :data:`PAIR_LOSSES` entry (bound
    to its margin). The pair matrix is walked in chunks of about ``chunk`` pairs; in each, φ and
    ``w φ'`` come from autograd through ``phi`` itself (no second copy of any loss), and only the
    row and column sums of ``w φ'`` are kept: the gradient of the scores, returned by the
    backward pass (first order only: the backward is not itself differentiable). Memory is a few
    chunks whatever the number of pairs. The slow reference is the dense ``w * φ(s_i − s_j)``
    (tests/test_surrogates.py).
    """
    blocks = _row_blocks(scores, lambda r0, r1: (rows(r0, r1), None), int(chunk))
    return _PairSum.apply(scores, blocks, phi, True)


def _row_blocks(scores: torch.Tensor, weights: Callable[[int, int], tuple], chunk: int
                ) -> list[Block]:
    """The pair matrix in row chunks of about ``chunk`` pairs, all columns: ``weights(r0, r1)``
    gives the block's ``(w, keep)``."""
    n = scores.shape[-1]
    step = _chunk_rows(scores, chunk)
    return [(r0, min(n, r0 + step), 0, n, lambda r0=r0: weights(r0, min(n, r0 + step)))
            for r0 in range(0, n, step)]


def label_pair_sum(scores: torch.Tensor, hi: torch.Tensor, lo: torch.Tensor,
                   phi: Callable[[torch.Tensor], torch.Tensor], *, chunk: int = PAIR_CHUNK,
                   sort_min: int = LABEL_SORT_MIN) -> tuple[torch.Tensor, torch.Tensor]:
    """``(Σ φ(s_i − s_j), number of pairs)`` over the pairs ``hi_i > lo_j`` of each list of
    ``scores`` [..., n]: the kernel of :func:`bipartite.surrogates.pairwise_loss` with labels and
    no pair weights (every pair weighs 1; docs/theory.md §8.1).

    ``hi`` and ``lo`` are the grades with the invalid items at ``−inf`` and ``+inf`` (so that an
    invalid item is in no pair). Only the pairs are visited: each list is sorted by grade,
    descending (one O(n log n) sort), so that the items below item i are the positions from the
    end of its grade's run to the last valid one; the pair matrix is walked in row chunks of about
    ``chunk`` entries, each from the first column any of its rows pairs with. With binary labels
    this is the positives × negatives block (``n_+ n_-`` entries, not ``n²``), with no mask when
    every list has the same counts; with many grades, about the upper triangle. The number of
    pairs is counted exactly from the sorted grades. φ, ``φ'`` and the gradient as in
    :func:`pair_loss_sum` (the same kernel), the gradient computed in the sorted order and put
    back by one scatter; the slow references are loops over all n² pairs and the dense masked
    sum (tests/test_pair_losses.py).

    Below ``sort_min`` entries (lists × n²) the sort and the plan cost more than they save: the
    unsorted pair matrix is walked in masked row chunks, as by :func:`pair_loss_sum`.
    """
    n = scores.shape[-1]
    if scores.numel() * n < sort_min:
        def rows(r0: int, r1: int) -> tuple[torch.Tensor, torch.Tensor]:
            keep = hi[..., r0:r1, None] > lo[..., None, :]
            return keep.to(scores.dtype), keep
        return _PairSum.apply(scores, _row_blocks(scores, rows, int(chunk)), phi, True)
    s2, hi2, lo2 = scores.reshape(-1, n), hi.reshape(-1, n), lo.reshape(-1, n)
    hs, order = torch.sort(hi2, dim=-1, descending=True, stable=True)
    ls = lo2.gather(-1, order)
    neg = -hs  # ascending; the invalid items (+inf) last
    # end[b, i]: the first position after item i's grade run (items with a grade >= hs[b, i])
    end = torch.searchsorted(neg, neg, right=True)
    # the plan on the host (one transfer of B × n integers, O(B n) NumPy work)
    end, n_valid = end.cpu().numpy(), (ls < torch.inf).sum(-1).cpu().numpy()
    count = np.maximum(n_valid[:, None] - end, 0)  # pairs with i above; nonincreasing in i
    weight = torch.tensor(float(count.sum()), dtype=scores.dtype, device=scores.device)
    if count.size == 0:  # no list (a [0, n] batch): no pair
        return _PairSum.apply(s2, [], phi, False, order)[0], weight
    c_min, c_max = end.min(0).tolist(), end.max(0).tolist()
    last_row, nv_min, c1 = int((count > 0).sum(-1).max()), int(n_valid.min()), int(n_valid.max())
    blocks: list[Block] = []
    for r0, r1, c0, full in _label_blocks(c_min, c_max, last_row, nv_min == c1, c1,
                                          s2.shape[0], int(chunk)):
        if full:  # every (row, column) of the block is a pair: no mask, no weights
            blocks.append((r0, r1, c0, c1, lambda: (None, None)))
        else:
            def weights(r0=r0, r1=r1, c0=c0):
                keep = hs[:, r0:r1, None] > ls[:, None, c0:c1]
                return keep.to(scores.dtype), keep
            blocks.append((r0, r1, c0, c1, weights))
    total, _ = _PairSum.apply(s2, blocks, phi, False, order)
    return total, weight


def _label_blocks(c_min: list[int], c_max: list[int], last_row: int, same_valid: bool, c1: int,
                  batch: int, chunk: int) -> list[tuple[int, int, int, bool]]:
    """The blocks ``(r0, r1, c0, full)`` of :func:`label_pair_sum`: rows ``r0:r1`` × columns
    ``c0:c1`` of the grade-sorted pair matrix, about ``chunk`` entries over the ``batch`` lists.

    ``c_min[r]``/``c_max[r]``: the first and last, over the lists, of the end of row r's grade
    run (its first possible lower item); the rows past ``last_row`` have no pair; ``same_valid``:
    every list has ``c1`` valid items. A block starts at ``c0 = c_min[r0]``. Its leading rows whose
    run ends at ``c0`` in every list pair with every column (``full``: no mask); they make a block
    of their own when they are at least half of its rows, so that binary labels and single lists
    with few grades give unmasked blocks while many grades give masked blocks of about ``chunk``
    entries (at most twice as many blocks as ``chunk`` alone would give).
    """
    out = []
    r0 = 0
    while r0 < last_row:
        c0 = c_min[r0]
        r1 = min(last_row, r0 + max(1, chunk // (batch * (c1 - c0))))
        r = r0
        while same_valid and r < r1 and c_max[r] == c0:
            r += 1
        if r > r0 and 2 * (r - r0) >= r1 - r0:
            out.append((r0, r, c0, True))
            r0 = r
        else:
            out.append((r0, r1, c0, False))
            r0 = r1
    return out
