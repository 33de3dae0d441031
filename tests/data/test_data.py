"""Tests of bipartite.data (docs/theory.md §10): synthetic problem, Banking, LETOR/MSLR loaders.

Monte Carlo checks use tolerances of 5 standard errors computed from the exact probabilities, so
they pass with overwhelming probability when sampling agrees with the exact η/joint/π, and fail
for a bias of a few standard errors. References: a direct ``scipy.integrate.dblquad`` of π, a
Python loop for the label draw, sklearn's ``load_svmlight_file(query_id=True)`` and pandas for
the parsers, a per-row f-string writer for the MSLR formatter, a per-query loop for the ranks.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special
from sklearn.datasets import load_svmlight_file

from bipartite import data
from bipartite.data import (
    load_banking,
    load_letor,
    load_letor_query,
    make_mslr_like,
    make_synthetic,
    simulate_clicks,
    synthetic_model,
)
from bipartite.data.mslr import _format_letor_block
from bipartite.data.synthetic import _draw_label_vectors
from bipartite.population import FiniteProblem

Z = 5.0  # tolerance in standard errors


# ------------------------------------------------------------------------------------------------
# Synthetic problem
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        dict(priors=(0.2,), beta=4.0, dim=1),
        dict(priors=(0.3, 0.6), beta=8.0, dim=2),
        dict(priors=(0.1, 0.5, 0.9), beta=50.0, dim=2),
        dict(priors=(0.25, 0.7), beta=np.inf, dim=2),
        dict(priors=(0.3, 0.7, 0.4), beta=3.0, dim=4),
    ],
)
def test_priors_hit_targets_by_monte_carlo(kw):
    """π_k = E[η_k(X)] equals the target: the quadrature says so to 1e-9, and an independent Monte
    Carlo mean of the exact η over uniform X agrees within 5 standard errors."""
    m = synthetic_model(**kw)
    np.testing.assert_allclose(m.pi, kw["priors"], atol=1e-9)
    assert m.prior_error < 1e-9 and m.quadrature_error < 1e-5
    X = np.random.default_rng(7).uniform(-1, 1, size=(200_000, m.dim))
    E = m.eta(X)
    se = E.std(axis=0) / np.sqrt(len(X))
    assert np.all(np.abs(E.mean(axis=0) - np.asarray(kw["priors"])) <= Z * se + 1e-12)


def test_prior_quadrature_against_dblquad():
    """The d = 2 rule (closed form in one coordinate + composite Gauss-Legendre) matches a plain
    adaptive 2-D integral of σ(β(⟨u, x⟩ − t)) over the box, at the solved thresholds."""
    m = synthetic_model(priors=(0.15, 0.5, 0.8), beta=6.0, dim=2)
    for u, t, p in zip(m.directions, m.thresholds, m.priors, strict=True):
        val, _ = integrate.dblquad(
            lambda y, x, u=u, t=t: special.expit(6.0 * (u[0] * x + u[1] * y - t)),
            -1, 1, -1, 1, epsabs=1e-11, epsrel=1e-11,
        )
        assert abs(val / 4.0 - p) < 1e-8


def test_directions_and_seed_independence():
    """The problem (directions, thresholds, η) depends on (priors, beta, rho, dim) only: samples
    with different seeds share one model; d = 2 uses angles πk/K; directions are unit vectors."""
    a = make_synthetic(50, priors=(0.3, 0.6), seed=1)
    b = make_synthetic(50, priors=(0.3, 0.6), seed=2)
    assert a.model is b.model
    assert not np.allclose(a.X, b.X)
    np.testing.assert_allclose(a.model.directions, [[1.0, 0.0], [0.0, 1.0]], atol=1e-15)
    np.testing.assert_array_equal(a.eta, b.model.eta(a.X))
    m3 = synthetic_model(priors=(0.2, 0.3, 0.4), dim=2)
    ang = np.arctan2(m3.directions[:, 1], m3.directions[:, 0])
    np.testing.assert_allclose(ang, np.pi * np.arange(3) / 3, atol=1e-12)
    m5 = synthetic_model(priors=(0.2, 0.3), dim=5)
    np.testing.assert_allclose(np.linalg.norm(m5.directions, axis=1), 1.0)
    np.testing.assert_array_equal(m5.directions, synthetic_model(priors=(0.2, 0.3), dim=5).directions)


def test_eta_formula_and_bunch_contents():
    """η_k(x) = σ(β(⟨u_k, x⟩ − t_k)) written out by hand; the Bunch holds exact eta, joint, pi."""
    d = make_synthetic(300, priors=(0.3, 0.6), beta=8.0, rho=0.5, seed=3)
    m = d.model
    hand = 1.0 / (1.0 + np.exp(-8.0 * (d.X @ m.directions.T - m.thresholds)))
    np.testing.assert_allclose(d.eta, hand, rtol=1e-12)
    assert d.Y.dtype == np.int64 and set(np.unique(d.Y)) <= {0, 1}
    assert d.joint.shape == (300, 4)
    np.testing.assert_allclose(d.joint.sum(axis=1), 1.0, atol=1e-12)
    V = np.array(list(itertools.product([0, 1], repeat=2)))
    np.testing.assert_allclose(d.joint @ V, d.eta, atol=1e-7)  # marginals of the joint
    np.testing.assert_array_equal(d.pi, m.pi)
    assert np.all((d.X >= -1) & (d.X <= 1))


def test_seed_reproducible():
    a = make_synthetic(100, priors=(0.4, 0.4), rho=0.3, seed=11)
    b = make_synthetic(100, priors=(0.4, 0.4), rho=0.3, seed=np.random.default_rng(11))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)


def test_draw_label_vectors_against_loop():
    """The vectorised inverse-CDF draw equals a per-row loop over itertools.product order with the
    same uniforms (label 1 is the most significant bit)."""
    rng = np.random.default_rng(0)
    K = 3
    Q = rng.dirichlet(np.ones(2**K) * 0.5, size=400)
    Q[:50, 3] = 0.0  # zero-probability cells are never drawn
    Q /= Q.sum(axis=1, keepdims=True)
    got = _draw_label_vectors(Q, K, np.random.default_rng(5))
    u = np.random.default_rng(5).random(len(Q))
    vecs = list(itertools.product([0, 1], repeat=K))
    for i in range(len(Q)):
        acc, pick = 0.0, None
        for m, p in enumerate(Q[i]):
            acc += p
            if u[i] * Q[i].sum() < acc:
                pick = m
                break
        assert pick is not None and tuple(got[i]) == vecs[pick]


def _cell_z(Y, joint, mask=None):
    """z-scores of the label-vector counts against the exact joint, conditional on X (the count of
    cell m is a sum of independent Bernoulli(joint[i, m]))."""
    if mask is not None:
        Y, joint = Y[mask], joint[mask]
    K = Y.shape[1]
    idx = Y @ (2 ** np.arange(K - 1, -1, -1))
    counts = np.bincount(idx, minlength=2**K)
    expect = joint.sum(axis=0)
    var = (joint * (1 - joint)).sum(axis=0)
    return np.where(var > 0, (counts - expect) / np.sqrt(np.maximum(var, 1e-300)),
                    np.where(counts == expect, 0.0, np.inf))


@pytest.mark.parametrize("rho", [-1.0, -0.5, 0.0, 0.5, 1.0])
def test_sampled_labels_match_exact_joint(rho):
    """Sampled label vectors follow the exact joint: per label-vector counts within 5 standard
    errors, overall and within 4 bins of x_1; empirical priors match π; the empirical label
    correlation matches the copula's implied correlation (computed from the exact joint)."""
    n = 40_000
    d = make_synthetic(n, priors=(0.3, 0.6), beta=4.0, rho=rho, seed=100)
    assert np.all(np.abs(_cell_z(d.Y, d.joint)) < Z)
    bins = np.digitize(d.X[:, 0], [-0.5, 0.0, 0.5])
    for b in range(4):
        assert np.all(np.abs(_cell_z(d.Y, d.joint, bins == b)) < Z)
    se = np.sqrt(d.pi * (1 - d.pi) / n)
    assert np.all(np.abs(d.Y.mean(axis=0) - d.pi) < Z * se)
    # implied correlation (X-conditional expectations averaged over the same X)
    e = d.eta.mean(axis=0)
    p11 = d.joint[:, 3].mean()
    implied = (p11 - e[0] * e[1]) / np.sqrt(e[0] * (1 - e[0]) * e[1] * (1 - e[1]))
    emp = np.corrcoef(d.Y.T)[0, 1]
    # the sample correlation given X has SD ≈ 0.95/√n here (measured over 100 redraws)
    assert abs(emp - implied) < Z * 1.2 / np.sqrt(n)
    assert np.sign(implied - _independent_corr(d)) == np.sign(rho) or rho == 0.0


