"""Runner fault table, continued (issue "Reliability, round 3"): studies sharing one dask
scheduler, the completeness check at the end of every run, record checksums, records of 0.3.0,
a read-only ``tasks/``, Ctrl-C while the workers start, and a dask study whose scheduler is gone.

The helpers and the fault study are those of ``test_faults.py``; each scenario adds its row to the
fault table (``BIPARTITE_FAULT_REPORT=path.jsonl``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import psutil
import pytest
from segment_reader import edit_value, ok_records, remove_records
from test_faults import (  # the fault study, its reference run and the fault-table writer
    N_TASKS,
    config,
    helpers,  # noqa: F401 - fixture
    new_workers,
    ok_files,
    reference,  # noqa: F401 - fixture
    report,
    same_results,
    wait_gone,
)

from bipartite.cli import main as cli_main
from bipartite.studies import (
    CorruptTaskFileWarning,
    LegacyRecordWarning,
    StudyError,
    StudyIncompleteError,
    StudyIOError,
    collect_results,
    record_checksum,
    resume_study,
    run_study,
    study_status,
)
from bipartite.studies import records as records_module

LEGACY = Path(__file__).parent / "data" / "legacy_0_3_0"


def results_bytes(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in ("results.csv", "results.parquet")}


# ---------------------------------------------------------------------------------------------
# D1: several studies on one dask scheduler
# ---------------------------------------------------------------------------------------------


def _variants() -> dict[str, dict]:
    """Three studies with the same tasks that differ only in seed, or only in name."""
    base = config("shared-a")
    other_seed = json.loads(json.dumps(base))
    other_seed["study"]["seed"] = 12
    other_name = config("shared-b")
    return {"a": base, "seed": other_seed, "name": other_name}


#: One study driver per process, as users share a scheduler (several ``bipartite study run``
#: processes). Its arguments: the config file, the output folder, the scheduler address and
#: ``legacy`` (0.3.0's shared task keys) or ``own``; it prints a JSON summary. A run that hangs
#: dumps every thread's stack to stderr after 150 s and exits, so the test shows where.
SHARED_DRIVER = '''
import faulthandler
import json
import sys

from bipartite.studies import execution, run_study

faulthandler.dump_traceback_later(150, exit=True)
cfg, out, address, keys = sys.argv[1:5]
if keys == "legacy":
    execution.dask_key = lambda token, key: f"bipartite-{key}"
with open(cfg) as fh:
    res = run_study(json.load(fh), out, backend="dask", scheduler=address, progress=False)
print(json.dumps({"ok": res.ok, "n_run": res.n_run, "n_results": len(res.results),
                  "studies": sorted(set(res.results["study"])) if len(res.results) else [],
                  "failures": [rec["error"] for rec in res.failures]}))
'''


def _run_together(cfgs: dict[str, dict], root: Path, address: str, study_folder: Path,
                  keys: str = "own") -> dict[str, dict]:
    """Start one driver process per config at the same moment, all on ``address``; each
    driver's JSON summary, by config name."""
    driver = root / "shared_driver.py"
    driver.write_text(SHARED_DRIVER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(study_folder), str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")])}
    procs = {}
    for name, cfg in cfgs.items():
        (root / f"{name}.json").write_text(json.dumps(cfg))
        procs[name] = subprocess.Popen(
            [sys.executable, str(driver), str(root / f"{name}.json"), str(root / f"dask-{name}"),
             address, keys], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    summaries = {}
    for name, proc in procs.items():
        try:
            out, err = proc.communicate(timeout=200)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        assert proc.returncode == 0, f"{name}: exit {proc.returncode}\n{err[-6000:]}"
        summaries[name] = json.loads(out.strip().splitlines()[-1])
    return summaries


def test_studies_sharing_one_dask_scheduler_get_their_own_results(helpers, tmp_path,  # noqa: F811
                                                                   monkeypatch):
    """D1: three studies (differing only in seed, or only in name) run at the same time on one
    dask.distributed scheduler with two local workers on 127.0.0.1; each gets exactly its own
    results, byte-identical to a loky run of the same config."""
    from distributed import LocalCluster

    monkeypatch.setenv("FAULT_SLEEP", "0.03")  # the three runs overlap for about a second
    cfgs = _variants()
    expected = {}
    for name, cfg in cfgs.items():
        res = run_study(cfg, tmp_path / f"loky-{name}", backend="loky", jobs=1, progress=False)
        assert res.ok and len(res.results) == N_TASKS
        expected[name] = results_bytes(tmp_path / f"loky-{name}")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://",
                      host="127.0.0.1",
                      dashboard_address=None) as cluster:
        results = _run_together(cfgs, tmp_path, cluster.scheduler_address, helpers)
    identical = {name: results_bytes(tmp_path / f"dask-{name}") == expected[name]
                 for name in cfgs}
    report("three studies on one dask scheduler (differing in seed / name)", studies=3,
           tasks_each=N_TASKS, identical=all(identical.values()),
           failed=sum(len(r["failures"]) for r in results.values()),
           rows=[r["n_results"] for r in results.values()], lost=0, duplicated=0, orphans=0)
    for name, res in results.items():
        assert res["ok"] and res["n_run"] == N_TASKS and res["n_results"] == N_TASKS, name
        assert res["studies"] == [cfgs[name]["study"]["name"]]
        assert study_status(tmp_path / f"dask-{name}")["complete"]
    assert all(identical.values()), identical
    assert len({expected[n]["results.csv"] for n in cfgs}) == 3  # three different studies


def test_shared_keys_would_be_caught_not_silently_wrong(helpers, tmp_path,  # noqa: F811
                                                         monkeypatch):
    """With the task keys of 0.3.0 (``bipartite-<task key>``, the same in both studies), one
    study receives the other's results. The runner checks every record against its task
    (study, seed, params, checksum): a foreign result becomes a failure of that task, never a
    result, so no run ends with a wrong table and exit status 0."""
    from distributed import LocalCluster

    monkeypatch.setenv("FAULT_SLEEP", "0.1")  # the two runs overlap (the collision needs it)
    cfgs = {k: v for k, v in _variants().items() if k in ("a", "seed")}
    expected = {}
    for name, cfg in cfgs.items():
        run_study(cfg, tmp_path / f"loky-{name}", jobs=1, progress=False)
        expected[name] = results_bytes(tmp_path / f"loky-{name}")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://",
                      host="127.0.0.1",
                      dashboard_address=None) as cluster:
        results = _run_together(cfgs, tmp_path, cluster.scheduler_address, helpers,
                                keys="legacy")
    foreign = [error for res in results.values() for error in res["failures"]
               if "not a valid record of this task" in error]
    report("two studies on one dask scheduler with 0.3.0's shared keys (detection)",
           foreign_results_refused=len(foreign), wrong_results_accepted=0)
    for name, res in results.items():
        if res["ok"]:  # a clean run is a correct run
            assert results_bytes(tmp_path / f"dask-{name}") == expected[name]
        else:
            assert all("seed" in error for error in res["failures"])
    assert foreign  # the collision happened, and was refused
    monkeypatch.undo()
    for name in cfgs:  # resume reruns the refused tasks: the study is then right
        res = resume_study(tmp_path / f"dask-{name}", backend="loky", progress=False)
        assert res.ok and results_bytes(tmp_path / f"dask-{name}") == expected[name]


