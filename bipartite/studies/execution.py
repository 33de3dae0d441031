"""Running the pending tasks of a study: in the driver, on a loky process pool, or on dask.

Every finished task's record goes to a callback (the runner writes its file) as soon as it
arrives, in the driver process. The pool never outlives the driver:

* **loky** (``jobs > 1``): a process pool of its own per run (no pool is shared or reused). Each
  worker, when it starts (:func:`worker_initializer`), asks Linux to SIGKILL it when the driver
  dies (``prctl(PR_SET_PDEATHSIG)``) and starts a watchdog thread that polls ``os.getppid()``
  every :data:`WATCHDOG_POLL_S` s and exits when the driver is gone (any POSIX system; also
  covers the moment before ``prctl``). Workers ignore SIGINT: Ctrl-C reaches the driver, which
  stops them. While workers start, the driver holds a SIGINT or SIGTERM back until the start
  ends (:func:`sigint_blocked`), so a signal never lands mid-launch. The pool's resource-tracker processes exit once driver and workers are gone.
  Tasks go in batches (:func:`~bipartite.studies.tasks.execute_batch`) of about
  :data:`TARGET_BATCH_S` seconds of work (one task per batch for tasks that take longer), and at
  most :data:`IN_FLIGHT_PER_WORKER` batches per worker are submitted at a time.
* **dask**: ``dask.distributed`` (an existing scheduler, reached within ``scheduler_timeout``
  seconds, or a ``LocalCluster`` whose processes ``distributed`` ties to the driver). At most
  :data:`DASK_IN_FLIGHT_PER_THREAD` tasks per worker thread (and at least
  :data:`DASK_MIN_WINDOW`) are submitted at a time, never the whole study at once.

On KeyboardInterrupt or SIGTERM (:func:`sigterm_raises`, which turns SIGTERM into
:class:`~bipartite.studies.StudyTerminated`), the records of tasks already finished are saved,
the pool is shut down with its workers killed (``kill_workers=True``), and the exception goes on.
A worker that dies (killed, out of memory, a crash in C code) breaks the loky pool: the run
stops with :class:`~bipartite.studies.StudyError` (finished tasks stay saved).
"""


from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import itertools
import math
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence

from bipartite.studies.errors import StudyError, StudyIOError, StudyTerminated
from bipartite.studies.tasks import (
    RECORD_FORMAT,
    Task,
    execute_batch,
    execute_task,
    iter_execute,
    seal_record,
)

#: Seconds between two checks of the worker watchdog (a worker outlives a killed driver by at
#: most about this long, on systems without ``PR_SET_PDEATHSIG``).
WATCHDOG_POLL_S = 0.5
#: Default ``scheduler_timeout``: seconds to reach a dask scheduler given by address.
DEFAULT_SCHEDULER_TIMEOUT = 30.0
#: Seconds to open a TCP connection to a dask scheduler before the client is made: a refused
#: connection (no scheduler there any more) fails at once instead of after ``scheduler_timeout``.
SCHEDULER_PROBE_S = 5.0
#: Batches submitted to the loky pool per worker at a time (bounded memory, quick shutdown).
IN_FLIGHT_PER_WORKER = 2
#: Seconds of work a loky batch aims at: short tasks go to the workers in batches (as joblib's
#: auto-batching does), sized from the time the tasks of the last batch took, so that the
#: pool's round trip (about a millisecond) is small beside the work.
TARGET_BATCH_S = 0.05
#: Most tasks in one loky batch.
MAX_BATCH_TASKS = 256
#: Dask tasks in flight per worker thread (at least :data:`DASK_MIN_WINDOW`): the rest wait
#: in the driver, and are submitted (``client.map``) as the window empties.
DASK_IN_FLIGHT_PER_THREAD = 64
DASK_MIN_WINDOW = 256
#: Exit status of a worker whose driver died.
ORPHAN_EXIT_STATUS = 70

#: Thread-count variables set in loky workers (as joblib does), unless set in the environment.
THREAD_ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                   "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMBA_NUM_THREADS",
                   "NUMEXPR_NUM_THREADS")

OnRecord = Callable[[dict], object]