def _independent_corr(d):
    e = d.eta
    p11 = (e[:, 0] * e[:, 1]).mean()
    m = e.mean(axis=0)
    return (p11 - m[0] * m[1]) / np.sqrt(m[0] * (1 - m[0]) * m[1] * (1 - m[1]))


def test_frechet_bounds_and_identical_labels():
    """ρ = 1 gives P(Y=(1,1)|x) = min(η1, η2) (Fréchet upper bound), ρ = −1 gives
    max(0, η1 + η2 − 1) (lower bound); with equal priors on one axis (dim = 1, η1 = η2) ρ = 1
    makes the two sampled labels identical, and ρ = −1 never gives (1,1) when η < 1/2."""
    X = np.random.default_rng(0).uniform(-1, 1, size=(500, 2))
    up = synthetic_model(priors=(0.3, 0.6), rho=1.0)
    lo = synthetic_model(priors=(0.3, 0.6), rho=-1.0)
    E = up.eta(X)
    np.testing.assert_allclose(up.joint(X)[:, 3], np.minimum(E[:, 0], E[:, 1]), atol=1e-12)
    np.testing.assert_allclose(lo.joint(X)[:, 3], np.maximum(0, E.sum(axis=1) - 1), atol=1e-12)
    d = make_synthetic(20_000, priors=(0.3, 0.3), rho=1.0, dim=1, seed=4)
    np.testing.assert_array_equal(d.eta[:, 0], d.eta[:, 1])
    np.testing.assert_array_equal(d.Y[:, 0], d.Y[:, 1])
    d = make_synthetic(20_000, priors=(0.3, 0.3), rho=-1.0, dim=1, seed=4)
    both = (d.Y[:, 0] == 1) & (d.Y[:, 1] == 1)
    assert not both[d.eta[:, 0] < 0.5].any()
    assert np.all(np.abs(_cell_z(d.Y, d.joint)) < Z)


