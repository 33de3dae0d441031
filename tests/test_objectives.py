"""The Objective value (bipartite.objectives; docs/theory.md §2–§5, §13): one validated value per
objective, its Bayes scorer checked by brute-force enumeration of weak orders, its pair factors
against the exact population value, its empirical criterion against scikit-learn."""

from __future__ import annotations

import dataclasses
import itertools
import warnings

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from bipartite import UndefinedMetricWarning
from bipartite.bayes import label_aggregation, loss_aggregation
from bipartite.learners import ranking_criterion
from bipartite.metrics import multipartite_auc
from bipartite.objectives import OBJECTIVE_KINDS, Objective, as_objective
from bipartite.pareto import max_min_point
from bipartite.population import FiniteProblem, win_matrix

OBJECTIVES = [
    Objective(),
    Objective("loss_aggregation", a=[0.3, 1.0]),
    Objective("label_aggregation"),
    Objective("label_aggregation", w=[2.0, 1.0]),
    Objective("label_aggregation", aggregate="product"),
    Objective("label_aggregation", aggregate="or", costs="uniform"),
    Objective("single_label", label=1),
    Objective("max_min"),
]


# ---- the value -----------------------------------------------------------------------------
def test_keyword_forms_are_thin_constructors():
    assert Objective.from_spec("label_aggregation", aggregate="or") == Objective(
        "label_aggregation", aggregate="or")
    obj = Objective("loss_aggregation", a=np.array([1, 2]))
    assert obj.a == (1.0, 2.0) and isinstance(obj.a, tuple)
    assert as_objective(obj) is obj
    assert as_objective("loss_aggregation", a=[1, 2]) == obj
    assert hash(obj) == hash(Objective("loss_aggregation", a=[1.0, 2.0]))
    C = np.tril(np.ones((3, 3)), -1)
    assert Objective("label_aggregation", costs=C) == Objective("label_aggregation", costs=C.tolist())
    assert set(OBJECTIVE_KINDS) == {o.kind for o in OBJECTIVES}
    with pytest.raises(dataclasses.FrozenInstanceError):
        obj.a = (1.0, 1.0)


def test_names_are_short_and_distinct():
    names = [o.name for o in OBJECTIVES]
    assert len(set(names)) == len(names)
    assert names[:3] == ["loss_aggregation", "loss_aggregation[a=0.3,1]", "label_aggregation"]
    assert Objective("single_label", label=1).name == "label_2"
    assert Objective("label_aggregation", aggregate=max).name == "label_aggregation[max]"


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(kind="pairwise"), ValueError, "'kind' parameter must be one of"),
    (dict(kind=3), ValueError, "'kind' parameter"),
    (dict(a=[1.0, -1.0]), ValueError, "'a' parameter must be non-negative"),
    (dict(a=[0.0, 0.0]), ValueError, "'a' parameter must have a positive entry"),
    (dict(a=[1.0, np.nan]), ValueError, "'a' parameter"),
    (dict(a=[]), ValueError, "'a' parameter must not be empty"),
    (dict(a=[[1.0, 2.0]]), ValueError, "'a' parameter must be 1-dimensional"),
    (dict(a="abc"), TypeError, "'a' parameter"),
    (dict(w=[1.0, 1.0]), ValueError, "'w' parameter is not used with objective='loss_aggregation'"),
    (dict(aggregate="product"), ValueError, "'aggregate' parameter is not used with"),
    (dict(costs="gain"), ValueError, "'costs' parameter is not used with"),
    (dict(label=0), ValueError, "'label' parameter is not used with"),
    (dict(kind="label_aggregation", a=[1.0]), ValueError, "'a' parameter is not used with"),
    (dict(kind="label_aggregation", aggregate="xor"), ValueError, "'aggregate' parameter must be"),
    (dict(kind="label_aggregation", aggregate=3), ValueError, "'aggregate' parameter"),
    (dict(kind="label_aggregation", aggregate="or", w=[1.0, 2.0]), ValueError,
     "'w' parameter is only used with aggregate='sum'"),
    (dict(kind="label_aggregation", w=[-1.0, 2.0]), ValueError, "'w' parameter must be non-neg"),
    (dict(kind="label_aggregation", costs="cubic"), ValueError, "'costs' parameter must be one of"),
    (dict(kind="label_aggregation", costs=None), TypeError, "'costs' parameter"),
    (dict(kind="label_aggregation", costs=[[0.0, 1.0]]), ValueError, "'costs' matrix must be square"),
    (dict(kind="label_aggregation", costs=[[0.0, 0.0], [-1.0, 0.0]]), ValueError,
     "'costs' parameter must be non-negative"),
    (dict(kind="label_aggregation", costs=[[0.0, 0.0], [np.inf, 0.0]]), ValueError,
     "'costs' parameter"),
    (dict(kind="max_min", a=[1.0, 2.0]), ValueError,
     "'a' parameter is not used with objective='max_min'"),
    (dict(kind="single_label"), ValueError, "'label' parameter must be a non-negative int"),
    (dict(kind="single_label", label=-1), ValueError, "'label' parameter"),
    (dict(kind="single_label", label=True), ValueError, "'label' parameter"),
    (dict(kind="single_label", label=0.5), ValueError, "'label' parameter"),
])
def test_bad_input_is_refused_by_name(kwargs, error, match):
    with pytest.raises(error, match=match):
        Objective(**kwargs)


