"""Synthetic multi-label data with exact conditional label probabilities (docs/theory.md §10).
"""


from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special
from sklearn.utils import Bunch

from bipartite._utils.validation import (
    check_array,
    check_random_state,
    check_real,
    first_index,
)

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

# ================================================================================================
# Synthetic data (docs/theory.md §10)
# ================================================================================================

#: Box on which x is uniform: ``[_LOW, _HIGH]^d``.
_LOW, _HIGH = -1.0, 1.0
#: log2 of the number of scrambled-Sobol points of the d >= 3 rule.
_QMC_LOG2 = 16

#: Fixed seed of the directions for d > 2 (never the sampling seed: the problem is a function of
#: (priors, beta, rho, dim) only).
_DIRECTION_SEED = 20251122
#: Gauss-Legendre nodes per panel and the number of uniform panels of the d = 2 rule.
_GL_NODES = 20
_GL_PANELS = 64


def _directions(K: int, d: int) -> np.ndarray:
    """Unit directions ``u_k`` (K, d) of the synthetic problem (docs/theory.md §10).

    d = 1: every ``u_k = +1`` (nested thresholds on one axis). d = 2: evenly spread angles
    ``θ_k = π k / K`` (K = 2 gives the two coordinate axes). d > 2: i.i.d. standard normal vectors,
    normalised, from a Generator seeded with ``(_DIRECTION_SEED, K, d)`` — fixed, independent of
    any sampling seed.
    """
    if d == 1:
        return np.ones((K, 1))
    if d == 2:
        theta = np.pi * np.arange(K) / K
        return np.column_stack([np.cos(theta), np.sin(theta)])
    G = np.random.default_rng([_DIRECTION_SEED, K, d]).standard_normal((K, d))
    return G / np.linalg.norm(G, axis=1, keepdims=True)


def _sigmoid_mean_1d(c: np.ndarray, a: float, beta: float) -> np.ndarray:
    """``E_{x ~ U[-1,1]} σ(β (a x + c))`` for ``a > 0``, in closed form (vectorised in ``c``).

    ``∫_{-1}^{1} σ(β(a x + c)) dx = [softplus(β(c + a)) − softplus(β(c − a))] / (β a)``; softplus
    via ``logaddexp(0, ·)`` (stable for large arguments). ``β = ∞``: the step function, whose mean
    is ``clip((c + a) / (2a), 0, 1)``.
    """
    if np.isinf(beta):
        return np.clip((c + a) / (2.0 * a), 0.0, 1.0)
    return (np.logaddexp(0.0, beta * (c + a)) - np.logaddexp(0.0, beta * (c - a))) / (2 * beta * a)


