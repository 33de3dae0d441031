"""bipartite.data.load_mulan: the Mulan multi-label benchmarks (../shared/data/README.md §5).

References: the statistics table of the data README (computed there by an independent parser and
matching Mulan's own table), scipy.io.arff.loadarff on every dense file, a slow regex reader of
the sparse rows written here, and small synthetic ARFF files for every malformed-file error.
"""

from __future__ import annotations

import gzip
import os
import re
from collections import Counter
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bipartite.data import DATA_ENV, MULAN_DATASETS, MULAN_MAX_CELLS, data_dir, load_mulan

MULTILABEL = data_dir().resolve() / "multilabel"
needs_data = pytest.mark.skipif(
    not MULTILABEL.is_dir(),
    reason=f"real data folder {MULTILABEL} is absent (CI has ../shared/data beside the clone)")

# ../shared/data/README.md §5, "Statistics": n, feature columns (birds: 258 numeric + hasSegments
# as one 0/1 column + location one-hot over its 12 declared codes = 271), K, cardinality, density,
# distinct label sets, prior range (rounded as printed there), rows with no label.
STATS = {
    "emotions": (593, 72, 6, "1.8685", "0.311", 27, ("0.250", "0.445"), 0),
    "yeast": (2417, 103, 14, "4.2371", "0.303", 198, ("0.014", "0.751"), 0),
    "scene": (2407, 294, 6, "1.0740", "0.179", 15, ("0.151", "0.221"), 0),
    "enron": (1702, 1001, 53, "3.3784", "0.064", 753, ("0.0006", "0.536"), 0),
    "medical": (978, 1449, 45, "1.2454", "0.028", 94, ("0.0010", "0.272"), 0),
    "birds": (645, 271, 19, "1.0140", "0.053", 133, ("0.009", "0.160"), 294),
    # the README prints cal500's top prior as 0.885, a double rounding of 444/502 = 0.88446
    # (0.8845 -> 0.885); its count, 444, is checked exactly below
    "cal500": (502, 68, 174, "26.044", "0.150", 502, ("0.010", "0.884"), 0),
}
# README "Standard splits": train/test sizes and cardinalities.
SPLITS = {
    "emotions": (391, 202, 1.813, 1.975), "yeast": (1500, 917, 4.228, 4.252),
    "scene": (1211, 1196, 1.062, 1.086), "enron": (1123, 579, 3.386, 3.363),
    "medical": (333, 645, 1.255, 1.240), "birds": (322, 323, 1.059, 0.969),
}
# README "Labels and priors": some label counts, by name (quoted names unescaped).
COUNTS = {
    "emotions": {"relaxing-calm": 264, "quiet-still": 148, "amazed-suprised": 173},
    "yeast": {"Class12": 1816, "Class14": 34, "Class9": 178},
    "scene": {"Mountain": 533, "Sunset": 364, "Beach": 427},
    "enron": {"B.B2": 913, "A.A1": 855, "D.D18": 1, "C.C6": 249},
    "medical": {"Class-4-753_0": 266, "Class-32-486": 137, "Class-5-786_2": 1},
    "birds": {"Swainson's Thrush": 103, "MacGillivray's Warbler": 6, "Brown Creeper": 14},
    "cal500": {"Song-Recorded": 444, "Genre--_Swing": 5, "Instrument_-_Male_Lead_Vocals": 339},
}


@cache
def _load(name, split="all"):
    return load_mulan(name, split=split)


def _as_printed(x, ref):
    """``x`` printed with as many decimals as the README prints ``ref`` (a string) with."""
    return f"{float(x):.{len(ref.split('.')[1])}f}"