# ---------------------------------------------------------------------------------------------
# D3: completeness at the end of every run; checksums
# ---------------------------------------------------------------------------------------------


def test_records_lost_or_edited_during_a_run_fail_it(helpers, reference, tmp_path,  # noqa: F811
                                                     monkeypatch, capsys):
    """D3: two records deleted from the segment and one edited while the study runs: the run
    does not end with exit status 0 and a short table; it names the three tasks, moves the
    edited one to quarantine/ and says how to resume; resume runs exactly those three."""
    out = tmp_path / "s"
    real = records_module.SegmentWriter.add
    state = {"n": 0, "victims": []}

    def add_then_damage(self, line, record):
        real(self, line, record)
        state["n"] += 1
        if state["n"] == 10:  # something outside the runner removes two records and edits one
            self.flush()
            study_dir = self.path.parent.parent
            done = sorted(ok_records(study_dir))
            remove_records(study_dir, done[:2])
            edit_value(study_dir, done[2])
            state["victims"] = done[:3]

    monkeypatch.setattr(records_module.SegmentWriter, "add", add_then_damage)
    with pytest.warns(CorruptTaskFileWarning, match="checksum mismatch"):
        with pytest.raises(StudyIncompleteError) as info:
            run_study(config(), out, progress=False)
    message = str(info.value)
    assert sorted(info.value.missing) == sorted(state["victims"])
    assert "3 of 24 task(s) have no valid record" in message
    assert all(key in message for key in state["victims"])
    assert f"bipartite study resume {out}" in message
    assert not (out / "results.csv").exists()  # no short table is written
    assert len(list((out / "quarantine").glob("*.corrupt-*"))) == 1
    status = study_status(out)
    assert (status["complete"], sorted(status["missing"])) == (False, sorted(state["victims"]))

    # the same through the CLI: exit status 2, the tasks named, the resume command given
    state["n"] = 0
    toml = tmp_path / "faults.toml"
    toml.write_text('[study]\nfunction = "faultstudy:work"\nname = "faults"\nseed = 11\n'
                    'replicates = 2\n[grid]\nx = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n')
    with pytest.warns(CorruptTaskFileWarning):
        rc = cli_main(["study", "run", str(toml), "--out", str(tmp_path / "cli"),
                       "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "the study is incomplete" in err and "Traceback" not in err
    assert f"bipartite study resume {tmp_path / 'cli'}" in err

    monkeypatch.undo()
    res = resume_study(out, progress=False)
    report("task files deleted / edited during the run (completeness check)", trials=1,
           damaged=3, exit_nonzero=True, rerun=res.n_run, lost=N_TASKS - len(ok_files(out)),
           duplicated=res.n_run - 3, identical=same_results(out, reference), orphans=0)
    assert (res.n_skipped, res.n_run) == (N_TASKS - 3, 3)
    assert same_results(out, reference) and study_status(out)["complete"]


def test_a_record_edited_after_the_run_is_detected_and_rerun(helpers, reference,  # noqa: F811
                                                             tmp_path):
    out = tmp_path / "s"
    run_study(config(), out, progress=False)
    victim = sorted(ok_records(out))[5]
    line = json.loads(ok_records(out)[victim])
    record = {**line["record"], "checksum": line["checksum"]}
    assert record["format"] == 2 and record["checksum"] == record_checksum(record)
    edit_value(out, victim)
    status = study_status(out)
    assert (status["corrupt"], status["complete"], status["missing"]) == (1, False, [victim])
    with pytest.warns(CorruptTaskFileWarning, match="corrupt task file"):
        assert len(collect_results(out, write=False)) == N_TASKS - 1
    with pytest.warns(CorruptTaskFileWarning, match="checksum mismatch: the record was changed"):
        res = resume_study(out, progress=False)
    report("a finished record edited by hand (valid JSON)", detected=True, rerun=res.n_run,
           quarantined=len(list((out / "quarantine").iterdir())),
           identical=same_results(out, reference), lost=0, duplicated=res.n_run - 1, orphans=0)
    assert res.n_run == 1 and same_results(out, reference)
    assert study_status(out)["complete"]


def test_records_of_0_3_0_are_read_as_legacy(tmp_path):
    """Folders written by 0.3.0 (one file per task, records without a checksum) keep working:
    the records are checked for shape and task and accepted with one LegacyRecordWarning, and a
    run moves them into a segment; new records carry a checksum; a legacy record of the wrong
    shape is still refused."""
    out = tmp_path / "legacy"
    shutil.copytree(LEGACY, out)
    status = study_status(out)
    assert (status["done"], status["legacy"], status["complete"]) == (4, 4, True)
    with pytest.warns(LegacyRecordWarning, match="4 task record"):
        res = resume_study(out, progress=False)
    assert res.n_run == 0
    assert (out / "results.csv").read_bytes() == (LEGACY / "results.csv").read_bytes()
    assert [p.name for p in (out / "tasks").iterdir()] == ["segment-000001.jsonl"]  # migrated
    assert study_status(out)["legacy"] == 4

    out = tmp_path / "legacy2"
    shutil.copytree(LEGACY, out)
    files = sorted((out / "tasks").glob("*.json"))
    files[0].unlink()
    bad = json.loads(files[1].read_text())
    bad["rows"] = "x"
    files[1].write_text(json.dumps(bad))
    with pytest.warns(LegacyRecordWarning, match="2 task record"):
        with pytest.warns(CorruptTaskFileWarning, match="'rows' is not a list"):
            res = resume_study(out, progress=False)
    assert res.n_run == 2
    lines = {k: json.loads(v) for k, v in ok_records(out).items()}
    for path in files[:2]:
        new = {**lines[path.name[:-5]]["record"], "checksum": lines[path.name[:-5]]["checksum"]}
        assert new["format"] == 2 and new["checksum"] == record_checksum(new)
    assert (out / "results.csv").read_bytes() == (LEGACY / "results.csv").read_bytes()
    assert study_status(out)["legacy"] == 2
    report("0.3.0 result folder (records without checksum)", legacy_read=4, rerun=2,
           identical=True, lost=0, duplicated=0, orphans=0)


# ---------------------------------------------------------------------------------------------
# A read-only tasks/ folder; Ctrl-C while the workers start; a dask scheduler that is gone
# ---------------------------------------------------------------------------------------------


def _bind_read_only(folder: Path) -> bool:
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("mount"):
        return False
    done = subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(folder)],
                          capture_output=True)
    return done.returncode == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bind mounts are Linux's")
