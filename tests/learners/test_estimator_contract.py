"""The contract every estimator of the package keeps, run from ONE list (as optax's
``_common_test.py`` runs every optimiser through the same tests).

:data:`ESTIMATORS` holds every estimator: :class:`~bipartite.learners.MLPRanker` and
:class:`~bipartite.learners.XGBRanker` (with their max-min routes) and every torch estimator of
:mod:`bipartite.contrib`. Each entry builds its estimator small and fits it on tiny data; the tests
below are parametrised over the list:

* scikit-learn's ``check_estimator`` where the estimator is a scikit-learn estimator of
  ``(X, y)``-shaped data, with ``expected_failed_checks``: every expected failure has its reason
  and a pattern its error must match (an entry that no longer fails, or fails for another reason,
  fails the test); where ``check_estimator`` does not apply at all, the entry says why;
* the package's own checks: the same seed gives the same scores (bit for bit on the CPU) and a
  different seed different ones; the ``device`` argument (``"cpu"`` and ``torch.device("cpu")``
  give the same scores, a bad value is refused naming 'device'); the parameters are only stored
  by ``__init__`` and checked at fit, naming the parameter and the value; ``clone``; pickling.

``test_every_torch_estimator_is_on_the_list`` fails when a new :class:`TorchEstimator` subclass
is not added here. Everything is tiny (40 rows, 1-3 epochs): the module runs in seconds.
"""

from __future__ import annotations

import functools
import importlib
import pickle
import pkgutil
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import check_estimator
from sklearn.utils.validation import check_is_fitted

import bipartite.contrib
import bipartite.learners
from bipartite.contrib.ap_training import ListwiseMLP, make_retrieval
from bipartite.contrib.label_ranking import LabelRankingMLP, ThresholdNetwork, make_ranked_labels
from bipartite.contrib.lr2ppo import (
    LR2PPO,
    PairRewardModel,
    RelevanceRegressor,
    partial_order_pairs,
)
from bipartite.contrib.multitask import MultiTaskMLP
from bipartite.learners import MLPRanker, TorchEstimator, XGBRanker


# ---------------------------------------------------------------------------------------------
# tiny data, shared by every entry
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Data:
    X: np.ndarray
    Y: np.ndarray          # binary (n, 2)
    qid: np.ndarray        # 5 queries of 8 rows
    rel: np.ndarray        # graded relevance 0, 1, 2
    pairs: np.ndarray      # partial-order pairs of rel within the queries
    ranks: Any             # make_ranked_labels bunch (X, ranks, Y)
    retrieval: Any         # make_retrieval bunch (X, y, qid)


@functools.cache
def data() -> Data:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 4))
    Y = (X[:, :2] + 0.5 * rng.normal(size=(40, 2)) > 0).astype(int)
    qid = np.arange(40) // 8
    rel = (X[:, 0] > 0).astype(float) + (X[:, 0] > 1)
    return Data(X, Y, qid, rel, partial_order_pairs(rel, qid),
                make_ranked_labels(40, 3, 4, min_relevant=1, max_relevant=2, seed=0),
                make_retrieval(6, items_range=(5, 8), seed=0))


@functools.cache
def stages() -> dict[str, Any]:
    """Fitted stage models for the estimators built on them (LR2PPO, ThresholdNetwork)."""
    d = data()
    tiny = dict(hidden=(4,), epochs=1, random_state=0, device="cpu")
    return {
        "actor": RelevanceRegressor(**tiny).fit(d.X, d.rel),
        "reward_model": PairRewardModel(**tiny).fit(d.X, d.pairs),
        "ranker": LabelRankingMLP(**tiny).fit(d.ranks.X, d.ranks.ranks),
    }


# ---------------------------------------------------------------------------------------------
# scikit-learn's check_estimator: expected failures with their reasons
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Why:
    """Why a scikit-learn check fails here, and a regex its error (with causes) must match."""

    reason: str
    pattern: str


