"""The PyTorch MLP ranker (docs/theory.md §10).
"""


from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from bipartite.labels import cost_matrix
from bipartite.learners.base import (
    JOINT_MAX_LABELS,
    MLP_METHODS,
    SURROGATES,
    RankerMixin,
    batch_pair_weights,
    check_comparable_levels,
    check_objective,
    label_codes,
    plugin_ranking_scores,
    quiet_criterion,
    split_validation,
)
from bipartite.learners.maxmin import (
    DRO_STEP,
    MultiplicativeWeights,
    head_criterion,
    max_min_weights,
    per_label_pair_losses,
)
from bipartite.learners.nets import make_mlp
from bipartite.learners.torch_estimator import TorchEstimator, in_range, one_of, positive
from bipartite.metrics import QueryRows
from bipartite.population import label_vectors


# ---------------------------------------------------------------------------------------------
# MLP (PyTorch)
# ---------------------------------------------------------------------------------------------
def _group_batches(
    groups: np.ndarray, batch_size: int, rng: np.random.Generator, *, pool: int = 64
) -> list[np.ndarray]:
    """Pack whole groups into padded index matrices [G, m] (-1 = padding), in random order.

    Size bucketing: the groups are shuffled, cut into pools of about ``pool * batch_size`` rows,
    and each pool is sorted by group size before being packed greedily into batches of at most
    ``batch_size`` rows (a group larger than ``batch_size`` forms a batch of its own); the batch
    order is then shuffled. Groups of similar size share a batch, so little padding is computed
    (MSLR-shaped queries range from 2 to ~400 rows: without bucketing, a 4096-row batch is ~3x
    padding in rows and ~6x in pairs). Every group appears in exactly one batch per call.
    """
    rows_of = QueryRows(groups, check_input=False)  # the groups holding a row: 0..Q-1 below
    order, counts, starts = rows_of.order, rows_of.sizes, rows_of.starts
    perm = rng.permutation(len(counts))
    # pools of consecutive shuffled groups, each sorted by size (stable: ties keep the shuffle)
    pool_id = np.cumsum(counts[perm]) // max(int(pool) * int(batch_size), 1)
    perm = perm[np.lexsort((counts[perm], pool_id))]
    sizes = counts[perm]
    batches, first, rows = [], 0, 0
    for i, c in enumerate(sizes.tolist()):
        if i > first and rows + c > batch_size:
            batches.append(perm[first:i])
            first, rows = i, 0
        rows += c
    if len(perm) > first:
        batches.append(perm[first:])
    out = []
    for b in rng.permutation(len(batches)):
        gs = batches[b]
        lengths = counts[gs]
        total = int(lengths.sum())
        offsets = np.repeat(np.cumsum(lengths) - lengths, lengths)
        col = np.arange(total) - offsets
        idx = np.full((len(gs), int(lengths.max())), -1, dtype=np.int64)
        rows = order[np.repeat(starts[gs], lengths) + col]
        idx[np.repeat(np.arange(len(gs)), lengths), col] = rows
        out.append(idx)
    return out


def _stored_levels(ybar: np.ndarray, costs) -> tuple[np.ndarray, np.ndarray]:
    """The levels of Ȳ as the float32 training tensor holds them (as float64), and the cost
    matrix over the exact levels, in the same order. The pair weights locate each stored ȳ among
    the levels by a sorted search, so the levels must be the float32 values themselves: a weighted
    sum such as w = (0.4, 1.6) stores 0.4 as 0.4000000059…, which the exact level 0.4 would place
    at the next level up. Validates a user cost matrix's shape (the batches use it as is)."""
    exact = np.unique(ybar)
    stored = np.unique(np.asarray(ybar, dtype=np.float32)).astype(np.float64)
    if len(stored) != len(exact):
        raise ValueError(f"The aggregated label has {len(exact)} distinct levels, of which "
                         f"float32 keeps only {len(stored)}: rescale the label weights 'w'.")
    return stored, cost_matrix(exact, costs)


