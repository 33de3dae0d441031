"""The checks of tensor input: conversion to tensors, the ``where`` validity mask, finite, binary
and non-negative entries where valid, pair weights and generators; and the one safe reducer over
the valid entries. Shared by the torch losses (:mod:`bipartite.surrogates` and the contrib trainers
built on it) and the tensor AUC (``bipartite/metrics/_tensor_auc.py``).

Private to the package (``bipartite._utils``); the names carry no underscore so that the modules
that use them may import them. Imported only by modules that already need torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from numpy.typing import ArrayLike

from bipartite._utils.arrays import as_plain_array, check_array, check_dense_tensor
from bipartite._utils.errors import first_index, show_number

__all__ = ["as_elementwise", "as_float_array", "as_like", "as_scores", "as_where",
           "check_binary_where", "check_finite_where", "check_generator",
           "check_nonnegative_where", "first_bad", "positive_strides", "safe_reduce", "show",
           "show_first_bad"]


def show(t: torch.Tensor, limit: int = 8) -> str:
    """A short text of a tensor's values for an error message."""
    flat = t.detach().reshape(-1)
    if flat.numel() <= limit:
        return repr(flat.tolist())
    return f"tensor of shape {tuple(t.shape)} starting {flat[:limit].tolist()}"


def first_bad(bad: torch.Tensor, values: torch.Tensor) -> tuple[Any, Any]:
    """The value and the index (:func:`bipartite._utils.errors.first_index`) of the first True
    entry of the mask ``bad`` (on any device: the mask is read on the CPU, on the error path
    only)."""
    idx = first_index(bad.detach().cpu().numpy())
    return values[idx].item(), idx


def show_first_bad(bad: torch.Tensor, values: torch.Tensor) -> tuple[str, Any]:
    """:func:`first_bad`, its value printed by the one format
    (:func:`bipartite._utils.errors.show_number`) at the tensor's own precision, so that a
    float32 tensor prints ``-0.1`` as a float32 NumPy array does (``.item()`` alone widens it to
    ``-0.10000000149011612``)."""
    value, idx = first_bad(bad, values)
    if values.dtype in (torch.float16, torch.float32):
        value = np.dtype(str(values.dtype).removeprefix("torch.")).type(value)
    return show_number(value), idx


def positive_strides(arr: np.ndarray) -> np.ndarray:
    """``arr``, copied when a stride is negative (``x[::-1]``): torch cannot wrap such a view."""
    return arr.copy() if any(st < 0 for st in arr.strides) else arr


def as_scores(scores: torch.Tensor | ArrayLike, name: str = "scores", *, min_ndim: int = 1) -> torch.Tensor:
    """Floating tensor with at least ``min_ndim`` dims and a non-empty last dimension. Sparse and
    meta-device tensors are refused by name (:func:`check_dense_tensor`)."""
    if not check_dense_tensor(scores, name):
        scores = torch.as_tensor(as_float_array(scores, name))
    if not torch.is_floating_point(scores):
        raise TypeError(
            f"The '{name}' parameter must be a floating-point tensor, got dtype {scores.dtype}."
        )
    if scores.ndim < min_ndim:
        raise ValueError(
            f"The '{name}' parameter must have at least {min_ndim} dimension(s) [..., n_items], "
            f"got shape {tuple(scores.shape)}."
        )
    if min_ndim >= 1 and scores.shape[-1] == 0:
        raise ValueError(
            f"The '{name}' parameter must not be empty, got shape {tuple(scores.shape)}."
        )
    return scores


def as_like(x: torch.Tensor | ArrayLike, name: str, scores: torch.Tensor) -> torch.Tensor:
    """``x`` as a tensor of the same shape, dtype and device as ``scores``."""
    if not check_dense_tensor(x, name):
        x = torch.as_tensor(as_float_array(x, name))
    if tuple(x.shape) != tuple(scores.shape):
        raise ValueError(
            f"The '{name}' parameter must have the shape of 'scores' {tuple(scores.shape)}, "
            f"got shape {tuple(x.shape)}."
        )
    return x.to(dtype=scores.dtype, device=scores.device)


def as_float_array(x: ArrayLike, name: str) -> np.ndarray:
    """``x`` as a float64 array of any shape through the one conversion
    (:func:`bipartite._utils.arrays.check_array`: foreign dtypes, masked entries and sparse
    input refused by name); NaN/inf are left to the caller's masked check."""
    return check_array(x, name, allow_empty=True, finite=False)


