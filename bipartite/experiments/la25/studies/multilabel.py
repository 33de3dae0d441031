"""Label dictatorship and balance on real multi-label benchmarks, K = 6 to 174 (docs/theory.md
§4, §7, §13; the Mulan sets of ``../shared/data/README.md`` §5).

The study ``la25.multilabel`` fits one objective with one learner on one split of one data set,
and measures every kept label's test AUC. Its tables and figures
(:mod:`bipartite.experiments.la25.figures.multilabel`) answer:

* does loss aggregation with ``a = 1`` (the usual macro-AUC objective) hand the ranking to the
  labels with the largest effective weights ``α_k = 1 / (π_k (1 − π_k))``? (rank correlation of
  ``α_k`` with each label's gain, with a permutation p-value);
* the cross-pair win rates ``W_{k>j}`` of the most and the least skewed kept labels;
* does max-min raise the worst label's AUC, and what does it cost in macro-AUC?
* does label aggregation by sum behave like loss aggregation with ``a_k = π_k (1 − π_k)``, as
  their equal Bayes scorers ``Σ_k η_k`` say (docs/theory.md §5)?

Objectives (:data:`MULTILABEL_OBJECTIVES`): ``single`` (each label alone, one scorer per label;
only when K ≤ :data:`SINGLE_LABEL_MAX_K`), ``macro`` (loss aggregation, a = 1),
``variance_weighted`` (loss aggregation, ``a_k = π̂_k (1 − π̂_k)`` from the training rows),
``sum`` (label aggregation Ȳ = Σ_k Y_k, linear costs), ``or`` and ``and`` (binary label
aggregation; each only where at least :data:`MIN_POSITIVES` training and test rows are positive
and as many negative: ``and`` is almost always 0, and ``or`` is 1 on every row of a set whose rows
all have a label), ``max_min`` (group DRO over the per-label pairwise losses) and ``max_min_plugin``
(η̂ heads, then the weighting that maximises the held-out min AUC).

**Label rule.** A label is kept when it has at least :data:`MIN_POSITIVES` positive *and*
negative rows in the training part and in the test part of the split; the others are left out
of every objective of that split (fitted and scored on the kept labels only), and every row
records ``n_labels`` (K of the set), ``n_kept`` and ``n_dropped``. The rule depends on the split
only, so every objective and learner of a split sees the same labels.

**Splits.** ``split = -1`` is Mulan's standard train/test split (CAL500 has none: its ``-1`` is a
seeded 70/30 split, flagged ``standard=False``); ``split = r ≥ 0`` is random re-split r (70/30,
seeded by the data set's name and r, so every learner and objective of a re-split sees the same
rows).
"""

from __future__ import annotations

import time
import warnings
import zlib

import numpy as np

from bipartite.experiments.la25.figures.multilabel import multilabel_figures
from bipartite.labels import AGGREGATIONS
from bipartite.studies.config import register_study
from bipartite.studies.constraints import OneOf, Range

__all__ = ["MIN_POSITIVES", "MULTILABEL_DATASETS", "MULTILABEL_LEARNERS",
           "MULTILABEL_OBJECTIVES", "PSI_OBJECTIVES", "SINGLE_LABEL_MAX_K", "kept_labels", "la25_multilabel",
           "multilabel_config", "multilabel_split", "skip_reason"]

#: The seven Mulan benchmarks, by number of labels.
MULTILABEL_DATASETS = ("emotions", "scene", "yeast", "birds", "medical", "enron", "cal500")
#: The study's name of an aggregation map ψ of :data:`bipartite.labels.AGGREGATIONS` where it is not
#: the table's own (AND is ``"product"`` there).
_PSI_NAMES = {"product": "and"}
#: The label-aggregation objectives: the study's name -> its ψ (a key of
#: :data:`bipartite.labels.AGGREGATIONS`), one per entry of the table.
PSI_OBJECTIVES: dict[str, str] = {_PSI_NAMES.get(psi, psi): psi for psi in AGGREGATIONS}
MULTILABEL_OBJECTIVES = ("single", "macro", "variance_weighted", *PSI_OBJECTIVES, "max_min",
                         "max_min_plugin")