# --------------------------------------------------------------------------------------------
# Workers die with the driver
# --------------------------------------------------------------------------------------------


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Linux only: have the kernel send ``sig`` to this process when its parent dies
    (``prctl(PR_SET_PDEATHSIG)``). Returns whether it was set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(1, int(sig), 0, 0, 0) == 0  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return False


def watch_parent(driver_pid: int, poll_s: float = WATCHDOG_POLL_S) -> None:
    """Loop until the parent process is no longer ``driver_pid``, then exit at once."""
    while True:
        if os.getppid() != driver_pid:
            os._exit(ORPHAN_EXIT_STATUS)
        time.sleep(poll_s)


@contextlib.contextmanager
def sigint_blocked() -> Iterator[None]:
    """While worker processes are started: block SIGINT in this thread (POSIX), so that a child,
    which starts with the signal mask of the thread that spawns it, cannot be interrupted in
    ``site`` ("Fatal Python error: init_import_site"); and, in the main thread, hold back the
    Python-level SIGINT and SIGTERM handlers. The mask alone does not hold them back: a signal
    the kernel delivers to another thread of this process (loky's manager and queue threads)
    still runs its handler in the main thread, here in the middle of loky's launch of a worker,
    whose cleanup then fails (``UnboundLocalError`` from ``popen_loky_posix``: a traceback and
    exit status 1 instead of the driver's message; seen once in 36 trials of a SIGINT 1 s after
    ``bipartite study run --jobs 2`` started). A signal held back is handled, by the handler
    that was in place, when the block ends."""
    held: list[tuple[int, object]] = []
    previous: dict[int, Callable] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(sig)
            if callable(handler):  # a Python handler (KeyboardInterrupt, sigterm_raises)
                previous[sig] = handler
                signal.signal(sig, lambda signum, frame: held.append((signum, frame)))
    old = (signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
           if hasattr(signal, "pthread_sigmask") else None)
    try:
        yield
    finally:
        if old is not None:  # a SIGINT pending meanwhile reaches this process now
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if held:
            signum, frame = held[0]
            previous[signum](signum, frame)


def worker_initializer(driver_pid: int, poll_s: float = WATCHDOG_POLL_S) -> None:
    """Initializer of the loky workers: ignore SIGINT, die with the driver (parent-death signal
    and a watchdog thread)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # started blocked (sigint_blocked): ignored from now
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    set_parent_death_signal()
    if os.getppid() != driver_pid:  # the driver died before prctl took effect
        os._exit(ORPHAN_EXIT_STATUS)
    threading.Thread(target=watch_parent, args=(driver_pid, poll_s), daemon=True,
                     name="bipartite-driver-watchdog").start()


def worker_env(jobs: int) -> dict:
    """Thread-count variables of the workers: cores // jobs (at least 1), as joblib sets them,
    for variables not set already (tasks also pin their threads with ``threads_per_task``)."""
    n = str(max((os.cpu_count() or 1) // max(jobs, 1), 1))
    return {var: n for var in THREAD_ENV_VARS if var not in os.environ}


# --------------------------------------------------------------------------------------------
# SIGTERM
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """While active (main thread only; elsewhere a no-op), the first SIGTERM raises
    :class:`StudyTerminated` (exit status 143) in the main thread, so that ``finally`` blocks
    stop the workers and the finished tasks are saved; later SIGTERMs are ignored while it
    unwinds. The previous handler is restored on exit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise StudyTerminated("terminated by SIGTERM; finished tasks are saved")

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # pragma: no cover - no signals here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


# --------------------------------------------------------------------------------------------
# Running the tasks
# --------------------------------------------------------------------------------------------


def failed_record(task: Task, exc: BaseException) -> dict:
    """A failure record for a task whose result never came back (a lost dask worker, ...)."""
    return seal_record({
        "format": RECORD_FORMAT, "key": task.key, "study": task.study, "function": task.function,
        "params": task.params, "replicate": task.replicate, "seed": task.seed,
        "status": "failed", "error": f"{type(exc).__name__}: {exc}",
        "traceback": "".join(traceback.format_exception(exc)), "elapsed_s": math.nan})


