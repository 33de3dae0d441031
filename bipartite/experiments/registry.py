"""The paper registry of ``bipartite reproduce``.
"""


from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bipartite.studies.config import import_reference
from bipartite.studies.execution import reuse_workers
from bipartite.studies.runner import (
    MANIFEST,
    RESULTS_CSV,
    RESULTS_PARQUET,
    TASK_INDEX_CSV,
    read_results,
    run_study,
    write_text_atomic,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    import pandas as pd


@dataclasses.dataclass(frozen=True)
class Paper:
    """A paper's reproduction for ``bipartite reproduce --paper NAME``: studies on the one runner
    (how to add one: :data:`PAPERS`, and "Adding a paper" in ``simulations/README.md``).

    Parameters
    ----------
    name : str
        The paper's key (``la25``, ``mtrub``, ...).
    configs : callable ``(size, options) -> {study name: config}``
        The study configurations (the TOML structure of :func:`bipartite.studies.run_study`) for
        ``size`` in ``"smoke"``, ``"quick"``, ``"full"``; ``options`` holds data paths
        (``banking``, ``letor``, ...) and may add or drop studies (a real-data study only when its
        data is found). Study names become folders ``<out>/studies/<name>/``.
    figures : callable ``(results_dir, fig_dir) -> [paths]``
        Draws the paper's figures from the finished results folder only (no recomputation).
    summary : callable ``(results_dir, table_dir) -> str``
        Writes the key-number tables into ``table_dir`` (through
        :func:`bipartite.studies.report.write_table`: CSV and Markdown) and returns ``summary.md``.
    description : str
    task_seconds : mapping ``{size: {study: seconds}}``, optional
        Measured CPU seconds per task of each study at each size (a study left out counts 1 s).
        They weigh the one progress bar of :func:`run_paper`, so its time estimate is right from
        the first second, not only after the slow studies have run.

    :meth:`run` (also ``paper(out_dir, ...)``) runs every study through the runner, then the figures
    and the summary (:func:`run_paper`); ``bipartite figures`` / ``bipartite tables``
    (:func:`redraw_figures`, :func:`rebuild_tables`) call ``figures`` and ``summary`` on a finished
    folder.
    """

    name: str
    configs: Callable[[str, Mapping], dict[str, dict]]
    figures: Callable[..., list[Path]]
    summary: Callable[..., str]
    description: str = ""
    task_seconds: Mapping[str, Mapping[str, float]] = dataclasses.field(default_factory=dict)

    def run(self, out_dir: str | os.PathLike, quick: bool = False, jobs: int = 1, **options: Any) -> list[Path]:
        """Run this paper's studies into ``out_dir``; see :func:`run_paper`."""
        return run_paper(self, out_dir, quick=quick, jobs=jobs, **options)

    __call__ = run


SIZES = ("smoke", "quick", "full")


def run_paper(paper: Paper, out_dir: str | os.PathLike, *, quick: bool = False, jobs: int = 1,
              **options: Any) -> list[Path]:
    """Run ``paper``'s studies into ``out_dir`` on the one runner, then its figures and summary.

    Each study runs through :func:`bipartite.studies.run_study` into
    ``out_dir/studies/<name>/`` (rerunning skips finished tasks: every task is written as it
    finishes, and a killed run resumes); then the figures (``figures/``, PNG + PDF), the
    key-number tables (``tables/*.csv``) and ``summary.md`` are written, and ``reproduce.json``
    records what ran. Options: ``smoke`` (tiny sizes), ``only`` (list of study names), data paths,
    ``backend``, ``scheduler``, ``progress``, ``runner`` (keyword arguments of
    :func:`bipartite.studies.run_study`: ``lock_timeout``, ``scheduler_timeout``, ``max_tasks``). Returns the paths written (task files excluded).
    The layout is the same for every paper.
    """
    import pandas as pd

    size = "smoke" if options.get("smoke") else "quick" if quick else "full"
    out = Path(out_dir)
    configs = paper.configs(size, options)
    only = options.get("only")
    if only:
        unknown = sorted(set(only) - set(configs))
        if unknown:
            raise ValueError(f"The 'only' option names unknown {paper.name} studies {unknown}; "
                             f"available: {sorted(configs)}.")
        configs = {k: v for k, v in configs.items() if k in only}
    start = time.perf_counter()
    record: dict[str, dict] = {}
    old = out / "reproduce.json"
    if old.is_file():  # keep the record of studies run earlier into this folder (--only)
        with contextlib.suppress(json.JSONDecodeError, KeyError):
            record.update(json.loads(old.read_text())["studies"])
    written: list[Path] = []
    bar, weights = _progress_bar(paper, configs, size, jobs, options.get("progress", True),
                                 (options.get("runner") or {}).get("max_tasks"))
    eta = _TimeLeft(bar, max(1, int(jobs or 1)))
    with reuse_workers(), contextlib.closing(bar):  # one worker pool for every study
        for name, cfg in configs.items():
            w = weights[name]
            bar.set_description_str(f"{paper.name} {size}: {name}")
            result = run_study(cfg, out / "studies" / name, jobs=jobs,
                               backend=options.get("backend") or "loky",
                               scheduler=options.get("scheduler"), progress=False,
                               on_task=lambda _record, w=w: eta.done(w),
                               **(options.get("runner") or {}))
            eta.skipped(result.n_skipped * w)  # finished by an earlier run into this folder
            cpu = pd.read_csv(result.study_dir / TASK_INDEX_CSV).get("cpu_s")
            record[name] = {"tasks": result.n_tasks, "run": result.n_run,
                            "failed": len(result.failures), "elapsed_s": round(result.elapsed_s, 2),
                            "task_cpu_s": None if cpu is None else round(float(cpu.sum()), 2)}
            written += [result.study_dir / RESULTS_PARQUET, result.study_dir / RESULTS_CSV]
    written.append(write_reproduce_record(out, paper.name, size=size, options=options,
                                          studies=record,
                                          elapsed_s=round(time.perf_counter() - start, 2)))
    written += paper.figures(out, out / "figures")
    text = paper.summary(out, out / "tables")
    write_text_atomic(out / "summary.md", text)
    written += sorted((out / "tables").glob("*.csv")) + [out / "summary.md"]
    return written


def _progress_bar(paper: Paper, configs: Mapping[str, dict], size: str, jobs: int | None,
                  progress: bool, max_tasks: int | None = None):
    """One tqdm bar over every task of ``configs`` (on stderr), each task weighted by its
    study's measured seconds (:attr:`Paper.task_seconds`), with the a-priori time estimate
    (work / workers) shown from the start and redone from the measured rate as tasks finish
    (:class:`_TimeLeft`: the one estimate shown; tqdm's own, which would count the tasks of an
    earlier run as instant progress, is left out); returns the bar and the weights by study."""
    from tqdm.auto import tqdm

    from bipartite.studies.config import resolve_config
    from bipartite.studies.tasks import expand_tasks

    measured = paper.task_seconds.get(size, {})
    weights = {name: float(measured.get(name, 1.0)) for name in configs}
    work = sum(len(expand_tasks(cfg if "format" in cfg else resolve_config(cfg),
                                max_tasks=max_tasks)) * weights[name]
               for name, cfg in configs.items())
    workers = max(1, int(jobs or 1))
    bar = tqdm(total=round(work, 2), desc=f"{paper.name} {size}", unit="task-s",
               disable=not progress, dynamic_ncols=True, smoothing=0.05,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}{postfix}]")
    bar.set_postfix_str(f"estimate {work / workers / 60:.1f} min on {workers} worker(s)")
    return bar, weights


