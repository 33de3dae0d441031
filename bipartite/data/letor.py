"""LETOR / MSLR / Yahoo-LTR loaders in SVMlight format, with file:line errors (docs/theory.md §10)."""


from __future__ import annotations

import bz2
import gzip
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import DTypeLike
from sklearn.utils import Bunch

from bipartite._utils.validation import (
    check_option,
    check_random_state,
    check_real,
    first_index,
)
from bipartite.data.clicks import simulate_clicks
from bipartite.data.paths import missing_file_error

__all__ = ["LETOR4_FOLDS", "LETOR_SOURCES", "MSLR_CLICK_FEATURES", "letor4_parts", "letor_files",
           "letor_fold_files", "letor_layout", "load_letor", "load_letor_query"]



# ================================================================================================
# LETOR / MSLR (docs/theory.md §10)
# ================================================================================================

#: Where to get the learning-to-rank data (used in FileNotFoundError messages).
LETOR_SOURCES = (
    "MSLR-WEB10K/30K: https://www.microsoft.com/en-us/research/project/mslr/ ; "
    "LETOR 4.0 (MQ2007/MQ2008): "
    "https://www.microsoft.com/en-us/research/project/letor-learning-rank-information-retrieval/ ; "
    "copies of MQ2008 S1..S5 and the LightGBM Yahoo sample are in ../shared/data/letor "
    "(see ../shared/data/README.md); an MSLR-shaped synthetic file can be written with "
    "bipartite.data.make_mslr_like"
)
#: LETOR feature ids (1-based) of the MSLR click features: query-url click count, url click
#: count, url dwell time.
MSLR_CLICK_FEATURES = (134, 135, 136)
#: Default base-ranking feature for simulated clicks: BM25 of the whole document (LETOR 4.0
#: feature 25 of 46; MSLR feature 110 of 136).
_BM25_WHOLE = {46: 25, 136: 110}
_CLICK_OPTIONS = ("auto", "feature", "simulated")
_HEAD = re.compile(rb"[ \t\r\f\v]*([^\s#]+)(?:[ \t\r\f\v]+([^\s#]+))?")
_BOM = b"\xef\xbb\xbf"
#: Size limit of the dense feature matrix: the largest feature index read from a file (its width)
#: may be at most 100,000 unless ``n_features`` is given explicitly (a one-off index of
#: 999999999 would otherwise allocate a dense n × 10^9 matrix).
LETOR_MAX_FEATURES = 100_000
#: Largest relevance label / qid accepted: integers exactly representable in float64.
_MAX_INT_LABEL = 2**53


def _open_binary(path: Path):
    """Open like sklearn's loader does: gzip / bz2 by extension, else plain binary."""
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    if path.suffix == ".bz2":
        return bz2.BZ2File(path, "rb")
    return open(path, "rb")


