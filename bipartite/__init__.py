"""bipartite: bipartite ranking from multiple labels.

Exact metrics, finite-support populations, Bayes-optimal scorers for loss and label aggregation,
exact Pareto frontiers of per-label AUCs, label-dictatorship diagnostics, surrogate losses,
learners and simulation studies. The mathematics is in ``docs/theory.md``; each public function
cites its section.

The package is layered (``tests/test_layering.py`` enforces it):

* the **core**, in the order of the theory: :mod:`bipartite.labels` (aggregation maps and cost
  families), :mod:`bipartite.metrics`, :mod:`bipartite.population`, :mod:`bipartite.bayes`,
  :mod:`bipartite.pareto`, :mod:`bipartite.objectives` (what is optimised: the
  :class:`~bipartite.objectives.Objective` value), :mod:`bipartite.dictatorship`,
  :mod:`bipartite.surrogates`,
  :mod:`bipartite.consistency`, :mod:`bipartite.learners`, :mod:`bipartite.data`,
  :mod:`bipartite.plots`, :mod:`bipartite.diagnostics` (diagnose your own scores);
* :mod:`bipartite.contrib`: the other papers' methods (the core never imports it);
* :mod:`bipartite.studies`: the one experiment runner (names no paper);
* :mod:`bipartite.experiments`: the papers' reproductions, every one on that runner;
* :mod:`bipartite.cli` on top.

Submodules are imported lazily so that ``import bipartite`` stays light (torch, xgboost and cvxpy
load only when a module that needs them is used).
"""

from __future__ import annotations

import importlib

from bipartite._utils.validation import UndefinedMetricWarning

__version__ = "0.6.0"

_SUBMODULES = (
    "labels",
    "ranked_metrics",
    "metrics",
    "population",
    "bayes",
    "pareto",
    "objectives",
    "dictatorship",
    "surrogates",
    "consistency",
    "learners",
    "data",
    "plots",
    "diagnostics",
    "contrib",
    "studies",
    "experiments",
    "cli",
)

__all__ = ["UndefinedMetricWarning", "__version__", *_SUBMODULES]


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"bipartite.{name}")
    raise AttributeError(f"module 'bipartite' has no attribute {name!r}")
