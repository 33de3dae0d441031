"""Time and peak memory of the multi-label paths at K = 53 and K = 174 (issue 25, item 4).

Calls, on two real Mulan sets (``bipartite.data.load_mulan``):

* K = 53: enron, Mulan's standard split (1123 train / 579 test rows; label ``D.D18`` has no
  positive in the training rows);
* K = 174: CAL500, a seeded 70/30 split (351 / 151 rows; CAL500 has no standard split).

Metrics and diagnostics: ``multilabel_auc``, ``effective_weights`` / ``effective_weight_shares`` /
``dictator``, loss aggregation's plug-in scorer (marginals only, ``bayes.loss_aggregation``; also
sum aggregation's, ``bayes.label_aggregation_scores(eta)``), the all-pairs cross-pair win rates
and near-tie rates (``dictatorship.cross_pair_win_rates`` / ``near_tie_rates``, beside the
per-pair loop they replace), ``dictatorship.report``, ``diagnose`` and the ``bipartite report``
command. Scores: per-label ridge regressions on the standardised features (one closed-form solve
for all labels), clipped to [0.001, 0.999] as marginal estimates η̂_k; the plug-in scorer is
``Σ_k α_k η̂_k`` with ``α = effective_weights(π̂)`` and π̂ the add-one (Laplace) estimate of the
train priors, ``(count + 1) / (n + 2)``: the raw train prior of enron's ``D.D18`` is 0, which
``effective_weights`` refuses (one row of the table shows that refusal).

Learners (``--no-learners`` skips them), on the training rows, one CPU thread (``n_jobs=1``):
the linear plug-in (``MLPRanker(method="plugin", hidden=())``, 5 epochs) and the max-min
plug-in (the same heads, then the ``a_`` ascent), one epoch of the pairwise MLP (hidden (64, 64),
loss aggregation) and of max-min group DRO (the same net, ``objective="max_min"``; the median of
3 epochs' ``train_seconds``), and the XGBoost plug-in (20 trees of depth 4 per label, K heads);
``--xgb-pairwise`` adds the XGBoost pairwise fit (20 trees on the K-fold stack of the rows).

Timing: every call is timed in the same process beside a baseline, **one ``np.sort`` of the
scores plus one read of ``Y`` as integers (``Y.sum(axis=0, dtype=int32)``; until round 4 a
float64 copy, which alone cost up to 40x ``np.sort`` and inflated the floor)**, interleaved (baseline,
call, baseline, call, ...); a call taking under 0.2 s is repeated until 0.2 s have passed and its
per-call time is used. Calls with a reference (``ref``) are also given as a ratio to it, timed
beside them: the per-pair loop for the all-pairs matrices, the same learner on label 0 alone
(K = 1) for the learners, loss aggregation's epoch for group DRO's. Only ratios are meaningful on
a shared machine. Memory: **traced peak** — a second pass under :mod:`tracemalloc` (Python and
NumPy allocations; not torch's or XGBoost's native buffers; times come from the first pass) — and
**RSS peak** — the growth of the process's peak resident set (``VmHWM``, reset through
``/proc/self/clear_refs`` before the call; Linux), which includes native buffers but not memory
an allocator kept from an earlier call.

    python benchmarks/bench_multilabel_k.py              # both sets, time and memory
    python benchmarks/bench_multilabel_k.py --no-memory  # time only (no tracemalloc pass)
    python benchmarks/bench_multilabel_k.py --fast       # skip the O(K^2) diagnostics and CLI
    python benchmarks/bench_multilabel_k.py --no-learners
    python benchmarks/bench_multilabel_k.py --xgb-pairwise
    python benchmarks/bench_multilabel_k.py --figure     # also the report figure (slow at K=174)
    python benchmarks/bench_multilabel_k.py --data /path/to/data
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import sys
import tempfile
import time
import tracemalloc
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bipartite.bayes import effective_weights, label_aggregation_scores, loss_aggregation
from bipartite.cli import main as cli_main
from bipartite.data import load_mulan
from bipartite.diagnostics import diagnose
from bipartite.dictatorship import (
    cross_pair_win_rate,
    cross_pair_win_rates,
    dictator,
    effective_weight_shares,
    near_tie_rate,
    near_tie_rates,
    report,
)
from bipartite.learners import MLPRanker, XGBRanker
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


def _status_mb(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    return float("nan")


def rss_peak_mb(fn):
    """Growth of the peak resident set during one call (VmHWM after, reset before), in MB;
    NaN where /proc/self/clear_refs is unavailable (not Linux)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        fn()
        return float("nan")
    before = _status_mb("VmRSS")
    fn()
    return _status_mb("VmHWM") - before


