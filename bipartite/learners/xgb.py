"""The XGBoost gbtree ranker (docs/theory.md §10).
"""


from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from bipartite._utils.torch import n_threads as _n_threads
from bipartite._utils.validation import (
    check_positive,
    check_random_state,
)

# MTRUB's multi-task network lives in its own module and is re-exported here (docs/theory.md §11).
from bipartite.labels import aggregate_labels, cost_matrix
from bipartite.learners.base import (
    FLOAT_DTYPES,
    XGB_METHODS,
    RankerMixin,
    check_objective,
    label_codes,
    mixing_weights,
    needs_joint,
    plugin_ranking_scores,
)
from bipartite.population import label_vectors


# ---------------------------------------------------------------------------------------------
# XGBoost
# ---------------------------------------------------------------------------------------------
def _stacked_loss_aggregation(Y: np.ndarray, groups: np.ndarray, a: np.ndarray):
    """Rows, binary labels, qids and group weights of the stacked loss-aggregation problem.

    One query group per (query, label k) with label ``Y_k`` and group weight ``a_k / n_q``
    (n_q = query size); groups without both classes are dropped (they hold no pair).
    With XGBoost's ``lambdarank_pair_method="mean"`` each row draws the same number of partners
    uniformly among the rows of the other class, so a pair (i, j) of group (q, k) is drawn in
    expectation in proportion to ``1/n⁻ + 1/n⁺ = n_q / (n⁺ n⁻)``; with the group weight this
    gives pair weight ``a_k / (n⁺_qk n⁻_qk)``: the AUC-normalised loss-aggregation weights
    (docs/theory.md §4), exactly the weights of :func:`bipartite.surrogates.loss_aggregation_pair_weights`.
    """
    rows, labels, qid, gw = [], [], [], []
    order = np.argsort(groups, kind="stable")
    bounds = np.flatnonzero(np.diff(groups[order])) + 1
    g_id = 0
    for members in np.split(order, bounds):
        for k in range(Y.shape[1]):
            yk = Y[members, k]
            npos = yk.sum()
            if a[k] <= 0 or npos == 0 or npos == len(yk):
                continue
            rows.append(members)
            labels.append(yk)
            qid.append(np.full(len(members), g_id))
            gw.append(a[k] / len(members))
            g_id += 1
    return rows, labels, qid, gw


def _stacked_label_aggregation(ybar: np.ndarray, groups: np.ndarray, costs: Any):
    """Rows, binary labels, qids and group weights realising multipartite costs with rank:pairwise.

    For each query and each pair of levels ``y_a > y_b`` present in it, one binary group holds the
    rows at those two levels (label 1 for level a) with group weight
    ``c(y_a, y_b) n_a n_b / (n_a + n_b)``. Under ``lambdarank_pair_method="mean"`` a pair is
    drawn in proportion to ``(n_a + n_b)/(n_a n_b)`` (see :func:`_stacked_loss_aggregation`), so
    every pair (i, j) with ``ȳ_i > ȳ_j`` gets weight ``c(ȳ_i, ȳ_j)``: the multipartite cost
    weighting of docs/theory.md §3 for any cost family or matrix (levels = the sorted distinct values of
    Ȳ in the whole training set). Plain ``rank:pairwise`` on Ȳ would instead weight a pair by
    ``1/(n - n_{ȳ_i}) + 1/(n - n_{ȳ_j})``, which is neither uniform nor linear costs.
    """
    levels = np.unique(ybar)
    C = cost_matrix(levels, costs)
    lev = np.searchsorted(levels, ybar)
    rows, labels, qid, gw = [], [], [], []
    order = np.argsort(groups, kind="stable")
    bounds = np.flatnonzero(np.diff(groups[order])) + 1
    g_id = 0
    for members in np.split(order, bounds):
        present = np.unique(lev[members])
        for ia, la in enumerate(present):
            for lb in present[:ia]:
                if C[la, lb] <= 0:
                    continue
                sel = members[(lev[members] == la) | (lev[members] == lb)]
                na = int(np.sum(lev[sel] == la))
                nb = len(sel) - na
                rows.append(sel)
                labels.append((lev[sel] == la).astype(np.float64))
                qid.append(np.full(len(sel), g_id))
                gw.append(C[la, lb] * na * nb / (na + nb))
                g_id += 1
    return rows, labels, qid, gw


