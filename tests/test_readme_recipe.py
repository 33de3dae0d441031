"""The README's cross-validation recipe (query ids routed by scikit-learn's metadata routing),
run on the first 40 queries of MQ2008 S1 (the README runs it on the whole file).

The code is the README's, with one change: the README enables routing globally with
``sklearn.set_config(enable_metadata_routing=True)``; here ``sklearn.config_context`` keeps the
setting inside the test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold

from bipartite.data import load_letor
from bipartite.learners import XGBRanker, ranking_scorers


def test_readme_cv_recipe_on_mq2008_subset(shared_data):
    path = shared_data / "letor" / "mq2008_S1.txt"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    full = load_letor(path)
    keep = np.isin(full.qid, np.unique(full.qid)[:40])
    d = type(full)(X=full.X[keep], Y=full.Y[keep], qid=full.qid[keep],
                   label_names=full.label_names)

    with sklearn.config_context(enable_metadata_routing=True):  # README: sklearn.set_config
        # --- README code -------------------------------------------------------------------
        ranker = XGBRanker(n_estimators=100, n_jobs=1, random_state=0)
        ranker.set_fit_request(qid=True).set_score_request(qid=True)
        search = GridSearchCV(
            ranker,
            {"objective": ["loss_aggregation", "label_aggregation"], "max_depth": [2, 4]},
            cv=GroupKFold(n_splits=5),  # whole queries per fold
            scoring=ranking_scorers(d.label_names, qid=True),  # gauc_<label>, min_auc, ...
            refit="min_auc",  # the worst-served label's gAUC
        )
        search.fit(d.X, d.Y, groups=d.qid, qid=d.qid)  # groups -> GroupKFold, qid -> ranker
        cols = ["param_objective", "param_max_depth", "mean_test_gauc_relevant",
                "mean_test_gauc_click", "mean_test_min_auc", "std_test_min_auc"]
        table = pd.DataFrame(search.cv_results_)[cols].round(3)
        print(table.to_string(index=False))
        print(search.best_params_, round(search.best_score_, 3), search.best_estimator_.n_queries_)
        # -----------------------------------------------------------------------------------

    assert search.best_estimator_.n_queries_ == 40  # the refit saw the query ids
    assert len(table) == 4 and table.notna().all().all()
    assert search.best_score_ == pytest.approx(table.mean_test_min_auc.max(), abs=5e-4)
    # min_auc is the smaller of the two labels' gAUCs in every fold, hence in the mean
    assert (table.mean_test_min_auc <= table[["mean_test_gauc_relevant",
                                              "mean_test_gauc_click"]].min(axis=1) + 1e-9).all()
