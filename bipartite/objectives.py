"""What is optimised: the :class:`Objective` value (docs/theory.md §2–§5, §13).

One frozen value holds a ranking objective of the package and is validated once, in its
constructor:

* **loss aggregation** ``max Σ_k a_k AUC_k`` with mixing weights ``a`` (docs/theory.md §4);
* **label aggregation** ``max AUC_MP`` of ``Ȳ = ψ(Y)`` (``aggregate``, label weights ``w``) with
  costs ``costs`` (docs/theory.md §3, §5);
* **max-min** ``max min_k AUC_k`` (docs/theory.md §13);
* **a single label** ``max AUC_k`` (LA25 §7's "label k" rows; docs/theory.md §2.1).

Everything that depends on the kind of objective is here, once: its Bayes scorer
(:meth:`Objective.bayes`), its closed form on estimated conditionals (:meth:`Objective.plugin_scores`),
its population value (:meth:`Objective.value`) and empirical criterion (:meth:`Objective.criterion`),
and the low-rank pair weights of its population surrogate risk (:meth:`Objective.pair_factors`,
docs/theory.md §9.1). The keyword forms users know (``objective="label_aggregation", aggregate=...``)
are thin constructors: :meth:`Objective.from_spec` and :func:`as_objective`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    UndefinedMetricWarning,
    check_array,
    check_binary,
    check_consistent_length,
    check_label_matrix,
    check_nonnegative,
    check_option,
    check_problem,
    check_qid,
    pow2_normalise,
)
from bipartite.bayes import (
    OBJECTIVES,
    effective_weights,
    label_aggregation,
    label_aggregation_scores,
    loss_aggregation,
)
from bipartite.labels import (
    AGGREGATES,
    COST_FAMILIES,
    Aggregation,
    aggregate_labels,
    check_weights_used,
    get_aggregation,
)
from bipartite.population import MAX_LABELS

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

__all__ = ["OBJECTIVE_KINDS", "Objective", "as_objective", "label_aucs", "restrict_costs"]

#: The kinds of :class:`Objective`: the two objectives of multi-label bipartite ranking
#: (:data:`bipartite.bayes.OBJECTIVES`), the max-min AUC (docs/theory.md §13) and one label alone.
OBJECTIVE_KINDS = OBJECTIVES + ("max_min", "single_label")


def _weights(value: ArrayLike, name: str) -> tuple[float, ...]:
    """Non-negative finite 1-D weights with a positive entry, as a tuple."""
    v = check_nonnegative(check_array(value, name, ndim=1), name)
    if not np.any(v > 0):
        raise ValueError(f"The '{name}' parameter must have a positive entry, got {v.tolist()}.")
    return tuple(float(x) for x in v)


def _costs(costs: Any) -> str | tuple[tuple[float, ...], ...]:
    """A cost family name, or a square finite matrix (non-negative below the diagonal, the part
    :func:`bipartite.labels.cost_matrix` uses) as a tuple of rows."""
    if isinstance(costs, str):
        return check_option(costs, "costs", COST_FAMILIES)
    if costs is None or isinstance(costs, int | float | bool):
        raise TypeError(f"The 'costs' parameter must be one of {list(COST_FAMILIES)} or a square "
                        f"matrix, got {costs!r}.")
    C = check_array(costs, "costs", ndim=2)
    if C.shape[0] != C.shape[1]:
        raise ValueError(f"The 'costs' matrix must be square, got shape {C.shape}.")
    check_nonnegative(np.tril(C, -1), "costs")
    return tuple(tuple(float(x) for x in row) for row in C)


def restrict_costs(costs: str | ArrayLike, levels: np.ndarray, present: np.ndarray
                   ) -> str | np.ndarray:
    """Costs over a subset ``present`` of the sorted ``levels``: a family name as is, a user
    (L, L) matrix restricted to the rows/columns of the present levels (docs/theory.md §3.1)."""
    if isinstance(costs, str):
        return costs
    pos = np.searchsorted(levels, present)
    return np.asarray(costs, dtype=np.float64)[np.ix_(pos, pos)]


def _fmt(values: tuple[float, ...]) -> str:
    return ",".join(f"{x:g}" for x in values)


@dataclass(frozen=True)
class Objective:
    """A ranking objective, validated once (docs/theory.md §2–§5, §13).

    Parameters
    ----------
    kind : {"loss_aggregation", "label_aggregation", "max_min", "single_label"}
    a : array-like of shape (K,), optional
        Mixing weights of loss aggregation (non-negative, a positive entry; default all ones).
    aggregate : str or callable
        The aggregation map ψ of label aggregation: a name of
        :data:`~bipartite.labels.AGGREGATIONS` or a callable of one label vector (docs/theory.md
        §5.1).
    w : array-like of shape (K,), optional
        Label weights of ``aggregate="sum"`` (non-negative, a positive entry; default all ones).
    costs : {"uniform", "linear", "squared", "gain"} or (L, L) matrix
        Multipartite costs of label aggregation (docs/theory.md §3.1).
    label : int, optional
        The label (0-based) of ``kind="single_label"``.

    Each option is refused, naming it, by the kinds that do not use it. Arrays are stored as
    tuples, so the value is hashable and compares by content. The number of labels K is not
    known here: :meth:`check_labels` compares ``a``, ``w`` and ``label`` with it at use.

    >>> Objective("label_aggregation", aggregate="product").name
    'label_aggregation[product]'
    >>> Objective("loss_aggregation", w=[1.0, 2.0])
    Traceback (most recent call last):
    ...
    ValueError: The 'w' parameter is not used with objective='loss_aggregation' (it is the label weights of label aggregation), got [1.0, 2.0].
    """

    kind: str = "loss_aggregation"
    a: tuple[float, ...] | None = None
    aggregate: str | Callable[[np.ndarray], float] = "sum"
    w: tuple[float, ...] | None = None
    costs: str | tuple[tuple[float, ...], ...] = "linear"
    label: int | None = None

    def __post_init__(self) -> None:
        check_option(self.kind, "kind", OBJECTIVE_KINDS)
        set_ = object.__setattr__
        if not callable(self.aggregate):
            check_option(self.aggregate, "aggregate", AGGREGATES)
        set_(self, "costs", _costs(self.costs))
        unused = {"a": "the mixing weights of loss aggregation",
                  "w": "the label weights of label aggregation",
                  "aggregate": "the aggregation map of label aggregation",
                  "costs": "the costs of label aggregation",
                  "label": "the label of objective='single_label'"}
        uses = {"loss_aggregation": ("a",), "label_aggregation": ("aggregate", "w", "costs"),
                "max_min": (), "single_label": ("label",)}[self.kind]
        for name, what in unused.items():
            value = getattr(self, name)
            if name not in uses and not _is_default(name, value):
                value = list(value) if isinstance(value, tuple) else value
                hint = ("; max-min chooses its weights itself: the max-min point, or in the "
                        "learners the fitted a_ (plug-in) or dro_weights_ (pairwise), "
                        "docs/theory.md §13.6" if self.kind == "max_min" else "")
                raise ValueError(f"The '{name}' parameter is not used with "
                                 f"objective={self.kind!r} (it is {what}{hint}), got {value!r}.")
        if self.a is not None:
            set_(self, "a", _weights(self.a, "a"))
        if self.w is not None:
            check_weights_used(self.aggregate, self.w)
            set_(self, "w", _weights(self.w, "w"))
        if self.kind == "single_label":
            k = self.label
            if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0:
                raise ValueError(f"The 'label' parameter must be a non-negative int (0-based "
                                 f"label index), got {k!r}.")
            set_(self, "label", int(k))

    # -- thin constructors -------------------------------------------------------------------
    @classmethod
    def from_spec(cls, objective: str = "loss_aggregation", *, a: ArrayLike | None = None,
                  aggregate: str | Callable[[np.ndarray], float] = "sum",
                  w: ArrayLike | None = None, costs: str | ArrayLike = "linear",
                  label: int | None = None) -> Objective:
        """The keyword form of the functions and learners: ``objective="loss_aggregation"``,
        ``"label_aggregation"``, ``"max_min"`` or ``"single_label"``, with its options.

        >>> Objective.from_spec("loss_aggregation", a=[1, 0]).a
        (1.0, 0.0)
        """
        check_option(objective, "objective", OBJECTIVE_KINDS)
        return cls(objective, a=a, aggregate=aggregate, w=w, costs=costs, label=label)

    # -- what the kind decides ---------------------------------------------------------------
    @property
    def name(self) -> str:
        """A short name for tables and figures: the kind, its non-default options in brackets;
        a single label is ``label_<k+1>`` (1-based, as LA25 §7).

        >>> Objective("loss_aggregation", a=[1, 2]).name, Objective("single_label", label=0).name
        ('loss_aggregation[a=1,2]', 'label_1')
        """
        if self.kind == "single_label":
            return f"label_{self.label + 1}"
        opts = []
        if self.a is not None:
            opts.append(f"a={_fmt(self.a)}")
        if not _is_default("aggregate", self.aggregate):
            opts.append(getattr(self.aggregate, "__name__", "callable")
                        if callable(self.aggregate) else self.aggregate)
        if self.w is not None:
            opts.append(f"w={_fmt(self.w)}")
        if not _is_default("costs", self.costs):
            opts.append(self.costs if isinstance(self.costs, str) else "costs=matrix")
        return self.kind + (f"[{';'.join(opts)}]" if opts else "")

    @property
    def uses_priors(self) -> bool:
        """Whether the Bayes scorer depends on the priors π: every kind but label aggregation,
        whose Bayes scorer depends on the conditionals only (docs/theory.md §5); loss aggregation
        and a single label through ``α_k = a_k / (π_k (1 − π_k))`` (§4), max-min through the
        AUC_k normalisations (§13)."""
        return self.kind != "label_aggregation"

    def aggregation(self, K: int | None = None) -> Aggregation:
        """The aggregation map ψ of label aggregation with its properties
        (:func:`bipartite.labels.get_aggregation`: the entry of
        :data:`~bipartite.labels.AGGREGATIONS`, or for a callable ψ its properties from its
        values on the ``2**K`` label vectors, ``K`` then required; docs/theory.md §5.1).

        >>> Objective("label_aggregation", aggregate="or").aggregation().binary
        True
        """
        if self.kind != "label_aggregation":
            raise ValueError(f"The objective {self.name} aggregates no labels: only "
                             "objective='label_aggregation' has an aggregation map.")
        return get_aggregation(self.aggregate, K)

    def joint_needed(self, K: int | None = None) -> bool:
        """Whether the closed form of :meth:`plugin_scores` for ``K`` labels needs the conditional
        joint ``P(Y = v | x)`` and not only the marginals η (docs/theory.md §5.2): label
        aggregation unless ψ is affine in Y (:attr:`bipartite.labels.Aggregation.affine`) and
        the costs linear; e.g. product and or, ``f* = P(Ȳ = 1 | x)``. A callable ψ is affine or
        not by its values at ``K`` labels; without ``K`` it counts as needing the joint.

        >>> Objective("label_aggregation", aggregate=lambda v: v[0] + 2 * v[1]).joint_needed(2)
        False
        """
        if self.kind != "label_aggregation":
            return False
        if callable(self.aggregate) and K is None:
            return True
        return not self.linear_costs or self.aggregation(K).needs_joint

    @property
    def needs_joint(self) -> bool:
        """:meth:`joint_needed` without K (a callable ψ counts as needing the joint)."""
        return self.joint_needed()

    @property
    def binary_aggregate(self) -> bool:
        """Label aggregation to a binary ``Ȳ`` (:attr:`bipartite.labels.Aggregation.binary`:
        product or or); a callable ψ counts as not binary here (its values at K labels tell:
        ``aggregation(K).binary``)."""
        return (self.kind == "label_aggregation" and not callable(self.aggregate)
                and self.aggregation().binary)

    @property
    def fixed_weights(self) -> bool:
        """Whether the objective is one fixed linear form ``Σ W_ij S_ij`` of the win matrix, with
        pair weights it states itself (:meth:`pair_factors`; on data, those of the labels
        :meth:`aggregated_labels` names, or of the K labels with :meth:`mixing_weights`): every
        kind but max-min, whose label weights the learner chooses (the fitted ``a_`` of the
        plug-in route, ``dro_weights_`` of the pairwise one; docs/theory.md §13.6)."""
        return self.kind != "max_min"

    # -- training (the learners ask these; docs/theory.md §8.2, §10.2) ------------------------
    def aggregated_labels(self, Y: ArrayLike) -> np.ndarray | None:
        """Which labels training ranks: the aggregated label ``Ȳ = ψ(Y)`` (n,) for label
        aggregation, whose pairs are those of its levels weighted by the costs; None for the other
        kinds, which rank the K binary labels themselves (docs/theory.md §8.2).

        >>> Objective("label_aggregation", aggregate="or").aggregated_labels([[0, 1], [0, 0]])
        array([1., 0.])
        """
        if self.kind != "label_aggregation":
            return None
        return aggregate_labels(Y, self.aggregate, None if self.w is None else np.asarray(self.w))

    @property
    def linear_costs(self) -> bool:
        return isinstance(self.costs, str) and self.costs == "linear"

    def check_labels(self, K: int) -> None:
        """Refuse ``a``, ``w`` or ``label`` that do not fit K labels."""
        for name in ("a", "w"):
            v = getattr(self, name)
            if v is not None and len(v) != K:
                raise ValueError(f"The '{name}' parameter must have shape ({K},) (one entry per "
                                 f"label), got shape ({len(v)},).")
        if self.label is not None and self.label >= K:
            raise ValueError(f"The 'label' parameter must be below the number of labels K = {K}, "
                             f"got {self.label}.")

    def mixing_weights(self, K: int) -> np.ndarray | None:
        """The weights ``a`` of the objective as loss aggregation (a single label: the unit
        vector; loss aggregation: ``a`` or None for ones); None for the other kinds."""
        self.check_labels(K)
        if self.kind == "single_label":
            return np.eye(K)[self.label]
        return None if self.a is None else np.asarray(self.a)

    def _label_options(self) -> dict[str, Any]:
        costs = self.costs if isinstance(self.costs, str) else np.asarray(self.costs)
        w = None if self.w is None else np.asarray(self.w)
        return {"aggregate": self.aggregate, "w": w, "costs": costs}

    def _no_linear_form(self, what: str) -> ValueError:
        return ValueError(
            f"The objective {self.kind!r} has no {what}: min_k AUC_k is not linear in the win "
            "matrix (docs/theory.md §13); use loss aggregation with chosen weights "
            "(bipartite.pareto.balanced_weights) or bipartite.pareto.max_min_point.")

    # -- population --------------------------------------------------------------------------
    def bayes(self, problem: FiniteProblem) -> np.ndarray:
        """The Bayes-optimal scorer on a finite problem (docs/theory.md §4, §5, §13).

        :func:`bipartite.bayes.loss_aggregation` (``f* = Σ α_k η_k``; a single label: ``α_k η_k``),
        :func:`bipartite.bayes.label_aggregation` (which raises
        :class:`~bipartite.bayes.NotRepresentableError` when the Bayes preference is cyclic), or
        for max-min the scores of :func:`bipartite.pareto.max_min_point` (a Pareto-optimal weak
        order maximising ``min_k AUC_k``; no closed form, docs/theory.md §13.1).

        >>> from bipartite.population import FiniteProblem
        >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.2], [0.1, 0.6]])
        >>> Objective().bayes(P).round(3).tolist()
        [4.433, 2.9]
        """
        check_problem(problem)
        if self.kind == "label_aggregation":
            return label_aggregation(problem, **self._label_options())
        if self.kind == "max_min":
            from bipartite.pareto import max_min_point

            return max_min_point(problem).scores
        return loss_aggregation(problem.eta, problem.pi, self.mixing_weights(problem.K))

    def plugin_scores(self, eta: ArrayLike | None, pi: ArrayLike, *,
                      joint: ArrayLike | None = None) -> np.ndarray:
        """The closed-form Bayes scorer applied to estimated conditionals (the plug-in route,
        docs/theory.md §9.5, §10.2): ``loss_aggregation(eta, pi, a)`` or
        ``label_aggregation_scores(eta, joint, ...)`` (``joint`` needed when :attr:`needs_joint`).
        Loss aggregation and label aggregation by sum with linear costs need only the marginals
        ``eta`` (n, K): O(n K) at any K (CAL500: K = 174). The others need the joint over the
        ``2**K`` label vectors and refuse ``eta`` alone past ``bipartite.population.MAX_LABELS``
        labels, before anything of size ``2**K`` is built.

        >>> Objective().plugin_scores([[0.9, 0.0], [0.0, 0.5]], pi=[0.5, 0.1]).round(3).tolist()
        [3.6, 5.556]
        """
        if self.kind == "max_min":
            raise self._no_linear_form("closed-form scorer")
        if self.kind == "label_aggregation":
            if joint is None and self.needs_joint and np.ndim(eta) == 2 \
                    and np.shape(eta)[1] > MAX_LABELS:
                raise ValueError(
                    f"The objective {self.name} has no closed form on the marginals: it needs the "
                    f"conditional joint over the 2**K label vectors, and 'eta' has K = "
                    f"{np.shape(eta)[1]} columns, past the limit bipartite.population.MAX_LABELS "
                    f"= {MAX_LABELS}. Use an affine aggregate ('sum') with linear costs or loss "
                    "aggregation (marginals only), or a pairwise learner.")
            return np.asarray(label_aggregation_scores(eta=eta, joint=joint,
                                                       **self._label_options()))
        K = len(np.atleast_1d(np.asarray(pi)))
        return np.asarray(loss_aggregation(eta, pi, self.mixing_weights(K)))

    def pair_factors(self, problem: FiniteProblem) -> tuple[np.ndarray, np.ndarray]:
        """Low-rank factors ``W = X Yᵀ`` of the objective's population pair weights,
        ``objective(f) = Σ_ij W_ij S_ij`` (docs/theory.md §3, §4, §9.1).

        * loss aggregation (a single label: ``a = e_k``): ``X[:, k] = α_k p η_k`` and
          ``Y[:, k] = p (1 − η_k)`` with ``α = effective_weights(π, a)``;
        * label aggregation: ``X = p q`` and ``Y = (p q) Cᵀ / Z``
          (:meth:`FiniteProblem.multipartite_pair_factors`), so that ``Σ W ⊙ S = AUC_MP``.

        Raises ``ValueError`` for a label with prior 0 or 1, a constant aggregated label, or
        max-min (not linear in ``S``).
        """
        check_problem(problem)
        if self.kind == "max_min":
            raise self._no_linear_form("pair weights")
        if self.kind == "label_aggregation":
            factors = problem.multipartite_pair_factors(**self._label_options())
            if factors is None:
                raise ValueError(
                    "The multipartite AUC is undefined: the aggregated label is almost surely "
                    "constant (or no pair of levels has a positive cost), so label aggregation "
                    "has no objective.")
            return factors
        p = problem.mass[:, None]
        alpha = effective_weights(problem.pi, self.mixing_weights(problem.K))
        E = problem.eta
        return alpha * p * E, p * (1.0 - E)

    def value(self, problem: FiniteProblem, scores: ArrayLike) -> float:
        """The population objective of a scorer, ties ½ and self-pairs included: ``Σ_k a_k AUC_k``
        (``a`` defaults to 1; not normalised), ``AUC_MP``, ``min_k AUC_k`` or ``AUC_k``
        (docs/theory.md §2.2, §3.2, §4, §13).

        >>> from bipartite.population import FiniteProblem
        >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.2], [0.1, 0.6]])
        >>> round(Objective().value(P, [0.0, 0.0]), 6)  # a constant scorer: ½ per label
        1.0
        """
        check_problem(problem)
        if self.kind == "label_aggregation":
            return float(problem.multipartite_auc(scores, **self._label_options()))
        aucs = problem.auc(scores)
        if self.kind == "max_min":
            return float(np.min(aucs))
        a = self.mixing_weights(problem.K)
        return float(aucs @ (np.ones(problem.K) if a is None else a))

    # -- data --------------------------------------------------------------------------------
    def criterion(self, Y: ArrayLike, scores: ArrayLike, *, qid: ArrayLike | None = None,
                  check_input: bool = True) -> float:
        """The objective's AUC criterion on labelled data, in [0, 1] (docs/theory.md §10.1).

        * loss aggregation: ``Σ_k a_k AUC_k / Σ_k a_k`` over the labels with a comparable pair;
        * label aggregation: the multipartite AUC of ``Ȳ = ψ(Y)`` with the costs;
        * max-min: ``min_k AUC_k`` over the labels with a comparable pair; a single label: AUC_k.

        With ``qid`` (query ids) only pairs within a query count and every query weighs the same
        (:func:`bipartite.metrics.group_auc` with ``weighting="uniform"``; for label aggregation
        the mean of the per-query AUC_MP over the queries holding two levels). All per-query AUCs
        come from one sort (:func:`bipartite.metrics.grouped_stats`). Ties count ½. NaN with
        :class:`~bipartite.UndefinedMetricWarning` when no pair is comparable.
        ``check_input=False`` skips the checks of ``Y`` (then a 2-D 0/1 array), ``scores``
        (finite float64) and ``qid`` (then int codes, ``check_qid``):
        for callers that validated at their public entry.

        >>> Y = [[0, 0], [1, 0], [0, 1], [1, 1]]
        >>> round(Objective().criterion(Y, [0.0, 1.0, 2.0, 3.0]), 3)
        0.875
        >>> round(Objective("max_min").criterion(Y, [0.0, 1.0, 2.0, 3.0]), 3)
        0.75
        """
        if check_input:
            Y = check_label_matrix(Y)
            s = check_array(scores, "scores", ndim=1, exact_integers="order")
            check_consistent_length(Y=Y, scores=s)
            g = check_qid(qid, len(s), "qid", ref="scores")
        else:
            s, g = scores, qid
        K = Y.shape[1]
        if self.kind == "label_aggregation":
            return self._multipartite_criterion(Y, s, g)
        aucs = label_aucs(Y, s, g, check_input=False)  # NaN where a label has no comparable pair
        if self.kind == "max_min":
            if not np.isfinite(aucs).any():
                warnings.warn("No label has a comparable pair: the max-min criterion is "
                              "undefined.", UndefinedMetricWarning, stacklevel=2)
                return float("nan")
            return float(np.nanmin(aucs))
        a = self.mixing_weights(K)
        a = np.ones(K) if a is None else a
        defined = np.isfinite(aucs) & (a > 0)
        if not defined.any():
            warnings.warn(
                "No label with positive weight has a comparable pair: the criterion is undefined.",
                UndefinedMetricWarning, stacklevel=2)
            return float("nan")
        # a power of two rescales a (exact): Σ a of 1e308s overflows, of 5e-324 underflows
        ad = pow2_normalise(np.asarray(a[defined], dtype=np.float64))
        return float(np.dot(ad, aucs[defined]) / ad.sum())

    def _multipartite_criterion(self, Y: np.ndarray, s: np.ndarray, g: np.ndarray | None
                                ) -> float:
        """AUC_MP of ``Ȳ``; with query codes ``g`` the uniform mean over the queries holding two
        levels of their AUC_MP, from one sort (:class:`bipartite.metrics.QuerySegments`). The
        costs of the levels a query lacks do not enter its normalisation, so the full cost
        matrix serves every query (as :func:`restrict_costs` to the levels present)."""
        from bipartite.labels import cost_matrix
        from bipartite.metrics import QuerySegments, multipartite_auc

        opts = self._label_options()
        ybar = aggregate_labels(Y, opts["aggregate"], opts["w"])
        if g is None:
            return float(multipartite_auc(ybar, s, costs=opts["costs"]))
        levels, index = np.unique(ybar, return_inverse=True)
        C = cost_matrix(levels, opts["costs"])
        per_query, n_levels = QuerySegments(s, g, check_input=False).multipartite(
            index.reshape(-1), len(levels), C)
        if not np.any(n_levels > 1):
            warnings.warn(
                "No group holds two levels of the aggregated label: the criterion is undefined.",
                UndefinedMetricWarning, stacklevel=3)
            return float("nan")
        return float(np.mean(per_query[n_levels > 1]))


def label_aucs(Y: np.ndarray, scores: np.ndarray, qid: np.ndarray | None = None,
               sample_weight: np.ndarray | None = None, *, check_input: bool = True) -> np.ndarray:
    """Per-label AUC of one scorer (K,), ties ½; with query codes ``qid`` the uniform per-query
    gAUC of every label (:func:`bipartite.metrics.grouped_stats`, ``weighting="uniform"``), the
    normalisation of :meth:`Objective.criterion`. NaN, quietly, for a label with no comparable
    pair. ``check_input=False`` skips the checks of ``Y`` and ``scores`` (callers that checked
    them); ``qid`` is always int codes (``check_qid``).

    >>> label_aucs(np.array([[0, 1], [1, 0], [1, 1]]), np.array([0.0, 1.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    from bipartite.metrics import grouped_stats, multilabel_auc

    if check_input:
        Y = check_binary(Y, "Y", ndim=2)
        scores = check_array(scores, "scores", ndim=1, exact_integers="order")
        check_consistent_length(Y=Y, scores=scores)
    if qid is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            return multilabel_auc(Y, scores, sample_weight=sample_weight)
    return grouped_stats(Y, scores, qid, sample_weight=sample_weight, ap=False,
                         check_input=False).gauc("uniform")


#: The default of each option of the keyword form: the field defaults of :class:`Objective`, their
#: one home (the functions and learners that spell an objective by keywords repeat them in their
#: signatures, held equal by tests/test_objectives.py).
_DEFAULTS = {f.name: f.default for f in fields(Objective) if f.name != "kind"}


def _is_default(name: str, value: Any) -> bool:
    """Whether ``value`` leaves the option ``name`` at its default: the default itself, or an
    equal string."""
    default = _DEFAULTS[name]
    return value is default or (isinstance(value, str) and value == default)


def as_objective(objective: Objective | str = "loss_aggregation", **spec: Any) -> Objective:
    """An :class:`Objective` from either form that the package's functions accept: an
    ``Objective`` as is, or the keyword form ``objective="…", a=…, aggregate=…, w=…, costs=…``
    (:meth:`Objective.from_spec`). With an ``Objective``, the keywords must keep their defaults
    (two descriptions of one objective are refused).

    >>> as_objective("label_aggregation", aggregate="or") == Objective("label_aggregation", aggregate="or")
    True
    """
    unknown = sorted(set(spec) - set(_DEFAULTS))
    if unknown:
        raise TypeError(f"Unknown objective option(s) {unknown}; the options are "
                        f"{sorted(_DEFAULTS)}.")
    if isinstance(objective, Objective):
        for name, value in spec.items():
            if not _is_default(name, value):
                raise ValueError(f"The '{name}' parameter must be left at its default when "
                                 f"'objective' is an Objective ({objective.name}), got {value!r}.")
        return objective
    return Objective.from_spec(objective, **spec)