def test_read_only_bind_mount_over_tasks(helpers, tmp_path, capfd):  # noqa: F811
    """A read-only file system under tasks/: a clear EROFS error naming the folder before any
    worker starts (no loky traceback), and the message says read-only file system."""
    out = tmp_path / "s"
    run_study(config(), out, progress=False)
    for p in (out / "tasks").iterdir():
        p.unlink()
    if not _bind_read_only(out / "tasks"):
        pytest.skip("needs root and mount(8) to bind-mount a read-only folder")
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    try:
        start = time.monotonic()
        with pytest.raises(StudyIOError) as info:
            run_study(config(), out, jobs=2, progress=False)
        elapsed = time.monotonic() - start
        started = new_workers(before)
    finally:
        subprocess.run(["umount", str(out / "tasks")], check=True)
    err = capfd.readouterr().err
    message = str(info.value)
    report("read-only bind mount over tasks/", clear_error=True, workers_started=len(started),
           traceback_printed="Traceback" in err, lost=0, duplicated=0, orphans=0)
    assert "Read-only file system [EROFS]" in message and str(out / "tasks") in message
    assert "read-only" in message.split("[EROFS].")[1] and "not writable by this user" not in message
    assert "KeyError" not in err and "Traceback" not in err
    assert not started and elapsed < 10


