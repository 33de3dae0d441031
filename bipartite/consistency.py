"""Surrogate consistency on finite problems: exact surrogate minimisers and AUC regret (docs/theory.md §9).

On finite support every ranking objective of the package is linear in the win matrix,
``objective(f) = Σ_{i,j} W_ij S_ij`` (docs/theory.md §2–§4), with pair weights

* loss aggregation: ``W = Σ_k a_k W^(k)``, ``W^(k)_ij = p_i η_ik p_j (1 − η_jk) / (π_k (1 − π_k))``
  (:meth:`FiniteProblem.pair_weights`), so the objective is ``Σ_k a_k AUC_k``;
* label aggregation: ``W_ij = p_i p_j Σ_{y>y'} c(y, y') q_y(x_i) q_{y'}(x_j) / Z`` with ``Z`` the
  normaliser of AUC_MP (docs/theory.md §3), so the objective is ``AUC_MP``.

Both are low-rank, ``W = X Yᵀ`` (:func:`objective_factors`). The population pairwise-surrogate
risk ``R(f) = Σ_{i≠j} W_ij φ(f_i − f_j)`` is convex in the ``n`` scores, so its minimiser is
computed exactly with cvxpy (:func:`surrogate_minimizer`); :func:`auc_regret` compares the induced
ranking with the Bayes-optimal one. The plug-in route (:func:`plugin_scores`) estimates the
conditional label distribution and applies the closed forms of docs/theory.md §4–§5.
:func:`exponential_fixed_point` solves the first-order condition of the exponential risk (after
Uematsu & Lee, TPAMI 2015) by iteration, a solver-free cross-check.

The ``i = j`` terms are ``W_ii φ(0)``: constant in ``f``, so including or excluding them does not
change any minimiser (nor the fixed point: their contributions to its two sides cancel exactly).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_nonnegative,
    check_positive,
    check_problem,
    check_random_state,
    check_tolerance,
)
from bipartite.bayes import OBJECTIVES
from bipartite.objectives import Objective, as_objective
from bipartite.surrogates import PAIRWISE_KINDS as SURROGATES
from bipartite.surrogates import get_pair_loss

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

__all__ = [
    "SURROGATES",
    "OBJECTIVES",
    "InfimumNotAttainedWarning",
    "objective_factors",
    "objective_pair_weights",
    "objective_value",
    "bayes_scores",
    "auc_regret",
    "infimum_attained",
    "surrogate_minimizer",
    "pairwise_population_minimizer",
    "exponential_fixed_point",
    "plugin_scores",
    "smooth_pair_loss",
]


# Ridge added to the surrogate risk (normalised to total pair weight 1) when its infimum is not
# attained (see surrogate_minimizer).
DEFAULT_RIDGE = 1e-6


class InfimumNotAttainedWarning(UserWarning):
    """The surrogate risk has no finite minimiser; a small ridge was added (docs/theory.md §9)."""


# --------------------------------------------------------------------------------------------
# The objective as pair weights
# --------------------------------------------------------------------------------------------
def objective_factors(
    problem: FiniteProblem,
    *,
    objective: Objective | str = "loss_aggregation",
    a: ArrayLike | None = None,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
    costs: str | ArrayLike = "linear",
) -> tuple[np.ndarray, np.ndarray]:
    """Low-rank factors ``W = X Yᵀ`` of the objective's pair weights (docs/theory.md §3, §4, §9).

    ``objective`` is an :class:`~bipartite.objectives.Objective`, or its keyword form
    (``objective`` with ``a``, ``aggregate``, ``w``, ``costs``; :func:`~bipartite.objectives.as_objective`);
    the factors are :meth:`Objective.pair_factors <bipartite.objectives.Objective.pair_factors>`:

    * ``"loss_aggregation"``: ``X[:, k] = α_k p η_k`` and ``Y[:, k] = p (1 − η_k)`` with the
      effective weights ``α = effective_weights(π, a)`` (docs/theory.md §4); ``W = Σ_k a_k W^(k)``.
    * ``"label_aggregation"``: ``X = p q`` and ``Y = (p q) Cᵀ / Z`` with ``q`` the conditional
      distribution of ``Ȳ = ψ(Y)`` over its L levels, ``C`` the cost matrix and
      ``Z = Σ_{a,b} C_ab T_a T_b`` (``T = pᵀ q``), so that ``Σ W ⊙ S = AUC_MP``.

    Returns
    -------
    X, Y : ndarrays of shape (n, r), r = K or L.

    Raises
    ------
    ValueError
        For a label with prior 0 or 1 (loss aggregation), a constant aggregated label, or the
        max-min objective (not linear in the win matrix).

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9], [0.1]])
    >>> X, Y = objective_factors(P)
    >>> (X @ Y.T).round(4).tolist()
    [[0.09, 0.81], [0.01, 0.09]]
    """
    check_problem(problem)
    obj = as_objective(objective, a=a, aggregate=aggregate, w=w, costs=costs)
    return obj.pair_factors(problem)


def objective_pair_weights(problem: FiniteProblem, **objective: Any) -> np.ndarray:
    """Pair weights ``W`` with ``objective(f) = Σ_{i,j} W_ij S_ij`` (docs/theory.md §2–§4, §9).

    ``W = X Yᵀ`` from :func:`objective_factors` (same keyword options, or ``objective=`` an
    :class:`~bipartite.objectives.Objective`). For loss aggregation
    ``W = Σ_k a_k problem.pair_weights(k)``; for label aggregation ``Σ W ⊙ S = AUC_MP``.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.2], [0.1, 0.6]])
    >>> W = objective_pair_weights(P, a=[1.0, 0.0])
    >>> np.allclose(W, P.pair_weights(0))
    True
    """
    check_problem(problem)
    X, Y = objective_factors(problem, **objective)
    return X @ Y.T


def objective_value(
    problem: FiniteProblem,
    scores: ArrayLike,
    *,
    objective: Objective | str = "loss_aggregation",
    a: ArrayLike | None = None,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
    costs: str | ArrayLike = "linear",
) -> float:
    """The ranking objective of a scorer: ``Σ_k a_k AUC_k`` or ``AUC_MP`` (docs/theory.md §3, §4).

    Exact population values with ties ½ and self-pairs included, from
    :meth:`FiniteProblem.auc` / :meth:`FiniteProblem.multipartite_auc` (``a`` defaults to 1):
    :meth:`Objective.value <bipartite.objectives.Objective.value>`.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.2], [0.1, 0.6]])
    >>> round(objective_value(P, [0.0, 0.0]), 6)  # a constant scorer: ½ per label
    1.0
    """
    check_problem(problem)
    obj = as_objective(objective, a=a, aggregate=aggregate, w=w, costs=costs)
    return obj.value(problem, scores)


def bayes_scores(
    problem: FiniteProblem,
    *,
    objective: Objective | str = "loss_aggregation",
    a: ArrayLike | None = None,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
    costs: str | ArrayLike = "linear",
) -> np.ndarray:
    """The Bayes-optimal scorer of the objective on a finite problem (docs/theory.md §4, §5).

    :meth:`Objective.bayes <bipartite.objectives.Objective.bayes>`:
    :func:`bipartite.bayes.loss_aggregation` (``f* = Σ α_k η_k``) or
    :func:`bipartite.bayes.label_aggregation` (which raises
    :class:`~bipartite.bayes.NotRepresentableError` when the Bayes preference is cyclic).

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.2], [0.1, 0.6]])
    >>> bayes_scores(P).round(3).tolist()
    [4.433, 2.9]
    """
    check_problem(problem)
    obj = as_objective(objective, a=a, aggregate=aggregate, w=w, costs=costs)
    return obj.bayes(problem)


def auc_regret(problem: FiniteProblem, scores: ArrayLike, **objective: Any) -> float:
    """AUC regret: Bayes-optimal objective value minus the scorer's (docs/theory.md §9).

    ``regret(f) = objective(f*) − objective(f) ≥ 0`` with the objective ``Σ_k a_k AUC_k``
    (loss aggregation) or ``AUC_MP`` (label aggregation) of :func:`objective_value` and ``f*``
    from :func:`bayes_scores` (same keyword options, or ``objective=`` an
    :class:`~bipartite.objectives.Objective`). Exactly 0 (up to rounding, ~1e-15) when ``f``
    induces a Bayes-optimal ranking.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9], [0.1]])
    >>> auc_regret(P, [1.0, 0.0]), round(auc_regret(P, [0.0, 1.0]), 6)
    (0.0, 0.8)
    """
    check_problem(problem)
    obj = as_objective(**objective)
    return obj.value(problem, obj.bayes(problem)) - obj.value(problem, scores)


# --------------------------------------------------------------------------------------------
# The surrogate minimiser
# --------------------------------------------------------------------------------------------
def _components(A: np.ndarray) -> np.ndarray:
    """Connected-component label of each node of the graph with adjacency ``A`` (boolean)."""
    n = A.shape[0]
    comp = np.full(n, -1)
    c = 0
    for s in range(n):
        if comp[s] >= 0:
            continue
        stack = [s]
        comp[s] = c
        while stack:
            u = stack.pop()
            for v in np.flatnonzero(A[u] & (comp < 0)):
                comp[v] = c
                stack.append(int(v))
        c += 1
    return comp


def _reach(A: np.ndarray) -> np.ndarray:
    """Reflexive-transitive closure of a boolean adjacency matrix (n ≤ a few hundred)."""
    R = A | np.eye(A.shape[0], dtype=bool)
    while True:
        R2 = R | ((R.astype(np.int64) @ R.astype(np.int64)) > 0)
        if np.array_equal(R2, R):
            return R
        R = R2


def infimum_attained(W: ArrayLike) -> bool:
    """Whether ``Σ_{i≠j} W_ij φ(f_i − f_j)`` has a finite minimiser, φ logistic or exponential.

    With edges ``i → j`` for ``W_ij > 0`` (i ≠ j): the risk is bounded below by 0 and tends to 0
    along any direction ``d`` with ``d_i ≥ d_j`` on every edge, strictly on one; such a direction
    exists iff some weakly connected component of the graph is not strongly connected. So the
    infimum is attained iff every weakly connected component is strongly connected (then the
    minimiser is unique up to one additive constant per component, φ being strictly convex).
    Deterministic labels (η ∈ {0, 1}) typically make it unattained: the minimiser is at infinity.
    Hinge and squared hinge always attain theirs.

    >>> infimum_attained(np.array([[0.0, 0.8], [0.1, 0.0]]))
    True
    >>> infimum_attained(np.array([[0.0, 0.8], [0.0, 0.0]]))  # separable: f_0 − f_1 → ∞
    False
    """
    M = check_array(W, "W", ndim=2)
    check_nonnegative(M, "W")
    A = M > 0
    np.fill_diagonal(A, False)
    comp = _components(A | A.T)
    R = _reach(A)
    same = comp[:, None] == comp[None, :]
    return bool(np.all(R[same] & R.T[same]))


def _risk_pair_weights(problem: FiniteProblem, objective: Objective
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The factors ``X, Y`` of the objective and the pair weights ``W = X Yᵀ`` of its surrogate
    risk ``Σ_{i≠j} W_ij φ(f_i − f_j)``: the self-pairs ``i = j`` zeroed (their terms ``W_ii φ(0)``
    are constant in ``f``; see the module docstring)."""
    X, Y = objective.pair_factors(problem)
    W = X @ Y.T
    np.fill_diagonal(W, 0.0)
    return X, Y, W