def test_rho_zero_is_product_of_marginals():
    """ρ = 0: the joint is exactly the product of the marginals (K = 2 and K = 3, by hand)."""
    for priors in ((0.3, 0.6), (0.2, 0.5, 0.7)):
        d = make_synthetic(200, priors=priors, rho=0.0, seed=9)
        K = len(priors)
        for m, v in enumerate(itertools.product([0, 1], repeat=K)):
            hand = np.prod([d.eta[:, k] if v[k] else 1 - d.eta[:, k] for k in range(K)], axis=0)
            np.testing.assert_allclose(d.joint[:, m], hand, rtol=1e-13, atol=1e-15)


def test_three_labels_equicorrelated():
    """K = 3 with ρ = 0.5: marginals of the exact joint are η; sampled counts match the joint;
    pairwise P(Y_j = Y_k = 1 | x) exceeds the independent value η_j η_k."""
    d = make_synthetic(800, priors=(0.3, 0.5, 0.7), beta=4.0, rho=0.5, seed=2)
    V = np.array(list(itertools.product([0, 1], repeat=3)))
    np.testing.assert_allclose(d.joint @ V, d.eta, atol=1e-6)
    assert np.all(np.abs(_cell_z(d.Y, d.joint)) < Z)
    p12 = d.joint[:, V[:, 0] & V[:, 1] == 1].sum(axis=1)
    assert np.all(p12 >= d.eta[:, 0] * d.eta[:, 1] - 1e-9)


def test_beta_inf_deterministic_labels():
    """β = ∞: η ∈ {0, 1} and the sampled labels equal η."""
    d = make_synthetic(2000, priors=(0.25, 0.7), beta=np.inf, rho=0.5, seed=1)
    assert set(np.unique(d.eta)) == {0.0, 1.0}
    np.testing.assert_array_equal(d.Y, d.eta.astype(int))


