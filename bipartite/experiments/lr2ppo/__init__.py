"""LR2PPO — Guo, Zhang, Wu, Li, Qiao, Sun, "Multimodal Label Relevance Ranking via Reinforcement
Learning": the reproduction of stage 1 vs stage 3 against the annotation fraction on MQ2008
(LR2PPO Tab. 2-3, Fig. 3; docs/theory.md §11).

MSLR-WEB10K, LRMovieNet and the paper's encoders are not available: source S1 (graded relevance),
target S2-S4 (partial-order pairs, a fraction annotated for the reward model) and test S5 of
MQ2008 (LETOR 4.0) stand in. Also run: a pair fine-tune control (not in the paper) and the
paper's ablations (original PPO ratio, δ = 0). Needs the MQ2008 files (``--letor PATH`` or the
data folder of :func:`bipartite.data.data_dir`).

* :mod:`bipartite.experiments.lr2ppo.studies` — the study function ``lr2ppo.mq2008`` and
  :func:`~bipartite.experiments.lr2ppo.studies.find_letor`;
* :mod:`bipartite.experiments.lr2ppo.figures` — its figures and key-number tables;
* :mod:`bipartite.experiments.lr2ppo.run` — the study set by size and the paper entry
  :data:`PAPER` (``bipartite reproduce --paper lr2ppo``).
"""

from bipartite.experiments.lr2ppo.run import PAPER

__all__ = ["PAPER"]
