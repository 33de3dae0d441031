"""Memory out of core (issue 35, R4-2 and R4-3): a per-worker floor refused up front naming the
smallest ``--memory-limit`` that works, a watchdog that stops a run whose paused workers make no
progress, and a killed worker reported as one line naming the limit and the fix
(:mod:`bipartite.diagnostics._dask_wait`; docs/out_of_core.md)."""

from __future__ import annotations

import re
import time

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


def test_memory_floor_is_the_documented_formula():
    """Claim: the floor is (max(idle, IDLE_BYTES) + rows × BYTES_PER_CELL × (columns +
    PAIR_CELLS × pairs) + queries × BYTES_PER_QUERY_CELL × pairs × (scorers + 1)) / pause: the
    idle part alone for no rows, linear in the rows and in the queries."""
    f, w = dask_wait.memory_floor, dask_wait
    assert f(0, 4, 1, 0.0, 0.8) == pytest.approx(w.IDLE_BYTES / 0.8)
    assert f(0, 4, 1, 2.0 * w.IDLE_BYTES, 0.8) == pytest.approx(2 * w.IDLE_BYTES / 0.8)
    rows = f(10**5, 6, 3, 0.0, 1.0, n_scores=2) - w.IDLE_BYTES
    assert rows == pytest.approx(10**5 * w.BYTES_PER_CELL * (6 + w.PAIR_CELLS * 3))
    assert f(2 * 10**5, 6, 3, 0.0, 1.0, n_scores=2) - w.IDLE_BYTES == pytest.approx(2 * rows)
    queries = f(10**5, 6, 3, 0.0, 1.0, n_scores=2, n_queries=1000) - w.IDLE_BYTES - rows
    assert queries == pytest.approx(1000 * w.BYTES_PER_QUERY_CELL * 3 * 3)


def test_the_floor_covers_every_measured_peak():
    """Claim: for every data shape measured by benchmarks/calibrate_ooc_memory.py (a fresh
    worker's peak resident memory, recorded in benchmarks/results/ooc_memory_floor.json), the
    floor's memory before the pause threshold (pause = 1) is at least the measured peak, and
    within a factor 1.5 of it (the floor is not so loose that it refuses what runs)."""
    import json
    from pathlib import Path

    path = Path(__file__).parents[1] / "benchmarks" / "results" / "ooc_memory_floor.json"
    shapes = json.loads(path.read_text())["shapes"]
    assert len(shapes) >= 10
    for r in shapes:
        floor = dask_wait.memory_floor(r["rows_per_piece"], r["columns"], r["pairs"], 0.0, 1.0,
                                       n_scores=r["scorers"], n_queries=r["queries"])
        assert r["peak_bytes"] <= floor <= 1.5 * r["peak_bytes"], r


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


@pytest.mark.slow  # its cluster takes 29 s to tear down at load 2
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


#: A pass-2 kernel that grows its worker's memory (touched pages) until the nanny kills the
#: worker past 95% of its limit; it raises if it is still alive at $OOM_CAP_BYTES.
OOM_KERNEL = """
import os
import time

import numpy as np


def bucket_mass(part, *args, **kwargs):
    cap, held, total = int(os.environ["OOM_CAP_BYTES"]), [], 0
    while total < cap:
        held.append(np.ones(32 * 2**20 // 8))
        total += held[-1].nbytes
        time.sleep(0.01)
    raise RuntimeError(f"the worker is still alive after {total} bytes: no nanny killed it")
"""

#: The CLI with pass 2's kernel swapped for OOM_KERNEL's (the workers import it by name from
#: PYTHONPATH); the guard: the local cluster's workers are spawned processes.
OOM_DRIVER = """
import sys

if __name__ == "__main__":
    import oom_kernel

    import bipartite.diagnostics._dask_passes as passes

    passes.bucket_mass = oom_kernel.bucket_mass
    from bipartite.cli import main

    sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_real_killed_worker_is_one_line_naming_the_limit(folder, tmp_path):
    """Claim: a worker really killed by its nanny for passing its memory limit (dask's own
    ``KilledWorker``, one allowed failure less than the default: none) ends the CLI with exit
    2 and one error line naming the memory limit and the fix; no traceback, no worker log."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import bipartite

    (tmp_path / "oom_kernel.py").write_text(OOM_KERNEL)
    (tmp_path / "drive.py").write_text(OOM_DRIVER)
    limit = 700 * 2**20
    root = str(Path(bipartite.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, str(tmp_path)]),
           "OOM_CAP_BYTES": str(4 * limit), "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}
    done = subprocess.run(
        [sys.executable, str(tmp_path / "drive.py"), "report", str(folder), "--score", "s",
         "--label", "y", "--qid", "q", "--no-progress", "--workers", "1", "--memory-limit",
         "700MiB"], env=env, capture_output=True, text=True, timeout=300)
    err = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert done.returncode == 2, done.stderr
    assert len(err) == 1 and err[0].startswith("bipartite report: error: "), done.stderr
    assert "KilledWorker" in err[0] and "memory limit 700MiB a worker" in err[0], err[0]
    assert "Give the workers more memory (--memory-limit)" in err[0], err[0]


def test_cli_refuses_a_small_memory_limit_in_one_line(folder, capsys):
    code = main(["report", str(folder), "--score", "s", "--label", "y", "--qid", "q",
                 "--no-progress", "--workers", "1", "--memory-limit", "30MB"])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("bipartite report: error: ")]
    assert code == 2 and len(lines) == 1 and "--memory-limit" in lines[0], err
    assert "Traceback" not in err