def _gauss_legendre_panels(breaks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss-Legendre nodes/weights on [-1, 1] with the given sorted breakpoints;
    weights sum to 1 (a mean over U[-1, 1])."""
    x0, w0 = np.polynomial.legendre.leggauss(_GL_NODES)
    lo, hi = breaks[:-1], breaks[1:]
    half = (hi - lo) / 2.0
    nodes = ((lo + hi) / 2.0)[:, None] + half[:, None] * x0[None, :]
    weights = half[:, None] * w0[None, :] / 2.0
    return nodes.ravel(), weights.ravel()


def _prior_of_threshold(t: float, u: np.ndarray, beta: float, *, fine: bool = True) -> float:
    """``π(t) = E[σ(β(⟨u, X⟩ − t))]`` for X uniform on ``[-1, 1]^d`` (docs/theory.md §10).

    The coordinate with the largest ``|u_j|`` is integrated in closed form
    (:func:`_sigmoid_mean_1d`); the remaining ``d − 1`` coordinates by
    d = 1: nothing left (exact);
    d = 2: composite Gauss-Legendre (``_GL_NODES`` per panel) on uniform panels plus breakpoints at
    the kinks ``u_r x_r − t = ±|a|`` and at geometric offsets ``2^k / (β |u_r|)`` around them
    (``fine=False`` halves the uniform panels: used for the error estimate);
    d ≥ 3: ``2^16`` scrambled Sobol points with a fixed seed (``fine=False``: another scramble).
    """
    j = int(np.argmax(np.abs(u)))
    a = float(abs(u[j]))
    rest = np.delete(u, j)
    d = len(u)
    if d == 1:
        return float(_sigmoid_mean_1d(np.array([-t]), a, beta)[0])
    if d == 2:
        ur = float(rest[0])
        n_panels = _GL_PANELS if fine else _GL_PANELS // 2
        breaks = [np.linspace(_LOW, _HIGH, n_panels + 1)]
        if ur != 0.0:
            kinks = np.array([(t + a) / ur, (t - a) / ur])
            offsets = [0.0]
            if np.isfinite(beta):
                scale = 1.0 / (beta * abs(ur))
                offsets += [s * scale * 2.0**k for k in range(-2, 6) for s in (-1.0, 1.0)]
            breaks.append((kinks[:, None] + np.array(offsets)[None, :]).ravel())
        b = np.unique(np.clip(np.concatenate(breaks), _LOW, _HIGH))
        nodes, weights = _gauss_legendre_panels(b)
        return float(weights @ _sigmoid_mean_1d(ur * nodes - t, a, beta))
    from scipy.stats import qmc

    pts = qmc.Sobol(d - 1, scramble=True, seed=0 if fine else 1).random_base2(_QMC_LOG2)
    pts = _LOW + (_HIGH - _LOW) * pts
    return float(np.mean(_sigmoid_mean_1d(pts @ rest - t, a, beta)))


def _solve_threshold(target: float, u: np.ndarray, beta: float) -> float:
    """``t`` with ``π(t) = target`` by Brent's method; π is decreasing in t."""
    span = float(np.abs(u).sum())
    lo, hi = -span - 1.0, span + 1.0

    def f(t: float) -> float:
        return _prior_of_threshold(t, u, beta) - target

    # Finite β: π(t) is in (0, 1) for every t, so widen the bracket until it changes sign.
    for _ in range(200):
        if f(lo) > 0:
            break
        lo -= 2.0 * (hi - lo)
    for _ in range(200):
        if f(hi) < 0:
            break
        hi += 2.0 * (hi - lo)
    return float(optimize.brentq(f, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500))


@dataclass(frozen=True, eq=False)
class SyntheticModel:
    """The synthetic multi-label problem of docs/theory.md §10 (exact η, joint and π).

    ``X`` is uniform on ``[-1, 1]^dim``; ``η_k(x) = σ(β(⟨u_k, x⟩ − t_k))`` with unit directions
    ``u_k`` (see ``directions``) and thresholds ``t_k`` solved numerically so that
    ``π_k = E[η_k(X)]`` equals the target prior; the labels are coupled, given x, by a Gaussian
    copula with (equi)correlation ``ρ`` (:func:`bipartite.population.gaussian_copula_joint`).
    Build it with :func:`synthetic_model` (cached); the problem depends on
    ``(priors, beta, rho, dim)`` only — the sampling seed never changes ``η``.

    Attributes
    ----------
    priors : tuple of float, the target priors (K,).
    beta, rho : float; dim : int.
    directions : ndarray (K, dim) unit vectors ``u_k``.
    thresholds : ndarray (K,) ``t_k``.
    pi : ndarray (K,) population priors ``E[η_k(X)]`` under the quadrature rule (equal to the
        targets up to ``prior_error``).
    prior_error : float, ``max_k |π_k − target_k|`` (the root-finding accuracy).
    quadrature_error : float, ``max_k`` of the difference between the quadrature rule and a
        coarser/independent one at ``t_k`` (an estimate of the integration error).

    >>> m = synthetic_model(priors=(0.3, 0.6), beta=8.0)
    >>> m.pi.round(6).tolist(), m.prior_error < 1e-10
    ([0.3, 0.6], True)
    >>> m.eta([[0.0, 0.0]]).round(3).tolist()
    [[0.039, 0.832]]
    """

    priors: tuple[float, ...]
    beta: float
    rho: float
    dim: int
    directions: np.ndarray = field(repr=False)
    thresholds: np.ndarray = field(repr=False)
    pi: np.ndarray = field(repr=False)
    prior_error: float = field(repr=False)
    quadrature_error: float = field(repr=False)

    @property
    def K(self) -> int:
        return len(self.priors)

    @property
    def feature_names(self) -> list[str]:
        return [f"x{j + 1}" for j in range(self.dim)]

    @property
    def label_names(self) -> list[str]:
        return [f"y{k + 1}" for k in range(self.K)]

    def _check_X(self, X: ArrayLike) -> np.ndarray:
        A = check_array(X, "X", ndim=2)
        if A.shape[1] != self.dim:
            raise ValueError(
                f"The 'X' parameter must have {self.dim} columns (dim), got shape {A.shape}."
            )
        return A

    def eta(self, X: ArrayLike) -> np.ndarray:
        """``η_k(x) = σ(β(⟨u_k, x⟩ − t_k))`` (docs/theory.md §10), shape (n, K); β = ∞ gives
        ``1[⟨u_k, x⟩ > t_k]``."""
        A = self._check_X(X)
        s = A @ self.directions.T - self.thresholds[None, :]
        if np.isinf(self.beta):
            return (s > 0).astype(np.float64)
        return special.expit(self.beta * s)

    def joint(self, X: ArrayLike) -> np.ndarray:
        """``P(Y = v_m | x)`` (n, 2**K), rows over ``itertools.product([0, 1], repeat=K)``
        (docs/theory.md §1): the Gaussian copula of ``η(x)`` with correlation ``rho``. With β = ∞ the
        labels are deterministic given x and every copula gives the same joint."""
        from bipartite.population import gaussian_copula_joint, independent_joint

        E = self.eta(X)
        if np.isinf(self.beta):
            return independent_joint(E)
        return gaussian_copula_joint(E, self.rho)

    def sample(self, n: int, seed: int | np.random.Generator = 0) -> Bunch:
        """Draw ``n`` i.i.d. pairs ``(X, Y)``; returns the Bunch of :func:`make_synthetic`.

        The Generator from ``seed`` draws ``X`` first (uniform on the box), then one uniform per
        row that picks the label vector from the exact joint (inverse CDF over the ``2**K``
        vectors).
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"The 'n' parameter must be a positive integer, got {n!r}.")
        rng = check_random_state(seed)
        X = rng.uniform(_LOW, _HIGH, size=(int(n), self.dim))
        eta = self.eta(X)
        joint = self.joint(X)
        Y = _draw_label_vectors(joint, self.K, rng)
        return Bunch(
            X=X,
            Y=Y,
            eta=eta,
            joint=joint,
            pi=self.pi.copy(),
            model=self,
            feature_names=self.feature_names,
            label_names=self.label_names,
        )

    def finite_problem(self, X: ArrayLike) -> FiniteProblem:
        """The :class:`~bipartite.population.FiniteProblem` with uniform mass on the rows of ``X``
        and ``label_probs = joint(X)``: the empirical distribution of x with the exact conditional
        joint, on which the Bayes scorers of docs/theory.md §4/§5 are exact."""
        from bipartite.population import FiniteProblem

        Q = self.joint(X)
        return FiniteProblem(np.full(len(Q), 1.0 / len(Q)), Q)


def _draw_label_vectors(joint: np.ndarray, K: int, rng: np.random.Generator) -> np.ndarray:
    """One label vector per row from the categorical ``joint`` (n, 2**K) by inverse CDF; the
    returned (n, K) int64 rows follow ``itertools.product([0, 1], repeat=K)`` (bit k of the
    category index, most significant first)."""
    cdf = np.cumsum(joint, axis=1)
    u = rng.random(len(joint))[:, None] * cdf[:, -1:]
    m = np.minimum((u >= cdf).sum(axis=1), joint.shape[1] - 1)
    shifts = np.arange(K - 1, -1, -1)
    return ((m[:, None] >> shifts[None, :]) & 1).astype(np.int64)


@functools.lru_cache(maxsize=64)
def _build_model(priors: tuple[float, ...], beta: float, rho: float, dim: int) -> SyntheticModel:
    K = len(priors)
    U = _directions(K, dim)
    t = np.array([_solve_threshold(p, U[k], beta) for k, p in enumerate(priors)])
    pi = np.array([_prior_of_threshold(t[k], U[k], beta) for k in range(K)])
    coarse = np.array([_prior_of_threshold(t[k], U[k], beta, fine=False) for k in range(K)])
    for arr in (U, t, pi):
        arr.setflags(write=False)
    return SyntheticModel(
        priors=priors,
        beta=beta,
        rho=rho,
        dim=dim,
        directions=U,
        thresholds=t,
        pi=pi,
        prior_error=float(np.max(np.abs(pi - np.asarray(priors)))),
        quadrature_error=float(np.max(np.abs(pi - coarse))),
    )


#: Size limit of :func:`synthetic_model` and :func:`make_synthetic`: at most ``10**8`` entries
#: (800 MB of float64) in their largest array — the ``2**16 × (dim − 1)`` quadrature points of
#: ``dim ≥ 3``, and the ``n × dim`` features and ``n × 2**K`` joint of a sample — unless
#: ``max_entries`` is raised; checked before anything is allocated.
MAX_ENTRIES = 100_000_000


def _check_max_entries(max_entries: int) -> int:
    if isinstance(max_entries, bool) or not isinstance(max_entries, int | np.integer) \
            or max_entries < 1:
        raise ValueError(f"The 'max_entries' parameter must be a positive integer, "
                         f"got {max_entries!r}.")
    return int(max_entries)


def _check_entries(size: int, limit: int, what: str) -> None:
    """Refuse ``size`` entries above ``limit``; ``what`` names the parameters that set it."""
    if size > limit:
        raise ValueError(f"{what} {size} entries, more than the limit max_entries = {limit}; "
                         f"lower the sizes or raise 'max_entries' deliberately.")


def synthetic_model(
    *, priors: Sequence[float] = (0.5, 0.5), beta: float = 8.0, rho: float = 0.0, dim: int = 2,
    max_entries: int = MAX_ENTRIES,
) -> SyntheticModel:
    """The :class:`SyntheticModel` for ``(priors, beta, rho, dim)`` (docs/theory.md §10); cached.

    Parameters
    ----------
    priors : sequence of K floats in (0, 1), the target ``π_k``.
    beta : float > 0 or ``numpy.inf``, sharpness (``inf``: deterministic labels).
    rho : float in [−1, 1], copula correlation; for K > 2 the equicorrelation matrix must be
        positive semi-definite, i.e. ``rho ≥ −1/(K − 1)``.
    dim : int ≥ 1, dimension of x.
    max_entries : int, size limit (default ``MAX_ENTRIES = 10**8``): for ``dim ≥ 3`` the priors
        are integrated with ``2**16 × (dim − 1)`` quasi-Monte Carlo points, refused above the
        limit before anything is allocated (``dim`` up to about 1500 by default).

    ``beta = numpy.inf`` is valid input (documented above): the step-function limit, with
    deterministic labels ``1[⟨u_k, x⟩ > t_k]`` and the exact step integral of
    :func:`_sigmoid_mean_1d`.

    >>> synthetic_model(priors=(0.2,), beta=4.0, dim=1).thresholds.round(4).tolist()
    [0.656]
    """
    p = check_array(priors, "priors", ndim=1)
    bad = (p <= 0) | (p >= 1)
    if bad.any():
        i = first_index(bad)
        raise ValueError(
            f"The 'priors' parameter must hold values strictly between 0 and 1, "
            f"got {p[i]:g} at index {i}."
        )
    K = len(p)
    b = check_real(beta, "beta")
    if not b > 0:
        raise ValueError(f"The 'beta' parameter must be positive (or inf), got {beta!r}.")
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ValueError(f"The 'dim' parameter must be a positive integer, got {dim!r}.")
    limit = _check_max_entries(max_entries)
    if dim >= 3:
        _check_entries(2**_QMC_LOG2 * (int(dim) - 1), limit,
                       f"The 'dim' parameter ({dim}) gives a quadrature rule of 2**{_QMC_LOG2} "
                       f"points in {int(dim) - 1} dimensions, i.e.")
    r = check_real(rho, "rho")
    if not -1.0 <= r <= 1.0:
        raise ValueError(f"The 'rho' parameter must lie in [-1, 1], got {rho!r}.")
    if K > 2 and r < -1.0 / (K - 1):
        raise ValueError(
            f"The 'rho' parameter must be >= -1/(K-1) = {-1.0 / (K - 1):.6g} for K={K} labels "
            f"(else the equicorrelation matrix is not positive semi-definite), got {rho!r}."
        )
    R = np.full((K, K), r)
    np.fill_diagonal(R, 1.0)
    if np.linalg.eigvalsh(R).min() < -1e-12:
        raise ValueError(
            f"The 'rho' parameter gives a correlation matrix that is not positive semi-definite "
            f"(K={K}, rho={rho!r})."
        )
    return _build_model(tuple(float(x) for x in p), b, r, int(dim))




def make_synthetic(
    n: int,
    *,
    priors: Sequence[float] = (0.5, 0.5),
    beta: float = 8.0,
    rho: float = 0.0,
    dim: int = 2,
    seed: int | np.random.Generator = 0,
    max_entries: int = MAX_ENTRIES,
) -> Bunch:

    """Sample the synthetic multi-label problem of docs/theory.md §10 with its exact η, joint and π.

    x is uniform on ``[-1, 1]^dim``; ``η_k(x) = σ(β(⟨u_k, x⟩ − t_k))`` with the directions of
    :class:`SyntheticModel` (d = 2: angles ``π k / K``) and thresholds solved so that
    ``E[η_k(X)] = priors[k]``; given x the labels follow the Gaussian copula with correlation
    ``rho``. ``seed`` only drives sampling: two calls with different seeds share the same problem.
    ``beta = numpy.inf`` gives the step-function limit (deterministic labels given x).

    Size limit: the sample's largest arrays, ``X`` (n × dim) and ``joint`` (n × 2**K), and the
    quadrature of :func:`synthetic_model` must each hold at most ``max_entries`` entries (default
    ``MAX_ENTRIES = 10**8``, 800 MB of float64), checked before anything is allocated; raise it
    deliberately for more.

    Returns
    -------
    Bunch with ``X`` (n, dim) float64, ``Y`` (n, K) int64, ``eta`` (n, K) exact ``η(X)``,
    ``joint`` (n, 2**K) exact ``P(Y = v_m | X)`` over ``itertools.product([0, 1], repeat=K)``,
    ``pi`` (K,) population priors, ``model`` (:class:`SyntheticModel`), ``feature_names``,
    ``label_names``.

    >>> d = make_synthetic(1000, priors=(0.3, 0.6), rho=0.5, seed=1)
    >>> d.X.shape, d.Y.shape, d.joint.shape
    ((1000, 2), (1000, 2), (1000, 4))
    >>> d.pi.round(3).tolist(), d.Y.mean(axis=0).round(2).tolist()
    ([0.3, 0.6], [0.29, 0.6])
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"The 'n' parameter must be a positive integer, got {n!r}.")
    model = synthetic_model(priors=priors, beta=beta, rho=rho, dim=dim, max_entries=max_entries)
    _check_entries(int(n) * max(model.dim, 2**model.K), _check_max_entries(max_entries),
                   f"The 'n' ({n}), 'dim' ({model.dim}) and 'priors' (K = {model.K}) parameters "
                   f"give a sample whose largest array (X: n × dim, joint: n × 2**K) would hold")
    return model.sample(n, seed=seed)
