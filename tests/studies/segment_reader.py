"""An independent reader of the record segments of a study folder (the tests' reference for
:mod:`bipartite.studies.records`), and helpers that damage them.

A segment ``tasks/segment-NNNNNN.jsonl`` holds one JSON object per line,
``{"checksum": "sha256:<hex>", "record": {...}}``, the checksum the SHA-256 of the record's
canonical JSON (sorted keys, no spaces, ASCII). Here a line is parsed with ``json.loads`` and its
checksum recomputed with ``json.dumps``: no code of the runner is used.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def segments(study_dir: Path) -> list[Path]:
    folder = Path(study_dir) / "tasks"
    return sorted(folder.glob("segment-*.jsonl")) if folder.is_dir() else []


def whole_lines(path: Path) -> list[bytes]:
    """The lines of a segment that end with a newline (a last line without one is a write cut
    short: not a record)."""
    data = path.read_bytes()
    return data[:data.rfind(b"\n") + 1].splitlines(keepends=True)


def parse(line: bytes) -> dict | None:
    """The record of a line if its checksum holds, else None."""
    try:
        obj = json.loads(line)
        record = obj["record"]
        text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                          allow_nan=True)
    except (ValueError, KeyError, TypeError):
        return None
    if obj.get("checksum") != "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest():
        return None
    return record


def valid_lines(study_dir: Path) -> list[tuple[Path, bytes, dict]]:
    return [(seg, line, rec) for seg in segments(study_dir) for line in whole_lines(seg)
            if (rec := parse(line)) is not None]


def ok_records(study_dir: Path) -> dict[str, bytes]:
    """The line of each task's first valid success, by task key."""
    out: dict[str, bytes] = {}
    for _, line, rec in valid_lines(study_dir):
        if rec.get("status") == "ok":
            out.setdefault(rec["key"], line)
    return out


def failed_records(study_dir: Path) -> dict[str, dict]:
    """The last valid failure of each task without a success, by task key."""
    ok = ok_records(study_dir)
    out = {}
    for _, _, rec in valid_lines(study_dir):
        if rec.get("status") == "failed" and rec["key"] not in ok:
            out[rec["key"]] = rec
    return out


def damaged_lines(study_dir: Path) -> int:
    """Whole lines that are not valid records."""
    return sum(parse(line) is None for seg in segments(study_dir) for line in whole_lines(seg))


def rewrite_lines(path: Path, change) -> None:
    """Replace the lines of a segment by ``change(lines)``, in place (same file: a writer that
    appends to it goes on appending)."""
    lines = whole_lines(path)
    with open(path, "r+b") as fh:
        fh.seek(0)
        fh.write(b"".join(change(lines)))
        fh.truncate()


def remove_records(study_dir: Path, keys) -> None:
    """Delete the records of ``keys`` from every segment."""
    keys = set(keys)
    for seg in segments(study_dir):
        rewrite_lines(seg, lambda lines: [ln for ln in lines
                                          if (parse(ln) or {}).get("key") not in keys])


def edit_value(study_dir: Path, key: str) -> None:
    """A hand edit of a task's result that keeps the line valid JSON (its checksum no longer
    holds)."""
    def change(lines):
        out = []
        for ln in lines:
            rec = parse(ln)
            if rec is not None and rec["key"] == key:
                obj = json.loads(ln)
                obj["record"]["rows"][0]["y" if "y" in obj["record"]["rows"][0] else "auc"] += 1.0
                ln = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
            out.append(ln)
        return out
    for seg in segments(study_dir):
        rewrite_lines(seg, change)
