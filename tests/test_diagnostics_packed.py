"""The rows' packed label codes and their count (bipartite.diagnostics._packed) against a NumPy
reference, the label columns read as bools (label_bits) against the float reading they replace,
and sorted query ids coded without a count (factorize_ids) against numpy.unique."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bipartite.diagnostics._packed as P
from bipartite._utils.query_ids import factorize_ids
from bipartite.diagnostics._score_table import Source, column, label_bits


def _reference(Yt, codes, G):
    """The codes Σ_k y_k 2^k + q 2^K as Python integers, and their count."""
    K, n = Yt.shape
    lab = [sum(int(Yt[k, i]) << k for k in range(K)) + (0 if codes is None else
                                                          int(codes[i]) << K)
           for i in range(n)]
    units = G if codes is not None else 1
    cnt = np.zeros(units << K, dtype=np.int64)
    for v in lab:
        cnt[v] += 1
    return lab, cnt.reshape(units, 1 << K)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("K", [1, 2, 5, 10])
@pytest.mark.parametrize("G", [None, 1, 7, 300])
def test_packed_codes_and_counts_are_the_reference(K, G, compiled):
    """Claim: every row's code is its label bits plus its query code above them, in the
    narrowest unsigned type, and the count holds the rows of each (query, combination), by
    NumPy and by the compiled pass (the report's route from COMPILED_MIN_ROWS rows on)."""
    rng = np.random.default_rng(K * 31 + (G or 0))
    n = 257
    Yt = rng.random((K, n)) < 0.4
    codes = None if G is None else rng.integers(0, G, n)
    lab, cnt = P.packed(Yt, codes, G, compiled=compiled)
    ref_lab, ref_cnt = _reference(Yt, codes, G)
    assert lab.tolist() == ref_lab
    bits = K + (0 if G is None else (G - 1).bit_length())
    assert lab.dtype == P.code_dtype(bits)
    np.testing.assert_array_equal(cnt, ref_cnt)
    assert P.packed(Yt, codes, G, count=False, compiled=compiled)[1] is None


@pytest.mark.parametrize("K,G", [(20, 2**40), (3, 2**61), (9, 70_000), (1, 2**31)])
def test_wide_codes_without_a_count_are_the_reference(K, G):
    """Codes of 32 and 64 bits (no count: past COUNT_CELLS), by both routes, are the
    reference's; query codes at the top of their range included."""
    rng = np.random.default_rng(K)
    n = 300
    Yt = rng.random((K, n)) < 0.5
    codes = rng.integers(0, G, n)
    codes[:3] = G - 1
    ref_lab = [sum(int(Yt[k, i]) << k for k in range(K)) + (int(codes[i]) << K)
               for i in range(n)]
    for compiled in (False, True):
        lab, cnt = P.packed(Yt, codes, G, compiled=compiled)
        assert cnt is None and lab.tolist() == ref_lab


def test_no_count_past_its_cells(monkeypatch):
    """Past COUNT_CELLS the codes are made, the count is not (None)."""
    rng = np.random.default_rng(0)
    Yt, codes = rng.random((3, 50)) < 0.5, rng.integers(0, 40, 50)
    monkeypatch.setattr(P, "COUNT_CELLS", (40 << 3) - 1)
    for compiled in (False, True):
        lab, cnt = P.packed(Yt, codes, 40, compiled=compiled)
        assert cnt is None and lab.tolist() == _reference(Yt, codes, 40)[0]


def test_codes_past_64_bits_are_refused():
    """K label bits and the query codes' bits beyond 64 raise, before any allocation."""
    assert P.fits(10, 2**54) and not P.fits(10, 2**54 + 1) and not P.fits(65, None)
    with pytest.raises(ValueError, match="do not fit one 64-bit code"):
        P.packed(np.zeros((65, 3), dtype=bool), None, None)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int64", "float64"])
def test_label_bits_are_the_float_labels(dtype):
    """Claim: a valid 0/1 label column reads as the same labels as column(); an invalid one
    raises column()'s error, word for word."""
    rng = np.random.default_rng(1)
    src = Source("data")
    y = (rng.random(40) < 0.5).astype(dtype)
    df = pd.DataFrame({"y": y})
    got = label_bits(df, "y", src)
    assert got.dtype == bool
    np.testing.assert_array_equal(got, column(df, "y", "label", src) != 0)
    if dtype == "bool":
        return
    for bad in (2, -1) if dtype[0] != "u" else (2,):
        z = y.copy()
        z[5] = bad
        dz = pd.DataFrame({"y": z})
        with pytest.raises(ValueError) as ref:
            column(dz, "y", "label", src)
        with pytest.raises(ValueError) as e:
            label_bits(dz, "y", src)
        assert str(e.value) == str(ref.value)


@pytest.mark.parametrize("case", ["dense", "gaps", "offset", "unsorted", "one", "bool",
                                  "uint64-top"])
def test_sorted_ids_are_numpy_unique(case):
    """Claim: integer ids coded by factorize_ids, sorted (a log's order) or not, are
    numpy.unique's ids and inverse, dtype included."""
    rng = np.random.default_rng(4)
    q = np.sort(rng.integers(0, 50, 400))
    q = {"dense": q, "gaps": q * 3, "offset": q - 1000, "unsorted": rng.permutation(q),
         "one": np.full(10, 7), "bool": np.sort(rng.random(30) < 0.5),
         "uint64-top": (np.uint64(2**64 - 100) + np.sort(rng.integers(0, 30, 60)).astype(
             np.uint64))}[case]
    ids, codes = factorize_ids(q)
    ref_ids, ref_codes = np.unique(q, return_inverse=True)
    np.testing.assert_array_equal(ids, ref_ids)
    assert ids.dtype == ref_ids.dtype
    np.testing.assert_array_equal(codes, ref_codes.reshape(-1))


def test_a_small_report_loads_no_numba():
    """Below COMPILED_MIN_ROWS the report (reading, packing, counting, walks) runs in NumPy:
    numba, whose first load costs most of a second, is not imported (a fresh process)."""
    import subprocess
    import sys

    code = ("import sys, warnings; import numpy as np; warnings.simplefilter('ignore')\n"
            "from bipartite.diagnostics import diagnose\n"
            "rng = np.random.default_rng(0); n = 3000\n"
            "diagnose({'s': rng.normal(size=n), 'y': rng.integers(0, 2, n), "
            "'z': rng.integers(0, 2, n), 'q': np.sort(rng.integers(0, 30, n))}, "
            "scores='s', labels=['y', 'z'], qid='q')\n"
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[-1] == "False"


@pytest.mark.parametrize("bad", [9, -1])
def test_compiled_packing_refuses_codes_outside_the_queries(bad):
    """A query code outside 0..G−1 is refused by name and row (the compiled count would write
    outside its table; the NumPy route's count has the wrong length and fails too)."""
    Yt = np.zeros((2, 5), dtype=bool)
    codes = np.array([0, 3, bad, 1, 2])
    with pytest.raises(ValueError, match=rf"query code {bad} at row 2 is outside 0\.\.8"):
        P.packed(Yt, codes, 9, compiled=True)
    with pytest.raises(ValueError):
        P.packed(Yt, codes, 9)
