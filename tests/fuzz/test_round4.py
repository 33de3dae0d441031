"""Fuzz families of round 4 (issue 35): extreme weights, integer scores beyond 2**53, torch
tensors, ``Objective.criterion``, out-of-core inputs and the report CLI. Each generated input's
output is compared with an independent exact reference: brute-force pair sums in Python integers
and ``Fraction`` (no float arithmetic), never the package's own kernels.

Seeded (one ``numpy.random.Generator`` per case); a few cases per family in the default suite,
many under ``-m slow``.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from bipartite.metrics import auc, group_auc
from bipartite.objectives import Objective

SLOW_CASES = 60


def cases(n_default: int):
    """Seeds of a family: ``n_default`` cases, and SLOW_CASES more under ``-m slow``."""
    return [pytest.param(i) for i in range(n_default)] + [
        pytest.param(i, marks=pytest.mark.slow) for i in range(n_default, SLOW_CASES)]


# --------------------------------------------------------------------------------------------
# Exact references
# --------------------------------------------------------------------------------------------
def ref_auc(y, s, w=None) -> Fraction | None:
    """Σ_{pos i, neg j} w_i w_j ([s_i > s_j] + ½[s_i = s_j]) / (Σ_pos w Σ_neg w), exactly; None
    without both classes. Scores compared as Python numbers (integers exactly)."""
    n = len(y)
    w = [Fraction(1)] * n if w is None else [Fraction(float(v)) for v in w]
    s = [int(v) if isinstance(v, int | np.integer) else Fraction(float(v)) for v in s]
    num = den = Fraction(0)
    for i in range(n):
        if y[i] != 1 or w[i] == 0:
            continue
        for j in range(n):
            if y[j] == 0 and w[j] != 0:
                pw = w[i] * w[j]
                num += pw * (1 if s[i] > s[j] else Fraction(1, 2) if s[i] == s[j] else 0)
                den += pw
    return None if den == 0 else num / den


def ref_gauc(y, s, q, w, weighting: str) -> Fraction | None:
    """Σ_q λ_q AUC_q / Σ_q λ_q over the queries with both classes, exactly."""
    y, q = np.asarray(y), np.asarray(q)
    s = np.asarray(s, dtype=object)
    w = np.ones(len(y)) if w is None else np.asarray(w)
    num = den = Fraction(0)
    for g in pd.unique(q):
        m = q == g
        a = ref_auc(y[m], s[m], w[m])
        if a is None:
            continue
        fw = [Fraction(float(v)) for v in w[m]]
        P = sum(v for v, t in zip(fw, y[m], strict=True) if t == 1)
        N = sum(v for v, t in zip(fw, y[m], strict=True) if t == 0)
        lam = {"uniform": Fraction(1), "impressions": P + N, "pairs": P * N}[weighting]
        num, den = num + lam * a, den + lam
    return None if den == 0 else num / den


def table(rng: np.random.Generator, n: int, G: int):
    """Labels with both classes in every query, tied scores, query ids."""
    q = np.sort(rng.integers(0, G, n))
    y = rng.integers(0, 2, n)
    for g in np.unique(q):  # both classes in every query
        idx = np.flatnonzero(q == g)
        if len(idx) >= 2:
            y[idx[0]], y[idx[1]] = 0, 1
    s = rng.integers(0, 6, n) / 4  # ties
    return y, s, q


# --------------------------------------------------------------------------------------------
# Extreme weights: each query on its own scale, 1e-300 to 1e300 (and subnormal, and near max)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", cases(6))
@pytest.mark.parametrize("weighting", ["pairs", "uniform", "impressions"])
def test_extreme_query_scales(seed, weighting):
    """Claim: group_auc of each weighting equals the exact Σ λ_q AUC_q / Σ λ_q when every
    query's weights share a scale anywhere in [1e-300, 1e300] (rows within a factor 4 of it),
    and no warning is raised."""
    rng = np.random.default_rng(seed)
    y, s, q = table(rng, int(rng.integers(6, 14)), int(rng.integers(2, 4)))
    scale = 10.0 ** rng.uniform(-300, 300, q.max() + 1)
    w = scale[q] * rng.uniform(0.5, 2, len(q))
    ref = ref_gauc(y, s, q, w, weighting)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = group_auc(y, s, q, sample_weight=w, weighting=weighting)
    assert got == pytest.approx(float(ref), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", cases(6))
def test_objective_criterion_extreme_a(seed):
    """Claim: Objective("loss_aggregation", a).criterion is Σ a_k AUC_k / Σ a_k (labels with a
    comparable pair) for a of any magnitude in [5e-324, 1.7e308]."""
    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(6, 12)), int(rng.integers(2, 4))
    Y = rng.integers(0, 2, (n, K))
    Y[0], Y[1] = 0, 1  # every label has both classes
    s = rng.integers(0, 5, n) / 2
    a = np.array([rng.choice([5e-324, 1e-310, 1e-200, 1.0, 1e200, 1e308, 1.7e308])
                  for _ in range(K)])
    aucs = [ref_auc(Y[:, k], s) for k in range(K)]
    fa = [Fraction(float(v)) for v in a]
    ref = sum(x * u for x, u in zip(fa, aucs, strict=True)) / sum(fa)
    assert Objective("loss_aggregation", a=a).criterion(Y, s) == pytest.approx(float(ref),
                                                                               rel=1e-12)


# --------------------------------------------------------------------------------------------
# Integer scores beyond 2**53 (int64, uint64), NumPy and torch
# --------------------------------------------------------------------------------------------
def big_scores(rng: np.random.Generator, n: int, unsigned: bool, top: bool = True
               ) -> np.ndarray:
    """Integers beyond 2**53 with ties and neighbours 1 apart; unsigned ones from 2**63 (past
    int64) unless ``top`` is False (out of core takes |x| < 2**63 − 2**52)."""
    base = 2**63 if unsigned and top else 2**62
    step = rng.integers(0, 4, n)  # ties, and neighbours 1 apart (equal in float64)
    vals = [base + int(k) for k in step] if unsigned else [
        (base + int(k)) * (1 if rng.random() < 0.7 else -1) for k in step]
    return np.array(vals, dtype=np.uint64 if unsigned else np.int64)


@pytest.mark.parametrize("seed", cases(6))
@pytest.mark.parametrize("unsigned", [False, True])
def test_integer_scores_exact(seed, unsigned):
    """Claim: AUC, gAUC, the criterion and the in-memory report rank 64-bit integer scores
    exactly (float64 would make neighbours tie)."""
    from bipartite.diagnostics import diagnose

    rng = np.random.default_rng(seed)
    y, _, q = table(rng, int(rng.integers(6, 14)), 2)
    s = big_scores(rng, len(y), unsigned)
    ref = float(ref_auc(y, s))
    assert auc(y, s) == ref
    assert group_auc(y, s, q) == pytest.approx(float(ref_gauc(y, s, q, None, "pairs")), abs=1e-15)
    assert Objective().criterion(np.c_[y, y], s) == ref
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        t = diagnose(pd.DataFrame({"s": s, "y": y, "q": q}), "s", "y", qid="q").tables["auc"]
    assert t["auc"].iloc[0] == pytest.approx(ref, abs=1e-15)


@pytest.mark.parametrize("seed", cases(4))
def test_torch_tensors_exact(seed):
    """Claim: torch tensors (float64 with extreme weights, int64 beyond 2**53) give the exact
    reference values, as NumPy arrays do."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    y, s, q = table(rng, int(rng.integers(6, 14)), 3)
    w = (10.0 ** rng.uniform(-300, 300, q.max() + 1))[q]
    ref = float(ref_gauc(y, s, q, w, "uniform"))
    got = group_auc(torch.tensor(y), torch.tensor(s), torch.tensor(q),
                    sample_weight=torch.tensor(w), weighting="uniform")
    assert got == pytest.approx(ref, rel=1e-12)
    big = big_scores(rng, len(y), False)
    assert auc(torch.tensor(y), torch.tensor(big)) == float(ref_auc(y, big))
    assert Objective().criterion(torch.tensor(np.c_[y, y]), torch.tensor(big)) == float(
        ref_auc(y, big))