@needs_data
@pytest.mark.parametrize("name", list(STATS))
def test_statistics_match_the_data_readme(name):
    n, p, K, card, density, distinct, (lo, hi), empty = STATS[name]
    d = _load(name)
    assert d.X.shape == (n, p) and d.Y.shape == (n, K)
    assert d.X.dtype == np.float64 and d.Y.dtype == np.int64
    assert set(np.unique(d.Y)) <= {0, 1} and np.isfinite(d.X).all()
    assert len(d.feature_names) == p and len(d.label_names) == K == MULAN_DATASETS[name]["n_labels"]
    assert _as_printed(d.Y.sum(axis=1).mean(), card) == card
    assert _as_printed(d.Y.mean(), density) == density
    assert len(np.unique(d.Y, axis=0)) == distinct
    prior = d.Y.mean(axis=0)
    assert (_as_printed(prior.min(), lo), _as_printed(prior.max(), hi)) == (lo, hi)
    assert int((d.Y.sum(axis=1) == 0).sum()) == empty
    counts = dict(zip(d.label_names, d.Y.sum(axis=0).tolist(), strict=True))
    assert {k: counts[k] for k in COUNTS[name]} == COUNTS[name]
    assert d.name == name and d.split == "all" and f"K = {K}" in d.DESCR


@needs_data
@pytest.mark.parametrize("name", list(SPLITS))
def test_standard_splits(name):
    n_tr, n_te, c_tr, c_te = SPLITS[name]
    tr, te = _load(name, "train"), _load(name, "test")
    assert (tr.Y.shape[0], te.Y.shape[0]) == (n_tr, n_te)
    assert (round(tr.Y.sum(1).mean(), 3), round(te.Y.sum(1).mean(), 3)) == (c_tr, c_te)
    assert tr.feature_names == te.feature_names and tr.label_names == te.label_names
    whole = _load(name)
    assert whole.feature_names == tr.feature_names
    if name == "medical":  # no whole-set file: "all" is train then test
        assert [os.path.basename(p) for p in whole.paths] == ["medical-train.arff",
                                                              "medical-test.arff"]
        np.testing.assert_array_equal(whole.file_index, np.repeat([0, 1], [n_tr, n_te]))
        np.testing.assert_array_equal(whole.X, np.vstack([tr.X, te.X]))
        np.testing.assert_array_equal(whole.Y, np.vstack([tr.Y, te.Y]))
        return
    def multiset(*blocks):  # rows as bytes (exact float64 values), counted
        return Counter(r.tobytes() for b in blocks for r in np.hstack([b.X, b.Y.astype(float)]))

    assert multiset(whole) == multiset(tr, te)  # train + test rows = the whole set's rows


@needs_data
def test_medical_labels_are_the_last_45_despite_its_relation_tag():
    """medical's @relation says '-C 45' (MEKA: labels first); the labels are the last 45."""
    d = _load("medical")
    assert all("-C 45" in r for r in d.relation)
    assert (d.label_names[0], d.label_names[-1]) == ("Class-0-593_70", "Class-44-786_07")
    assert d.feature_names[:3] == ["-", "/", "0"]
    assert all(name.startswith(f"Class-{k}-") for k, name in enumerate(d.label_names))


@needs_data
def test_cal500_has_no_split_and_unknown_names_are_refused():
    with pytest.raises(ValueError, match="'split' parameter 'train' is not available for "
                                         "'cal500': it has no standard train/test split"):
        load_mulan("cal500", split="train")
    with pytest.raises(ValueError, match=r"'name_or_path' parameter must be one of \['birds'"):
        load_mulan("bibtex")
    with pytest.raises(ValueError, match="'split' parameter must be one of"):
        load_mulan("emotions", split="valid")
    with pytest.raises(ValueError, match="'n_labels' parameter must be 6 for 'emotions'"):
        load_mulan("emotions", n_labels=5)
    assert load_mulan("CAL500").Y.shape[1] == 174  # names in any case


