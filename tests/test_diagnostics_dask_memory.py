"""Memory out of core (issue 35, R4-2 and R4-3): a per-worker floor refused up front naming the
smallest ``--memory-limit`` that works, a watchdog that stops a run whose paused workers make no
progress, and a killed worker reported as one line naming the limit and the fix
(:mod:`bipartite.diagnostics._dask_wait`; docs/out_of_core.md)."""

from __future__ import annotations

import re
import time
import types

import numpy as np
import pandas as pd
import pytest

import bipartite.diagnostics._dask_wait as dask_wait
from bipartite.cli import main
from bipartite.diagnostics import placement_stats

distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(0)
    n = 4000
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({"s": y + rng.normal(size=n), "y": y, "q": rng.integers(0, 40, n)})
    df.iloc[: n // 2].to_parquet(tmp_path / "a.parquet")
    df.iloc[n // 2:].to_parquet(tmp_path / "b.parquet")
    return tmp_path


@pytest.fixture
def client_of():
    clients = []

    def make(limit):
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                           memory_limit=limit, dashboard_address=None)
        client = distributed.Client(cluster, set_as_default=False)
        clients.append((client, cluster))
        return client

    yield make
    for client, cluster in clients:
        client.close()
        cluster.close()


def test_memory_floor_grows_with_the_piece_and_the_pairs():
    """The floor is (idle + working set) / pause, the working set linear in the rows and in
    the columns plus pairs."""
    f = dask_wait.memory_floor
    assert f(0, 4, 1, 100e6, 0.8) == pytest.approx(100e6 / 0.8)
    assert f(2 * 10**5, 4, 1, 0, 0.8) == pytest.approx(2 * f(10**5, 4, 1, 0, 0.8))
    assert f(10**5, 4, 3, 0, 0.8) > f(10**5, 4, 1, 0, 0.8)


def test_a_limit_below_the_floor_is_refused_naming_one_that_works(folder, client_of):
    """Claim: a worker limit below the floor is refused before any pass, and the limit the
    message names passes the same check."""
    client = client_of("20MB")  # below any worker's idle memory
    t = time.monotonic()
    with pytest.raises(dask_wait.MemoryStall, match=r"--memory-limit (\d+)MiB for 1 worker") as e:
        placement_stats(str(folder), "s", "y", qid="q", scheduler=client)
    assert time.monotonic() - t < 30
    named = int(re.search(r"--memory-limit (\d+)MiB", str(e.value)).group(1))
    ok = client_of(f"{named + 50}MiB")  # the named limit (and the idle memory measured again)
    placement_stats(str(folder), "s", "y", qid="q", scheduler=ok)


def test_watchdog_stops_a_paused_run(client_of, monkeypatch):
    """Claim: with a worker paused and no task changing state, the wait stops after
    STALL_SECONDS with a MemoryStall naming the limit (the scheduler's state is simulated: a
    paused worker holding the only runnable task)."""
    import dask

    client = client_of("2GB")
    monkeypatch.setattr(dask_wait, "STALL_SECONDS", 1.0)
    monkeypatch.setattr(dask_wait, "POLL_SECONDS", 0.2)
    monkeypatch.setattr(dask_wait, "_scheduler_state", lambda dask_scheduler: {
        "left": 1, "counter": 7, "paused": 1, "workers": 1, "limit": 2 * 10**9})
    fut = client.compute(dask.delayed(time.sleep)(30))
    t = time.monotonic()
    with pytest.raises(dask_wait.MemoryStall, match=r"1 of 1 paused .*memory limit 1908MiB"):
        dask_wait.wait(client, [fut], "pass", False)
    assert time.monotonic() - t < 10


def test_killed_worker_is_one_line_naming_the_limit(client_of):
    """``KilledWorker`` from a task becomes the package's one-line MemoryStall."""
    from distributed.scheduler import KilledWorker

    from bipartite.diagnostics._dask_io import compute

    client = client_of("1GB")

    def die():
        raise KilledWorker("task-x", types.SimpleNamespace(address="tcp://127.0.0.1:1"), 3)

    import dask

    with pytest.raises(dask_wait.MemoryStall) as e:
        compute(client, dask.delayed(die)(), where="data")
    msg = str(e.value)
    assert "\n" not in msg and "memory limit 954MiB a worker" in msg and "--memory-limit" in msg


def test_cli_refuses_a_small_memory_limit_in_one_line(folder, capsys):
    code = main(["report", str(folder), "--score", "s", "--label", "y", "--qid", "q",
                 "--no-progress", "--workers", "1", "--memory-limit", "30MB"])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("bipartite report: error: ")]
    assert code == 2 and len(lines) == 1 and "--memory-limit" in lines[0], err
    assert "Traceback" not in err
