"""MTRUB study functions (Liu et al., WWW'22 Companion): multi-task learners and exponential score
fusion compared with loss and label aggregation (docs/theory.md §4, §5, §11).

Two study functions, registered with the runner (one task per replicate, seed from the runner):

* ``mtrub.synthetic`` — synthetic nested behaviours
  (:func:`bipartite.contrib.fusion.make_nested_behaviour`: click ⊇ valid stay ⊇ long stay, query
  groups, exact η known): the learners (MTRUB Table 1, Fig. 2), the aggregation of the MMoE
  probabilities (and of the exact η, an oracle) and a Pareto check on test data;
* ``mtrub.banking`` — Banking (LA25 §7 data; its five binary columns as behaviour labels): the
  same aggregation comparison on multi-task probabilities. Banking has no queries: gAUC and
  nDCG@10 are computed on random lists of ``list_size`` customers (a seeded partition of the test
  rows).

Every quantity a figure or table needs is in the tidy rows, told apart by ``kind``:

* ``"head"`` (synthetic): ``model``, ``label``, ``auc``, ``gauc``, ``ndcg10`` — each label ranked
  by its own head;
* ``"aggregation"``: ``probabilities`` (synthetic) or ``model`` (Banking), ``scorer``, per-label
  ``auc_<label>``, ``gauc_<label>``, ``ndcg10_<label>``, their means ``*_mean`` and the searched
  exponents ``gamma`` (JSON text, fusion row only);
* ``"check"``: the Pareto check of :func:`pareto_check_row` (one row per probability source);
* ``"front"``: one row per candidate of the exponent grid and ``family`` (``"fusion"``
  ``Π p_k^γ_k`` or ``"linear"`` ``Σ_k γ_k p_k``): test ``gauc_<label>``, ``test_pareto`` (Pareto on
  test within its family) and ``val_pareto`` (fusion: Pareto on validation).
"""

from __future__ import annotations

import json
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite._utils.validation import UndefinedMetricWarning, require_qid
from bipartite.experiments.mtrub.figures import (
    BANKING_LABELS,
    banking_figures,
    synthetic_figures,
)
from bipartite.studies.config import register_study
from bipartite.studies.constraints import Range

if TYPE_CHECKING:
    from bipartite.contrib.fusion import FusionSearch

__all__ = ["LIST_SIZE", "aggregate_scores", "label_metrics", "mtrub_banking", "mtrub_synthetic",
           "pareto_check_row"]

#: Customers per random list on Banking (it has no queries).
LIST_SIZE = 20


# ----------------------------------------------------------------------------------------------
# Metrics
# ----------------------------------------------------------------------------------------------


