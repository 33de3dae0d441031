"""Mulan multi-label benchmarks in ARFF: emotions, scene, yeast, birds, medical, enron, CAL500.

The files, their provenance, checksums and statistics are documented in
``../shared/data/README.md`` §5 (folder ``multilabel/`` of the data folder). The reader here is a
small ARFF parser written for these files (no new dependency): scipy's
:func:`scipy.io.arff.loadarff` cannot read sparse rows (enron, medical), and liac-arff would be a
new dependency that gives no ``file:line`` in its errors. The tests compare this reader with scipy
on every dense file.

What the reader accepts (the ARFF subset the Mulan/MEKA files use):

* header lines ``@relation``, ``@attribute <name> <type>`` and ``@data`` (keywords in any case),
  ``%`` comment lines and blank lines anywhere; names and nominal values quoted with ``'`` or
  ``"``, with backslash escapes (``'Swainson\\'s Thrush'``);
* attribute types ``numeric``, ``real``, ``integer`` and nominal ``{v1, v2, ...}``; ``string``,
  ``date`` and ``relational`` are refused;
* dense rows ``v1, v2, ...`` and sparse rows ``{index value, ...}`` (0-based indices over all
  attributes, strictly increasing; an omitted entry is 0 for a numeric attribute and the first
  declared value for a nominal one, as in Weka); both kinds may be mixed;
* LF or CRLF line ends, a UTF-8 BOM, gzip-compressed files (``.arff.gz``), a last row without
  a final newline (when it is complete).

Refused, with ``file:line``: a malformed attribute line, a missing ``@data`` section, a dense row
with the wrong number of values, a sparse row without its closing brace, a bad or out-of-range or
repeated sparse index, a non-numeric or non-finite value of a numeric attribute, a value outside
a nominal set, a label value other than 0/1, a missing value ``?`` (no Mulan file has one), text
that is not UTF-8. A directory or a FIFO given as the file is refused, and so is a table larger
than :data:`MULAN_MAX_CELLS` values (checked row by row while reading, before the matrix is
allocated).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from bipartite._utils.files import open_maybe_gzip
from bipartite._utils.validation import check_option, check_positive, first_index
from bipartite.data.paths import data_dir, missing_file_error

__all__ = ["MULAN_DATASETS", "MULAN_MAX_CELLS", "load_mulan"]

#: Size limit: rows times columns (the wider of the ARFF table and the encoded ``[X, Y]``) of one
#: load. 5e7 float64 values are 400 MB; the largest Mulan set here (scene) has 2407 x 300.
MULAN_MAX_CELLS = 50_000_000

_SOURCE = ("the Mulan benchmark files (https://mulan.sourceforge.net/datasets-mlc.html); copies "
           "are in ../shared/data/multilabel, see ../shared/data/README.md section 5")
_MULAN = ("Tsoumakas, Spyromitros-Xioufis, Vilcek & Vlahavas, 'Mulan: A Java Library for "
          "Multi-Label Learning', JMLR 12:2411-2414, 2011")


@dataclass(frozen=True)
class _Set:
    n_labels: int
    n_feature_attributes: int  # ARFF attributes before the labels (before one-hot encoding)
    files: dict[str, tuple[str, ...]]  # split -> file names (concatenated in this order)
    citation: str


def _std(name: str) -> dict[str, tuple[str, ...]]:
    return {"all": (f"{name}.arff",), "train": (f"{name}-train.arff",),
            "test": (f"{name}-test.arff",)}


_SETS: dict[str, _Set] = {
    "emotions": _Set(6, 72, _std("emotions"), "Trohidis, Tsoumakas, Kalliris & Vlahavas, "
                     "'Multi-label classification of music into emotions', ISMIR 2008"),
    "scene": _Set(6, 294, _std("scene"), "Boutell, Luo, Shen & Brown, 'Learning multi-label "
                  "scene classification', Pattern Recognition 37(9):1757-1771, 2004"),
    "yeast": _Set(14, 103, _std("yeast"), "Elisseeff & Weston, 'A kernel method for "
                  "multi-labelled classification', NIPS 14, 2002"),
    "birds": _Set(19, 260, _std("birds"), "Briggs et al., 'The 9th annual MLSP competition', "
                  "IEEE MLSP 2013"),
    "medical": _Set(45, 1449, {"all": ("medical-train.arff", "medical-test.arff"),
                               "train": ("medical-train.arff",), "test": ("medical-test.arff",)},
                    "Pestian et al., 'A shared task involving multi-label classification of "
                    "clinical free text', BioNLP 2007"),
    "enron": _Set(53, 1001, _std("enron"), "Klimt & Yang, 'The Enron corpus: a new dataset for "
                  "email classification research', ECML 2004"),
    "cal500": _Set(174, 68, {"all": ("cal500.arff",)}, "Turnbull, Barrington, Torres & "
                   "Lanckriet, 'Semantic annotation and retrieval of music and sound effects', "
                   "IEEE TASLP 16(2):467-476, 2008"),
}

#: The known data sets: name -> ``{"n_labels": K, "n_feature_attributes": ..., "splits": ...}``.
MULAN_DATASETS: dict[str, dict[str, object]] = {
    name: {"n_labels": s.n_labels, "n_feature_attributes": s.n_feature_attributes,
           "splits": tuple(s.files)} for name, s in _SETS.items()
}

_SPLITS = ("all", "train", "test")
_NUMERIC = ("numeric", "real", "integer")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class _Attr:
    name: str
    values: tuple[str, ...] | None  # None: numeric; else the nominal values in declared order
    line: int

    @property
    def binary(self) -> bool:
        """A nominal {0,1} attribute: kept as one 0/1 column."""
        return self.values is not None and sorted(self.values) == ["0", "1"]

    def describe(self) -> str:
        return "numeric" if self.values is None else "{" + ",".join(self.values) + "}"


@dataclass
class _Table:
    path: Path
    relation: str
    attrs: list[_Attr]
    raw: np.ndarray  # (n, m): numeric values, nominal codes (index into the declared values)
    lines: np.ndarray  # (n,) line number of every row


# ---------------------------------------------------------------------------------------------
# Lexing: quoted names and values
# ---------------------------------------------------------------------------------------------

def _split_raw(text: str, sep: str, where: str) -> list[str]:
    """Split ``text`` at ``sep`` outside quotes; quotes are kept (see :func:`_unquote`)."""
    if "'" not in text and '"' not in text:
        return text.split(sep)
    parts, start, quote, i = [], 0, None, 0
    while i < len(text):
        c = text[i]
        if quote is not None:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == sep:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    if quote is not None:
        raise ValueError(f"{where}: unterminated {quote} quote in {_excerpt(text)}")
    parts.append(text[start:])
    return parts


def _unquote(token: str, where: str) -> str:
    """A stripped token without its quotes, backslash escapes resolved."""
    token = token.strip()
    if not token or token[0] not in "'\"":
        return token
    q, out, i = token[0], [], 1
    while i < len(token):
        c = token[i]
        if c == "\\" and i + 1 < len(token):
            out.append(_ESCAPES.get(token[i + 1], token[i + 1]))
            i += 2
            continue
        if c == q:
            if token[i + 1:].strip():
                raise ValueError(f"{where}: text after the closing quote in {_excerpt(token)}")
            return "".join(out)
        out.append(c)
        i += 1
    raise ValueError(f"{where}: unterminated {q} quote in {_excerpt(token)}")


def _excerpt(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _name_and_rest(text: str, where: str) -> tuple[str, str]:
    """Split ``name rest`` where the name may be quoted."""
    text = text.strip()
    if text[:1] in ("'", '"'):
        q, i = text[0], 1
        while i < len(text) and text[i] != q:
            i += 2 if text[i] == "\\" else 1
        if i >= len(text):
            raise ValueError(f"{where}: unterminated {q} quote in {_excerpt(text)}")
        return _unquote(text[:i + 1], where), text[i + 1:].strip()
    bits = text.split(None, 1)
    return bits[0], (bits[1].strip() if len(bits) > 1 else "")


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------

def _check_regular_file(path: Path, what: str = "Mulan ARFF") -> None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise missing_file_error(path, what, _SOURCE) from None
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{path}: is a directory; give an ARFF file")
    if not stat.S_ISREG(mode):
        raise ValueError(f"{path}: not a regular file (a FIFO, socket or device); give an ARFF "
                         "file")


def _lines(path: Path) -> Iterator[tuple[int, str, bool]]:
    """``(line number, text without the line end, ended with a newline)``, decoded as UTF-8."""
    try:
        with open_maybe_gzip(path, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                if lineno == 1:
                    raw = raw.removeprefix(b"\xef\xbb\xbf")
                ended = raw.endswith(b"\n")
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise ValueError(f"{path}:{lineno}: not UTF-8 text ({exc.reason})") from None
                yield lineno, text.rstrip("\r\n"), ended
    except (OSError, EOFError) as exc:  # not gzip although the name says so, unreadable
        raise ValueError(f"{path}: cannot read the ARFF file: {exc}") from None


def _attribute(text: str, where: str, lineno: int) -> _Attr:
    body = text.strip()[len("@attribute"):]
    if not body[:1].isspace():
        raise ValueError(f"{where}: malformed @attribute line {_excerpt(text)}")
    name, kind = _name_and_rest(body, where)
    if not name or not kind:
        raise ValueError(f"{where}: malformed @attribute line {_excerpt(text)}: expected "
                         "'@attribute <name> <type>'")
    if kind.lower() in _NUMERIC:
        return _Attr(name, None, lineno)
    if kind.startswith("{"):
        if not kind.endswith("}"):
            raise ValueError(f"{where}: nominal type of attribute {name!r} does not end with "
                             f"'}}': {_excerpt(kind)}")
        values = tuple(_unquote(v, where) for v in _split_raw(kind[1:-1], ",", where))
        if any(v == "" for v in values) or len(set(values)) != len(values) or not values:
            raise ValueError(f"{where}: nominal type of attribute {name!r} has empty or "
                             f"repeated values: {_excerpt(kind)}")
        return _Attr(name, values, lineno)
    raise ValueError(f"{where}: attribute {name!r} has type {_excerpt(kind)}; only numeric, real, "
                     "integer and nominal {...} attributes are supported")


def _read(path: Path, *, n_labels: int, max_cells: int, rows_before: int = 0) -> _Table:
    """Parse one ARFF file into a raw table (numeric values and nominal codes); ``rows_before``
    rows of earlier files count against ``max_cells``."""
    _check_regular_file(path)
    relation, attrs = "", []
    it = _lines(path)
    data_line = 0
    for lineno, text, _ in it:
        s = text.strip()
        if not s or s.startswith("%"):
            continue
        where = f"{path}:{lineno}"
        key = s.split(None, 1)[0].lower()
        if key == "@relation":
            relation = _unquote(s[len("@relation"):], where)
        elif key == "@attribute":
            attrs.append(_attribute(s, where, lineno))
        elif key == "@data":
            data_line = lineno
            break
        else:
            raise ValueError(f"{where}: expected @relation, @attribute or @data in the header, "
                             f"got {_excerpt(s)}")
    if not data_line:
        raise ValueError(f"{path}: no @data section (the header ends at the end of the file)")
    if not attrs:
        raise ValueError(f"{path}:{data_line}: @data before any @attribute")
    _check_label_attrs(attrs, n_labels, path)
    m = len(attrs)
    width = max(m, _header_width(attrs, n_labels))
    if (rows_before + 1) * width > max_cells:
        after = f" after {rows_before} rows of earlier files" if rows_before else ""
        raise ValueError(f"{path}:{data_line}: {width} columns{after} exceed the size limit "
                         f"max_cells={max_cells} (MULAN_MAX_CELLS)")
    dense_rows: list[int] = []
    dense_tokens: list[list[str]] = []
    sp_rows: list[int] = []
    sp_cols: list[int] = []
    sp_tokens: list[str] = []
    lines: list[int] = []
    for lineno, text, ended in it:
        s = text.strip()
        if not s or s.startswith("%"):
            continue
        where = f"{path}:{lineno}"
        row = len(lines)
        if (rows_before + row + 1) * width > max_cells:
            raise ValueError(f"{where}: {rows_before + row + 1} rows of {width} columns exceed "
                             f"the size limit max_cells={max_cells} (MULAN_MAX_CELLS)")
        cut = "" if ended else " (the last line has no newline: a truncated file?)"
        if s.startswith("{"):
            if not s.endswith("}"):
                raise ValueError(f"{where}: sparse row without its closing '}}'{cut}")
            _sparse_row(s[1:-1], where, m, row, sp_rows, sp_cols, sp_tokens)
        else:
            if "'" in s or '"' in s:
                tokens = [_unquote(t, where) for t in _split_raw(s, ",", where)]
            else:
                tokens = [t.strip() for t in s.split(",")]
            if len(tokens) != m:
                raise ValueError(f"{where}: a dense row must have {m} values (one per "
                                 f"@attribute), got {len(tokens)}{cut}")
            dense_rows.append(row)
            dense_tokens.append(tokens)
        lines.append(lineno)
    if not lines:
        raise ValueError(f"{path}:{data_line}: no data rows after @data")
    n = len(lines)
    line_arr = np.asarray(lines, dtype=np.int64)
    raw = np.zeros((n, m), dtype=np.float64)
    if dense_rows:
        rows = np.asarray(dense_rows, dtype=np.int64)
        raw[rows] = _convert_dense(np.array(dense_tokens, dtype=object), attrs, path,
                                   line_arr[rows])
    if sp_rows:
        r = np.asarray(sp_rows, dtype=np.int64)
        c = np.asarray(sp_cols, dtype=np.int64)
        raw[r, c] = _convert_sparse(r, c, sp_tokens, attrs, path, line_arr)
    return _Table(path, relation, attrs, raw, line_arr)


def _sparse_row(inner: str, where: str, m: int, row: int, rows: list[int], cols: list[int],
                tokens: list[str]) -> None:
    if not inner.strip():
        return
    prev = -1
    for item in _split_raw(inner, ",", where):
        bits = _WS.split(item.strip(), maxsplit=1)
        if len(bits) != 2:
            raise ValueError(f"{where}: sparse entry {_excerpt(item.strip())} is not "
                             "'<index> <value>'")
        try:
            j = int(bits[0])
        except ValueError:
            raise ValueError(f"{where}: sparse index {bits[0]!r} is not an integer") from None
        if not 0 <= j < m:
            raise ValueError(f"{where}: sparse index {j} out of range: there are {m} attributes "
                             f"(indices 0..{m - 1})")
        if j <= prev:
            raise ValueError(f"{where}: sparse indices must be strictly increasing, got {j} "
                             f"after {prev}")
        prev = j
        rows.append(row)
        cols.append(j)
        tokens.append(_unquote(bits[1], where))


def _value_error(path: Path, line: int, attr: _Attr, token: str, labels: bool) -> ValueError:
    if token == "?":
        return ValueError(f"{path}:{line}: missing value '?' for attribute {attr.name!r}; "
                          "missing values are not supported")
    if attr.values is None:
        return ValueError(f"{path}:{line}: attribute {attr.name!r} is numeric, got "
                          f"{_excerpt(token)} (not a finite number)")
    return ValueError(f"{path}:{line}: value {_excerpt(token)} of attribute {attr.name!r} is not "
                      f"in its nominal set {attr.describe()}")


def _to_float(tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tokens -> float64, and a mask of the tokens that are not finite numbers."""
    try:
        out = tokens.astype(np.float64)
    except (ValueError, TypeError):
        out = np.array([_float_or_nan(t) for t in tokens.ravel()]).reshape(tokens.shape)
    return out, ~np.isfinite(out)


