"""The one-shot commands on a finite problem: ``bipartite frontier`` and ``bipartite dictatorship``,
with their strict-JSON and table output (no NaN or Infinity literals: ``null``, with the reason in
a ``"notes"`` field)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from bipartite.cli._parser import PLOT_SUFFIXES

__all__ = ["cmd_dictatorship", "cmd_frontier"]


def _json_safe(obj, notes: list[str], where: str = ""):
    """``obj`` with every NaN / ±inf float replaced by None (noted in ``notes``): strict JSON."""
    if isinstance(obj, dict):
        return {str(k): _json_safe(v, notes, f"{where}.{k}" if where else str(k))
                for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_json_safe(v, notes, f"{where}[{i}]") for i, v in enumerate(obj)]
    if hasattr(obj, "item") and not isinstance(obj, str):  # numpy scalar
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        notes.append(f"{where} is {obj} in the computation, written as null")
        return None
    return obj


def _dump_json(payload: dict, notes_extra: list[str] | None = None) -> None:
    notes: list[str] = list(notes_extra or [])
    safe = _json_safe(payload, notes)
    if notes:
        safe["notes"] = notes
    print(json.dumps(safe, indent=1, allow_nan=False))


def _print_table(df, fmt: str) -> None:
    if fmt == "csv":
        print(df.to_csv(index=False), end="")
    elif fmt == "json":
        _dump_json({"rows": df.to_dict(orient="records")})
    else:
        print(df.to_string(index=False, float_format=lambda v: f"{v:.6f}"))


def _named_columns(df, names: list[str]):
    """Columns ``AUC_1``, ``eta_2``, ... renamed with the label names."""
    mapping = {}
    for k, name in enumerate(names):
        for stem in ("AUC", "eta"):
            if f"{stem}_{k + 1}" in df.columns and name != str(k + 1):
                mapping[f"{stem}_{k + 1}"] = f"{stem}_{name}"
    return df.rename(columns=mapping)


def _coarser_eps(eps: float) -> float:
    """The --eps a time-out suggests after ``eps`` timed out: 5 times coarser, at most 0.1."""
    return min(5 * eps, 0.1) if eps < 0.1 else 2 * eps


def cmd_frontier(args) -> int:
    import time

    from bipartite.data import load_problem
    from bipartite.pareto import dp_limit, frontier_table

    problem, names = load_problem(args.problem, return_labels=True)
    if args.plot is not None:  # before the work
        _check_frontier_plot(args.plot, problem.K)
    if problem.n > args.max_n:
        raise ValueError(f"{args.problem}: n = {problem.n} points is past --max-n {args.max_n} "
                         f"(the exact MILP has n(n-1) = {problem.n * (problem.n - 1)} binaries); "
                         "raise --max-n deliberately.")
    limit = dp_limit(problem.K)
    method = args.method if args.method != "auto" else (
        "dp" if problem.n <= limit else "milp")
    if problem.n > limit and args.eps is None:
        print(f"warning: n = {problem.n} > {limit}: the exact frontier needs the MILP "
              f"(measured: > 60 s already at n = 10 for K = 2, growing fast); expect minutes to "
              f"hours. --eps 0.01 gives an ε-approximate frontier much sooner; --time-limit caps "
              f"the wait (now {args.time_limit:g} s).", file=sys.stderr)
    print(f"computing the {'ε-approximate' if args.eps else 'exact'} frontier of n = "
          f"{problem.n} points, K = {problem.K} labels (method {method}, time limit "
          f"{args.time_limit:g} s) ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    try:
        df = frontier_table(problem, method=args.method, eps=args.eps,
                            time_limit=args.time_limit,
                            dp_max_n=max(limit, problem.n) if args.method == "dp" else limit)
    except TimeoutError:
        advice = ("try --eps 0.01 (ε-approximate) or a longer --time-limit" if args.eps is None
                  else f"the ε-approximate frontier (--eps {args.eps:g}) needs fewer MILP solves "
                       f"with a coarser ε: try --eps {_coarser_eps(args.eps):g}, or a longer "
                       "--time-limit")
        raise TimeoutError(f"{args.problem}: the frontier was not finished within --time-limit "
                           f"{args.time_limit:g} s; {advice}.") from None
    print(f"done in {time.perf_counter() - start:.1f} s: {int(df['point'].str.startswith('frontier').sum())} "
          "Pareto points", file=sys.stderr)
    if args.plot is not None:
        print(f"wrote {_plot_frontier_table(df, names, args.plot, args.problem.name)}",
              file=sys.stderr)
    df = _named_columns(df, names)
    if args.format == "table":
        print(f"# {args.problem}: n = {problem.n} points, K = {problem.K} labels "
              f"{names}, pi = {[round(float(p), 6) for p in problem.pi]}")
    _print_table(df, args.format)
    return 0


def _check_frontier_plot(path: Path, K: int) -> None:
    """Refuse a ``--plot`` that cannot be drawn, before the frontier is computed."""
    from bipartite._utils.files import check_output_dir
    from bipartite.plots import FIGURE_SUFFIXES

    if K != 2:
        raise ValueError(f"--plot draws the frontier of K = 2 labels (one axis each), got K = {K}.")
    if path.suffix.lower() not in FIGURE_SUFFIXES:
        raise ValueError(f"--plot must end in {PLOT_SUFFIXES}, got {str(path)!r}.")
    check_output_dir(path.parent, what="the --plot folder")


def _plot_frontier_table(df, names: list[str], path: Path, title: str) -> Path:
    """Draw the rows of :func:`bipartite.pareto.frontier_table` (K = 2) with
    :func:`bipartite.plots.plot_frontier` into ``path``."""
    from bipartite.plots import new_figure, plot_frontier

    front = df[df["point"].str.startswith("frontier")]
    cols = ["AUC_1", "AUC_2"]
    fig, ax = new_figure(figsize=(5.0, 4.2), layout="constrained")
    plot_frontier(exact=front[cols].to_numpy(),
                  supported=front.loc[front["supported"].astype(bool), cols].to_numpy(),
                  label_points={row["point"]: [row["AUC_1"], row["AUC_2"]]
                                for _, row in df[~df.index.isin(front.index)].iterrows()},
                  ax=ax, labels=(f"AUC of {names[0]}", f"AUC of {names[1]}"), title=title,
                  path=path)
    return path


def cmd_dictatorship(args) -> int:
    from bipartite.data import load_problem
    from bipartite.dictatorship import dictatorship_tables

    problem, names = load_problem(args.problem, return_labels=True)
    labels, orders = dictatorship_tables(problem, a=args.a)
    labels["label"] = names
    orders = _named_columns(orders, names)
    if args.format == "json":
        _dump_json({"labels": labels.to_dict(orient="records"),
                    "orders": orders.to_dict(orient="records")},
                   ["dictates_below_pi / dictates_above_pi are null where the label never "
                    "becomes dictator on that side (no threshold exists)"]
                   if labels[["dictates_below_pi", "dictates_above_pi"]].isna().any().any()
                   else None)
        return 0
    print(f"# {args.problem}: n = {problem.n} points, K = {problem.K} labels {names}")
    _print_table(labels, "table")
    print()
    _print_table(orders, "table")
    return 0

