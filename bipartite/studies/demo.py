"""A small demonstration study (the example config and the runner's tests).
"""


from __future__ import annotations

import math

import numpy as np

from bipartite.studies.config import register_study
from bipartite.studies.constraints import Range

# --------------------------------------------------------------------------------------------
# A small demonstration study (example config, runner tests)
# --------------------------------------------------------------------------------------------


@register_study("demo.binormal_auc",
                constraints={"n": Range(1, integer=True), "shift": Range(),
                             "prior": Range(0, 1, low_open=True, high_open=True)})
def binormal_auc(*, seed: int, n: int, shift: float = 1.0, prior: float = 0.5) -> dict:
    """Empirical AUC of a binormal sample against its exact value (docs/theory.md §2).

    Positives score ``N(shift, 1)``, negatives ``N(0, 1)``; the population AUC is
    ``Φ(shift / √2)``. The sample has ``round(prior n)`` positives among ``n``. Returns the
    empirical AUC (:func:`bipartite.metrics.auc`), the exact value and the error.

    >>> row = binormal_auc(seed=0, n=2000, shift=1.0)
    >>> round(row["auc_exact"], 4), abs(row["error"]) < 0.03
    (0.7602, True)
    """
    from bipartite.metrics import auc

    rng = np.random.default_rng(seed)
    n_pos = int(round(prior * n))
    y = np.r_[np.ones(n_pos), np.zeros(n - n_pos)]
    scores = rng.normal(size=n) + shift * y
    value = auc(y, scores)
    exact = 0.5 * math.erfc(-shift / 2.0)  # Φ(shift/√2) = ½ erfc(−shift/2)
    return {"auc": value, "auc_exact": exact, "error": value - exact}