def as_elementwise(x: torch.Tensor | ArrayLike, name: str = "x") -> torch.Tensor:
    """``x`` of an elementwise function (any shape): a tensor of numbers, non-empty and finite.

    A tensor keeps its dtype and device (an integer tensor too); other input goes through
    ``torch.as_tensor`` as before (a list of floats gives the default dtype).
    """
    if not check_dense_tensor(x, name):
        x = as_plain_array(x, name)
        try:
            probe = np.asarray(x)
            if probe.dtype.kind not in "biuf":
                raise TypeError(f"dtype {probe.dtype}")
            x = torch.as_tensor(positive_strides(probe) if isinstance(x, np.ndarray) else x)
        except (TypeError, ValueError, RuntimeError) as exc:
            raise TypeError(
                f"The '{name}' parameter must be a tensor or array-like of numbers, "
                f"got {type(x).__name__}: {exc}"
            ) from None
    elif x.is_complex():
        raise TypeError(f"The '{name}' parameter must be a real tensor, got dtype {x.dtype}.")
    if x.numel() == 0:
        raise ValueError(f"The '{name}' parameter must not be empty, got shape {tuple(x.shape)}.")
    if torch.is_floating_point(x):
        check_finite_where(x, torch.ones((), dtype=torch.bool, device=x.device), name)
    return x


def as_where(where: torch.Tensor | ArrayLike, scores: torch.Tensor) -> torch.Tensor:
    """Boolean validity mask of the shape of ``scores`` (all True when ``where`` is None)."""
    if where is None:
        return torch.ones(scores.shape, dtype=torch.bool, device=scores.device)
    if not check_dense_tensor(where, "where"):
        where = torch.as_tensor(positive_strides(np.asarray(as_plain_array(where, "where"))))
    if where.dtype != torch.bool:
        raise TypeError(f"The 'where' parameter must be a boolean mask, got dtype {where.dtype}.")
    if tuple(where.shape) != tuple(scores.shape):
        raise ValueError(
            f"The 'where' parameter must have the shape of 'scores' {tuple(scores.shape)}, "
            f"got shape {tuple(where.shape)}."
        )
    return where.to(device=scores.device)


def check_finite_where(x: torch.Tensor, valid: torch.Tensor, name: str) -> None:
    bad = ~torch.isfinite(x.detach()) & valid
    if bool(bad.any()):
        value, idx = show_first_bad(bad, x.detach())
        raise ValueError(f"The '{name}' parameter must be finite, got {value} at index {idx}.")


def check_nonnegative_where(x: torch.Tensor, valid: torch.Tensor, name: str) -> None:
    bad = (x < 0) & valid
    if bool(bad.any()):
        value, idx = show_first_bad(bad, x)
        raise ValueError(f"The '{name}' parameter must be non-negative, got {value} at index "
                         f"{idx}.")


def check_binary_where(labels: torch.Tensor, valid: torch.Tensor, name: str) -> None:
    bad = (labels != 0) & (labels != 1) & valid
    if bool(bad.any()):
        value, idx = show_first_bad(bad, labels)
        raise ValueError(
            f"The '{name}' parameter must contain only 0 and 1, got {value} at index {idx}."
        )


def check_generator(generator: int | torch.Generator) -> torch.Generator | None:
    """A torch generator, None (torch's global one), or an int seed as a fresh *CPU* generator:
    the draws are made on the CPU and moved, so one seed gives the same random subset on every
    device (a CUDA generator with the same seed draws other numbers). Pass a
    ``torch.Generator(device="cuda")`` to draw on the GPU instead."""
    if generator is None or isinstance(generator, torch.Generator):
        return generator
    if isinstance(generator, (int, np.integer)) and not isinstance(generator, bool):
        g = torch.Generator(device="cpu")
        g.manual_seed(int(generator))
        return g
    raise TypeError(
        f"The 'generator' parameter must be None, an int seed or a torch.Generator, "
        f"got {generator!r}."
    )


# The one safe reducer (rax safe_reduce)
def safe_reduce(values: torch.Tensor, counts: torch.Tensor, reduction: str) -> torch.Tensor:
    """Reduce ``values`` with weights/counts ``counts`` (same shape, non-negative).

    ``"sum"`` = Σ values; ``"mean"`` = Σ values / Σ counts, and 0 when Σ counts = 0 (a mean over
    nothing); ``"none"`` = ``values`` unchanged. The denominator is replaced by 1 *before* the
    division when it is 0 (a ``torch.where`` after the division would still send NaN gradients
    back through the unused branch).
    """
    if reduction == "none":
        return values
    total = values.sum()
    if reduction == "sum":
        return total
    denom = counts.sum()
    return total / torch.where(denom > 0, denom, torch.ones_like(denom))


def check_pair_weights(pair_weights: torch.Tensor | ArrayLike, s: torch.Tensor,
                       valid: torch.Tensor) -> torch.Tensor:
    """The checks of a dense ``pair_weights`` [..., n, n]: shape, finite and >= 0 on valid pairs."""
    w = pair_weights if check_dense_tensor(pair_weights, "pair_weights") else torch.as_tensor(
        as_float_array(pair_weights, "pair_weights"))
    want = (*s.shape, s.shape[-1])
    if tuple(w.shape) != want:
        raise ValueError(f"The 'pair_weights' parameter must have shape {want} "
                         f"([..., n_items, n_items]), got shape {tuple(w.shape)}.")
    w = w.to(dtype=s.dtype, device=s.device)
    both = valid[..., :, None] & valid[..., None, :]
    check_finite_where(w, both, "pair_weights")
    check_nonnegative_where(w, both, "pair_weights")
    return w