def _scipy_reference(path):
    """X and Y by scipy: numeric columns as floats, {0,1} nominal as 0/1, other nominal one-hot
    in declared order; labels the last K columns."""
    import csv

    from scipy.io import arff

    limit = csv.field_size_limit()
    try:
        data, meta = arff.loadarff(path)
    finally:  # loadarff raises the process-global csv field size limit for good
        csv.field_size_limit(limit)
    cols, names = [], []
    for a in meta.names():
        kind, values = meta[a]
        a = a.replace("\\'", "'")  # scipy keeps the backslash of an escaped quote
        if kind == "numeric":
            cols.append(data[a.replace("'", "\\'")].astype(np.float64)[:, None])
            names.append(a)
        elif sorted(values) == ["0", "1"]:
            cols.append(data[a.replace("'", "\\'")].astype(np.float64)[:, None])
            names.append(a)
        else:
            v = data[a].astype(str)
            cols.append(np.column_stack([v == c for c in values]).astype(np.float64))
            names += [f"{a}={c}" for c in values]
    return np.hstack(cols), names


@needs_data
@pytest.mark.parametrize("name", ["emotions", "yeast", "scene", "birds", "cal500"])
def test_dense_files_match_scipy(name):
    d = _load(name)
    ref, names = _scipy_reference(MULTILABEL / f"{name}.arff")
    np.testing.assert_array_equal(np.hstack([d.X, d.Y]), ref)
    assert d.feature_names + d.label_names == names
    if name == "birds":
        assert "location=2" in d.feature_names and "Swainson's Thrush" in d.label_names


def _slow_sparse(path, n_labels):
    """Slow reference for the sparse files: a regex per ``index value`` pair, all values 0/1."""
    text = open(path, encoding="utf-8").read()
    header, body = re.split(r"(?im)^@data\s*$", text)
    m = len(re.findall(r"(?im)^@attribute", header))
    rows = [ln for ln in body.splitlines() if ln.strip()]
    full = np.zeros((len(rows), m))
    for i, ln in enumerate(rows):
        for j, v in re.findall(r"(\d+)\s+(\S+?)\s*(?:,|})", ln):
            full[i, int(j)] = float(v)
    return full[:, :-n_labels], full[:, -n_labels:]


@needs_data
@pytest.mark.parametrize("file", ["enron-test.arff", "medical-train.arff", "medical-test.arff"])
def test_sparse_files_match_a_slow_reference(file):
    d = load_mulan(MULTILABEL / file)  # K from the file name
    X, Y = _slow_sparse(MULTILABEL / file, d.Y.shape[1])
    np.testing.assert_array_equal(d.X, X)
    np.testing.assert_array_equal(d.Y, Y)
    assert d.name == file


@needs_data
def test_data_home_env_and_flat_folder(tmp_path, monkeypatch):
    raw = (MULTILABEL / "emotions-test.arff").read_bytes()
    (tmp_path / "emotions-test.arff.gz").write_bytes(gzip.compress(raw))  # flat folder, gzip
    ref = _load("emotions", "test")
    d = load_mulan("emotions", split="test", data_home=tmp_path)
    np.testing.assert_array_equal(d.X, ref.X)
    assert d.paths == [str(tmp_path / "emotions-test.arff.gz")]
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    np.testing.assert_array_equal(load_mulan("emotions", split="test").Y, ref.Y)
    with pytest.raises(FileNotFoundError, match="emotions-train.arff.*Mulan"):
        load_mulan("emotions", split="train")
    crlf = tmp_path / "crlf.arff"  # CRLF line ends, no K in the name
    crlf.write_bytes(raw.replace(b"\n", b"\r\n"))
    np.testing.assert_array_equal(load_mulan(crlf, n_labels=6).X, ref.X)


# --------------------------------------------------------------------------------------------
# Synthetic files: parsing rules and every malformed-file error, with file:line
# --------------------------------------------------------------------------------------------

HEAD = [
    "% a comment",
    "@RELATION 'toy: -C 2'",
    "",
    "@attribute x1 numeric",
    "@attribute 'site id' {a,'b c',z}",
    "@attribute flag {1,0}",
    "@attribute 'it\\'s' {0,1}",
    "@attribute lab2 numeric",
    "@data",
]
ROWS = ["1.5,a,0,1,0", "-2e-1, 'b c', 1, 0, 1", "{0 3,1 z,3 1}", "{}"]