NOT_BINARY = Why(
    "sklearn passes multiclass targets (0, 1, 2); the estimator learns from binary labels and "
    "refuses the others, naming the target; checked with binary labels by the package's tests",
    r"'[Yy]' parameter|raised ValueError")
# XGBRanker.fit takes sample_weight, so sklearn also runs its sample-weight checks with keyword
# y=; the rankers name their target 'Y' (a binary label matrix). Integer weight == repetition is
# checked in test_learners.py::test_xgb_sample_weight_plugin_integer_weight_is_repetition.
KEYWORD_Y = Why(
    "sklearn passes the target as the keyword 'y' (multiclass); the rankers' target is 'Y', binary "
    "(n, K): checked in test_xgb_sample_weight_plugin_integer_weight_is_repetition",
    r"keyword argument 'y'")
RANK_MATRIX = Why(
    "sklearn passes a 1-D target; LabelRankingMLP's target is a label-rank matrix (n, K), refused "
    "naming 'ranks'", r"'ranks' parameter must be 2-dimensional")
RELEVANCE = Why(
    "fit's target is named 'relevance' (graded relevance of LR2PPO stage 1), not y",
    r"Expected y or Y as second argument")
OWN_WORDING = Why(
    "the input is refused, but with the package's error naming the parameter ('The 'X' parameter "
    "must ...'), not scikit-learn's wording, which this check matches",
    r"The '(X|y|Y|ranks|relevance)' parameter|No query has both")
NO_FIT_TRANSFORM = Why(
    "LabelRankingMLP.transform is the fitted scorer's feature layer (RLSEP §3.4), not a "
    "transformer of its own input: it has no fit_transform", r"no attribute 'fit_transform'")

_RANKER_NOT_BINARY = [
    "check_fit_score_takes_y", "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters", "check_estimators_fit_returns_self",
    "check_readonly_memmap_input", "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit", "check_estimators_dtypes", "check_dtype_object",
    "check_f_contiguous_array_estimator", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_fit2d_1feature", "check_dict_unchanged",
    "check_fit2d_predict1d",
]
#: MLPRanker validates X with scikit-learn (validate_data): only the multiclass targets fail.
EXPECTED_RANKER = {name: NOT_BINARY for name in _RANKER_NOT_BINARY}
EXPECTED_XGB = {
    **EXPECTED_RANKER,
    **{name: NOT_BINARY for name in [
        "check_sample_weights_pandas_series", "check_sample_weights_not_an_array",
        "check_sample_weights_list", "check_sample_weights_shape",
        "check_sample_weights_not_overwritten"]},
    "check_sample_weight_equivalence_on_dense_data": KEYWORD_Y,
}
#: The contrib estimators validate X with the package's check_array (its own wording). Complex
#: and sparse X are refused in the words scikit-learn's checks look for ("Complex data not
#: supported", a sparse refusal), so those checks pass.
_OWN_WORDING = [
    "check_estimators_empty_data_messages", "check_estimators_nan_inf", "check_requires_y_none",
]
EXPECTED_RELEVANCE = {
    "check_fit_score_takes_y": RELEVANCE,
    "check_fit2d_predict1d": OWN_WORDING,
    **{name: OWN_WORDING for name in _OWN_WORDING},
}
EXPECTED_BINARY_CONTRIB = {
    **{name: NOT_BINARY for name in _RANKER_NOT_BINARY},
    "check_positive_only_tag_during_fit": NOT_BINARY,
    **{name: OWN_WORDING for name in _OWN_WORDING},
}
EXPECTED_LISTWISE = {**EXPECTED_BINARY_CONTRIB, "check_fit2d_1sample": OWN_WORDING}
EXPECTED_LABEL_RANKING = {
    **{name: RANK_MATRIX for name in [
        "check_fit_score_takes_y", "check_estimators_overwrite_params",
        "check_dont_overwrite_parameters", "check_estimators_fit_returns_self",
        "check_readonly_memmap_input", "check_n_features_in_after_fitting",
        "check_positive_only_tag_during_fit", "check_estimators_dtypes", "check_dtype_object",
        "check_pipeline_consistency", "check_estimators_pickle",
        "check_f_contiguous_array_estimator", "check_transformer_data_not_an_array",
        "check_transformer_general", "check_methods_sample_order_invariance",
        "check_methods_subset_invariance", "check_fit2d_1sample", "check_fit2d_1feature",
        "check_dict_unchanged", "check_fit_idempotent", "check_fit_check_is_fitted",
        "check_n_features_in", "check_fit2d_predict1d"]},
    **{name: OWN_WORDING for name in _OWN_WORDING},
    "check_transformer_preserve_dtypes": NO_FIT_TRANSFORM,
}


