"""bipartite._utils.files: the one "which line is not UTF-8" finder, plain and gzip."""

import gzip

import pytest

from bipartite._utils.files import first_non_utf8, open_maybe_gzip


def _reference(data: bytes):
    """Obviously correct: split on b"\\n" (keeping it) and decode each line."""
    lines = data.split(b"\n")
    for i, line in enumerate(lines, 1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return i, exc.start + 1
    return None


@pytest.mark.parametrize("data", [
    b"a,b\n1,2\n",
    b"a,b\n1,\xff2\n3,4\n",
    b"\xef\xbb\xbfa\nok\nbad \xc3\x28 here\n",
    b"no newline at end \xfe",
    b"",
])
@pytest.mark.parametrize("gz", [False, True])
def test_first_non_utf8_matches_a_line_by_line_reference(tmp_path, data, gz):
    p = tmp_path / ("f.csv.gz" if gz else "f.csv")
    p.write_bytes(gzip.compress(data) if gz else data)
    assert first_non_utf8(p) == _reference(data)
    with open_maybe_gzip(p) as fh:
        assert fh.read() == data


def test_a_utf8_character_split_only_by_position_is_not_flagged(tmp_path):
    p = tmp_path / "f.txt"
    p.write_text("é" * 10_000 + "\n" + "ü\n", encoding="utf-8")
    assert first_non_utf8(p) is None