def _solve(prob: Any, solver: str | None, *, polish: bool) -> None:
    """Solve with cvxpy (CLARABEL by default). With ``polish`` (smooth surrogates, refined by
    Newton steps afterwards) the default tolerances suffice and cvxpy's accuracy warning is
    silenced; otherwise (hinge: LP/QP) the tolerances are tightened to 1e-10."""
    import cvxpy as cp

    name = solver
    if name is None:
        name = "CLARABEL" if "CLARABEL" in cp.installed_solvers() else None
    elif not isinstance(name, str) or name.upper() not in cp.installed_solvers():
        raise ValueError(f"The 'solver' parameter must be None or an installed cvxpy solver "
                         f"{sorted(cp.installed_solvers())}, got {solver!r}.")
    opts: dict[str, Any] = {}
    if name == "CLARABEL" and not polish:
        opts = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}
    with warnings.catch_warnings():
        if polish:
            warnings.filterwarnings("ignore", message="Solution may be inaccurate")
        prob.solve(solver=name, **opts)
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy could not minimise the surrogate risk (status {prob.status}).")


def surrogate_minimizer(
    problem: FiniteProblem,
    *,
    surrogate: str = "logistic",
    objective: Objective | str = "loss_aggregation",
    a: ArrayLike | None = None,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
    costs: str | ArrayLike = "linear",
    ridge: float | None = None,
    solver: str | None = None,
) -> np.ndarray:
    """Exact population minimiser of a pairwise surrogate risk on a finite problem (docs/theory.md §9).

    Minimises ``R(f) = Σ_{i≠j} W_ij φ(f_i − f_j)`` over ``f ∈ ℝⁿ`` with cvxpy, where ``W`` are the
    objective's pair weights (:func:`objective_pair_weights`, normalised to sum 1 — this does not
    move the minimiser) and

    * ``"logistic"``: ``φ(d) = log(1 + e^{−d})`` (``cp.logistic(−d)``),
    * ``"exponential"``: ``φ(d) = e^{−d}``,
    * ``"hinge"``: ``φ(d) = max(0, 1 − d)``,
    * ``"squared_hinge"``: ``φ(d) = max(0, 1 − d)²``.

    The ``i = j`` terms ``W_ii φ(0)`` are constant and omitted. **Gauge:** ``R`` is invariant
    under adding a constant to the scores of a weakly connected component of the graph
    ``{W_ij > 0}``, so each component's scores are pinned to sum 0.
    **Infimum at infinity:** for logistic and exponential losses the infimum is not attained
    when some component is not strongly connected (:func:`infimum_attained`; e.g. deterministic
    labels). Then, unless ``ridge`` is given, a ridge ``1e-6 ‖f‖²`` is added to the normalised
    risk (an :class:`InfimumNotAttainedWarning` says so): its minimiser is finite and unique, and
    its ranking is that of the regularisation path at small ridge. ``ridge > 0`` adds
    ``ridge ‖f‖²`` (to the risk normalised to total pair weight 1) always. Hinge minimisers exist but are often not unique (the risk is
    piecewise linear): the solver returns one, possibly with ties that the Bayes order breaks, so
    its regret is a property of that choice, not of the surrogate.

    Parameters
    ----------
    problem : FiniteProblem
    surrogate : {"logistic", "exponential", "hinge", "squared_hinge"}
    objective, a, aggregate, w, costs : see :func:`objective_factors`
    ridge : float ≥ 0, optional
    solver : str, optional — a cvxpy solver name (default CLARABEL when installed)

    Returns
    -------
    ndarray of shape (n,) — the minimising scores.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([1 / 3] * 3, [[0.2], [0.5], [0.8]])
    >>> f = surrogate_minimizer(P, surrogate="exponential")
    >>> round(float(f[0] / f[2]), 4), bool(abs(f[1]) < 1e-6)  # K = 1: f = ½ logit η + c
    (-1.0, True)
    """
    check_problem(problem)
    import cvxpy as cp

    loss = get_pair_loss(surrogate, "surrogate")
    _, _, W = _risk_pair_weights(problem, as_objective(objective, a=a, aggregate=aggregate, w=w,
                                                      costs=costs))
    total = W.sum()
    if not total > 0:
        raise ValueError("The objective has no weighted pair: every scorer is optimal.")
    W = W / total
    if ridge is not None:
        ridge = float(ridge)
        if not np.isfinite(ridge) or ridge < 0:
            raise ValueError(f"The 'ridge' parameter must be a non-negative number, got {ridge!r}.")
    elif loss.smooth and not infimum_attained(W):
        warnings.warn(
            f"The {surrogate} surrogate risk has no finite minimiser on this problem (its "
            f"infimum is approached at infinity); adding a ridge {DEFAULT_RIDGE:g} ||f||^2.",
            InfimumNotAttainedWarning,
            stacklevel=2,
        )
        ridge = DEFAULT_RIDGE
    I, J = np.nonzero(W > 0)
    w = W[I, J]
    n = problem.n
    f = cp.Variable(n)
    d = f[I] - f[J]
    risk = w @ loss.form("cvxpy")(d, 1.0)
    if ridge:
        risk = risk + ridge * cp.sum_squares(f)
    A = W > 0
    comp = _components(A | A.T)
    G = np.zeros((comp.max() + 1, n))
    G[comp, np.arange(n)] = 1.0
    prob = cp.Problem(cp.Minimize(risk), [G @ f == 0])
    _solve(prob, solver, polish=loss.smooth)
    out = np.asarray(f.value, dtype=np.float64).copy()
    if loss.smooth:
        out = _newton_polish(out, I, J, w, surrogate, float(ridge or 0.0), G)
    return out


