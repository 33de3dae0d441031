"""HAP-VR — Holistic Average Precision for video retrieval (Liu et al., ACM MM 2024): the
training reproduction (docs/theory.md §8, §11).

What is reproduced: AP-oriented training of a ranker — the same MLP scorer trained with
QuadLinear-AP, Smooth-AP and the pairwise logistic loss at a fixed budget (cf. Table 2), and the
gradient-vanishing diagnostic of Fig. 4 measured during training — on synthetic retrieval and on
LETOR 4.0 MQ2008. (The loss-level claims are checked by the property tests of
:mod:`bipartite.surrogates`.)

* :mod:`bipartite.experiments.hapvr.studies` — the study functions ``hapvr.synthetic`` and
  ``hapvr.mq2008``, registered with the runner;
* :mod:`bipartite.experiments.hapvr.figures` — their figures and key-number tables;
* :mod:`bipartite.experiments.hapvr.run` — the study sets by size, the summary and the paper entry
  :data:`PAPER` (``bipartite reproduce --paper hapvr``).
"""

from bipartite.experiments.hapvr.run import PAPER

__all__ = ["PAPER"]
