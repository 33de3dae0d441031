"""Record segments and group commit (issue 27, item 1): folders of 0.5.0 (one file per task)
resume and are migrated, a torn last line is ignored, a record found twice is read once (or
flagged when the copies differ), records are fsync-ed per batch, not per task, and dask gets
the tasks in a bounded window."""

from __future__ import annotations

import json
import shutil
import time
import warnings
from pathlib import Path

import pytest
from segment_reader import (
    damaged_lines,
    ok_records,
    parse,
    segments,
    whole_lines,
)

from bipartite.studies import (
    DuplicateRecordWarning,
    collect_results,
    read_manifest,
    resume_study,
    run_study,
    study_status,
)
from bipartite.studies import execution as execution_module
from bipartite.studies import records as records_module
from bipartite.studies.errors import LegacyRecordWarning
from bipartite.studies.records import SegmentWriter, decode_line, encode_record
from bipartite.studies.tasks import execute_task, expand_tasks, record_checksum

LAYOUT_050 = Path(__file__).parent / "data" / "layout_0_5_0"


def demo(n_shift: int = 3, replicates: int = 2, name: str = "seg") -> dict:
    return {"study": {"function": "demo.binormal_auc", "name": name, "seed": 3,
                      "replicates": replicates}, "params": {"n": 30},
            "grid": {"shift": [0.5 * i for i in range(n_shift)]}}


def table(out: Path) -> bytes:
    return (out / "results.csv").read_bytes()


# ---------------------------------------------------------------------------------------------
# Folders of 0.5.0: one file per task
# ---------------------------------------------------------------------------------------------


def test_a_folder_of_0_5_0_resumes_and_is_migrated(tmp_path):
    """The fixture was written by 0.5.0's runner (tests/studies/data/make_layout_0_5_0.py): 4
    finished tasks, 1 failed, 1 pending, one file per task. It is read as it is (status), and a
    resume runs the failed and the pending task, moves every record into one segment and
    removes the per-task files; the table equals an uninterrupted run's."""
    out = tmp_path / "old"
    shutil.copytree(LAYOUT_050, out)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        status = study_status(out)
    assert (status["done"], status["failed"], status["pending"], status["legacy"]) == (4, 1, 1, 0)
    old = {p.name: json.loads(p.read_text()) for p in (out / "tasks").iterdir()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = resume_study(out, progress=False)
    assert (res.n_skipped, res.n_run, res.ok) == (4, 2, True)
    assert sorted(p.name for p in (out / "tasks").iterdir()) == ["segment-000001.jsonl",
                                                                 "segment-000002.jsonl"]
    records = ok_records(out)
    assert len(records) == 6
    for name, rec in old.items():  # the finished records moved as they were
        if rec["status"] == "ok":
            moved = json.loads(records[name[:-5]])
            assert {**moved["record"], "checksum": moved["checksum"]} == rec
    manifest = read_manifest(out)
    ref = run_study(manifest, tmp_path / "ref", progress=False)
    assert ref.ok and table(out) == table(tmp_path / "ref")
    assert study_status(out)["complete"]


def test_a_crash_while_migrating_leaves_identical_copies_read_once(tmp_path):
    """Records both in the 0.5.0 files and in a segment (a crash after the segment was written,
    before the files were removed): each task is read once, without a warning, a success beats
    the old failure, and the next run leaves one segment."""
    done = tmp_path / "done"
    shutil.copytree(LAYOUT_050, done)
    resume_study(done, progress=False)
    (segment,) = [p for p in segments(done) if p.name.endswith("1.jsonl")]
    out = tmp_path / "crashed"
    shutil.copytree(LAYOUT_050, out)
    shutil.copy(segment, out / "tasks" / segment.name)  # the 4 old successes, copied
    shutil.copy(segments(done)[1], out / "tasks" / "segment-000002.jsonl")  # 2 run after
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        status = study_status(out)
        assert (status["done"], status["failed"], status["complete"]) == (6, 0, True)
        res = resume_study(out, progress=False)
    assert res.n_run == 0 and table(out) == table(done)
    assert [p.name for p in (out / "tasks").iterdir()] == ["segment-000003.jsonl"]
    assert len(whole_lines(out / "tasks" / "segment-000003.jsonl")) == 6



def test_a_crash_while_migrating_0_3_0_records_leaves_copies_read_once(tmp_path):
    """The same for records of 0.3.0 (format 1, no checksum): the copy in the segment is known as
    the same record by its content's checksum, so no DuplicateRecordWarning (a reviewer found
    that the missing checksum made the two copies look different)."""
    out = tmp_path / "old030"
    shutil.copytree(LAYOUT_050, out)
    for p in (out / "tasks").glob("*.json"):  # 0.3.0's records: format 1, no checksum
        rec = json.loads(p.read_text())
        rec.pop("checksum")
        p.write_text(json.dumps({**rec, "format": 1}))
    legacy = {p.name: p.read_text() for p in (out / "tasks").glob("*.json")}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=LegacyRecordWarning)  # 0.3.0: expected
        resume_study(out, progress=False)  # migrated: every record now in segments
    for name, text in legacy.items():  # the crash: the old files are still there
        (out / "tasks" / name).write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=LegacyRecordWarning)  # 0.3.0: expected
        status = study_status(out)
        assert (status["done"], status["failed"], status["complete"]) == (6, 0, True)
        res = resume_study(out, progress=False)
    assert res.n_run == 0
    assert not list((out / "tasks").glob("*.json"))

