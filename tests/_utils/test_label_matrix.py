"""bipartite._utils.arrays.check_label_matrix: the one check of "binary labels Y (n, K), a 1-D
array taken as one column", asked by the six public entries that take such a Y (the rankers' fit
and score, the ranking scorers, Objective.criterion, grouped_stats and MultiTaskMLP.fit)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from bipartite._utils.validation import check_label_matrix
from bipartite.contrib.multitask import MultiTaskMLP
from bipartite.learners import MLPRanker, XGBRanker
from bipartite.learners.scoring import make_ranking_scorer
from bipartite.metrics import grouped_stats
from bipartite.objectives import Objective

ROOT = Path(__file__).resolve().parents[2] / "bipartite"
FAST_MLP = dict(hidden=(4,), epochs=2, batch_size=32, n_iter_no_change=2, random_state=0)


def test_a_vector_is_one_column_and_a_matrix_is_kept():
    """Claim: a 1-D label vector comes back as its one column, a 2-D one unchanged, as float64;
    a list, a boolean array and an integer array give the same values."""
    y = [0, 1, 1, 0]
    for v in (y, np.array(y, dtype=bool), np.array(y, dtype=np.int8)):
        got = check_label_matrix(v)
        assert got.dtype == np.float64 and got.shape == (4, 1)
        assert got[:, 0].tolist() == [0.0, 1.0, 1.0, 0.0]
    Y = np.array([[0, 1], [1, 1], [1, 0]])
    np.testing.assert_array_equal(check_label_matrix(Y), Y.astype(float))


@pytest.mark.parametrize("Y, match", [
    ([0, 2, 1], r"^The 'Y' parameter must contain only 0 and 1, got 2 at index 1\.$"),
    ([[0, 1], [0.5, 1]], r"^The 'Y' parameter must contain only 0 and 1, got 0\.5 at index "
                         r"\(1, 0\)\.$"),
    (np.zeros((2, 2, 2)), r"^The 'Y' parameter must be 1 or 2-dimensional, got an array of "
                          r"shape \(2, 2, 2\)\.$"),
    ([0, np.nan], r"^The 'Y' parameter must be finite, got nan at index 1\.$"),
    (np.zeros((0, 2)), r"^The 'Y' parameter must not be empty"),
])
def test_bad_labels_are_refused_by_name(Y, match):
    with pytest.raises(ValueError, match=match):
        check_label_matrix(Y)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    return X, y, np.repeat(np.arange(6), 10)


@pytest.fixture(scope="module")
def fitted(data):
    X, y, _ = data
    return MLPRanker(**FAST_MLP).fit(X, y)


def _entries(data, fitted):
    """Each public entry that takes a label matrix, called with Y (the one argument varied)."""
    X, _, q = data
    s = X[:, 0]
    scorer = make_ranking_scorer("auc", label=0, request_qid=False)
    return {
        "MLPRanker.fit": lambda Y: MLPRanker(**FAST_MLP).fit(X, Y).decision_function(X),
        "XGBRanker.fit": lambda Y: XGBRanker(n_estimators=2, max_depth=2, n_jobs=1,
                                             random_state=0).fit(X, Y).decision_function(X),
        "RankerMixin.score": lambda Y: fitted.score(X, Y),
        "ranking scorer": lambda Y: scorer(fitted, X, Y),
        "Objective.criterion": lambda Y: Objective().criterion(Y, s, qid=q),
        "grouped_stats": lambda Y: grouped_stats(Y, s, qid=q).auc,
        "MultiTaskMLP.fit": lambda Y: MultiTaskMLP(tasks=1, hidden=(4,), tower_hidden=2, epochs=2,
                                                   random_state=0, device="cpu").fit(
            X, Y).predict_proba(X),
    }


ENTRIES = ["MLPRanker.fit", "XGBRanker.fit", "RankerMixin.score", "ranking scorer",
           "Objective.criterion", "grouped_stats", "MultiTaskMLP.fit"]


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_entry_takes_a_vector_as_one_column(data, fitted, entry):
    """Claim: at every entry, a 1-D Y gives exactly what its one-column matrix gives."""
    call = _entries(data, fitted)[entry]
    y = data[1]
    np.testing.assert_array_equal(call(y), call(y[:, None]))


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_entry_refuses_bad_labels_with_the_one_message(data, fitted, entry):
    """Claim: every entry refuses a non-binary entry and a 3-D Y with check_label_matrix's
    messages, naming its own argument ('y_true' for the scorer, 'Y' elsewhere)."""
    call = _entries(data, fitted)[entry]
    name = "y_true" if entry == "ranking scorer" else "Y"
    y = data[1].astype(float)
    y[7] = 3.0
    with pytest.raises(ValueError, match=rf"^The '{name}' parameter must contain only 0 and 1, "
                                         rf"got 3 at index 7\.$"):
        call(y)
    with pytest.raises(ValueError, match=rf"^The '{name}' parameter must be 1 or 2-dimensional"):
        call(np.zeros((60, 1, 1)))


def _binary_1_or_2_d_calls(root: Path = ROOT) -> list[str]:
    """Where a module checks binary labels in one or two dimensions itself: calls of
    check_binary with ``ndim=(1, 2)`` outside check_label_matrix's own module."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == root / "_utils" / "arrays.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check_binary"
                    and any(k.arg == "ndim" and isinstance(k.value, ast.Tuple)
                            and len(k.value.elts) == 2 for k in node.keywords)):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_module_writes_the_label_matrix_check_again():
    """Claim: the rule has one home; no module calls check_binary(..., ndim=(1, 2)) itself."""
    assert _binary_1_or_2_d_calls() == []


def test_the_scan_finds_a_written_copy(tmp_path):
    """Claim: the scan above can fail: it flags a module that writes the check again, and
    passes the home module."""
    (tmp_path / "_utils").mkdir()
    (tmp_path / "_utils" / "arrays.py").write_text('a = check_binary(Y, "Y", ndim=(1, 2))\n')
    (tmp_path / "copy.py").write_text('Y = check_binary(Y, "Y", ndim=(1, 2))\n')
    assert _binary_1_or_2_d_calls(tmp_path) == ["copy.py:1"]