def test_keyword_form_errors_name_the_argument():
    with pytest.raises(ValueError, match="'objective' parameter must be one of"):
        Objective.from_spec("pairwise")
    with pytest.raises(ValueError, match="'objective' parameter"):
        as_objective(None)
    with pytest.raises(ValueError, match="'a' parameter must be left at its default"):
        as_objective(Objective("label_aggregation"), a=[1.0, 1.0])
    with pytest.raises(ValueError, match="'aggregate' parameter must be left at its default"):
        as_objective(Objective("label_aggregation"), aggregate="or")
    with pytest.raises(TypeError, match="Unknown objective option"):
        as_objective("loss_aggregation", weights=[1.0])


#: Keyword-form names with another meaning, each with its reason.
_OTHER_MEANING = {
    ("bipartite.pareto.balance_k.balance_from_aucs", "aggregate"):
        "the optional AND/OR typical-point tilt (None: none), not the ψ of an objective",
}


def _keyword_form_signatures():
    """(name, parameters) of every core function or method that spells an objective by keywords
    (it has an ``objective`` or an ``aggregate`` parameter), found by walking the core."""
    import importlib
    import inspect
    import pkgutil

    import bipartite

    upper = (".contrib", ".studies", ".experiments", ".cli", "__main__", "._utils")
    for info in pkgutil.walk_packages(bipartite.__path__, "bipartite."):
        if any(part in info.name for part in upper):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != info.name:
                continue
            members = ([(name, obj)] if inspect.isfunction(obj) else
                       [(f"{name}.{m}", getattr(f, "__func__", f)) for m, f in vars(obj).items()]
                       if inspect.isclass(obj) else [])
            for qualname, f in members:
                if not inspect.isfunction(f):
                    continue
                params = inspect.signature(f).parameters
                if "objective" in params or "aggregate" in params:
                    yield f"{info.name}.{qualname}", params


def test_keyword_form_has_one_set_of_defaults():
    """Claim: every signature that spells an objective by keywords (``objective``, ``a``,
    ``aggregate``, ``w``, ``costs``; about 20 of them, e.g. the consistency functions, the Bayes
    scorers and both rankers) defaults each one to the field default of :class:`Objective`, so that
    repeating them in the signatures cannot let them drift apart (an ``Objective`` passed with
    other keywords than their defaults is refused by :func:`as_objective`)."""
    import inspect

    defaults = {f.name: f.default for f in dataclasses.fields(Objective)}
    defaults["objective"] = defaults.pop("kind")
    seen, drift = set(), []
    for name, params in _keyword_form_signatures():
        seen.add(name)
        for option, default in defaults.items():
            if option not in params or (name, option) in _OTHER_MEANING:
                continue
            value = params[option].default
            if value is inspect.Parameter.empty:
                continue
            if not (value is default or (isinstance(value, str) and value == default)):
                drift.append(f"{name}({option}={value!r}), not {default!r}")
    assert not drift, drift
    assert {"bipartite.consistency.surrogate_minimizer", "bipartite.bayes.label_aggregation",
            "bipartite.learners.mlp.MLPRanker.__init__", "bipartite.learners.xgb.XGBRanker.__init__",
            "bipartite.learners.base.ranking_criterion"} <= seen
    assert {name for name, _ in _OTHER_MEANING} <= seen


