"""Bad input is refused by name (the gaps that the fuzz census found in the surrogates, the
contrib modules and the synthetic data generators). Each test fails without its fix; the last
one pins inputs that look bad but are documented as valid (they must keep giving a value)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bipartite import surrogates
from bipartite.contrib import ap_training, fusion, label_ranking, lr2ppo
from bipartite.data import clicks, synthetic

BAD = (ValueError, TypeError)
NONFINITE = [np.nan, np.inf, -np.inf]


def _with(x, value):
    a = np.array(x, dtype=float)
    a.flat[0] = value
    return a


# ---------------------------------------------------------------------------------------------
# surrogates
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [surrogates.sigmoid_step, surrogates.quadlinear])
@pytest.mark.parametrize("bad", NONFINITE)
def test_step_functions_refuse_non_finite_x(fn, bad):
    with pytest.raises(ValueError, match="'x'"):
        fn(_with([0.3, -0.2, 1.5], bad), 0.1)
    with pytest.raises(ValueError, match="'x'"):
        fn(torch.tensor([[0.0, bad]]), 0.1)


@pytest.mark.parametrize("fn", [surrogates.sigmoid_step, surrogates.quadlinear])
def test_step_functions_refuse_empty_x_but_take_any_shape(fn):
    with pytest.raises(ValueError, match="'x'"):
        fn(np.zeros(0), 0.1)
    with pytest.raises(ValueError, match="'x'"):
        fn(torch.zeros((2, 0)), 0.1)
    # elementwise on any shape: as steps of ap_loss they see [..., n, n] difference matrices
    d = torch.tensor([[0.0, -0.05], [0.1, -0.2]], dtype=torch.float64)
    assert fn(d, 0.1).shape == (2, 2)
    assert fn(torch.tensor(0.0), 0.1).shape == ()


def test_sigmoid_step_refuses_non_numbers_by_name():
    with pytest.raises(TypeError, match="'x'"):
        surrogates.sigmoid_step("abc", 0.1)
    with pytest.raises(TypeError, match="'x'"):
        surrogates.sigmoid_step([object()], 0.1)
    # valid forms keep their old results (a list of floats: the default dtype)
    assert surrogates.sigmoid_step([0.0, 1.0], 0.1).dtype == torch.get_default_dtype()
    assert float(surrogates.sigmoid_step(torch.tensor(0.0))) == 0.5


@pytest.mark.parametrize("margin", [0.0, -1.0, np.nan, np.inf, "fast", None])
def test_margins_must_be_finite_and_positive(margin):
    s, y = torch.tensor([2.0, 0.0, 1.0]), torch.tensor([1.0, 0.0, 0.0])
    with pytest.raises(BAD, match="'margin'"):
        surrogates.pairwise_loss(s, y, kind="hinge", margin=margin)
    with pytest.raises(BAD, match="'margin'"):
        surrogates.margin_ranking_loss(s, y, margin=margin)
    with pytest.raises(BAD, match="'margin'"):
        surrogates.make_pair_loss("hinge", margin=margin)
    with pytest.raises(BAD, match="'margin'"):
        surrogates.make_pair_loss("logistic", margin=margin)


def test_pairwise_loss_refuses_negative_grades_and_keeps_graded_labels():
    s = torch.tensor([[0.3, -0.2, 1.5, 0.1]], dtype=torch.float64)
    with pytest.raises(ValueError, match="'labels'.*non-negative"):
        surrogates.pairwise_loss(s, [[-1.0, 0.0, 1.0, 0.0]])
    # a negative label on a padded item is ignored, like any padded value
    where = torch.tensor([[False, True, True, True]])
    assert torch.isfinite(surrogates.pairwise_loss(s, [[-1.0, 0.0, 1.0, 0.0]], where=where))
    # graded relevance (documented): the grade 2 is valid input
    assert torch.isfinite(surrogates.pairwise_loss(s, [[2.0, 0.0, 1.0, 0.0]]))


def test_margin_ranking_loss_refuses_an_implicit_leading_dimension():
    a = torch.tensor([0.3, -0.2, 1.5], dtype=torch.float64)
    for x, y in ((a[:, None], a), (a, a[:, None])):
        with pytest.raises(ValueError, match="'scores_a' and 'scores_b'.*number of dimensions"):
            surrogates.margin_ranking_loss(x, y)
    # explicit broadcasting (same number of dimensions) and a scalar stay valid
    assert surrogates.margin_ranking_loss(a[:, None], a[None, :], reduction="none").shape == (3, 3)
    assert surrogates.margin_ranking_loss(a, torch.tensor(0.0), reduction="none").shape == (3,)


def test_pair_weight_builders_refuse_empty_and_non_numeric_input():
    Y = np.array([[[0, 1], [1, 0], [1, 1]]], dtype=float)
    with pytest.raises(ValueError, match="'Y'"):
        surrogates.loss_aggregation_pair_weights(Y[:0])
    with pytest.raises(TypeError, match="'Y'"):
        surrogates.loss_aggregation_pair_weights("abc")
    with pytest.raises(TypeError, match="'a'"):
        surrogates.loss_aggregation_pair_weights(Y, a="abc")
    ybar = np.array([[0.0, 2.0, 1.0]])
    with pytest.raises(ValueError, match="'ybar'"):
        surrogates.label_aggregation_pair_weights(ybar[:0])
    with pytest.raises(TypeError, match="'ybar'"):
        surrogates.label_aggregation_pair_weights("abc")


# ---------------------------------------------------------------------------------------------
# contrib.lr2ppo
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", NONFINITE)
def test_group_ids_must_be_finite(bad):
    groups = _with([0, 0, 1, 1], bad)
    with pytest.raises(ValueError, match="'qid'"):
        lr2ppo.within_group_pairs(groups)
    with pytest.raises(ValueError, match="'qid'"):
        lr2ppo.partial_order_pairs([2, 0, 1, 0], groups)


def test_within_group_pairs_refuses_empty_and_scalar_groups():
    with pytest.raises(ValueError, match="'qid'"):
        lr2ppo.within_group_pairs(np.zeros(0))
    with pytest.raises(BAD, match="'qid'"):
        lr2ppo.within_group_pairs("abc")
    with pytest.raises(BAD, match="'qid'"):
        lr2ppo.within_group_pairs(3)
    assert lr2ppo.within_group_pairs(["q1", "q1", "q2"]).tolist() == [[0, 1]]  # string ids


def test_partial_order_pairs_refuses_fractional_grades_and_names_relevance_on_mismatch():
    with pytest.raises(ValueError, match="'relevance'.*integer grades"):
        lr2ppo.partial_order_pairs([0.5, 0, 1, 2], [0, 0, 0, 0])
    with pytest.raises(ValueError, match="'relevance' has 3, 'qid' has 4"):
        lr2ppo.partial_order_pairs([1, 0, 2], [0, 0, 1, 1])


P1 = np.array([0.1, 0.9, 0.2, 0.8])
P2 = P1[::-1].copy()
ADV = P1 - 0.5


@pytest.mark.parametrize("name", ["p1", "p2", "advantage"])
@pytest.mark.parametrize("family, make", [
    ("nan", lambda v: _with(v, np.nan)),
    ("inf", lambda v: _with(v, np.inf)),
    ("-inf", lambda v: _with(v, -np.inf)),
    ("empty", lambda v: v[:0]),
    ("wrong_ndim", lambda v: v[:, None]),
    ("wrong_type", lambda v: "abc"),
    ("shape_mismatch", lambda v: v[:-1]),
])
def test_policy_loss_names_its_bad_input(name, family, make):
    kw = dict(p1=P1, p2=P2, advantage=ADV)
    kw[name] = make(kw[name])
    with pytest.raises(BAD, match=f"'{name}'"):
        lr2ppo.partial_order_policy_loss(kw.pop("p1"), kw.pop("p2"), kw.pop("advantage"))


@pytest.mark.parametrize("margin", [0.0, -1.0, "fast"])
def test_policy_loss_margin_must_be_positive(margin):
    with pytest.raises(BAD, match="'margin'"):
        lr2ppo.partial_order_policy_loss(P1, P2, ADV, margin=margin)


# ---------------------------------------------------------------------------------------------
# contrib.label_ranking, contrib.fusion
# ---------------------------------------------------------------------------------------------
def test_importance_to_ranks_atol_of_the_wrong_type():
    with pytest.raises(BAD, match="'atol'"):
        label_ranking.importance_to_ranks([[0.0, 1.0]], atol="small")


def test_make_ranked_labels_has_a_size_limit():
    with pytest.raises(ValueError, match="'n_samples'.*max_entries = 100000000"):
        label_ranking.make_ranked_labels(10**12, 4, 3, min_relevant=1, max_relevant=2)
    with pytest.raises(ValueError, match="'n_labels'.*max_entries"):
        label_ranking.make_ranked_labels(20, 10**12, 3, min_relevant=1, max_relevant=2)
    with pytest.raises(ValueError, match="max_entries = 50"):
        label_ranking.make_ranked_labels(20, 4, 3, min_relevant=1, max_relevant=2, max_entries=50)
    data = label_ranking.make_ranked_labels(20, 4, 3, min_relevant=1, max_relevant=2, seed=0,
                                            max_entries=80)
    assert data.X.shape == (20, 3)
    with pytest.raises(BAD, match="'max_entries'"):
        label_ranking.make_ranked_labels(20, 4, 3, min_relevant=1, max_relevant=2, max_entries=0)


@pytest.mark.parametrize("seed", [-1, "x", 1.5])
def test_pareto_search_checks_its_seed_even_when_unused(seed):
    P = np.array([[0.9, 0.2], [0.3, 0.3], [0.1, 0.8], [0.6, 0.5]])
    Y = np.array([[1, 0], [0, 1], [0, 1], [1, 1]])
    with pytest.raises(BAD, match="'seed'"):
        fusion.pareto_search(P, Y, resolution=3, seed=seed)


def test_make_nested_behaviour_has_a_size_limit():
    with pytest.raises(ValueError, match="'n_queries'.*max_entries = 100000000"):
        fusion.make_nested_behaviour(10**12, items_per_query=4)
    with pytest.raises(ValueError, match="'items_per_query'.*max_entries"):
        fusion.make_nested_behaviour(5, items_per_query=10**12)
    with pytest.raises(ValueError, match="max_entries = 100"):
        fusion.make_nested_behaviour(5, items_per_query=4, max_entries=100)
    assert fusion.make_nested_behaviour(5, items_per_query=4, seed=0,
                                        max_entries=220).X.shape == (20, 11)


# ---------------------------------------------------------------------------------------------
# contrib.ap_training
# ---------------------------------------------------------------------------------------------
Y8 = np.array([0, 1, 0, 1, 1, 0, 1, 0])
S8 = np.array([0.1, 0.9, 0.2, 0.8, 0.7, 0.35, 0.6, 0.4])
Q8 = np.array([0, 0, 0, 0, 1, 1, 1, 1])


@pytest.mark.parametrize("qid", [_with(Q8, np.nan), _with(Q8, np.inf), _with(Q8, -np.inf),
                                 Q8[:, None], "abc", 3])
def test_ranking_report_names_bad_query_ids(qid):
    with pytest.raises(BAD, match="'qid'"):
        ap_training.ranking_report(Y8, S8, qid)


@pytest.mark.parametrize("bad", NONFINITE)
def test_train_listwise_mlp_refuses_non_finite_query_ids(bad):
    with pytest.raises(ValueError, match="'qid'"):
        ap_training.train_listwise_mlp(np.c_[S8, S8 ** 2], Y8, _with(Q8, bad), epochs=1,
                                       hidden=(4,))


def test_make_retrieval_size_limit_and_parameter_types():
    with pytest.raises(ValueError, match="'n_queries'.*max_entries = 100000000"):
        ap_training.make_retrieval(10**12, items_range=(5, 8), n_features=5)
    with pytest.raises(ValueError, match="max_entries = 100"):
        ap_training.make_retrieval(4, items_range=(5, 8), n_features=5, max_entries=100)
    assert ap_training.make_retrieval(4, items_range=(5, 8), n_features=5, seed=0,
                                      max_entries=160).X.shape[1] == 5
    with pytest.raises(BAD, match="'noise'"):
        ap_training.make_retrieval(4, items_range=(5, 8), n_features=5, noise="fast")
    with pytest.raises(BAD, match="'positive_rate'"):
        ap_training.make_retrieval(4, items_range=(5, 8), n_features=5, positive_rate="x")


# ---------------------------------------------------------------------------------------------
# data.synthetic, data.clicks
# ---------------------------------------------------------------------------------------------
def test_synthetic_generators_have_a_size_limit():
    with pytest.raises(ValueError, match="'n'.*max_entries = 100000000"):
        synthetic.make_synthetic(10**12, priors=(0.3, 0.5))
    with pytest.raises(ValueError, match="'dim'.*max_entries = 100000000"):
        synthetic.make_synthetic(20, priors=(0.3, 0.5), dim=10**12)
    with pytest.raises(ValueError, match="'dim'.*max_entries = 100000000"):
        synthetic.synthetic_model(priors=(0.3, 0.5), dim=10**12)
    with pytest.raises(ValueError, match="max_entries = 50"):
        synthetic.make_synthetic(20, priors=(0.3, 0.5), max_entries=50)
    assert synthetic.make_synthetic(20, priors=(0.3, 0.5), max_entries=80).joint.shape == (20, 4)
    with pytest.raises(BAD, match="'max_entries'"):
        synthetic.synthetic_model(priors=(0.3, 0.5), max_entries=0)


@pytest.mark.parametrize("bad", NONFINITE)
def test_simulate_clicks_refuses_non_finite_query_ids(bad):
    with pytest.raises(ValueError, match="'qid'"):
        clicks.simulate_clicks([0, 2, 1, 0], _with([7, 7, 8, 8], bad), [0.4, 0.3, 0.2, 0.1])


def test_simulate_clicks_names_relevance_on_a_length_mismatch():
    with pytest.raises(ValueError, match="'relevance' has 3, 'qid' has 4"):
        clicks.simulate_clicks([0, 2, 1], [7, 7, 8, 8], [0.4, 0.3, 0.2])


GRADE_CALLS = {
    "simulate_clicks": lambda rel: clicks.simulate_clicks(rel, [7, 7, 7, 7], [4.0, 3.0, 2.0, 1.0]),
    "partial_order_pairs": lambda rel: lr2ppo.partial_order_pairs(rel, [0, 0, 0, 0]),
}


@pytest.mark.parametrize("call", GRADE_CALLS, ids=str)
@pytest.mark.parametrize("rel, message", [
    ([0, 0.5, 1, 2], "must hold non-negative integer grades, got 0.5 at index 1."),
    ([0, 1, 2.0000001, 2], "must hold non-negative integer grades, got 2.0000001 at index 2."),
    ([0, 1, 2, -1], "must be non-negative, got -1 at index 3."),
])
def test_grades_follow_the_one_rule_of_ranks(call, rel, message):
    """Claim: both takers of relevance grades ask ranked_metrics' rule (negative first, then
    fractional) and give the same message, the value printed exactly (2.0000001 is not "2")."""
    with pytest.raises(ValueError) as err:
        GRADE_CALLS[call](rel)
    assert str(err.value) == f"The 'relevance' parameter {message}"


# ---------------------------------------------------------------------------------------------
# looks bad, is documented valid input (left unchanged on purpose: these must keep a value)
# ---------------------------------------------------------------------------------------------
def test_documented_valid_inputs_still_give_a_value():
    s = torch.tensor([[0.3, -0.2, 1.5, 0.1]], dtype=torch.float64)
    y = torch.tensor([[1.0, 0.0, 1.0, 0.0]], dtype=torch.float64)
    # rho = 0 (docs/theory.md §8: the QuadLinear-AP bound holds for rho in [0, 1])
    assert torch.isfinite(surrogates.quadlinear_ap_loss(s, y, rho=0.0))
    G, _ = ap_training.pair_gradients(s, y, rho=0.0)
    assert torch.isfinite(G).all()
    # ordinal levels are any finite reals, with any leading batch shape
    W = surrogates.label_aggregation_pair_weights([-1.0, 0.5, 2.0])
    assert float(W.sum()) == pytest.approx(1.0)
    # eta_pos = 0: the click model without position bias; noise = 0: a noiseless generator
    d = clicks.simulate_clicks([0, 2, 1, 0], [7, 7, 7, 7], [4.0, 3.0, 2.0, 1.0], eta_pos=0.0,
                               return_details=True)
    assert np.all(d.examination == 1.0)
    assert ap_training.make_retrieval(3, items_range=(5, 6), n_features=5, noise=0.0,
                                      seed=0).y.sum() > 0
    # beta = inf: the documented step-function limit
    data = synthetic.make_synthetic(50, priors=(0.3, 0.5), beta=np.inf, seed=0)
    assert set(np.unique(data.eta)) <= {0.0, 1.0}
    # a larger max_pairs is a deliberate request; P may have any number of rows
    assert len(lr2ppo.within_group_pairs([0, 0, 1], max_pairs=10**12)) == 1
    P = np.array([[0.9, 0.2], [0.3, 0.3], [0.1, 0.8]])
    assert fusion.score_fusion(P[:-1], [1.0, 0.5]).shape == (2,)