def smooth_pair_loss(surrogate: str, d: ArrayLike, order: int = 0) -> tuple[np.ndarray, ...]:
    """The pair loss φ of a smooth surrogate at score differences ``d = f_i − f_j`` and its
    derivatives, in NumPy: ``(φ,)``, ``(φ, φ')`` or ``(φ, φ', φ'')`` for ``order`` 0, 1, 2
    (docs/theory.md §8, §9). ``"logistic"``: ``φ(d) = log(1 + e^{−d})`` in the stable form
    ``logaddexp(0, −d)``, with ``φ' = −σ(−d)`` (never ``σ(d) − 1``: cancellation) and
    ``φ'' = σ(−d) σ(d)``; ``"exponential"``: ``φ(d) = e^{−d}``, ``φ' = −e^{−d}``, ``φ'' = e^{−d}``.
    The NumPy form of :data:`bipartite.surrogates.PAIR_LOSSES` ``[surrogate]``; a kind without
    one (the hinges: not twice differentiable) is refused naming it.

    >>> [round(float(v), 6) for v in smooth_pair_loss("logistic", 0.0, order=2)]
    [0.693147, -0.5, 0.25]
    """
    form = get_pair_loss(surrogate, "surrogate").form("numpy")
    if order not in (0, 1, 2):
        raise ValueError(f"The 'order' parameter must be 0, 1 or 2, got {order!r}.")
    d = check_array(d, "d", allow_empty=True)  # any shape; NaN/inf refused by name
    return form(d, 1.0, order)