def run_pending(pending: Sequence[Task], on_record: OnRecord, *, jobs: int = 1,
                backend: str = "loky", scheduler: str | None = None,
                scheduler_timeout: float = DEFAULT_SCHEDULER_TIMEOUT,
                dask_cluster_kwargs: Mapping | None = None, where: str = "the study",
                study_token: str = "study") -> None:
    """Run ``pending`` tasks, calling ``on_record(record)`` in this process as each finishes.
    ``where`` (the study folder) is named in errors; ``study_token``
    (:func:`~bipartite.studies.tasks.study_token`) makes dask keys unique to the study."""
    if backend == "dask":
        run_dask(pending, on_record, jobs=jobs, scheduler=scheduler,
                 scheduler_timeout=scheduler_timeout,
                 cluster_kwargs=dask_cluster_kwargs or {}, where=where, study_token=study_token)
    elif jobs == 1:
        for record in iter_execute(t.as_dict() for t in pending):
            on_record(record)
    else:
        run_loky(pending, on_record, jobs=jobs, where=where)


def save_finished(futures: Mapping, on_record: OnRecord, finished: Callable, *,
                  batches: bool = False) -> None:
    """After an interrupt: hand over the records of futures that finished but were not handled
    yet (each future's result is one record, or a list of records with ``batches``; a disk
    error stops it quietly: the interrupt is what the caller must see)."""
    for fut in list(futures):
        if not finished(fut):
            continue
        try:
            result = fut.result()
            for record in (result if batches else [result]):
                on_record(record)
        except StudyIOError:
            return
        except Exception:  # noqa: BLE001, S112 - a failed future: its task stays pending
            continue


#: The loky pools kept open by :func:`reuse_workers` (by number of workers), or None outside it.
_KEPT_POOLS: dict[int, object] | None = None


@contextlib.contextmanager
def reuse_workers() -> Iterator[None]:
    """Within this block, :func:`run_loky` keeps its worker pool for the next study with the
    same ``jobs`` instead of starting and stopping one per study (a paper's dozen studies then
    start their workers, and import torch, once). A study that ends in an error or an interrupt
    still stops (kills) its pool; every kept pool is shut down when the block ends."""
    global _KEPT_POOLS
    outer, _KEPT_POOLS = _KEPT_POOLS, {} if _KEPT_POOLS is None else _KEPT_POOLS
    clean = False
    try:
        yield
        clean = True
    finally:
        if outer is None:
            pools, _KEPT_POOLS = _KEPT_POOLS, None
            for executor in pools.values():
                executor.shutdown(wait=True, kill_workers=not clean)


def _loky_pool(jobs: int):
    """A loky pool of ``jobs`` workers that die with this process (kept by reuse_workers)."""
    from joblib.externals.loky import ProcessPoolExecutor

    if _KEPT_POOLS is not None and jobs in _KEPT_POOLS:
        return _KEPT_POOLS.pop(jobs)
    if hasattr(signal, "pthread_sigmask"):
        # Started here, outside sigint_blocked: CPython's multiprocessing resource tracker
        # *unblocks* SIGINT after spawning its process (bpo-33613), which would undo the block
        # for the workers started after it.
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    with sigint_blocked():
        return ProcessPoolExecutor(max_workers=jobs, initializer=worker_initializer,
                                   initargs=(os.getpid(), WATCHDOG_POLL_S),
                                   env=worker_env(jobs))