class XGBRanker(RankerMixin, BaseEstimator):
    """Gradient-boosted trees (XGBoost gbtree) for loss or label aggregation (docs/theory.md §4, §5, §10).

    Routes
    ------
    ``method="pairwise"``
        XGBoost's RankNet objective ``rank:pairwise`` (logistic pairwise loss) with
        ``lambdarank_pair_method="mean"`` (each row draws ``num_pair_per_sample`` partners
        uniformly among rows of another label, per round), ``lambdarank_score_normalization=False``
        (the 3.x default divides each pair's gradient by the score gap, which would change the
        loss) and per-group weights. The rows are *stacked* so that the expected pair weights are
        exactly the objective's:

        - loss aggregation: one query group per (query, label k), label ``Y_k``, group weight
          ``a_k/n_q``: pair weight ``a_k/(n⁺_k n⁻_k)``, i.e. Σ_k a_k × (AUC_k-normalised pairwise
          logistic loss), the §4 objective (see :func:`_stacked_loss_aggregation`). Chosen over a
          custom objective because XGBoost's own sampled-pair kernel is O(n · pairs per row) in C++;
          an exact custom pairwise gradient would be O(n²) per round in Python.
        - label aggregation: one binary group per (query, pair of levels of Ȳ), weighted so that a
          pair (i, j) with ``ȳ_i > ȳ_j`` gets cost ``c(ȳ_i, ȳ_j)`` (any costs; see
          :func:`_stacked_label_aggregation`). Plain ``rank:pairwise`` on Ȳ would weight pairs by
          the sizes of the other levels — neither uniform nor linear costs.

        Without ``groups`` the whole training set is one query. The data are copied K times (loss
        aggregation) or ``L-1``..``L(L-1)/2`` times in total size (label aggregation).
    ``method="plugin"``
        One ``binary:logistic`` booster per label (η̂_k), combined by the Bayes closed form with π̂ =
        training label means; for product/or label aggregation one ``multi:softprob`` booster over
        the ``2**K`` label vectors (the joint).

    Parameters
    ----------
    objective, a, w, aggregate, costs : as :class:`MLPRanker`.
    n_estimators : int — boosting rounds. learning_rate, max_depth : usual XGBoost parameters.
    num_pair_per_sample : int — ``lambdarank_num_pair_per_sample`` (pairwise only).
    n_jobs : int or None — XGBoost threads (None = 1, -1 = all cores).
    random_state : None, int or numpy Generator — XGBoost ``seed``.
    verbose : bool — tqdm progress bar over boosting rounds.
    **xgb_params : further XGBoost booster parameters (e.g. ``min_child_weight``, ``subsample``,
        ``tree_method``, ``device``); they appear in ``get_params`` and survive ``clone``.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> Y = (X + 0.5 * rng.normal(size=(300, 2)) > 0).astype(int)
    >>> est = XGBRanker(n_estimators=20, random_state=0).fit(X, Y)
    >>> bool(est.score(X, Y) > 0.8)
    True
    """

    def __init__(
        self,
        objective: str = "loss_aggregation",
        method: str = "pairwise",
        a: Any = None,
        w: Any = None,
        aggregate: str = "sum",
        costs: Any = "linear",
        n_estimators: int = 200,
        learning_rate: float = 0.1,
        max_depth: int = 4,
        num_pair_per_sample: int = 8,
        n_jobs: int | None = None,
        random_state: Any = None,
        verbose: bool = False,
        **xgb_params: Any,
    ):
        self.objective = objective
        self.method = method
        self.a = a
        self.w = w
        self.aggregate = aggregate
        self.costs = costs
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.num_pair_per_sample = num_pair_per_sample
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self._xgb_params = dict(xgb_params)

    def get_params(self, deep: bool = True) -> dict:
        params = super().get_params(deep=deep)
        params.update(self._xgb_params)
        return params

    def set_params(self, **params: Any) -> XGBRanker:
        own = set(self._get_param_names())
        for key, value in params.items():
            if key in own:
                setattr(self, key, value)
            else:
                self._xgb_params[key] = value
        return self

    def _check_params(self) -> None:
        check_objective(self, XGB_METHODS)
        check_positive(self.n_estimators, "n_estimators", integer=True)
        check_positive(self.learning_rate, "learning_rate")
        check_positive(self.max_depth, "max_depth", integer=True, allow_zero=True)
        check_positive(self.num_pair_per_sample, "num_pair_per_sample", integer=True)
        _n_threads(self.n_jobs)
        reserved = {"objective", "num_class", "lambdarank_pair_method"}
        clash = reserved & set(self._xgb_params)
        if clash:
            raise ValueError(
                f"The XGBoost parameters {sorted(clash)} are set by XGBRanker from 'objective' and "
                "'method'; do not pass them."
            )

    def _booster_params(self, seed: int) -> dict:
        params = {
            "booster": "gbtree",
            "tree_method": "hist",
            "eta": float(self.learning_rate),
            "max_depth": int(self.max_depth),
            "nthread": _n_threads(self.n_jobs),
            "seed": seed,
            "verbosity": 0,
        }
        params.update(self._xgb_params)
        return params

    def _train(self, params: dict, dtrain, desc: str):
        import xgboost as xgb
        from tqdm.auto import tqdm

        callbacks = []
        if self.verbose:
            bar = tqdm(total=int(self.n_estimators), desc=desc, leave=False)

            class _Progress(xgb.callback.TrainingCallback):
                def after_iteration(self, model, epoch, evals_log):
                    bar.update(1)
                    return False

            callbacks.append(_Progress())
        booster = xgb.train(
            params, dtrain, num_boost_round=int(self.n_estimators), callbacks=callbacks
        )
        if self.verbose:
            bar.close()
        return booster

    def fit(self, X: Any, Y: Any, groups: Any = None) -> XGBRanker:
        """Fit on features X (n, d), binary labels Y (n, K), optional query ids ``groups`` (n,)."""
        import xgboost as xgb

        self._check_params()
        X, Y, groups = self._validate_fit_input(X, Y, groups)
        n, K = Y.shape
        rng = check_random_state(self.random_state)
        seed = int(rng.integers(2**31 - 1))
        self.n_labels_ = K
        self.prior_ = Y.mean(axis=0)
        params = self._booster_params(seed)
        self.joint_head_ = False
        if self.method == "plugin":
            self.joint_head_ = needs_joint(self.objective, self.aggregate)
            if self.joint_head_:
                p = {**params, "objective": "multi:softprob", "num_class": 2**K}
                codes = label_codes(Y)
                if np.unique(codes).size < 2:
                    raise ValueError(
                        "The 'Y' parameter holds a single label vector: nothing to fit."
                    )
                self.boosters_ = [self._train(p, xgb.DMatrix(X, label=codes), "XGB joint")]
            else:
                p = {**params, "objective": "binary:logistic"}
                self.boosters_ = [
                    self._train(p, xgb.DMatrix(X, label=Y[:, k]), f"XGB label {k + 1}")
                    for k in range(K)
                ]
            return self
        g = groups if groups is not None else np.zeros(n, dtype=np.int64)
        if self.objective == "loss_aggregation":
            parts = _stacked_loss_aggregation(Y, g, mixing_weights(self.a, K))
        else:
            ybar = aggregate_labels(Y, self.aggregate, self.w)
            parts = _stacked_label_aggregation(ybar, g, self.costs)
        rows, labels, qid, gw = parts
        if not rows:
            raise ValueError(
                "The 'Y' parameter gives no comparable pair (every label, or the aggregated label, "
                "is constant within every query): nothing to fit."
            )
        idx = np.concatenate(rows)
        dtrain = xgb.DMatrix(
            X[idx], label=np.concatenate(labels), qid=np.concatenate(qid), weight=np.asarray(gw)
        )
        p = {
            **params,
            "objective": "rank:pairwise",
            "lambdarank_pair_method": "mean",
            "lambdarank_num_pair_per_sample": int(self.num_pair_per_sample),
            "lambdarank_score_normalization": False,
        }
        self.boosters_ = [self._train(p, dtrain, "XGB pairwise")]
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Ranking scores, shape (n,): higher ranks first (ties count ½ in every AUC)."""
        import xgboost as xgb

        check_is_fitted(self, "boosters_")
        X = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        d = xgb.DMatrix(X)
        if self.method == "pairwise":
            return self.boosters_[0].predict(d, output_margin=True).astype(np.float64)
        if self.joint_head_:
            P = self.boosters_[0].predict(d).astype(np.float64).reshape(len(X), -1)
            eta = P @ label_vectors(self.n_labels_)
            return plugin_ranking_scores(eta, P, self.prior_, self._spec())
        eta = np.column_stack([b.predict(d).astype(np.float64) for b in self.boosters_])
        return plugin_ranking_scores(eta, None, self.prior_, self._spec())