MULTILABEL_LEARNERS = ("linear", "mlp", "xgb")
#: Fewest positive (and negative) rows a label needs in the training part and in the test part.
MIN_POSITIVES = 10
#: ``single`` (one scorer per label) runs only up to this many kept labels.
SINGLE_LABEL_MAX_K = 14
#: Test fraction of the re-splits (and of CAL500's seeded "standard" split).
TEST_FRACTION = 0.3

#: Learner keyword arguments of each objective (before the learner's own hyperparameters).
_OBJECTIVE_KW: dict[str, dict] = {
    "macro": {"objective": "loss_aggregation"},
    "variance_weighted": {"objective": "loss_aggregation"},  # a set from the training priors
    **{name: {"objective": "label_aggregation", "aggregate": psi, "costs": "linear"}
       for name, psi in PSI_OBJECTIVES.items()},
    "max_min": {"objective": "max_min", "method": "pairwise"},
    "max_min_plugin": {"objective": "max_min", "method": "plugin"},
    "single": {"objective": "loss_aggregation"},
}


def multilabel_split(dataset: str, split: int, *, data: str | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str], bool]:
    """``(X_train, Y_train, X_test, Y_test, label_names, standard)`` of one split of a Mulan set
    (module docstring): ``split = -1`` the standard split, ``r ≥ 0`` seeded re-split r."""
    from bipartite.data import load_mulan

    if isinstance(split, bool) or not isinstance(split, int | np.integer) or split < -1:
        raise ValueError(f"The 'split' parameter must be an integer >= -1, got {split!r}.")
    name = dataset.lower()
    if split == -1 and name != "cal500":
        train = load_mulan(name, split="train", data_home=data)
        test = load_mulan(name, split="test", data_home=data)
        return (train.X, train.Y, test.X, test.Y, list(train.label_names), True)
    full = load_mulan(name, data_home=data)
    rng = np.random.default_rng([zlib.crc32(name.encode()), split + 1])
    n = len(full.X)
    perm = rng.permutation(n)
    n_test = int(round(TEST_FRACTION * n))
    te, tr = np.sort(perm[:n_test]), np.sort(perm[n_test:])
    return (full.X[tr], full.Y[tr], full.X[te], full.Y[te], list(full.label_names),
            split >= 0)


def kept_labels(Y_train: np.ndarray, Y_test: np.ndarray, min_count: int = MIN_POSITIVES
                ) -> np.ndarray:
    """Indices of the labels with at least ``min_count`` positive and negative rows in both parts
    (the label rule of the module docstring)."""
    counts = []
    for Y in (Y_train, Y_test):
        pos = Y.sum(axis=0)
        counts += [pos, len(Y) - pos]
    return np.flatnonzero(np.all(np.stack(counts) >= min_count, axis=0))


def skip_reason(objective: str, Y_train: np.ndarray, Y_test: np.ndarray) -> str | None:
    """Why ``objective`` is not run on a split whose kept labels are the columns of ``Y_train``
    and ``Y_test`` (module docstring), or None: no kept label; ``single`` past
    :data:`SINGLE_LABEL_MAX_K` kept labels; a binary ψ (``and``, ``or``) whose label ``Ȳ`` has fewer
    than :data:`MIN_POSITIVES` positive or negative rows in a part."""
    n_kept = Y_train.shape[1]
    if n_kept == 0:
        return f"no label has {MIN_POSITIVES} positive and negative rows in both parts"
    if objective == "single" and n_kept > SINGLE_LABEL_MAX_K:
        return f"{n_kept} kept labels > SINGLE_LABEL_MAX_K = {SINGLE_LABEL_MAX_K}"
    psi = AGGREGATIONS[PSI_OBJECTIVES[objective]] if objective in PSI_OBJECTIVES else None
    if psi is not None and psi.binary:  # Ȳ in {0, 1}: the label's positive rows are Ȳ = 1
        binary = [psi.map(np.asarray(Y, dtype=np.float64), None) > 0 for Y in (Y_train, Y_test)]
        pos = min(int(b.sum()) for b in binary)
        neg = min(int((~b).sum()) for b in binary)
        if min(pos, neg) < MIN_POSITIVES:
            return (f"{objective.upper()} of the {n_kept} kept labels has "
                    f"{pos if pos < MIN_POSITIVES else neg} < {MIN_POSITIVES} "
                    f"{'positive' if pos < MIN_POSITIVES else 'negative'} rows in a part")
    return None