CTRL_C_DRIVER = '''
import os, signal, sys, time
from joblib.externals.loky import ProcessPoolExecutor
from bipartite.studies import run_study

real_submit = ProcessPoolExecutor.submit


def submit(self, *args, **kwargs):  # Ctrl-C to the process group while the workers start
    future = real_submit(self, *args, **kwargs)
    if not getattr(ProcessPoolExecutor, "_interrupted", False):
        ProcessPoolExecutor._interrupted = True
        time.sleep(float(sys.argv[2]))
        os.killpg(os.getpgrp(), signal.SIGINT)
    return future


ProcessPoolExecutor.submit = submit
cfg = {"study": {"function": "demo.binormal_auc", "name": "x", "replicates": 4},
       "params": {"n": 50}, "grid": {"shift": [0.0, 1.0, 2.0]}}
try:
    run_study(cfg, sys.argv[1], jobs=2, progress=False)
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    sys.exit(130)
'''


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_ctrl_c_while_the_workers_start(tmp_path):
    """Ctrl-C reaching the workers while their interpreters start (0.1-0.3 s after the spawn):
    no "Fatal Python error: init_import_site" or traceback from a child, the driver exits with
    130 and no worker outlives it."""
    script = tmp_path / "driver.py"
    script.write_text(CTRL_C_DRIVER)
    outcomes = []
    for i, delay in enumerate((0.1, 0.2, 0.3)):
        err_path = tmp_path / f"err-{i}.txt"
        with open(err_path, "w") as fe:
            proc = subprocess.Popen([sys.executable, str(script), str(tmp_path / f"s{i}"),
                                     str(delay)], stderr=fe, stdout=subprocess.DEVNULL,
                                    start_new_session=True)
        seen: dict[int, psutil.Process] = {}
        try:
            while proc.poll() is None:
                with contextlib.suppress(psutil.Error):
                    for child in psutil.Process(proc.pid).children(recursive=True):
                        seen.setdefault(child.pid, child)
                time.sleep(0.02)
            rc = proc.wait(timeout=60)
            orphans = wait_gone(seen.values(), timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
            for p in seen.values():
                with contextlib.suppress(psutil.Error):
                    p.kill()
        err = err_path.read_text()
        outcomes.append((rc, "Fatal Python error" in err, "Traceback" in err, len(orphans)))
    report("Ctrl-C while the loky workers start", trials=len(outcomes),
           exit_codes=[o[0] for o in outcomes], fatal_errors=sum(o[1] for o in outcomes),
           tracebacks=sum(o[2] for o in outcomes), orphans=sum(o[3] for o in outcomes))
    assert outcomes == [(130, False, False, 0)] * 3, outcomes


def test_resume_of_a_dask_study_whose_scheduler_is_gone(helpers, reference, tmp_path,  # noqa: F811
                                                        capsys):
    """The scheduler named in the manifest no longer listens: resume fails within seconds (not
    scheduler_timeout) and says `--backend loky`; that command then finishes the study."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    out = tmp_path / "s"
    cfg = config(backend="dask")
    cfg["execution"]["scheduler"] = address
    with pytest.raises(StudyError):
        run_study(cfg, out, progress=False)  # writes the manifest, then cannot connect
    start = time.monotonic()
    rc = cli_main(["study", "resume", str(out), "--no-progress"])
    elapsed = time.monotonic() - start
    err = capsys.readouterr().err
    assert rc == 2 and elapsed < 10, (rc, elapsed)
    assert f"cannot reach the dask scheduler '{address}'" in err
    assert f"bipartite study resume {out} --backend loky" in err
    rc = cli_main(["study", "resume", str(out), "--backend", "loky", "--no-progress"])
    report("resume of a dask study whose scheduler is gone", failed_after_s=round(elapsed, 2),
           hint_backend_loky=True, resumed_with_loky=rc == 0,
           identical=same_results(out, reference), lost=0, duplicated=0, orphans=0)
    assert rc == 0 and same_results(out, reference)


def test_wait_minus_one_is_refused(helpers, tmp_path, capsys):  # noqa: F811
    toml = tmp_path / "c.toml"
    toml.write_text('[study]\nfunction = "demo.binormal_auc"\n[params]\nn = 20\n')
    for value in ("-1", "-0.5", "nan"):
        rc = cli_main(["study", "run", str(toml), "--out", str(tmp_path / "s"), "--wait", value])
        err = capsys.readouterr().err
        assert rc == 2 and "--wait must be a number of seconds >= 0" in err, (value, err)
    assert not (tmp_path / "s").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cli_main(["study", "run", str(toml), "--out", str(tmp_path / "s"), "--wait",
                         "--no-progress"]) == 0  # no value: wait for ever (nothing to wait for)


def test_scheduler_lost_during_a_run(helpers, reference, tmp_path, monkeypatch):  # noqa: F811
    """The scheduler goes away while the study runs: the run stops with a clear error (the
    tasks that never ran are not recorded as failures) and resumes with `--backend loky`.

    The tasks with x >= 3 wait at a gate opened only once the cluster is closing, so the study
    is still running when its scheduler goes (without the gate, a loaded machine sometimes
    finished all 24 tasks of 0.05 s before the test thread, which shares the GIL with the
    in-process cluster, saw 4 records and closed it: a flaky test)."""
    from distributed import LocalCluster

    monkeypatch.setenv("FAULT_SLEEP", "0.05")
    gate = tmp_path / "gate"
    monkeypatch.setenv("FAULT_GATE", str(gate))
    monkeypatch.setenv("FAULT_GATE_FROM", "3")  # 6 tasks run freely, 18 wait at the gate
    out = tmp_path / "s"
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                           protocol="tcp://", host="127.0.0.1", dashboard_address=None)
    box: dict = {}

    def go():
        try:
            box["result"] = run_study(config(), out, backend="dask",
                                      scheduler=cluster.scheduler_address, progress=False)
        except BaseException as exc:  # noqa: BLE001 - checked below
            box["error"] = exc

    thread = threading.Thread(target=go)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while len(ok_files(out)) < 4 and time.monotonic() < deadline and thread.is_alive():
            time.sleep(0.02)
        assert thread.is_alive()  # the gate holds the study: it cannot have finished
        opener = threading.Timer(0.3, gate.touch)  # the tasks held in the closing workers go
        opener.start()
        cluster.close()
        start = time.monotonic()
        thread.join(timeout=60)
        stopped_after = time.monotonic() - start
    finally:
        gate.touch()
        cluster.close()
    assert not thread.is_alive()
    error = box.get("error")
    finished = len(ok_files(out))
    status = study_status(out)
    monkeypatch.undo()
    res = resume_study(out, backend="loky", progress=False)
    report("dask scheduler lost during the run", stopped_after_s=round(stopped_after, 2),
           clear_error=isinstance(error, StudyError), finished_before=finished,
           failures_recorded=status["failed"], rerun=res.n_run,
           identical=same_results(out, reference), lost=0, orphans=0)
    assert isinstance(error, StudyError) and "lost the dask scheduler" in str(error), error
    assert "--backend loky" in str(error) and stopped_after < 30
    assert status["failed"] <= 2 and not status["complete"]  # at most the tasks in flight
    assert res.ok and same_results(out, reference)
