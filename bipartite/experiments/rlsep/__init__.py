"""RLSEP — Dari, Yesilkaynak, Mertan, Unal, "RLSEP: Learning Label Ranks for Multi-label
Classification": the reproduction of the label-ranking study (RLSEP §5.4-§5.5, Tab. 1, Fig. 5;
docs/theory.md §11).

CE, BCE, LSEP and RLSEP train an MLP label scorer on a synthetic analogue of Ranked MNIST; RLSEP,
which sees the label ranks, should beat the others on the ranked metrics and tie on the unranked
ones (labels selected by the threshold network of RLSEP §3.4).

* :mod:`bipartite.experiments.rlsep.studies` — the study function ``rlsep.label_ranking``;
* :mod:`bipartite.experiments.rlsep.figures` — its figures, key-number tables and verdicts;
* :mod:`bipartite.experiments.rlsep.run` — the study set by size and the paper entry
  :data:`PAPER` (``bipartite reproduce --paper rlsep``).
"""

from bipartite.experiments.rlsep.run import PAPER

__all__ = ["PAPER"]
