"""Invariance properties of every AUC-type metric, as one registry (STYLE.md §10; docs/theory.md §2, §3).

Each property holds for all inputs the strategies generate; hypothesis searches for violations.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from bipartite.metrics import auc, average_precision, group_auc, multilabel_auc, multipartite_auc


# Each entry: name -> (metric(y, s, w) -> float | array, label kind).  "binary": y in {0,1};
# "ordinal": y in {0,1,2,3}. Groups for gAUC are a fixed function of the row position.
def _gauc(y, s, w):
    return group_auc(y, s, np.arange(len(y)) % 3, sample_weight=w)


METRICS = {
    "auc": (lambda y, s, w: auc(y, s, sample_weight=w), "binary"),
    "multilabel_auc": (
        lambda y, s, w: multilabel_auc(np.stack([y, 1 - y], 1), s, sample_weight=w),
        "binary",
    ),
    "group_auc": (_gauc, "binary"),
    "average_precision": (lambda y, s, w: average_precision(y, s, sample_weight=w), "binary"),
    "multipartite_linear": (
        lambda y, s, w: multipartite_auc(y, s, costs="linear", sample_weight=w),
        "ordinal",
    ),
    "multipartite_uniform": (
        lambda y, s, w: multipartite_auc(y, s, costs="uniform", sample_weight=w),
        "ordinal",
    ),
}
NAMES = sorted(METRICS)


@st.composite
def labelled(draw, kind):
    """Labels with every class present in each of the 3 row groups (row i is in group i % 3),
    tie-heavy integer scores, and integer weights."""
    top = 1 if kind == "binary" else 3
    forced = np.repeat(np.arange(top + 1), 3)  # rows 3c..3c+2 cover class c in groups 0, 1, 2
    n = draw(st.integers(len(forced), 30))
    y = np.array(draw(st.lists(st.integers(0, top), min_size=n, max_size=n)))
    y[: len(forced)] = forced
    s = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=float)
    w = np.array(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), dtype=float)
    return y.astype(float), s, w


@given(st.sampled_from(NAMES), st.data())
def test_unit_weights_equal_no_weights(name, data):
    """Claim: sample_weight = 1 everywhere gives exactly the unweighted metric."""
    f, kind = METRICS[name]
    y, s, _ = data.draw(labelled(kind))
    np.testing.assert_allclose(f(y, s, np.ones_like(y)), f(y, s, None), atol=1e-12)


@given(st.sampled_from(NAMES), st.data())
def test_integer_weight_equals_repetition(name, data):
    """Claim: an integer weight m on a row equals repeating the row m times."""
    f, kind = METRICS[name]
    y, s, w = data.draw(labelled(kind))
    rep = w.astype(int)
    idx = np.repeat(np.arange(len(y)), rep)
    if name == "group_auc":  # groups must follow the rows they belong to
        g = np.arange(len(y)) % 3
        a = group_auc(y, s, g, sample_weight=w)
        b = group_auc(y[idx], s[idx], g[idx])
        np.testing.assert_allclose(a, b, atol=1e-12)
        return
    np.testing.assert_allclose(f(y, s, w), f(y[idx], s[idx], None), atol=1e-12)


@given(st.sampled_from([n for n in NAMES if n != "group_auc"]), st.data())
def test_zero_weight_equals_removal(name, data):
    """Claim: a row with weight 0 can be removed without changing the metric."""
    f, kind = METRICS[name]
    y, s, w = data.draw(labelled(kind))
    extra_y = data.draw(st.sampled_from(sorted(set(y.tolist()))))
    extra_s = data.draw(st.integers(-5, 5))
    y2, s2, w2 = np.r_[y, extra_y], np.r_[s, float(extra_s)], np.r_[w, 0.0]
    np.testing.assert_allclose(f(y2, s2, w2), f(y, s, w), atol=1e-12)


@given(st.sampled_from(NAMES), st.data())
def test_strictly_increasing_transform_changes_nothing(name, data):
    """Claim: every metric depends on the scores only through their weak order."""
    f, kind = METRICS[name]
    y, s, w = data.draw(labelled(kind))
    scale = data.draw(st.floats(0.1, 10.0))
    t = np.exp(scale * s) + 3.0 * s  # strictly increasing
    np.testing.assert_allclose(f(y, t, w), f(y, s, w), atol=1e-12)


@given(st.sampled_from(["auc", "multilabel_auc", "group_auc", "multipartite_linear",
                        "multipartite_uniform"]), st.data())
def test_label_reversal_maps_auc_to_one_minus_auc(name, data):
    """Claim: reversing the labels (y -> max - y) maps AUC to 1 - AUC (ties ½ keep this exact);
    for multipartite AUC this needs costs that depend only on the level gap (linear, uniform)."""
    f, kind = METRICS[name]
    y, s, w = data.draw(labelled(kind))
    top = 1.0 if kind == "binary" else 3.0
    np.testing.assert_allclose(f(top - y, s, w), 1.0 - np.asarray(f(y, s, w)), atol=1e-12)


@given(st.sampled_from(["auc", "multilabel_auc", "group_auc", "multipartite_linear",
                        "multipartite_uniform"]), st.data())
def test_score_negation_maps_auc_to_one_minus_auc(name, data):
    """Claim: negating the scores maps AUC to 1 - AUC (ties stay ties)."""
    f, kind = METRICS[name]
    y, s, w = data.draw(labelled(kind))
    np.testing.assert_allclose(f(y, -s, w), 1.0 - np.asarray(f(y, s, w)), atol=1e-12)


@given(st.sampled_from(NAMES), st.data())
def test_rescaled_weights_change_nothing(name, data):
    """Claim: multiplying every weight by one c > 0, from 1e-200 to 1e200, changes no metric:
    each is a ratio of forms of equal degree in the weights (regression: weights of 1e-170 made
    ΣP·ΣN underflow to 0, and the AUC NaN with a false "only one class" warning)."""
    f, kind = METRICS[name]
    y, s, w = data.draw(labelled(kind))
    c = 10.0 ** data.draw(st.integers(-200, 200))
    np.testing.assert_allclose(f(y, s, c * w), f(y, s, w), atol=1e-12)


@given(st.sampled_from(NAMES), st.data())
def test_scaling_the_scores_over_the_float_range_changes_nothing(name, data):
    """Claim: s -> c·s for any c > 0 from 1e-300 to 1e300 keeps the weak order, so no metric
    changes (the sort keys of the AUC kernels rescale the scores by powers of two)."""
    f, kind = METRICS[name]
    y, s, w = data.draw(labelled(kind))
    c = 10.0 ** data.draw(st.integers(-300, 300))
    np.testing.assert_allclose(f(y, c * s, w), f(y, s, w), atol=1e-12)