def _scan_rows(path: Path, *, want_qid: bool) -> tuple[np.ndarray | None, np.ndarray]:
    """One pass over the lines as sklearn reads them (text after ``#`` dropped, blank lines
    skipped): the qid of every data row (if ``want_qid``) and its 1-based line number.

    Raises ``ValueError`` naming ``file:line`` for a data row without a valid ``qid:`` token,
    and for a truncated last row (:func:`_truncated_last_row`).
    """
    qids: list[int] = []
    lines: list[int] = []
    rows: tuple[bytes, bytes] = (b"", b"")  # the last two data rows
    with _open_binary(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            if lineno == 1:
                raw = raw.removeprefix(_BOM)
            m = _HEAD.match(raw)
            if m is None:
                continue
            lines.append(lineno)
            rows = (rows[1], raw)
            if not want_qid:
                continue
            tok = m.group(2)
            if tok is None or not tok.startswith(b"qid"):
                raise ValueError(
                    f"{path}:{lineno}: missing 'qid:' token after the relevance label: "
                    f"{_excerpt(raw)}"
                )
            try:
                q = int(tok.split(b":", 1)[1])
            except (IndexError, ValueError):
                raise ValueError(
                    f"{path}:{lineno}: malformed qid token {tok.decode(errors='replace')!r} "
                    f"(expected qid:<integer>)"
                ) from None
            if abs(q) >= _MAX_INT_LABEL:
                raise ValueError(
                    f"{path}:{lineno}: qid {q} is out of range (|qid| < 2**53)"
                )
            qids.append(q)
    problem = _truncated_last_row(*rows)
    if problem:
        raise ValueError(f"{path}:{lines[-1]}: truncated file: the last row {problem}; "
                         f"{_excerpt(rows[1])}")
    lines_arr = np.asarray(lines, dtype=np.int64)
    return (np.asarray(qids, dtype=np.int64) if want_qid else None), lines_arr


def _truncated_last_row(before: bytes, last: bytes) -> str | None:
    """Why the last data row ``last`` (the row before it: ``before``) is cut short, or None.

    LETOR rows are dense: every row lists the same features. A last row without its newline that
    lists fewer ``index:value`` tokens than the row before, or lost the ``#`` comment that row
    has (the cut may then be inside its last value), is a truncated file, not a row whose
    remaining features are 0. A last row without newline that is complete is accepted."""
    if not before or last.endswith(b"\n"):
        return None
    n_before = len(before.split(b"#", 1)[0].split())
    n_last = len(last.split(b"#", 1)[0].split())
    if n_last < n_before:
        return (f"has {n_last} tokens where the row before has {n_before}, and no final "
                "newline")
    if b"#" in before and b"#" not in last:
        return "lost the '#' comment that the row before has, and has no final newline"
    return None


def _excerpt(raw: bytes, limit: int = 80) -> str:
    text = raw.decode(errors="replace").rstrip("\r\n")
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _line_problem(raw: bytes) -> str | None:
    """Full check of one SVMlight line (slow path, used only to locate an error): relevance a
    non-negative integer, optional ``qid:int``, then ``index:value`` tokens with integer indices
    ≥ 1, strictly increasing, and finite float values. Returns a description or None."""
    text = raw.split(b"#", 1)[0]
    parts = text.split()
    if not parts:
        return None
    label = parts[0].decode(errors="replace")
    try:
        rel = float(parts[0])
    except ValueError:
        return f"relevance label {label!r} is not a number"
    if not (math.isfinite(rel) and rel >= 0 and rel == int(rel)):
        return f"relevance label {label!r} is not a non-negative integer"
    if rel >= _MAX_INT_LABEL:
        return f"relevance label {label!r} is out of range (< 2**53)"
    feats = parts[1:]
    if feats and feats[0].startswith(b"qid"):
        tok = feats[0].decode(errors="replace")
        bits = feats[0].split(b":", 1)
        if len(bits) != 2 or not bits[1].lstrip(b"-").isdigit():
            return f"malformed qid token {tok!r}"
        feats = feats[1:]
    prev = 0
    for f in feats:
        tok = f.decode(errors="replace")
        bits = f.split(b":", 1)
        if len(bits) != 2:
            return f"feature token {tok!r} is not index:value"
        try:
            idx = int(bits[0])
        except ValueError:
            return f"feature index in {tok!r} is not an integer"
        if idx < 1:
            return f"feature index in {tok!r} must be >= 1 (LETOR features are 1-based)"
        if idx <= prev:
            return f"feature indices must be strictly increasing, got {tok!r} after {prev}"
        try:
            v = float(bits[1])
        except ValueError:
            return f"feature value in {tok!r} is not a number"
        if not math.isfinite(v):
            return f"feature value in {tok!r} is not finite"
        prev = idx
    return None


def _locate_bad_line(path: Path) -> tuple[int, str, bytes] | None:
    with _open_binary(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            problem = _line_problem(raw.removeprefix(_BOM) if lineno == 1 else raw)
            if problem is not None:
                return lineno, problem, raw
    return None


def _bad_line_error(path: Path, fallback: str) -> ValueError:
    found = _locate_bad_line(path)
    if found is None:
        return ValueError(f"{path}: cannot be parsed as a LETOR/SVMlight file: {fallback}")
    lineno, problem, raw = found
    return ValueError(f"{path}:{lineno}: malformed LETOR line ({problem}): {_excerpt(raw)}")


def _parse_svmlight(path: Path, *, want_qid: bool, dtype: DTypeLike, n_features: int | None):
    """Parse one LETOR/SVMlight file -> (CSR X, relevance int64, qid or None, line numbers).

    The relevance must be a non-negative integer and every value finite; violations raise
    ``ValueError`` with ``file:line``.
    """
    from sklearn.datasets import load_svmlight_file

    if not path.is_file():
        raise missing_file_error(path, "LETOR", LETOR_SOURCES)
    try:
        qid, lines = _scan_rows(path, want_qid=want_qid)
    except (OSError, EOFError) as exc:  # not gzip / bz2 although the name says so, unreadable
        raise ValueError(f"{path}: cannot read the LETOR file: {exc}") from exc
    if len(lines) == 0:
        raise ValueError(f"{path}: the LETOR file holds no data rows (empty file)")
    try:
        with _open_binary(path) as fh:
            if fh.read(3) != _BOM:  # a UTF-8 BOM is skipped, as in the CSV loaders
                fh.seek(0)
            X, y = load_svmlight_file(
                fh, dtype=dtype, zero_based=False, query_id=False, n_features=n_features
            )
    except ValueError as exc:
        raise _bad_line_error(path, str(exc)) from exc
    if n_features is None and X.shape[1] > LETOR_MAX_FEATURES:
        col = int(np.argmax(X.indices))
        row = int(np.searchsorted(X.indptr, col, side="right") - 1)
        raise ValueError(
            f"{path}:{lines[row]}: feature index {X.shape[1]} would make a dense X of "
            f"{X.shape[0]} x {X.shape[1]} values, more than the limit of "
            f"LETOR_MAX_FEATURES = {LETOR_MAX_FEATURES} features; pass 'n_features' explicitly "
            f"to raise it deliberately"
        )
    if X.shape[0] != len(lines):
        raise ValueError(
            f"{path}: the SVMlight parser read {X.shape[0]} rows but the file has "
            f"{len(lines)} data lines"
        )
    bad = ~np.isfinite(y) | (y < 0) | (y != np.round(y)) | (y >= _MAX_INT_LABEL)
    if bad.any():
        raise _bad_line_error(path, f"bad relevance label at row {first_index(bad)}")
    bad_vals = ~np.isfinite(X.data)
    if bad_vals.any():
        row = int(np.searchsorted(X.indptr, first_index(bad_vals), side="right") - 1)
        raise ValueError(
            f"{path}:{lines[row]}: malformed LETOR line (a feature value is not finite)"
        )
    return X, y.astype(np.int64), qid, lines


def _check_dtype(dtype: DTypeLike) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"The 'dtype' parameter must be float32 or float64, got {dtype!r}.") from None
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"The 'dtype' parameter must be float32 or float64, got {dtype!r}.")
    return dt


