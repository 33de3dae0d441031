"""The other source papers' methods (docs/theory.md §11), one module per method.

* :mod:`bipartite.contrib.fusion` — MTRUB: exponential score fusion and its Pareto search;
* :mod:`bipartite.contrib.multitask` — MTRUB: multi-task scorers (shared bottom, MMoE);
* :mod:`bipartite.contrib.label_ranking` — RLSEP: ranked labels, LSEP/RLSEP MLP, threshold network;
* :mod:`bipartite.contrib.lr2ppo` — LR2PPO: reward model and PPO on partial-order pairs;
* :mod:`bipartite.contrib.pairs` — the pairs of items within queries LR2PPO trains on
  (all pairs, partial-order pairs of graded relevance);
* :mod:`bipartite.contrib.ap_training` — HAP-VR: AP-oriented list-wise training.

These modules build on the core (metrics, surrogates, labels, pareto); the core never imports them.
"""