def _learner(learner: str, objective: str, seed: int, epochs: int, n_estimators: int):
    """The §7 learner (:func:`~bipartite.experiments.la25.studies.section7.make_learner`: the
    same hyperparameters) set to ``objective``."""
    from bipartite.experiments.la25.studies.section7 import make_learner

    base = {"max_min": "max_min", "max_min_plugin": "max_min_plugin"}.get(
        objective, "loss_aggregation")
    est = make_learner(learner, base, seed, epochs=epochs, n_estimators=n_estimators)
    kw = {k: v for k, v in _OBJECTIVE_KW[objective].items() if k not in ("objective", "method")}
    if _OBJECTIVE_KW[objective]["objective"] == "label_aggregation":
        est.set_params(objective="label_aggregation", **kw)
    return est


def _scores(est, X_train, Y_train, X_test) -> np.ndarray:
    return np.asarray(est.fit(X_train, Y_train).decision_function(X_test), dtype=np.float64)


@register_study("la25.multilabel", figures=multilabel_figures, constraints={
    "dataset": OneOf(MULTILABEL_DATASETS), "learner": OneOf(MULTILABEL_LEARNERS),
    "objective": OneOf(MULTILABEL_OBJECTIVES), "split": Range(-1, integer=True),
    "epochs": Range(1, None, integer=True), "n_estimators": Range(1, None, integer=True)})
def la25_multilabel(*, seed: int, dataset: str, split: int, learner: str, objective: str,
                    data: str | None = None, epochs: int = 40, n_estimators: int = 200
                    ) -> list[dict]:
    """Per-label test AUCs of one objective and learner on one split of a Mulan set (module
    docstring).

    Returns one row per kept label: ``dataset, split, standard, learner, objective, label,
    label_index, prior_train, prior_test, alpha_share`` (the label's share of loss
    aggregation's effective weights at the training priors), ``auc`` (its test AUC; for
    ``single``, the AUC of that label's own scorer) and the split's ``n_labels, n_kept,
    n_dropped``; and, repeated on every row of a joint objective, ``min_auc, diff_auc,
    macro_auc, micro_auc`` and the cross-pair win rates ``win_rare_common`` /
    ``win_common_rare`` (``W_{k>j}`` and ``W_{j>k}`` of the kept label k with the smallest
    prior and j with the prior closest to ½; NaN when no row has k without j or j without k), and
    ``fit_s``. A skipped objective (``single`` past :data:`SINGLE_LABEL_MAX_K` kept labels,
    ``and``/``or`` with too few positive or negative rows) returns one row with ``skipped`` saying
    why.
    """
    from bipartite.dictatorship import cross_pair_win_rate, effective_weight_shares
    from bipartite.metrics import auc, diff_auc, min_auc, multilabel_auc

    Xtr, Ytr, Xte, Yte, names, standard = multilabel_split(dataset, split, data=data)
    K = Ytr.shape[1]
    keep = kept_labels(Ytr, Yte)
    base = {"dataset": dataset, "split": int(split), "standard": bool(standard),
            "learner": learner, "objective": objective, "n_labels": K, "n_kept": len(keep),
            "n_dropped": K - len(keep)}
    Ytr, Yte = Ytr[:, keep], Yte[:, keep]
    skipped = skip_reason(objective, Ytr, Yte)
    if skipped is not None:
        return [{**base, "skipped": skipped}]
    pi = Ytr.mean(axis=0)
    shares = effective_weight_shares(pi)
    rng = np.random.default_rng(seed)
    est_seed = int(rng.integers(2**31))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter of small data
        if objective == "single":
            S = np.column_stack([
                _scores(_learner(learner, "single", est_seed, epochs, n_estimators),
                        Xtr, Ytr[:, [k]], Xte) for k in range(len(keep))])
            aucs = np.array([auc(Yte[:, k], S[:, k]) for k in range(len(keep))])
            joint = {}
        else:
            est = _learner(learner, objective, est_seed, epochs, n_estimators)
            if objective == "variance_weighted":
                est.set_params(a=pi * (1 - pi))
            s = _scores(est, Xtr, Ytr, Xte)
            aucs = multilabel_auc(Yte, s)
            rare = int(np.argmin(pi))
            common = int(np.argmin(np.abs(pi - 0.5)))
            win = (np.nan, np.nan)
            if rare != common:
                k_only = (Yte[:, rare] == 1) & (Yte[:, common] == 0)
                j_only = (Yte[:, common] == 1) & (Yte[:, rare] == 0)
                if k_only.any() and j_only.any():
                    w = cross_pair_win_rate(Yte, s, rare, common)
                    win = (w, 1.0 - w)
            joint = {"min_auc": min_auc(aucs), "diff_auc": diff_auc(aucs),
                     "macro_auc": float(np.mean(aucs)),
                     "micro_auc": auc(Yte.ravel(), np.repeat(s, Yte.shape[1])),
                     "win_rare_common": float(win[0]), "win_common_rare": float(win[1]),
                     "rare_label": names[keep[rare]], "common_label": names[keep[common]]}
    fit_s = time.perf_counter() - start
    return [{**base, "label": names[keep[i]], "label_index": int(keep[i]),
             "prior_train": float(pi[i]), "prior_test": float(Yte[:, i].mean()),
             "alpha_share": float(shares[i]), "auc": float(aucs[i]), **joint,
             "fit_s": fit_s, "skipped": ""} for i in range(len(keep))]


