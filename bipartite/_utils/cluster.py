"""A local dask cluster whose p2p shuffles stay inside the workers' memory limits (the CLI's
``bipartite report --workers/--memory-limit`` and the out-of-core benchmark;
docs/out_of_core.md)."""

from __future__ import annotations

from typing import Any

__all__ = ["local_cluster"]


def local_cluster(n_workers: int, memory_limit: Any = "auto", **kwargs: Any):
    """A ``distributed.LocalCluster`` of ``n_workers`` single-threaded workers whose p2p
    shuffle buffers (``distributed.p2p.comm.buffer``, 1 GiB a worker by default) are capped to
    an eighth of a worker's ``memory_limit`` (bytes; "auto": dask's defaults), so that a
    shuffle stays inside the limit (the rest goes to disk).

    Quiet: with ``dashboard_address=None`` (the default here) no dashboard is served and the
    scheduler's HTTP endpoint takes a free port (never "Port 8787 is already in use" beside
    another cluster); the workers log critical messages only (a task's error reaches the caller
    as its exception, which the CLI prints as one line, not as the worker's log block)."""
    import logging

    import dask
    from distributed import LocalCluster

    kwargs.setdefault("dashboard_address", None)
    if kwargs["dashboard_address"] is None:  # the scheduler's HTTP server: a free port
        kwargs["scheduler_kwargs"] = {"dashboard_address": ":0",
                                      **(kwargs.get("scheduler_kwargs") or {})}
    kwargs["silence_logs"] = max(int(kwargs.get("silence_logs") or 0), logging.CRITICAL)

    cfg = {}
    if isinstance(memory_limit, int | float) and memory_limit > 0:
        cfg["distributed.p2p.comm.buffer"] = max(int(memory_limit) // 8, 2**20)
    with dask.config.set(cfg):  # the nannies pass the config on to their workers
        return LocalCluster(n_workers=n_workers, threads_per_worker=1,
                            memory_limit=memory_limit, **kwargs)
