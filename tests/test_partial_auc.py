"""bipartite.metrics.partial_auc against scikit-learn's McClish-standardised
``roc_auc_score(max_fpr=)`` (the reference), and its edge cases. pROC: tests/test_proc_reference.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from bipartite import UndefinedMetricWarning
from bipartite.metrics import auc, partial_auc
from bipartite.metrics._partial import standardised_partial_auc


@st.composite
def tied_weighted_data(draw, *, weighted: bool):
    """n in 2..60 rows; scores on 1..8 levels (many ties) or continuous; labels with both classes
    of positive weight; weights in [0, 100] with some exact zeros (``weighted``); max_fpr drawn
    from (0, 1) with the ROC corners' rates (k / N) among the candidates."""
    n = draw(st.integers(2, 60))
    levels = draw(st.sampled_from([1, 2, 3, 8, None]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) if levels is None else rng.integers(0, levels, n).astype(float)
    w = None
    if weighted:
        w = rng.uniform(0, 100, n) * (rng.random(n) < 0.85)
        assume(w[y == 1].sum() > 0 and w[y == 0].sum() > 0)
    assume(0 < y.sum() < n)
    n_neg = int((y == 0).sum())
    m = draw(st.one_of(st.floats(1e-3, 1.0, exclude_max=True),
                       st.integers(1, n_neg).map(lambda k: min(k / n_neg, 0.999))))
    return y, s, w, m


@given(tied_weighted_data(weighted=False))
def test_partial_auc_equals_sklearn_unweighted(case):
    """Claim: partial_auc equals sklearn's ``roc_auc_score(max_fpr=m)`` (McClish-standardised)
    to 1e-12 on random data with ties (scores on 1, 2, 3 or 8 levels, or continuous), for max_fpr
    anywhere in (0, 1) including the rates of the ROC curve's own corners."""
    y, s, _, m = case
    assert partial_auc(y, s, max_fpr=m) == pytest.approx(roc_auc_score(y, s, max_fpr=m),
                                                         abs=1e-12)


@given(tied_weighted_data(weighted=True))
def test_partial_auc_equals_sklearn_weighted(case):
    """Claim: with sample weights (uniform on [0, 100], about 15 % exact zeros) partial_auc equals
    sklearn's ``roc_auc_score(max_fpr=m, sample_weight=w)`` to 1e-12, on tied and continuous
    scores."""
    y, s, w, m = case
    assert partial_auc(y, s, max_fpr=m, sample_weight=w) == pytest.approx(
        roc_auc_score(y, s, max_fpr=m, sample_weight=w), abs=1e-12)


def test_partial_auc_at_one_is_the_auc(rng):
    """At max_fpr = 1 the area is the AUC (the trapezoids from the top equal the Mann–Whitney
    sum of :func:`auc`, to rounding), from the kernel and from the public function."""
    for levels in (2, 5, None):
        y = rng.integers(0, 2, 200)
        s = rng.normal(size=200) if levels is None else rng.integers(0, levels, 200).astype(float)
        w = rng.exponential(size=200)
        order = np.argsort(-s, kind="stable")
        _, first = np.unique(-s[order], return_index=True)
        P = np.add.reduceat((w * y)[order], first)
        N = np.add.reduceat((w * (1 - y))[order], first)
        assert standardised_partial_auc(P, N, 1.0) == pytest.approx(
            auc(y, s, sample_weight=w), abs=1e-13)
        assert partial_auc(y, s, max_fpr=1.0, sample_weight=w) == pytest.approx(
            auc(y, s, sample_weight=w), abs=1e-13)
        assert partial_auc(y, s, max_fpr=1) == pytest.approx(auc(y, s), abs=1e-13)


def test_partial_auc_perfect_random_and_reversed():
    """A perfect ranking gives 1; a constant scorer gives the diagonal, 0.5; a reversed ranking
    gives McClish's floor ½(1 − m/(2 − m)) (the area under the curve is 0 up to m)."""
    y = np.array([0, 0, 0, 1, 1, 1])
    s = np.arange(6.0)
    for m in (0.1, 0.5, 0.9):
        assert partial_auc(y, s, max_fpr=m) == pytest.approx(1.0, abs=1e-15)
        assert partial_auc(y, np.zeros(6), max_fpr=m) == pytest.approx(0.5, abs=1e-15)
        assert partial_auc(y, -s, max_fpr=m) == pytest.approx(0.5 * (1 - m / (2 - m)), abs=1e-15)


def test_partial_auc_weights_rescale_and_repeat(rng):
    """Integer weights equal repeated rows; rescaling the weights by 1e-200 or 1e200 changes
    nothing (they are scaled by a power of two first)."""
    y = rng.integers(0, 2, 50)
    s = rng.integers(0, 6, 50).astype(float)
    w = rng.integers(0, 4, 50)
    m = 0.3
    ref = partial_auc(np.repeat(y, w), np.repeat(s, w), max_fpr=m)
    assert partial_auc(y, s, max_fpr=m, sample_weight=w) == pytest.approx(ref, abs=1e-13)
    for c in (1e-200, 1e200):
        assert partial_auc(y, s, max_fpr=m, sample_weight=w * c) == pytest.approx(ref, abs=1e-13)


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 1.5, float("nan"), float("inf"), "0.2", None, True])
def test_partial_auc_refuses_bad_max_fpr(bad):
    with pytest.raises(ValueError, match="'max_fpr' parameter must be a number in \\(0, 1\\]"):
        partial_auc([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], max_fpr=bad)


def test_partial_auc_one_class_is_nan_with_warning():
    with pytest.warns(UndefinedMetricWarning, match="only one class"):
        assert np.isnan(partial_auc([1, 1, 1], [0.1, 0.2, 0.3], max_fpr=0.5))
    with pytest.warns(UndefinedMetricWarning, match="only one class"):  # negatives of weight 0
        assert np.isnan(partial_auc([0, 1, 1], [0.1, 0.2, 0.3], max_fpr=0.5,
                                    sample_weight=[0.0, 1.0, 1.0]))
    with pytest.warns(UndefinedMetricWarning, match="only one class"):
        assert np.isnan(partial_auc([0, 0], [0.1, 0.2], max_fpr=1.0))


def test_partial_auc_refuses_bad_input():
    with pytest.raises(ValueError, match="y_true"):
        partial_auc([0, 2, 1], [0.1, 0.2, 0.3], max_fpr=0.5)
    with pytest.raises(ValueError, match="y_score"):
        partial_auc([0, 1, 1], [0.1, np.nan, 0.3], max_fpr=0.5)
    with pytest.raises(ValueError, match="y_score"):
        partial_auc([0, 1, 1], [0.1, 0.3], max_fpr=0.5)
    with pytest.raises(ValueError, match="sample_weight"):
        partial_auc([0, 1, 1], [0.1, 0.2, 0.3], max_fpr=0.5, sample_weight=[1.0, -1.0, 1.0])