class _TimeLeft:
    """The time-left estimate of the :func:`run_paper` bar, updated as tasks finish.

    It starts a priori (the tasks' measured seconds, :attr:`Paper.task_seconds`, over the
    workers: right on an idle machine). Once this run has done ``MIN_SHARE`` of its own work
    and ``MIN_SECONDS`` have passed, it is the work left over the rate measured in this run
    (work done / wall time since the start), so a busy or a faster machine shows in it. Tasks
    finished by an earlier run into the folder (:meth:`skipped`) move the bar but not the rate.
    """

    #: Share of this run's work, and wall seconds, measured before the estimate is switched.
    MIN_SHARE, MIN_SECONDS = 0.02, 2.0

    def __init__(self, bar: Any, workers: int, clock: Callable[[], float] = time.perf_counter):
        self.bar, self.workers, self.clock = bar, workers, clock
        self.start, self.done_here, self.skipped_work = clock(), 0.0, 0.0

    def skipped(self, work: float) -> None:
        """``work`` task-seconds finished by an earlier run."""
        self.skipped_work += work
        self.bar.update(work)

    def done(self, work: float) -> None:
        """``work`` task-seconds finished now: the bar moves and the estimate is redone."""
        self.done_here += work
        self.bar.set_postfix_str(self.text(), refresh=False)  # drawn by the update
        self.bar.update(work)

    def text(self) -> str:
        """``estimate M min on W worker(s)`` (a priori) or ``about M min left, measured``."""
        total = float(self.bar.total or 0.0)
        left = max(0.0, total - self.done_here - self.skipped_work)
        elapsed = self.clock() - self.start
        to_do = max(total - self.skipped_work, 1e-12)
        if self.done_here >= self.MIN_SHARE * to_do and elapsed >= self.MIN_SECONDS:
            rate = self.done_here / elapsed  # task-seconds per wall second, as measured here
            return f"about {left / rate / 60:.1f} min left, measured ({rate:.2g} task-s/s)"
        return f"estimate {left / self.workers / 60:.1f} min on {self.workers} worker(s)"


