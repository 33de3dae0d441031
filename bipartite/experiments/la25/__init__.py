"""LA25 — loss vs label aggregation (Lukasik et al., ICML 2025): the reproduction.

The same shape as every other paper (:mod:`bipartite.experiments`):

* :mod:`bipartite.experiments.la25.studies` — the study functions, registered with the runner
  (one module per family: the sweeps, §7 as the paper ran it, the K = 2 balance check, the
  learners' gap, max-min, learners vs Bayes);
* :mod:`bipartite.experiments.la25.figures` — their tables (through the one table writer,
  :func:`bipartite.studies.report.write_table`) and figures, from the tidy results only;
* :mod:`bipartite.experiments.la25.run` — the study sets by size (:func:`~.run.configs`),
  :func:`~.run.figures`, :func:`~.run.summary` and the paper entry :data:`PAPER`
  (``bipartite reproduce --paper la25``).
"""

import warnings as _warnings

from bipartite.experiments.la25.run import PAPER

__all__ = ["PAPER"]

#: Names moved by issue 21 (LA25 in the shape of the other papers): old -> new, warned for a release.
_MOVED = {"la25_configs": "configs", "la25_figures": "figures", "la25_summary": "summary"}


def __getattr__(name: str):
    if name in _MOVED:
        from bipartite.experiments.la25 import run

        _warnings.warn(f"bipartite.experiments.la25.{name} is deprecated; use "
                       f"bipartite.experiments.la25.run.{_MOVED[name]}.", FutureWarning,
                       stacklevel=2)
        return getattr(run, _MOVED[name])
    raise AttributeError(f"module 'bipartite.experiments.la25' has no attribute {name!r}")