def _newton_polish(
    f: np.ndarray,
    I: np.ndarray,
    J: np.ndarray,
    w: np.ndarray,
    surrogate: str,
    ridge: float,
    G: np.ndarray,
    max_iter: int = 50,
) -> np.ndarray:
    """Damped Newton steps from the conic solver's point, within the gauge ``G f = 0``.

    Interior-point exponential-cone solvers stop at gradients of ~1e-6; a few Newton steps on the
    smooth risk bring it to rounding level, so that near-ties of the minimiser are resolved.
    The Hessian ``Σ w φ''(d) (e_i − e_j)(e_i − e_j)ᵀ + 2 ridge I`` is singular along the gauge
    directions; the least-squares step is projected onto ``G f = 0``.
    """
    n = len(f)
    P = np.eye(n) - G.T @ np.linalg.solve(G @ G.T, G)  # projector onto {G f = 0}

    def risk(x: np.ndarray) -> float:
        return float(w @ smooth_pair_loss(surrogate, x[I] - x[J])[0] + ridge * x @ x)

    cur = risk(f)
    for _ in range(max_iter):
        _, g1, g2 = smooth_pair_loss(surrogate, f[I] - f[J], order=2)
        grad = np.bincount(I, w * g1, n) - np.bincount(J, w * g1, n) + 2.0 * ridge * f
        grad = P @ grad
        if np.max(np.abs(grad)) < 1e-15:
            break
        h = w * g2
        H = np.zeros((n, n))
        np.add.at(H, (I, I), h)
        np.add.at(H, (J, J), h)
        np.add.at(H, (I, J), -h)
        np.add.at(H, (J, I), -h)
        H += 2.0 * ridge * np.eye(n)
        step = P @ -np.linalg.lstsq(H, grad, rcond=None)[0]
        slope = float(grad @ step)
        if not slope < 0:
            break
        t = 1.0
        while t > 1e-12:
            trial = f + t * step
            val = risk(trial)
            if val <= cur + 1e-4 * t * slope:
                break
            t *= 0.5
        else:
            break
        f, cur = trial, val
    return f


