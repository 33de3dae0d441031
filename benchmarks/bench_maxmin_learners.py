"""Fit time and test Min AUC of the max-min learners against loss aggregation (docs/theory.md §13.6).

For each route — MLP plug-in, MLP pairwise, XGBoost plug-in, XGBoost pairwise — the
``objective="max_min"`` learner and the loss-aggregation learner with the same method are fitted
side by side on the same synthetic problem (:func:`bipartite.data.synthetic_model`, K = 2, exact
η), alternating which goes first, for several repetitions (repetition r: sample seed r, learner
``random_state=r``). The table reports the median fit time of each, the ratio of the medians, the
median of the per-repetition ratios, the median number of epochs (MLP: early stopping differs,
the loss-aggregation criterion is the mean AUC, the max-min one the min AUC or the heads' mean
AUC), and the median test Min AUC, measured exactly on a fixed test population
(:meth:`~bipartite.data.SyntheticModel.finite_problem` of 20 000 test points, exact η: no label
noise), with the best Min AUC of the loss-aggregation Bayes scorers ``Σ_k a_k η_k/(π_k(1−π_k))``
on that population (the supported max-min, over a λ grid of resolution 1/1000,
:func:`bipartite.learners.maxmin.max_min_weights`) as the reference.

Everything runs single-threaded (``n_jobs=1``, torch on the CPU); on a shared machine the medians
are what to read.

Usage::

    python benchmarks/bench_maxmin_learners.py                 # n = 4000, 5 repetitions
    python benchmarks/bench_maxmin_learners.py --n 4000 --reps 7 --routes mlp-plugin xgb-plugin
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bipartite.data import synthetic_model
from bipartite.learners import MLPRanker, XGBRanker
from bipartite.learners.maxmin import max_min_weights

ROUTES = ("mlp-plugin", "mlp-pairwise", "xgb-plugin", "xgb-pairwise")


def learners(route: str, seed: int, validation_fraction: float):
    """(loss-aggregation learner, max-min learner) of one route."""
    if route.startswith("mlp"):
        method = route.split("-")[1]
        kw = dict(method=method, n_jobs=1, device="cpu", random_state=seed)
        mm = dict(validation_fraction=validation_fraction) if method == "plugin" else {}
        return MLPRanker(**kw), MLPRanker(objective="max_min", **mm, **kw)
    method = route.split("-")[1]
    kw = dict(method=method, n_jobs=1, random_state=seed)
    return XGBRanker(**kw), XGBRanker(objective="max_min", validation_fraction=validation_fraction,
                                      **kw)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=4000, help="training rows (default 4000)")
    p.add_argument("--reps", type=int, default=5, help="repetitions (default 5)")
    p.add_argument("--priors", type=float, nargs="+", default=[0.5, 0.1])
    p.add_argument("--beta", type=float, default=16.0)
    p.add_argument("--validation-fraction", type=float, default=0.25,
                   help="held-out share of the max-min plug-in learners (default 0.25)")
    p.add_argument("--routes", nargs="+", default=list(ROUTES), choices=ROUTES)
    args = p.parse_args(argv)

    model = synthetic_model(priors=tuple(args.priors), beta=args.beta)
    test = model.sample(20_000, seed=10_000)
    pop = model.finite_problem(test.X)
    n_t = len(test.X)
    ref = max_min_weights(test.eta, model.pi, test.eta / n_t, (1.0 - test.eta) / n_t)
    print(f"synthetic_model(priors={tuple(args.priors)}, beta={args.beta}), n = {args.n} training "
          f"rows, {args.reps} repetitions; test population {n_t} points, exact eta")
    print(f"best supported Min AUC of the Bayes scorers on the test population: {ref.value:.4f} "
          f"(a = {np.round(ref.a, 3).tolist()})")
    print()
    print(f"{'route':<13} {'LA fit s':>9} {'max-min fit s':>14} {'ratio of medians':>17} "
          f"{'median ratio':>13} {'epochs LA/mm':>13} {'LA Min AUC':>11} {'max-min Min AUC':>16}")
    for route in args.routes:
        t_la, t_mm, m_la, m_mm, ep = [], [], [], [], []
        for r in range(args.reps):
            data = model.sample(args.n, seed=r)
            pair = learners(route, r, args.validation_fraction)
            order = (0, 1) if r % 2 == 0 else (1, 0)
            times, mins = [0.0, 0.0], [0.0, 0.0]
            for i in order:
                t0 = time.perf_counter()
                pair[i].fit(data.X, data.Y)
                times[i] = time.perf_counter() - t0
                mins[i] = float(pop.auc(pair[i].decision_function(test.X)).min())
            ep.append([getattr(e, "n_epochs_", 0) for e in pair])
            t_la.append(times[0])
            t_mm.append(times[1])
            m_la.append(mins[0])
            m_mm.append(mins[1])
        ratio = np.median(t_mm) / np.median(t_la)
        per = np.median(np.array(t_mm) / np.array(t_la))
        e = np.median(np.array(ep), axis=0)
        epochs = f"{e[0]:.0f}/{e[1]:.0f}" if route.startswith("mlp") else "-"
        print(f"{route:<13} {np.median(t_la):>9.2f} {np.median(t_mm):>14.2f} {ratio:>17.2f} "
              f"{per:>13.2f} {epochs:>13} {np.median(m_la):>11.4f} {np.median(m_mm):>16.4f}",
              flush=True)


if __name__ == "__main__":
    main()
