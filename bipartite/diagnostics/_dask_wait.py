"""Waiting on dask for the out-of-core statistics (:mod:`bipartite.diagnostics._dask_passes`;
docs/out_of_core.md, "Memory, progress and stalls"): a floor on the workers' memory checked
before any pass, the progress of each pass on stderr, a watchdog that stops a run whose paused
workers make no progress, and worker deaths reported as one line that says what to do.

* **Memory floor** (:func:`memory_floor`, :func:`check_memory`): a worker's peak resident
  memory in a run is about ``IDLE_BYTES + rows × BYTES_PER_CELL × (columns + PAIR_CELLS ×
  pairs) + queries × BYTES_PER_QUERY_CELL × pairs × (scorers + 1)`` (rows: of the
  largest piece; columns: read; pairs: the weight pairs, each label and each cross pair;
  queries: the distinct query ids), the constants fitted to measured peaks over 18 data shapes
  and scaled to cover every one (benchmarks/calibrate_ooc_memory.py,
  benchmarks/results/ooc_memory_floor.json). A worker that reports more than ``IDLE_BYTES``
  counts what it reports instead. Dask pauses a worker at
  ``distributed.worker.memory.pause`` (80 %) of its limit, so a limit below peak / pause is
  refused before the first pass (queries not yet known: counted 0) and again, with the
  queries, before the second; the message names the smallest limit that holds.
* **Progress**: each pass is one tqdm bar on stderr whose total is the pass's tasks and whose
  rate, hence its remaining time, is measured as they finish (the scheduler's task states,
  polled every :data:`POLL_SECONDS`).
* **Watchdog**: when no task changes state for :data:`STALL_SECONDS` while a worker is paused at
  its memory threshold, the run stops with :class:`MemoryStall` (a paused worker holding the
  only runnable task never resumes).
* **Killed workers**: ``distributed``'s ``KilledWorker`` (a worker restarted by its nanny, past
  ``distributed.worker.memory.terminate``, 95 % of its limit, or killed by the system) becomes
  :class:`MemoryStall` naming the memory limit and the fix.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["BYTES_PER_CELL", "BYTES_PER_QUERY_CELL", "IDLE_BYTES", "MemoryStall", "PAIR_CELLS",
           "POLL_SECONDS", "STALL_SECONDS", "check_memory", "killed", "memory_floor", "wait", "worker_limit"]

#: Seconds without a task changing state, while a worker is paused, before the run stops.
STALL_SECONDS = 120.0
#: Seconds between two looks at the scheduler (progress and watchdog).
POLL_SECONDS = 1.0
# The memory floor's constants (memory_floor), from a fresh worker's peak resident memory in
# placement_stats over 18 data shapes (1 to 4 scorers, 1 to 6 labels, with and without query
# ids and weights, float32 and float64 scores, pieces of 2.5·10⁴ to 4·10⁵ rows, 4 or 100 rows a
# query, and make_report_data.py's data; 4 pieces, 2 workers): non-negative least squares, then
# every constant scaled by the largest measured / fitted ratio (1.04) and rounded up, so that
# the floor is at least every measured peak; measured peak / floor is 0.93 to 1.00 over the
# shapes (benchmarks/calibrate_ooc_memory.py; the numbers: benchmarks/results/
# ooc_memory_floor.json). Checked end to end on make_report_data.py's 4·10⁵ rows (4 pieces of
# 10⁵, 2 workers): the floor, 816MiB in all, ran in 31 s; below it, 763MiB and 700MiB
# stalled (a worker paused) and were stopped by the watchdog (docs/out_of_core.md).
#: A fresh worker's memory in a run, before any term that grows with the data: the interpreter,
#: NumPy, pandas, pyarrow, dask and the run's fixed structures. The floor counts a worker's
#: reported memory where that is more.
IDLE_BYTES = 285 * 2**20
#: Bytes per row of the largest piece and per cell: per column read, and per PAIR_CELLS for
#: each weight pair (masses, sorts and placements of pass 3, one scorer at a time).
BYTES_PER_CELL = 41
#: Cells per weight pair, in units of a column read.
PAIR_CELLS = 1.44
#: Bytes per distinct query id, weight pair and (scorer + 1): the dense per-query sums.
BYTES_PER_QUERY_CELL = 21
_MB = 2**20


class MemoryStall(ValueError):
    """The dask workers ran out of memory (a worker paused with no progress, or killed)."""


def _mb(x: float) -> str:
    """Bytes as the size ``--memory-limit`` reads back (dask's ``parse_bytes``: MiB = 2^20)."""
    return f"{math.ceil(x / _MB)}MiB"


def memory_floor(rows: int, n_cols: int, n_pairs: int, idle: float, pause: float, *,
                 n_scores: int = 1, n_queries: int = 0) -> float:
    """The smallest per-worker memory limit (bytes) under which a worker runs the pieces of
    ``rows`` rows without reaching dask's pause threshold ``pause`` (a share of the limit):
    ``(max(idle, IDLE_BYTES) + rows × BYTES_PER_CELL × (n_cols + PAIR_CELLS × n_pairs) +
    n_queries × BYTES_PER_QUERY_CELL × n_pairs × (n_scores + 1)) / pause``
    (``n_cols`` columns read, ``n_pairs`` weight pairs, ``n_queries`` distinct query ids;
    ``idle``: what the worker holds now)."""
    work = (rows * BYTES_PER_CELL * (n_cols + PAIR_CELLS * n_pairs)
            + n_queries * BYTES_PER_QUERY_CELL * n_pairs * (n_scores + 1))
    return (max(idle, IDLE_BYTES) + work) / max(pause, 0.05)


def check_memory(client: Any, max_rows: int, n_cols: int, n_pairs: int, *, n_scores: int = 1,
                 n_queries: int = 0) -> None:
    """Refuse a cluster whose workers' memory limit is below :func:`memory_floor` for the
    largest piece (``max_rows`` rows), naming the smallest ``--memory-limit`` that works.
    Workers without a limit, and no client (local threads), pass."""
    if client is None:
        return
    import dask

    pause = dask.config.get("distributed.worker.memory.pause", 0.8) or 0.8
    workers = _workers(client)
    limits = [w.get("memory_limit") or 0 for w in workers.values()]
    if not limits or min(limits) <= 0:
        return
    # a worker's memory now (its last heartbeat), at least what a fresh one holds in a run
    idle = max([(w.get("metrics") or {}).get("memory") or 0 for w in workers.values()]
               + [IDLE_BYTES])
    floor = memory_floor(max_rows, n_cols, n_pairs, idle, pause, n_scores=n_scores,
                         n_queries=n_queries)
    low = min(limits)
    if low < floor:
        n = len(limits)
        queries = f" and {n_queries:,} queries" if n_queries else ""
        raise MemoryStall(
            f"The dask workers' memory limit, {_mb(low)} a worker, is below what this data "
            f"needs: a worker holds about {_mb(idle)} before the data, and a piece of "
            f"{max_rows:,} rows{queries} needs about {_mb(floor * max(pause, 0.05) - idle)} "
            f"more, under dask's pause threshold ({pause:.0%} of the limit). Give at least "
            f"{_mb(floor)} a worker: --memory-limit {math.ceil(floor / _MB) * n}MiB for {n} "
            "worker(s) (or fewer --workers, or files with smaller row groups).")


def _workers(client: Any) -> dict:
    """The scheduler's workers (address → info: ``memory_limit``, ``metrics``...), all of them
    (``scheduler_info`` lists the first few only unless told ``n_workers=-1``)."""
    import inspect

    if "n_workers" in inspect.signature(client.scheduler_info).parameters:
        return client.scheduler_info(n_workers=-1).get("workers", {})
    return client.scheduler_info().get("workers", {})


def worker_limit(client: Any) -> int:
    """The smallest memory limit of ``client``'s workers in bytes (0: no client, no limit, or a
    cluster that cannot be asked). Asked before a compute: once a worker is killed its limit
    leaves the scheduler with it (:func:`killed`)."""
    if client is None:
        return 0
    try:
        return int(min((w.get("memory_limit") or 0 for w in _workers(client).values()),
                       default=0))
    except Exception:  # noqa: BLE001 - the cluster may be gone: the message goes without it
        return 0


def _scheduler_state(dask_scheduler: Any) -> dict:
    """Run on the scheduler: tasks not yet done, the transition counter (changes whenever a
    task changes state), the paused workers and the smallest memory limit."""
    left = sum(1 for ts in dask_scheduler.tasks.values()
               if ts.state in ("waiting", "processing", "queued", "no-worker"))
    workers = list(dask_scheduler.workers.values())
    paused = sum(1 for ws in workers if getattr(ws.status, "name", str(ws.status)) == "paused")
    limits = [ws.memory_limit for ws in workers if ws.memory_limit]
    return {"left": left, "counter": dask_scheduler.transition_counter, "paused": paused,
            "workers": len(workers), "limit": min(limits) if limits else 0}


def _stalled(state: dict, quiet: float) -> MemoryStall:
    return MemoryStall(
        f"The dask workers stopped making progress: {state['paused']} of {state['workers']} "
        f"paused at dask's memory threshold, with no task finished for {quiet:.0f} s (memory "
        f"limit {_mb(state['limit'])} a worker). Give the workers more memory (--memory-limit), "
        "use fewer --workers with the same total, or write files with smaller row groups.")


def killed(e: BaseException, limit: int) -> MemoryStall:
    """``KilledWorker`` as one line naming the workers' memory limit (``limit`` bytes, from
    :func:`worker_limit` before the compute; 0: not named) and the fix."""
    lim = f" (memory limit {_mb(limit)} a worker)" if limit else ""
    try:
        first = str(e).splitlines()[0] if str(e) else ""
    except Exception:  # noqa: BLE001 - KilledWorker's text needs its worker's state
        first = ""
    return MemoryStall(
        f"A dask worker died while running a task{lim}, most likely out of memory: dask restarts "
        "a worker that passes 95% of its limit, and the system kills one that exhausts the "
        "machine. Give the workers more memory (--memory-limit), use fewer --workers with the "
        f"same total, or write files with smaller row groups. ({type(e).__name__}: {first})")


def wait(client: Any, futures: Sequence[Any], step: str | None, progress: bool) -> None:
    """Wait for ``futures`` on ``client``: a tqdm bar ``step`` over the scheduler's tasks (with
    ``progress``), the watchdog (:class:`MemoryStall` after :data:`STALL_SECONDS` without a
    task changing state while a worker is paused) and ``KilledWorker`` as :func:`killed`.
    Errors of the tasks themselves are raised by the caller's ``gather``."""
    futures = list(futures)
    bar, total = None, 0
    last, since = None, time.monotonic()
    try:
        while True:
            # futures' own state (distributed.wait would need a default client); finished
            # futures are noticed within 20 ms, the scheduler asked every POLL_SECONDS
            t_next = time.monotonic() + POLL_SECONDS
            while time.monotonic() < t_next and not all(f.done() for f in futures):
                time.sleep(0.02)
            if all(f.done() for f in futures):
                break
            state = client.run_on_scheduler(_scheduler_state)
            now = time.monotonic()
            if state["counter"] != last:
                last, since = state["counter"], now
            elif state["paused"] and now - since > STALL_SECONDS:
                client.cancel(futures)
                raise _stalled(state, now - since)
            if progress:
                total = max(total, state["left"])
                if bar is None and total:
                    bar = _bar(step, total)
                if bar is not None:
                    bar.total = total
                    bar.update(total - state["left"] - bar.n)
        if bar is not None:
            bar.update(bar.total - bar.n)
    finally:
        if bar is not None:
            bar.close()


def _bar(step: str | None, total: int):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=step or "dask", file=sys.stderr, leave=True, unit="task",
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} tasks "
                           "[{elapsed}<{remaining}]")


class LocalProgress:
    """The same bar on dask's local schedulers (no client): a dask callback counting the tasks
    of the graph as they finish."""

    def __init__(self, step: str | None, progress: bool):
        self.step, self.on, self.bar, self._cb = step, progress, None, None

    def __enter__(self):
        if not self.on:
            return self
        from dask.callbacks import Callback

        outer = self

        class _Count(Callback):
            def _start_state(self, dsk, state):
                outer.bar = _bar(outer.step, max(len(state["ready"]) + len(state["waiting"])
                                                 + len(state["finished"]), 1))

            def _posttask(self, key, result, dsk, state, worker_id):
                if outer.bar is not None:
                    outer.bar.update(1)

        self._cb = _Count()
        self._cb.__enter__()
        return self

    def __exit__(self, *exc):
        if self._cb is not None:
            self._cb.__exit__(*exc)
        if self.bar is not None:
            self.bar.close()
        return False
