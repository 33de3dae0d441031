"""MTRUB — Multi-task Ranking with User Behaviors for Text-video Search (Liu et al., WWW'22
Companion): the reproduction (docs/theory.md §11).

What is reproduced: the generic mechanisms of the paper on our data — MMoE vs shared-bottom
multi-task learners (Table 1), multi-task vs single-task learning (Fig. 2), and exponential score
fusion with Pareto-searched exponents (§3.4), compared with loss and label aggregation of the same
probabilities (docs/theory.md §4, §5) — on synthetic nested behaviours and on Banking.

* :mod:`bipartite.experiments.mtrub.studies` — the study functions ``mtrub.synthetic`` and
  ``mtrub.banking``, registered with the runner;
* :mod:`bipartite.experiments.mtrub.figures` — their figures and key-number tables;
* :mod:`bipartite.experiments.mtrub.run` — the study sets by size, the summary and the paper entry
  :data:`PAPER` (``bipartite reproduce --paper mtrub``).
"""

from bipartite.experiments.mtrub.run import PAPER

__all__ = ["PAPER"]