def test_options_that_must_fit_the_labels_are_checked_at_use():
    P = FiniteProblem.random(5, 2, seed=0)
    with pytest.raises(ValueError, match=r"'a' parameter must have shape \(2,\)"):
        Objective("loss_aggregation", a=[1.0, 1.0, 1.0]).bayes(P)
    with pytest.raises(ValueError, match="'label' parameter must be below"):
        Objective("single_label", label=2).value(P, np.zeros(5))
    with pytest.raises(TypeError, match="'problem'"):
        Objective().bayes("P")


# ---- the population --------------------------------------------------------------------------
def _weak_orders(n):
    """Every weak order on n points, as integer scores (with repetitions: all of {0..n-1}^n)."""
    return (np.array(s, dtype=float) for s in itertools.product(range(n), repeat=n))


@pytest.mark.parametrize("obj", OBJECTIVES, ids=lambda o: o.name)
def test_bayes_scorer_is_optimal_by_enumeration(obj):
    """No weak order of 4 support points beats the Bayes scorer (4**4 = 256 score vectors cover
    every weak order), and the best one reaches its value."""
    for seed in range(3):
        P = FiniteProblem.random(4, 2, seed=seed)
        best = obj.value(P, obj.bayes(P))
        brute = max(obj.value(P, s) for s in _weak_orders(4))
        assert best == pytest.approx(brute, abs=1e-12)


def test_bayes_delegates_to_the_one_home_of_each_scorer():
    P = FiniteProblem.random(6, 2, seed=3)
    np.testing.assert_array_equal(Objective(a=[1.0, 2.0]).bayes(P),
                                  loss_aggregation(P.eta, P.pi, [1.0, 2.0]))
    np.testing.assert_array_equal(Objective("label_aggregation", aggregate="or").bayes(P),
                                  label_aggregation(P, aggregate="or"))
    np.testing.assert_array_equal(Objective("single_label", label=0).bayes(P),
                                  loss_aggregation(P.eta, P.pi, [1.0, 0.0]))
    np.testing.assert_array_equal(Objective("max_min").bayes(P), max_min_point(P).scores)


@pytest.mark.parametrize("obj", [o for o in OBJECTIVES if o.kind != "max_min"],
                         ids=lambda o: o.name)
def test_pair_factors_give_the_population_value(obj):
    """Σ_ij W_ij S_ij with W = X Yᵀ is the objective, ties ½ and self-pairs included."""
    rng = np.random.default_rng(1)
    P = FiniteProblem.random(7, 2, seed=1)
    X, Y = obj.pair_factors(P)
    for _ in range(5):
        f = rng.integers(0, 4, 7).astype(float)
        assert np.sum((X @ Y.T) * win_matrix(f)) == pytest.approx(obj.value(P, f), abs=1e-12)


def test_max_min_has_no_linear_form():
    P = FiniteProblem.random(5, 2, seed=0)
    with pytest.raises(ValueError, match="'max_min' has no pair weights"):
        Objective("max_min").pair_factors(P)
    with pytest.raises(ValueError, match="'max_min' has no closed-form scorer"):
        Objective("max_min").plugin_scores(P.eta, P.pi)
    assert Objective("max_min").value(P, np.zeros(5)) == pytest.approx(0.5)