def _write(tmp_path, lines, name="toy.arff", newline=True):
    p = tmp_path / name
    p.write_text("\n".join(lines) + ("\n" if newline else ""), encoding="utf-8")
    return p


def test_small_file_dense_and_sparse_rows(tmp_path):
    d = load_mulan(_write(tmp_path, [*HEAD, *ROWS]), n_labels=2)
    assert d.feature_names == ["x1", "site id=a", "site id=b c", "site id=z", "flag"]
    assert d.label_names == ["it's", "lab2"]
    np.testing.assert_array_equal(d.X, [[1.5, 1, 0, 0, 0], [-0.2, 0, 1, 0, 1],
                                        [3, 0, 0, 1, 1],  # omitted nominal = first value ('1')
                                        [0, 1, 0, 0, 1]])
    np.testing.assert_array_equal(d.Y, [[1, 0], [0, 1], [1, 0], [0, 0]])
    assert d.relation == ["toy: -C 2"] and d.name == "toy.arff"
    # no final newline after a complete last row is fine
    e = load_mulan(_write(tmp_path, [*HEAD, *ROWS[:2]], "nl.arff", newline=False), n_labels=2)
    np.testing.assert_array_equal(e.Y, d.Y[:2])


@pytest.mark.parametrize(("lines", "line", "message"), [
    ([*HEAD[:3], "@attribute x1", *HEAD[4:], *ROWS], 4, "malformed @attribute line"),
    ([*HEAD[:3], "@attribute s string", *HEAD[4:], *ROWS], 4, "only numeric, real, integer"),
    ([*HEAD[:3], "@attribute n {a,b", *HEAD[4:], *ROWS], 4, "does not end with '}'"),
    ([*HEAD[:3], "@attribute 'x1 numeric", *HEAD[4:], *ROWS], 4, "unterminated ' quote"),
    ([*HEAD[:3], "@attribute n {a,a}", *HEAD[4:], *ROWS], 4, "empty or repeated values"),
    ([*HEAD[:3], "@atribute x1 numeric", *HEAD[4:], *ROWS], 4, "expected @relation, @attribute"),
    ([*HEAD, ROWS[0], "1.5,a,0,1"], 11, "a dense row must have 5 values .* got 4"),
    ([*HEAD, ROWS[0], "1.5,a,0,1,0,7"], 11, "must have 5 values .* got 6"),
    ([*HEAD, ROWS[0], "{0 1,5 1}"], 11, "sparse index 5 out of range: there are 5 attributes"),
    ([*HEAD, ROWS[0], "{0 1,0 2}"], 11, "strictly increasing, got 0 after 0"),
    ([*HEAD, ROWS[0], "{x 1}"], 11, "sparse index 'x' is not an integer"),
    ([*HEAD, ROWS[0], "{0 1,3}"], 11, "sparse entry '3' is not '<index> <value>'"),
    ([*HEAD, ROWS[0], "{0 1,3 1"], 11, "sparse row without its closing"),
    ([*HEAD, ROWS[0], "1.5,q,0,1,0"], 11, r"value 'q' of attribute 'site id' is not in its "
                                          r"nominal set \{a,b c,z\}"),
    ([*HEAD, ROWS[0], "1.5,a,0,2,0"], 11, r"value '2' of attribute \"it's\" is not in its"),
    ([*HEAD, ROWS[0], "1.5,a,0,1,0.5"], 11, "label 'lab2' must be 0 or 1, got 0.5"),
    ([*HEAD, ROWS[0], "{4 -1}"], 11, "label 'lab2' must be 0 or 1, got -1"),
    ([*HEAD, ROWS[0], "abc,a,0,1,0"], 11, "attribute 'x1' is numeric, got 'abc'"),
    ([*HEAD, ROWS[0], "nan,a,0,1,0"], 11, "attribute 'x1' is numeric, got 'nan'"),
    ([*HEAD, ROWS[0], "{0 inf}"], 11, "attribute 'x1' is numeric, got 'inf'"),
    ([*HEAD, ROWS[0], "?,a,0,1,0"], 11, "missing value '\\?' for attribute 'x1'"),
    ([*HEAD, ROWS[0], "1,'a,0,1,0"], 11, "unterminated ' quote"),
    ([*HEAD, ROWS[0], "1,'a'b,0,1,0"], 11, "text after the closing quote"),
    (HEAD[:-1], None, "no @data section"),
    (HEAD, 9, "no data rows after @data"),
    (["@data", "1,0"], 1, "@data before any @attribute"),
])
def test_malformed_files_name_file_and_line(tmp_path, lines, line, message):
    p = _write(tmp_path, lines)
    where = re.escape(str(p)) + (f":{line}" if line else "")
    with pytest.raises(ValueError, match=rf"{where}: .*{message}"):
        load_mulan(p, n_labels=2)