def test_finite_problem_on_test_set():
    """finite_problem(X): uniform mass, label_probs = joint(X), so its η and π are the exact η on
    the points and their mean."""
    d = make_synthetic(64, priors=(0.3, 0.6), rho=0.5, seed=5)
    P = d.model.finite_problem(d.X)
    assert isinstance(P, FiniteProblem) and P.n == 64 and P.K == 2
    np.testing.assert_allclose(P.mass, 1 / 64)
    np.testing.assert_allclose(P.label_probs, d.joint, atol=1e-12)
    np.testing.assert_allclose(P.eta, d.eta, atol=1e-7)
    np.testing.assert_allclose(P.pi, d.eta.mean(axis=0), atol=1e-7)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(priors=(0.0, 0.5)), "'priors'"),
        (dict(priors=(0.5, 1.2)), "'priors'"),
        (dict(priors=(0.2, 0.3, 0.4), rho=-0.6), r"-1/\(K-1\)"),
        (dict(rho=1.5), "'rho'"),
        (dict(beta=0.0), "'beta'"),
        (dict(beta=-2.0), "'beta'"),
        (dict(dim=0), "'dim'"),
    ],
)
def test_synthetic_bad_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        make_synthetic(10, **kw)


def test_synthetic_bad_n_and_X():
    with pytest.raises(ValueError, match="'n'"):
        make_synthetic(0)
    with pytest.raises(ValueError, match="'X'"):
        synthetic_model().eta(np.zeros((3, 3)))
    with pytest.raises(TypeError, match="'rho'"):
        make_synthetic(5, rho="high")


# ------------------------------------------------------------------------------------------------
# Banking
# ------------------------------------------------------------------------------------------------


def test_banking_counts_and_no_leakage(shared_data):
    path = shared_data / "bank_personal_loan.csv"
    d = load_banking(path)
    assert d.X.shape == (5000, 11) and d.Y.shape == (5000, 2)
    assert d.Y.sum(axis=0).tolist() == [480, 1538]
    assert d.label_names == ["personal_loan", "has_mortgage"]
    assert d.all_label_names == [
        "personal_loan", "securities_account", "cd_account", "online", "credit_card",
        "has_mortgage",
    ]
    assert d.Y_all.sum(axis=0).tolist() == [480, 522, 302, 2984, 1470, 1538]
    for banned in ("ID", "Mortgage", "Personal Loan"):
        assert banned not in d.feature_names
    for j in range(d.X.shape[1]):  # no feature column reproduces a label
        assert not np.array_equal(d.X[:, j], d.Y[:, 0])
        assert not np.array_equal(d.X[:, j] > 0, d.Y[:, 1].astype(bool))
    assert d.all_feature_names == ["Age", "Experience", "Income", "ZIP Code", "Family", "CCAvg",
                                   "Education"]
    # independent reference: pandas
    df = pd.read_csv(path)
    np.testing.assert_array_equal(d.X, df[d.feature_names].to_numpy(dtype=float))
    np.testing.assert_array_equal(d.X_all, df[d.all_feature_names].to_numpy(dtype=float))
    np.testing.assert_array_equal(d.Y[:, 1], (df["Mortgage"] > 0).astype(int))
    np.testing.assert_array_equal(d.ids, np.arange(1, 5001))


def _bank_tmp(tmp_path, shared_data, edit=None, n=8):
    lines = (shared_data / "bank_personal_loan.csv").read_bytes().split(b"\r\n")[: n + 1]
    if edit is not None:
        lines = edit(lines)
    p = tmp_path / "bank.csv"
    p.write_bytes(b"\r\n".join(lines) + b"\r\n")
    return p


@pytest.mark.parametrize(
    "edit, where, what",
    [
        (lambda L: [L[0].replace(b"Income", b"Salary"), *L[1:]], 1, "header"),
        (lambda L: L[:4] + [L[4].replace(b",", b",x", 1)] + L[5:], 5, "'Age'"),
        (lambda L: L[:4] + [L[4] + b",7"] + L[5:], 5, "15 fields|expected 14 fields"),
        (lambda L: L[:4] + [L[4][: L[4].rfind(b",")] + b",2"] + L[5:], 5, "'CreditCard'"),
    ],
)
def test_banking_malformed_names_file_and_line(tmp_path, shared_data, edit, where, what):
    p = _bank_tmp(tmp_path, shared_data, edit)
    with pytest.raises(ValueError, match=re.escape(f"{p}:{where}:") + ".*(" + what + ")"):
        load_banking(p)


