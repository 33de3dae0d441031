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

from bipartite.experiments.la25._moved import OLD_RUN_NAMES, forward, install
from bipartite.experiments.la25.run import PAPER

__all__ = ["PAPER"]

install()  # the module paths before issue 21 (section7, maxmin, ...) warn for a release


def __getattr__(name: str):
    if name in OLD_RUN_NAMES:
        return forward(__name__, (f"{__name__}.run",), name, new_name=OLD_RUN_NAMES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