def exponential_fixed_point(
    problem: FiniteProblem,
    a: ArrayLike | None = None,
    *,
    objective: Objective | str = "loss_aggregation",
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
    costs: str | ArrayLike = "linear",
    tol: float = 1e-12,
    max_iter: int = 100_000,
    damping: float = 0.5,
) -> np.ndarray:
    """Minimiser of the exponential pairwise risk by its fixed-point equation (docs/theory.md §9).

    With ``W = X Yᵀ`` (:func:`objective_factors`), the risk ``Σ_{i,j} W_ij e^{−(f_i − f_j)}`` is
    ``Σ_r A_r B_r`` with ``A_r = Σ_j X_jr e^{−f_j}`` and ``B_r = Σ_j Y_jr e^{f_j}``; setting its
    gradient to 0 gives ``e^{2 f_i} = Σ_r X_ir B_r / Σ_r Y_ir A_r``. For loss aggregation this is
    Uematsu & Lee's form ``e^{2f(x)} = Σ_k u_k η_k(x) / Σ_k v_k (1 − η_k(x))`` with
    ``u_k = α_k E[(1 − η_k) e^{f}]`` and ``v_k = α_k E[η_k e^{−f}]``; for label aggregation the
    same with ``q_y`` and the costs. The expectations are over the full support (``i = j``
    included): the self-pair terms ``W_ii e^0`` are constant, and their contributions to the two
    sides of the equation, ``Σ_r X_ir Y_ir e^{f_i}``, cancel — so this is also the exact
    condition for the ``i ≠ j`` risk minimised by :func:`surrogate_minimizer`.

    Iterates ``f ← (1 − λ) f + λ · ½ log(Σ X B / Σ Y A)`` (``λ = damping``), re-centred to
    ``Σ_i f_i = 0`` (the gauge), until the largest change is below ``tol``.

    Raises
    ------
    ValueError
        If the minimiser is not finite (:func:`infimum_attained` is False on a connected graph,
        or the graph of ``W_ij > 0`` is not connected, where the gauge is not unique).
    RuntimeError
        If the iteration has not converged after ``max_iter`` steps.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([1 / 3] * 3, [[0.2], [0.5], [0.8]])
    >>> exponential_fixed_point(P).round(4).tolist()  # ½ logit η
    [-0.6931, 0.0, 0.6931]
    """
    check_problem(problem)
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    tol = check_tolerance(tol, "tol", allow_zero=False)
    damping = check_positive(damping, "damping")
    if not damping <= 1:
        raise ValueError(f"The 'damping' parameter must lie in (0, 1], got {damping!r}.")
    X, Y, W = _risk_pair_weights(problem, as_objective(objective, a=a, aggregate=aggregate, w=w,
                                                      costs=costs))
    A = W > 0
    if _components(A | A.T).max() > 0 or not infimum_attained(W):
        raise ValueError(
            "The exponential risk has no unique finite minimiser on this problem (the graph of "
            "positive pair weights is disconnected or not strongly connected)."
        )
    scale = W.sum()
    X, Y = X / np.sqrt(scale), Y / np.sqrt(scale)
    f = np.zeros(problem.n)
    for _ in range(max_iter):
        Ar = X.T @ np.exp(-f)
        Br = Y.T @ np.exp(f)
        target = 0.5 * (np.log(X @ Br) - np.log(Y @ Ar))
        new = (1.0 - damping) * f + damping * target
        new -= new.mean()
        if np.max(np.abs(new - f)) < tol:
            return new
        f = new
    raise RuntimeError(
        f"exponential_fixed_point did not converge in {max_iter} iterations (last change "
        f"{np.max(np.abs(new - f)):.3g}); increase max_iter or lower damping."
    )


