"""Empirical learners for multi-label bipartite ranking (docs/theory.md §4, §5, §9, §10).

Two scikit-learn compatible estimators, :class:`MLPRanker` (PyTorch) and :class:`XGBRanker`
(XGBoost gbtree), share two independent choices:

``objective`` — *what* is optimised
    ``"loss_aggregation"`` (docs/theory.md §4): maximise ``Σ_k a_k AUC_k(f)`` with mixing weights
    ``a`` (default all ones). Bayes scorer ``Σ_k α_k η_k``, ``α_k = a_k/(π_k(1-π_k))``.

    ``"label_aggregation"`` (docs/theory.md §5): aggregate ``Ȳ = ψ(Y)`` (``aggregate``: a name of
    :data:`bipartite.labels.AGGREGATIONS` or a callable ψ; label weights ``w`` of the weighted
    sum), then maximise the multipartite AUC with ``costs``. Bayes scorer ``E[Ȳ|x]`` for linear
    costs.

    The keyword form (``objective``, ``a``, ``aggregate``, ``w``, ``costs``) is the rankers'
    spelling of an :class:`~bipartite.objectives.Objective`, kept on purpose: plain parameters
    are what ``get_params``, ``clone`` and parameter grids need; ``fit`` builds the Objective
    from them (validated once) and asks it which labels to aggregate and which pair weights to
    use.

    ``"max_min"`` (docs/theory.md §13.6): maximise ``min_k AUC_k``. Plug-in: the heads of loss
    aggregation, then the mixing weights ``a_`` that maximise the held-out min AUC; pairwise:
    group-DRO label weights on the per-label pairwise losses (:mod:`bipartite.learners.maxmin`).
    ``LEARNER_OBJECTIVES`` = the core ``OBJECTIVES`` + ``("max_min",)``.

``method`` — *how*
    ``"pairwise"``: a pairwise surrogate (docs/theory.md §8) with the pair weights of the objective
    (per-label AUC-normalised weights ``a_k/(n⁺_k n⁻_k)`` for loss aggregation, multipartite costs
    on Ȳ for label aggregation). For loss aggregation this route is *not* rank-consistent
    (docs/theory.md §9): expect a small excess AUC loss against the plug-in route.

    ``"pointwise"`` (MLP only): squared-error regression on Ȳ, whose minimiser is ``E[Ȳ|x]``; this
    is Bayes-optimal for label aggregation with linear costs only (other cases raise).

    ``"plugin"``: per-label probability heads trained with a proper loss (binary cross-entropy),
    combined by the closed form of the objective — :func:`bipartite.bayes.loss_aggregation` with
    ``π`` estimated by the training label means, or
    :func:`bipartite.bayes.label_aggregation_scores`. A ψ that is not affine in Y (product, or;
    :attr:`bipartite.labels.Aggregation.needs_joint`) needs the conditional
    joint ``P(Y = v | x)``: the plug-in route then trains one ``2**K``-way softmax head over label
    vectors (cross-entropy, also proper) and derives both ``η̂ = P̂ V`` and the joint from it.

The score of every estimator is ``decision_function(X)`` (``predict`` returns the same scores); only
the order of the scores matters. ``score(X, Y, qid=None)`` returns the objective's AUC criterion
(:func:`ranking_criterion`; per query with ``qid``), so the estimators work with scikit-learn
model selection.

Query ids: ``fit(X, Y, qid=...)`` and ``score(X, Y, qid=...)``, as XGBoost (``groups=`` is a
deprecated alias, FutureWarning). In ``cross_val_score``/``GridSearchCV`` with ``GroupKFold``
they reach the ranker only through scikit-learn's metadata routing
(``sklearn.set_config(enable_metadata_routing=True)``, ``est.set_fit_request(qid=True)``,
``est.set_score_request(qid=True)``, ``params={"groups": qid, "qid": qid}``); without it the
ranker trains and scores without queries. Scorers for ``scoring=`` (per-label AUC, gAUC, Min AUC,
the criteria) and the recipe: :mod:`bipartite.learners.scoring`.

Ties: all AUCs count ties ½ (docs/theory.md §2).

Large K (CAL500: K = 174): every route but the joint head works on the marginals, O(n K) per
combination; the joint head (``2**K`` outputs) refuses past ``max_joint_labels`` before anything is
built. A label with a single class in the training rows (prior 0 or 1) is left out of loss
aggregation and max-min with a warning naming it, before any training (``trained_labels_``,
:func:`bipartite.learners.base.trained_labels`).
"""

from bipartite.learners.base import (
    LEARNER_OBJECTIVES,
    OBJECTIVES,
    SURROGATES,
    MissingQueryIdWarning,
    ranking_criterion,
)
from bipartite.learners.mlp import MLPRanker
from bipartite.learners.scoring import SCORER_KINDS, make_ranking_scorer, ranking_scorers
from bipartite.learners.torch_estimator import NotFittedError, TorchEstimator, TorchFit
from bipartite.learners.xgb import XGBRanker

__all__ = [
    "MLPRanker",
    "XGBRanker",
    "TorchEstimator",
    "TorchFit",
    "NotFittedError",
    "ranking_criterion",
    "make_ranking_scorer",
    "ranking_scorers",
    "MissingQueryIdWarning",
    "LEARNER_OBJECTIVES",
    "OBJECTIVES",
    "SCORER_KINDS",
    "SURROGATES",
]