# ---------------------------------------------------------------------------------------------
# the one list
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One estimator of the contract: how to build it (tiny), fit it and score it."""

    id: str
    build: Callable[..., Any]                  # build(**overrides) -> unfitted estimator
    fit: Callable[[Any], Any]                  # fit(est) on the tiny data -> est
    scores: Callable[[Any], np.ndarray]
    #: expected check_estimator failures, or the reason check_estimator does not apply
    sklearn: dict[str, Why] | str
    torch: bool = True                         # takes device / n_jobs (a TorchEstimator)
    random: bool = True                        # a different seed gives different scores
    #: parameters that clone() resets and fit needs back (fitted stage models)
    stage_params: tuple[str, ...] = field(default=())


def _ranker_fit(est):
    d = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # max-min plug-in: tiny validation split
        return est.fit(d.X, d.Y, d.qid)


MLP = dict(hidden=(4,), epochs=2, batch_size=16, random_state=0, device="cpu")
XGB = dict(n_estimators=3, max_depth=2, n_jobs=1, random_state=0,
           subsample=0.7)  # row subsampling: the seed matters (without it the trees are fixed)
STAGE3_NOT_SKLEARN = (
    "built on fitted stage models passed as parameters: scikit-learn's clone (which every check "
    "starts with) returns them unfitted, by design; clone and refit are checked below")

ESTIMATORS: list[Entry] = [
    Entry("MLPRanker-pairwise", lambda **kw: MLPRanker(**{**MLP, **kw}), _ranker_fit,
          lambda e: e.decision_function(data().X), EXPECTED_RANKER),
    Entry("MLPRanker-plugin",
          lambda **kw: MLPRanker(**{**MLP, "method": "plugin", **kw}), _ranker_fit,
          lambda e: e.decision_function(data().X), EXPECTED_RANKER),
    Entry("MLPRanker-max_min-plugin",
          lambda **kw: MLPRanker(**{**MLP, "objective": "max_min", "method": "plugin", **kw}),
          _ranker_fit, lambda e: e.decision_function(data().X), EXPECTED_RANKER),
    Entry("XGBRanker", lambda **kw: XGBRanker(**{**XGB, **kw}), _ranker_fit,
          lambda e: e.decision_function(data().X), EXPECTED_XGB, torch=False),
    Entry("XGBRanker-max_min-pairwise",
          lambda **kw: XGBRanker(**{**XGB, "objective": "max_min", **kw}), _ranker_fit,
          lambda e: e.decision_function(data().X), EXPECTED_XGB, torch=False),
    Entry("RelevanceRegressor", lambda **kw: RelevanceRegressor(**{**MLP, **kw}),
          lambda e: e.fit(data().X, data().rel), lambda e: e.decision_function(data().X),
          EXPECTED_RELEVANCE),
    Entry("PairRewardModel", lambda **kw: PairRewardModel(**{**MLP, **kw}),
          lambda e: e.fit(data().X, data().pairs),
          lambda e: e.reward(data().X[data().pairs[:, 0]], data().X[data().pairs[:, 1]]),
          "fit's target is a (P, 2) array of row-index pairs, not one target per row of X"),
    Entry("LR2PPO",
          lambda **kw: LR2PPO(stages()["actor"], stages()["reward_model"], **{
              "n_iters": 2, "n_trajs": 16, "batch_size": 8, "random_state": 0, "device": "cpu",
              **kw}),
          lambda e: e.fit(data().X, data().qid), lambda e: e.decision_function(data().X),
          STAGE3_NOT_SKLEARN, stage_params=("actor", "reward_model")),
    Entry("LabelRankingMLP",
          lambda **kw: LabelRankingMLP(**{**MLP, "num_pairs": 2, **kw}),
          lambda e: e.fit(data().ranks.X, data().ranks.ranks),
          lambda e: e.decision_function(data().ranks.X), EXPECTED_LABEL_RANKING),
    Entry("ThresholdNetwork",
          lambda **kw: ThresholdNetwork(stages()["ranker"], **{**MLP, **kw}),
          lambda e: e.fit(data().ranks.X, data().ranks.Y),
          lambda e: e.thresholds(data().ranks.X), STAGE3_NOT_SKLEARN, stage_params=("ranker",)),
    Entry("MultiTaskMLP-shared_bottom",
          lambda **kw: MultiTaskMLP(**{"tasks": 2, "hidden": (4,), "tower_hidden": 2,
                                       "epochs": 2, "random_state": 0, "device": "cpu", **kw}),
          lambda e: e.fit(data().X, data().Y), lambda e: e.decision_function(data().X),
          "the number of tasks is a parameter (tasks=K) that sklearn's targets do not follow; see "
          "MultiTaskMLP-mmoe-1-task"),
    Entry("MultiTaskMLP-mmoe-1-task",
          lambda **kw: MultiTaskMLP(**{"tasks": 1, "architecture": "mmoe", "n_experts": 2,
                                       "expert_hidden": (4,), "tower_hidden": 2, "epochs": 2,
                                       "random_state": 0, "device": "cpu", **kw}),
          lambda e: e.fit(data().X, data().Y[:, 0]), lambda e: e.decision_function(data().X),
          EXPECTED_BINARY_CONTRIB),
    Entry("ListwiseMLP",
          lambda **kw: ListwiseMLP(**{"hidden": (4,), "epochs": 2, "queries_per_batch": 2,
                                      "random_state": 0, "device": "cpu", **kw}),
          lambda e: e.fit(data().retrieval.X, data().retrieval.y, data().retrieval.qid),
          lambda e: e.decision_function(data().retrieval.X), EXPECTED_LISTWISE),
]
IDS = [e.id for e in ESTIMATORS]
TORCH = [e for e in ESTIMATORS if e.torch]
SKLEARN = [e for e in ESTIMATORS if isinstance(e.sklearn, dict)]


@functools.cache
def fitted(entry_id: str):
    """The entry fitted once with its default seed (shared by the checks below)."""
    entry = ESTIMATORS[IDS.index(entry_id)]
    return entry.fit(entry.build())


def _scores(entry: Entry, est) -> np.ndarray:
    return np.asarray(entry.scores(est))


# ---------------------------------------------------------------------------------------------
# the list is complete
# ---------------------------------------------------------------------------------------------
def _subclasses(cls: type) -> set[type]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


def test_every_torch_estimator_is_on_the_list():
    """Every TorchEstimator subclass defined in bipartite has an entry (a new one must be added)."""
    for package in (bipartite.contrib, bipartite.learners):
        for mod in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            importlib.import_module(mod.name)
    defined = {c for c in _subclasses(TorchEstimator) if c.__module__.startswith("bipartite.")}
    listed = {type(fitted(e.id)) for e in TORCH}
    assert defined == listed, (defined - listed, listed - defined)
    assert {type(fitted(e.id)) for e in ESTIMATORS if not e.torch} == {XGBRanker}


def test_every_entry_says_whether_check_estimator_applies():
    for entry in ESTIMATORS:
        assert isinstance(entry.sklearn, dict) or len(entry.sklearn) > 20, entry.id


# ---------------------------------------------------------------------------------------------
# scikit-learn's check_estimator
# ---------------------------------------------------------------------------------------------
def _chain(exc) -> str:
    """The messages of an exception and of its causes/contexts."""
    out = []
    while exc is not None and len(out) < 5:
        out.append(str(exc))
        exc = exc.__cause__ or exc.__context__
    return " | ".join(out)


@pytest.mark.parametrize("entry", SKLEARN, ids=[e.id for e in SKLEARN])
def test_check_estimator(entry):
    """scikit-learn's check_estimator passes, except the documented inapplicable checks, each of
    which must fail, for its stated reason (a stale entry makes this test fail)."""
    expected = entry.sklearn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(entry.build(), on_fail=None,
                                  expected_failed_checks={k: v.reason for k, v in expected.items()})
    failed = {r["check_name"]: _chain(r["exception"]) for r in results if r["status"] == "failed"}
    assert not failed, failed
    # sklearn reports a check listed in expected_failed_checks that did fail with the status
    # string "xfail" (not pytest's xfail): each must have failed, for the documented reason.
    documented = {r["check_name"]: r for r in results if r["status"] == "xfail"}
    assert set(documented) == set(expected)
    for name, r in documented.items():
        assert re.search(expected[name].pattern, _chain(r["exception"])), (name, r)


# ---------------------------------------------------------------------------------------------
# the package's own checks
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("entry", ESTIMATORS, ids=IDS)
def test_same_seed_same_scores(entry):
    """random_state=0 twice: identical scores; random_state=1: different scores."""
    s0 = _scores(entry, fitted(entry.id))
    assert np.all(np.isfinite(s0))
    np.testing.assert_array_equal(_scores(entry, entry.fit(entry.build(random_state=0))), s0)
    # a numpy Generator seeded alike is the same seed
    gen = np.random.default_rng(0)
    np.testing.assert_array_equal(_scores(entry, entry.fit(entry.build(random_state=gen))), s0)
    if entry.random:
        assert not np.array_equal(_scores(entry, entry.fit(entry.build(random_state=1))), s0)


@pytest.mark.parametrize("entry", TORCH, ids=[e.id for e in TORCH])
def test_device_argument(entry):
    """device="cpu" and torch.device("cpu") are the same computation; a bad or unavailable
    device is refused at fit, naming 'device' and the value."""
    est = entry.fit(entry.build(device=torch.device("cpu")))
    assert est.device_ == "cpu"
    np.testing.assert_array_equal(_scores(entry, est), _scores(entry, fitted(entry.id)))
    for bad, match in [("tpu", r"'device' parameter .*'tpu'"), (3, r"'device' parameter .*got 3"),
                       ("cuda:x", r"'device' parameter .*'cuda:x'")]:
        with pytest.raises(ValueError, match=match):
            entry.fit(entry.build(device=bad))
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match=r"'device' parameter is 'cuda', which is not "
                                             r"available"):
            entry.fit(entry.build(device="cuda"))


@pytest.mark.parametrize("entry", TORCH, ids=[e.id for e in TORCH])
def test_parameters_are_checked_at_fit_by_name(entry):
    """__init__ only stores (scikit-learn style); fit refuses a bad shared parameter, naming it
    and the value."""
    for name, bad, match in [("n_jobs", 0, r"'n_jobs' parameter .*got 0"),
                             ("random_state", -1, r"'random_state' parameter .*got -1"),
                             ("lr", 0.0, r"'lr' parameter .*got 0\.0")]:
        est = entry.build(**{name: bad})  # stored, not checked
        assert est.get_params()[name] == bad
        with pytest.raises(ValueError, match=match):
            entry.fit(est)
        assert not hasattr(est, "net_") and not hasattr(est, "model_")


@pytest.mark.parametrize("entry", ESTIMATORS, ids=IDS)
def test_clone(entry):
    """clone gives an unfitted estimator with the same parameters, which fits to the same scores
    (estimators built on fitted stage models get them back with set_params: clone unfits them)."""
    est = fitted(entry.id)
    twin = clone(est)
    assert type(twin) is type(est)
    params, twin_params = est.get_params(deep=False), twin.get_params(deep=False)
    assert params.keys() == twin_params.keys()
    for name, value in params.items():
        if name in entry.stage_params:
            assert type(twin_params[name]) is type(value)
            with pytest.raises(NotFittedError):
                check_is_fitted(twin_params[name])
        else:
            assert repr(twin_params[name]) == repr(value), name
    with pytest.raises(NotFittedError):
        check_is_fitted(twin)
    if entry.stage_params:
        with pytest.raises(ValueError, match=f"'{entry.stage_params[0]}' parameter must be a "
                                             "fitted"):
            entry.fit(twin)
        twin.set_params(**{name: params[name] for name in entry.stage_params})
    np.testing.assert_array_equal(_scores(entry, entry.fit(twin)), _scores(entry, est))


@pytest.mark.parametrize("entry", ESTIMATORS, ids=IDS)
def test_pickle_round_trip(entry):
    """A pickled and loaded fitted estimator gives identical scores."""
    est = fitted(entry.id)
    loaded = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(_scores(entry, loaded), _scores(entry, est))


@pytest.mark.parametrize("entry", TORCH, ids=[e.id for e in TORCH])
def test_unfitted_prediction_is_refused(entry):
    """Scoring before fit raises the package's NotFittedError (scikit-learn's NotFittedError and
    a RuntimeError)."""
    with pytest.raises(NotFittedError, match="not fitted"):
        entry.scores(entry.build())
    with pytest.raises(RuntimeError, match="not fitted"):
        entry.scores(entry.build())


# ---------------------------------------------------------------------------------------------
# the base itself
# ---------------------------------------------------------------------------------------------
def test_parameter_tables_merge_along_the_class_hierarchy():
    """A subclass's table adds to its bases' and overrides them; every check runs at fit."""
    from bipartite.learners.torch_estimator import in_range, positive

    class Toy(TorchEstimator):
        _param_checks = {"lr": in_range(0, 1), "margin": positive()}

        def __init__(self, lr=0.5, margin=1.0, epochs=1, device="cpu", n_jobs=None,
                     random_state=None):
            self.lr, self.margin, self.epochs = lr, margin, epochs
            self.device, self.n_jobs, self.random_state = device, n_jobs, random_state

    checks = Toy._all_param_checks()
    assert {"device", "n_jobs", "random_state", "epochs", "margin"} <= set(checks)
    Toy()._check_params()
    for params, match in [({"lr": 1.5}, r"'lr' parameter must be in \[0, 1\), got 1\.5"),
                          ({"margin": -1.0}, r"'margin' parameter .*got -1\.0"),
                          ({"epochs": 0}, r"'epochs' parameter .*got 0"),
                          ({"device": "tpu"}, r"'device' parameter .*'tpu'")]:
        with pytest.raises(ValueError, match=match):
            Toy(**params)._check_params()


def test_one_seeding_scheme():
    """random_state -> one numpy Generator; torch seeds are its next draws, in the order asked
    (the weights' seed first, then a torch.Generator's): the scheme every estimator follows."""
    from bipartite.learners.nets import torch_seed
    from bipartite.learners.torch_estimator import TorchFit

    fit = TorchFit(device=torch.device("cpu"), rng=np.random.default_rng(7))
    ref = np.random.default_rng(7)
    assert fit.torch_seed() == torch_seed(ref)
    gen = fit.torch_generator()
    assert gen.initial_seed() == torch_seed(ref)
    assert fit.rng.random() == ref.random()  # the numpy stream continues in step