def _float_or_nan(token: str) -> float:
    try:
        return float(token)
    except ValueError:
        return float("nan")


def _codes(tokens: np.ndarray, attr: _Attr) -> np.ndarray:
    index = {v: i for i, v in enumerate(attr.values or ())}
    return np.fromiter((index.get(t, -1) for t in tokens), dtype=np.int64, count=len(tokens))


def _convert_dense(T: np.ndarray, attrs: list[_Attr], path: Path, lines: np.ndarray
                   ) -> np.ndarray:
    out = np.empty(T.shape, dtype=np.float64)
    numeric = [j for j, a in enumerate(attrs) if a.values is None]
    if numeric:
        vals, bad = _to_float(T[:, numeric])
        if bad.any():
            i, k = first_index(bad)
            raise _value_error(path, int(lines[i]), attrs[numeric[k]], str(T[i, numeric[k]]),
                               False)
        out[:, numeric] = vals
    for j, a in enumerate(attrs):
        if a.values is not None:
            codes = _codes(T[:, j], a)
            if (codes < 0).any():
                i = first_index(codes < 0)
                raise _value_error(path, int(lines[i]), a, str(T[i, j]), False)
            out[:, j] = codes
    return out


def _convert_sparse(rows: np.ndarray, cols: np.ndarray, tokens: list[str], attrs: list[_Attr],
                    path: Path, lines: np.ndarray) -> np.ndarray:
    T = np.array(tokens, dtype=object)
    out = np.empty(len(T), dtype=np.float64)
    is_num = np.array([a.values is None for a in attrs])[cols]
    if is_num.any():
        vals, bad = _to_float(T[is_num])
        if bad.any():
            e = int(np.flatnonzero(is_num)[first_index(bad)])
            raise _value_error(path, int(lines[rows[e]]), attrs[cols[e]], str(T[e]), False)
        out[is_num] = vals
    for e in np.flatnonzero(~is_num):
        a = attrs[cols[e]]
        code = a.values.index(T[e]) if T[e] in a.values else -1
        if code < 0:
            raise _value_error(path, int(lines[rows[e]]), a, str(T[e]), False)
        out[e] = code
    return out


