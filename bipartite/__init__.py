"""bipartite: bipartite ranking from multiple labels.

Exact metrics, finite-support populations, Bayes-optimal scorers for loss and label aggregation,
exact Pareto frontiers of per-label AUCs, label-dictatorship diagnostics, surrogate losses,
learners and simulation studies. See ``THEORY.md`` (mirrored in the docs) for the formulas; each
public function cites its section.

Submodules are imported lazily so that ``import bipartite`` stays light (torch, xgboost and cvxpy
load only when a module that needs them is used).
"""

from __future__ import annotations

import importlib

from bipartite._validation import UndefinedMetricWarning

__version__ = "0.1.0"

_SUBMODULES = (
    "metrics",
    "population",
    "bayes",
    "costs",
    "pareto",
    "dictatorship",
    "consistency",
    "surrogates",
    "learners",
    "data",
    "fusion",
    "studies",
    "plots",
    "cli",
)

__all__ = ["UndefinedMetricWarning", "__version__", *_SUBMODULES]


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"bipartite.{name}")
    raise AttributeError(f"module 'bipartite' has no attribute {name!r}")