def _column_moments(X: np.ndarray, block: int = 65536) -> tuple[np.ndarray, np.ndarray]:
    """Column means and standard deviations in float64, by row blocks (two passes).

    Equal to ``X.mean(axis=0, dtype=float64)`` and ``X.std(axis=0, dtype=float64)`` up to
    rounding (deviations from the mean are formed in X's dtype), without the full-size float64
    temporary that ``std`` allocates (2.4 GB on an MSLR-sized float32 X).
    """
    n = X.shape[0]
    mean = np.zeros(X.shape[1])
    for start in range(0, n, block):
        mean += X[start : start + block].sum(axis=0, dtype=np.float64)
    mean /= n
    if not (np.isfinite(mean).all() and np.abs(mean).max(initial=0.0) < 1e150):
        return _rescaled_column_moments(X, block)
    ss = np.zeros(X.shape[1])
    centre = mean.astype(X.dtype)  # deviations in X's precision, sums of squares in float64
    for start in range(0, n, block):
        d = X[start : start + block] - centre
        ss += np.square(d, out=d).sum(axis=0, dtype=np.float64)
    if not np.isfinite(ss).all():
        return _rescaled_column_moments(X, block)
    return mean, np.sqrt(ss / n)


def _rescaled_column_moments(X: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_column_moments` of ``X / max|X|`` per column, scaled back: for features near the
    float64 range (|x| >= ~1e154), whose sums of squares overflow into inf (constant scores)."""
    amax = np.zeros(X.shape[1])
    for start in range(0, X.shape[0], block):
        np.maximum(amax, np.abs(X[start : start + block]).max(axis=0), out=amax)
    amax = np.where(amax > 0, amax, 1.0)
    m, sd = _column_moments(X / amax, block)  # X is that large only in float64
    return m * amax, sd * amax


class MLPRanker(RankerMixin, TorchEstimator):
    """Multi-layer perceptron scorer for loss or label aggregation (docs/theory.md §4, §5, §9, §10).

    A ReLU MLP ``hidden`` → 1 output (pairwise, pointwise) or K / ``2**K`` outputs (plug-in heads),
    trained with Adam on standardised inputs, with early stopping on a validation split that
    monitors the objective's AUC criterion (:func:`ranking_criterion`) and keeps the best weights.

    Parameters
    ----------
    objective : {"loss_aggregation", "label_aggregation", "max_min"}
        ``"max_min"``: maximise ``min_k AUC_k`` (docs/theory.md §13.6). ``method="plugin"``
        trains the K heads (early stopping on the mean of the heads' validation AUCs), then
        chooses the mixing weights ``a_`` of ``Σ_k a_k η̂_k/(π̂_k(1−π̂_k))`` that maximise the
        min AUC on the validation split (exact K = 2 path, simplex grid for K ≥ 3;
        :func:`bipartite.learners.maxmin.max_min_weights`); ``method="pairwise"`` minimises
        ``K Σ_k q_k L_k`` over the per-label AUC-normalised pairwise losses with label weights
        ``q`` updated multiplicatively after every step (group DRO; ``dro_step``).
    method : {"pairwise", "pointwise", "plugin"}
        See the module docstring. ``"pointwise"`` needs label aggregation with linear costs.
    a : array-like of shape (K,), optional
        Mixing weights of loss aggregation (default all ones); only with
        ``objective="loss_aggregation"``.
    w : array-like of shape (K,), optional
        Label weights of the sum ``Ȳ = Σ_k w_k Y_k`` (default all ones); only with
        ``objective="label_aggregation"`` and ``aggregate="sum"``.
    aggregate : str or callable
        ψ for label aggregation: a name of :data:`bipartite.labels.AGGREGATIONS` or a callable of
        one label vector (docs/theory.md §5.1).
    costs : {"uniform", "linear", "squared", "gain"} or (L, L) array
        Multipartite costs for label aggregation (docs/theory.md §3).
    surrogate : {"logistic", "exponential", "hinge", "squared_hinge"}
        Pairwise surrogate φ(f_i − f_j) (method="pairwise").
    dro_step : float >= 0
        Step size η_q of the label weights, ``q_k ← q_k exp(η_q L_k)`` after every batch
        (``objective="max_min"``, ``method="pairwise"``; 0 keeps ``q`` uniform: the loss of
        loss aggregation with ``a = 1``, early-stopped on the min AUC). Default 0.05: see
        docs/theory.md §13.6.
    hidden : tuple of int
    epochs, batch_size, lr, weight_decay : training schedule (Adam).
        ``batch_size`` counts rows (whole queries with ``qid``). The default 512 suits ~10⁴
        rows; on MSLR-sized data (~2M rows) 2048 is 1.4-2.2x faster per epoch for the same
        validation criterion (``benchmarks/bench_learners.py``).
    validation_fraction : float in [0, 1)
        Share of rows (of queries when ``qid`` is given) held out for early stopping; 0 disables.
        With ``objective="max_min"`` and ``method="plugin"`` the same split chooses ``a_``
        (it must be > 0; 0.2-0.3 steadies the choice when a label is rare).
    n_iter_no_change : int
        Stop after this many epochs without improvement of the validation criterion.
    device : "auto", any torch device string ("cpu", "cuda", "cuda:1", "mps", ...) or a
        ``torch.device``. "auto" picks CUDA when available (the one resolver of every torch
        estimator, :class:`bipartite.learners.TorchEstimator`). A device that is not available
        here (no CUDA, a CUDA index beyond ``torch.cuda.device_count()``, MPS off) is refused at
        fit with a ``ValueError`` naming it. Training, and later ``decision_function``/``predict``, run on
        this device (the fitted one is ``device_``); the network is kept on the CPU between
        calls, so a fitted ranker pickles and loads anywhere.
    predict_batch_size : int
        Rows per forward pass in ``decision_function``/``predict`` and in the validation
        criterion (default 65 536): rows are standardised, moved to ``device_`` and scored one
        batch at a time, so peak memory is O(batch) beyond the input and the scores.
    n_jobs : int or None
        Torch CPU threads during fit/predict (None = 1, -1 = all cores); restored afterwards.
        Keep 1 on a shared machine: with 2 threads and the other core busy, torch's OpenMP
        barriers made epochs 14-32x slower (measured on 2 cores).
    random_state : None, int or numpy Generator
        Seeds the initial weights, the split and the batches: fits are reproducible on CPU.
    verbose : bool
        tqdm progress bar over epochs.
    max_joint_labels : int
        Size limit of the plug-in joint head (a ψ that needs the joint, ``2**K`` outputs),
        checked before building the net; default ``JOINT_MAX_LABELS = 12``.

    Pairwise batches: without ``qid``, a batch is ``batch_size`` random rows and every pair in it
    is weighted by the objective's pair weights (:mod:`bipartite.surrogates`); with ``qid``
    (query ids), a batch packs whole groups of similar size (:func:`_group_batches`) and only
    pairs inside a group count, normalised per group (per group and label for loss aggregation);
    the batch loss is divided by the epoch's mean number of groups per batch, so that over an
    epoch every group weighs the same (the uniform per-query criterion of
    :func:`ranking_criterion`).

    Query ids in model selection: ``fit(X, Y, qid=...)`` and ``score(X, Y, qid=...)`` take them
    (``groups=`` is a deprecated alias). ``cross_val_score(est, X, Y, groups=qid,
    cv=GroupKFold())`` gives ``groups`` to the splitter only: the ranker then trains and scores
    *without* queries. Route them instead (request defaults: ``qid`` not requested, an error if
    passed unrequested)::

        sklearn.set_config(enable_metadata_routing=True)
        est = MLPRanker().set_fit_request(qid=True).set_score_request(qid=True)
        cross_val_score(est, X, Y, cv=GroupKFold(), params={"groups": qid, "qid": qid})

    Scorers for ``scoring=`` (per-label AUC, gAUC, Min AUC, the criteria) are in
    :mod:`bipartite.learners.scoring`.

    Attributes
    ----------
    n_labels_ : int
    n_queries_ : int or None — number of query ids seen at fit (None: fitted without ``qid``)
    device_ : str — the torch device the ranker was fitted on (and predicts on)
    prior_ : ndarray (K,) — training label means (π̂, used by the plug-in combination)
    trained_labels_ : ndarray (K,) of bool — the labels the objective optimises. A label with a
        single class in the training rows (prior 0 or 1: its AUC is undefined there) is left out
        of loss aggregation and max-min, with a ``UserWarning`` naming it, before any training
        (:func:`bipartite.learners.base.trained_labels`); label aggregation keeps every label.
    n_epochs_ : int — epochs run
    best_epoch_ : int — the epoch whose parameters are kept
    best_score_ : float — its validation criterion (max-min plug-in: the mean of the heads' own
        validation AUCs)
    history_ : list of dict — per epoch: ``train_loss``, ``train_seconds`` (wall time of the
        epoch's updates) and, with a validation split, ``val_criterion`` and ``val_seconds``;
        ``dro_weights`` (q at the end of the epoch) for max-min pairwise
    a_ : ndarray (K,) — max-min plug-in: the chosen mixing weights (on the simplex)
    val_auc_ : ndarray (K,) — max-min plug-in: per-label validation AUC (gAUC with ``qid``) of
        the chosen scorer
    val_min_auc_ : float — max-min plug-in: the min of ``val_auc_``
    a_search_ : :class:`~bipartite.learners.maxmin.MaxMinChoice` — max-min plug-in: the search
    dro_weights_ : ndarray (K,) — max-min pairwise: the final label weights q
    dro_weights_mean_ : ndarray (K,) — max-min pairwise: q averaged over all steps

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> Y = (X + 0.5 * rng.normal(size=(300, 2)) > 0).astype(int)
    >>> est = MLPRanker(method="plugin", hidden=(8,), epochs=20, lr=0.01, random_state=0)
    >>> est = est.fit(X, Y)
    >>> est.decision_function(X).shape
    (300,)
    >>> bool(est.score(X, Y) > 0.8)
    True
    """

    def __init__(
        self,
        objective: str = "loss_aggregation",
        method: str = "pairwise",
        a: ArrayLike | None = None,
        w: ArrayLike | None = None,
        aggregate: str | Callable[[np.ndarray], float] = "sum",
        costs: str | ArrayLike = "linear",
        surrogate: str = "logistic",
        dro_step: float = DRO_STEP,
        hidden: tuple[int, ...] = (64, 64),
        epochs: int = 100,
        batch_size: int = 512,
        lr: float = 1e-3,
        weight_decay: float = 1e-5,
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 10,
        tol: float = 1e-4,
        device: str = "auto",
        predict_batch_size: int = 65536,
        n_jobs: int | None = None,
        random_state: int | np.random.Generator | None = None,
        verbose: bool = False,
        max_joint_labels: int = JOINT_MAX_LABELS,
    ):
        self.objective = objective
        self.method = method
        self.a = a
        self.w = w
        self.aggregate = aggregate
        self.costs = costs
        self.surrogate = surrogate
        self.dro_step = dro_step
        self.hidden = hidden
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.device = device
        self.predict_batch_size = predict_batch_size
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.max_joint_labels = max_joint_labels
        self.verbose = verbose

    # -- parameter checks (the shared ones: TorchEstimator) -------------------------------------
    _param_checks = {
        "surrogate": one_of(*SURROGATES),
        "predict_batch_size": positive(integer=True),
        "n_iter_no_change": positive(integer=True),
        "tol": positive(allow_zero=True),
        "validation_fraction": in_range(0, 1),
        "dro_step": positive(allow_zero=True),
    }

    def _check_param_relations(self) -> None:
        spec = check_objective(self, MLP_METHODS)
        if not spec.fixed_weights and self.method == "plugin" and self.validation_fraction == 0:
            raise ValueError(
                "The 'validation_fraction' parameter must be > 0 with objective='max_min' and "
                "method='plugin': the mixing weights a_ are chosen on the validation split.")

    def _standardise(self, X: np.ndarray) -> np.ndarray:
        """(X - mean_) / scale_ as float32, in row blocks through one float64 buffer (no full
        float64 copy of X; a small reused buffer stays in cache: ~2x faster than fresh
        temporaries, the same values)."""
        out = np.empty(X.shape, dtype=np.float32)
        rows = 4096
        buf = np.empty((min(rows, X.shape[0]), X.shape[1]))
        for start in range(0, X.shape[0], rows):
            block = X[start : start + rows]
            b = buf[: block.shape[0]]
            np.subtract(block, self.mean_, out=b)
            np.divide(b, self.scale_, out=b)
            out[start : start + rows] = b
        return out

    def _build(self, n_in: int, n_out: int, seed: int):
        return make_mlp(n_in, self.hidden, n_out, seed=seed)

    # -- losses --------------------------------------------------------------------------------
    def _batch_loss(self, out, idx, tensors, groups_per_batch: float = 1.0):
        """Loss of one batch.

        ``out``: network output for the rows of ``idx`` (flat), or, for a pairwise batch ``idx``
        of shape [G, m] (-1 = padding), for its valid entries ``idx[idx >= 0]`` in row-major
        order. The pairwise loss is the sum of the per-group normalised losses divided by
        ``groups_per_batch``, the epoch's mean number of groups per batch: summed over an epoch,
        every group then weighs the same whatever the batch it lands in (the uniform per-query
        weighting of :func:`ranking_criterion`), even though size bucketing
        (:func:`_group_batches`) puts many small or few large groups in a batch.
        """
        import torch

        from bipartite import surrogates

        if self.method == "pointwise":
            return torch.mean((out[:, 0] - tensors["ybar"][idx]) ** 2)
        if self.method == "plugin":
            if tensors["joint"]:
                return torch.nn.functional.cross_entropy(out, tensors["codes"][idx])
            return torch.nn.functional.binary_cross_entropy_with_logits(out, tensors["Y"][idx])
        # pairwise: idx is [G, m] with -1 padding; scores of the valid entries, 0 on padding
        where = idx >= 0
        safe = idx.clamp(min=0)
        s = torch.zeros(idx.shape, dtype=out.dtype, device=out.device).masked_scatter(
            where, out[:, 0]
        )
        spec = tensors["spec"]
        if not spec.fixed_weights:
            # group DRO: K Σ_k q_k L_k with q fixed during the step (updated after it, in fit)
            L, ok = per_label_pair_losses(s, tensors["Y"][safe], where,
                                          surrogates.make_pair_loss(self.surrogate))
            dro = tensors["dro"]
            dro.pending = (L.detach(), ok)
            q = torch.as_tensor(dro.q, dtype=L.dtype, device=L.device)
            return len(q) * torch.sum(q * L)
        # The objective's pair weights, factored (no n x n matrix beyond the loss's chunks), on
        # data validated once in fit; the costs over the training set's levels (a batch holds a
        # subset of them: the same weights).
        ybar = tensors["ybar"]
        W = batch_pair_weights(tensors["Y"][safe], None if ybar is None else ybar[safe],
                               where=where, a=tensors["a"], levels=tensors["levels"],
                               costs=tensors["costs"])
        # W sums to the objective's mass per group: sum over pairs, mean over groups.
        loss = surrogates.pairwise_loss(
            s, None, kind=self.surrogate, pair_weights=W, where=where, reduction="sum",
            check_input=False,
        )
        return loss / groups_per_batch

    def _forward_scores(self, net, X, device=None) -> np.ndarray:
        """Raw network outputs (n, n_out) as float64 numpy, in eval mode, no grad, in batches of
        ``predict_batch_size`` rows. ``X``: a standardised tensor already on the net's device
        (fit), or raw features as numpy (predict: each batch is standardised and moved to
        ``device``)."""
        import torch

        batch = int(self.predict_batch_size)
        net.eval()
        outs = []
        with torch.no_grad():
            for start in range(0, X.shape[0], batch):
                xb = X[start : start + batch]
                if isinstance(xb, np.ndarray):
                    xb = torch.as_tensor(self._standardise(xb), device=device)
                outs.append(net(xb).double().cpu().numpy())
        net.train()
        return np.concatenate(outs, axis=0) if outs else np.zeros((0, 1))

    def _combine(self, raw: np.ndarray) -> np.ndarray:
        """Network outputs -> ranking scores (identity, or the plug-in closed form)."""
        if self.method != "plugin":
            return raw[:, 0]
        if self.joint_head_:
            z = raw - raw.max(axis=1, keepdims=True)  # stable softmax
            P = np.exp(z)
            P /= P.sum(axis=1, keepdims=True)
            eta = P @ label_vectors(self.n_labels_)
            return plugin_ranking_scores(eta, P, self.prior_, self._plugin_spec())
        eta = 1.0 / (1.0 + np.exp(-raw))
        return plugin_ranking_scores(eta, None, self.prior_, self._plugin_spec(),
                                     getattr(self, "trained_labels_", None))

    def _monitor(self, Y: np.ndarray, raw: np.ndarray, spec: dict, qid) -> float:
        """Validation criterion of an epoch: the objective's (:func:`ranking_criterion`), or, for
        the max-min plug-in heads (whose mixing weights are chosen after training), the mean of
        the heads' own AUCs."""
        if not spec.fixed_weights and self.method == "plugin":
            return head_criterion(Y, 1.0 / (1.0 + np.exp(-raw)), qid)
        return quiet_criterion(Y, self._combine(raw), spec, qid)

    # -- fit / predict -------------------------------------------------------------------------
    def fit(self, X: ArrayLike, Y: ArrayLike, qid: ArrayLike | None = None, *, groups: ArrayLike | None = None) -> MLPRanker:
        """Fit on features X (n, d), binary labels Y (n, K), optional query ids ``qid`` (n,).

        ``groups`` is a deprecated alias of ``qid`` (FutureWarning).
        """
        import torch
        from tqdm.auto import tqdm

        with self._fitting() as fit:  # parameters, device_, threads, the seeded Generator
            X, Y, qid = self._validate_fit_input(X, Y, qid, groups)  # qid: validated codes
            n, K = Y.shape
            rng, dev, seed = fit.rng, fit.device, fit.torch_seed()
            spec = self._fit_labels(Y)  # single-class labels: left out, with a warning
            self.mean_, scale = _column_moments(X)
            self.scale_ = np.where(scale > 0, scale, 1.0)
            n_out = 2**K if self.joint_head_ else (K if self.method == "plugin" else 1)
            tr, va = split_validation(n, qid, float(self.validation_fraction), rng)
            Xt = torch.as_tensor(self._standardise(X), device=dev)
            ybar = spec.aggregated_labels(Y)  # None: the K labels themselves are ranked
            levels = costs = a = None
            if ybar is not None:
                check_comparable_levels(ybar, qid)
                levels, costs = _stored_levels(ybar, self.costs)
            elif spec.fixed_weights and spec.mixing_weights(K) is not None:  # None: all ones
                a = torch.as_tensor(spec.mixing_weights(K), dtype=torch.float32, device=dev)
            tensors = {
                "spec": spec,
                "Y": torch.as_tensor(Y, dtype=torch.float32, device=dev),
                "ybar": None if ybar is None else torch.as_tensor(ybar, dtype=torch.float32,
                                                                   device=dev),
                "codes": torch.as_tensor(label_codes(Y), device=dev) if self.joint_head_ else None,
                "joint": self.joint_head_,
                "levels": levels,
                "costs": costs,
                "a": a,
            }
            dro = None
            if not spec.fixed_weights and self.method == "pairwise":
                dro = tensors["dro"] = MultiplicativeWeights(K, self.dro_step)
            net = self._build(X.shape[1], n_out, seed).to(dev)
            opt = torch.optim.Adam(net.parameters(), lr=self.lr, weight_decay=self.weight_decay)
            monitor = len(va) > 0
            best, best_state, best_epoch, stall = -np.inf, None, 0, 0
            self.history_ = []
            self.net_ = net
            bar = tqdm(range(self.epochs), disable=not self.verbose, desc="MLPRanker", leave=False)
            for epoch in bar:
                t_epoch = time.perf_counter()
                batches = self._epoch_batches(tr, qid, rng)
                # mean queries per batch (pairwise with qid; 1 otherwise), see _batch_loss
                per_batch = sum(b.shape[0] for b in batches) / max(len(batches), 1)
                # summed on the device: a float() per batch would wait for the GPU every step
                total = torch.zeros((), device=dev,  # MPS has no float64
                                    dtype=torch.float32 if dev.type == "mps" else torch.float64)
                for idx_np in batches:
                    idx = torch.as_tensor(idx_np, device=dev)
                    out = net(Xt[idx[idx >= 0]] if idx.ndim == 2 else Xt[idx])
                    loss = self._batch_loss(out, idx, tensors, per_batch if idx.ndim == 2 else 1.0)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    total += loss.detach()
                    if dro is not None:
                        L, ok = dro.pending
                        dro.update(L.cpu().numpy(), ok.cpu().numpy())
                record = {"epoch": epoch + 1,
                          "train_loss": float(total) / max(len(batches), 1),
                          "train_seconds": time.perf_counter() - t_epoch}
                if dro is not None:
                    record["dro_weights"] = dro.q.tolist()
                if monitor:
                    t_val = time.perf_counter()
                    crit = self._monitor(Y[va], self._forward_scores(net, Xt[va]), spec,
                                         None if qid is None else qid[va])
                    record["val_criterion"] = crit
                    record["val_seconds"] = time.perf_counter() - t_val
                    if np.isnan(crit):
                        monitor = False
                    elif crit > best + self.tol:
                        best, best_epoch, stall = crit, epoch + 1, 0
                        best_state = copy.deepcopy(net.state_dict())
                    else:
                        stall += 1
                self.history_.append(record)
                bar.set_postfix(record)
                if monitor and stall >= self.n_iter_no_change:
                    break
            self.n_epochs_ = len(self.history_)
            if best_state is not None and monitor:
                net.load_state_dict(best_state)
                self.best_epoch_, self.best_score_ = best_epoch, float(best)
            else:
                self.best_epoch_, self.best_score_ = self.n_epochs_, float("nan")
            if dro is not None:
                self.dro_weights_, self.dro_weights_mean_ = dro.q.copy(), dro.mean
            if not spec.fixed_weights and self.method == "plugin":
                self._choose_weights(net, Xt, Y, tr, va, qid)
            self.net_ = net.cpu()
        return self

    def _choose_weights(self, net, Xt, Y, tr, va, groups) -> None:
        """Max-min plug-in: the mixing weights a_ maximising the validation min AUC."""
        rows = va
        if len(va) == 0:  # the split was too small to hold anything out
            warnings.warn("objective='max_min': the validation split is empty (too few rows or "
                          "queries); the mixing weights a_ are chosen on the training rows.",
                          RuntimeWarning, stacklevel=3)
            rows = tr
        eta = 1.0 / (1.0 + np.exp(-self._forward_scores(net, Xt[rows])))
        g = None if groups is None else groups[rows]
        Yr = Y[rows].astype(np.float64)
        self._record_max_min(max_min_weights(eta, self.prior_, Yr, 1.0 - Yr, g,
                                             keep=self.trained_labels_))

    def _epoch_batches(self, tr: np.ndarray, groups: np.ndarray | None, rng) -> list[np.ndarray]:
        bs = int(self.batch_size)
        if self.method == "pairwise":
            if groups is not None:
                return [np.where(b >= 0, tr[np.maximum(b, 0)], -1)
                        for b in _group_batches(groups[tr], bs, rng)]
            perm = tr[rng.permutation(len(tr))]
            # one pseudo-group per batch: [1, B]; drop a tail too small to hold pairs
            return [perm[i : i + bs][None, :] for i in range(0, len(perm), bs)
                    if len(perm[i : i + bs]) >= 2]
        perm = tr[rng.permutation(len(tr))]
        return [perm[i : i + bs] for i in range(0, len(perm), bs)]

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Ranking scores, shape (n,): higher ranks first (ties count ½ in every AUC).

        Computed on the fitted device ``device_`` (a ``ValueError`` names it if it is not
        available here; ``est.set_params(device="cpu")`` and refit, or set ``device_ = "cpu"``),
        ``predict_batch_size`` rows at a time.
        """
        self._check_fitted("net_")
        X = self._validate_X(X, reset=False)
        with self._predicting("net_") as dev:
            # the stored network stays on the CPU (portable pickles); a copy goes to the device
            net = self.net_ if dev.type == "cpu" else copy.deepcopy(self.net_).to(dev)
            raw = self._forward_scores(net, X, dev)
        return self._combine(raw)