def test_banking_small_file_and_missing(tmp_path, shared_data):
    d = load_banking(_bank_tmp(tmp_path, shared_data))
    assert d.X.shape == (8, 11)
    with pytest.raises(FileNotFoundError, match="kaggle.*shared/data"):
        load_banking(tmp_path / "nope.csv")


# ------------------------------------------------------------------------------------------------
# LETOR
# ------------------------------------------------------------------------------------------------


def test_mq2008_pooled(shared_data):
    files = [shared_data / "letor" / f"mq2008_S{i}.txt" for i in range(1, 6)]
    d = load_letor(files)
    assert d.X.shape == (15211, 46)
    assert len(np.unique(d.qid)) == 784
    assert np.bincount(d.relevance).tolist() == [12279, 2001, 931]
    assert d.Y[:, 0].sum() == 2001 + 931
    assert np.bincount(d.file_index).tolist() == [2933, 3635, 3062, 2707, 2874]
    assert d.feature_names == [f"f{j}" for j in range(1, 47)]
    assert d.click_source.startswith("simulated") and d.click_params["base_ranking"] == "feature f25"
    assert d.click_params["max_grade"] == 2
    d2 = load_letor(files, relevance_threshold=2)
    assert d2.Y[:, 0].sum() == 931
    np.testing.assert_array_equal(d.Y[:, 1], d2.Y[:, 1])  # clicks do not depend on the threshold


def test_mq2008_matches_sklearn_query_id(shared_data):
    """Own qid scan + sklearn(query_id=False) equals sklearn's load_svmlight_file(query_id=True)."""
    f = shared_data / "letor" / "mq2008_S1.txt"
    X, y, q = load_svmlight_file(str(f), query_id=True, zero_based=False)
    d = load_letor(f, dtype=np.float32)
    assert d.X.dtype == np.float32
    np.testing.assert_array_equal(d.qid, q)
    np.testing.assert_array_equal(d.relevance, y)
    np.testing.assert_array_equal(d.X, X.toarray().astype(np.float32))
    # first line parsed by hand
    first = f.read_text().splitlines()[0].split("#")[0].split()
    assert int(first[0]) == d.relevance[0] and int(first[1][4:]) == d.qid[0]
    vals = {int(t.split(":")[0]): float(t.split(":")[1]) for t in first[2:]}
    np.testing.assert_allclose(d.X[0], [vals.get(j, 0.0) for j in range(1, 47)], rtol=1e-7)


def test_yahoo_lightgbm_query_files(shared_data):
    root = shared_data / "letor"
    tr = load_letor_query(root / "lightgbm_yahoo_rank_train.txt",
                          root / "lightgbm_yahoo_rank_train_query.txt")
    te = load_letor_query(root / "lightgbm_yahoo_rank_test.txt",
                          root / "lightgbm_yahoo_rank_test_query.txt", n_features=tr.X.shape[1])
    assert tr.X.shape[0] == 3005 and len(tr.group_sizes) == 201 and tr.group_sizes.sum() == 3005
    assert te.X.shape[0] == 768 and len(te.group_sizes) == 50
    assert te.X.shape[1] == tr.X.shape[1] == 300
    assert np.bincount(tr.relevance).tolist() == [645, 1211, 858, 222, 69]
    np.testing.assert_array_equal(tr.qid, np.repeat(np.arange(201), tr.group_sizes))
    X, y = load_svmlight_file(str(root / "lightgbm_yahoo_rank_train.txt"), zero_based=False,
                              n_features=300)
    np.testing.assert_array_equal(tr.X, X.toarray())
    assert tr.click_source.startswith("simulated")
    assert "relevance" in tr.click_params["base_ranking"]


def test_query_file_mismatch_and_malformed(tmp_path):
    f = tmp_path / "rank.txt"
    f.write_text("1 1:0.5 2:0.1\n0 1:0.2\n2 2:0.3\n")
    q = tmp_path / "rank.query"
    q.write_text("2\n2\n")
    with pytest.raises(ValueError, match="2 group sizes summing to 4.*3 data rows"):
        load_letor_query(f, q)
    q.write_text("2\nx\n")
    with pytest.raises(ValueError, match=re.escape(f"{q}:2:")):
        load_letor_query(f, q)
    q.write_text("3\n")
    d = load_letor_query(f, q, click="simulated", seed=1)
    assert d.Y[:, 0].tolist() == [1, 0, 1]


