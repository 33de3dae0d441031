"""Exact check of the K-label balance propositions (docs/theory.md §12.11–§12.14) on random finite
problems, K = 3, 4, 5 (and K = 2 as the reduction to §12.6–§12.7).

For each problem (``FiniteProblem.random(n, K)`` with arbitrary joints, deterministic labels, or
conditionally independent labels) and each aggregation of :func:`family` it evaluates
:func:`bipartite.pareto.balance_condition` against loss aggregation (a = 1) and checks, with the
optimality premises by enumeration of every weak order of the ``n`` points:

* ``P1``: loss aggregation's AUC vector maximises ``a·AUC`` over all weak orders, and ``a·d ≤ 0``;
* ``P2`` (weighted sums and lexicographic weights, linear costs): the label scorer maximises
  ``b·AUC``, ``b = w π(1 − π)``, and ``b·d ≥ 0``;
* ``E`` (same): the label scorer's AUC vector is loss aggregation's with mixing weights ``b``;
* ``N_min``: ``necessary`` False ⇒ no strictly higher Min AUC (for K ≥ 3 ``necessary`` is
  ``can_win``; ``K2``: for K = 2 and weighted sums it equals §12.7's ``can_win``); ``N_spread``: ``can_win_spread``
  False ⇒ no strictly lower spread; ``S``: ``sufficient`` ⇒ a strictly higher Min AUC.

A proposition fails on a row when its check is False (``fail_*`` columns); the test suite
(``tests/pareto/test_balance_k.py``) runs :func:`check_problems` on 300 problems per K (slow
tests: 3 000 per K, 4 and 5 points) and asserts 0 failures. Heuristics are counted, not asserted: ``heur_tilt_miss`` (AND / OR: the typical-point
tilt is away from every worst label, and label aggregation wins) and, for weighted sums,
``wins_without_tilt`` (wins although ``g = b/a`` is not largest on a worst label: impossible for
K = 2, §12.7). Usage::

    python analysis/balance_k.py [OUT] [--quick]

writes ``rows.csv`` and ``summary.md`` to OUT (default ``balance_k``); ``--quick``: 50 problems
per (K, kind).
"""
from __future__ import annotations

import sys
import warnings
from functools import cache
from pathlib import Path

import numpy as np

from bipartite.bayes import label_aggregation, loss_aggregation
from bipartite.pareto import balance_condition, equivalent_loss_weights, lexicographic_weights
from bipartite.population import FiniteProblem, enumerate_weak_orders

TOL = 1e-10
KINDS = ("random", "deterministic", "independent")


@cache
def _win_tensor(n: int) -> np.ndarray:
    """``S[o, i, j]``: 1 if order ``o`` ranks ``i`` above ``j``, ½ on ties (diagonal included)."""
    f = np.array(list(enumerate_weak_orders(n)))
    return (f[:, :, None] > f[:, None, :]) + 0.5 * (f[:, :, None] == f[:, None, :])


def all_order_aucs(P: FiniteProblem) -> np.ndarray:
    """Per-label AUCs of every weak order of the points, shape (n_orders, K): the achievable set."""
    W = np.stack([P.pair_weights(k) for k in range(P.K)])
    return np.einsum("oij,kij->ok", _win_tensor(P.n), W)


def family(K: int, pi: np.ndarray, rng: np.random.Generator) -> dict[str, dict]:
    """The aggregations compared (keyword arguments of ``balance_condition``):

    ``sum``; ``sum_random`` (w ~ U(0.25, 4)^K); ``sum_up`` / ``sum_down`` (loss aggregation with
    one random label's weight doubled / halved: ``b = a (1 + t e_j)``, the weights under which
    §12.12 can rule a win out); ``lex`` (a random label order, linear costs); ``lex_uniform``
    (uniform costs); ``or``; ``and``; ``atleast2`` (a callable: at least two labels)."""
    v = pi * (1.0 - pi)
    j = int(rng.integers(K))
    order = rng.permutation(K)
    w_lex = lexicographic_weights(order)
    up, down = np.ones(K), np.ones(K)
    up[j], down[j] = 2.0, 0.5
    return {"sum": {"aggregate": "sum"},
            "sum_random": {"aggregate": "sum", "w": rng.uniform(0.25, 4.0, K)},
            "sum_up": {"aggregate": "sum", "w": up / v},
            "sum_down": {"aggregate": "sum", "w": down / v},
            "lex": {"aggregate": "sum", "w": w_lex},
            "lex_uniform": {"aggregate": "sum", "w": w_lex, "costs": "uniform"},
            "or": {"aggregate": "or"},
            "and": {"aggregate": "product"},
            "atleast2": {"aggregate": _at_least_two}}


def _at_least_two(y: np.ndarray) -> float:
    return float(y.sum() >= 2)


def draw_problem(n: int, K: int, kind: str, rng: np.random.Generator) -> FiniteProblem:
    """A random problem with every prior in (1e-6, 1 − 1e-6) (redrawn otherwise)."""
    while True:
        if kind == "independent":
            P = FiniteProblem.from_eta(rng.dirichlet(np.ones(n)), rng.uniform(0, 1, (n, K)))
        else:
            P = FiniteProblem.random(n, K, seed=rng, deterministic=kind == "deterministic")
        if np.all((P.pi > 1e-6) & (P.pi < 1 - 1e-6)):
            return P