def test_truncated_last_row_and_bad_bytes(tmp_path):
    p = _write(tmp_path, [*HEAD, ROWS[0], "1.5,a,0"], newline=False)
    with pytest.raises(ValueError, match=rf"{re.escape(str(p))}:11: .*got 3 .*no newline: a "
                                         "truncated file"):
        load_mulan(p, n_labels=2)
    q = _write(tmp_path, [*HEAD, ROWS[0], "{0 1,3 1"], "cut.arff", newline=False)
    with pytest.raises(ValueError, match=r"cut.arff:11: sparse row without .*truncated"):
        load_mulan(q, n_labels=2)
    b = tmp_path / "bytes.arff"
    b.write_bytes(("\n".join([*HEAD, ROWS[0]]) + "\n").encode() + b"1.5,\xff,0,1,0\n")
    with pytest.raises(ValueError, match=r"bytes.arff:11: not UTF-8"):
        load_mulan(b, n_labels=2)
    g = tmp_path / "fake.arff.gz"
    g.write_bytes(b"not gzip")
    with pytest.raises(ValueError, match=r"fake.arff.gz: cannot read the ARFF file"):
        load_mulan(g, n_labels=2)
    bom = tmp_path / "bom.arff"
    bom.write_bytes(b"\xef\xbb\xbf" + ("\n".join([*HEAD, *ROWS]) + "\n").encode())
    assert load_mulan(bom, n_labels=2).X.shape == (4, 5)


def test_labels_must_be_0_1_attributes_and_k_must_fit(tmp_path):
    p = _write(tmp_path, [*HEAD, *ROWS])
    with pytest.raises(ValueError, match=rf"{re.escape(str(p))}:5: attribute 'site id' is one of "
                                         r"the last 4 attributes .* typed \{a,b c,z\}"):
        load_mulan(p, n_labels=4)
    with pytest.raises(ValueError, match="n_labels=5 labels need at least 6 attributes"):
        load_mulan(p, n_labels=5)
    with pytest.raises(ValueError, match="'n_labels' parameter is needed"):
        load_mulan(p)
    with pytest.raises(ValueError, match="'n_labels' parameter must be an int > 0"):
        load_mulan(p, n_labels=0)
    with pytest.raises(ValueError, match="'split' parameter must be 'all' for a path"):
        load_mulan(p, n_labels=2, split="train")
    with pytest.raises(ValueError, match="'data_home' parameter applies to a data-set name"):
        load_mulan(p, n_labels=2, data_home=tmp_path)
    with pytest.raises(TypeError, match="'name_or_path' parameter must be a data-set name"):
        load_mulan(3)


