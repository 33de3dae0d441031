"""
Surrogate losses in a training loop
===================================

The pairwise surrogates of :py:mod:`bipartite.surrogates` are ordinary differentiable PyTorch
functions, so they drop into any training loop. The two objectives of the package differ only in
their **pair weights** (docs/theory.md §8.2):

* **loss aggregation** ``Σ_k a_k AUC_k``: weights ``Σ_k a_k 1[y_ik = 1, y_jk = 0] / (n⁺_k n⁻_k)``
  from :py:func:`~bipartite.surrogates.loss_aggregation_pair_weights`;
* **label aggregation** with ``Ȳ = Y_1 + Y_2`` and linear costs: weights proportional to
  ``ȳ_i − ȳ_j`` from :py:func:`~bipartite.surrogates.label_aggregation_pair_weights`.

Here a linear scorer is trained with each, by the pairwise logistic loss
(:py:func:`~bipartite.surrogates.pairwise_loss`), on a synthetic problem with one rare label
(``π = (0.1, 0.5)``; label k is driven by coordinate k of ``x``). Loss aggregation normalises each
label like its AUC, which amounts to dividing it by ``π_k (1 − π_k)`` (docs/theory.md §4): the rare
label gets the larger effective weight and pulls the learned direction towards its own
coordinate (at the extreme, *label dictatorship*, docs/theory.md §7). Label aggregation by a sum
does not reweight the labels, so the common label, with more pairs, pulls the other way.
"""

# %%
# Data: lists of items with two binary labels
# -------------------------------------------
# :py:func:`~bipartite.data.make_synthetic` samples ``x`` uniform on ``[-1, 1]²`` and labels with
# known class probabilities ``η_k(x)``, which give the Bayes scorers as references. The training
# set is cut into 40 lists of 50 items; pair weights are computed once per list.
import matplotlib.pyplot as plt
import numpy as np
import torch

from bipartite.bayes import effective_weights
from bipartite.data import make_synthetic
from bipartite.metrics import multilabel_auc
from bipartite.surrogates import (
    label_aggregation_pair_weights,
    loss_aggregation_pair_weights,
    pairwise_loss,
)

priors = (0.1, 0.5)
train = make_synthetic(2000, priors=priors, beta=8.0, seed=0)
test = make_synthetic(20000, priors=priors, beta=8.0, seed=1)
print("effective weights α_k = 1 / (π_k (1 − π_k)):", effective_weights(train.pi).round(2))

X = torch.as_tensor(train.X, dtype=torch.float32).reshape(40, 50, 2)  # [lists, items, features]
Y = torch.as_tensor(train.Y, dtype=torch.float32).reshape(40, 50, 2)  # [lists, items, labels]
weights = {
    "loss aggregation": loss_aggregation_pair_weights(Y),
    "label aggregation (sum)": label_aggregation_pair_weights(Y.sum(dim=-1)),
}


# %%
# The training loop
# -----------------
# Full-batch Adam on all 40 lists at once: the pair weights of shape ``[40, 50, 50]`` go to
# ``pairwise_loss`` with ``labels=None`` (the pairs are those with a positive weight, which loss
# aggregation needs: an item can be above another for one label and below it for the other).
def train_linear(pair_weights, steps=100, lr=0.05):
    torch.manual_seed(0)  # the same initial weights for both objectives
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    X_test = torch.as_tensor(test.X, dtype=torch.float32)
    history = []
    for step in range(steps):
        opt.zero_grad()
        scores = model(X).squeeze(-1)  # [40, 50]
        loss = pairwise_loss(scores, None, pair_weights=pair_weights, kind="logistic")
        loss.backward()
        opt.step()
        if step % 10 == 0 or step == steps - 1:
            with torch.no_grad():
                s = model(X_test).squeeze(-1).numpy()
            history.append((step, loss.item(), *multilabel_auc(test.Y, s)))
    return model, np.array(history)


results = {name: train_linear(w) for name, w in weights.items()}

# %%
# Per-label test AUCs, against the Bayes scorers
# ----------------------------------------------
# The learned direction ``w / |w|`` and the test AUC of each label. The references are the Bayes
# scorers computed from the exact ``η`` of the test points: ``Σ_k α_k η_k`` for loss aggregation
# and ``η_1 + η_2`` for label aggregation by a sum (docs/theory.md §4, §5).
bayes = {
    "loss aggregation": test.eta @ effective_weights(test.pi),
    "label aggregation (sum)": test.eta.sum(axis=1),
}
for name, (model, history) in results.items():
    w = model.weight.detach().numpy().ravel()
    print(f"{name}: direction {np.round(w / np.linalg.norm(w), 3)}, "
          f"test AUC {history[-1, 2:].round(3)}, Bayes scorer {multilabel_auc(test.Y, bayes[name]).round(3)}")

# %%
# Training curves
# ---------------
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
for k, ax in enumerate(axes):
    for name, (_, history) in results.items():
        ax.plot(history[:, 0], history[:, 2 + k], marker="o", ms=3, label=name)
    ax.set_title(f"label {k + 1} (π = {priors[k]})")
    ax.set_xlabel("step")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("test AUC")
axes[1].legend(fontsize="small")
fig.tight_layout()