def check_problem(P: FiniteProblem, rng: np.random.Generator) -> list[dict]:
    """One row per aggregation of :func:`family`: the verdicts and every check (True = holds)."""
    aucs = all_order_aucs(P)
    a = np.ones(P.K)
    rows = []
    for name, kw in family(P.K, P.pi, rng).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = balance_condition(P, **kw)
            except ValueError as exc:  # a constant aggregated label (e.g. at least two of K = 2)
                if "constant" in str(exc) or "undefined" in str(exc):
                    continue
                raise
        L, A, d = np.array(r["loss_aucs"]), np.array(r["label_aucs"]), np.array(r["d"])
        label_min = r["min_winner"] == "label"
        label_spread = r["spread_winner"] == "label"
        ws = kw["aggregate"] == "sum" and kw.get("costs", "linear") == "linear"
        row = {"K": P.K, "n": P.n, "aggregation": name, "min_winner": r["min_winner"],
               "spread_winner": r["spread_winner"], "can_win": r["can_win"],
               "necessary": r["necessary"], "can_win_spread": r["can_win_spread"], "sufficient": r["sufficient"],
               "worst_changed": r["worst_changed"], "tilt_toward_worst": r["tilt_toward_worst"],
               "weighted_sum": ws}
        row["ok_P1"] = bool(a @ d <= TOL and (aucs @ a).max() <= a @ L + TOL)
        if ws:
            b = equivalent_loss_weights(P.pi, kw.get("w"))
            row["ok_P2"] = bool(b @ d >= -TOL and (aucs @ b).max() <= b @ A + TOL)
            # the same scorer (to rounding: exact ties may split by an ulp in one of the two)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row["ok_E"] = bool(np.allclose(loss_aggregation(P.eta, P.pi, b),
                                               label_aggregation(P, **kw), rtol=1e-12, atol=0))
        row["ok_N_min"] = bool(r["necessary"] or not label_min)
        if P.K == 2 and ws:  # §12.12 reduces to §12.7's tilt verdict
            row["ok_K2"] = r["necessary"] == r["can_win"]
        row["ok_N_spread"] = bool(r["can_win_spread"] or not label_spread)
        row["ok_S"] = bool(not r["sufficient"] or label_min)
        row["heur_tilt_miss"] = bool(name in ("or", "and") and r["tilt_toward_worst"] is False
                                     and label_min)
        row["wins_without_tilt"] = bool(ws and label_min and not r["tilt_toward_worst"])
        row["min_not_spread"] = bool(label_min and not label_spread)
        rows.append(row)
    return rows


def check_problems(K: int, n: int, n_problems: int, *, kind: str = "random",
                   seed: int = 0) -> list[dict]:
    """:func:`check_problem` on ``n_problems`` problems of one kind; rows carry ``kind``, ``problem``."""
    rng = np.random.default_rng([seed, K, n, KINDS.index(kind)])
    rows = []
    for i in range(n_problems):
        P = draw_problem(n, K, kind, rng)
        rows += [{"kind": kind, "problem": i, **r} for r in check_problem(P, rng)]
    return rows


CHECKS = ("ok_P1", "ok_P2", "ok_E", "ok_N_min", "ok_N_spread", "ok_S", "ok_K2")


def summarise(rows: list[dict]):
    """Counts per (K, kind, aggregation): rows, failures of every proposition, verdict counts."""
    import pandas as pd

    df = pd.DataFrame(rows)
    for c in CHECKS:
        if c not in df:
            df[c] = np.nan
        df["fail_" + c[3:]] = df[c] == False  # noqa: E712  (NaN: not applicable)
    df["label_min"] = df.min_winner == "label"
    df["ruled_out"] = df.necessary == False  # noqa: E712
    df["ruled_out_spread"] = df.can_win_spread == False  # noqa: E712
    df["suff"] = df.sufficient == True  # noqa: E712
    g = df.groupby(["K", "kind", "aggregation"], sort=False)
    return g.agg(rows=("label_min", "size"), label_higher_min=("label_min", "sum"),
                 ruled_out=("ruled_out", "sum"), ruled_out_spread=("ruled_out_spread", "sum"),
                 sufficient=("suff", "sum"), worst_changed=("worst_changed", "sum"),
                 wins_without_tilt=("wins_without_tilt", "sum"),
                 heur_tilt_miss=("heur_tilt_miss", "sum"),
                 min_not_spread=("min_not_spread", "sum"),
                 **{"fail_" + c[3:]: ("fail_" + c[3:], "sum") for c in CHECKS}).reset_index()


def doc_table(rows: list[dict]):
    """docs/theory.md §12.14: per (K, aggregation), pooled over the kinds of problem."""
    t = summarise(rows).groupby(["K", "aggregation"], sort=False).sum(numeric_only=True)
    fails = t[[c for c in t if c.startswith("fail_")]].sum(axis=1)
    t = t.assign(failures=fails).drop(columns=[c for c in t if c.startswith("fail_")])
    return t.reset_index()


def main(argv: list[str]) -> None:
    from bipartite.studies.report import markdown_table

    args = [x for x in argv if not x.startswith("--")]
    quick = "--quick" in argv
    out = Path(args[0] if args else "balance_k")
    out.mkdir(parents=True, exist_ok=True)
    n_problems = 50 if quick else 1000
    rows = [r for K in (2, 3, 4, 5) for kind in KINDS
            for r in check_problems(K, 5, n_problems, kind=kind, seed=1)]
    import pandas as pd

    pd.DataFrame(rows).to_csv(out / "rows.csv", index=False)
    table = summarise(rows)
    fails = table[[c for c in table if c.startswith("fail_")]].to_numpy().sum()
    (out / "summary.md").write_text(
        f"{n_problems} problems per (K, kind), n = 5, a = 1; failures of stated propositions: "
        f"{int(fails)}\n\n" + markdown_table(table) + "\n\nPooled over the kinds "
        "(docs/theory.md §12.14):\n\n" + markdown_table(doc_table(rows)) + "\n")
    print((out / "summary.md").read_text())


if __name__ == "__main__":
    main(sys.argv[1:])