# --------------------------------------------------------------------------------------------
# Out-of-core inputs: random folders, against the exact reference
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", cases(2))
def test_out_of_core_folder_exact(seed, tmp_path):
    """Claim: a random Parquet folder (files and row groups of random sizes, float or 64-bit
    integer scores below 2**63 − 2**52 in magnitude, integer or string query ids) gives the
    exact pooled AUC and gAUC; uint64 scores past that are refused naming the column."""
    pytest.importorskip("dask.dataframe")
    from bipartite.diagnostics import diagnose

    rng = np.random.default_rng(seed)
    n = int(rng.integers(12, 30))
    y, s, q = table(rng, n, int(rng.integers(2, 5)))
    if rng.random() < 0.5:
        s = big_scores(rng, n, bool(rng.random() < 0.5), top=False)
    qid = q if rng.random() < 0.5 else np.array([f"q{v}" for v in q])
    df = pd.DataFrame({"s": s, "y": y, "q": qid})
    cuts = np.sort(rng.choice(np.arange(1, n), size=int(rng.integers(0, 3)), replace=False))
    for i, part in enumerate(np.split(np.arange(n), cuts)):
        df.iloc[part].to_parquet(tmp_path / f"p{i}.parquet",
                                 row_group_size=int(rng.integers(1, 8)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        t = diagnose(str(tmp_path), "s", "y", qid="q").tables["auc"]
    assert t["auc"].iloc[0] == pytest.approx(float(ref_auc(y, s)), abs=1e-12)
    assert t["gauc"].iloc[0] == pytest.approx(float(ref_gauc(y, s, q, None, "pairs")), abs=1e-12)
    if seed == 0:
        df.assign(s=big_scores(rng, n, True)).to_parquet(tmp_path / "p0.parquet")
        for p in tmp_path.glob("p[1-9]*.parquet"):
            p.unlink()
        with pytest.raises(ValueError, match=r"score column 's' holds the integer 92233"):
            diagnose(str(tmp_path), "s", "y", qid="q")


# --------------------------------------------------------------------------------------------
# The report CLI: random CSV tables, JSON output against the reference
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", cases(3))
def test_report_cli_exact(seed, tmp_path):
    """Claim: ``bipartite report FILE --format json`` gives the exact per-label AUC and gAUC of
    random tables (float, tied or big-integer scores, integer weights), exit status 0."""
    from bipartite.cli import main

    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 25))
    y, s, q = table(rng, n, int(rng.integers(2, 5)))
    if rng.random() < 0.5:
        s = big_scores(rng, n, False)
    w = rng.integers(1, 4, n).astype(float)
    pd.DataFrame({"s": s, "y": y, "q": q, "w": w}).to_csv(tmp_path / "t.csv", index=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["report", str(tmp_path / "t.csv"), "--score", "s", "--label", "y",
                     "--qid", "q", "--weight", "w", "--format", "json", "--no-progress"])
    assert code == 0
    row = json.loads(out.getvalue())["auc"][0]
    assert row["auc"] == pytest.approx(float(ref_auc(y, s, w)), abs=1e-12)
    assert row["gauc"] == pytest.approx(float(ref_gauc(y, s, q, w, "pairs")), abs=1e-12)