def test_plugin_scores_on_the_true_conditionals_are_the_bayes_scorer():
    P = FiniteProblem.random(6, 2, seed=4)
    for obj in OBJECTIVES[:6]:
        joint = P.label_probs if obj.needs_joint else None
        np.testing.assert_allclose(obj.plugin_scores(P.eta, P.pi, joint=joint), obj.bayes(P),
                                   rtol=1e-12)
    assert Objective("label_aggregation", aggregate="product").needs_joint
    assert not Objective("label_aggregation").needs_joint
    assert Objective().uses_priors and not Objective("label_aggregation").uses_priors


# ---- data ------------------------------------------------------------------------------------
@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    Y = (rng.random((120, 2)) < [0.4, 0.2]).astype(int)
    s = np.round(Y @ [1.0, 0.5] + rng.normal(size=120), 1)  # ties included
    qid = rng.integers(0, 6, 120)
    return Y, s, qid


def _sk_auc(y, s, qid=None):
    if qid is None:
        return roc_auc_score(y, s)
    per = [roc_auc_score(y[qid == g], s[qid == g]) for g in np.unique(qid)
           if 0 < y[qid == g].sum() < (qid == g).sum()]
    return float(np.mean(per))


@pytest.mark.parametrize("grouped", [False, True])
def test_criterion_matches_scikit_learn(data, grouped):
    Y, s, qid = data
    q = qid if grouped else None
    aucs = np.array([_sk_auc(Y[:, k], s, q) for k in range(2)])
    assert Objective().criterion(Y, s, qid=q) == pytest.approx(aucs.mean(), abs=1e-12)
    assert Objective(a=[1.0, 3.0]).criterion(Y, s, qid=q) == pytest.approx(
        (aucs[0] + 3 * aucs[1]) / 4, abs=1e-12)
    assert Objective("max_min").criterion(Y, s, qid=q) == pytest.approx(aucs.min(), abs=1e-12)
    assert Objective("single_label", label=1).criterion(Y, s, qid=q) == pytest.approx(
        aucs[1], abs=1e-12)
    if not grouped:
        assert Objective("label_aggregation", costs="gain").criterion(Y, s) == pytest.approx(
            multipartite_auc(Y.sum(axis=1), s, costs="gain"), abs=1e-12)


@pytest.mark.parametrize("obj", [o for o in OBJECTIVES if o.kind != "single_label"],
                         ids=lambda o: o.name)
@pytest.mark.parametrize("grouped", [False, True])
def test_criterion_equals_ranking_criterion(data, obj, grouped):
    """The learners' keyword function and the value agree (until ranking_criterion delegates)."""
    Y, s, qid = data
    q = qid if grouped else None
    spec = {"objective": obj.kind, "a": obj.a, "w": obj.w, "aggregate": obj.aggregate,
            "costs": obj.costs}
    assert obj.criterion(Y, s, qid=q) == ranking_criterion(Y, s, qid=q, **spec)


def test_criterion_undefined_is_nan_with_a_warning():
    Y = np.array([[1, 0], [1, 0], [1, 0]])
    for obj in (Objective(a=[1.0, 1.0]), Objective("max_min"), Objective("single_label", label=0)):
        with pytest.warns(UndefinedMetricWarning):
            assert np.isnan(obj.criterion(Y, [0.0, 1.0, 2.0]))
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(Objective("label_aggregation").criterion(Y, [0.0, 1.0, 2.0], qid=[0, 1, 2]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Objective().criterion([[1, 0], [0, 1]], [1.0, 0.0]) == 0.5


def test_criterion_refuses_bad_input_by_name(data):
    Y, s, qid = data
    with pytest.raises(ValueError, match="'Y'"):
        Objective().criterion(Y + 1, s)
    with pytest.raises(ValueError, match="'scores'"):
        Objective().criterion(Y, s[:, None])
    with pytest.raises(ValueError, match="'qid'"):
        Objective().criterion(Y, s, qid=qid[:-1])
    with pytest.raises(ValueError, match="'qid'"):
        Objective().criterion(Y, s, qid=np.full(len(s), np.nan))
    with pytest.raises(ValueError, match=r"'a' parameter must have shape \(2,\)"):
        Objective(a=[1.0]).criterion(Y, s)