#: Data sets, splits, learners and sizes of each reproduce size (the study's config). Quick keeps
#: three small sets (K = 6, 14, 19), two splits and the linear and XGBoost learners.
_SIZES = {
    "smoke": {"datasets": ["emotions"], "splits": [-1], "learners": ["linear"],
              "objectives": ["macro", "sum", "max_min"], "epochs": 3, "n_estimators": 5},
    "quick": {"datasets": ["emotions", "yeast", "birds"], "splits": [-1, 0],
              "learners": ["linear", "xgb"], "objectives": list(MULTILABEL_OBJECTIVES),
              "epochs": 40, "n_estimators": 30},
    "full": {"datasets": list(MULTILABEL_DATASETS), "splits": [-1, 0, 1, 2, 3, 4],
             "learners": list(MULTILABEL_LEARNERS), "objectives": list(MULTILABEL_OBJECTIVES),
             "epochs": 40, "n_estimators": 100},
}


def multilabel_config(size: str, folder: str | None) -> dict | None:
    """The ``la25.multilabel`` study config of a reproduce ``size`` (smoke / quick / full) on the
    data folder ``folder`` (the Mulan files in ``folder/multilabel``), or None when the folder
    holds none of the size's sets. Full: the seven sets, the standard split and five re-splits,
    the linear, MLP and XGBoost learners (100 trees), every objective."""
    from bipartite.data import data_dir

    spec = _SIZES[size]
    try:
        root = data_dir(folder)
    except (OSError, ValueError):
        return None
    have = [d for d in spec["datasets"]
            if any((root / "multilabel" / f"{stem}{ext}").exists()
                   for stem in (d, f"{d}-train", "CAL500" if d == "cal500" else d)
                   for ext in (".arff", ".arff.gz"))]
    if not have:
        return None
    return {"study": {"function": "la25.multilabel", "seed": 720, "replicates": 1,
                      "paired_seeds": True},
            "params": {"data": str(root.resolve()), "epochs": spec["epochs"],
                       "n_estimators": spec["n_estimators"]},
            "grid": {"dataset": have, "split": spec["splits"], "learner": spec["learners"],
                     "objective": spec["objectives"]}}
