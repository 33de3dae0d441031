"""Where torch computes, for every torch estimator: the one device resolver and the one CPU
thread policy (used by :class:`bipartite.learners.TorchEstimator`; the XGBoost ranker takes its
thread count from :func:`n_threads` too).

Imported only by modules that already need torch (``bipartite`` itself stays torch-free).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from numbers import Integral

import torch


def _device_unavailable(dev: torch.device) -> str | None:
    """Why the torch device ``dev`` cannot be used here, or None when it can."""
    if dev.type == "cpu":
        return None
    if dev.type == "meta":
        return "the 'meta' device holds no data"
    if dev.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        return None if mps is not None and mps.is_available() else (
            "MPS is not available (it needs Apple silicon and a torch built with MPS)")
    backend = getattr(torch, dev.type, None)
    is_available = getattr(backend, "is_available", None)
    if is_available is not None and not is_available():
        return (f"torch.{dev.type}.is_available() is False (torch {torch.__version__}"
                + (f", CUDA build {torch.version.cuda}" if dev.type == "cuda" else "") + ")")
    count = getattr(backend, "device_count", None)
    if dev.index is not None and count is not None and dev.index >= count():
        return f"there are {count()} {dev.type} device(s), indices 0..{count() - 1}"
    return None


def resolve_device(device: str | torch.device, name: str = "device") -> torch.device:
    """The one device resolver: ``"auto"`` -> CUDA when available, else CPU; any torch device
    string (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``, ...) or ``torch.device`` -> that
    device. A malformed or unavailable device is a ``ValueError`` naming ``name`` and the value.

    >>> resolve_device("cpu"), resolve_device(torch.device("cpu"))
    (device(type='cpu'), device(type='cpu'))
    """
    if isinstance(device, str) and device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if not isinstance(device, str | torch.device):
        raise ValueError(f"The '{name}' parameter must be 'auto' or a torch device string such as "
                         f"'cpu', 'cuda:1' or 'mps', got {device!r}.")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError) as exc:
        raise ValueError(f"The '{name}' parameter must be 'auto' or a torch device string such as "
                         f"'cpu', 'cuda:1' or 'mps', got {device!r}: {exc}") from None
    reason = _device_unavailable(dev)
    if reason is not None:
        raise ValueError(f"The '{name}' parameter is {device!r}, which is not available here: "
                         f"{reason}.")
    return dev


def n_threads(n_jobs: int | None, name: str = "n_jobs") -> int:
    """Threads for ``n_jobs``: None -> 1, a positive int -> itself, -1 -> all cores, -2 -> all
    but one, ... (the joblib convention).

    >>> n_threads(None), n_threads(3)
    (1, 3)
    """
    if n_jobs is None:
        return 1
    if not isinstance(n_jobs, Integral) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError(f"The '{name}' parameter must be None or a non-zero int, got {n_jobs!r}.")
    cpus = os.cpu_count() or 1
    return int(n_jobs) if n_jobs > 0 else max(1, cpus + 1 + int(n_jobs))


@contextlib.contextmanager
def torch_threads(n_jobs: int | None = None) -> Iterator[None]:
    """The one thread policy: run a block with ``n_threads(n_jobs)`` torch CPU threads, then
    restore the setting.

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
