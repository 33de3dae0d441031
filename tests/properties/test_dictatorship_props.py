"""Property tests of LA25 Prop 6.1 (label dictatorship under loss aggregation; docs/theory.md §7;
papers/la25/claims_dictatorship.toml). Each docstring states the claim, its scope and the verdict.
"""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from bipartite.bayes import loss_aggregation
from bipartite.dictatorship import dictator, effective_weights
from bipartite.population import FiniteProblem, label_vectors


def dictates(problem: FiniteProblem, scores: np.ndarray, k: int) -> bool:
    """Definition (docs/theory.md §7), checked directly on the support: every point with y_k = 1 is
    ranked strictly above every point with y_k = 0 (deterministic labels: η ∈ {0, 1})."""
    yk = problem.eta[:, k]
    return bool(scores[yk == 1].min() > scores[yk == 0].max())


@st.composite
def deterministic_problems(draw, *, full_support: bool = True):
    """K in 2..4; one support point per label vector (all 2^K combinations when
    ``full_support``, else a random subset containing both classes of every label), with masses
    drawn on a wide range so that the priors — and hence α — vary widely; mixing weights a."""
    K = draw(st.integers(2, 4))
    V = label_vectors(K)
    if full_support:
        keep = np.ones(len(V), dtype=bool)
    else:
        keep = np.array(draw(st.lists(st.booleans(), min_size=len(V), max_size=len(V))))
        assume(keep.sum() >= 2)
        assume(np.all(V[keep].min(axis=0) == 0) and np.all(V[keep].max(axis=0) == 1))
    logm = draw(st.lists(st.floats(-6, 0), min_size=int(keep.sum()), max_size=int(keep.sum())))
    mass = np.exp(logm)
    mass /= mass.sum()
    Q = np.eye(len(V))[keep]
    a = np.array(draw(st.lists(st.floats(0.05, 4.0), min_size=K, max_size=K)))
    return FiniteProblem(mass, Q), a


def _away_from_ties(problem: FiniteProblem, a: np.ndarray) -> bool:
    alpha = effective_weights(problem.pi, a)
    margin = 2 * alpha - alpha.sum()
    return bool(np.all(np.abs(margin) > 1e-9 * alpha.sum()))


def _alpha_by_hand(problem: FiniteProblem, a: np.ndarray) -> np.ndarray:
    """``α_k = a_k / (π_k (1 − π_k))`` (LA25 Prop 5.2; docs/theory.md §4) written out, with
    ``π_k = Σ_i p_i y_ik`` summed over the deterministic support: independent of
    :func:`~bipartite.dictatorship.effective_weights`, which the scorer uses."""
    Y = problem.label_probs @ problem.label_vectors  # one label vector per point
    pi = np.array([sum(p * y[k] for p, y in zip(problem.mass, Y, strict=True)) for k in range(problem.K)])
    return np.array([a[k] / (pi[k] * (1.0 - pi[k])) for k in range(problem.K)])


@given(deterministic_problems())
def test_prop_6_1_dictator_iff_alpha_exceeds_the_rest(case):
    """Claim (LA25 §6, Prop 6.1; docs/theory.md §7): with deterministic labels, the loss-aggregation Bayes
    scorer ``Σ_k α_k η_k`` makes label k a dictator — every instance with y_k = 1 ranked strictly
    above every instance with y_k = 0 — exactly when ``α_k > Σ_{j≠k} α_j``, with
    ``α_k = a_k / (π_k (1 − π_k))`` computed here by hand (so a wrong α in the package, e.g.
    ``a/π``, fails the test).

    Scope: K in 2..4, every label combination with positive mass (both directions), priors implied
    by masses spanning e^-6..1, mixing weights a in [0.05, 4]; α-margins within a relative 1e-9
    of a tie are excluded (at exact equality the two sides tie: no dictator). Verdict: holds.
    """
    P, a = case
    alpha = _alpha_by_hand(P, a)
    assume(np.all(np.abs(2 * alpha - alpha.sum()) > 1e-9 * alpha.sum()))
    f = loss_aggregation(P.eta, P.pi, a)
    for k in range(P.K):
        assert dictates(P, f, k) == (alpha[k] > alpha.sum() - alpha[k])
        assert dictates(P, f, k) == (dictator(P.pi, a) == k)


@given(deterministic_problems(full_support=False))
def test_prop_6_1_sufficiency_without_full_support(case):
    """Claim (Prop 6.1, the "if" direction): ``α_k > Σ_{j≠k} α_j`` makes label k a dictator for
    any deterministic support (some label combinations may have zero mass).

    Scope: as above but random supports containing both classes of every label. Verdict: holds.
    The "only if" direction needs full support — see
    ``test_prop_6_1_necessity_needs_full_support`` for the counterexample.
    """
    P, a = case
    assume(_away_from_ties(P, a))
    f = loss_aggregation(P.eta, P.pi, a)
    k = dictator(P.pi, a)
    if k is not None:
        assert dictates(P, f, k)


def test_prop_6_1_necessity_needs_full_support():
    """Scope of the "only if": with the combination (0, 1) absent, the first label (index 0) is a
    dictator for *every* α — here with α_1 < α_2 — since the only y_1 = 0 point is (0, 0).
    So "dictator ⇒ α_k > Σ_{j≠k} α_j" fails without full support (docs/theory.md §7 states the condition).
    Both labels dictate here; the α criterion names only the second.
    """
    P = FiniteProblem([0.5, 0.3, 0.2], [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    f = loss_aggregation(P.eta, P.pi)  # pi = (0.5, 0.2): alpha = (4, 6.25)
    alpha = effective_weights(P.pi)
    assert alpha[0] < alpha[1]
    assert dictates(P, f, 0)
    assert dictator(P.pi) == 1 and dictates(P, f, 1)  # the α criterion names the other label