# ---------------------------------------------------------------------------------------------
# Encoding: features and labels
# ---------------------------------------------------------------------------------------------

def _feature_columns(a: _Attr) -> list[str]:
    if a.values is None or a.binary:
        return [a.name]
    return [f"{a.name}={v}" for v in a.values]


def _header_width(attrs: list[_Attr], n_labels: int) -> int:
    return sum(len(_feature_columns(a)) for a in attrs[:-n_labels]) + n_labels


def _check_label_attrs(attrs: list[_Attr], n_labels: int, path: Path) -> None:
    if not 1 <= n_labels < len(attrs):
        raise ValueError(f"{path}: n_labels={n_labels} labels need at least {n_labels + 1} "
                         f"attributes (at least one feature), the file has {len(attrs)}")
    for a in attrs[-n_labels:]:
        if a.values is not None and not a.binary:
            raise ValueError(f"{path}:{a.line}: attribute {a.name!r} is one of the last "
                             f"{n_labels} attributes (the labels) but is typed {a.describe()}, "
                             "not {0,1}; check n_labels")


def _encode(table: _Table, n_labels: int) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    attrs, raw, path = table.attrs, table.raw, table.path
    feats, labs = attrs[:-n_labels], attrs[-n_labels:]
    names = [c for a in feats for c in _feature_columns(a)]
    X = np.empty((raw.shape[0], len(names)), dtype=np.float64)
    col = 0
    for j, a in enumerate(feats):
        if a.values is None:
            X[:, col] = raw[:, j]
            col += 1
        elif a.binary:
            X[:, col] = np.array([float(v) for v in a.values])[raw[:, j].astype(np.int64)]
            col += 1
        else:
            k = len(a.values)
            X[:, col:col + k] = np.eye(k)[raw[:, j].astype(np.int64)]
            col += k
    Y = np.empty((raw.shape[0], n_labels), dtype=np.int64)
    for k, a in enumerate(labs):
        j = len(feats) + k
        if a.values is None:
            v = raw[:, j]
            bad = (v != 0) & (v != 1)
            if bad.any():
                i = first_index(bad)
                raise ValueError(f"{path}:{table.lines[i]}: label {a.name!r} must be 0 or 1, "
                                 f"got {v[i]:g}")
            Y[:, k] = v
        else:
            Y[:, k] = np.array([int(x) for x in a.values])[raw[:, j].astype(np.int64)]
    return X, Y, names, [a.name for a in labs]