# ---------------------------------------------------------------------------------------------
# Torn lines, duplicates
# ---------------------------------------------------------------------------------------------


def test_a_torn_last_line_is_ignored_and_its_task_rerun(tmp_path):
    out = tmp_path / "s"
    ref = run_study(demo(), out, progress=False)
    (segment,) = segments(out)
    data = segment.read_bytes()
    last = whole_lines(segment)[-1]
    segment.write_bytes(data[:-len(last) // 2])  # kill -9 (or power loss) mid-write
    key = parse(last)["key"]
    status = study_status(out)
    assert (status["done"], status["pending"], status["corrupt"], status["unreadable"]) == (
        5, 1, 0, 0)
    assert status["missing"] == [key]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a torn tail is expected after a crash: no warning
        res = resume_study(out, progress=False)
    assert (res.n_skipped, res.n_run) == (5, 1)
    assert res.results.equals(ref.results) and damaged_lines(out) == 0
    assert all(seg.read_bytes().endswith(b"\n") for seg in segments(out))


def test_records_that_differ_are_flagged_and_the_first_kept(tmp_path):
    out = tmp_path / "s"
    run_study(demo(), out, progress=False)
    (segment,) = segments(out)
    first = parse(whole_lines(segment)[0])
    rerun = execute_task({**first, "threads": 1})  # the same task, run again: other timings
    rerun["rows"][0]["auc"] = -1.0  # (and, to be sure, another result)
    rerun = {**rerun, "checksum": record_checksum({k: v for k, v in rerun.items()
                                                   if k != "checksum"})}
    (out / "tasks" / "segment-000002.jsonl").write_bytes(encode_record(rerun)[0])
    with pytest.warns(DuplicateRecordWarning, match=r"1 task\(s\) have two different"):
        df = collect_results(out, write=False)
    assert (df["task"] == first["key"]).sum() == 1
    assert df.loc[df["task"] == first["key"], "auc"].item() == first["rows"][0]["auc"]
    with pytest.warns(DuplicateRecordWarning):
        res = resume_study(out, progress=False)
    assert res.n_run == 0 and [p.name for p in segments(out)] == ["segment-000003.jsonl"]
    assert parse(whole_lines(segments(out)[0])[0]) == first  # the first one was kept


def test_line_format_round_trip_and_checks():
    task = expand_tasks(json.loads(json.dumps(_resolved())))[0]
    record = execute_task(task.as_dict())
    line, checksum = encode_record(record)
    assert checksum == record["checksum"] == record_checksum(record)
    assert json.loads(line) == {"checksum": checksum,
                                "record": {k: v for k, v in record.items() if k != "checksum"}}
    assert decode_line(line) == (record, None)
    assert parse(line) is not None  # the tests' reader agrees
    assert decode_line(line[:-1])[1] == "not a record line (bad frame)"
    tampered = line.replace(b'"status":"ok"', b'"status":"KO"')
    assert decode_line(tampered)[1].startswith("checksum mismatch")


def _resolved() -> dict:
    from bipartite.studies import resolve_config

    return resolve_config(demo())


# ---------------------------------------------------------------------------------------------
# Group commit; the dask window
# ---------------------------------------------------------------------------------------------


def test_records_are_fsynced_per_batch_not_per_task(tmp_path, monkeypatch):
    calls = []
    real = records_module.write_some
    monkeypatch.setattr(records_module, "write_some",
                        lambda fd, data: calls.append(bytes(data).count(b"\n")) or real(fd, data))
    res = run_study(demo(n_shift=100, replicates=2), tmp_path / "s", progress=False)
    assert res.ok and sum(calls) == 200
    assert len(calls) <= 200 / 4, calls  # batches, not one write and fsync per task
    assert len(segments(tmp_path / "s")) == 1


def test_the_timer_flushes_a_quiet_batch(tmp_path):
    saved = []
    writer = SegmentWriter(tmp_path, interval=0.05, on_saved=saved.append)
    try:
        record = execute_task(expand_tasks(_resolved())[0].as_dict())
        time.sleep(0.1)
        writer.add(encode_record(record)[0], record)  # flushed at once: 0.1 s since the last
        writer.add(encode_record(record)[0], record)  # buffered: the timer must flush it
        deadline = time.monotonic() + 5
        while writer.n_flushes < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert writer.n_flushes == 2 and len(whole_lines(writer.path)) == 2
    finally:
        writer.close()
    assert len(saved) == 2  # delivered in this thread (at close)


def test_dask_gets_the_tasks_in_a_bounded_window(tmp_path, monkeypatch):
    from distributed import Client, LocalCluster

    monkeypatch.setattr(execution_module, "DASK_MIN_WINDOW", 4)
    monkeypatch.setattr(execution_module, "DASK_IN_FLIGHT_PER_THREAD", 1)
    chunks = []
    real = Client.map
    monkeypatch.setattr(Client, "map",
                        lambda self, fn, *its, **kw: chunks.append(len(its[0]))
                        or real(self, fn, *its, **kw))
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None) as cluster:
        res = run_study(demo(n_shift=10), tmp_path / "d", backend="dask",
                        scheduler=cluster.scheduler_address, progress=False)
    run_study(demo(n_shift=10), tmp_path / "ref", progress=False)
    assert res.ok and sum(chunks) == 20 and max(chunks) <= 4 and len(chunks) >= 5, chunks
    assert table(tmp_path / "d") == table(tmp_path / "ref")


def test_loky_batch_sizes():
    size = execution_module.next_batch_size
    fast = [{"elapsed_s": 1e-5}] * 4
    assert size(1, fast, remaining=10_000, jobs=2) == 2  # at most doubles
    assert size(128, fast, remaining=10_000, jobs=2) == execution_module.MAX_BATCH_TASKS
    assert size(128, fast, remaining=40, jobs=2) == 10  # the rest still fills the workers
    assert size(8, [{"elapsed_s": 1.0}], remaining=100, jobs=2) == 1  # slow tasks: one each
    assert size(8, [{"elapsed_s": float("nan")}], remaining=100, jobs=2) == 1


def test_old_segments_path_warns_and_forwards(monkeypatch):
    """``bipartite.studies.segments`` (issue 36: renamed ``records``, since a "segment" is a query
    everywhere else in the package) still imports for a release, with a FutureWarning, and
    forwards every name."""
    import importlib
    import sys

    monkeypatch.delitem(sys.modules, "bipartite.studies.segments", raising=False)
    with pytest.warns(FutureWarning, match="bipartite.studies.segments is deprecated.*"
                      "bipartite.studies.records"):
        old = importlib.import_module("bipartite.studies.segments")
    with pytest.warns(FutureWarning, match="use bipartite.studies.records.SegmentWriter"):
        assert old.SegmentWriter is SegmentWriter
    with pytest.warns(FutureWarning, match="use bipartite.studies.records.MAX_SEGMENTS"):
        assert old.MAX_SEGMENTS == records_module.MAX_SEGMENTS
    with pytest.raises(AttributeError):
        old.no_such_name  # noqa: B018


def test_old_segments_path_serves_import_star(monkeypatch):
    """``from bipartite.studies.segments import *`` still brings every public name of the new
    home (found by review: the forwarding module had no ``__all__``, so it imported nothing)."""
    import sys
    import warnings

    monkeypatch.delitem(sys.modules, "bipartite.studies.segments", raising=False)
    ns: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        exec("from bipartite.studies.segments import *", ns)
    names = {k for k in ns if not k.startswith("__")}
    assert names == set(records_module.__all__)
    assert ns["SegmentWriter"] is SegmentWriter
