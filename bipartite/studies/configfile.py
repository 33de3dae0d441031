"""Reading a study's files safely, and finding the line of a key in a TOML config.

* :func:`read_regular_file`: the bytes of a regular file, refusing at once (never blocking) a
  named pipe (FIFO), a folder, a socket or a device, and files larger than a limit (checked
  before reading). The runner reads configs, manifests and task records through it.
* :func:`decode_config_text`: UTF-8 text (a UTF-8 byte-order mark is dropped), with clear errors
  for gzip-compressed, UTF-16/32 and other non-UTF-8 files.
* :func:`toml_key_lines`: the 1-based line of every key of a TOML text (``("params", "n")``,
  ``("cases", 0, "shift")``, ...), from a light lexer that knows strings, comments and
  brackets, and the refusal of values nested deeper than :data:`MAX_CONFIG_NESTING`
  (``tomllib`` would hit Python's recursion limit).

The standard library's ``tomllib`` (the parser) keeps no positions. Rather than a second TOML
parser as a dependency (``tomlkit``), the lines come from this lexer: it only has to find where
a key is written (statement starts outside strings and brackets), never to parse values, and
``tomllib`` still parses and validates the whole file.
"""


from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

#: Largest study config file read (bytes): configs are a few kB; checked before reading.
MAX_CONFIG_BYTES = 16 * 2**20
#: Deepest nesting of arrays / inline tables in a study config (a grid needs 2).
MAX_CONFIG_NESTING = 64


class NotRegularFileError(OSError):
    """A path that should be a regular file is a FIFO, a folder, a socket or a device."""