# ---------------------------------------------------------------------------------------------
# Public loader
# ---------------------------------------------------------------------------------------------

def _find(folder: Path, name: str) -> Path:
    """``folder/multilabel/name`` or ``folder/name``, each also as ``.gz``."""
    for base in (folder / "multilabel", folder):
        for cand in (base / name, base / f"{name}.gz"):
            if cand.exists():
                return cand
    raise missing_file_error(folder / "multilabel" / name, "Mulan ARFF", _SOURCE)


def _known_name(name_or_path: str | os.PathLike) -> str | None:
    """The data-set name, or None for a path."""
    if isinstance(name_or_path, os.PathLike):
        return None
    s = name_or_path
    if any(c in s for c in "/\\.") or (os.altsep and os.altsep in s):
        return None
    if s.lower() not in _SETS:
        raise ValueError(f"The 'name_or_path' parameter must be one of {sorted(_SETS)} or the "
                         f"path of an ARFF file, got {s!r}.")
    return s.lower()


def _stem_set(path: Path) -> str | None:
    stem = path.name.lower().removesuffix(".gz").removesuffix(".arff")
    stem = re.sub(r"[-_](train|test)$", "", stem)
    return stem if stem in _SETS else None


def _same_header(a: _Table, b: _Table) -> None:
    if [(x.name, x.values) for x in a.attrs] == [(x.name, x.values) for x in b.attrs]:
        return
    for x, y in zip(a.attrs, b.attrs, strict=False):
        if (x.name, x.values) != (y.name, y.values):
            raise ValueError(f"{b.path}:{y.line}: attribute {y.name!r} {y.describe()} differs "
                             f"from {a.path}:{x.line} ({x.name!r} {x.describe()}); the files "
                             "cannot be concatenated")
    raise ValueError(f"{b.path}: has {len(b.attrs)} attributes, {a.path} has {len(a.attrs)}; "
                     "the files cannot be concatenated")


