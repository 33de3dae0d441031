"""Finite-support multi-label problems: exact population quantities (docs/theory.md §1, §2, §3).

A :class:`FiniteProblem` is a distribution over ``n`` points with masses ``p_i > 0`` and a
conditional joint ``Q[i, m] = P(Y = v_m | x_i)`` over the ``2**K`` label vectors, enumerated as
``itertools.product([0, 1], repeat=K)`` (label 1 is the most significant bit). Everything in it is
exact: population AUCs (ties ½, self-pairs included), multipartite AUCs, samples.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from bipartite._utils.validation import (
    check_array,
    check_nonnegative,
    check_probabilities,
    check_random_state,
    first_index,
    warn_undefined,
)

# the label vectors are the domain of ψ: their home is bipartite.labels (re-exported here)
from bipartite.labels import (
    MAX_LABELS,
    aggregate_labels,
    check_n_labels,
    cost_matrix,
    label_vectors,
)
from bipartite.metrics import weighted_auc, weighted_multipartite_auc

__all__ = [
    "MAX_LABELS",
    "check_n_labels",
    "FiniteProblem",
    "label_vectors",
    "independent_joint",
    "gaussian_copula_joint",
    "win_matrix",
    "enumerate_weak_orders",
    "ENUMERATION_MAX_N",
]


def independent_joint(eta: ArrayLike, *, max_labels: int = MAX_LABELS) -> np.ndarray:
    """Joint label probabilities of conditionally independent labels with marginals ``eta``.

    ``Q[i, m] = Π_k η_ik^{v_mk} (1 − η_ik)^{1 − v_mk}`` (docs/theory.md §1).

    >>> independent_joint([[0.5, 0.2]]).round(2).tolist()
    [[0.4, 0.1, 0.4, 0.1]]
    """
    E = check_probabilities(eta, "eta", ndim=2)
    V = label_vectors(check_n_labels(E.shape[1], "eta columns (K)", max_labels=max_labels),
                      max_labels=max_labels)
    return np.prod(np.where(V[None, :, :] == 1, E[:, None, :], 1.0 - E[:, None, :]), axis=2)


def _copula_matrix(rho: float | ArrayLike, K: int) -> np.ndarray:
    try:
        R = np.asarray(rho, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"The 'rho' parameter must be a float or a (K, K) matrix, got {rho!r}.") \
            from None
    if R.ndim == 0:
        r = float(R)
        if not np.isfinite(r) or r < -1 or r > 1:
            raise ValueError(f"The 'rho' parameter must lie in [-1, 1], got {r!r}.")
        if K > 1 and r < -1.0 / (K - 1) - 1e-12:
            raise ValueError(
                f"The 'rho' parameter must be >= -1/(K-1) = {-1.0 / (K - 1):.4g} for an "
                f"equicorrelation matrix over K={K} labels, got {r!r}."
            )
        R = np.full((K, K), r)
        np.fill_diagonal(R, 1.0)
    if R.shape != (K, K):
        raise ValueError(f"The 'rho' matrix must have shape ({K}, {K}), got {R.shape}.")
    if not np.allclose(R, R.T) or not np.allclose(np.diag(R), 1.0):
        raise ValueError("The 'rho' matrix must be a symmetric correlation matrix (unit diagonal).")
    if np.linalg.eigvalsh(R).min() < -1e-10:
        raise ValueError("The 'rho' matrix must be positive semi-definite.")
    return R


def _orthant_prob(z: np.ndarray, R: np.ndarray) -> np.ndarray:
    """P(Z_S <= z_S) for Z ~ N(0, R) with |S| = z.shape[1], row by row (exact in the degenerate
    comonotone / countermonotone cases)."""
    d = z.shape[1]
    if d == 1:
        return stats.norm.cdf(z[:, 0])
    off = R[np.triu_indices(d, 1)]
    if np.allclose(off, 1.0):  # comonotone: all Z equal
        return stats.norm.cdf(z.min(axis=1))
    if d == 2 and np.isclose(off[0], -1.0):  # countermonotone: Z_2 = -Z_1
        return np.maximum(0.0, stats.norm.cdf(z[:, 0]) + stats.norm.cdf(z[:, 1]) - 1.0)
    if d >= 3 and np.allclose(off, off[0]) and 0.0 <= off[0] < 1.0:
        return _equicorrelated_orthant(z, float(off[0]))
    out = np.empty(len(z))
    # Infinite bounds (η ∈ {0, 1}): a −inf coordinate makes the probability 0; +inf coordinates
    # drop out. Rows are grouped by their pattern of finite coordinates (at most 2**d patterns).
    neg_inf = np.any(z == -np.inf, axis=1)
    out[neg_inf] = 0.0
    finite = np.isfinite(z)
    patterns, inverse = np.unique(finite[~neg_inf], axis=0, return_inverse=True)
    rows = np.flatnonzero(~neg_inf)
    for pi_, keep in enumerate(patterns):
        sel = rows[inverse.ravel() == pi_]
        if not keep.any():
            out[sel] = 1.0
        elif not keep.all():
            out[sel] = _orthant_prob(z[np.ix_(sel, keep)], R[np.ix_(keep, keep)])
        else:
            # Genz's algorithm: scipy's exact bivariate routine for d = 2; seeded randomised QMC
            # for d >= 3 (non-factorable correlation only), to an absolute 1e-6.
            out[sel] = np.atleast_1d(
                stats.multivariate_normal.cdf(
                    z[sel],
                    mean=np.zeros(d),
                    cov=R,
                    allow_singular=True,
                    abseps=1e-10 if d == 2 else 1e-6,
                    releps=1e-8 if d == 2 else 1e-5,
                    rng=np.random.default_rng(0),
                )
            )
    return np.clip(out, 0.0, 1.0)


# Gauss–Legendre nodes on [-9, 9] for the one-factor integral (standard normal mass outside is
# below 1e-18; 400 nodes integrate the smooth integrand to ~1e-12 for rho <= 0.95).
_GL_X, _GL_W = np.polynomial.legendre.leggauss(400)
_GL_X, _GL_W = 9.0 * _GL_X, 9.0 * _GL_W


def _equicorrelated_orthant(z: np.ndarray, rho: float) -> np.ndarray:
    """P(Z ≤ z) for equicorrelated Z with rho ∈ [0, 1) by the one-factor representation
    ``Z_k = √ρ W + √(1−ρ) E_k``: ``∫ φ(w) Π_k Φ((z_k − √ρ w)/√(1−ρ)) dw`` (vectorised quadrature;
    exact in the limit, unlike per-point QMC, and fast for any K)."""
    a, b = np.sqrt(rho), np.sqrt(1.0 - rho)
    # log-space product over k for stability when some factors are tiny
    logs = stats.norm.logcdf((z[:, None, :] - a * _GL_X[None, :, None]) / b).sum(axis=2)
    return np.clip(np.exp(logs) @ (_GL_W * stats.norm.pdf(_GL_X)), 0.0, 1.0)


def gaussian_copula_joint(eta: ArrayLike, rho: float | ArrayLike = 0.0, *, max_labels: int = MAX_LABELS) -> np.ndarray:
    """Joint label probabilities with marginals ``eta`` and a Gaussian copula (docs/theory.md §1, §10).

    ``Y_k = 1[Z_k ≤ Φ⁻¹(η_k)]`` with ``Z ~ N(0, R)``; ``R`` is the equicorrelation matrix of
    ``rho`` (a float in [−1/(K−1), 1]) or a given correlation matrix. ``rho = 0`` gives independent
    labels, ``rho = 1`` the comonotone (Fréchet upper) bound, ``rho = −1`` (K = 2) the lower bound.
    The joint follows from orthant probabilities ``P(Y_S = 1) = Φ_{R_S}(z_S)`` by Möbius inversion.
    Accuracy: exact bivariate routine for K = 2 (~1e-10); for K ≥ 3, vectorised one-factor
    quadrature (~1e-12) when the correlation is an equicorrelation ρ ≥ 0, and seeded randomised
    QMC (absolute error ~1e-6, a few ms per row) otherwise.

    Parameters
    ----------
    eta : array-like of shape (n, K), marginal probabilities.
    rho : float or array-like of shape (K, K).

    Returns
    -------
    ndarray of shape (n, 2**K), rows in ``itertools.product([0, 1], repeat=K)`` order.

    >>> gaussian_copula_joint([[0.5, 0.5]], 1.0).round(3).tolist()
    [[0.5, 0.0, 0.0, 0.5]]
    >>> gaussian_copula_joint([[0.5, 0.5]], -1.0).round(3).tolist()
    [[0.0, 0.5, 0.5, 0.0]]
    """
    E = check_probabilities(eta, "eta", ndim=2)
    n, K = E.shape
    check_n_labels(K, "eta columns (K)", max_labels=max_labels)
    R = _copula_matrix(rho, K)
    if np.allclose(R, np.eye(K)):
        return independent_joint(E, max_labels=max_labels)
    with np.errstate(divide="ignore"):
        Z = stats.norm.ppf(E)
    V = label_vectors(check_n_labels(K, "eta columns (K)", max_labels=max_labels),
                      max_labels=max_labels)
    # all_ones[:, m] = P(Y_k = 1 for every k with v_mk = 1)
    all_ones = np.empty((n, len(V)))
    for m, v in enumerate(V):
        S = np.flatnonzero(v)
        all_ones[:, m] = 1.0 if S.size == 0 else _orthant_prob(Z[:, S], R[np.ix_(S, S)])
    # Möbius inversion: P(Y = v) = Σ_{T ⊇ S(v)} (−1)^{|T|−|S|} P(Y_T = 1).
    sup = np.all(V[None, :, :] >= V[:, None, :], axis=2)  # sup[m, t]: T_t ⊇ S_m
    sign = (-1.0) ** (V.sum(axis=1)[None, :] - V.sum(axis=1)[:, None])
    Q = all_ones @ (sup * sign).T
    # Möbius inversion subtracts probabilities of order 1, so cells that are exactly 0 (e.g. the
    # Fréchet bounds at rho = ±1) come out as ±1e-16 rounding noise: set |Q| < 1e-13 to exactly 0.
    Q[Q < 1e-13] = 0.0
    return Q / Q.sum(axis=1, keepdims=True)


def win_matrix(scores: ArrayLike) -> np.ndarray:
    """``S_ij = s(f_i, f_j) = 1[f_i > f_j] + ½ 1[f_i = f_j]`` (docs/theory.md §2); ``S_ii = ½``.

    >>> win_matrix([1.0, 1.0, 0.0]).tolist()
    [[0.5, 0.5, 1.0], [0.5, 0.5, 1.0], [0.0, 0.0, 0.5]]
    """
    f = check_array(scores, "scores", ndim=1)
    return (f[:, None] > f[None, :]) + 0.5 * (f[:, None] == f[None, :])


#: Largest ``n`` that :func:`enumerate_weak_orders` accepts by default: n = 9 has 7 087 261 weak
#: orders (about 1 GB of bookkeeping), n = 10 has 102 247 563.
ENUMERATION_MAX_N = 9


def enumerate_weak_orders(n: int, *, max_n: int = ENUMERATION_MAX_N) -> Iterator[np.ndarray]:
    """Every weak order (ranking with ties) of ``n`` items, as rank-score vectors (docs/theory.md §6).

    Yields Fubini-number many vectors (1, 3, 13, 75, 541, 4683, 47293 for n = 1..7); item ``i``
    gets score ``r`` if it is in the ``r``-th block from the bottom. Used by the tests as the
    brute-force reference for every optimum. ``n`` above ``max_n`` (default
    :data:`ENUMERATION_MAX_N`) is refused before anything is enumerated; raise ``max_n`` to go on.

    >>> sum(1 for _ in enumerate_weak_orders(3))
    13
    """
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"The 'n' parameter must be a positive integer, got {n!r}.")
    if isinstance(max_n, bool) or not isinstance(max_n, int | np.integer) or max_n < 1:
        raise ValueError(f"The 'max_n' parameter must be a positive integer, got {max_n!r}.")
    if n > max_n:
        raise ValueError(f"The 'n' parameter is {n}: enumerating its weak orders is past the limit "
                         f"max_n={max_n} (n = 10 already has 102 247 563); pass a larger 'max_n' "
                         "to enumerate anyway.")
    return _weak_orders(int(n))


def _weak_orders(n: int) -> Iterator[np.ndarray]:
    """The generator behind :func:`enumerate_weak_orders` (arguments checked there, eagerly)."""

    def rec(items: tuple[int, ...]) -> Iterator[list[tuple[int, ...]]]:
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        # Choose the block containing `first` (first plus any subset of rest), then order the
        # remaining items and insert that block at every position.
        for r in range(len(rest) + 1):
            for combo in itertools.combinations(rest, r):
                block = (first, *combo)
                remaining = tuple(x for x in rest if x not in combo)
                for tail in rec(remaining):
                    for pos in range(len(tail) + 1):
                        yield tail[:pos] + [block] + tail[pos:]

    seen: set[tuple[int, ...]] = set()
    for blocks in rec(tuple(range(int(n)))):
        f = np.empty(n, dtype=np.float64)
        for r, block in enumerate(blocks):
            f[list(block)] = r
        key = tuple(f.astype(int))
        if key not in seen:  # the insertion construction can repeat an ordered partition
            seen.add(key)
            yield f


class FiniteProblem:
    """A finite-support multi-label ranking problem (docs/theory.md §1).

    Parameters
    ----------
    mass : array-like of shape (n,)
        Point masses ``p_i > 0`` summing to 1 (to 1e-9; then renormalised).
    label_probs : array-like of shape (n, 2**K)
        ``Q[i, m] = P(Y = v_m | x_i)``, rows over ``itertools.product([0, 1], repeat=K)``; entries
        non-negative, rows summing to 1 (to 1e-9).

    Attributes
    ----------
    n, K : int
    mass : (n,), label_probs : (n, 2**K), label_vectors : (2**K, K)
    eta : (n, K) ``η = Q V``;  pi : (K,) ``π = pᵀ η``

    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.2], [0.1, 0.6]])
    >>> P.pi.round(6).tolist()
    [0.5, 0.4]
    >>> P.auc([1.0, 0.0]).round(4).tolist()
    [0.9, 0.2917]
    """

    def __init__(self, mass: ArrayLike, label_probs: ArrayLike):
        p = check_array(mass, "mass", ndim=1)
        if np.any(p <= 0):
            i = first_index(p <= 0)
            raise ValueError(f"The 'mass' parameter must be positive, got {p[i]:g} at index {i}.")
        if abs(p.sum() - 1.0) > 1e-9:
            raise ValueError(f"The 'mass' parameter must sum to 1, got sum {p.sum():.12g}.")
        Q = check_array(label_probs, "label_probs", ndim=2)
        if Q.shape[0] != len(p):
            raise ValueError(
                f"Inconsistent numbers of points: mass has {len(p)}, "
                f"label_probs has {Q.shape[0]} rows."
            )
        m = Q.shape[1]
        K = int(round(np.log2(m))) if m > 1 else 0
        if m < 2 or 2**K != m:
            raise ValueError(
                f"The 'label_probs' parameter must have 2**K columns (K >= 1), got {m} columns."
            )
        check_nonnegative(Q, "label_probs")
        rs = Q.sum(axis=1)
        off = np.abs(rs - 1.0) > 1e-9
        if off.any():
            i = first_index(off)
            raise ValueError(
                f"The rows of 'label_probs' must sum to 1, got {rs[i]:.12g} in row {i}."
            )
        self.mass = p / p.sum()
        self.label_probs = Q / rs[:, None]
        self.K = K
        self.label_vectors = label_vectors(K, max_labels=K)  # the caller's (n, 2**K) exists

    # ---- basic quantities --------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.mass)

    @property
    def eta(self) -> np.ndarray:
        """``η_k(x_i) = Σ_m Q[i, m] v_mk`` (docs/theory.md §1), shape (n, K)."""
        return self.label_probs @ self.label_vectors

    @property
    def pi(self) -> np.ndarray:
        """``π_k = Σ_i p_i η_ik`` (docs/theory.md §1), shape (K,)."""
        return self.mass @ self.eta

    def __repr__(self) -> str:
        return f"FiniteProblem(n={self.n}, K={self.K}, pi={np.round(self.pi, 4).tolist()})"

    # ---- constructors ------------------------------------------------------------------------
    @classmethod
    def from_eta(cls, mass: ArrayLike, eta: ArrayLike, *, max_labels: int = MAX_LABELS) -> FiniteProblem:
        """Conditionally independent labels with marginals ``eta`` (n, K); ``K`` is checked
        against ``max_labels`` before the (n, 2**K) joint is allocated."""
        return cls(mass, independent_joint(eta, max_labels=max_labels))

    @classmethod
    def with_correlation(cls, mass: ArrayLike, eta: ArrayLike, rho: float | ArrayLike) -> FiniteProblem:
        """Marginals ``eta`` (n, K) coupled by a Gaussian copula with correlation ``rho``
        (see :func:`gaussian_copula_joint`)."""
        return cls(mass, gaussian_copula_joint(eta, rho))

    @classmethod
    def random(
        cls, n: int, K: int, *, seed: int | np.random.Generator | None = None, deterministic: bool = False,
        max_labels: int = MAX_LABELS,
    ) -> FiniteProblem:
        """A random problem: masses ~ Dirichlet(1); conditional joints ~ Dirichlet(1) over the
        ``2**K`` label vectors (arbitrary label dependence), or, with ``deterministic=True``, a
        single label vector per point drawn uniformly (η ∈ {0, 1}).

        ``K`` is checked against ``max_labels`` (:data:`~bipartite.labels.MAX_LABELS`, 20) before the (n, 2**K)
        joint is allocated: ``K = 30`` would need 8 GiB per point, ``K = 2**31`` never ends.

        >>> FiniteProblem.random(4, 2, seed=0).n
        4
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"The 'n' parameter must be a positive integer, got {n!r}.")
        m = 2 ** check_n_labels(K, "K", max_labels=max_labels)
        rng = check_random_state(seed)
        mass = rng.dirichlet(np.ones(n))
        mass = np.maximum(mass, 1e-6)
        mass /= mass.sum()
        if deterministic:
            Q = np.zeros((n, m))
            Q[np.arange(n), rng.integers(0, m, size=n)] = 1.0
        else:
            Q = rng.dirichlet(np.ones(m), size=n)
        return cls(mass, Q)

    # ---- sampling ------------------------------------------------------------------------------
    def sample(self, size: int, *, seed: int | np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``size`` i.i.d. pairs (support index, label vector).

        Returns ``idx`` (size,) and ``Y`` (size, K) with ``P(idx = i) = p_i`` and
        ``P(Y = v_m | idx = i) = Q[i, m]``.
        """
        if not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"The 'size' parameter must be a non-negative integer, got {size!r}.")
        rng = check_random_state(seed)
        idx = rng.choice(self.n, size=size, p=self.mass)
        cdf = np.cumsum(self.label_probs[idx], axis=1)
        u = rng.random(size)[:, None] * cdf[:, -1:]
        m = np.minimum((u >= cdf).sum(axis=1), cdf.shape[1] - 1)
        return idx, self.label_vectors[m].copy()

    # ---- ranking quantities ------------------------------------------------------------------
    def check_scores(self, scores: ArrayLike) -> np.ndarray:
        """``scores`` as a finite 1-d float array with one score per support point.

        Raises ``ValueError`` naming ``scores`` otherwise (wrong shape or length, NaN or inf).
        """
        f = check_array(scores, "scores", ndim=1)
        if len(f) != self.n:
            raise ValueError(
                f"The 'scores' parameter must have one score per support point ({self.n}), "
                f"got {len(f)}."
            )
        return f

    def auc(self, scores: ArrayLike) -> np.ndarray:
        """Exact population AUC of each label (docs/theory.md §2).

        ``AUC_k = Σ_{i,j} p_i p_j η_ik (1 − η_jk) S_ij / (π_k (1 − π_k))`` with ties ½ and the
        diagonal ``i = j`` included (a constant scorer scores exactly ½). Computed with the same
        one-sort kernel as :func:`bipartite.metrics.auc`. NaN (with a warning) for a label with
        ``π_k ∈ {0, 1}``.

        Returns
        -------
        ndarray of shape (K,)
        """
        f = self.check_scores(scores)
        E = self.eta
        p = self.mass[:, None]
        out = weighted_auc(f, p * E, p * (1.0 - E))
        bad = np.flatnonzero(np.isnan(out))
        if bad.size:
            warn_undefined(f"AUC is undefined for label(s) {bad.tolist()}: prior 0 or 1.")
        return out

    def pair_weights(self, k: int) -> np.ndarray:
        """``W_ij = p_i η_ik p_j (1 − η_jk) / (π_k (1 − π_k))`` so that ``AUC_k = Σ W ⊙ S``."""
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 0 <= k < self.K:
            raise ValueError(
                f"The 'k' parameter must be a label index in [0, {self.K}), got {k!r}."
            )
        pe = self.mass * self.eta[:, k]
        pn = self.mass * (1.0 - self.eta[:, k])
        pik = self.pi[k]
        return np.outer(pe, pn) / (pik * (1.0 - pik))

    def multipartite_pair_factors(
        self,
        *,
        aggregate: str | Callable[[np.ndarray], float] = "sum",
        w: ArrayLike | None = None,
        costs: str | ArrayLike = "linear",
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Low-rank factors of the multipartite pair weights: ``W = X Yᵀ`` with ``X = p q`` and
        ``Y = (p q) Cᵀ / Z``, so that ``AUC_MP(f) = Σ_ij W_ij S_ij`` (docs/theory.md §3, §5).

        ``q`` is the conditional distribution of ``Ȳ = ψ(Y)`` over its L levels
        (:meth:`level_probs`), ``C`` the cost matrix (:func:`bipartite.labels.cost_matrix`) and
        ``Z = Σ_{a,b} C_ab T_a T_b`` with ``T = pᵀ q``. ``W_ij`` is the weight of ranking ``x_i``
        above ``x_j``; the factored form costs O(n L) memory (the surrogate minimiser needs it),
        ``X @ Y.T`` gives the n × n matrix (the MILP of :func:`bipartite.pareto.optimal_ranking`).
        Returns ``None`` when ``Z = 0``: the aggregated label is almost surely constant (or no pair
        of levels has a positive cost), so AUC_MP is undefined.
        """
        levels, q = self.level_probs(aggregate=aggregate, w=w)
        C = cost_matrix(levels, costs) if len(levels) > 1 else np.zeros((1, 1))
        T = self.mass @ q
        Z = float(T @ C @ T)
        if not Z > 0:
            return None
        X = self.mass[:, None] * q
        return X, X @ C.T / Z

    def level_probs(
        self,
        *,
        aggregate: str | Callable[[np.ndarray], float] = "sum",
        w: ArrayLike | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Distribution of the aggregated label ``Ȳ = ψ(Y)`` given each point (docs/theory.md §3, §5).

        Returns
        -------
        levels : (L,) sorted distinct values of ψ over all label vectors
        q : (n, L) ``q[i, l] = P(Ȳ = levels[l] | x_i)``
        """
        vals = aggregate_labels(self.label_vectors, aggregate, w)
        levels, inv = np.unique(vals, return_inverse=True)
        M = np.zeros((len(vals), len(levels)))
        M[np.arange(len(vals)), inv] = 1.0
        return levels, self.label_probs @ M

    def multipartite_auc(
        self,
        scores: ArrayLike,
        *,
        aggregate: str | Callable[[np.ndarray], float] = "sum",
        w: ArrayLike | None = None,
        costs: str | ArrayLike = "linear",
    ) -> float:
        """Exact population multipartite AUC of the aggregated label (docs/theory.md §3).

        Same kernel as :func:`bipartite.metrics.multipartite_auc` with level weights
        ``p_i q_l(x_i)``; ties ½ and self-pairs included, so a constant scorer scores ½.
        NaN (with a warning) when the aggregated label is almost surely constant.

        >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.2], [0.1, 0.6]])
        >>> round(P.multipartite_auc([0.0, 0.0]), 6)
        0.5
        """
        f = self.check_scores(scores)
        levels, q = self.level_probs(aggregate=aggregate, w=w)
        C = cost_matrix(levels, costs)
        val = weighted_multipartite_auc(f, self.mass[:, None] * q, C)
        if np.isnan(val):
            return warn_undefined(
                "multipartite AUC is undefined: the aggregated label is almost surely constant."
            )
        return val
