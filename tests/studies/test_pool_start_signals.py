"""A signal while the loky pool starts (issue 35, "workers stay quiet after a signal"): Ctrl-C
(SIGINT to the process group) or SIGTERM (to the driver, or to the whole group as a service
manager sends it) at a few offsets after the first worker process of `bipartite study run
--jobs 2` appears. The driver prints its one message and exits 130 / 143; no worker prints a
traceback or anything else after it (bipartite/studies/execution.py: workers start with SIGINT
blocked, then ignore it; SIGTERM ends them without output). Checked to fail when the workers
neither start with SIGINT blocked nor ignore it: a worker then prints "Fatal Python error:
init_import_site" and its traceback after the driver's message."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bipartite
from tests.studies.test_faults import alive

psutil = pytest.importorskip("psutil")
pytest.importorskip("joblib")

CONFIG = """
[study]
name = "signals"
function = "demo.binormal_auc"
seed = 1
replicates = 50

[params]
prior = 0.3

[grid]
shift = [0.0, 1.0]
n = [20000, 40000]
"""

ROOT = Path(bipartite.__file__).parents[1]


def first_worker(proc: subprocess.Popen, timeout: float = 60.0) -> bool:
    """Wait until the driver has started a worker process (not the resource tracker)."""
    driver = psutil.Process(proc.pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(psutil.Error):
            if any("resource_tracker" not in " ".join(c.cmdline())
                   for c in driver.children(recursive=True)):
                return True
        time.sleep(0.003)
    return False


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX process groups")
@pytest.mark.parametrize(("sig", "group", "rc", "message"), [
    (signal.SIGINT, True, 130, "interrupted; finished tasks are saved"),
    (signal.SIGTERM, False, 143, "terminated; finished tasks are saved"),
    (signal.SIGTERM, True, 143, "terminated; finished tasks are saved")],
    ids=["SIGINT-group", "SIGTERM-driver", "SIGTERM-group"])
def test_a_signal_while_the_pool_starts_leaves_one_line(tmp_path, sig, group, rc, message):
    """Claim: for a signal at 0, 0.03 and 0.3 s after the first worker process appears (the
    workers are still importing), stderr holds exactly the driver's message, with the exit
    status of the signal, and no worker outlives the driver."""
    cfg = tmp_path / "signals.toml"
    cfg.write_text(CONFIG)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    for i, offset in enumerate((0.0, 0.03, 0.3)):
        err_path = tmp_path / f"err-{i}.txt"
        with open(err_path, "w") as fe:
            proc = subprocess.Popen(
                [sys.executable, "-m", "bipartite", "study", "run", str(cfg), "--out",
                 str(tmp_path / f"run-{i}"), "--jobs", "2", "--no-progress"],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=fe,
                start_new_session=True)
        seen = []
        try:
            assert first_worker(proc), "no worker process started"
            with contextlib.suppress(psutil.Error):
                seen = psutil.Process(proc.pid).children(recursive=True)
            time.sleep(offset)
            with contextlib.suppress(ProcessLookupError):
                (os.killpg if group else os.kill)(proc.pid, sig)
            code = proc.wait(timeout=120)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        deadline = time.monotonic() + 10  # what a worker would print comes after the driver
        while time.monotonic() < deadline and alive(seen):
            time.sleep(0.05)
        assert not alive(seen), (offset, [p.pid for p in alive(seen)])
        lines = [ln for ln in err_path.read_text().splitlines() if ln.strip()]
        if code == 0:  # the study finished before the signal: nothing to check
            continue
        assert code == rc, (offset, code, lines)
        assert len(lines) == 1 and lines[0].startswith(message), (offset, lines)


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="POSIX threads")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_to_another_thread_waits_for_the_end_of_the_start(sig):
    """Claim: a SIGINT or SIGTERM that the kernel delivers to another thread of the driver (as
    it may to loky's threads) while workers start (``sigint_blocked``) runs its handler only
    when the block ends: the body finishes, then KeyboardInterrupt, or StudyTerminated under
    ``sigterm_raises``, is raised. Without the hold, the handler ran inside the block, in the
    middle of loky's launch of a worker (a traceback and exit status 1)."""
    import threading

    from bipartite.studies import StudyTerminated
    from bipartite.studies.execution import sigint_blocked, sigterm_raises

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    finished = []
    expected = KeyboardInterrupt if sig == signal.SIGINT else StudyTerminated
    try:
        with pytest.raises(expected), sigterm_raises(), sigint_blocked():
            signal.pthread_kill(other.ident, sig)
            for _ in range(200):  # bytecode boundaries: a handler not held back runs here
                time.sleep(0.002)
            finished.append(True)
    finally:
        stop.set()
        other.join()
    assert finished == [True]
