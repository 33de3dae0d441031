"""The one multilayer-perceptron builder of the package (docs/theory.md §10).

Every torch scorer (the learners here and the methods in :mod:`bipartite.contrib`) builds its
network with :func:`make_mlp` and seeds it with :func:`init_linear`: torch's default ``Linear``
initialisation (Kaiming-uniform weights, uniform biases), drawn from a local
``torch.Generator``, so that a fit is reproducible without touching torch's global seed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from bipartite._utils.validation import check_positive

if TYPE_CHECKING:
    import torch
    from torch import nn

__all__ = ["MAX_MLP_PARAMETERS", "check_hidden", "init_linear", "make_mlp", "minibatches", "split_head",
           "torch_seed"]


def check_hidden(hidden: Sequence[int], name: str = "hidden") -> tuple[int, ...]:
    """Hidden-layer widths: a sequence of positive integers (may be empty; a string is refused).

    >>> check_hidden([64, 32])
    (64, 32)
    """
    if isinstance(hidden, str | bytes):
        raise ValueError(f"The '{name}' parameter must be a sequence of positive integers, "
                         f"got the string {hidden!r}.")
    try:
        h = tuple(int(v) for v in hidden)
    except (TypeError, ValueError):
        raise ValueError(f"The '{name}' parameter must be a sequence of positive integers, "
                         f"got {hidden!r}.") from None
    if any(v < 1 for v in h) or any(int(v) != v for v in hidden):
        raise ValueError(f"The '{name}' parameter must be a sequence of positive integers, "
                         f"got {hidden!r}.")
    return h


def torch_seed(rng: np.random.Generator) -> int:
    """An int seed for torch drawn from a NumPy generator (one draw)."""
    return int(rng.integers(0, 2**31 - 1))


def init_linear(module: nn.Module, seed: int) -> nn.Module:
    """Re-initialise every ``torch.nn.Linear`` inside ``module`` (in ``module.modules()`` order)
    with torch's default scheme, drawn from ``torch.Generator().manual_seed(seed)``; returns
    ``module``."""
    import torch
    from torch import nn

    gen = torch.Generator().manual_seed(int(seed))
    with torch.no_grad():
        for mod in module.modules():
            if isinstance(mod, nn.Linear):
                nn.init.kaiming_uniform_(mod.weight, a=5**0.5, generator=gen)
                bound = 1.0 / mod.in_features**0.5
                nn.init.uniform_(mod.bias, -bound, bound, generator=gen)
    return module


#: Default limit on the number of parameters of :func:`make_mlp` (4 GB in float32).
MAX_MLP_PARAMETERS = 10**9


def make_mlp(n_in: int, hidden: Sequence[int], n_out: int | None, *, seed: int,
             dtype: torch.dtype | None = None,
             max_parameters: int = MAX_MLP_PARAMETERS) -> nn.Sequential:
    """``Linear-ReLU-…-Linear`` with widths ``n_in → hidden… → n_out``, seeded (:func:`init_linear`).

    ``n_out=None`` builds the body only (every layer followed by a ReLU), as a shared bottom or an
    expert. ``dtype`` (a torch dtype) casts the parameters; the default keeps float32. Torch's
    global random state is left as it was. A network of more than ``max_parameters`` parameters
    (default :data:`MAX_MLP_PARAMETERS`) is refused before anything is allocated.

    >>> net = make_mlp(3, (4,), 1, seed=0)
    >>> [type(m).__name__ for m in net]
    ['Linear', 'ReLU', 'Linear']
    """
    import torch
    from torch import nn

    n_in = check_positive(n_in, "n_in", integer=True)
    if n_out is not None:
        n_out = check_positive(n_out, "n_out", integer=True)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"The 'seed' parameter must be a non-negative integer, got {seed!r}.")
    widths = [n_in, *check_hidden(hidden), *([] if n_out is None else [n_out])]
    n_params = sum((a + 1) * b for a, b in zip(widths[:-1], widths[1:], strict=True))
    if n_params > max_parameters:
        raise ValueError(f"The 'n_in' and 'hidden' parameters give a network of {n_params:,} "
                         f"parameters, past the limit max_parameters={max_parameters:,}; pass a "
                         "larger 'max_parameters' to build it anyway.")
    layers: list[nn.Module] = []
    width = n_in
    # nn.Linear draws its default initialisation from torch's global generator: construct under a
    # forked RNG so that building a network never changes the caller's random stream.
    with torch.random.fork_rng(devices=[]):
        for h in check_hidden(hidden):
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        if n_out is not None:
            layers.append(nn.Linear(width, int(n_out)))
    net = init_linear(nn.Sequential(*layers), seed)
    return net if dtype is None else net.to(dtype)


def minibatches(n: int, batch_size: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Indices of a random permutation of ``range(n)`` in batches of ``batch_size``."""
    perm = rng.permutation(n)
    for start in range(0, n, batch_size):
        yield perm[start:start + batch_size]


def split_head(net: nn.Sequential) -> tuple[nn.Sequential, nn.Module]:
    """``(body, head)`` of a :func:`make_mlp` network: all layers but the last, and the last."""
    return net[:-1], net[-1]