GOOD = "2 qid:7 1:0.5 2:1.0 3:0.25 # doc a\n0 qid:7 1:0.1 2:0.0 3:0.75\n"


@pytest.mark.parametrize(
    "bad, what",
    [
        ("1 qid:8 1:0.5 2:abc 3:1\n", "value"),
        ("1 1:0.5 2:0.3 3:1\n", "qid"),
        ("1 qid:x 1:0.5\n", "qid"),
        ("-1 qid:8 1:0.5\n", "non-negative integer"),
        ("1.5 qid:8 1:0.5\n", "non-negative integer"),
        ("abc qid:8 1:0.5\n", "not a number"),
        ("1 qid:8 1:nan\n", "finite"),
        ("1 qid:8 2:0.5 1:0.5\n", "increasing"),
        ("1 qid:8 0:0.5\n", ">= 1"),
        ("1 qid:8 1:0.5 2\n", "index:value"),
    ],
)
def test_letor_malformed_line_named(tmp_path, bad, what):
    """A bad line is reported as file:line (physical line, comments and blank lines counted)."""
    p = tmp_path / "bad.txt"
    p.write_text("# header comment\n" + GOOD + "\n" + bad + GOOD)
    with pytest.raises(ValueError, match=re.escape(f"{p}:5:") + f".*{what}"):
        load_letor(p)


def test_letor_missing_file_message(tmp_path, shared_data):
    with pytest.raises(FileNotFoundError, match="mslr.*shared/data"):
        load_letor(tmp_path / "Fold1" / "train.txt")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_letor([shared_data / "letor" / "mq2008_S1.txt", tmp_path / "S9.txt"])
    with pytest.raises(FileNotFoundError):
        load_letor_query(tmp_path / "a.txt", tmp_path / "a.query")


@pytest.mark.parametrize(
    "kw, exc, match",
    [
        (dict(relevance_threshold=0), ValueError, "'relevance_threshold'"),
        (dict(relevance_threshold=-1), ValueError, "'relevance_threshold'"),
        (dict(relevance_threshold=float("nan")), ValueError, "'relevance_threshold'"),
        (dict(relevance_threshold="1"), TypeError, "'relevance_threshold'"),
        (dict(click="clicks"), ValueError, "'click'"),
        (dict(click="feature"), ValueError, "134-136"),
        (dict(dtype=np.int32), ValueError, "'dtype'"),
        (dict(base_feature=0), ValueError, "'base_feature'"),
        (dict(base_feature=99), ValueError, "'base_feature'"),
        (dict(n_features=1), ValueError, "cannot be parsed"),
        (dict(base_noise=-1.0), ValueError, "'base_noise'"),
        (dict(click_params={"eta_pos": -1}), ValueError, "'eta_pos'"),
    ],
)
def test_letor_bad_arguments(tmp_path, kw, exc, match):
    p = tmp_path / "ok.txt"
    p.write_text(GOOD)
    with pytest.raises(exc, match=match):
        load_letor(p, **kw)


def test_letor_gzip_and_empty_path_list(tmp_path):
    import gzip

    p = tmp_path / "ok.txt.gz"
    with gzip.open(p, "wt") as fh:
        fh.write(GOOD)
    d = load_letor(p, click="simulated")
    assert d.X.shape == (2, 3) and d.qid.tolist() == [7, 7]
    with pytest.raises(ValueError, match="'path'"):
        load_letor([])


# ------------------------------------------------------------------------------------------------
# Position-based click model
# ------------------------------------------------------------------------------------------------