@dataclass
class Case:
    """A timed call: ``fn``; ``ref`` a reference timed beside it (ratio column); ``epoch``: the
    call fits an MLPRanker and the time reported is its median epoch (``history_``)."""

    fn: object
    ref: object = None
    epoch: bool = False


def per_epoch(fn):
    est = fn()
    return float(np.median([h["train_seconds"] for h in est.history_]))


def timed(case, fn):
    return per_epoch(fn) if case.epoch else per_call(fn)


def peak_mb(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def pair_loop(Y, s, tol=None):
    """The per-pair functions over every label pair (what the all-pairs matrices replace)."""
    K = Y.shape[1]
    for k in range(K):
        for j in range(k + 1, K):
            if tol is None:
                cross_pair_win_rate(Y, s, k, j)
            else:
                near_tie_rate(Y, s, k, j, tol=tol)


def learner_cases(Xtr, Ytr, xgb_pairwise):
    """The learner fits; each with its reference on label 0 alone (K = 1)."""
    lin = dict(hidden=(), epochs=5, batch_size=256, lr=0.01, n_jobs=1, device="cpu",
               random_state=0)
    net = dict(hidden=(64, 64), epochs=3, validation_fraction=0.0, n_jobs=1, device="cpu",
               random_state=0)
    xgbk = dict(n_estimators=20, max_depth=4, n_jobs=1, random_state=0)
    Y1 = Ytr[:, :1]

    def fit(make, Y):
        return lambda: make().fit(Xtr, Y)

    def la_epoch():
        return MLPRanker(method="pairwise", **net)

    def dro_epoch():
        return MLPRanker(objective="max_min", method="pairwise", **net)

    def plugin():
        return MLPRanker(method="plugin", **lin)

    def mm_plugin():
        return MLPRanker(objective="max_min", method="plugin", validation_fraction=0.25, **lin)

    def xgb_plugin():
        return XGBRanker(method="plugin", **xgbk)

    out = {
        "linear plug-in fit (MLPRanker hidden=(), 5 epochs)":
            Case(fit(plugin, Ytr), ref=fit(plugin, Y1)),
        "max-min plug-in fit (linear heads + a_ ascent)":
            Case(fit(mm_plugin, Ytr), ref=fit(plugin, Ytr)),
        "pairwise MLP epoch (64, 64), loss aggregation":
            Case(fit(la_epoch, Ytr), ref=fit(la_epoch, Y1), epoch=True),
        "max-min group DRO epoch (64, 64)":
            Case(fit(dro_epoch, Ytr), ref=fit(la_epoch, Ytr), epoch=True),
        "XGB plug-in fit (K heads x 20 trees)":
            Case(fit(xgb_plugin, Ytr), ref=fit(xgb_plugin, Y1)),
    }
    if xgb_pairwise:
        def xgb_pair():
            return XGBRanker(method="pairwise", **xgbk)
        out["XGB pairwise fit (K-fold stack, 20 trees)"] = Case(fit(xgb_pair, Ytr),
                                                                 ref=fit(xgb_pair, Y1))
    return out


def cases(name, tr, te, tmp, fast, figure, learners=True, xgb_pairwise=False):
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
    calls = {k: Case(v) for k, v in calls.items()}
    calls["cross_pair_win_rates (all pairs)"] = Case(lambda: cross_pair_win_rates(Yte, s),
                                                     ref=lambda: pair_loop(Yte, s))
    calls["near_tie_rates (all pairs, tol=1e-3)"] = Case(
        lambda: near_tie_rates(Yte, s, tol=1e-3), ref=lambda: pair_loop(Yte, s, 1e-3))
    if not fast:
        calls |= {k: Case(v) for k, v in {
            "dictatorship.report": lambda: report(Yte, s),
            "diagnose (1 scorer, n_boot=0)": lambda: diagnose(frame, scores="plugin",
                                                              labels=labels, n_boot=0),
            "bipartite report CLI (n_boot=0)": cli,
        }.items()}
    if figure:
        import matplotlib.pyplot as plt

        diag = diagnose(frame, scores="plugin", labels=labels, n_boot=0)
        calls["Diagnostics.figure()"] = Case(lambda: plt.close(diag.figure()))
    if learners:
        calls |= learner_cases(np.asarray(tr["X"], dtype=np.float64), Ytr, xgb_pairwise)
    one_class = int(((Yte.min(0) == Yte.max(0))).sum())
    notes = (f"{name}: n_train={n_tr}, n_test={len(Yte)}, K={K}, test labels with one class: "
             f"{one_class}, train labels with prior 0 or 1: {int(((pi_raw == 0) | (pi_raw == 1)).sum())}")
    Yi = np.asarray(Yte)
    baseline = lambda: (np.sort(s), Yi.sum(axis=0, dtype=np.int32))  # noqa: E731
    return calls, baseline, notes


def torch_threads() -> str:
    try:
        import torch
    except ImportError:
        return "not installed"
    return str(torch.get_num_threads())


def run(data, seed, memory, fast, figure, learners=True, xgb_pairwise=False):
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined AUCs, single-class labels: in the notes
        for name, tr, te in problems(data, seed):
            calls, baseline, note = cases(name, tr, te, tmp, fast, figure, learners,
                                          xgb_pairwise)
            notes.append(note)
            K = np.asarray(te["Y"]).shape[1]
            base_mem = peak_mb(baseline) if memory else float("nan")
            base_times = []
            for call, case in calls.items():
                base_times.append(per_call(baseline))
                rss = float("nan")
                try:
                    rss = rss_peak_mb(case.fn)
                    t = timed(case, case.fn)
                    status = "ok"
                except Exception as exc:  # recorded, not raised: the table is the finding
                    t, status = float("nan"), f"{type(exc).__name__}: {str(exc)[:90]}"
                base_times.append(per_call(baseline))
                ref = timed(case, case.ref) if case.ref is not None and status == "ok" \
                    else float("nan")
                mem = peak_mb(case.fn) if memory and status == "ok" else float("nan")
                rows.append([K, name, call, status, t, ref, mem, base_mem, rss])
            base_t = float(np.median(base_times))
            for r in rows:
                if r[1] == name:
                    r.append(base_t)
    print("command: python " + " ".join(sys.argv))
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; numpy {np.__version__}; "
          f"threads: NumPy 1, torch {torch_threads()}")
    print("\n".join(notes))
    print("\n| K | set | call | status | time (s) | x baseline | x ref | traced peak MB "
          "| x baseline peak | RSS peak MB |\n|---|---|---|---|---|---|---|---|---|---|")
    for K, name, call, status, t, ref, mem, base_mem, rss, base_t in rows:
        print(f"| {K} | {name} | {call} | {status} | {t:.4g} | {t / base_t:.3g} | "
              f"{t / ref:.3g} | {mem:.3g} | {mem / base_mem:.3g} | {rss:.3g} |")
    for name in dict.fromkeys(r[1] for r in rows):
        r = next(r for r in rows if r[1] == name)
        print(f"baseline {name}: np.sort of {name} scores + one read of Y: {r[9] * 1e6:.1f} us, "
              f"peak {r[7]:.3g} MB")
    print("x ref: all-pairs matrices / the per-pair loop over the K(K-1)/2 pairs; learners / "
          "the same learner on label 0 alone (K = 1); max-min plug-in / the linear plug-in; "
          "group DRO epoch / loss aggregation's epoch. Epoch rows: median train_seconds of 3.")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=None, help="data folder (default: $BIPARTITE_DATA, else "
                                                 "../shared/data)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the CAL500 70/30 split")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc pass")
    ap.add_argument("--fast", action="store_true",
                    help="skip dictatorship.report, diagnose and the CLI (O(K^2) pair loops)")
    ap.add_argument("--no-learners", action="store_true", help="skip the learner fits")
    ap.add_argument("--xgb-pairwise", action="store_true",
                    help="also the XGBoost pairwise fit (the K-fold stack of the training rows)")
    ap.add_argument("--figure", action="store_true",
                    help="also time Diagnostics.figure() (the figure of 'bipartite report --out'; "
                         "minutes at K=174)")
    args = ap.parse_args()
    run(args.data, args.seed, not args.no_memory, args.fast, args.figure,
        not args.no_learners, args.xgb_pairwise)


if __name__ == "__main__":
    main()
