"""The ``bipartite`` command line (also ``python -m bipartite``).

Commands
--------
``bipartite reproduce [--paper la25] [--full | --quick | --smoke] [--real-data] [--only S] [--out DIR] [--jobs N] [--banking P] [--letor P]``
    Run a paper's study set; write tidy results (Parquet + CSV), figures (PNG + PDF) and
    ``summary.md``. Rerunning into the same folder resumes it.
``bipartite study run CONFIG.toml [--out DIR] [--jobs N] [--backend loky|dask] [--scheduler ADDR]``
    Run a user-defined study: a grid of parameters x replicates over a registered study function
    (schema in ``simulations/README.md``).
``bipartite study resume DIR`` / ``bipartite study status DIR`` / ``bipartite study list``
    Continue a study from its folder alone; count its tasks; list the registered study functions.
``bipartite report FILE|- --score COL [--score COL ...] --label COL [--label COL ...] [--positive-label V] [--qid COL] [--weight COL] [--gauc-weighting pairs|uniform|impressions] [--level L] [--dropna] [--n-boot B] [--interval auto|wald|t|percentile|bca] [--max-fpr X] [--format markdown|json|html] [--out DIR] [--seed N] [--scheduler ADDR] [--workers N] [--memory-limit SIZE]``
    Diagnose your own scores (:func:`bipartite.diagnostics.diagnose`); FILE may be a folder or
    a glob of Parquet files: then out of core, exact, on a local dask cluster or the running
    one at ``--scheduler`` (docs/out_of_core.md).
``bipartite figures DIR`` / ``bipartite tables DIR``
    Redraw the figures / rebuild the tables of a results folder from its saved results.
``bipartite frontier PROBLEM [--method auto|dp|milp] [--eps E] [--time-limit S]`` / ``bipartite dictatorship PROBLEM``
    One-shot answers for a finite problem given as JSON (``{"mass": [...], "label_probs":
    [[...]]}`` or ``{"mass": [...], "eta": [[...]]}``, optional ``"labels"``: label names) or NPZ
    with the same keys.

Output with ``--format json`` is strict JSON: no NaN or Infinity literals (``null``, with the
reason in a ``"notes"`` field). A closed pipe (``bipartite ... | head``) ends quietly.

Exit status: 0 on success, 1 when some study tasks failed (their errors are in
``DIR/failures.csv``, their tracebacks in the records of ``DIR/tasks/segment-*.jsonl``), 2 for
usage and configuration errors.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import sys
import textwrap
import warnings
from pathlib import Path

__all__ = ["build_parser", "main"]

_EPILOG = "Documentation: README.md and simulations/README.md (TOML schema of `study run`)."


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keep the hand-wrapped descriptions; show an option's default once (only when its help does
    not already say it, and not for flags or unset options)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if ("default" in text or default in (None, False, argparse.SUPPRESS)
                or action.option_strings == [] or isinstance(default, bool)):
            return text
        return f"{text} (default: %(default)s)"


#: The frontier command refuses problems with more points than this unless --max-n raises it:
#: the exact MILP has n(n-1) binaries and n(n-1)(n-2) transitivity rows.
FRONTIER_MAX_N = 40


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _float_list(text: str) -> list[float]:
    fields = text.split(",")
    try:
        if any(not f.strip() for f in fields):
            raise ValueError
        values = [float(v) for v in fields]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers such as 1,2.5 (no empty fields), got {text!r}"
        ) from None
    if not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected finite numbers, got {text!r}")
    return values


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def _all_cores() -> int:
    """The cores this process may use (its CPU affinity where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _add_execution_options(p: argparse.ArgumentParser, *, default_jobs: int | None) -> None:
    p.add_argument("--jobs", "-j", type=_positive_int, default=default_jobs,
                   help="parallel workers (default: the config's [execution] jobs, else 1)"
                   if default_jobs is None else "parallel workers")
    p.add_argument("--backend", choices=["loky", "dask"], default=None,
                   help="loky: local processes via joblib; dask: dask.distributed (a "
                        "LocalCluster, or --scheduler)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="dask scheduler address, e.g. tcp://10.0.0.5:8786 (implies "
                        "--backend dask)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--wait", type=float, nargs="?", const=math.inf, default=0.0, metavar="SECONDS",
                   help="if another run holds the output folder, wait up to SECONDS for it; "
                        "no value: wait for ever (default: fail at once)")
    p.add_argument("--scheduler-timeout", type=_positive_float, default=30.0, metavar="SECONDS",
                   help="give up connecting to the dask scheduler after SECONDS")
    p.add_argument("--max-tasks", type=_positive_int, default=None, metavar="N",
                   help="refuse studies with more tasks (default: 1,000,000, or the config's "
                        "[execution] max_tasks)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``bipartite`` (each command has its own ``--help``)."""
    from bipartite import __version__

    parser = argparse.ArgumentParser(
        prog="bipartite", formatter_class=_Formatter, epilog=_EPILOG,
        description="Bipartite ranking from multiple labels: reproduce the studies, run your own "
                    "simulation grids, and get exact frontiers and dictatorship diagnostics of "
                    "small finite problems.")
    parser.add_argument("--version", action="version", version=f"bipartite {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add_command in (_add_reproduce, _add_study, _add_report, _add_rebuild,
                        _add_frontier, _add_dictatorship):
        add_command(sub)
    return parser


def _add_reproduce(sub) -> None:
    """``bipartite reproduce``."""
    from bipartite.experiments import PAPERS

    rp = sub.add_parser(
        "reproduce", formatter_class=_Formatter, epilog=_EPILOG,
        help="run a paper's studies; write results, figures and summary.md",
        description=textwrap.dedent("""\
            Run the registered study set of a paper and write, under --out:
              studies/<study>/        one study folder each (manifest, task files,
                                      results.parquet, results.csv)
              figures/*.png, *.pdf    the figures
              tables/*.csv            the key-number tables
              summary.md              key numbers in Markdown tables
            Rerunning into the same --out resumes: finished tasks are not recomputed.
            The default needs no external data; --banking/--letor add the real-data studies.

            la25 studies: skew (per-label AUC and dictatorship vs label skew, Bayes and
            learners), frontier (exact vs supported frontier), correlation (label-correlation
            sweep), weights (label weights w vs loss weights a), learning_curve (learners vs
            Bayes as n grows), consistency (surrogate consistency, docs/theory.md §9),
            learners_vs_bayes, real (banking / LETOR trade-offs, only with --banking/--letor),
            and §7 as the paper ran it: section7_synthetic, section7_balance, section7_gap, and
            section7_bank_marketing / section7_letor when their data is found (LETOR: --letor;
            otherwise the data folder: $BIPARTITE_DATA, then ../shared/data; docs/theory.md §12)."""))
    rp.add_argument("--paper", default="la25", choices=sorted(PAPERS),
                    help="which paper's study set to run")
    size = rp.add_mutually_exclusive_group()
    size.add_argument("--full", action="store_true",
                      help="the full sizes the README's tables quote (LA25: about 16 min on 2 idle "
                           "cores, see the README) instead of the quick default")
    size.add_argument("--quick", action="store_true",
                      help="the default: small sizes (LA25: 42 s on 2 idle cores, peak 0.54 GB, "
                           "see the README; kept as a name for scripts)")
    size.add_argument("--smoke", action="store_true",
                      help="tiny sizes that only check the pipeline end to end (tests)")
    rp.add_argument("--out", type=Path, default=None,
                    help="output folder (default: results/<paper>-quick, or results/<paper> "
                         "with --full)")
    rp.add_argument("--only", default=None, metavar="STUDY[,STUDY]",
                    help="run only these studies of the paper (comma-separated names)")
    rp.add_argument("--real-data", action="store_true",
                    help="at the quick size, also the studies on real data found in the data "
                         "folder (--full runs them anyway; --only runs the ones it names; the "
                         "multi-label study runs only when --only names it)")
    rp.add_argument("--banking", type=Path, default=None, metavar="PATH",
                    help="bank_personal_loan.csv, adds the Banking trade-off study")
    rp.add_argument("--letor", type=Path, default=None, metavar="PATH",
                    help="a LETOR file or folder (MQ2008 S*.txt), adds the LETOR trade-off study")
    _add_execution_options(rp, default_jobs=_all_cores())


def _add_study(sub) -> None:
    """``bipartite study run|resume|status|list``."""
    sp = sub.add_parser("study", formatter_class=_Formatter, epilog=_EPILOG,
                        help="run, resume and inspect user-defined simulation studies",
                        description="User-defined studies: a TOML grid of parameters x "
                                    "replicates over a registered study function. See "
                                    "simulations/README.md for the schema.")
    ssub = sp.add_subparsers(dest="study_command", metavar="SUBCOMMAND")
    ssub.required = True
    run = ssub.add_parser(
        "run", formatter_class=_Formatter, epilog=_EPILOG,
        help="run a study from a TOML config",
        description=textwrap.dedent("""\
            Run the tasks of CONFIG (one per grid point x replicate) and gather their results
            into DIR/results.parquet and DIR/results.csv. Finished tasks are appended to a
            segment DIR/tasks/segment-NNNNNN.jsonl (one checksummed record a line, fsync-ed
            per batch); a task that raises records its error and traceback and the others go
            on. The resolved config is saved to DIR/manifest.json,
            so `bipartite study resume DIR` needs nothing else."""))
    run.add_argument("config", type=Path, metavar="CONFIG.toml",
                     help="study configuration, or the name of a shipped example "
                          "(`bipartite study list --examples`)")
    run.add_argument("--out", type=Path, default=None,
                     help="study folder (default: results/<study name>)")
    _add_execution_options(run, default_jobs=None)
    res = ssub.add_parser(
        "resume", formatter_class=_Formatter, epilog=_EPILOG,
        help="continue an interrupted study from its folder",
        description="Skip finished tasks, rerun unfinished (and failed) ones, then gather the "
                    "results. Uses DIR/manifest.json; no config needed.")
    res.add_argument("dir", type=Path, metavar="DIR", help="study folder")
    res.add_argument("--skip-failed", action="store_true",
                     help="keep the failure records instead of rerunning failed tasks")
    _add_execution_options(res, default_jobs=None)
    st = ssub.add_parser("status", formatter_class=_Formatter, help="count finished, failed "
                         "and pending tasks", description="Count the tasks of a study folder.")
    st.add_argument("dir", type=Path, metavar="DIR", help="study folder")
    ls = ssub.add_parser("list", formatter_class=_Formatter,
                         help="list registered study functions (and example configs)",
                         description="List the registered study functions and their parameters; "
                                     "with --examples, the example configs that ship with the "
                                     "package (copy one and edit it).")
    ls.add_argument("--examples", action="store_true", help="list the example study configs")


def _add_report(sub) -> None:
    """``bipartite report``."""
    rep = sub.add_parser(
        "report", formatter_class=_Formatter, epilog=_EPILOG,
        help="diagnose your own scores: per-label AUC with intervals, gAUC, dictatorship",
        description=textwrap.dedent("""\
            Diagnose one or more scorers against several binary labels, from a CSV, TSV or
            Parquet file, or standard input (FILE = -) (bipartite.diagnostics.diagnose):
            per-label AUC with intervals (DeLong, clustered by query with --qid, and the delta
            method; the query bootstrap with --n-boot B; --interval, docs/coverage.md), gAUC
            per label (its definition, --gauc-weighting, is printed), per-query AUCs, the
            cross-pair win rates W_{k>j} and the near-tie rate, the priors, the effective
            weights and the label that loss aggregation with a = 1 would favour (theory) beside
            the labels each scorer favours (observed, from its W_{k>j}), Diff and Min AUC, and
            for every pair of scorers the paired differences per label with DeLong's paired
            test and Holm-adjusted p-values. To choose a scorer: each scorer's Min, Diff and
            Macro AUC, the paired difference of Min AUC of every pair with an interval, and a
            recommendation that says when the difference is within noise. --out DIR writes a
            self-contained report.html with the figures. A time estimate and a progress bar go to stderr. Labels
            keep their column names; with many labels the printed pair table is cut by a
            stated rule (all pairs are in --out DIR/win_rates.csv and the JSON).

            Out of core (docs/out_of_core.md): FILE a folder or a glob (quoted) of Parquet
            files, or any FILE with --scheduler, computes the same tables exactly on dask, on a
            local cluster of --workers processes (--memory-limit in total) or on the running
            cluster at --scheduler; it needs --qid, and leaves the near-tie rates out (NaN,
            with a note)."""))
    rep.add_argument("file", type=Path, metavar="FILE",
                     help="CSV, TSV or Parquet file; - reads standard input (CSV/TSV, or "
                          "Parquet); a folder or a quoted glob of Parquet files: out of core")
    rep.add_argument("--score", action="append", required=True, metavar="COL",
                     help="score column (repeat it to compare scorers: any number)")
    rep.add_argument("--label", action="append", required=True, metavar="COL",
                     help="binary label column (repeat for each label)")
    rep.add_argument("--positive-label", default=None, metavar="VALUE",
                     help="the label value that means positive, for labels such as yes/no or "
                          "click/skip (each label column must have at most two values; "
                          "default: labels are 0/1)")
    rep.add_argument("--qid", default=None, metavar="COL", help="query-id column")
    rep.add_argument("--weight", default=None, metavar="COL", help="non-negative row weights")
    rep.add_argument("--gauc-weighting", choices=["pairs", "uniform", "impressions"],
                     default="pairs",
                     help="gAUC query weights: pairs = pair-weighted (each query by its "
                          "positive x negative pairs), uniform = query-averaged (as "
                          "torchmetrics), impressions = by the query's row weight")
    rep.add_argument("--level", type=float, default=0.95, metavar="L",
                     help="confidence level of every interval, in (0, 1)")
    rep.add_argument("--dropna", action="store_true",
                     help="drop rows with a missing value in a column used (and say how many); "
                          "default: such a row is an error naming it")
    rep.add_argument("--format", choices=["markdown", "json", "html"], default="markdown",
                     help="stdout format (JSON is strict: null with a note, never NaN; html: "
                          "the self-contained page with its figures)")
    rep.add_argument("--out", type=Path, default=None, metavar="DIR",
                     help="also write there report.html (self-contained: figures inline, no "
                          "network), report.json, report.md, the figures (figure_*.png, and "
                          "the summary report.png + .pdf) and the tables (CSV)")
    rep.add_argument("--seed", type=int, default=0, metavar="N", help="bootstrap seed")
    rep.add_argument("--n-boot", type=int, default=0, metavar="B",
                     help="bootstrap replicates (default 0: analytic intervals, DeLong "
                          "clustered by query and the delta method; B > 0: the query "
                          "bootstrap from per-query sums, as 0.5.0's default B = 1000; at most "
                          "1,000,000, bipartite.diagnostics.MAX_N_BOOT, within 2 GiB of "
                          "replicates)")
    rep.add_argument("--interval", choices=["auto", "wald", "t", "percentile", "bca"],
                     default="auto",
                     help="how every interval is made (docs/coverage.md): wald = est +- z se, "
                          "t = est +- t(G-1) se (analytic or bootstrap se); percentile and bca "
                          "need --n-boot > 0; auto = the method closest to nominal coverage in "
                          "simulation for the chosen --n-boot")
    rep.add_argument("--max-fpr", type=float, default=None, metavar="X",
                     help="add to the per-label AUC table the partial AUC up to false positive "
                          "rate X in (0, 1], McClish-standardised (as scikit-learn's "
                          "roc_auc_score(max_fpr=X)), pooled over rows with their weights; in "
                          "memory only")
    rep.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    rep.add_argument("--scheduler", default=None, metavar="ADDR",
                     help="out of core on the running dask cluster at ADDR (tcp://host:8786)")
    rep.add_argument("--workers", type=int, default=None, metavar="N",
                     help="out of core without --scheduler: the local cluster's worker "
                          "processes (1 thread each; default: the CPU count, at most 4)")
    rep.add_argument("--memory-limit", default=None, metavar="SIZE",
                     help="out of core without --scheduler: the local cluster's worker memory "
                          "in total, e.g. 2GB (default: dask's, the machine's memory)")


def _add_rebuild(sub) -> None:
    """``bipartite figures`` and ``bipartite tables``."""
    for name, what, default_sub in (("figures", "figures (PNG + PDF)", "figures"),
                                    ("tables", "tables (CSV) and summary.md", "tables")):
        cmd = sub.add_parser(
            name, formatter_class=_Formatter, epilog=_EPILOG,
            help=f"rebuild the {what} of a results folder",
            description=f"Rebuild the {what} of a `bipartite reproduce` or `bipartite study run` "
                        "folder from its saved results (nothing is recomputed).")
        cmd.add_argument("dir", type=Path, metavar="DIR", help="results folder")
        cmd.add_argument("--out", type=Path, default=None,
                         help=f"where to write them (default: DIR/{default_sub})")


#: Help of the PROBLEM argument of ``frontier`` and ``dictatorship``.
_PROBLEM_HELP = ("finite problem: JSON or NPZ with 'mass' (n,) and either 'label_probs' "
                 "(n, 2**K; columns ordered as itertools.product([0, 1], repeat=K)) or "
                 "'eta' (n, K; labels independent given x)")


def _add_frontier(sub) -> None:
    """``bipartite frontier``."""
    from bipartite.pareto import DP_MAX_N, DP_MAX_N_K2  # the limits dp_limit applies

    fr = sub.add_parser(
        "frontier", formatter_class=_Formatter, epilog=_EPILOG,
        help="Pareto frontier of per-label AUCs of a finite problem",
        description=textwrap.dedent(f"""\
            Print the Pareto frontier of per-label population AUCs (docs/theory.md §6): every
            Pareto-optimal AUC vector over all weak orders of the n points, whether each is
            supported (reached by a weight sweep), and the AUC vectors of the loss-aggregation
            (a = 1) and label-aggregation (sum, linear costs) Bayes scorers.
            Exact by the subset dynamic programme for n <= {DP_MAX_N_K2} with K = 2 labels and
            n <= {DP_MAX_N} with K >= 3 (seconds), by the MILP above (minutes to hours: use
            --eps for an ε-approximate frontier). A progress line goes to stderr; a time-out
            suggests --eps. --plot FILE draws the frontier (K = 2)."""))
    fr.add_argument("problem", type=Path, metavar="PROBLEM", help=_PROBLEM_HELP)
    fr.add_argument("--method", choices=["auto", "dp", "milp"], default="auto",
                    help=f"auto: the subset DP for n <= {DP_MAX_N_K2} (K = 2) or n <= "
                         f"{DP_MAX_N} (K >= 3), the MILP above")
    fr.add_argument("--eps", type=_positive_float, default=None, metavar="E",
                    help="ε-approximate frontier: every Pareto point within E of a returned one")
    fr.add_argument("--time-limit", type=_positive_float, default=600.0, metavar="S",
                    help="give up after S seconds")
    fr.add_argument("--max-n", type=_positive_int, default=FRONTIER_MAX_N, metavar="N",
                    help="refuse problems with more points (the exact MILP grows like n^3)")
    fr.add_argument("--format", choices=["table", "csv", "json"], default="table",
                    help="output format")
    fr.add_argument("--plot", type=Path, default=None, metavar="FILE",
                    help="also draw the frontier (K = 2) into FILE (.png, .pdf or .svg): the "
                         "exact Pareto points, the supported hull and the two Bayes scorers")


def _add_dictatorship(sub) -> None:
    """``bipartite dictatorship``."""
    dc = sub.add_parser(
        "dictatorship", formatter_class=_Formatter, epilog=_EPILOG,
        help="effective weights, dictator and Bayes orders of a finite problem",
        description=textwrap.dedent("""\
            Print the label priors pi, the effective weights alpha_k = a_k / (pi_k (1 - pi_k))
            and their shares (docs/theory.md §4), the dictator label for deterministic labels and the
            skew at which each label would become dictator (docs/theory.md §7), and the orders of the
            points under loss aggregation and label aggregation (sum and product)."""))
    dc.add_argument("problem", type=Path, metavar="PROBLEM", help=_PROBLEM_HELP)
    dc.add_argument("--a", type=_float_list, default=None, metavar="A1,A2,...",
                    help="loss-aggregation mixing weights a_k (default: all 1)")
    dc.add_argument("--format", choices=["table", "json"], default="table",
                    help="output format")


def __getattr__(name: str):
    # bipartite.cli.load_problem moved to bipartite.data.load_problem (issue 21): the old name
    # works, with a FutureWarning, for one release.
    if name == "load_problem":
        import warnings

        from bipartite.data import load_problem

        warnings.warn("bipartite.cli.load_problem moved to bipartite.data.load_problem; the old "
                      "name will be removed in the next release.", FutureWarning, stacklevel=2)
        return load_problem
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def _cmd_frontier(args) -> int:
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

    if K != 2:
        raise ValueError(f"--plot draws the frontier of K = 2 labels (one axis each), got K = {K}.")
    if path.suffix.lower() not in (".png", ".pdf", ".svg"):
        raise ValueError(f"--plot must end in .png, .pdf or .svg, got {str(path)!r}.")
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


def _cmd_dictatorship(args) -> int:
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


def _cmd_report(args) -> int:
    from bipartite.diagnostics import MAX_FPR_OUT_OF_CORE, diagnose, is_out_of_core

    if args.out is not None:  # before the work: a file in the path, read-only, no permission
        from bipartite._utils.files import check_output_dir

        check_output_dir(args.out, what="the report folder (--out)")
    data = str(args.file) if str(args.file) == "-" else args.file
    if args.max_fpr is not None and (args.scheduler is not None or is_out_of_core(data)):
        raise ValueError(MAX_FPR_OUT_OF_CORE)  # before a local cluster starts
    with _report_cluster(args, data) as scheduler:
        result = diagnose(data, scores=args.score, labels=args.label, qid=args.qid,
                          weight=args.weight, seed=args.seed, n_boot=args.n_boot,
                          level=args.level, gauc_weighting=args.gauc_weighting,
                          positive_label=args.positive_label, dropna=args.dropna,
                          progress=not args.no_progress, interval=args.interval,
                          scheduler=scheduler, max_fpr=args.max_fpr)
    print({"json": result.to_json, "html": result.to_html}.get(args.format,
                                                                result.to_markdown)())
    if args.out is not None:
        for path in result.save(args.out):
            print(f"wrote {path}", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _report_cluster(args, data):
    """The dask scheduler of an out-of-core report: the address of ``--scheduler``, else (a
    folder or glob of Parquet files) a local cluster of ``--workers`` processes with
    ``--memory-limit`` in total, closed afterwards; None in memory."""
    from bipartite.diagnostics import is_out_of_core

    local = args.workers is not None or args.memory_limit is not None
    if args.scheduler is not None:
        if local:
            raise ValueError("--workers and --memory-limit size a local cluster: they do not "
                             f"apply with --scheduler {args.scheduler!r}.")
        yield args.scheduler
        return
    if not is_out_of_core(data):
        if local:
            raise ValueError(f"--workers and --memory-limit apply out of core only (FILE a "
                             f"folder or glob of Parquet files, or --scheduler), got {data}.")
        yield None
        return
    try:
        from dask.utils import parse_bytes
        from distributed import Client
    except ImportError as e:
        raise ValueError(f"An out-of-core report needs dask[distributed] ({e}): pip install "
                         "'dask[distributed]' pyarrow.") from None
    workers = min(os.cpu_count() or 1, 4) if args.workers is None else args.workers
    if workers < 1:
        raise ValueError(f"--workers must be a positive integer, got {workers}.")
    limit = "auto"
    if args.memory_limit is not None:
        try:
            limit = max(1, int(parse_bytes(args.memory_limit)) // workers)
        except (ValueError, TypeError):
            raise ValueError("--memory-limit must be a size such as 2GB or 500MiB, got "
                             f"{args.memory_limit!r}.") from None
    from bipartite._utils.cluster import local_cluster

    with local_cluster(workers, limit, dashboard_address=None, silence_logs=logging.ERROR
                       ) as cluster, Client(cluster) as client:
        yield client


def _cmd_figures(args) -> int:
    from bipartite.experiments import redraw_figures

    for path in redraw_figures(args.dir, args.out):
        print(path)
    return 0


def _cmd_tables(args) -> int:
    from bipartite.experiments import rebuild_tables

    print(rebuild_tables(args.dir, args.out))
    return 0


# ------------------------------------------------------------------------------------------
# Studies
# ------------------------------------------------------------------------------------------


def _report_study(result) -> int:
    status = (f"{result.study_dir}: {result.n_tasks} tasks ({result.n_skipped} already done, "
              f"{result.n_run} run), {result.n_rows} result rows, "
              f"{len(result.failures)} failed")
    print(status)
    for rec in result.failures[:10]:
        print(f"  FAILED {rec['key']} {json.dumps(rec['params'])} replicate "
              f"{rec['replicate']}: {rec.get('error')}", file=sys.stderr)
    if result.failures:
        print(f"  errors: {result.study_dir}/failures.csv (tracebacks in the records of "
              f"{result.study_dir}/tasks/segment-*.jsonl); rerun them with "
              f"`bipartite study resume {result.study_dir}`", file=sys.stderr)
        return 1
    return 0


def _runner_limits(args) -> dict:
    """The runner's lock, scheduler and size options from the command line."""
    from bipartite.studies import check_lock_timeout

    return {"lock_timeout": check_lock_timeout(args.wait, "--wait"),
            "scheduler_timeout": args.scheduler_timeout, "max_tasks": args.max_tasks}


def _backend(args) -> str | None:
    if args.scheduler and args.backend not in (None, "dask"):
        raise ValueError("--scheduler needs --backend dask.")
    return "dask" if args.scheduler else args.backend


def _cmd_study(args) -> int:
    from bipartite import studies

    if args.study_command == "list":
        if args.examples:
            from bipartite.experiments import example_configs

            for path in example_configs():
                config = studies.load_config(path)
                print(f"{path}\n    {config['name']}: function "
                      f"{config['function']}")
            return 0
        studies.load_registered_studies()
        for name, spec in sorted(studies.STUDIES.items()):
            import inspect

            params = [p for p in inspect.signature(spec.function).parameters if p != "seed"]
            print(f"{name}\n    {spec.doc}\n    parameters: {', '.join(params)}")
        return 0
    if args.study_command == "status":
        print(json.dumps(studies.study_status(args.dir), indent=1))
        return 0
    kwargs = {"jobs": args.jobs, "backend": _backend(args), "scheduler": args.scheduler,
              "progress": not args.no_progress, **_runner_limits(args)}
    if args.study_command == "run":
        config = args.config
        if not config.exists():  # the name of an example that ships with the package
            from bipartite.experiments import example_configs

            named = {p.stem: p for p in example_configs()}
            if config.suffix in ("", ".toml") and config.stem in named and config.parent == Path():
                config = named[config.stem]
        config = studies.load_config(config)
        args.saved_in = args.out if args.out is not None else Path("results") / config["name"]
        result = studies.run_study(config, args.saved_in, **kwargs)
    else:
        args.saved_in = args.dir
        result = studies.resume_study(args.dir, retry_failed=not args.skip_failed, **kwargs)
    return _report_study(result)


def _cmd_reproduce(args) -> int:
    from bipartite.experiments import get_paper, write_reproduce_record

    paper = get_paper(args.paper)
    size = "smoke" if args.smoke else "full" if args.full else "quick"
    out = args.out or Path("results") / (args.paper if size == "full" else f"{args.paper}-{size}")
    args.saved_in = out
    only = [s.strip() for s in args.only.split(",") if s.strip()] if args.only else None
    options = {"banking": args.banking, "letor": args.letor, "real_data": args.real_data,
               "backend": _backend(args) or "loky",
               "scheduler": args.scheduler, "only": only, "smoke": args.smoke,
               "progress": not args.no_progress, "runner": _runner_limits(args)}
    files = paper.run(out, quick=size != "full", jobs=args.jobs, **options)
    record = Path(out) / "reproduce.json"
    if not record.is_file():  # lets analysis/ scripts find the paper of this folder
        write_reproduce_record(out, args.paper, size=size, options=options)
    print(f"wrote {len(files)} files under {out}")
    summary = Path(out) / "summary.md"
    if summary.is_file():
        print(f"summary: {summary}")
    meta = json.loads(record.read_text())
    failed = {k: v.get("failed", 0) for k, v in meta.get("studies", {}).items()
              if v.get("failed", 0)}
    if failed:
        print(f"failed tasks per study: {failed}; errors in {out}/studies/<study>/failures.csv"
              f"; rerun the same command to retry them.", file=sys.stderr)
        return 1
    return 0


#: What Ctrl-C (exit 130) says for the commands that keep no finished work to resume.
_INTERRUPTED = {
    "report": "bipartite report: interrupted; nothing was written (a report keeps no partial "
              "work: rerun the command).",
    "frontier": "bipartite frontier: interrupted; nothing was written (rerun the command).",
    "dictatorship": "bipartite dictatorship: interrupted; nothing was written.",
}


def _resume_hint(args) -> str:
    """What a stopped ``reproduce`` or ``study`` run kept and how to continue, naming the
    folder (``args.saved_in``, set by the command once it knows it)."""
    folder = getattr(args, "saved_in", None)
    if folder is None:
        return "no task had started: nothing was saved (rerun the command)."
    if args.command == "reproduce":
        return f"finished tasks are saved under {folder} (rerun the same command to continue)."
    return f"finished tasks are saved in {folder} (`bipartite study resume {folder}` continues)."


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``bipartite`` console script; returns the exit status."""
    from bipartite._utils.files import OutputError
    from bipartite.studies import ConfigError, StudyError, StudyTerminated

    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {"reproduce": _cmd_reproduce, "study": _cmd_study, "frontier": _cmd_frontier,
                "dictatorship": _cmd_dictatorship, "figures": _cmd_figures,
                "tables": _cmd_tables, "report": _cmd_report}
    if args.command == "study" and os.getcwd() not in sys.path:
        # study modules named "module:function" are found in the current directory, as with
        # `python -m`; otherwise put them on PYTHONPATH.
        sys.path.insert(0, os.getcwd())
    # Warnings print as one line, not in Python's file:line format. formatwarning, not
    # showwarning: a caller that records warnings (warnings.catch_warnings(record=True),
    # pytest.warns) still receives them.
    formatted = warnings.formatwarning
    warnings.formatwarning = _one_line_warning(args.command)
    try:
        return handlers[args.command](args)
    except StudyTerminated:
        print(f"terminated; {_resume_hint(args)}", file=sys.stderr)
        return 143
    except (ConfigError, StudyError, OutputError, FileNotFoundError, ValueError, TypeError,
            TimeoutError) as exc:
        hint = ("; a study module must be importable: put it in the current directory or on "
                "PYTHONPATH (or install its package)" if "No module named" in str(exc) else "")
        print(f"bipartite {args.command}: error: {exc}{hint}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        print(f"bipartite {args.command}: error: {exc}; a study module must be importable: put "
              "it in the current directory or on PYTHONPATH (or install its package).",
              file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`bipartite ... | head`): no traceback; stop writing to stdout
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(_INTERRUPTED.get(args.command, f"interrupted; {_resume_hint(args)}"),
              file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = formatted


def _one_line_warning(command: str):
    """``warnings.formatwarning`` of the CLI: ``bipartite CMD: warning: message (Category)``, one
    line (on stderr, where warnings go), without Python's ``file:line`` and source line."""
    def fmt(message, category, filename, lineno, line=None):
        text = " ".join(str(message).split())
        return f"bipartite {command}: warning: {text} ({category.__name__})\n"
    return fmt


if __name__ == "__main__":  # pragma: no cover - `python -m bipartite.cli`
    sys.exit(main())
