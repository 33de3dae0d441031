"""LA25 — loss vs label aggregation (Lukasik et al., ICML 2025): the reproduction.

* :mod:`bipartite.experiments.la25.studies` — the study functions (``la25.skew``,
  ``la25.frontier``, ``la25.correlation``, ``la25.weights``, ``la25.learning_curve``,
  ``la25.consistency``, ``la25.real``), registered with the runner;
* :mod:`bipartite.experiments.la25.section7` — §7 as the paper ran it (``la25.section7_synthetic``,
  ``la25.section7_data``: Bank Marketing and LETOR/MSLR tables of per-label, Diff and Min AUC),
  with :mod:`~bipartite.experiments.la25.section7_gap` (learners vs Bayes at a skewed prior),
  :mod:`~bipartite.experiments.la25.section7_theory` (when label aggregation is the more balanced,
  docs/theory.md §12), :mod:`~bipartite.experiments.la25.section7_report` and
  :mod:`~bipartite.experiments.la25.section7_summary` (configs, tables, verdicts);
* :mod:`bipartite.experiments.la25.figures` — their figures and key-number tables;
* :mod:`bipartite.experiments.la25.run` — the study sets by size and the paper entry
  :data:`PAPER` (``bipartite reproduce --paper la25``).
"""

from bipartite.experiments.la25.run import PAPER, la25_configs, la25_figures, la25_summary

__all__ = ["PAPER", "la25_configs", "la25_figures", "la25_summary"]
