"""The argument parser of the ``bipartite`` command line: one ``add_*`` function per command (or
group of commands), the argument types, and the help formatter (:func:`bipartite.cli.build_parser`
puts them together)."""

from __future__ import annotations

import argparse
import math
import os
import textwrap
from pathlib import Path

from bipartite.plots import FIGURE_SUFFIXES

__all__ = ["COMMANDS", "EPILOG", "FRONTIER_MAX_N", "Formatter", "PLOT_SUFFIXES"]

EPILOG = "Documentation: README.md and simulations/README.md (TOML schema of `study run`)."


class Formatter(argparse.RawDescriptionHelpFormatter):
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

#: The suffixes ``frontier --plot`` takes, as text: those of :data:`bipartite.plots.FIGURE_SUFFIXES`.
PLOT_SUFFIXES = f"{', '.join(FIGURE_SUFFIXES[:-1])} or {FIGURE_SUFFIXES[-1]}"


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



def add_reproduce(sub) -> None:
    """``bipartite reproduce``."""
    from bipartite.experiments import PAPERS

    rp = sub.add_parser(
        "reproduce", formatter_class=Formatter, epilog=EPILOG,
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


def add_study(sub) -> None:
    """``bipartite study run|resume|status|list``."""
    sp = sub.add_parser("study", formatter_class=Formatter, epilog=EPILOG,
                        help="run, resume and inspect user-defined simulation studies",
                        description="User-defined studies: a TOML grid of parameters x "
                                    "replicates over a registered study function. See "
                                    "simulations/README.md for the schema.")
    ssub = sp.add_subparsers(dest="study_command", metavar="SUBCOMMAND")
    ssub.required = True
    run = ssub.add_parser(
        "run", formatter_class=Formatter, epilog=EPILOG,
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
        "resume", formatter_class=Formatter, epilog=EPILOG,
        help="continue an interrupted study from its folder",
        description="Skip finished tasks, rerun unfinished (and failed) ones, then gather the "
                    "results. Uses DIR/manifest.json; no config needed.")
    res.add_argument("dir", type=Path, metavar="DIR", help="study folder")
    res.add_argument("--skip-failed", action="store_true",
                     help="keep the failure records instead of rerunning failed tasks")
    _add_execution_options(res, default_jobs=None)
    st = ssub.add_parser("status", formatter_class=Formatter, help="count finished, failed "
                         "and pending tasks", description="Count the tasks of a study folder.")
    st.add_argument("dir", type=Path, metavar="DIR", help="study folder")
    ls = ssub.add_parser("list", formatter_class=Formatter,
                         help="list registered study functions (and example configs)",
                         description="List the registered study functions and their parameters; "
                                     "with --examples, the example configs that ship with the "
                                     "package (copy one and edit it).")
    ls.add_argument("--examples", action="store_true", help="list the example study configs")


def add_report(sub) -> None:
    """``bipartite report``."""
    rep = sub.add_parser(
        "report", formatter_class=Formatter, epilog=EPILOG,
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


def add_rebuild(sub) -> None:
    """``bipartite figures`` and ``bipartite tables``."""
    for name, what, default_sub in (("figures", "figures (PNG + PDF)", "figures"),
                                    ("tables", "tables (CSV) and summary.md", "tables")):
        cmd = sub.add_parser(
            name, formatter_class=Formatter, epilog=EPILOG,
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


def add_frontier(sub) -> None:
    """``bipartite frontier``."""
    from bipartite.pareto import DP_MAX_N, DP_MAX_N_K2  # the limits dp_limit applies

    fr = sub.add_parser(
        "frontier", formatter_class=Formatter, epilog=EPILOG,
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
                    help=f"also draw the frontier (K = 2) into FILE ({PLOT_SUFFIXES}): the "
                         "exact Pareto points, the supported hull and the two Bayes scorers")


def add_dictatorship(sub) -> None:
    """``bipartite dictatorship``."""
    dc = sub.add_parser(
        "dictatorship", formatter_class=Formatter, epilog=EPILOG,
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


#: The ``add_*`` function of every command, in the order of ``bipartite --help``.
COMMANDS = (add_reproduce, add_study, add_report, add_rebuild, add_frontier, add_dictatorship)