def load_mulan(name_or_path: str | os.PathLike, *, split: str = "all",
               data_home: str | os.PathLike | None = None, n_labels: int | None = None,
               max_cells: int = MULAN_MAX_CELLS) -> Bunch:
    """Load a Mulan multi-label benchmark (ARFF) as ``X``, ``Y`` (``../shared/data/README.md`` §5).

    Parameters
    ----------
    name_or_path : str or path
        A known set, ``"emotions"``, ``"scene"``, ``"yeast"``, ``"birds"``, ``"medical"``,
        ``"enron"`` or ``"cal500"`` (any case), looked up as ``multilabel/<file>`` in the data
        folder, then as ``<file>`` in the folder itself (each also as ``<file>.gz``); or the path
        of any Mulan ARFF file (dense or sparse, optionally ``.gz``). A ``str`` without ``/``,
        ``\\`` or ``.`` is taken as a name; pass a :class:`pathlib.Path` for such a file.
    split : {"all", "train", "test"}
        For a known set: the whole set (default) or Mulan's standard train/test file. ``medical``
        exists only as its two halves, so its ``"all"`` is ``medical-train`` then
        ``medical-test`` concatenated (333 + 645 = 978 rows); ``cal500`` has no standard split
        (``"train"``/``"test"`` raise). For a path it must be ``"all"``.
    data_home : path or None
        The data folder (:func:`bipartite.data.data_dir`: this argument, else
        ``$BIPARTITE_DATA``, else ``../shared/data``). Only for a known set.
    n_labels : int or None
        K, the number of labels: the labels are always the **last K attributes**. For a known set
        K is known (emotions 6, scene 6, yeast 14, birds 19, medical 45, enron 53, cal500 174) and
        a different ``n_labels`` raises. For a path, K is taken from this argument, else from the
        file name when it names a known set (``enron-train.arff`` -> 53), else the call raises:
        K cannot be inferred safely, because the ``@relation`` tag is unreliable (``medical``'s
        says ``-C 45``, meaning labels first, while its labels are the last 45) and features can
        be ``{0,1}`` nominal too (every feature of enron and medical is).
    max_cells : int
        Size limit on rows x columns (default :data:`MULAN_MAX_CELLS`), checked while reading,
        before the matrices are allocated.

    Encoding. Numeric attributes give one column. A nominal ``{0,1}`` feature (birds'
    ``hasSegments``; every bag-of-words feature of enron and medical) gives one 0/1 column. Any
    other nominal feature is one-hot encoded in its declared value order, columns named
    ``<name>=<value>`` (birds' ``location`` -> ``location=2``, ``location=10``, ...: birds has
    258 + 1 + 12 = 271 columns). ``X`` is dense float64, as in the other loaders (the largest
    set, scene, is 2407 x 294; enron 1702 x 1001 is 14 MB); ``Y`` is int64 in {0, 1}, as in the
    other loaders (int8 would overflow in ``Y.T @ Y`` on CAL500).

    A missing file raises ``FileNotFoundError`` saying where to get it; a malformed file raises
    ``ValueError`` naming ``file:line`` (see the module docstring for the rules). For a known
    set, a file whose attribute count is not the Mulan one (e.g. the 1909-feature
    "medical-corrected" variant) raises.

    Returns
    -------
    Bunch with ``X`` (n, p) float64, ``Y`` (n, K) int64, ``feature_names`` (p,),
    ``label_names`` (K,), ``name``, ``split``, ``paths`` (the files read, in order),
    ``file_index`` (n,) (which of ``paths`` each row came from), ``relation`` (the
    ``@relation`` of each file, informational only) and ``DESCR``.

    >>> from bipartite.data import data_file
    >>> d = load_mulan(data_file("multilabel/emotions.arff", required=True))
    >>> d.X.shape, d.Y.shape, round(float(d.Y.sum(1).mean()), 4)
    ((593, 72), (593, 6), 1.8685)
    """
    if not isinstance(name_or_path, str | os.PathLike):
        raise TypeError(f"The 'name_or_path' parameter must be a data-set name or a path, got "
                        f"{type(name_or_path).__name__}.")
    split = check_option(split, "split", _SPLITS)
    max_cells = check_positive(max_cells, "max_cells", integer=True)
    if n_labels is not None:
        n_labels = check_positive(n_labels, "n_labels", integer=True)
    name = _known_name(name_or_path)
    if name is not None:
        spec = _SETS[name]
        if split not in spec.files:
            raise ValueError(f"The 'split' parameter {split!r} is not available for {name!r}: it "
                             f"has no standard train/test split (available: "
                             f"{list(spec.files)}).")
        if n_labels is not None and n_labels != spec.n_labels:
            raise ValueError(f"The 'n_labels' parameter must be {spec.n_labels} for {name!r} (or "
                             f"None), got {n_labels}.")
        folder = data_dir(data_home)
        paths = [_find(folder, f) for f in spec.files[split]]
        K = spec.n_labels
    else:
        if data_home is not None:
            raise ValueError("The 'data_home' parameter applies to a data-set name only; got a "
                             f"path {str(name_or_path)!r} and data_home={str(data_home)!r}.")
        if split != "all":
            raise ValueError(f"The 'split' parameter must be 'all' for a path, got {split!r}; "
                             "load the train or test file by its own path.")
        path = Path(name_or_path)
        _check_regular_file(path)
        name = _stem_set(path)
        K = n_labels or (_SETS[name].n_labels if name else None)
        if n_labels is not None and name is not None and n_labels != _SETS[name].n_labels:
            name = None  # an explicit K wins; the file is then not taken for the known set
        if K is None:
            raise ValueError(f"The 'n_labels' parameter is needed for {path}: the file name "
                             f"does not name a known set ({sorted(_SETS)}), and K cannot be "
                             "read from the file (the @relation tag is unreliable and features "
                             "may be {0,1} too).")
        spec = _SETS[name] if name is not None else None
        name = path.name
        paths = [path]
    tables: list[_Table] = []
    for p in paths:
        t = _read(p, n_labels=K, max_cells=max_cells,
                  rows_before=sum(t.raw.shape[0] for t in tables))
        if spec is not None and len(t.attrs) != spec.n_feature_attributes + K:
            raise ValueError(f"{p}: has {len(t.attrs)} attributes; the Mulan file has "
                             f"{spec.n_feature_attributes} features + {K} labels")
        if tables:
            _same_header(tables[0], t)
        tables.append(t)
    parts = [_encode(t, K) for t in tables]
    X = parts[0][0] if len(parts) == 1 else np.vstack([p[0] for p in parts])
    Y = parts[0][1] if len(parts) == 1 else np.vstack([p[1] for p in parts])
    file_index = np.repeat(np.arange(len(tables)), [t.raw.shape[0] for t in tables])
    descr = _descr(name, split, paths, X, Y, spec)
    return Bunch(X=X, Y=Y, feature_names=parts[0][2], label_names=parts[0][3], name=name,
                 split=split, paths=[str(p) for p in paths], file_index=file_index,
                 relation=[t.relation for t in tables], DESCR=descr)


def _descr(name: str, split: str, paths: list[Path], X: np.ndarray, Y: np.ndarray,
           spec: _Set | None) -> str:
    prior = Y.mean(axis=0)
    lines = [
        f"Mulan multi-label data set {name!r}, split {split!r}: {X.shape[0]} rows, "
        f"{X.shape[1]} feature columns, K = {Y.shape[1]} labels (the last K ARFF attributes).",
        f"Label cardinality {Y.sum(axis=1).mean():.4f}, "
        f"{len(np.unique(Y, axis=0))} distinct label sets, "
        f"priors {prior.min():.4f} to {prior.max():.4f}.",
        "Files: " + ", ".join(str(p) for p in paths) + ".",
        "Provenance, checksums and statistics: ../shared/data/README.md section 5.",
        f"Cite: {_MULAN}" + (f"; and {spec.citation}." if spec is not None else "."),
    ]
    return "\n".join(lines)
