"""Fault injection for the study runner: kill -9 at seeded random points, SIGTERM, Ctrl-C, two
and three concurrent runs, corrupted records, a full disk, unusable output folders, a damaged
manifest, bad names, oversized grids and an unreachable scheduler.

After each fault the checks are the runner's guarantees: no finished task is lost, none is run
twice, the results after resume are byte-identical (``results.csv`` and ``results.parquet``) to
an uninterrupted run, and no process started by a killed driver outlives it (``psutil``
snapshots of the driver's descendants while it runs). Every test kills what it started in a
``finally`` block. Set ``BIPARTITE_FAULT_REPORT=path.jsonl`` to record one line per trial (the
fault table of the closing note is built from it). The table goes on in
``test_faults_completeness.py`` (studies sharing a dask scheduler, the completeness check,
checksums, 0.3.0 folders, a read-only ``tasks/``, Ctrl-C while workers start, a lost scheduler).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pytest
from segment_reader import damaged_lines, ok_records, parse, segments, whole_lines

from bipartite.studies import (
    ConfigError,
    CorruptTaskFileWarning,
    StudyError,
    StudyIOError,
    StudyLock,
    StudyLockedError,
    collect_results,
    resume_study,
    run_study,
    study_status,
)
from bipartite.studies import execution as execution_module
from bipartite.studies import files as files_module
from bipartite.studies import records as records_module

N_TASKS = 24
SLEEP_S = 0.25  # per task in the subprocess drivers (tasks are instant in this process)
ORPHAN_WAIT_S = 20.0

STUDY_MODULE = '''
import os
import time

import numpy as np


def work(*, seed: int, x: int) -> dict:
    """A slow-enough deterministic task; appends one line per execution to $FAULT_LOG. With
    $FAULT_GATE, a task with x >= $FAULT_GATE_FROM waits (up to 30 s) for that file to exist."""
    delay = float(os.environ.get("FAULT_SLEEP", "0"))
    if delay:
        time.sleep(delay)
    gate = os.environ.get("FAULT_GATE")
    if gate and x >= int(os.environ.get("FAULT_GATE_FROM", "0")):
        deadline = time.monotonic() + 30
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.01)
    rng = np.random.default_rng(seed)
    row = {"y": float(rng.normal()) + x, "z": int(rng.integers(1000))}
    log = os.environ.get("FAULT_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(f"{x} {seed}\\n")
    return row
'''

DRIVER = '''
import json
import sys

from bipartite.studies import StudyError, run_study


def main():
    cfg, out, jobs, lock_timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    try:
        res = run_study(json.loads(cfg), out, jobs=jobs, progress=False,
                        lock_timeout=None if lock_timeout == "wait" else float(lock_timeout))
    except StudyError as exc:  # what the CLI does: a clear message, exit status 2
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    print(json.dumps({"n_run": res.n_run, "n_skipped": res.n_skipped}))


if __name__ == "__main__":  # (dask's LocalCluster imports this file in its processes)
    main()
'''


def config(name: str = "faults", backend: str = "loky") -> dict:
    return {"study": {"function": "faultstudy:work", "name": name, "seed": 11, "replicates": 2},
            "grid": {"x": list(range(N_TASKS // 2))}, "execution": {"backend": backend}}


@pytest.fixture(scope="module")
def helpers(tmp_path_factory):
    """The study module and driver script (importable here, in drivers and in workers)."""
    folder = tmp_path_factory.mktemp("faultstudy")
    (folder / "faultstudy.py").write_text(STUDY_MODULE)
    (folder / "driver.py").write_text(DRIVER)
    sys.path.insert(0, str(folder))
    try:
        yield folder
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("faultstudy", None)


@pytest.fixture(scope="module")
def reference(helpers, tmp_path_factory):
    """Bytes of results.csv / results.parquet of an uninterrupted run."""
    out = tmp_path_factory.mktemp("reference") / "ref"
    res = run_study(config(), out, jobs=1, progress=False)
    assert res.ok and res.n_run == N_TASKS
    return {name: (out / name).read_bytes() for name in ("results.csv", "results.parquet")}


def report(scenario: str, **stats) -> None:
    path = os.environ.get("BIPARTITE_FAULT_REPORT")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"scenario": scenario, **stats}) + "\n")


def ok_files(out: Path) -> dict[str, bytes]:
    """The record line of each finished task, by key (read by the tests' own reader)."""
    return ok_records(out)


def same_results(out: Path, reference: dict) -> bool:
    return all((out / name).read_bytes() == data for name, data in reference.items())


def alive(procs) -> list[psutil.Process]:
    live = []
    for p in procs:
        with contextlib.suppress(psutil.Error):
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                live.append(p)
    return live


def new_workers(before: set[int]) -> dict[int, psutil.Process]:
    """Children of this process started since ``before``, except the resource trackers (one per
    process, reused by every pool: they live as long as this process)."""
    found = {}
    for p in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if p.pid not in before and "resource_tracker" not in " ".join(p.cmdline()):
                found[p.pid] = p
    return found


def kill_all(procs) -> None:
    for p in alive(procs):
        with contextlib.suppress(psutil.Error):
            p.kill()


def wait_gone(procs, timeout: float = ORPHAN_WAIT_S) -> list[psutil.Process]:
    deadline = time.monotonic() + timeout
    while alive(procs) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive(procs)


class Driver:
    """A driver subprocess running the fault study, with a running snapshot of its
    descendants (every process it started, whatever it became)."""

    def __init__(self, helpers: Path, out: Path, *, jobs: int = 2, lock_timeout="0",
                 log: Path | None = None, cfg: dict | None = None):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(helpers), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
            "FAULT_SLEEP": str(SLEEP_S)}
        if log is not None:
            env["FAULT_LOG"] = str(log)
        # Output to files, not pipes: a pipe would stay open as long as any descendant lives.
        logs = out.parent / f"{out.name}-driver-{id(self)}"
        self.stdout_path, self.stderr_path = Path(f"{logs}.out"), Path(f"{logs}.err")
        with open(self.stdout_path, "w") as fo, open(self.stderr_path, "w") as fe:
            self.proc = subprocess.Popen(
                [sys.executable, str(helpers / "driver.py"), json.dumps(cfg or config()),
                 str(out), str(jobs), str(lock_timeout)], env=env, stdout=fo, stderr=fe,
                start_new_session=True)
        self.seen: dict[int, psutil.Process] = {}
        self.snapshot()

    def snapshot(self) -> None:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(self.proc.pid).children(recursive=True):
                self.seen.setdefault(child.pid, child)

    def wait_until(self, condition, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None and not condition():
            self.snapshot()
            time.sleep(0.02)
        self.snapshot()

    def sleep(self, seconds: float) -> None:
        self.wait_until(lambda: False, timeout=seconds)

    def finish(self, timeout: float = 120.0) -> tuple[int, str, str]:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self.snapshot()
            time.sleep(0.02)
        rc = self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        return rc, self.stdout_path.read_text(), self.stderr_path.read_text()

    def cleanup(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=30)
        kill_all(self.seen.values())


def n_ok(out: Path) -> int:
    return len(ok_files(out))


def interrupt_trial(helpers, reference, tmp_path, sig: int, seed: int,
                    backend: str = "loky", wait_for: int | None = None) -> dict:
    """Run the study in a driver with 2 workers, send ``sig`` at a seeded random point, then
    check the guarantees; return the trial's numbers."""
    rng = np.random.default_rng(seed)
    # kill -9 may land anywhere (even before the first task, or while the table is written);
    # SIGTERM / SIGINT once the runner is up (at least one task finished).
    drawn = int(rng.integers(0 if sig == signal.SIGKILL else 1, N_TASKS + 1))
    wait_for = drawn if wait_for is None else wait_for
    extra = float(rng.uniform(0.0, 2 * SLEEP_S))
    out = tmp_path / f"run-{seed}"
    driver = Driver(helpers, out, cfg=config(backend=backend))
    try:
        driver.wait_until(lambda: n_ok(out) >= wait_for)
        driver.sleep(extra)
        workers = len(driver.seen)
        if sig == signal.SIGINT:  # Ctrl-C in a terminal: the whole foreground process group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(driver.proc.pid, sig)
        else:
            with contextlib.suppress(ProcessLookupError):
                driver.proc.send_signal(sig)
        rc, _, err = driver.finish(timeout=60)
        orphans = wait_gone(driver.seen.values())
        finished = ok_files(out)  # the driver is dead: nothing changes any more
        partial = damaged_lines(out)  # whole lines that are not records (a torn tail is not)

        if (out / "manifest.json").is_file():
            res = resume_study(out, jobs=1, backend="loky", progress=False)
        else:
            res = run_study(config(backend=backend), out, jobs=1, backend="loky",
                            progress=False)
        after = ok_files(out)
        lost = sum(1 for name, data in finished.items() if after.get(name) != data)
        lost += N_TASKS - len(after)
        duplicated = max(0, res.n_run - (N_TASKS - len(finished))) + max(
            0, len(res.results) - res.results["task"].nunique())
        temp_left = [p.name for p in out.rglob(".*.tmp")]
        stats = {"signal": signal.Signals(sig).name, "backend": backend, "seed": seed, "rc": rc,
                 "finished_at_signal": len(finished), "wait_for": wait_for,
                 "processes_seen": workers, "orphans": len(orphans), "lost": lost,
                 "duplicated": duplicated, "identical": same_results(out, reference),
                 "partial_files": partial, "temp_files_left": len(temp_left)}
        report(f"{signal.Signals(sig).name} ({backend})", **stats)
    finally:
        driver.cleanup()
    expected = {{signal.SIGKILL: -signal.SIGKILL, signal.SIGTERM: 143, signal.SIGINT: 130}[sig]}
    if stats["finished_at_signal"] == N_TASKS:  # the signal may come after run_study returned
        expected |= {0, -sig}
    assert rc in expected, (rc, err)
    assert stats["orphans"] == 0, [p.cmdline() for p in orphans]
    assert (stats["lost"], stats["duplicated"], stats["partial_files"]) == (0, 0, 0), stats
    assert stats["identical"] and not temp_left, stats
    return stats


# ---------------------------------------------------------------------------------------------
# kill -9, SIGTERM, Ctrl-C of a driver with 2 loky workers
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_kill_9_at_random_points(helpers, reference, tmp_path, seed):
    interrupt_trial(helpers, reference, tmp_path, signal.SIGKILL, seed)


def test_sigterm_saves_stops_workers_and_exits_143(helpers, reference, tmp_path):
    stats = interrupt_trial(helpers, reference, tmp_path, signal.SIGTERM, 3)
    assert stats["processes_seen"] >= 2  # the workers (and resource trackers) were there


def test_ctrl_c_to_the_process_group(helpers, reference, tmp_path):
    interrupt_trial(helpers, reference, tmp_path, signal.SIGINT, 4)


@pytest.mark.slow
@pytest.mark.parametrize("sig, seeds", [(signal.SIGKILL, range(100, 110)),
                                        (signal.SIGTERM, range(200, 205)),
                                        (signal.SIGINT, range(300, 303))])
def test_many_interrupts(helpers, reference, tmp_path, sig, seeds):
    for seed in seeds:
        interrupt_trial(helpers, reference, tmp_path, sig, seed)


@pytest.mark.slow
def test_kill_9_while_the_results_table_is_written(helpers, reference, tmp_path):
    """kill -9 just after the last task file: while results.* are written (or just after)."""
    for seed in range(500, 503):
        interrupt_trial(helpers, reference, tmp_path, signal.SIGKILL, seed, wait_for=N_TASKS)


@pytest.mark.slow
@pytest.mark.parametrize("sig, seed", [(signal.SIGKILL, 400), (signal.SIGKILL, 401),
                                       (signal.SIGTERM, 402)])
def test_interrupts_on_a_dask_local_cluster(helpers, reference, tmp_path, sig, seed):
    interrupt_trial(helpers, reference, tmp_path, sig, seed, backend="dask")


def test_keyboard_interrupt_in_process_stops_workers(helpers, reference, tmp_path, monkeypatch):
    """Ctrl-C while this process drives 2 workers: the finished tasks are saved, the workers are
    killed, KeyboardInterrupt goes on; resume completes the study."""
    real = records_module.SegmentWriter.add
    state = {"n": 0, "raised": False}
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    seen: dict[int, psutil.Process] = {}

    def add_then_interrupt(self, line, record):
        seen.update(new_workers(before))
        state["n"] += 1
        if state["n"] == 6 and not state["raised"]:
            state["raised"] = True
            raise KeyboardInterrupt
        return real(self, line, record)

    monkeypatch.setattr(records_module.SegmentWriter, "add", add_then_interrupt)
    monkeypatch.setenv("FAULT_SLEEP", "0.05")
    try:
        with pytest.raises(KeyboardInterrupt):
            run_study(config(), tmp_path / "s", jobs=2, progress=False)
        orphans = wait_gone(seen.values(), timeout=10)
    finally:
        kill_all(seen.values())
    monkeypatch.setattr(records_module.SegmentWriter, "add", real)
    monkeypatch.delenv("FAULT_SLEEP")
    finished = ok_files(tmp_path / "s")
    res = resume_study(tmp_path / "s", progress=False)
    report("KeyboardInterrupt (in-process)", orphans=len(orphans), finished=len(finished),
           lost=sum(ok_files(tmp_path / "s").get(k) != v for k, v in finished.items()),
           duplicated=res.n_run - (N_TASKS - len(finished)),
           identical=same_results(tmp_path / "s", reference))
    assert len(seen) >= 2 and not orphans  # the 2 workers existed, and are gone
    # 5 buffered before the interrupt (flushed as the run stops), maybe a few drained
    assert 5 <= len(finished) < N_TASKS
    assert (res.n_skipped, res.n_run) == (len(finished), N_TASKS - len(finished))
    assert same_results(tmp_path / "s", reference)


# ---------------------------------------------------------------------------------------------
# Concurrent runs on one folder
# ---------------------------------------------------------------------------------------------


def test_second_run_fails_fast_or_waits(helpers, reference, tmp_path):
    out, log = tmp_path / "s", tmp_path / "executions.log"
    driver = Driver(helpers, out, log=log)
    try:
        driver.wait_until(lambda: n_ok(out) >= 2)
        with pytest.raises(StudyLockedError) as info:
            run_study(config(), out, progress=False)
        message = str(info.value)
        assert str(out) in message and f"pid {driver.proc.pid}" in message
        assert info.value.holder["pid"] == driver.proc.pid
        assert study_status(out)["running_pid"] == driver.proc.pid
        start = time.monotonic()
        res = run_study(config(), out, progress=False, lock_timeout=120)  # waits for the driver
        waited = time.monotonic() - start
        rc, _, err = driver.finish()
        orphans = wait_gone(driver.seen.values())
    finally:
        driver.cleanup()
    executions = log.read_text().splitlines()
    report("two concurrent runs", rc=rc, waited_s=round(waited, 2), n_run_second=res.n_run,
           executions=len(executions), duplicated=len(executions) - len(set(executions)),
           lost=N_TASKS - len(ok_files(out)), orphans=len(orphans),
           identical=same_results(out, reference))
    assert rc == 0, err
    assert res.n_run == 0 and res.n_skipped == N_TASKS
    assert sorted(executions) == sorted(set(executions)) and len(executions) == N_TASKS
    assert same_results(out, reference) and not orphans
    assert study_status(out)["running_pid"] is None


@pytest.mark.parametrize("lock_timeout", ["0", "wait"])
def test_three_simultaneous_starts(helpers, reference, tmp_path, lock_timeout):
    """Three drivers started together: with lock_timeout=0 the losers exit with a clear
    message (status 2); when waiting, the later ones find nothing left to do. Either way each
    task runs exactly once and no temporary file is shared or left behind."""
    out, log = tmp_path / "s", tmp_path / "executions.log"
    drivers = []
    try:
        drivers = [Driver(helpers, out, log=log, lock_timeout=lock_timeout) for _ in range(3)]
        results = [d.finish(timeout=180) for d in drivers]
        for d in drivers:
            d.snapshot()
        orphans = wait_gone([p for d in drivers for p in d.seen.values()])
    finally:
        for d in drivers:
            d.cleanup()
    executions = log.read_text().splitlines()
    codes = sorted(rc for rc, _, _ in results)
    n_runs = [json.loads(o)["n_run"] for rc, o, _ in results if rc == 0]
    report(f"three simultaneous starts (lock_timeout={lock_timeout})", exit_codes=codes,
           executions=len(executions), duplicated=len(executions) - len(set(executions)),
           lost=N_TASKS - len(ok_files(out)), orphans=len(orphans),
           identical=same_results(out, reference))
    for rc, _, err in results:
        assert rc in (0, 2), err
        if rc == 2:
            assert "is in use by another run (pid " in err and str(out) in err
            assert "Traceback" not in err
    if lock_timeout == "wait":
        assert codes == [0, 0, 0] and sum(n_runs) == N_TASKS
    assert codes[0] == 0
    assert len(executions) == N_TASKS and len(set(executions)) == N_TASKS
    assert same_results(out, reference) and not orphans
    assert not list(out.rglob(".*.tmp"))


# ---------------------------------------------------------------------------------------------
# Corrupted task files
# ---------------------------------------------------------------------------------------------


def _sealed_line(record: dict) -> bytes:
    """A record line with a correct checksum (for a forged or foreign record)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return b'{"checksum":"sha256:' + digest.encode() + b'","record":' + text.encode() + b"}\n"


def test_corrupted_records_are_moved_aside_and_rerun(helpers, reference, tmp_path):
    """Seven damaged lines in a segment: garbage, a line cut short, bytes that are not text,
    JSON of the wrong shape, another study's record (its seed) and a record of the wrong shape,
    both with a correct checksum, and a hand edit (checksum mismatch). Each is moved to
    quarantine/ with a warning, its task (when it can be told) counts as corrupt, and resume
    reruns exactly the seven tasks."""
    out = tmp_path / "s"
    run_study(config(), out, progress=False)
    (segment,) = segments(out)
    lines = whole_lines(segment)
    records = [parse(line) for line in lines]
    edited = json.loads(lines[7])
    edited["record"]["rows"][0]["y"] += 1.0
    damage = {
        1: b"garbage\n",                                       # not a record line
        2: lines[2][:40] + b"\n",                               # cut short
        3: b"\x00\xff garbage\n",                               # not text
        4: b"[1, 2, 3]\n",                                     # JSON of the wrong shape
        5: _sealed_line({**records[5], "seed": 1}),            # another study's record
        6: _sealed_line({**records[6], "rows": "x"}),          # wrong shape, right checksum
        7: (json.dumps(edited, separators=(",", ":")) + "\n").encode(),  # edited by hand
    }
    damaged_keys = {records[i]["key"] for i in damage}
    segment.write_bytes(b"".join(damage.get(i, line) for i, line in enumerate(lines)))

    status = study_status(out)
    assert (status["done"], status["corrupt"], status["unreadable"]) == (N_TASKS - 7, 3, 4)
    assert (status["pending"], status["complete"]) == (4, False)
    with pytest.warns(CorruptTaskFileWarning, match="corrupt task file"):
        df = collect_results(out, write=False)
    assert len(df) == N_TASKS - 7

    with pytest.warns(CorruptTaskFileWarning) as caught:
        res = resume_study(out, progress=False)
    messages = [str(w.message) for w in caught if w.category is CorruptTaskFileWarning]
    report("corrupted records in a segment", trials=1, corrupted=7, warnings=len(messages),
           rerun=res.n_run, lost=N_TASKS - len(ok_files(out)),
           duplicated=res.n_run - 7, identical=same_results(out, reference), orphans=0)
    assert len(messages) == 7 and all(m.startswith("quarantined the line ") and " are in "
                                      "quarantine/" in m for m in messages)
    # each says what runs: the 4 unreadable lines name no task, the 3 damaged records' tasks
    # have no other record and run again (issue 35)
    assert sum("its task cannot be read from it" in m for m in messages) == 4
    assert sum("has no valid record left and runs again" in m for m in messages) == 3
    assert "will be run again" not in " ".join(messages)
    joined = " ".join(messages)
    assert "bad frame" in joined and "checksum mismatch" in joined
    assert "seed 1, expected" in joined and "'rows' is not a list" in joined
    assert (res.n_skipped, res.n_run) == (N_TASKS - 7, 7)
    moved = sorted(p.name for p in (out / "quarantine").glob("*.corrupt-*"))
    assert len(moved) == 7 and all(m.startswith("segment-000001.jsonl.line") for m in moved)
    assert damaged_keys <= set(ok_files(out))
    assert [p.name for p in segments(out)] == ["segment-000002.jsonl",  # compacted
                                               "segment-000003.jsonl"]  # the 7 rerun
    assert damaged_lines(out) == 0 and same_results(out, reference)
    assert study_status(out)["done"] == N_TASKS


# ---------------------------------------------------------------------------------------------
# Disk full, unusable folders, damaged manifest
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EFBIG])
def test_disk_full_while_writing_the_results_table(helpers, reference, tmp_path, monkeypatch,
                                                   code):
    def full(self, path, *args, **kwargs):
        Path(path).write_bytes(b"PAR1 half")  # a partial write, then the error
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    out = tmp_path / "s"
    with pytest.raises(StudyIOError) as info:
        run_study(config(), out, progress=False)
    message = str(info.value)
    assert str(out / "results.parquet") in message and os.strerror(code) in message
    assert f"bipartite study resume {out}" in message and info.value.errno == code
    assert isinstance(info.value, OSError)
    assert len(ok_files(out)) == N_TASKS and not list(out.rglob(".*.tmp"))
    assert not (out / "results.parquet").exists()
    monkeypatch.undo()
    res = resume_study(out, progress=False)
    report(f"disk full ({errno.errorcode[code]}) writing the results table", lost=0,
           duplicated=res.n_run, identical=same_results(out, reference), orphans=0)
    assert res.n_run == 0 and same_results(out, reference)


def test_disk_full_while_writing_records_with_workers(helpers, reference, tmp_path,
                                                     monkeypatch):
    """ENOSPC on the 3rd batch of records with 2 workers: a clear error naming the segment, the
    workers are stopped, the records of the first 2 batches are kept (the half-written batch is
    cut off), and resume runs exactly the rest."""
    real = records_module.write_some
    state = {"n": 0, "saved": 0}

    def filling_disk(fd, data):
        seen.update(new_workers(before))
        state["n"] += 1
        if state["n"] >= 3:
            os.write(fd, bytes(data[:10]))  # a partial write, then the error
            raise OSError(errno.ENOSPC, "No space left on device")
        state["saved"] += bytes(data).count(b"\n")
        return real(fd, data)

    monkeypatch.setattr(records_module, "write_some", filling_disk)
    monkeypatch.setenv("FAULT_SLEEP", "0.05")  # several batches
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    seen: dict[int, psutil.Process] = {}
    out = tmp_path / "s"
    try:
        with pytest.raises(StudyIOError, match=r"tasks/segment-000001\.jsonl: No space left"):
            run_study(config(), out, jobs=2, progress=False)
        orphans = wait_gone(seen.values(), timeout=10)
    finally:
        kill_all(seen.values())
    monkeypatch.undo()
    finished = ok_files(out)
    assert (out / "tasks" / "segment-000001.jsonl").read_bytes().endswith(b"\n")  # cut back
    res = resume_study(out, progress=False)
    report("disk full (ENOSPC) writing records, 2 workers", finished=len(finished),
           lost=state["saved"] - len(finished), duplicated=res.n_run - (N_TASKS - len(finished)),
           identical=same_results(out, reference), orphans=len(orphans))
    assert len(seen) >= 2 and not orphans
    assert 2 <= len(finished) == state["saved"] < N_TASKS
    assert (res.n_skipped, res.n_run) == (len(finished), N_TASKS - len(finished))
    assert same_results(out, reference) and not list(out.rglob(".*.tmp"))


def test_unusable_output_folders(helpers, tmp_path, monkeypatch):
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a folder")
    with pytest.raises(StudyIOError, match=r"is below .*file\.txt, which is a file"):
        run_study(config(), blocker / "sub" / "s", progress=False)
    with pytest.raises(StudyIOError, match=r"file\.txt as a study folder: it is .*a file"):
        run_study(config(), blocker, progress=False)

    out = tmp_path / "s"
    out.mkdir()
    (out / "tasks").write_text("oops")
    with pytest.raises(StudyIOError, match=r"s/tasks is a file, not a folder: the study folder"):
        run_study(config(), out, progress=False)

    # No permission (simulated: the tests may run as root, which ignores file modes).
    real_mkdir = Path.mkdir

    def denied(self, *args, **kwargs):
        if self.name == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", denied)
    with pytest.raises(StudyIOError, match=r"cannot create .*locked: Permission denied "
                                           r"\[EACCES\]\. The folder is not writable"):
        run_study(config(), tmp_path / "locked", progress=False)
    report("unwritable output folder (below a file, tasks is a file, EACCES)", trials=4,
           lost=0, duplicated=0, orphans=0, clear_error=True)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root ignores file modes")
def test_read_only_output_folder(helpers, tmp_path):
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o500)
    try:
        with pytest.raises(StudyIOError, match="not writable"):
            run_study(config(), parent / "s", progress=False)
    finally:
        parent.chmod(0o700)


def test_damaged_manifest_is_a_clear_error(helpers, tmp_path):
    out = tmp_path / "s"
    run_study(config(), out, progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    for change, pattern in [
        (lambda m: m.pop("grid"), r"manifest\.json: the manifest has no key 'grid'"),
        (lambda m: m.update(replicates="x"), r"manifest key 'replicates' must be a non-empty"),
        (lambda m: m.update(name="../x"), r"manifest key 'name' must be a folder name"),
    ]:
        damaged = json.loads(json.dumps(manifest))
        change(damaged)
        (out / "manifest.json").write_text(json.dumps(damaged))
        for call in (resume_study, study_status):
            with pytest.raises(ConfigError, match=pattern) as info:
                call(out)
            assert str(out / "manifest.json") in str(info.value)
    (out / "manifest.json").write_text("[1, 2]")
    with pytest.raises(ConfigError, match="must be a JSON object"):
        resume_study(out)


# ---------------------------------------------------------------------------------------------
# Names, sizes, scheduler
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../../x", "/abs/x", "a/b", "..", ".", "", "a..b", ".hidden",
                                  "x" * 129, "sp ace", "a\\b"])
def test_study_names_that_are_not_folder_names_are_refused(helpers, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    cfg = config()
    cfg["study"]["name"] = name
    with pytest.raises(ConfigError, match=r"\[study\] key 'name' must be a folder name"):
        run_study(cfg, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_good_names_stay_under_results(helpers, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = config("mylab.sweep_2-b:v1")
    res = run_study(cfg, progress=False)
    assert res.study_dir == Path("results") / "mylab.sweep_2-b:v1"
    assert (tmp_path / "results" / "mylab.sweep_2-b:v1" / "manifest.json").is_file()


def test_task_limit_is_checked_before_expanding(helpers, tmp_path):
    big = {"study": {"function": "faultstudy:work", "name": "big", "replicates": 2000},
           "grid": {"x": list(range(1000))}}  # 2,000,000 tasks
    start = time.perf_counter()
    with pytest.raises(ConfigError, match=r"has 2,000,000 tasks .* above the limit of "
                                          r"1,000,000 \(MAX_TASKS\)"):
        run_study(big, tmp_path / "big", progress=False)
    assert time.perf_counter() - start < 30  # the config check itself, no task listed
    assert not (tmp_path / "big").exists()
    with pytest.raises(ConfigError, match=r"has 24 tasks .* above the limit of 20 "):
        run_study(config(), tmp_path / "s", progress=False, max_tasks=20)
    cfg = config()
    cfg["execution"] = {"max_tasks": 10}
    with pytest.raises(ConfigError, match=r"limit of 10 "):
        run_study(cfg, tmp_path / "s", progress=False)
    assert run_study(cfg, tmp_path / "s", progress=False, max_tasks=24).n_run == N_TASKS
    with pytest.raises(ConfigError, match=r"\[execution\] key 'max_tasks' must be an integer"):
        run_study({**cfg, "execution": {"max_tasks": 0}}, tmp_path / "t", progress=False)


def test_unreachable_scheduler_fails_fast_with_a_clear_error(helpers, tmp_path):
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    start = time.monotonic()
    with pytest.raises(StudyError, match=rf"cannot reach the dask scheduler '{address}': "
                                         r"Connection refused") as info:
        run_study(config(), tmp_path / "s", backend="dask", scheduler=address,
                  scheduler_timeout=1.5, progress=False)
    assert time.monotonic() - start < 5  # a refused address fails at once (no 1.5 s wait)
    assert str(tmp_path / "s") in str(info.value)
    assert f"bipartite study resume {tmp_path / 's'} --backend loky" in str(info.value)
    assert len(ok_files(tmp_path / "s")) == 0


# ---------------------------------------------------------------------------------------------
# The pieces
# ---------------------------------------------------------------------------------------------


def test_temporary_names_are_unique_per_process_and_call(tmp_path):
    target = tmp_path / "results.csv"
    names = {files_module.temp_path(target).name for _ in range(200)}
    assert len(names) == 200
    for name in names:
        m = files_module.TEMP_RE.match(name)
        assert m and m["name"] == "results.csv" and int(m["pid"]) == os.getpid()
    other = subprocess.run([sys.executable, "-c", "from pathlib import Path; from bipartite."
                            "studies.files import temp_path; print(temp_path(Path('r.csv')))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert files_module.TEMP_RE.match(other)["pid"] != str(os.getpid())


def test_stale_temp_files_of_dead_writers_are_removed(helpers, tmp_path):
    out = tmp_path / "s"
    run_study(config(), out, progress=False)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = [out / "tasks" / f".x.json.{dead}-0123abcd.tmp", out / ".results.parquet.tmp",
             out / f".results.csv.{dead}-deadbeef.tmp"]
    live = out / "tasks" / f".y.json.{os.getpid()}-0123abcd.tmp"
    for p in [*stale, live]:
        p.write_text("partial")
    resume_study(out, progress=False)
    assert [p.exists() for p in stale] == [False, False, False] and live.exists()


def test_worker_watchdog_exits_when_the_driver_is_gone(tmp_path):
    """The initializer's watchdog alone (no prctl): a grandchild whose parent is killed."""
    code = textwrap.dedent("""
        import os, subprocess, sys, time
        # The child is told its parent's pid and says when its watchdog runs: under load the
        # import can outlast any fixed sleep, and a parent killed before the child's getppid()
        # would leave it watching the reaper.
        child = subprocess.Popen([sys.executable, "-c",
            "import sys, time; from bipartite.studies.execution import watch_parent;"
            "print('watching', flush=True); watch_parent(int(sys.argv[1]), 0.1)", str(os.getpid())],
            stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "watching"
        print(child.pid, flush=True)
        time.sleep(60)
    """)
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = None
    try:
        child = psutil.Process(int(parent.stdout.readline()))
        assert child.is_running()
        parent.kill()
        parent.wait(timeout=10)
        assert not wait_gone([child], timeout=10)
    finally:
        parent.kill()
        if child is not None:
            kill_all([child])
        parent.wait(timeout=10)
        parent.stdout.close()


def test_lock_is_released_when_the_holder_is_killed(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from bipartite.studies import StudyLock;"
         f"StudyLock({str(folder)!r}).acquire(); print('locked', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StudyLockedError, match=rf"pid {holder.pid} on "):
            StudyLock(folder).acquire()
        holder.kill()
        holder.wait(timeout=10)
        with StudyLock(folder, timeout=5):
            pass
    finally:
        holder.kill()
        holder.wait(timeout=10)
        holder.stdout.close()


def test_sigterm_handler_is_restored(helpers, tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    run_study(config(), tmp_path / "s", progress=False)
    assert signal.getsignal(signal.SIGTERM) is before
    with execution_module.sigterm_raises():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert collect_results(tmp_path / "s", write=False)["task"].is_unique