def test_ranks_against_per_query_loop():
    """Ranks within (non-contiguous) queries by descending score equal a per-query loop; the
    click probability is (1/r)^η · (ε⁻ + (ε⁺ − ε⁻) g / max_grade), written out by hand."""
    rng = np.random.default_rng(3)
    n = 300
    qid = rng.integers(0, 12, n)
    scores = rng.permutation(n).astype(float)
    rel = rng.integers(0, 4, n)
    d = simulate_clicks(rel, qid, scores, eta_pos=1.5, epsilon_minus=0.05, epsilon_plus=0.8,
                        seed=0, return_details=True)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        order = rows[np.argsort(-scores[rows])]
        for r, i in enumerate(order, 1):
            assert d.rank[i] == r
            assert d.prob[i] == pytest.approx((1 / r) ** 1.5 * (0.05 + 0.75 * rel[i] / 3))
    assert d.params["max_grade"] == 3


def test_ties_broken_at_random_into_a_permutation():
    qid = np.repeat([1, 2], 6)
    scores = np.array([3, 3, 3, 1, 1, 0] * 2, dtype=float)
    a = simulate_clicks(np.zeros(12), qid, scores, seed=0, return_details=True).rank
    for q in (1, 2):
        r = a[qid == q]
        assert sorted(r[:3]) == [1, 2, 3] and sorted(r[3:5]) == [4, 5] and r[5] == 6
    ranks = {tuple(simulate_clicks(np.zeros(12), qid, scores, seed=s, return_details=True).rank)
             for s in range(20)}
    assert len(ranks) > 1  # the tie order depends on the seed


def test_click_frequencies_match_pbm():
    """Monte Carlo: click frequencies per (rank, grade) cell within 5 standard errors of the PBM
    probability; reproducible by seed."""
    G, R, reps = 3, 5, 4000
    rel = np.tile(np.arange(G).repeat(R), reps)
    qid = np.repeat(np.arange(reps * G), R)
    scores = np.tile(-np.arange(R, dtype=float), reps * G)
    d = simulate_clicks(rel, qid, scores, seed=42, return_details=True)
    for g in range(G):
        for r in range(1, R + 1):
            cell = (rel == g) & (d.rank == r)
            p = (1 / r) * (0.1 + 0.8 * g / 2)
            assert abs(d.clicks[cell].mean() - p) < Z * np.sqrt(p * (1 - p) / cell.sum())
    np.testing.assert_array_equal(d.clicks, simulate_clicks(rel, qid, scores, seed=42))


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(eta_pos=-0.5), "'eta_pos'"),
        (dict(epsilon_minus=0.5, epsilon_plus=0.4), "'epsilon_minus'"),
        (dict(epsilon_plus=1.5), "'epsilon_plus'"),
        (dict(max_grade=1), "'max_grade'"),
    ],
)
def test_simulate_clicks_bad_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        simulate_clicks([0, 2], [1, 1], [1.0, 0.0], **kw)


def test_simulate_clicks_bad_inputs():
    with pytest.raises(ValueError, match="'relevance'"):
        simulate_clicks([0, 1.5], [1, 1], [1.0, 0.0])
    with pytest.raises(ValueError, match="'qid'"):
        simulate_clicks([0, 1], [1], [1.0, 0.0])
    with pytest.raises(ValueError, match="base_scores"):
        simulate_clicks([0, 1], [1, 1], [1.0])


# ------------------------------------------------------------------------------------------------
# MSLR-shaped generator
# ------------------------------------------------------------------------------------------------


def _slow_letor_lines(rel, qid, F, decimals):
    out = []
    for i in range(len(rel)):
        toks = [str(int(rel[i])), f"qid:{int(qid[i])}"]
        for j in range(F.shape[1]):
            d = int(decimals[j])
            q = int(np.rint(F[i, j] * 10.0**d))
            if d == 0:
                s = str(q)
            else:
                s = ("-" if q < 0 else "") + f"{abs(q) // 10**d}.{abs(q) % 10**d:0{d}d}"
            toks.append(f"{j + 1}:{s}")
        out.append(" ".join(toks) + "\n")
    return "".join(out).encode()


def test_format_letor_block_against_fstrings():
    """The vectorised writer produces byte-for-byte the lines of a per-value f-string writer
    (integers; fixed-point with 6 decimals; negative values; zeros; large values)."""
    rng = np.random.default_rng(1)
    m = 60
    F = np.column_stack([
        rng.integers(0, 5, m), rng.integers(0, 100000, m), rng.normal(0, 50, m),
        rng.uniform(0, 1, m), np.zeros(m), -rng.lognormal(3, 2, m), rng.integers(-9, 9, m),
    ]).astype(float)
    dec = np.array([0, 0, 6, 6, 6, 3, 0])
    rel, qid = rng.integers(0, 5, m), rng.integers(1, 10**6, m)
    assert _format_letor_block(rel, qid, F, dec) == _slow_letor_lines(rel, qid, F, dec)


