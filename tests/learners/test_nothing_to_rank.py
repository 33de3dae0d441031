"""A fit with nothing to rank is refused, not fitted to an arbitrary scorer: label aggregation
whose aggregated label is constant within every query (OR of labels that every row has one of;
found on the Mulan sets, where MLPRanker fitted it without an error)."""

from __future__ import annotations

import numpy as np
import pytest

from bipartite.learners import MLPRanker, XGBRanker
from bipartite.learners.base import NO_COMPARABLE_PAIR, check_comparable_levels

CASES = [(MLPRanker, "pairwise", {"epochs": 2}), (MLPRanker, "plugin", {"epochs": 2}),
         (XGBRanker, "pairwise", {"n_estimators": 2}), (XGBRanker, "plugin", {"n_estimators": 2})]


@pytest.mark.parametrize("cls, method, kw", CASES)
def test_or_of_labels_every_row_has_is_refused(cls, method, kw):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    Y = np.ones((120, 2), dtype=int)
    Y[:60, 0] = 0  # every row has label 2: OR is 1 everywhere
    est = cls(objective="label_aggregation", aggregate="or", method=method, random_state=0, **kw)
    with pytest.raises(ValueError, match="gives no comparable pair"):
        est.fit(X, Y)
    Y[:5, 1] = 0  # five rows with no label: OR varies, the fit goes ahead
    est.fit(X, Y)


def test_constant_within_every_query_but_not_overall():
    ybar = np.array([1.0, 1.0, 0.0, 0.0, 2.0])
    qid = np.array([3, 3, 1, 1, 7])
    with pytest.raises(ValueError, match=NO_COMPARABLE_PAIR[:40]):
        check_comparable_levels(ybar, qid)
    check_comparable_levels(ybar)  # one query: levels differ
    check_comparable_levels(ybar, np.array([3, 1, 1, 1, 7]))  # query 1 holds 1 and 0
    with pytest.raises(ValueError, match="gives no comparable pair"):
        check_comparable_levels(np.array([], dtype=float))
