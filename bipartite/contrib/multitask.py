"""Multi-task probability scorers for K behaviour labels: shared-bottom and MMoE (docs/theory.md §11).

MTRUB (Liu et al., WWW'22 Companion, §2.3 and §3.2) trains one network with one sigmoid head per
user-behaviour label (isClick, isReplay, isValidStay, ...) and a binary cross-entropy loss per task;
its backbone is either a *shared bottom* (one MLP feeding every task tower) or a multi-gate
mixture of experts (MMoE, Ma et al., KDD'18: E expert MLPs, one softmax gate per task mixing them).
The per-task probabilities ``p_k(x)`` estimate ``η_k(x) = P(Y_k = 1 | x)`` (docs/theory.md §1), so they can
be plugged into loss aggregation (§4), label aggregation (§5) or exponential score fusion
(:func:`bipartite.contrib.fusion.score_fusion`, §11).

The public estimator is :class:`MultiTaskMLP` (re-exported by :mod:`bipartite.learners`).
torch is imported inside this module only.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np
import torch
from numpy.typing import ArrayLike
from torch import nn

from bipartite._utils.validation import (
    check_array,
    check_consistent_length,
    check_label_matrix,
    resolve_qid,
)
from bipartite.learners.nets import init_linear, make_mlp
from bipartite.learners.torch_estimator import TorchEstimator, TorchFit, in_range, one_of, positive

__all__ = ["MultiTaskMLP"]

_ARCHITECTURES = ("shared_bottom", "mmoe")


class _SharedBottom(nn.Module):
    """x -> shared MLP -> K linear towers (one logit per task)."""

    def __init__(self, d: int, K: int, hidden: Sequence[int], tower_hidden: int):
        super().__init__()
        self.bottom = make_mlp(d, hidden, None, seed=0)  # re-seeded by init_linear in fit
        width = hidden[-1] if hidden else d
        self.towers = nn.ModuleList(make_mlp(width, (tower_hidden,), 1, seed=0) for _ in range(K))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, None]:
        h = self.bottom(x)
        return torch.cat([t(h) for t in self.towers], dim=1), None


class _MMoE(nn.Module):
    """MMoE: E expert MLPs; task k's tower input is Σ_e softmax(W_k x)_e · expert_e(x)."""

    def __init__(self, d: int, K: int, n_experts: int, expert_hidden: Sequence[int],
                 tower_hidden: int):
        super().__init__()
        self.experts = nn.ModuleList(make_mlp(d, expert_hidden, None, seed=0)
                                     for _ in range(n_experts))
        self.gates = nn.ModuleList(nn.Linear(d, n_experts) for _ in range(K))
        width = expert_hidden[-1] if expert_hidden else d
        self.towers = nn.ModuleList(make_mlp(width, (tower_hidden,), 1, seed=0) for _ in range(K))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        experts = torch.stack([e(x) for e in self.experts], dim=1)  # [n, E, width]
        gates = torch.stack([torch.softmax(g(x), dim=1) for g in self.gates], dim=1)  # [n, K, E]
        mixed = torch.einsum("nke,new->nkw", gates, experts)  # [n, K, width]
        logits = torch.cat([t(mixed[:, k]) for k, t in enumerate(self.towers)], dim=1)
        return logits, gates


def _check_sizes(value: int | Sequence[int], name: str) -> tuple[int, ...]:
    """A positive int or a sequence of positive ints -> tuple of layer widths."""
    sizes = (value,) if isinstance(value, (int, np.integer)) else tuple(value)
    if not sizes or any(not isinstance(s, (int, np.integer)) or s < 1 for s in sizes):
        raise ValueError(
            f"The '{name}' parameter must be a positive int or a non-empty sequence of positive "
            f"ints, got {value!r}."
        )
    return tuple(int(s) for s in sizes)


