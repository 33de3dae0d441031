"""A resume that finds every task done (issue 27, item 2: 10^5 finished tasks in under 5 s):
the segment reader that parses payloads in place agrees, line by line, with an independent
reader; a run that runs nothing writes no table when the tables' stamp matches the records, and
writes them again whenever the records or the tables changed; its ``results`` (built when first
asked for) equal an uninterrupted run's."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from segment_reader import damaged_lines, parse, rewrite_lines, segments

from bipartite.studies import records as records_module
from bipartite.studies import resume_study, run_study, study_status
from bipartite.studies.errors import LegacyRecordWarning
from bipartite.studies.files import TABLE_FILES, TABLES_FORMAT, TABLES_STAMP
from bipartite.studies.tasks import gc_paused

LAYOUT_050 = Path(__file__).parent / "data" / "layout_0_5_0"
PREFIX = b'{"checksum":"sha256:'


def demo(n_shift: int = 3, replicates: int = 2, name: str = "fast") -> dict:
    return {"study": {"function": "demo.binormal_auc", "name": name, "seed": 5,
                      "replicates": replicates}, "params": {"n": 30},
            "grid": {"shift": [0.5 * i for i in range(n_shift)]}}


def signatures(out: Path) -> dict:
    """(inode, modification time) of each table present: a table written again gets another
    inode (written to a temporary file, then renamed)."""
    return {name: (st_.st_ino, st_.st_mtime_ns) for name in TABLE_FILES
            if (st_ := _stat(out / name)) is not None}


def _stat(path: Path):
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def tables(out: Path) -> dict:
    return {name: (out / name).read_bytes() for name in TABLE_FILES if (out / name).exists()}


# ---------------------------------------------------------------------------------------------
# The reader: payloads parsed in place, checked against an independent line-by-line reader
# ---------------------------------------------------------------------------------------------


def line_of(payload: bytes, *, digest: bytes | None = None) -> bytes:
    """A segment line around ``payload``, its checksum that of the payload unless given."""
    digest = hashlib.sha256(payload).hexdigest().encode() if digest is None else digest
    return PREFIX + digest + b'","record":' + payload + b"}\n"


def reference(line: bytes):
    """(record, damaged?) of one whole line, by json.loads and hashlib alone."""
    body = line[:-1]
    start = len(PREFIX) + 64 + len(b'","record":')
    ok_frame = (body.startswith(PREFIX) and body.endswith(b"}") and len(body) >= start + 2
                and body[len(PREFIX) + 64:start] == b'","record":')
    if not ok_frame:
        return None
    payload = body[start:-1]
    if hashlib.sha256(payload).hexdigest().encode() != body[len(PREFIX):len(PREFIX) + 64]:
        return None
    try:
        record = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    if record.get("format") == 2:
        record["checksum"] = "sha256:" + body[len(PREFIX):len(PREFIX) + 64].decode()
    return record


def assert_reader_agrees(path: Path, lines: list[bytes], tail: bytes = b"") -> None:
    path.write_bytes(b"".join(lines) + tail)
    seg = records_module._read_segment(path)
    assert [e.line for e in seg.entries] == list(range(1, len(lines) + 1))
    assert seg.torn == bool(tail)
    for line, entry in zip(lines, seg.entries, strict=True):
        want = reference(line)
        if want is None:
            assert entry.problem is not None and entry.raw == line
            assert entry.problem == records_module.decode_line(line)[1]
        else:
            assert entry.problem is None and entry.record == want, line
            assert entry.checksum == "sha256:" + hashlib.sha256(
                line[len(PREFIX) + 64 + 11:-2]).hexdigest()


def test_the_reader_agrees_with_a_line_by_line_reader_on_odd_lines(tmp_path):
    good = [line_of(json.dumps({"format": 2, "key": f"{i:016x}", "rows": [{"y": i / 3}]},
                               sort_keys=True, separators=(",", ":")).encode())
            for i in range(4)]
    odd = [
        line_of(b"[1,2]"),  # valid checksum, not an object
        line_of(b'{"a":1} '),  # trailing space: json.loads takes it, the scanner stops early
        line_of(b' {"a":1}'),  # leading space
        line_of(b'{"a":1}{"b":2}'),  # two objects in one payload: extra data
        line_of(b'{"a":'),  # not JSON, with its checksum
        line_of(b'{"a":1}', digest=b"0" * 64),  # checksum mismatch
        line_of(b'{"a":1}', digest=b"Z" * 64),  # not hex
        b'{"checksum":"md5:00","record":{}}\n',  # bad frame
        b"garbage\n",
        b"\n",
        line_of(b'{"a":NaN,"b":Infinity}'),  # NaN as the writer writes it
        line_of(b'{"a":"\\u00e9"}'),
    ]
    lines = [good[0], *odd[:6], good[1], *odd[6:], good[2], good[3]]
    assert_reader_agrees(tmp_path / "ascii.jsonl", lines, tail=b'{"checksum":"sha')
    # a segment with a byte that is not ASCII: every line through json.loads
    utf8 = line_of('{"a":"é"}'.encode())
    assert_reader_agrees(tmp_path / "utf8.jsonl", [good[0], utf8, odd[1], good[1]])
    assert_reader_agrees(tmp_path / "bad-utf8.jsonl", [good[0], line_of(b'{"a":"\xff"}')])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=5), children, max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(records=st.lists(st.dictionaries(st.text(max_size=6), json_values, max_size=4),
                        min_size=1, max_size=6),
       damage=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 400), st.integers(0, 255)),
                       max_size=3))
def test_the_reader_agrees_with_json_loads_on_any_records_and_damage(tmp_path_factory, records,
                                                                       damage):
    """Claim: for any JSON objects written as segment lines (canonical JSON, ASCII), with any
    bytes overwritten, the in-place reader gives each line the record (or the damage) that
    json.loads and hashlib give it alone."""
    lines = [line_of(json.dumps(r, sort_keys=True, separators=(",", ":")).encode())
             for r in records]
    for i, pos, byte in damage:
        line = bytearray(lines[i % len(lines)])
        pos %= len(line) - 1  # (the newline stays: a line's end is where it was)
        if byte != ord("\n"):
            line[pos] = byte
            lines[i % len(lines)] = bytes(line)
    folder = tmp_path_factory.mktemp("seg")
    assert_reader_agrees(folder / "s.jsonl", lines)


def test_gc_paused_restores_the_collector():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves it as it found it
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError
    assert gc.isenabled()


# ---------------------------------------------------------------------------------------------
# A resume that runs nothing
# ---------------------------------------------------------------------------------------------


def test_a_resume_that_runs_nothing_keeps_the_tables_and_proves_completeness(tmp_path):
    out = tmp_path / "s"
    ref = run_study(demo(), out, progress=False)
    assert (out / TABLES_STAMP).is_file()
    before, content = signatures(out), tables(out)
    res = resume_study(out, progress=False)
    assert (res.n_run, res.n_skipped, res.ok) == (0, 6, True)
    assert signatures(out) == before  # not written again
    assert res.n_rows == len(ref.results) == ref.n_rows
    pd.testing.assert_frame_equal(res.results, ref.results, check_exact=True)
    # every record is still read and checked: a damaged one is found, moved aside and rerun
    (segment,) = segments(out)
    rewrite_lines(segment, lambda ls: [ls[0].replace(b'"status":"ok"', b'"status":"OK"'),
                                       *ls[1:]])
    with pytest.warns(Warning, match="corrupt"):
        res = resume_study(out, progress=False)
    assert (res.n_run, res.n_skipped) == (1, 5) and damaged_lines(out) == 0
    assert tables(out)["results.csv"] == content["results.csv"]  # (task_index: new timings)
    assert signatures(out) != before
    pd.testing.assert_frame_equal(res.results, ref.results, check_exact=True)


@pytest.mark.parametrize("change", ["remove results.csv", "edit task_index.csv",
                                    "remove the stamp", "damage the stamp",
                                    "stamp of another version", "stamp of another tables format",
                                    "stamp without a tables format", "append a record"])
def test_the_tables_are_written_again_when_they_or_the_records_changed(tmp_path, change):
    out = tmp_path / "s"
    run_study(demo(), out, progress=False)
    content = tables(out)
    if change == "remove results.csv":
        (out / "results.csv").unlink()
    elif change == "edit task_index.csv":
        with open(out / "task_index.csv", "ab") as fh:
            fh.write(b"x\n")
    elif change == "remove the stamp":
        (out / TABLES_STAMP).unlink()
    elif change == "damage the stamp":
        (out / TABLES_STAMP).write_text("{")
    elif change == "stamp of another version":
        stamp = json.loads((out / TABLES_STAMP).read_text())
        (out / TABLES_STAMP).write_text(json.dumps({**stamp, "bipartite_version": "0.0.1"}))
    elif change == "stamp of another tables format":  # same version: a dev install
        stamp = json.loads((out / TABLES_STAMP).read_text())
        assert stamp["tables_format"] == TABLES_FORMAT
        (out / TABLES_STAMP).write_text(json.dumps({**stamp, "tables_format": TABLES_FORMAT + 1}))
    elif change == "stamp without a tables format":  # a stamp written before the format
        stamp = json.loads((out / TABLES_STAMP).read_text())
        del stamp["tables_format"]
        (out / TABLES_STAMP).write_text(json.dumps(stamp))
    elif change == "append a record":  # the same record again (a copy): read once
        (segment,) = segments(out)
        with open(segment, "ab") as fh:
            fh.write(segment.read_bytes().splitlines(keepends=True)[0])
    before = signatures(out)
    res = resume_study(out, progress=False)
    assert res.n_run == 0 and tables(out) == content
    assert set(signatures(out).items()).isdisjoint(before.items())  # every table written
    again = signatures(out)
    resume_study(out, progress=False)
    assert signatures(out) == again  # and then left alone


def test_a_resume_of_failures_kept_and_of_0_5_0_records(tmp_path):
    """``retry_failed=False`` on a folder with a failure runs nothing: its tables stay. A folder
    of 0.5.0 (per-task files) has its tables written by the resume that migrates it; 0.3.0's
    records keep their LegacyRecordWarning on every resume, tables written or not."""
    out = tmp_path / "old"
    shutil.copytree(LAYOUT_050, out)
    assert study_status(out)["failed"] == 1
    res = resume_study(out, progress=False, retry_failed=False)
    assert res.n_run == 1 and len(res.failures) == 1  # the pending task ran; failure kept
    before = signatures(out)
    res = resume_study(out, progress=False, retry_failed=False)
    assert res.n_run == 0 and len(res.failures) == 1 and signatures(out) == before
    legacy = tmp_path / "old030"
    shutil.copytree(LAYOUT_050, legacy)
    for p in (legacy / "tasks").glob("*.json"):  # 0.3.0's records: format 1, no checksum
        rec = json.loads(p.read_text())
        rec.pop("checksum")
        p.write_text(json.dumps({**rec, "format": 1}))
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            resume_study(legacy, progress=False)
        assert [w for w in caught if w.category is LegacyRecordWarning]
    before = signatures(legacy)
    with pytest.warns(LegacyRecordWarning):
        res = resume_study(legacy, progress=False)
    assert res.n_run == 0 and signatures(legacy) == before
    assert parse(segments(legacy)[0].read_bytes().splitlines(keepends=True)[0]) is not None


@settings(max_examples=200, deadline=None)
@given(value=json_values | st.dictionaries(st.text(max_size=5), json_values, max_size=5),
       special=st.sampled_from([None, float("nan"), float("inf"), -float("inf")]))
def test_canonical_json_is_json_dumps_with_sorted_keys(value, special):
    """Claim: canonical_json and record_body_text (made with json's C encoder, made once) give
    json.dumps's text with sorted keys, no spaces and ASCII; canonical_json refuses NaN and
    infinities as json.dumps(allow_nan=False) does; record_body_text writes them as JSON's
    NaN/Infinity and leaves out the checksum."""
    from bipartite.studies.tasks import canonical_json, record_body_text

    def dumps(obj, allow_nan):
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                          allow_nan=allow_nan)

    obj = {"v": value, "s": special}
    assert canonical_json(value) == dumps(value, False)
    assert record_body_text({**obj, "checksum": "x"}) == dumps(obj, True)
    if special is None:
        assert canonical_json(obj) == dumps(obj, False)
    else:
        with pytest.raises(ValueError, match="not JSON compliant"):
            canonical_json(obj)
