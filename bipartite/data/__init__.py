"""Datasets: the synthetic multi-label problem with exact η, Banking, LETOR/MSLR (docs/theory.md §10).

Every loader returns a :class:`sklearn.utils.Bunch`.

* :func:`make_synthetic` / :func:`synthetic_model` — x uniform on the box ``[-1, 1]^d``,
  ``η_k(x) = σ(β(⟨u_k, x⟩ − t_k))``, thresholds ``t_k`` solved so that ``π_k = E[η_k(X)]`` hits the
  target priors, labels coupled by a Gaussian copula with correlation ``ρ``
  (:func:`bipartite.population.gaussian_copula_joint`). The exact ``η``, joint and ``π`` come with
  every sample, and :meth:`SyntheticModel.finite_problem` turns any test set into a
  :class:`bipartite.population.FiniteProblem` on which the Bayes scorers of docs/theory.md §4/§5 are exact.
* :func:`load_bank_marketing` — UCI Bank Marketing, labels (mortgage, personal loan): the
  "Banking" data of LA25 §7 (client features by default, or all columns), one-hot encoded by
  scikit-learn.
* :func:`load_banking` — the Bank Personal Loan (UniversalBank) data: five binary columns plus
  ``Mortgage > 0`` (MTRUB's multi-behaviour data here); not the data of LA25 §7.
* :func:`load_letor` / :func:`load_letor_query` — LETOR/SVMlight files (MSLR-WEB, LETOR 4.0
  MQ2008, LightGBM-style files with a ``.query`` group file), labels ``Y_rel = 1[rel ≥ r]`` and a
  click label, either from the MSLR click features 134–136 or simulated by the position-based
  click model of :func:`simulate_clicks`.
* :func:`load_problem` — a :class:`bipartite.population.FiniteProblem` from a JSON or NPZ file
  (the format of ``bipartite frontier`` and ``bipartite dictatorship``).
* :func:`load_mulan` — the Mulan multi-label benchmarks (emotions, scene, yeast, birds, medical,
  enron, CAL500; K = 6 to 174) from dense or sparse ARFF, with the standard train/test splits.
* :func:`make_mslr_like` — writes an MSLR-shaped LETOR file (136 features, graded relevance 0–4,
  click features 134–136 correlated with relevance) for readiness tests at MSLR scale.

Parsing notes. SVMlight features are 1-based (``zero_based=False``), so column ``j`` of ``X`` holds
LETOR feature ``j + 1`` and ``feature_names[j]`` says which (``"f134"``). The feature matrix is
parsed by :func:`sklearn.datasets.load_svmlight_file` with ``query_id=False``; the ``qid:`` column
is read by a separate line scan, because sklearn's ``query_id=True`` grows its qid array with
``np.append`` once per line (quadratic: 200k lines take ~12 s, MSLR-size files would take hours).
The line scan also records the line number of every data row, so that bad values found after
parsing are reported as ``file:line``.
"""

from bipartite._utils.moved import register
from bipartite.data.bank_marketing import (
    BANK_MARKETING_CATEGORIES,
    BANK_MARKETING_FEATURE_SETS,
    load_bank_marketing,
)
from bipartite.data.bank_personal_loan import load_banking
from bipartite.data.clicks import simulate_clicks
from bipartite.data.letor import (
    LETOR_SOURCES,
    MSLR_CLICK_FEATURES,
    load_letor,
    load_letor_query,
)
from bipartite.data.mslr import MSLR_CLICK_RATES, MSLR_RELEVANCE_PROBS, make_mslr_like
from bipartite.data.mulan import MULAN_DATASETS, MULAN_MAX_CELLS, load_mulan
from bipartite.data.paths import DATA_ENV, data_dir, data_file
from bipartite.data.problems import load_problem
from bipartite.data.synthetic import SyntheticModel, make_synthetic, synthetic_model

__all__ = [
    "BANK_MARKETING_CATEGORIES",
    "BANK_MARKETING_FEATURE_SETS",
    "DATA_ENV",
    "LETOR_SOURCES",
    "MSLR_CLICK_FEATURES",
    "MSLR_CLICK_RATES",
    "MSLR_RELEVANCE_PROBS",
    "MULAN_DATASETS",
    "MULAN_MAX_CELLS",
    "SyntheticModel",
    "data_dir",
    "data_file",
    "load_bank_marketing",
    "load_banking",
    "load_letor",
    "load_letor_query",
    "load_problem",
    "load_mulan",
    "make_mslr_like",
    "make_synthetic",
    "simulate_clicks",
    "synthetic_model",
]

# ``bipartite.data.banking`` held the Bank Personal Loan data, not LA25's Banking data
# (:mod:`bipartite.data.bank_marketing`): it is now :mod:`bipartite.data.bank_personal_loan`
# (issue 36); the old path warns and forwards for a release.
register({"bipartite.data.banking": ("bipartite.data.bank_personal_loan",)})