def test_directories_fifos_and_missing_files_are_refused(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a directory"):
        load_mulan(tmp_path, n_labels=2)
    with pytest.raises(FileNotFoundError, match="does not exist. Get it from: the Mulan"):
        load_mulan(tmp_path / "nope.arff", n_labels=2)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.arff"
        os.mkfifo(fifo)
        with pytest.raises(ValueError, match="not a regular file"):
            load_mulan(fifo, n_labels=2)  # refused without opening (which would block)


def test_size_limit_is_checked_while_reading(tmp_path):
    p = _write(tmp_path, [*HEAD, *ROWS])
    # 7 encoded columns (x1, 3 one-hot, flag, 2 labels) x 4 rows = 28 values
    assert load_mulan(p, n_labels=2, max_cells=28).X.shape == (4, 5)
    with pytest.raises(ValueError, match=rf"{re.escape(str(p))}:13: 4 rows of 7 columns exceed "
                                         "the size limit max_cells=27"):
        load_mulan(p, n_labels=2, max_cells=27)
    with pytest.raises(ValueError, match=r":9: 7 columns exceed the size limit max_cells=6"):
        load_mulan(p, n_labels=2, max_cells=6)
    assert MULAN_MAX_CELLS >= 2407 * 300  # the largest set (scene) fits


def test_concatenated_files_need_the_same_header(tmp_path, monkeypatch):
    """medical's "all" concatenates two files; a header mismatch between them names both."""
    folder = tmp_path / "multilabel"
    folder.mkdir()
    attrs = [f"@attribute f{j} {{0,1}}" for j in range(1449)] + [
        f"@attribute c{j} {{0,1}}" for j in range(45)]
    _write(folder, ["@relation m", *attrs, "@data", "{0 1,1449 1}"], "medical-train.arff")
    bad = [*attrs[:-1], "@attribute other {0,1}"]
    _write(folder, ["@relation m", *bad, "@data", "{1 1}"], "medical-test.arff")
    with pytest.raises(ValueError, match=r"medical-test.arff:1495: attribute 'other' \{0,1\} "
                                         r"differs from .*medical-train.arff:1495"):
        load_mulan("medical", data_home=tmp_path)
    assert load_mulan("medical", split="train", data_home=tmp_path).Y.sum() == 1
    _write(folder, ["@relation m", *attrs[1:], "@data", "{0 1}"], "medical-test.arff")
    with pytest.raises(ValueError, match=r"medical-test.arff: has 1493 attributes; the Mulan "
                                         "file has 1449 features \\+ 45 labels"):
        load_mulan("medical", split="test", data_home=tmp_path)


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12), p=st.integers(1, 6),
       K=st.integers(1, 4), crlf=st.booleans())
def test_dense_and_sparse_writings_of_a_table_read_back_to_it(tmp_path_factory, seed, n, p, K,
                                                               crlf):
    """Claim: a random table (numeric features with many zeros, one nominal feature, K 0/1
    labels) written as dense rows and as sparse rows (zeros and first nominal values omitted),
    with LF or CRLF line ends, reads back to the same X and Y as the table written."""
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, p)).round(3) * (rng.random((n, p)) < 0.5)
    codes = rng.integers(0, 3, size=n)
    Y = (rng.random((n, K)) < 0.4).astype(np.int64)
    head = ["@relation r", *[f"@attribute 'f {j}' numeric" for j in range(p)],
            "@attribute site {u,'v w',x}", *[f"@attribute L{k} {{0,1}}" for k in range(K)],
            "@data"]
    values = ["u", "'v w'", "x"]
    dense = [",".join([*map(repr, F[i].tolist()), values[codes[i]], *map(str, Y[i])])
             for i in range(n)]
    sparse = []
    for i in range(n):
        row = [*F[i].tolist(), codes[i], *Y[i].tolist()]
        items = [f"{j} {values[v] if j == p else repr(v)}" for j, v in enumerate(row) if v != 0]
        sparse.append("{" + ", ".join(items) + "}")
    expect = np.hstack([F, np.eye(3)[codes]])
    folder = tmp_path_factory.mktemp("roundtrip")
    for kind, rows in (("dense", dense), ("sparse", sparse)):
        path = folder / f"{kind}.arff"
        path.write_bytes(("\r\n" if crlf else "\n").join([*head, *rows]).encode())
        d = load_mulan(path, n_labels=K)
        np.testing.assert_array_equal(d.X, expect)
        np.testing.assert_array_equal(d.Y, Y)
        assert d.feature_names == [f"f {j}" for j in range(p)] + ["site=u", "site=v w", "site=x"]
