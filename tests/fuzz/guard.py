"""Run one call in a forked worker under a time guard and a memory guard, and classify it.

Every fuzz call goes through :func:`run_guarded`: the worker is ``fork``-ed from the test process
(so nothing needs pickling and start-up is milliseconds), caps its address space with
``resource.setrlimit(RLIMIT_AS, ...)`` at its current size plus ``MEMORY_HEADROOM``, and sends back
what happened through a pipe. A worker that does not answer within ``timeout`` seconds is killed:
a hang or a memory blow-up fails the test instead of stalling CI.

Outcome classes (the census table of the reliability issue):

- ``clean``: a ``ValueError``/``TypeError`` whose message names the argument;
- ``nan``: the documented NaN with an ``UndefinedMetricWarning``;
- ``unclear``: any other exception, or a ``ValueError``/``TypeError`` that does not name it;
- ``silent``: a value came back without an error (for a bad input: a silent wrong answer);
- ``hang``: past the time limit, ``MemoryError``, or the worker died (memory cap, signal).
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import re
import resource
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

OUTCOMES = ("clean", "nan", "unclear", "silent", "hang")
#: Seconds one fuzz call may take before it counts as a hang.
TIMEOUT = float(os.environ.get("BIPARTITE_FUZZ_TIMEOUT", "20"))
#: Address space a worker may add to what it already maps (torch maps a lot up front).
MEMORY_HEADROOM = int(os.environ.get("BIPARTITE_FUZZ_MEMORY", str(3 * 2**30)))


@dataclass(frozen=True)
class Result:
    outcome: str
    kind: str  # exception type name, "value" or "timeout"
    message: str


def _vm_size() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _is_nan_value(value: Any) -> bool:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return arr.size > 0 and bool(np.isnan(arr).any())


def _outcome(call: Callable[[], Any]) -> tuple[str, str, str]:
    """Run one call (in the worker) -> (kind, what, message) for :func:`_classify`."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = call()
            if hasattr(value, "__next__"):  # a generator: run it (bounded) so its checks fire
                for _, _ in zip(range(10_000), value, strict=False):
                    pass
        undefined = any(w.category.__name__ == "UndefinedMetricWarning" for w in caught)
        if isinstance(value, dict):
            nan = any(_is_nan_value(v) for v in value.values())
        else:
            nan = _is_nan_value(value)
        return ("value", "nan" if (nan and undefined) else "value", "")
    except MemoryError:
        return ("MemoryError", "hang", "MemoryError")
    except BaseException as exc:  # noqa: BLE001 - classified by the parent
        msg = str(exc)
        if not msg:
            msg = traceback.format_exc(limit=2)
        return (type(exc).__name__, "error", msg[:2000]
                + f" [{'ValueError' if isinstance(exc, ValueError) else ''}"
                f"{'TypeError' if isinstance(exc, TypeError) else ''}]")


def _child(calls: list[Callable[[], Any]], conn, headroom: int) -> None:
    """Worker: cap the address space, run the calls one by one, send each outcome as it ends."""
    import sys

    if "torch" in sys.modules:  # the parent's OpenMP pool is unusable after fork: one thread
        sys.modules["torch"].set_num_threads(1)
    if "highspy" in sys.modules:  # HiGHS's thread scheduler, too: its threads did not survive
        sys.modules["highspy"].Highs.resetGlobalScheduler(False)
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = _vm_size() + headroom
        if hard == resource.RLIM_INFINITY or cap < hard:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):
        pass
    try:
        for call in calls:
            conn.send(_outcome(call))
    finally:
        conn.close()


def names_argument(message: str, names: tuple[str, ...]) -> bool:
    """The message names one of ``names``: quoted (``'a'``, the package's convention) for a name
    of at most two characters, which as a bare word would match ordinary text ("a", "(n, K)");
    longer names as a word, usually quoted."""
    def named(n: str) -> bool:
        if len(n) <= 2:
            return f"'{n}'" in message
        return re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", message) is not None
    return any(named(n) for n in names)


def run_guarded(call: Callable[[], Any], names: tuple[str, ...] = (),
                timeout: float = TIMEOUT, headroom: int = MEMORY_HEADROOM) -> Result:
    """Run ``call()`` in a forked worker whose address space may grow by ``headroom`` bytes;
    classify the outcome for argument(s) ``names`` (empty: a valid call, where any error is
    ``unclear``)."""
    return run_guarded_batch([call], names, timeout=timeout, headroom=headroom)[0]


def run_guarded_batch(calls: list[Callable[[], Any]], names: tuple[str, ...] = (),
                      timeout: float = TIMEOUT, headroom: int = MEMORY_HEADROOM) -> list[Result]:
    """:func:`run_guarded` for several calls in one forked worker (one fork instead of one per
    call), each under its own ``timeout``. A call that hangs or kills the worker is a ``hang``,
    and so is every call after it (they did not run)."""
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(calls, send, headroom), daemon=True)
    proc.start()
    send.close()
    results: list[Result] = []
    while len(results) < len(calls):
        got = None
        if recv.poll(timeout):
            try:
                got = recv.recv()
            except EOFError:
                got = None
        if got is None:
            break
        results.append(_classify(got, names))
    proc.join(timeout=0 if len(results) < len(calls) else 5)
    if proc.is_alive():
        proc.kill()
        proc.join()
    if len(results) < len(calls):
        died = proc.exitcode not in (None, 0) and proc.exitcode != -9
        why = (Result("hang", f"exit {proc.exitcode}", "worker died (memory cap or signal)")
               if died else Result("hang", "timeout", f"no answer within {timeout:g} s"))
        results += [why] * (len(calls) - len(results))
    return results


def _classify(got: tuple[str, str, str], names: tuple[str, ...]) -> Result:
    kind, what, msg = got
    if what == "hang":
        return Result("hang", kind, msg)
    if kind == "value":
        return Result("nan" if what == "nan" else "silent", "value", "")
    is_value_or_type = msg.endswith(("[ValueError]", "[TypeError]", "[ValueErrorTypeError]"))
    if is_value_or_type and names and names_argument(msg, names):
        return Result("clean", kind, msg)
    return Result("unclear", kind, msg)


def finite_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)