def _check_threshold(relevance_threshold: float) -> float:
    r = check_real(relevance_threshold, "relevance_threshold")
    if not (math.isfinite(r) and r > 0):
        raise ValueError(
            "The 'relevance_threshold' parameter must be a positive finite number "
            f"(Y_rel = 1[relevance >= threshold]), got {relevance_threshold!r}."
        )
    return r


def _check_n_features(n_features: int) -> int | None:
    if n_features is None:
        return None
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)):
        raise TypeError(f"The 'n_features' parameter must be None or an int, got {n_features!r}.")
    if n_features < 1:
        raise ValueError(f"The 'n_features' parameter must be positive, got {n_features!r}.")
    return int(n_features)


def _check_options(relevance_threshold, click, dtype, n_features, base_feature, base_noise):
    thr = _check_threshold(relevance_threshold)
    click = check_option(click, "click", _CLICK_OPTIONS)
    dt = _check_dtype(dtype)
    nf = _check_n_features(n_features)
    if not (
        base_feature is None
        or base_feature == "auto"
        or (isinstance(base_feature, (int, np.integer)) and not isinstance(base_feature, bool)
            and base_feature >= 1)
    ):
        raise ValueError(
            "The 'base_feature' parameter must be 'auto', None or a LETOR feature id >= 1, "
            f"got {base_feature!r}."
        )
    noise = check_real(base_noise, "base_noise")
    if not (math.isfinite(noise) and noise >= 0):
        raise ValueError(f"The 'base_noise' parameter must be finite and >= 0, got {base_noise!r}.")
    return thr, click, dt, nf, noise