def pairwise_population_minimizer(problem: FiniteProblem, *, surrogate: str = "logistic",
                                  objective: Objective | str = "loss_aggregation",
                                  gtol: float = 1e-9) -> np.ndarray:
    """Exact minimiser of the pairwise surrogate risk ``Σ_{i≠j} W_ij φ(f_i − f_j)`` on a finite
    problem (docs/theory.md §9.1), by L-BFGS with the analytic gradient, for supports too large
    for :func:`surrogate_minimizer` (cvxpy): O(n²) memory and time per step. ``W`` is
    :func:`objective_pair_weights` (``objective``: an :class:`~bipartite.objectives.Objective` or
    its name, with its default weights), rescaled to sum to n (a scale does not move the
    minimiser); φ is the NumPy form of a smooth entry of
    :data:`bipartite.surrogates.PAIR_LOSSES` (``softplus(−d)`` for logistic, ``exp(−d)`` for
    exponential). The minimiser exists when every ``W_ij > 0`` (η strictly inside (0, 1)); the
    scores are centred to sum 0.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.8], [0.3]])
    >>> f = pairwise_population_minimizer(P, surrogate="exponential")
    >>> bool(f[0] > f[1]), round(float(f[0] - f[1]), 6)  # ½ log of the odds ratio
    (True, 1.116796)
    """
    from scipy import optimize

    check_problem(problem)
    if not get_pair_loss(surrogate, "surrogate").smooth:
        smooth = [k for k in SURROGATES if get_pair_loss(k).smooth]
        raise ValueError(f"The 'surrogate' parameter must be a smooth pair loss {smooth} (L-BFGS "
                         f"needs the gradient), got {surrogate!r}.")
    gtol = check_tolerance(gtol, "gtol", allow_zero=False)
    _, _, W = _risk_pair_weights(problem, as_objective(objective))
    W *= len(W) / W.sum()

    def risk(f):
        phi, dphi = smooth_pair_loss(surrogate, f[:, None] - f[None, :], order=1)
        G = -W * dphi  # G_ij = −W_ij φ'(f_i − f_j) ≥ 0
        return float((W * phi).sum()), G.sum(axis=0) - G.sum(axis=1)

    res = optimize.minimize(risk, np.zeros(len(W)), jac=True, method="L-BFGS-B",
                            options={"maxiter": 20000, "gtol": gtol, "ftol": 1e-16,
                                     "maxcor": 30})
    return res.x - res.x.mean()