def study_results(results_dir: str | os.PathLike, names: Iterable[str]) -> dict[str, Any]:
    """The results table of every study of ``names`` present in ``results_dir/studies``."""
    found = {}
    for name in names:
        folder = Path(results_dir) / "studies" / name
        if (folder / MANIFEST).is_file():
            df = read_results(folder)
            if not df.empty:
                found[name] = df
    return found


def study_result(results_dir: str | os.PathLike, name: str) -> pd.DataFrame | None:
    """The results table of the one study ``name`` of a paper's results folder, or ``None`` when
    the folder does not hold it (not run: its data was not found; or no row yet): what a paper's
    ``figures``, ``summary`` and ``headline`` start from (:func:`study_results` of one name)."""
    return study_results(results_dir, [name]).get(name)


def reproduce_record(results_dir: str | os.PathLike) -> dict:
    """The record ``reproduce.json`` of a paper's results folder (:func:`write_reproduce_record`:
    the paper, the size, the options and the studies run), or ``{}`` when the folder has none."""
    path = Path(results_dir) / "reproduce.json"
    return json.loads(path.read_text()) if path.is_file() else {}


#: Paper study sets, by name. Entries are :class:`Paper` objects or lazy ``"module:attribute"``
#: strings naming one (imported on first use, so a paper's heavy imports stay out of the CLI).
#: To add a paper: give it the shape of the others — ``bipartite/experiments/<name>/`` with
#: ``studies`` (study functions registered with :func:`bipartite.studies.register_study`),
#: ``figures`` (tables and figures from the results only) and ``run``, which defines
#: ``configs(size, options)``, ``figures(results_dir, fig_dir)``, ``summary(results_dir,
#: table_dir)`` and ``PAPER = Paper("<name>", configs, figures=figures, summary=summary)`` — then
#: add ``"<name>": "bipartite.experiments.<name>.run:PAPER"`` below (and the studies module to the
#: ``bipartite.studies`` entry points in ``pyproject.toml``), or call :func:`register_paper` from
#: your own code. ``simulations/README.md`` ("Adding a paper") documents the contract, and
#: ``tests/experiments/test_registry.py::test_add_a_paper_as_the_howto_says`` follows it.
PAPERS: dict[str, Paper | str] = {
    "la25": "bipartite.experiments.la25.run:PAPER",
    "mtrub": "bipartite.experiments.mtrub.run:PAPER",
    "hapvr": "bipartite.experiments.hapvr.run:PAPER",
    "rlsep": "bipartite.experiments.rlsep.run:PAPER",
    "lr2ppo": "bipartite.experiments.lr2ppo.run:PAPER",
}


def register_paper(paper: Paper) -> Paper:
    """Register a :class:`Paper` for ``bipartite reproduce --paper NAME``; returns it.

    >>> def _configs(size, options):
    ...     return {}
    >>> register_paper(Paper("doc_example", _configs, lambda r, f: [], lambda r, t: "")).name
    'doc_example'
    >>> del PAPERS["doc_example"]
    """
    if not isinstance(paper, Paper):
        raise TypeError(f"The 'paper' parameter must be a Paper, got {type(paper).__name__}.")
    PAPERS[paper.name] = paper
    return paper


def get_paper(name: str) -> Paper:
    """The :class:`Paper` registered under ``name`` (importing a lazy entry)."""
    if name not in PAPERS:
        raise ValueError(f"The 'paper' parameter must be one of {sorted(PAPERS)}, got {name!r}.")
    entry = PAPERS[name]
    if isinstance(entry, str):
        entry = import_reference(entry, what=f"paper {name!r}")
        if not isinstance(entry, Paper):
            raise TypeError(f"PAPERS[{name!r}] must name a bipartite.experiments.Paper, got {entry!r}.")
        PAPERS[name] = entry
    return entry


