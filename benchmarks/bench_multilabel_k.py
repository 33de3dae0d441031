"""Time and peak memory of the multi-label metric and diagnostic paths at K = 53 and K = 174.

Issue 25, item 4: ``multilabel_auc``, ``diagnostics.diagnose`` and the ``bipartite report``
command, ``effective_weights`` / ``effective_weight_shares`` / ``dictator``,
``dictatorship.report`` and loss aggregation's plug-in scorer (marginals only,
``bayes.loss_aggregation``; also sum aggregation's, ``bayes.label_aggregation_scores(eta)``,
which needs only the marginals too) on two real Mulan sets (``bipartite.data.load_mulan``):

* K = 53: enron, Mulan's standard split (1123 train / 579 test rows);
* K = 174: CAL500, a seeded 70/30 split (351 / 151 rows; CAL500 has no standard split).

Scores: per-label ridge regressions on the standardised features (one closed-form solve for all
labels), clipped to [0.001, 0.999] as marginal estimates η̂_k; the plug-in scorer is
``Σ_k α_k η̂_k`` with ``α = effective_weights(π̂)`` and π̂ the add-one (Laplace) estimate of the
train priors, ``(count + 1) / (n + 2)``: the raw train prior of enron's ``D.D18`` is 0, which
``effective_weights`` refuses (one row of the table shows that refusal).

Every call is timed in the same process beside a baseline, **one ``np.sort`` of the scores plus
one read of ``Y`` (``np.asarray(Y, float64).sum(axis=0)``)**, interleaved (baseline, call,
baseline, call, ...); a call taking under 0.2 s is repeated until 0.2 s have passed and its
per-call time is used. Only the ratios are meaningful on a shared machine. Peak memory is measured
in a second pass under :mod:`tracemalloc` (Python allocations, NumPy's included; tracemalloc slows
Python-heavy code, so times come from the first pass), and given as MB and as a ratio to the
baseline's peak (a float64 copy of ``Y`` plus the sorted scores).

    python benchmarks/bench_multilabel_k.py              # both sets, time and memory
    python benchmarks/bench_multilabel_k.py --no-memory  # time only (about half as long)
    python benchmarks/bench_multilabel_k.py --fast       # skip the O(K^2) calls (report, diagnose, CLI)
    python benchmarks/bench_multilabel_k.py --figure     # also the report figure (slow at K=174)
    python benchmarks/bench_multilabel_k.py --data /path/to/data
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd

from bipartite.bayes import effective_weights, label_aggregation_scores, loss_aggregation
from bipartite.cli import main as cli_main
from bipartite.data import load_mulan
from bipartite.diagnostics import diagnose
from bipartite.dictatorship import dictator, effective_weight_shares, report
from bipartite.metrics import multilabel_auc

MIN_TIME = 0.2


def ridge_marginals(X_train, Y_train, X_test, lam=1.0):
    """η̂ (n_test, K): one ridge solve for all labels on standardised features, clipped."""
    mu, sd = X_train.mean(0), X_train.std(0)
    sd[sd == 0] = 1.0
    A, B = (X_train - mu) / sd, (X_test - mu) / sd
    ybar = Y_train.mean(0)
    W = np.linalg.solve(A.T @ A + lam * len(A) * np.eye(A.shape[1]), A.T @ (Y_train - ybar))
    return np.clip(B @ W + ybar, 1e-3, 1 - 1e-3)


def problems(data, seed):
    """``(name, train Bunch, test Bunch)`` for K = 53 (enron) and K = 174 (cal500)."""
    yield "enron", load_mulan("enron", split="train", data_home=data), load_mulan(
        "enron", split="test", data_home=data)
    d = load_mulan("cal500", data_home=data)
    idx = np.random.default_rng(seed).permutation(len(d.Y))
    cut = int(round(0.7 * len(idx)))
    tr = {"X": d.X[idx[:cut]], "Y": d.Y[idx[:cut]]}
    te = {"X": d.X[idx[cut:]], "Y": d.Y[idx[cut:]]}
    yield "cal500", tr, te


def per_call(fn):
    """Per-call wall time: one run, repeated until MIN_TIME has passed if it was shorter."""
    t0 = time.perf_counter()
    fn()
    t = time.perf_counter() - t0
    if t >= MIN_TIME:
        return t
    reps = max(1, int(MIN_TIME / max(t, 1e-7)))
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def peak_mb(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def cases(name, tr, te, tmp, fast, figure):
    """``{call: zero-argument function}`` for one data set, and the notes on its inputs."""
    Ytr, Yte = np.asarray(tr["Y"]), np.asarray(te["Y"])
    n_tr, K = Ytr.shape
    eta = ridge_marginals(np.asarray(tr["X"]), Ytr, np.asarray(te["X"]))
    pi_raw = Ytr.mean(0)
    pi = (Ytr.sum(0) + 1.0) / (n_tr + 2.0)
    s = loss_aggregation(eta, pi)
    labels = [f"y{k}" for k in range(K)]
    frame = pd.DataFrame(Yte, columns=labels).assign(plugin=s, total=eta.sum(1))
    csv = os.path.join(tmp, f"{name}_scores.csv")
    frame.to_csv(csv, index=False)
    argv = ["report", csv, "--score", "plugin", *[a for c in labels for a in ("--label", c)],
            "--n-boot", "0", "--no-progress"]

    def cli():
        with contextlib.redirect_stdout(io.StringIO()):
            cli_main(argv)

    calls = {
        "effective_weights(raw train pi)": lambda: effective_weights(pi_raw),
        "effective_weights + shares + dictator": lambda: (
            effective_weights(pi), effective_weight_shares(pi), dictator(pi)),
        "loss_aggregation plug-in (marginals)": lambda: loss_aggregation(eta, pi),
        "label_aggregation_scores sum (marginals)": lambda: label_aggregation_scores(eta),
        "multilabel_auc": lambda: multilabel_auc(Yte, s),
        "multilabel_auc (sample_weight)": lambda: multilabel_auc(Yte, s,
                                                                 sample_weight=np.ones(len(s))),
    }
    if not fast:
        calls |= {
            "dictatorship.report": lambda: report(Yte, s),
            "diagnose (1 scorer, n_boot=0)": lambda: diagnose(frame, scores="plugin",
                                                              labels=labels, n_boot=0),
            "bipartite report CLI (n_boot=0)": cli,
        }
    if figure:
        import matplotlib.pyplot as plt

        diag = diagnose(frame, scores="plugin", labels=labels, n_boot=0)
        calls["Diagnostics.figure()"] = lambda: plt.close(diag.figure())
    one_class = int(((Yte.min(0) == Yte.max(0))).sum())
    notes = (f"{name}: n_train={n_tr}, n_test={len(Yte)}, K={K}, test labels with one class: "
             f"{one_class}, train labels with prior 0 or 1: {int(((pi_raw == 0) | (pi_raw == 1)).sum())}")
    baseline = lambda: (np.sort(s), np.asarray(Yte, dtype=np.float64).sum(axis=0))  # noqa: E731
    return calls, baseline, notes


def run(data, seed, memory, fast, figure):
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined AUCs (one-class labels) warn; counted in notes
        for name, tr, te in problems(data, seed):
            calls, baseline, note = cases(name, tr, te, tmp, fast, figure)
            notes.append(note)
            K = np.asarray(te["Y"]).shape[1]
            base_mem = peak_mb(baseline) if memory else float("nan")
            base_times = []
            for call, fn in calls.items():
                base_times.append(per_call(baseline))
                try:
                    t = per_call(fn)
                    status = "ok"
                except Exception as exc:  # recorded, not raised: the table is the finding
                    t, status = float("nan"), f"{type(exc).__name__}: {str(exc)[:90]}"
                base_times.append(per_call(baseline))
                mem = peak_mb(fn) if memory and status == "ok" else float("nan")
                rows.append([K, name, call, status, t, mem, base_mem])
            base_t = float(np.median(base_times))
            for r in rows:
                if r[1] == name:
                    r.append(base_t)
    print("\n".join(notes))
    print("\n| K | set | call | status | time (s) | x baseline | peak MB | x baseline peak |\n"
          "|---|---|---|---|---|---|---|---|")
    for K, name, call, status, t, mem, base_mem, base_t in rows:
        print(f"| {K} | {name} | {call} | {status} | {t:.4g} | {t / base_t:.3g} | {mem:.3g} | "
              f"{mem / base_mem:.3g} |")
    for name in dict.fromkeys(r[1] for r in rows):
        r = next(r for r in rows if r[1] == name)
        print(f"baseline {name}: np.sort of {name} scores + one read of Y: {r[7] * 1e6:.1f} us, "
              f"peak {r[6]:.3g} MB")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=None, help="data folder (default: $BIPARTITE_DATA, else "
                                                 "../shared/data)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the CAL500 70/30 split")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc pass")
    ap.add_argument("--fast", action="store_true",
                    help="skip dictatorship.report, diagnose and the CLI (O(K^2) pair loops)")
    ap.add_argument("--figure", action="store_true",
                    help="also time Diagnostics.figure() (the figure of 'bipartite report --out'; "
                         "minutes at K=174)")
    args = ap.parse_args()
    run(args.data, args.seed, not args.no_memory, args.fast, args.figure)


if __name__ == "__main__":
    main()