def file_kind(mode: int) -> str:
    """A short description of a file type (``os.stat`` ``st_mode``)."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def read_regular_file(path: str | os.PathLike, *, max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file ``path``.

    Opened without blocking (``O_NONBLOCK``: opening a FIFO with no writer returns at once),
    then checked with ``fstat``: anything but a regular file raises
    :class:`NotRegularFileError` (errno ``EISDIR`` for a folder, else ``EINVAL``), a file over
    ``max_bytes`` raises ``OSError(EFBIG)`` before it is read. Other ``OSError`` (missing, no
    permission) pass through.
    """
    path = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise NotRegularFileError(errno.EISDIR, "is a folder, not a regular file",
                                  str(path)) from None
    except OSError as exc:  # a socket (ENXIO), a device that cannot be opened...
        try:
            mode = os.stat(path).st_mode
        except OSError:
            raise exc from None
        if stat.S_ISREG(mode):
            raise
        raise NotRegularFileError(errno.EINVAL, f"is {file_kind(mode)}, not a regular file",
                                  str(path)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            code = errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL
            raise NotRegularFileError(code, f"is {file_kind(st.st_mode)}, not a regular file",
                                      str(path))
        if max_bytes is not None and st.st_size > max_bytes:
            raise OSError(errno.EFBIG, f"is {st.st_size:,} bytes, above the limit of "
                                       f"{max_bytes:,}", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            if max_bytes is not None and sum(map(len, chunks)) > max_bytes:
                raise OSError(errno.EFBIG, f"grew above the limit of {max_bytes:,} bytes "
                                           "while read", str(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


def decode_config_text(raw: bytes) -> str:
    """UTF-8 text of a config file (a UTF-8 byte-order mark is dropped). Raises ``ValueError``
    saying what the file looks like (gzip, UTF-16, UTF-32, binary) otherwise.

    >>> decode_config_text(b"\\xef\\xbb\\xbf[study]")
    '[study]'
    >>> decode_config_text("[study]".encode("utf-16"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the file is UTF-16 text; save it as UTF-8
    """
    if raw.startswith(b"\x1f\x8b"):
        raise ValueError("the file is gzip-compressed; decompress it (gunzip) and give the "
                         ".toml file")
    for bom, name in ((b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe\x00\x00", "UTF-32"),
                      (b"\xfe\xff", "UTF-16"), (b"\xff\xfe", "UTF-16")):
        if raw.startswith(bom):
            raise ValueError(f"the file is {name} text; save it as UTF-8")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        hint = (" (it looks like UTF-16 without a byte-order mark; save it as UTF-8)"
                if raw[:64].count(b"\x00") > 8 else "")
        raise ValueError(f"line {line}: the file is not UTF-8 text ({exc.reason} at byte "
                         f"{exc.start}){hint}") from None
    if "\x00" in text:
        line = text[:text.index("\x00")].count("\n") + 1
        raise ValueError(f"line {line}: the file holds NUL bytes: it is not a text file")
    return text


class NestingError(ValueError):
    """A TOML value nested deeper than :data:`MAX_CONFIG_NESTING`; ``line`` is 1-based."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


_KEY_PART = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_KEY_RE = re.compile(rf"\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*=")
_HEADER_RE = re.compile(rf"\s*(\[\[?)\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*\]\]?")
_PART_RE = re.compile(_KEY_PART)


def _key_parts(dotted: str) -> tuple[str, ...]:
    parts = []
    for m in _PART_RE.finditer(dotted):
        part = m.group(0)
        if part.startswith('"'):
            try:
                part = json.loads(part)
            except ValueError:
                part = part[1:-1]
        elif part.startswith("'"):
            part = part[1:-1]
        parts.append(part)
    return tuple(parts)


def _statement_lines(text: str, max_depth: int) -> list[bool]:
    """For each line, whether it starts a TOML statement: outside any string and at bracket
    depth 0. Raises :class:`NestingError` past ``max_depth``."""
    starts = [True]
    depth, line, i, n = 0, 1, 0, len(text)
    quote = None  # the open string's delimiter
    while i < n:
        c = text[i]
        if quote is not None:
            if c == "\\" and quote in ('"', '"""'):
                if text[i + 1:i + 2] == "\n":
                    line += 1
                    starts.append(False)
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
            if c == "\n":
                if len(quote) == 1:  # an unterminated one-line string: let tomllib say it
                    quote = None
                    continue
                line += 1
                starts.append(False)
            i += 1
            continue
        if c == "\n":
            line += 1
            starts.append(depth == 0)
        elif c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            continue
        elif c in "[{":
            depth += 1
            if depth > max_depth:
                raise NestingError(f"line {line}: values are nested more than {max_depth} "
                                   "levels deep (arrays or inline tables)", line)
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return starts


def toml_key_lines(text: str, *, max_depth: int = MAX_CONFIG_NESTING) -> dict[tuple, int]:
    """The 1-based line of each table header and key of a TOML text, by path.

    Paths are tuples: ``("study", "seed")``; the tables of an array of tables are numbered,
    ``("cases", 0, "shift")``. A key set inside an inline table or a multi-line array maps to
    the line of the statement holding it (see :func:`key_line`). Raises
    :class:`NestingError` for values nested deeper than ``max_depth``.

    >>> lines = toml_key_lines('[study]\\nseed = 1\\n\\n[[cases]]\\nx = 1\\n[[cases]]\\nx = 2\\n')
    >>> lines[("study", "seed")], lines[("cases", 1, "x")]
    (2, 7)
    """
    starts = _statement_lines(text, max_depth)
    lines: dict[tuple, int] = {}
    table: tuple = ()
    counts: dict[tuple, int] = {}
    for number, (content, start) in enumerate(zip(text.split("\n"), starts, strict=False),
                                              start=1):
        if not start:
            continue
        header = _HEADER_RE.match(content)
        if header is not None and not _KEY_RE.match(content):
            path = _key_parts(header.group(2))
            if header.group(1) == "[[":
                counts[path] = counts.get(path, -1) + 1
                table = (*path, counts[path])
            else:
                table = path
            lines.setdefault(table, number)
            continue
        key = _KEY_RE.match(content)
        if key is not None:
            lines.setdefault((*table, *_key_parts(key.group(1))), number)
    return lines


def key_line(lines: Mapping[tuple, int] | None, path: tuple) -> int | None:
    """The line of ``path`` in :func:`toml_key_lines`' map, else of its longest prefix found
    (the inline table or array holding it), else ``None``."""
    if not lines:
        return None
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None