class MultiTaskMLP(TorchEstimator):
    """Multi-task MLP giving one probability per label: shared-bottom or MMoE (docs/theory.md §11).

    Trained by minimising ``Σ_k w_k BCE(p_k(x), y_k)`` (one binary cross-entropy per task, MTRUB
    §3.2; ``task_weights`` w default to 1) with Adam on standardised inputs. ``p_k`` estimates
    ``η_k(x)`` (docs/theory.md §1), so the outputs are plug-in inputs for loss aggregation (§4), label
    aggregation (§5) and exponential score fusion (§11).

    Parameters
    ----------
    tasks : int
        Number of labels K (columns of ``Y``).
    architecture : {"shared_bottom", "mmoe"}
        ``"shared_bottom"``: one MLP with widths ``hidden`` feeds K towers. ``"mmoe"``: ``n_experts``
        expert MLPs with widths ``expert_hidden``, one softmax gate per task (Ma et al., 2018).
    n_experts : int
        Number of experts (MMoE only).
    hidden, expert_hidden : int or sequence of int
        Layer widths of the shared bottom and of each expert.
    tower_hidden : int
        Width of the hidden layer of each task tower.
    task_weights : array-like of shape (K,) or None
        Non-negative weights w_k of the per-task losses.
    epochs, batch_size, lr, weight_decay : training settings (Adam).
    validation_fraction : float in [0, 0.5)
        Share of rows held out for early stopping (0 disables it and trains all ``epochs``).
        The held-out loss is the weighted BCE; the best epoch's weights are restored.
    patience : int
        Epochs without improvement of the held-out loss before stopping.
    device : str or torch.device
        ``"auto"`` (CUDA when available, else CPU), or a torch device string or object.
    n_jobs : int or None
        torch CPU threads during fit and predict (None = 1, -1 = all cores); restored afterwards.
    random_state : None, int or numpy Generator
        Seeds initialisation, the validation split and the batch order. With an int the fit is
        deterministic on CPU.

    Attributes
    ----------
    n_epochs_ : int, epochs actually run; ``history_`` : dict of per-epoch losses;
    ``n_features_in_`` : int.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3))
    >>> Y = np.column_stack([X[:, 0] > 0, X[:, 1] > 0]).astype(int)
    >>> model = MultiTaskMLP(tasks=2, architecture="mmoe", epochs=30, random_state=0).fit(X, Y)
    >>> model.predict_proba(X[:2]).shape
    (2, 2)
    >>> from sklearn.metrics import roc_auc_score
    >>> bool(roc_auc_score(Y[:, 0], model.predict_proba(X)[:, 0]) > 0.95)
    True
    """

    def __init__(self, tasks: int = 2, architecture: str = "shared_bottom", *, n_experts: int = 4,
                 hidden: int | Sequence[int] = (64, 32), expert_hidden: int | Sequence[int] = (32,), tower_hidden: int = 16,
                 task_weights: ArrayLike | None = None, epochs: int = 50, batch_size: int = 256,
                 lr: float = 3e-3, weight_decay: float = 1e-4, validation_fraction: float = 0.1,
                 patience: int = 8, device: str = "auto", n_jobs: int | None = None,
                 random_state: int | np.random.Generator | None = None):
        self.tasks = tasks
        self.architecture = architecture
        self.n_experts = n_experts
        self.hidden = hidden
        self.expert_hidden = expert_hidden
        self.tower_hidden = tower_hidden
        self.task_weights = task_weights
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.validation_fraction = validation_fraction
        self.patience = patience
        self.device = device
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- validation (the shared parameters: TorchEstimator) ------------------------------------
    _param_checks = {
        "architecture": one_of(*_ARCHITECTURES),
        "tasks": positive(integer=True),
        "n_experts": positive(integer=True),
        "tower_hidden": positive(integer=True),
        "patience": positive(integer=True),
        "hidden": _check_sizes,
        "expert_hidden": _check_sizes,
        "validation_fraction": in_range(0, 0.5),
    }

    def _task_weights(self) -> np.ndarray:
        if self.task_weights is None:
            return np.ones(self.tasks)
        w = check_array(self.task_weights, "task_weights", ndim=1)
        if len(w) != self.tasks or (w < 0).any() or w.sum() == 0:
            raise ValueError(
                f"The 'task_weights' parameter must hold {self.tasks} non-negative numbers, not all "
                f"zero, got {w.tolist()!r}."
            )
        return w

    def _build(self, d: int) -> nn.Module:
        if self.architecture == "shared_bottom":
            return _SharedBottom(d, self.tasks, _check_sizes(self.hidden, "hidden"),
                                 self.tower_hidden)
        return _MMoE(d, self.tasks, self.n_experts,
                     _check_sizes(self.expert_hidden, "expert_hidden"), self.tower_hidden)

    # -- fit ----------------------------------------------------------------------------------
    def fit(self, X: ArrayLike, Y: ArrayLike, qid: ArrayLike | None = None, *,
            groups: ArrayLike | None = None) -> MultiTaskMLP:
        """Fit on features ``X`` (n, d) and binary labels ``Y`` (n, K).

        ``qid`` (query ids) is accepted for API symmetry with the rankers and is not used: the
        loss is pointwise. ``groups`` is its deprecated alias (FutureWarning).
        """
        resolve_qid(qid, groups, f"{type(self).__name__}.fit")
        with self._fitting() as fit:  # parameters, device_, n_jobs threads, seeded Generator
            return self._fit(X, Y, fit)

    def _fit(self, X: ArrayLike, Y: ArrayLike, fit: TorchFit) -> MultiTaskMLP:
        X = check_array(X, "X", ndim=2)
        Y = check_label_matrix(Y)
        check_consistent_length(X=X, Y=Y)
        if Y.shape[1] != self.tasks:
            raise ValueError(
                f"The 'Y' parameter must have tasks={self.tasks} columns, got {Y.shape[1]}."
            )
        weights = self._task_weights()
        rng, device, torch_seed = fit.rng, fit.device, fit.torch_seed()

        n = len(X)
        perm = rng.permutation(n)
        n_val = int(round(self.validation_fraction * n))
        val_idx, train_idx = perm[:n_val], perm[n_val:]
        if len(train_idx) == 0:
            raise ValueError(f"The 'X' parameter has too few rows ({n}) to train.")
        self.mean_ = X[train_idx].mean(axis=0)
        scale = X[train_idx].std(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        self.n_features_in_ = X.shape[1]

        Z = torch.as_tensor((X - self.mean_) / self.scale_, dtype=torch.float32, device=device)
        T = torch.as_tensor(Y, dtype=torch.float32, device=device)
        w = torch.as_tensor(weights / weights.sum(), dtype=torch.float32, device=device)

        # Every Linear drawn from a local generator (learners.nets.init_linear): fitting never
        # touches torch's global RNG state.
        with torch.random.fork_rng(devices=[]):
            model = init_linear(self._build(X.shape[1]), torch_seed).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=self.lr, weight_decay=self.weight_decay)

        def weighted_bce(idx: np.ndarray) -> torch.Tensor:
            logits, _ = model(Z[idx])
            # BCE as log-sigmoids of ±logit: threshold-free and exact in float64 for any |logit|
            # (BCE-with-logits forms x − log σ(x), which cancels to 0 for x ≪ 0).
            t = T[idx]
            per_task = -(t * nn.functional.logsigmoid(logits)
                         + (1 - t) * nn.functional.logsigmoid(-logits)).mean(dim=0)
            return (per_task * w).sum()

        history: dict[str, list[float]] = {"train_loss": [], "val_loss": []}
        best_loss, best_state, stale = np.inf, None, 0
        for _epoch in range(self.epochs):
            model.train()
            order = train_idx[rng.permutation(len(train_idx))]
            total = 0.0
            for start in range(0, len(order), self.batch_size):
                idx = order[start:start + self.batch_size]
                opt.zero_grad()
                loss = weighted_bce(idx)
                loss.backward()
                opt.step()
                total += loss.item() * len(idx)
            history["train_loss"].append(total / len(order))
            if n_val == 0:
                continue
            model.eval()
            with torch.no_grad():
                val_loss = weighted_bce(val_idx).item()
            history["val_loss"].append(val_loss)
            if val_loss < best_loss - 1e-6:
                best_loss, best_state, stale = val_loss, copy.deepcopy(model.state_dict()), 0
            else:
                stale += 1
                if stale >= self.patience:
                    break
        if best_state is not None:
            model.load_state_dict(best_state)
        model.eval()
        self.model_ = model
        self.n_epochs_ = len(history["train_loss"])
        self.history_ = history
        return self

    # -- predict ------------------------------------------------------------------------------
    def _forward(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray | None]:
        self._check_fitted("model_")
        X = self._validate_features(X)
        with self._predicting("model_") as device, torch.no_grad():
            Z = torch.as_tensor((X - self.mean_) / self.scale_, dtype=torch.float32,
                                device=device)
            logits, gates = self.model_(Z)
        gates_np = None if gates is None else gates.double().cpu().numpy()
        return logits.double().cpu().numpy(), gates_np

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Per-task logits, shape (n, K)."""
        return self._forward(X)[0]

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Per-task probabilities ``p_k(x)``, shape (n, K) (sigmoid of the logits)."""
        logits = self._forward(X)[0]
        return 1.0 / (1.0 + np.exp(-logits))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Per-task 0/1 predictions (probability > 1/2), shape (n, K)."""
        return (self.decision_function(X) > 0).astype(int)

    def gate_weights(self, X: ArrayLike) -> np.ndarray:
        """MMoE gate weights, shape (n, K, n_experts); each row sums to 1.

        MTRUB §2.3 reads these weights as the importance of each expert (input modality) for each
        task. Raises for the shared-bottom architecture, which has no gates.
        """
        if self.architecture != "mmoe":
            raise ValueError(
                "gate_weights needs architecture='mmoe', got "
                f"architecture={self.architecture!r}."
            )
        return self._forward(X)[1]