def next_batch_size(current: int, records: Sequence[dict], remaining: int, jobs: int) -> int:
    """The size of the next loky batch: :data:`TARGET_BATCH_S` over the mean time of the tasks
    just done (their ``elapsed_s``), at most twice ``current`` and :data:`MAX_BATCH_TASKS`, and
    small enough that the ``remaining`` tasks still fill every worker."""
    times = [r.get("elapsed_s") for r in records if isinstance(r, dict)]
    times = [t for t in times if isinstance(t, float) and math.isfinite(t)]
    per_task = max(sum(times) / len(times), 1e-6) if times else TARGET_BATCH_S
    ideal = int(TARGET_BATCH_S / per_task)
    fair = max(1, remaining // (IN_FLIGHT_PER_WORKER * jobs))
    return max(1, min(ideal, 2 * current, MAX_BATCH_TASKS, fair))


def run_loky(pending: Sequence[Task], on_record: OnRecord, *, jobs: int, where: str) -> None:
    """Run tasks on a loky process pool of ``jobs`` workers that die with this process, in
    batches (:func:`next_batch_size`)."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from joblib.externals.loky import BrokenProcessPool

    jobs = max(1, jobs if _KEPT_POOLS is not None else min(jobs, len(pending)))
    executor = _loky_pool(jobs)
    in_flight: dict = {}
    todo = iter(pending)
    state = {"size": 1, "left": len(pending), "serial": 0}
    clean = False

    def fill():
        while len(in_flight) < IN_FLIGHT_PER_WORKER * jobs:
            batch = list(itertools.islice(todo, state["size"]))
            if not batch:
                return
            state["left"] -= len(batch)
            state["serial"] += 1
            with sigint_blocked():  # a submit may start worker processes
                future = executor.submit(execute_batch, [t.as_dict() for t in batch])
            in_flight[future] = (state["serial"], batch)

    def records_of(fut) -> list[dict]:
        return list(fut.result())

    try:
        fill()
        while in_flight:
            done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=lambda f: in_flight[f][0]):
                _, batch = in_flight[fut]
                try:
                    records = records_of(fut)
                except BrokenProcessPool as exc:
                    raise StudyError(
                        f"{where}: a worker process died while running tasks ({exc}). The "
                        "finished tasks are saved; run `bipartite study resume` on the folder "
                        "to run the rest (a task that kills its worker every time, e.g. by "
                        "running out of memory, needs fewer --jobs or more memory).") from None
                except Exception as exc:  # noqa: BLE001 - e.g. a result that cannot travel
                    records = [failed_record(task, exc) for task in batch]
                del in_flight[fut]
                for record in records:
                    on_record(record)
                state["size"] = next_batch_size(state["size"], records, state["left"], jobs)
            fill()
        clean = True
    except (KeyboardInterrupt, StudyTerminated):
        save_finished(in_flight, on_record,
                      lambda f: f.done() and not f.cancelled() and f.exception() is None,
                      batches=True)
        raise
    finally:
        if clean and _KEPT_POOLS is not None:
            _KEPT_POOLS[jobs] = executor
        else:
            executor.shutdown(wait=True, kill_workers=not clean)


def _scheduler_hint(scheduler: str, where: str) -> str:
    return (f"Is `dask scheduler` running at {scheduler} and reachable from this machine? To "
            f"go on without it, run the study locally: `bipartite study resume {where} "
            "--backend loky` (or give a running scheduler with --scheduler ADDRESS).")


def probe_scheduler(scheduler: str, timeout: float, where: str) -> None:
    """Open (and close) a TCP connection to a ``tcp://host:port`` (or ``host:port``) scheduler
    address within ``timeout`` seconds; a refused or unreachable address raises
    :class:`~bipartite.studies.StudyError` at once, with the hint to run locally. Other
    protocols (tls, ucx, inproc) are left to the dask client."""
    import socket
    from urllib.parse import urlsplit

    address = scheduler if "://" in scheduler else f"tcp://{scheduler}"
    parts = urlsplit(address)
    if parts.scheme != "tcp":
        return
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host or port is None:
        raise StudyError(f"{where}: the dask scheduler address {scheduler!r} has no host and "
                         "port (e.g. tcp://10.0.0.5:8786).")
    try:  # a connect-only probe: opening the TCP connection is the whole check
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise StudyError(f"{where}: cannot reach the dask scheduler {scheduler!r}: {reason}. "
                         f"{_scheduler_hint(scheduler, where)}") from None


def dask_key(study_token: str, task_key: str) -> str:
    """The dask key of a task: ``bipartite-<study token>-<task key>``, unique to the study
    (:func:`~bipartite.studies.tasks.study_token`), so studies sharing a scheduler never
    exchange results."""
    return f"bipartite-{study_token}-{task_key}"


#: Seconds a batch of finished dask futures waits for more to finish before its results are
#: gathered (one round trip for many results; records are written in batches anyway).
DASK_GATHER_WAIT_S = 0.05


def _next_batch(done, size: int) -> list:
    """The futures finished so far (at least one: blocks for it), and those finishing within
    :data:`DASK_GATHER_WAIT_S` after it, up to about ``size``."""
    batch = list(done.next_batch(block=True))
    deadline = time.monotonic() + DASK_GATHER_WAIT_S
    while len(batch) < size and time.monotonic() < deadline and not done.is_empty():
        more = done.next_batch(block=False)
        if more:
            batch.extend(more)
        else:
            time.sleep(0.002)
    return batch


def run_dask(pending: Sequence[Task], on_record: OnRecord, *, jobs: int, scheduler: str | None,
             scheduler_timeout: float, cluster_kwargs: Mapping, where: str,
             study_token: str = "study") -> None:
    """Run tasks on dask: the scheduler at ``scheduler`` (reached within ``scheduler_timeout``
    seconds; an address that refuses connections fails at once) or a ``LocalCluster`` of
    ``jobs`` worker processes. Task keys are :func:`dask_key`."""
    from concurrent.futures import CancelledError

    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        probe_scheduler(scheduler, min(scheduler_timeout, SCHEDULER_PROBE_S), where)
        try:
            client = Client(scheduler, timeout=scheduler_timeout)
        except (OSError, TimeoutError, ValueError) as exc:
            raise StudyError(
                f"{where}: cannot reach the dask scheduler {scheduler!r} within "
                f"{scheduler_timeout:g} s ({exc}). {_scheduler_hint(scheduler, where)} (The "
                "wait is the scheduler_timeout parameter.)") from None
    else:
        kwargs = {"n_workers": jobs, "threads_per_worker": 1, "dashboard_address": None,
                  "processes": True, **dict(cluster_kwargs)}
        with sigint_blocked():  # its worker processes start with SIGINT blocked
            cluster = LocalCluster(**kwargs)
        client = Client(cluster)
    futures: dict = {}
    clean = False
    todo = iter(pending)
    done_so_far = as_completed()
    try:
        threads = sum(client.nthreads().values()) or jobs
        window = max(DASK_MIN_WINDOW, DASK_IN_FLIGHT_PER_THREAD * threads)

        def submit_more() -> None:
            chunk = list(itertools.islice(todo, window - len(futures)))
            if chunk:
                new = client.map(execute_task, [t.as_dict() for t in chunk],
                                 key=[dask_key(study_token, t.key) for t in chunk], pure=False)
                futures.update(zip(new, chunk, strict=True))
                done_so_far.update(new)

        submit_more()
        while not done_so_far.is_empty():
            batch = _next_batch(done_so_far, max(1, window // 4))
            if any(f.cancelled() for f in batch):  # the scheduler went away: fail at once
                lost = scheduler or "the LocalCluster's scheduler"
                raise StudyError(
                    f"{where}: lost the dask scheduler {lost} during the run (tasks were "
                    f"cancelled); the finished tasks are saved. {_scheduler_hint(lost, where)}")
            finished = [f for f in batch if f.status == "finished"]
            try:  # one round trip for the batch's results
                results = dict(zip(finished, client.gather(finished), strict=True))
            except Exception:  # noqa: BLE001 - a result lost meanwhile: one at a time below
                results = {}
            for fut in batch:
                task = futures.pop(fut)
                if fut in results:
                    record = results[fut]
                else:
                    try:
                        record = fut.result()
                    except CancelledError as exc:  # the scheduler went away: the task never ran
                        lost = scheduler or "the LocalCluster's scheduler"
                        raise StudyError(
                            f"{where}: lost the dask scheduler {lost} during the run "
                            f"({str(exc).splitlines()[0] or 'cancelled'}); the finished tasks "
                            f"are saved. {_scheduler_hint(lost, where)}") from None
                    except Exception as exc:  # noqa: BLE001 - a lost worker fails this task
                        record = failed_record(task, exc)
                on_record(record)
            if len(futures) <= window // 2:
                submit_more()
        clean = True
    except (KeyboardInterrupt, StudyTerminated):
        save_finished(futures, on_record, lambda f: f.status == "finished")
        raise
    finally:
        if not clean:
            with contextlib.suppress(Exception):
                client.cancel(list(futures))
        client.close()
        if cluster is not None:
            cluster.close()