# --------------------------------------------------------------------------------------------
# The plug-in route
# --------------------------------------------------------------------------------------------
def plugin_scores(
    problem: FiniteProblem,
    *,
    objective: Objective | str = "loss_aggregation",
    a: ArrayLike | None = None,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
    costs: str | ArrayLike = "linear",
    n_samples: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Plug-in scorer: estimate the conditional labels, then apply the closed form (docs/theory.md §9).

    The minimiser of a proper loss (log-loss, squared loss) over probability estimates is the
    conditional probability itself, so on the population the plug-in route recovers ``η`` (and the
    joint) exactly and returns the Bayes scorer: regret 0.

    With ``n_samples``, a sample of that size is drawn from ``problem`` (``seed``) and the
    conditional joint ``P(Y = v | x_i)`` is estimated by the frequencies at each support point —
    the minimiser of the empirical log-loss of the saturated model (one free distribution per
    point). Points not in the sample get the pooled label-vector frequencies. The priors are the
    sample means of the labels. Then :func:`bipartite.bayes.loss_aggregation` (``Σ α̂_k η̂_k``) or
    :func:`bipartite.bayes.label_aggregation` (which depends on the estimated conditionals only).
    Its regret tends to 0 as ``n_samples`` grows (exactly 0 once the estimates order the points
    as the truth does).

    Raises
    ------
    ValueError
        If a label has no positive or no negative in the sample (its prior estimate is 0 or 1).

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.random(5, 2, seed=0)
    >>> auc_regret(P, plugin_scores(P))
    0.0
    """
    check_problem(problem)
    from bipartite.population import FiniteProblem

    obj = as_objective(objective, a=a, aggregate=aggregate, w=w, costs=costs)
    if n_samples is None:
        Q, pi = problem.label_probs, problem.pi
    else:
        if not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
            raise ValueError(
                f"The 'n_samples' parameter must be a positive integer, got {n_samples!r}."
            )
        idx, Ys = problem.sample(int(n_samples), seed=check_random_state(seed))
        m = Ys @ (2 ** np.arange(problem.K)[::-1])  # label-vector index, product order
        counts = np.zeros((problem.n, 2**problem.K))
        np.add.at(counts, (idx, m), 1.0)
        seen = counts.sum(axis=1)
        pooled = counts.sum(axis=0) / counts.sum()
        Q = np.where(seen[:, None] > 0, counts / np.maximum(seen, 1.0)[:, None], pooled)
        pi = Ys.mean(axis=0)
    if obj.uses_priors:
        return obj.plugin_scores(Q @ problem.label_vectors, pi)
    # the Bayes scorer of label aggregation depends on the conditionals only (not on the masses)
    return obj.bayes(FiniteProblem(np.full(problem.n, 1.0 / problem.n), Q))