def _letor_bunch(
    parts: list, files: list[Path], *, threshold: float, click: str, seed: int | np.random.Generator, dtype: np.dtype,
    n_features: int | None, base_feature: int | str, base_noise: float, click_params: dict | None,
) -> Bunch:
    """Stack parsed files, build the dense X and the labels [relevant, click]."""
    width = n_features or max(X.shape[1] for X, *_ in parts)
    n = sum(X.shape[0] for X, *_ in parts)
    full = np.zeros((n, width), dtype=dtype)
    relevance = np.empty(n, dtype=np.int64)
    qid = np.empty(n, dtype=np.int64)
    file_index = np.empty(n, dtype=np.int64)
    r0 = 0
    for i, (X, y, q, _) in enumerate(parts):
        r1 = r0 + X.shape[0]
        if X.shape[1] < width:
            X = X.__class__((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
        X.toarray(out=full[r0:r1])
        relevance[r0:r1] = y
        qid[r0:r1] = q
        file_index[r0:r1] = i
        r0 = r1
    names = [f"f{j + 1}" for j in range(width)]
    if click == "auto":
        click = "feature" if width == 136 else "simulated"
    if click == "feature":
        if width < max(MSLR_CLICK_FEATURES):
            raise ValueError(
                f"The 'click' parameter 'feature' needs the MSLR click features 134-136 "
                f"(136-feature MSLR-WEB files), but {', '.join(map(str, files))} has only "
                f"{width} features; use click='simulated'."
            )
        cols = [j - 1 for j in MSLR_CLICK_FEATURES]
        click_features = full[:, cols].astype(np.float64)
        y_click = (click_features[:, 0] > 0).astype(np.int64)
        X = np.delete(full, cols, axis=1)
        del full
        names = [nm for j, nm in enumerate(names) if j not in cols]
        source = "feature: Y_click = 1[f134 > 0] (query-url click count); f134-f136 dropped from X"
        params: dict = {"feature": 134, "rule": "f134 > 0", "dropped": list(MSLR_CLICK_FEATURES)}
    else:
        X = full
        click_features = None
        rng = check_random_state(seed)
        bf = _BM25_WHOLE.get(width) if base_feature == "auto" else base_feature
        if bf is not None:
            if bf > width:
                raise ValueError(
                    f"The 'base_feature' parameter {bf} exceeds the number of features {width}."
                )
            base = X[:, bf - 1].astype(np.float64)
            base_desc = f"feature f{bf}"
        else:
            base = relevance + base_noise * rng.standard_normal(n)
            base_desc = f"relevance + N(0, {base_noise:g}^2) noise"
        sim = simulate_clicks(relevance, qid, base, seed=rng, return_details=True,
                              **(click_params or {}))
        y_click = sim.clicks
        params = dict(sim.params, base_ranking=base_desc)
        source = (
            f"simulated: position-based click model over the ranking by {base_desc} "
            f"(see simulate_clicks)"
        )
    Y = np.column_stack([(relevance >= threshold).astype(np.int64), y_click])
    return Bunch(
        X=X,
        Y=Y,
        qid=qid,
        relevance=relevance,
        feature_names=names,
        label_names=["relevant", "click"],
        click_source=source,
        click_params=params,
        click_features=click_features,
        file_index=file_index,
        files=[str(f) for f in files],
        relevance_threshold=threshold,
    )


def load_letor(
    path: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    relevance_threshold: float = 1,
    click: str = "auto",
    seed: int | np.random.Generator = 0,
    dtype: DTypeLike = np.float64,
    n_features: int | None = None,
    base_feature: int | str = "auto",
    base_noise: float = 1.0,
    click_params: dict | None = None,
) -> Bunch:
    """Load LETOR/SVMlight file(s) with ``qid:`` as a two-label problem (docs/theory.md §10).

    Lines are ``rel qid:Q 1:v 2:v … # comment``. Labels ``Y = [Y_rel, Y_click]`` with
    ``Y_rel = 1[relevance ≥ relevance_threshold]`` and the click label by ``click``:

    * ``"feature"``: ``Y_click = 1[f134 > 0]`` (MSLR query-url click count); the click features
      134–136 are removed from ``X`` (returned in ``click_features``).
    * ``"simulated"``: clicks from the position-based model of :func:`simulate_clicks` over a base
      ranking within each query: by LETOR feature ``base_feature`` (``"auto"``: BM25 of the whole
      document, feature 25 for 46-feature LETOR 4.0 files, 110 for 136-feature files; else, or
      with ``None``, by ``relevance + N(0, base_noise²)``), ties broken at random; ``click_params``
      is passed on to :func:`simulate_clicks` (``eta_pos``, ``epsilon_minus``, ``epsilon_plus``,
      ``max_grade``). Seeded by ``seed``.
    * ``"auto"``: ``"feature"`` when the data has exactly 136 features, else ``"simulated"``.

    **MSLR-WEB10K / WEB30K** (LA25 §7's "MSLR" table; not shipped, and not in
    ``../shared/data``). Download ``MSLR-WEB30K.zip`` (or ``MSLR-WEB10K.zip``) from
    https://www.microsoft.com/en-us/research/project/mslr/ and unzip it: a folder with
    ``Fold1`` … ``Fold5``, each holding ``train.txt``, ``vali.txt`` and ``test.txt`` (136
    features; 134–136 are the click and dwell features). Then one command runs LA25 §7's table on
    the five folds (:func:`letor_fold_files`, ``bipartite.experiments.la25.studies.section7``:
    train on each fold's ``train.txt``, test on its ``test.txt``, click = ``1[f134 > 0]``, 2000
    random queries per file, 1000 with ``--quick``)::

        bipartite reproduce --paper la25 --only section7_letor --letor /path/to/MSLR-WEB30K

    Without it, ``bipartite reproduce`` runs that table on the MQ2008 stand-in
    (``../shared/data/letor/mq2008_S1..S5.txt``), which differs from MSLR in its click label
    (simulated by :func:`simulate_clicks` over the BM25 ranking, not logged; prior about 0.04),
    its size (784 queries and 15 211 documents, against 31 531 queries and 3.77 M documents for
    WEB30K) and its features (46, against 136).

    Parameters
    ----------
    path : path or sequence of paths (e.g. MQ2008 S1..S5, stacked in order; ``file_index`` tells
        which file a row came from). Query ids are kept as written; files with overlapping qids
        would merge groups.
    relevance_threshold : positive number. dtype : float64 (default) or float32 (MSLR size).
    n_features : width of ``X`` before dropping click features (default: largest index seen).

    Returns
    -------
    Bunch with ``X`` (n, p) dense, ``Y`` (n, 2) int64, ``qid`` (n,) int64, ``relevance`` (n,)
    int64, ``feature_names`` (``"f<id>"``), ``label_names`` ``["relevant", "click"]``,
    ``click_source`` (text), ``click_params`` (dict), ``click_features`` ((n, 3) or None),
    ``file_index``, ``files``, ``relevance_threshold``.

    A missing file raises ``FileNotFoundError`` saying where to get the data; a malformed line
    raises ``ValueError`` naming ``file:line``.

    >>> from bipartite.data import data_file
    >>> d = load_letor(data_file("letor/mq2008_S1.txt", required=True))
    >>> d.X.shape, len(set(d.qid)), int(d.Y[:, 0].sum())
    ((2933, 46), 157, 617)
    """
    thr, click, dt, nf, noise = _check_options(
        relevance_threshold, click, dtype, n_features, base_feature, base_noise
    )
    if isinstance(path, (str, os.PathLike)):
        files = [Path(path)]
    else:
        files = [Path(p) for p in path]
        if not files:
            raise ValueError("The 'path' parameter must name at least one file, got [].")
    for f in files:
        if not f.is_file():
            raise missing_file_error(f, "LETOR", LETOR_SOURCES)
    parts = [_parse_svmlight(f, want_qid=True, dtype=dt, n_features=nf) for f in files]
    return _letor_bunch(
        parts, files, threshold=thr, click=click, seed=seed, dtype=dt, n_features=nf,
        base_feature=base_feature, base_noise=noise, click_params=click_params,
    )


def _read_query_file(path: Path) -> np.ndarray:
    """Group sizes, one positive integer per non-blank line; errors name ``file:line``."""
    sizes = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            text = (raw.removeprefix(_BOM) if lineno == 1 else raw).strip()
            if not text:
                continue
            try:
                v = int(text)
            except ValueError:
                raise ValueError(
                    f"{path}:{lineno}: a query file line must be a positive integer group size, "
                    f"got {_excerpt(raw)}"
                ) from None
            if v < 1:
                raise ValueError(
                    f"{path}:{lineno}: a query file line must be a positive integer group size, "
                    f"got {v}"
                )
            sizes.append(v)
    if not sizes:
        raise ValueError(f"{path}: the query file holds no group sizes")
    return np.asarray(sizes, dtype=np.int64)


def load_letor_query(
    data_path: str | os.PathLike,
    query_path: str | os.PathLike,
    *,
    relevance_threshold: float = 1,
    click: str = "auto",
    seed: int | np.random.Generator = 0,
    dtype: DTypeLike = np.float64,
    n_features: int | None = None,
    base_feature: int | str = "auto",
    base_noise: float = 1.0,
    click_params: dict | None = None,
) -> Bunch:
    """Load a LightGBM-style ranking file: SVMlight rows without ``qid:`` plus a query file of
    group sizes (one integer per line, consecutive rows) (docs/theory.md §10).

    The number of data rows must equal the sum of the group sizes (``ValueError`` naming both
    files otherwise). ``qid`` is the group index ``0 … G−1``. Labels, options and the returned
    Bunch are those of :func:`load_letor`, plus ``group_sizes`` (G,).

    >>> from bipartite.data import data_file
    >>> d = load_letor_query(data_file("letor/lightgbm_yahoo_rank_test.txt", required=True),
    ...                      data_file("letor/lightgbm_yahoo_rank_test_query.txt", required=True))
    >>> d.X.shape[0], len(d.group_sizes), d.click_source.split(":")[0]
    (768, 50, 'simulated')
    """
    thr, click, dt, nf, noise = _check_options(
        relevance_threshold, click, dtype, n_features, base_feature, base_noise
    )
    data_path, query_path = Path(data_path), Path(query_path)
    for f in (data_path, query_path):
        if not f.is_file():
            raise missing_file_error(f, "LETOR", LETOR_SOURCES)
    sizes = _read_query_file(query_path)
    X, y, _, lines = _parse_svmlight(data_path, want_qid=False, dtype=dt, n_features=nf)
    if int(sizes.sum()) != X.shape[0]:
        raise ValueError(
            f"{query_path}: {len(sizes)} group sizes summing to {int(sizes.sum())}, but "
            f"{data_path} has {X.shape[0]} data rows; they must match."
        )
    qid = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    out = _letor_bunch(
        [(X, y, qid, lines)], [data_path], threshold=thr, click=click, seed=seed, dtype=dt,
        n_features=nf, base_feature=base_feature, base_noise=noise, click_params=click_params,
    )
    out.group_sizes = sizes
    return out


# ================================================================================================
# Fold layouts of the LETOR collections (the one home of the LETOR 4.0 and MSLR fold logic)
# ================================================================================================

#: The LETOR 4.0 fold layout (MQ2007/MQ2008 readme): fold k (1-5) -> (training parts, validation
#: part, test part), parts S1..S5: fold k trains on S_k, S_k+1, S_k+2, validates on S_k+3 and
#: tests on S_k+4 (indices mod 5).
LETOR4_FOLDS: dict[int, tuple[tuple[int, int, int], int, int]] = {
    k: (tuple((k - 1 + i) % 5 + 1 for i in range(3)), (k + 2) % 5 + 1, (k + 3) % 5 + 1)
    for k in range(1, 6)
}


def letor4_parts(folder: str | os.PathLike) -> list[Path] | None:
    """The five LETOR 4.0 parts S1..S5 in ``folder`` (``mq2008_S<i>.txt``, else ``S<i>.txt``), or
    None when they are not all there.

    >>> letor4_parts("/nonexistent") is None
    True
    """
    folder = Path(folder)
    for pattern in ("mq2008_S{}.txt", "S{}.txt"):
        parts = [folder / pattern.format(i) for i in range(1, 6)]
        if all(p.is_file() for p in parts):
            return parts
    return None


def letor_layout(path: str | os.PathLike | None) -> str | None:
    """``"mq2008"`` if the folder ``path`` holds the five LETOR 4.0 parts S1..S5
    (:func:`letor4_parts`), ``"mslr"`` if it holds MSLR-WEB folds (``Fold1..Fold5/train.txt`` and
    ``test.txt``), else None (also for None or a file).

    >>> letor_layout(None) is None
    True
    """
    if path is None or not Path(path).is_dir():
        return None
    path = Path(path)
    if letor4_parts(path) is not None:
        return "mq2008"
    if all((path / f"Fold{k}" / f).is_file() for k in range(1, 6) for f in ("train.txt",
                                                                             "test.txt")):
        return "mslr"
    return None


def letor_fold_files(path: str | os.PathLike, fold: int) -> tuple[list[Path], list[Path], str]:
    """The training and test files of fold ``fold`` (1-5) of the LETOR folder ``path``, and its
    layout (:func:`letor_layout`).

    * LETOR 4.0 parts (``"mq2008"``): the training parts and the test part of
      :data:`LETOR4_FOLDS` (the validation part is not returned);
    * MSLR-WEB folds (``"mslr"``): ``Fold<fold>/train.txt`` and ``Fold<fold>/test.txt``.

    >>> LETOR4_FOLDS[1], LETOR4_FOLDS[2]
    (((1, 2, 3), 4, 5), ((2, 3, 4), 5, 1))
    """
    if isinstance(fold, bool) or not isinstance(fold, int | np.integer) or fold not in LETOR4_FOLDS:
        raise ValueError(f"The 'fold' parameter must be one of {sorted(LETOR4_FOLDS)}, got "
                         f"{fold!r}.")
    path = Path(path)
    parts = letor4_parts(path) if path.is_dir() else None
    if parts is not None:
        train, _, test = LETOR4_FOLDS[int(fold)]
        return [parts[i - 1] for i in train], [parts[test - 1]], "mq2008"
    folder = path / f"Fold{int(fold)}"
    if (folder / "train.txt").is_file() and (folder / "test.txt").is_file():
        return [folder / "train.txt"], [folder / "test.txt"], "mslr"
    raise FileNotFoundError(f"{path}: neither LETOR 4.0 parts (mq2008_S1..S5.txt or "
                            "S1..S5.txt) nor MSLR folds (Fold1..Fold5/train.txt, test.txt).")


def letor_files(path: str | os.PathLike) -> list[Path]:
    """A LETOR file, or the LETOR files (with ``qid:``) of a folder: the LETOR 4.0 parts
    ``*S1..S5.txt`` if present, else every ``*.txt`` whose first line has a ``qid:`` field."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"LETOR path {path} does not exist.")
    parts = sorted(path.glob("*S[0-9].txt"))
    if parts:
        return parts
    files = []
    for f in sorted(path.glob("*.txt")):
        with open(f, encoding="utf-8", errors="replace") as fh:
            if "qid:" in fh.readline():
                files.append(f)
    if not files:
        raise FileNotFoundError(f"no LETOR file with 'qid:' fields in {path}.")
    return files
