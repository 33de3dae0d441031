"""Torch helpers shared by every torch estimator: device choice and CPU thread count.

Imported only by modules that already need torch (``bipartite`` itself stays torch-free).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from numbers import Integral

import torch


def resolve_device(device: str) -> torch.device:
    """``"auto"`` -> CUDA when available, else CPU; any other string is a torch device.

    >>> resolve_device("cpu")
    device(type='cpu')
    """
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(
            f"The 'device' parameter must be 'auto' or a torch device string, got {device!r}: {exc}"
        ) from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"The 'device' parameter is {device!r} but CUDA is not available.")
    return dev


def n_threads(n_jobs: int) -> int:
    """Threads for ``n_jobs``: None -> 1, a positive int -> itself, -1 -> all cores, -2 -> all
    but one, ... (the joblib convention).

    >>> n_threads(None), n_threads(3)
    (1, 3)
    """
    if n_jobs is None:
        return 1
    if not isinstance(n_jobs, Integral) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError(f"The 'n_jobs' parameter must be None or a non-zero int, got {n_jobs!r}.")
    cpus = os.cpu_count() or 1
    return int(n_jobs) if n_jobs > 0 else max(1, cpus + 1 + int(n_jobs))


@contextlib.contextmanager
def torch_threads(n_jobs: int | None = None) -> Iterator[None]:
    """Run a block with ``n_threads(n_jobs)`` torch CPU threads, then restore the setting.

    One thread by default: the networks here are small, and on a loaded 2-core machine torch's
    intra-op pool spends far more time synchronising than computing (measured 50-100x slower per
    step with 2 threads under load).
    """
    old = torch.get_num_threads()
    torch.set_num_threads(n_threads(n_jobs))
    try:
        yield
    finally:
        torch.set_num_threads(old)