def test_make_mslr_like_small(tmp_path):
    """50 queries: an MSLR-shaped file (136 features, qid groups, grades 0-4 with MSLR-like
    frequencies, click features tied to relevance); load_letor(click='auto') picks 'feature' and
    drops f134-f136."""
    p = tmp_path / "mslr.txt"
    s = make_mslr_like(p, n_queries=50, seed=0)
    assert s.n_bytes == p.stat().st_size
    X, y, q = load_svmlight_file(str(p), query_id=True, zero_based=False)
    assert X.shape == (s.n_rows, 136)
    assert np.array_equal(np.unique(q), np.arange(1, 51))
    assert np.all(np.diff(q) >= 0)  # contiguous groups, in order
    assert np.bincount(y.astype(int), minlength=5).tolist() == s.relevance_counts.tolist()
    probs = np.array(data.MSLR_RELEVANCE_PROBS)
    freq = np.bincount(y.astype(int), minlength=5) / len(y)
    assert np.all(np.abs(freq - probs) < Z * np.sqrt(probs * (1 - probs) / len(y)))
    A = X.toarray()
    f134, f135, f136 = A[:, 133], A[:, 134], A[:, 135]
    assert np.all(f135 >= f134) and np.array_equal(f136 > 0, f134 > 0)
    rate = [np.mean(f134[y == g] > 0) for g in range(3)]
    assert rate[0] < rate[1] < rate[2]
    d = load_letor(p, click="auto", dtype=np.float32)
    assert d.click_source.startswith("feature")
    assert d.X.shape == (s.n_rows, 133) and d.X.dtype == np.float32
    assert not {"f134", "f135", "f136"} & set(d.feature_names)
    np.testing.assert_array_equal(d.X, A[:, :133].astype(np.float32))
    np.testing.assert_array_equal(d.Y[:, 1], (f134 > 0).astype(int))
    np.testing.assert_array_equal(d.click_features, A[:, 133:].astype(np.float32))
    sim = load_letor(p, click="simulated")
    assert sim.X.shape[1] == 136 and sim.click_params["base_ranking"] == "feature f110"
    again = make_mslr_like(tmp_path / "again.txt", n_queries=50, seed=0)
    assert (tmp_path / "again.txt").read_bytes() == p.read_bytes() and again.n_rows == s.n_rows


def test_make_mslr_like_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="'n_queries'"):
        make_mslr_like(tmp_path / "x.txt", n_queries=0)
    with pytest.raises(ValueError, match="'relevance_probs'"):
        make_mslr_like(tmp_path / "x.txt", n_queries=2, relevance_probs=(0.5, 0.5))
    with pytest.raises(ValueError, match="'docs_per_query'"):
        make_mslr_like(tmp_path / "x.txt", n_queries=2, docs_per_query=0.5)


def test_module_exports():
    for name in data.__all__:
        assert hasattr(data, name)
    assert Path(data.__file__).name == "__init__.py"  # a package: synthetic, banking, letor, ...


def test_old_banking_path_warns_and_forwards(monkeypatch):
    """``bipartite.data.banking`` (issue 36: renamed for what it holds, the Bank Personal Loan
    data) still imports for a release, with a FutureWarning, and forwards every name."""
    import importlib
    import sys

    from bipartite.data import bank_personal_loan

    monkeypatch.delitem(sys.modules, "bipartite.data.banking", raising=False)
    with pytest.warns(FutureWarning, match="bipartite.data.banking is deprecated.*"
                      "bipartite.data.bank_personal_loan"):
        old = importlib.import_module("bipartite.data.banking")
    with pytest.warns(FutureWarning, match="use bipartite.data.bank_personal_loan.load_banking"):
        assert old.load_banking is bank_personal_loan.load_banking is load_banking
    with pytest.warns(FutureWarning):
        from bipartite.data.banking import load_banking as old_load
    assert old_load is load_banking
    with pytest.raises(AttributeError):
        old.no_such_name  # noqa: B018
