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

The code: :func:`build_parser` and :func:`main` here; the parser's commands in
``bipartite/cli/_parser.py``, and what each command runs in ``_studies.py`` (``reproduce``,
``study``, ``figures``, ``tables``), ``_report.py`` (``report``) and ``_problems.py``
(``frontier``, ``dictatorship``).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

from bipartite.cli._parser import COMMANDS, EPILOG, Formatter
from bipartite.cli._parser import (
    FRONTIER_MAX_N as FRONTIER_MAX_N,  # not in __all__: the frontier's default --max-n, as before
)
from bipartite.cli._problems import cmd_dictatorship, cmd_frontier
from bipartite.cli._report import cmd_report
from bipartite.cli._studies import cmd_figures, cmd_reproduce, cmd_study, cmd_tables

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``bipartite`` (each command has its own ``--help``)."""
    from bipartite import __version__

    parser = argparse.ArgumentParser(
        prog="bipartite", formatter_class=Formatter, epilog=EPILOG,
        description="Bipartite ranking from multiple labels: reproduce the studies, run your own "
                    "simulation grids, and get exact frontiers and dictatorship diagnostics of "
                    "small finite problems.")
    parser.add_argument("--version", action="version", version=f"bipartite {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add_command in COMMANDS:
        add_command(sub)
    return parser


def __getattr__(name: str):
    # bipartite.cli.load_problem moved to bipartite.data.load_problem (issue 21): the old name
    # works, with a FutureWarning, for one release.
    if name == "load_problem":
        from bipartite._utils.moved import forward

        return forward(__name__, ("bipartite.data",), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    handlers = {"reproduce": cmd_reproduce, "study": cmd_study, "frontier": cmd_frontier,
                "dictatorship": cmd_dictatorship, "figures": cmd_figures,
                "tables": cmd_tables, "report": cmd_report}
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