def label_metrics(Y: np.ndarray, score: np.ndarray, qid: np.ndarray = None,
                  names: list[str] = None, *, groups: np.ndarray = None) -> dict[str, float]:
    """Per-label AUC, gAUC (pairs-weighted) and nDCG@10 of one scorer, and their means; ``qid``
    the query ids (``groups``: its deprecated alias, FutureWarning).

    >>> Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    >>> m = label_metrics(Y, np.array([0.9, 0.1, 0.8, 0.2]), np.array([0, 0, 1, 1]), ["a", "b"])
    >>> m["auc_a"], m["gauc_a"]
    (1.0, 1.0)
    """
    from bipartite.metrics import grouped_stats, multilabel_auc, ndcg_at_k

    qid, _ = require_qid(qid, groups, "label_metrics")
    if names is None:
        raise TypeError("label_metrics missing the required argument 'names'.")
    out: dict[str, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        aucs = multilabel_auc(Y, score)
        gaucs = grouped_stats(Y, score, qid, ap=False).gauc("pairs")  # one sort, every label
        for k, name in enumerate(names):
            out[f"auc_{name}"] = float(aucs[k])
            out[f"gauc_{name}"] = float(gaucs[k])
            out[f"ndcg10_{name}"] = ndcg_at_k(Y[:, k], score, k=10, qid=qid)
    for m in ("auc", "gauc", "ndcg10"):
        out[f"{m}_mean"] = float(np.nanmean([out[f"{m}_{n}"] for n in names]))
    return out


def _gauc_vector(Y: np.ndarray, score: np.ndarray, qid: np.ndarray) -> np.ndarray:
    from bipartite.metrics import grouped_stats

    return grouped_stats(Y, score, qid, ap=False).gauc("pairs")


def _ndcg_depth(Y: np.ndarray, score: np.ndarray, groups: np.ndarray) -> float:
    """nDCG@10 with graded relevance = number of behaviours (engagement depth 0..K)."""
    from bipartite.metrics import ndcg_at_k

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return ndcg_at_k(Y.sum(axis=1), score, k=10, qid=groups)


def _dominated_by(a: np.ndarray, B: np.ndarray) -> bool:
    """True if some row of B is >= a everywhere and > a somewhere."""
    return bool(np.any(np.all(B >= a, axis=1) & np.any(B > a, axis=1)))


# ----------------------------------------------------------------------------------------------
# Aggregation of probabilities and the Pareto check
# ----------------------------------------------------------------------------------------------


def _search(P_val: np.ndarray, Y_val: np.ndarray, g_val: np.ndarray, resolution: int):
    from bipartite.contrib.fusion import pareto_search

    return pareto_search(P_val, Y_val, qid=g_val, resolution=resolution)


def aggregate_scores(P: np.ndarray, gamma: np.ndarray, prior: np.ndarray) -> dict[str, np.ndarray]:
    """The scorers compared (:data:`bipartite.experiments.mtrub.figures.AGGREGATORS`) on
    probabilities ``P`` (n, K): exponential fusion with exponents ``gamma`` (searched on
    validation data) and with uniform exponents (:func:`bipartite.contrib.fusion.score_fusion`),
    loss aggregation with a_k = 1 (:func:`bipartite.bayes.loss_aggregation`, plug-in with the
    training ``prior``), label aggregation by sum (:func:`bipartite.bayes.label_aggregation_scores`)
    and the first label alone.

    >>> P = np.array([[0.9, 0.1], [0.2, 0.8]])
    >>> list(aggregate_scores(P, np.array([0.5, 0.5]), np.array([0.5, 0.5])))[:2]
    ['fusion (searched γ)', 'fusion (uniform γ)']
    """
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.contrib.fusion import score_fusion

    K = P.shape[1]
    return {
        "fusion (searched γ)": score_fusion(P, gamma),
        "fusion (uniform γ)": score_fusion(P, np.full(K, 1.0 / K)),
        "loss aggregation (a=1)": loss_aggregation(P, prior),
        "label aggregation (sum)": label_aggregation_scores(eta=P),
        "first label only": P[:, 0],
    }


def pareto_check_row(P_test: np.ndarray, Y_test: np.ndarray, g_test: np.ndarray, search: FusionSearch,
                     agg_scores: dict[str, np.ndarray], names: list[str],
                     ) -> tuple[dict[str, Any], list[dict]]:
    """Test-set behaviour of a validation frontier (a :class:`~bipartite.contrib.fusion.FusionSearch`)
    and fusion vs linear families over the same exponent grid (test gAUC vectors).

    Returns the check row (``n_candidates``, ``n_val_pareto``, the share of validation-Pareto
    exponents still Pareto on test, ``n_test_pareto``, the shares of each family's test frontier
    dominated by the other family, and whether loss / label aggregation are dominated by some
    fusion) and the ``"front"`` rows (one per candidate and family).
    """
    from bipartite.contrib.fusion import score_fusion
    from bipartite.pareto import pareto_filter

    cand = search.candidates
    S = score_fusion(P_test, cand)
    A_fus = np.array([_gauc_vector(Y_test, S[:, j], g_test) for j in range(len(cand))])
    L = P_test @ cand.T  # linear family Σ a_k p_k over the same simplex grid
    A_lin = np.array([_gauc_vector(Y_test, L[:, j], g_test) for j in range(len(cand))])
    fus, lin = np.nan_to_num(A_fus, nan=-1.0), np.nan_to_num(A_lin, nan=-1.0)
    test_pareto = np.asarray(pareto_filter(fus), dtype=bool)
    lin_pareto = np.asarray(pareto_filter(lin), dtype=bool)
    row: dict[str, Any] = {
        "n_candidates": len(cand),
        "n_val_pareto": len(search.pareto_index),
        "val_pareto_still_pareto_on_test": float(np.mean(test_pareto[search.pareto_index])),
        "n_test_pareto": int(test_pareto.sum()),
        "fusion_front_dominated_by_linear": float(np.mean(
            [_dominated_by(a, lin) for a in fus[test_pareto]])),
        "linear_front_dominated_by_fusion": float(np.mean(
            [_dominated_by(a, fus) for a in lin[lin_pareto]])),
    }
    for name in ("loss aggregation (a=1)", "label aggregation (sum)"):
        a = _gauc_vector(Y_test, agg_scores[name], g_test)
        key = name.split(" (")[0].replace(" ", "_")
        row[f"{key}_dominated_by_fusion"] = _dominated_by(a, fus)
    val_pareto = np.zeros(len(cand), dtype=bool)
    val_pareto[search.pareto_index] = True
    front = []
    for family, A, pareto in (("fusion", A_fus, test_pareto), ("linear", A_lin, lin_pareto)):
        for j in range(len(cand)):
            front.append({"kind": "front", "family": family, "candidate": j,
                          "gamma": json.dumps(np.round(cand[j], 4).tolist()),
                          **{f"gauc_{n}": float(A[j, k]) for k, n in enumerate(names)},
                          "test_pareto": bool(pareto[j]),
                          "val_pareto": bool(val_pareto[j]) if family == "fusion" else False})
    return row, front


def _aggregation_rows(P_val, Y_val, g_val, P_test, Y_test, g_test, prior, names, resolution, *,
                      depth: bool) -> tuple[list[dict], dict[str, np.ndarray], Any]:
    search = _search(P_val, Y_val, g_val, resolution)
    gamma = search.best()
    scores = aggregate_scores(P_test, gamma, prior)
    rows = []
    for sname, score in scores.items():
        row = {"kind": "aggregation", "scorer": sname,
               **label_metrics(Y_test, score, g_test, names)}
        if depth:
            row["ndcg10_depth"] = _ndcg_depth(Y_test, score, g_test)
        row["gamma"] = (json.dumps(np.round(gamma, 3).tolist())
                        if sname == "fusion (searched γ)" else "")
        rows.append(row)
    return rows, scores, search


# ----------------------------------------------------------------------------------------------
# Synthetic nested behaviours
# ----------------------------------------------------------------------------------------------


def _fit_models(X, Y, seed: int, epochs: int) -> dict[str, Any]:
    from bipartite.contrib.multitask import MultiTaskMLP

    K = Y.shape[1]
    common = {"epochs": epochs, "batch_size": 256, "random_state": seed, "device": "cpu"}
    return {
        "shared-bottom": MultiTaskMLP(tasks=K, architecture="shared_bottom", hidden=(64, 32),
                                      **common).fit(X, Y),
        "MMoE": MultiTaskMLP(tasks=K, architecture="mmoe", n_experts=4, expert_hidden=(32,),
                             **common).fit(X, Y),
        "single-task": [MultiTaskMLP(tasks=1, architecture="shared_bottom", hidden=(64, 32),
                                     **common).fit(X, Y[:, [k]]) for k in range(K)],
    }


def _predict(model: Any, X: np.ndarray) -> np.ndarray:
    if isinstance(model, list):
        return np.column_stack([m.predict_proba(X)[:, 0] for m in model])
    return model.predict_proba(X)


@register_study("mtrub.synthetic", figures=synthetic_figures,
                constraints={"n_train": Range(1, integer=True), "n_val": Range(1, integer=True), "n_test": Range(1, integer=True),
                             "epochs": Range(1, integer=True), "resolution": Range(1, integer=True)})
def mtrub_synthetic(*, seed: int, n_train: int = 1500, n_val: int = 500, n_test: int = 500,
                    epochs: int = 40, resolution: int = 15) -> list[dict]:
    """One replicate of the MTRUB study on synthetic nested behaviours (docs/theory.md §11).

    Draws train / validation / test query sets of ``n_train``, ``n_val``, ``n_test`` queries
    (:func:`bipartite.contrib.fusion.make_nested_behaviour`, one generator seeded with ``seed``),
    fits shared-bottom and MMoE :class:`~bipartite.contrib.multitask.MultiTaskMLP` and one
    single-task MLP per label (``epochs``, ``random_state=seed``), and returns

    * ``"head"`` rows: each label ranked by its own head (test AUC, gAUC, nDCG@10);
    * ``"aggregation"`` rows for the MMoE probabilities and the exact η
      (``probabilities`` = ``"MMoE"`` / ``"exact η"``): fusion with exponents searched for
      Pareto-optimal validation gAUCs on the simplex grid of ``resolution``
      (:func:`bipartite.contrib.fusion.pareto_search`, :meth:`FusionSearch.best`), uniform
      fusion, loss aggregation (a = 1), label aggregation (sum), first label only; also
      ``ndcg10_depth``, nDCG@10 with the engagement depth Y_click + Y_valid + Y_long as grade;
    * ``"check"`` and ``"front"`` rows of :func:`pareto_check_row` for both sources.

    >>> rows = mtrub_synthetic(seed=0, n_train=40, n_val=20, n_test=20, epochs=1, resolution=2)
    >>> sorted({r["kind"] for r in rows})
    ['aggregation', 'check', 'front', 'head']
    """
    from bipartite.contrib.fusion import make_nested_behaviour

    rng = np.random.default_rng(seed)
    tr, va, te = (make_nested_behaviour(n, seed=rng) for n in (n_train, n_val, n_test))
    names = list(tr.label_names)
    models = _fit_models(tr.X, tr.Y, seed, epochs)
    rows: list[dict] = []
    probs = {}
    for mname, model in models.items():
        probs[mname] = (_predict(model, va.X), _predict(model, te.X))
        P = probs[mname][1]
        for k, lname in enumerate(names):
            m = label_metrics(te.Y[:, [k]], P[:, k], te.groups, [lname])
            rows.append({"kind": "head", "model": mname, "label": lname,
                         "auc": m[f"auc_{lname}"], "gauc": m[f"gauc_{lname}"],
                         "ndcg10": m[f"ndcg10_{lname}"]})
    sources = (("MMoE", *probs["MMoE"], tr.Y.mean(axis=0)),
               ("exact η", va.eta, te.eta, tr.eta.mean(axis=0)))
    for source, P_val, P_test, prior in sources:
        agg, scores, search = _aggregation_rows(P_val, va.Y, va.groups, P_test, te.Y, te.groups,
                                                prior, names, resolution, depth=True)
        check, front = pareto_check_row(P_test, te.Y, te.groups, search, scores, names)
        extra = {"dataset": "synthetic", "probabilities": source}
        rows += [{**r, **extra} for r in agg]
        rows.append({"kind": "check", **extra, **check})
        rows += [{**r, **extra} for r in front]
    return rows


# ----------------------------------------------------------------------------------------------
# Banking
# ----------------------------------------------------------------------------------------------


@register_study("mtrub.banking", figures=banking_figures,
                constraints={"epochs": Range(1, integer=True), "resolution": Range(1, integer=True), "list_size": Range(1, integer=True)})
def mtrub_banking(*, seed: int, path: str, epochs: int = 80, resolution: int = 8,
                  list_size: int = LIST_SIZE) -> list[dict]:
    """One replicate of the MTRUB aggregation comparison on Banking (docs/theory.md §10, §11).

    Loads ``path`` (:func:`bipartite.data.load_bank_personal_loan`; features ``X_all`` drop the five binary
    label columns and Mortgage: no label leakage), splits the rows 60/20/20 with a generator
    seeded with ``seed``, and partitions validation and test rows into random lists of
    ``list_size`` customers (the groups of gAUC and nDCG@10). For the MMoE and shared-bottom
    :class:`~bipartite.contrib.multitask.MultiTaskMLP` (``epochs``): ``"aggregation"`` rows
    (``model``, ``scorer``; the scorers of :func:`aggregate_scores` and each ``own head: <label>``)
    and, for MMoE, the ``"check"`` and ``"front"`` rows of :func:`pareto_check_row`
    (simplex grid of ``resolution``).
    """
    from bipartite.contrib.multitask import MultiTaskMLP
    from bipartite.data import load_bank_personal_loan

    data = load_bank_personal_loan(path)
    X = np.asarray(data.X_all, dtype=float)
    Y = np.asarray(data.Y_all, dtype=int)[:, :5]
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(X))
    n_tr, n_va = int(0.6 * len(X)), int(0.2 * len(X))
    tr, va, te = perm[:n_tr], perm[n_tr:n_tr + n_va], perm[n_tr + n_va:]
    g_va, g_te = (rng.permutation(n) // list_size for n in (len(va), len(te)))
    names = list(BANKING_LABELS)
    rows: list[dict] = []
    for arch in ("mmoe", "shared_bottom"):
        model = MultiTaskMLP(tasks=5, architecture=arch, epochs=epochs, hidden=(64, 32),
                             expert_hidden=(32,), random_state=seed, device="cpu").fit(X[tr], Y[tr])
        P_va, P_te = model.predict_proba(X[va]), model.predict_proba(X[te])
        agg, scores, search = _aggregation_rows(P_va, Y[va], g_va, P_te, Y[te], g_te,
                                                Y[tr].mean(axis=0), names, resolution,
                                                depth=False)
        for k, lname in enumerate(names):
            agg.append({"kind": "aggregation", "scorer": f"own head: {lname}",
                        **label_metrics(Y[te], P_te[:, k], g_te, names), "gamma": ""})
        extra = {"dataset": "banking", "model": arch}
        rows += [{**r, **extra} for r in agg]
        if arch == "mmoe":
            check, front = pareto_check_row(P_te, Y[te], g_te, search, scores, names)
            extra = {**extra, "probabilities": arch}
            rows.append({"kind": "check", **extra, **check})
            rows += [{**r, **extra} for r in front]
    return rows