def write_reproduce_record(out_dir: str | os.PathLike, paper: str, *, size: str,
                           options: Mapping | None = None, studies: Mapping | None = None,
                           elapsed_s: float | None = None) -> Path:
    """Write ``<out_dir>/reproduce.json``: which paper and size made this folder (the analysis
    scripts read it), the options, and per-study task counts and times."""
    from bipartite import __version__

    record = {
        "paper": paper, "size": size, "bipartite_version": __version__,
        "finished_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "elapsed_s": elapsed_s,
        "options": {k: (str(v) if isinstance(v, os.PathLike) else v)
                    for k, v in (options or {}).items()},
        "studies": dict(studies or {}),
    }
    path = Path(out_dir) / "reproduce.json"
    write_text_atomic(path, json.dumps(record, indent=1, default=str))
    return path


def provenance_lines(results_dir: str | os.PathLike) -> list[str]:
    """The Markdown lines that open a paper's ``summary.md``: which command, size and version made
    the folder (from ``reproduce.json``), then a table of the studies with their task counts and
    times.
    Empty when the folder has no ``reproduce.json``."""
    meta = reproduce_record(results_dir)
    if not meta:
        return []
    lines = [f"Made by `bipartite reproduce --paper {meta.get('paper')}` (size "
             f"**{meta.get('size')}**, bipartite {meta.get('bipartite_version')}, "
             f"{meta.get('finished_at')}; studies ran in {meta.get('elapsed_s')} s).", ""]
    studies = meta.get("studies", {})
    if studies:
        lines += ["| study | tasks | run now | failed | wall seconds | task CPU seconds |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {name} | {st.get('tasks')} | {st.get('run')} | {st.get('failed')} | "
                  f"{st.get('elapsed_s')} | {st.get('task_cpu_s', '–')} |"
                  for name, st in studies.items()]
        lines.append("")
    return lines


def redraw_figures(results_dir: str | os.PathLike, fig_dir: str | os.PathLike | None = None
                   ) -> list[Path]:
    """Redraw every figure of a results folder, from the saved results only.

    ``results_dir`` is a ``bipartite reproduce`` folder (it holds ``reproduce.json``: the paper's
    figure function redraws its figures from ``studies/*/results.parquet``) or a single
    ``bipartite study run`` folder (``manifest.json``: the study's own figures if it registered
    some, else one mean ± s.e. plot per result column). ``fig_dir`` defaults to
    ``results_dir/figures``. ``bipartite figures DIR`` and ``analysis/figures.py`` call this.
    """
    from bipartite.studies import study_figures

    root = Path(results_dir)
    out = Path(fig_dir) if fig_dir is not None else root / "figures"
    if (root / "reproduce.json").is_file():
        return get_paper(_paper_of(root)).figures(root, out)
    if (root / MANIFEST).is_file():
        return study_figures(root, out)
    raise FileNotFoundError(f"{root}: neither reproduce.json nor {MANIFEST} found; is this a "
                            "results folder of `bipartite reproduce` or `bipartite study run`?")


def rebuild_tables(results_dir: str | os.PathLike, table_dir: str | os.PathLike | None = None
                   ) -> str:
    """Rebuild the tables of a results folder and return them as Markdown.

    A ``bipartite reproduce`` folder gets its paper's key-number tables (CSV in ``table_dir``,
    default ``results_dir/tables``) and ``summary.md`` rewritten; a ``bipartite study run`` folder
    gets ``<name>_summary.csv`` and ``.md`` (mean, s.e. and count of every numeric result per grid
    point).
    ``bipartite tables DIR`` and ``analysis/tables.py`` call this.
    """
    from bipartite.studies import markdown_table, study_summary_table
    from bipartite.studies.report import write_table

    root = Path(results_dir)
    out = Path(table_dir) if table_dir is not None else root / "tables"
    if (root / "reproduce.json").is_file():
        text = get_paper(_paper_of(root)).summary(root, out)
        write_text_atomic(root / "summary.md", text)
        return text
    if (root / MANIFEST).is_file():
        table = study_summary_table(root)
        name = json.loads((root / MANIFEST).read_text())["name"].replace("/", "_")
        write_table(table, out, f"{name}_summary",
                    note="Mean, standard error and count of every numeric result per grid point.")
        return markdown_table(table)
    raise FileNotFoundError(f"{root}: neither reproduce.json nor {MANIFEST} found; is this a "
                            "results folder of `bipartite reproduce` or `bipartite study run`?")


def _paper_of(root: Path) -> str:
    try:
        return json.loads((root / "reproduce.json").read_text())["paper"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"{root / 'reproduce.json'}: unreadable record of the paper "
                         f"({exc}).") from None


#: Folder of the example study configs shipped with the package (``bipartite study list
#: --examples``); the TOML schema is in ``simulations/README.md``.
EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"


def example_configs() -> list[Path]:
    """The example study configs (TOML) that ship with the package, sorted by name."""
    return sorted(EXAMPLES_DIR.glob("*.toml"))
