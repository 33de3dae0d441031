"""Simulation studies: a resumable task runner, a registry of study functions, the LA25 studies.

A *study* is a grid of parameters x replicates over one *study function*. Each task
``(function, params, replicate)`` gets its own seed, runs once, and writes one result file as soon
as it finishes; the results of all tasks are gathered into one tidy table.

Runner guarantees
-----------------
* **One file per task, written atomically.** ``<study_dir>/tasks/<key>.json`` where ``key`` is a
  stable hash of ``(function, params, replicate)`` (:func:`task_key`). The file is written to a
  temporary name in the same folder and moved into place with :func:`os.replace`, so a killed run
  leaves either the whole file or none.
* **Resume.** :func:`resume_study` (``bipartite study resume DIR``) reads ``manifest.json`` (the
  resolved configuration, written before any task starts), skips tasks whose result file exists and
  reruns the others. No finished task is lost or run twice.
* **Failures do not stop a study.** A task that raises writes ``tasks/<key>.failed.json`` with the
  error and its traceback; the other tasks go on. ``resume`` reruns failed tasks (unless
  ``retry_failed=False``).
* **Reproducible seeds.** The seed of a task is drawn from ``numpy.random.SeedSequence`` with the
  study seed as entropy and the task key as spawn key (:func:`task_seed`), so a result does not
  depend on the number of workers or the order in which tasks run. Every task also runs with BLAS /
  OpenMP (and torch) limited to ``threads_per_task`` threads (default 1), so on CPU the results are
  equal bit for bit whatever ``jobs`` is (the learners pin torch's threads themselves).
* **Backends.** ``"loky"`` (joblib, local processes; ``jobs=1`` runs in-process) and ``"dask"``
  (``dask.distributed``: an existing scheduler given by address, else a ``LocalCluster``). Ray is
  not offered: it is a heavy extra dependency and ``dask.distributed`` already covers
  multi-machine scale-out with the same futures model. Results travel back to the driver,
  which writes the files, so dask workers need no shared file system.

Study functions
---------------
A study function takes a keyword ``seed`` (an ``int``) and its parameters as keywords, and returns a
tidy result: one row (a ``dict`` of scalars), a list of rows, or a ``pandas.DataFrame``. Register it
with :func:`register_study`; configs may also name any importable function as ``"module:function"``.
Parameter values in configs are checked against the function's signature and type annotations.

Papers
------
``bipartite reproduce --paper NAME`` runs the study set registered under ``NAME`` in
:data:`PAPERS` (see :func:`register_paper`). ``la25`` is defined here: the study functions
``la25.skew``, ``la25.frontier``, ``la25.correlation``, ``la25.weights``,
``la25.learning_curve``, ``la25.consistency`` and ``la25.real``, their figures and tables
(:func:`la25_figures`, :func:`la25_summary`) and :func:`run_la25`. Every formula they use comes
from the package's modules (population, bayes, pareto, dictatorship, consistency, learners,
data, plots); this module only arranges the computations and the outputs.

See ``simulations/README.md`` for the TOML schema of ``bipartite study run``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import hashlib
import importlib
import inspect
import itertools
import json
import math
import os
import platform
import sys
import tempfile
import time
import traceback
import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "ConfigError",
    "PAPERS",
    "STUDIES",
    "StudyResult",
    "Task",
    "collect_results",
    "expand_tasks",
    "load_config",
    "register_paper",
    "register_study",
    "resolve_config",
    "resume_study",
    "run_study",
    "study_status",
    "task_key",
    "task_seed",
]

MANIFEST = "manifest.json"
TASKS_DIR = "tasks"
RESULTS_PARQUET = "results.parquet"
RESULTS_CSV = "results.csv"
FAILURES_CSV = "failures.csv"
TASK_INDEX_CSV = "task_index.csv"
_FORMAT_VERSION = 1
BACKENDS = ("loky", "dask")
#: Columns the runner adds in front of every result row.
TASK_COLUMNS = ("study", "function", "task", "replicate", "seed")


class ConfigError(ValueError):
    """A study configuration is malformed; the message names the file and the key."""


# --------------------------------------------------------------------------------------------
# Registries
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class StudySpec:
    """A registered study function and how to plot its results (optional)."""

    name: str
    function: Callable[..., Any]
    figures: Callable[..., list[Path]] | None = None

    @property
    def doc(self) -> str:
        text = inspect.getdoc(self.function) or ""
        return " ".join(text.split("\n\n")[0].split())  # the first paragraph, on one line


#: Registered study functions, by name (``bipartite study list`` prints them).
STUDIES: dict[str, StudySpec] = {}


def register_study(name: str, *, figures=None):
    """Decorator registering a study function under ``name``.

    The function must take a keyword ``seed`` (int) and return a row (dict), a list of rows or a
    DataFrame. ``figures(results, fig_dir) -> [paths]`` optionally draws the study's figures from
    its tidy results.

    >>> @register_study("doc_example_square")
    ... def _square(*, seed: int, x: float = 2.0):
    ...     return {"x2": x * x}
    >>> STUDIES["doc_example_square"].function(seed=0, x=3.0)
    {'x2': 9.0}
    >>> del STUDIES["doc_example_square"]
    """
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(
            f"The 'name' parameter must be a non-empty string without ':', got {name!r}.")

    def decorate(fn):
        if "seed" not in inspect.signature(fn).parameters:
            raise TypeError(f"study function {fn.__qualname__} must accept a keyword 'seed'.")
        STUDIES[name] = StudySpec(name, fn, figures=figures)
        return fn

    return decorate


@dataclasses.dataclass(frozen=True)
class Paper:
    """A paper's study set for ``bipartite reproduce --paper NAME``.

    ``run(out_dir, quick, jobs, **options)`` runs the studies into ``out_dir`` and returns the
    paths it wrote; ``options`` hold data paths (``banking``, ``letor``) and runner options
    (``backend``, ``scheduler``, ``only``, ``smoke``, ``progress``) — a handler must accept and
    may ignore unknown keys. ``figures(results_dir, fig_dir) -> [paths]`` and
    ``summary(results_dir, table_dir) -> markdown text`` rebuild the figures and the tables /
    ``summary.md`` from a finished results folder without recomputing anything
    (``analysis/figures.py`` and ``analysis/tables.py`` call them).
    A ``Paper`` is callable as its ``run``.
    """

    name: str
    run: Callable[..., Any]
    figures: Callable[..., list[Path]] | None = None
    summary: Callable[..., str] | None = None
    description: str = ""

    def __call__(self, out_dir, quick=False, jobs=1, **options):
        return self.run(out_dir, quick, jobs, **options)


#: Paper study sets, by name. Entries are :class:`Paper` objects or lazy ``"module:attribute"``
#: strings naming one (imported on first use, so a paper's heavy imports stay out of the CLI).
#: To add a paper: write ``run(out_dir, quick, jobs, **options)`` (and optionally ``figures``
#: and ``summary``) in your module, build ``PAPER = Paper("name", run, figures, summary)`` there,
#: and add ``"name": "bipartite.yourmodule:PAPER"`` below — or call :func:`register_paper` at
#: import time. ``simulations/README.md`` documents the contract.
PAPERS: dict[str, Paper | str] = {
    "la25": "bipartite.studies:LA25",
    "mtrub": "bipartite.paper_mtrub:PAPER",
    "hapvr": "bipartite.paper_hapvr:PAPER",
    "rlsep": "bipartite.paper_rlsep:PAPER",
    "lr2ppo": "bipartite.paper_lr2ppo:PAPER",
}


def register_paper(name: str, run, *, figures=None, summary=None, description: str = "") -> Paper:
    """Register a paper's study set for ``bipartite reproduce --paper name``; returns the entry.

    >>> def _run(out_dir, quick, jobs, **options):
    ...     return []
    >>> register_paper("doc_example", _run).name
    'doc_example'
    >>> del PAPERS["doc_example"]
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"The 'name' parameter must be a non-empty string, got {name!r}.")
    if not callable(run):
        raise TypeError(f"The 'run' parameter must be callable, got {run!r}.")
    paper = Paper(name, run, figures=figures, summary=summary, description=description)
    PAPERS[name] = paper
    return paper


def get_paper(name: str) -> Paper:
    """The :class:`Paper` registered under ``name`` (importing a lazy entry)."""
    if name not in PAPERS:
        raise ValueError(f"The 'paper' parameter must be one of {sorted(PAPERS)}, got {name!r}.")
    entry = PAPERS[name]
    if isinstance(entry, str):
        entry = _import_reference(entry, what=f"paper {name!r}")
        if not isinstance(entry, Paper):
            raise TypeError(f"PAPERS[{name!r}] must name a bipartite.studies.Paper, got {entry!r}.")
        PAPERS[name] = entry
    return entry


def _import_reference(ref: str, *, what: str):
    module_name, _, attr = ref.partition(":")
    if not module_name or not attr:
        raise ValueError(f"{what}: reference must look like 'package.module:name', got {ref!r}.")
    module = importlib.import_module(module_name)
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"{what}: module {module_name!r} has no attribute {attr!r}.") from None
    return obj


def resolve_function(ref: str) -> StudySpec:
    """A registered study name, or ``"module:function"`` for any importable function."""
    if ref in STUDIES:
        return STUDIES[ref]
    if ":" in ref:
        fn = _import_reference(ref, what="study function")
        if not callable(fn):
            raise ValueError(f"study function {ref!r} is not callable.")
        return StudySpec(ref, fn)
    raise ValueError(f"unknown study function {ref!r}; registered: {sorted(STUDIES)} "
                     "(or give 'package.module:function').")


# --------------------------------------------------------------------------------------------
# Configuration: TOML -> resolved dict (the manifest)
# --------------------------------------------------------------------------------------------

_SECTIONS = {
    "study": {"name", "function", "seed", "replicates", "paired_seeds", "description"},
    "params": None,
    "grid": None,
    "cases": None,
    "execution": {"jobs", "backend", "scheduler", "threads_per_task"},
}


def load_config(path: str | os.PathLike) -> dict:
    """Read a study TOML file and return the resolved, validated configuration.

    Errors (:class:`ConfigError`) name the file and the offending key; TOML syntax errors give the
    line and column.
    """
    path = Path(path)
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: the config file is not UTF-8 text ({exc}).") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    config = resolve_config(data, source=str(path))
    config["source"] = str(path.resolve())
    return config


def _type_name(value: Any) -> str:
    return type(value).__name__


def _check_json_value(value: Any, where: str, src: str) -> Any:
    """Values that can travel in a manifest: str, int, float, bool, lists and tables of them."""
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"{src}: {where} must be finite, got {value!r}.")
        return value
    if isinstance(value, list | tuple):
        return [_check_json_value(v, f"{where}[{i}]", src) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        return {str(k): _check_json_value(v, f"{where}.{k}", src) for k, v in value.items()}
    raise ConfigError(f"{src}: {where} has unsupported type {_type_name(value)} ({value!r}); "
                      "use strings, numbers, booleans, lists or tables.")


def resolve_config(data: Mapping, *, source: str = "<config>") -> dict:
    """Validate a configuration mapping (parsed TOML, or built in code) and resolve defaults.

    Schema (see ``simulations/README.md``)::

        [study]      function (required), name, seed (int, default 0),
                     replicates (int n -> 0..n-1, or list of ints; default 1),
                     paired_seeds (bool, default false), description
        [params]     fixed keyword arguments of the function
        [grid]       key -> non-empty list of values; the Cartesian product is taken
        [[cases]]    optional list of tables of keyword arguments, crossed with the grid
        [execution]  jobs (int >= 1), backend ("loky" | "dask"), scheduler (address),
                     threads_per_task (int >= 1, default 1)

    >>> cfg = resolve_config({"study": {"function": "demo.binormal_auc", "replicates": 3},
    ...                       "params": {"n": 100}, "grid": {"shift": [0.0, 1.0]}})
    >>> cfg["name"], cfg["replicates"], len(expand_tasks(cfg))
    ('demo.binormal_auc', [0, 1, 2], 6)
    >>> resolve_config({"study": {"function": "demo.binormal_auc"}, "grid": {"n": 100}},
    ...                source="my.toml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bipartite.studies.ConfigError: my.toml: [grid] key 'n' must be a non-empty list of ...
    """
    src = source
    if not isinstance(data, Mapping):
        raise ConfigError(f"{src}: the configuration must be a table, got {_type_name(data)}.")
    for section in data:
        if section not in _SECTIONS:
            raise ConfigError(f"{src}: unknown section [{section}]; allowed sections are "
                              f"{sorted(_SECTIONS)}.")
    for section in ("study", "params", "grid", "execution"):
        if section in data and not isinstance(data[section], Mapping):
            raise ConfigError(f"{src}: [{section}] must be a table, got "
                              f"{_type_name(data[section])} ({data[section]!r}).")
    study = dict(data.get("study", {}))
    for key in study:
        if key not in _SECTIONS["study"]:
            raise ConfigError(f"{src}: unknown key '{key}' in [study]; allowed keys are "
                              f"{sorted(_SECTIONS['study'])}.")
    if "function" not in study:
        raise ConfigError(f"{src}: missing key 'function' in [study] (the registered study "
                          f"function to run; one of {sorted(STUDIES)} or 'module:function').")
    function = study["function"]
    if not isinstance(function, str):
        raise ConfigError(f"{src}: [study] key 'function' must be a string, got "
                          f"{function!r} ({_type_name(function)}).")
    try:
        spec = resolve_function(function)
    except (ValueError, ImportError) as exc:
        raise ConfigError(f"{src}: [study] key 'function': {exc}") from None
    name = study.get("name", function)
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{src}: [study] key 'name' must be a non-empty string, got {name!r}.")
    seed = study.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"{src}: [study] key 'seed' must be a non-negative integer, got "
                          f"{seed!r} ({_type_name(seed)}).")
    reps = study.get("replicates", 1)
    if isinstance(reps, bool) or not isinstance(reps, int | list):
        raise ConfigError(f"{src}: [study] key 'replicates' must be an integer or a list of "
                          f"integers, got {reps!r} ({_type_name(reps)}).")
    if isinstance(reps, int):
        if reps < 1:
            raise ConfigError(f"{src}: [study] key 'replicates' must be >= 1, got {reps}.")
        replicates = list(range(reps))
    else:
        bad = [r for r in reps if isinstance(r, bool) or not isinstance(r, int) or r < 0]
        if not reps or bad or len(set(reps)) != len(reps):
            raise ConfigError(f"{src}: [study] key 'replicates' must be a non-empty list of "
                              f"distinct non-negative integers, got {reps!r}.")
        replicates = list(reps)
    paired = study.get("paired_seeds", False)
    if not isinstance(paired, bool):
        raise ConfigError(f"{src}: [study] key 'paired_seeds' must be true or false, got "
                          f"{paired!r} ({_type_name(paired)}).")
    description = study.get("description", "")
    if not isinstance(description, str):
        raise ConfigError(f"{src}: [study] key 'description' must be a string, got "
                          f"{description!r}.")

    params = {k: _check_json_value(v, f"[params] key '{k}'", src)
              for k, v in dict(data.get("params", {})).items()}
    grid: dict[str, list] = {}
    for key, values in dict(data.get("grid", {})).items():
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{src}: [grid] key '{key}' must be a non-empty list of values, "
                              f"got {values!r} ({_type_name(values)}).")
        grid[key] = _check_json_value(values, f"[grid] key '{key}'", src)
    cases_raw = data.get("cases", [])
    if not isinstance(cases_raw, list) or not all(isinstance(c, Mapping) for c in cases_raw):
        raise ConfigError(f"{src}: 'cases' must be an array of tables ([[cases]]), got "
                          f"{cases_raw!r}.")
    cases = [{k: _check_json_value(v, f"[[cases]] #{i} key '{k}'", src) for k, v in c.items()}
             for i, c in enumerate(cases_raw)]

    # The same parameter may not be set in two places (which value would win is not obvious).
    seen: dict[str, str] = {}
    for where, keys in [("[params]", params), ("[grid]", grid)]:
        for key in keys:
            if key in seen:
                raise ConfigError(f"{src}: key '{key}' is set in both {seen[key]} and {where}.")
            seen[key] = where
    for i, case in enumerate(cases):
        for key in case:
            if key in seen:
                raise ConfigError(f"{src}: [[cases]] #{i} key '{key}' is also set in {seen[key]}.")
    _check_signature(spec, params, grid, cases, src)

    execution = dict(data.get("execution", {}))
    for key in execution:
        if key not in _SECTIONS["execution"]:
            raise ConfigError(f"{src}: unknown key '{key}' in [execution]; allowed keys are "
                              f"{sorted(_SECTIONS['execution'])}.")
    jobs = execution.get("jobs", 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"{src}: [execution] key 'jobs' must be an integer >= 1, got {jobs!r}.")
    backend = execution.get("backend", "loky")
    if backend not in BACKENDS:
        raise ConfigError(f"{src}: [execution] key 'backend' must be one of {list(BACKENDS)}, "
                          f"got {backend!r}.")
    scheduler = execution.get("scheduler")
    if scheduler is not None and not isinstance(scheduler, str):
        raise ConfigError(f"{src}: [execution] key 'scheduler' must be an address string, got "
                          f"{scheduler!r}.")
    threads = execution.get("threads_per_task", 1)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ConfigError(f"{src}: [execution] key 'threads_per_task' must be an integer >= 1, "
                          f"got {threads!r}.")
    return {
        "format": _FORMAT_VERSION,
        "name": name,
        "function": function,
        "description": description,
        "seed": seed,
        "replicates": replicates,
        "paired_seeds": paired,
        "params": params,
        "grid": grid,
        "cases": cases,
        "execution": {"jobs": jobs, "backend": backend, "scheduler": scheduler,
                      "threads_per_task": threads},
        "source": source,
    }


def _annotation_check(annotation: Any, value: Any) -> bool:
    """Does a config value fit a simple type annotation? Unknown annotations accept anything."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return True
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_annotation_check(a, value) for a in typing.get_args(annotation))
    if annotation is type(None):
        return value is None
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if annotation is str:
        return isinstance(value, str)
    if origin is typing.Literal:
        return value in typing.get_args(annotation)
    if annotation in (list, tuple) or origin in (list, tuple, typing.Sequence,
                                                  __import__("collections.abc").abc.Sequence):
        if not isinstance(value, list):
            return False
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        if len(args) == 1:
            return all(_annotation_check(args[0], v) for v in value)
        return True
    if annotation is dict or origin is dict:
        return isinstance(value, Mapping)
    return True


def _describe_annotation(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _check_signature(spec: StudySpec, params: dict, grid: dict, cases: list, src: str) -> None:
    sig = inspect.signature(spec.function)
    try:
        hints = typing.get_type_hints(spec.function)
    except (NameError, TypeError):
        hints = {}
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    named = {k: p for k, p in sig.parameters.items()
             if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    given: dict[str, list[tuple[str, Any]]] = {}
    for key, value in params.items():
        given.setdefault(key, []).append((f"[params] key '{key}'", value))
    for key, values in grid.items():
        for i, value in enumerate(values):
            given.setdefault(key, []).append((f"[grid] key '{key}' (value #{i})", value))
    for i, case in enumerate(cases):
        for key, value in case.items():
            given.setdefault(key, []).append((f"[[cases]] #{i} key '{key}'", value))
    if "seed" in given:
        raise ConfigError(f"{src}: {given['seed'][0][0]}: 'seed' is set by the runner per task; "
                          "set the study seed with [study] seed = ...")
    for key, places in given.items():
        if key not in named:
            if accepts_any:
                continue
            allowed = sorted(k for k in named if k != "seed")
            raise ConfigError(f"{src}: {places[0][0]}: study function '{spec.name}' has no "
                              f"parameter '{key}'; its parameters are {allowed}.")
        annotation = hints.get(key, inspect.Parameter.empty)
        for where, value in places:
            if not _annotation_check(annotation, value):
                raise ConfigError(f"{src}: {where} must be of type "
                                  f"{_describe_annotation(annotation)}, got {value!r} "
                                  f"({_type_name(value)}).")
    case_keys = set().union(*cases) if cases else set()
    for key, p in named.items():
        if key == "seed" or p.default is not inspect.Parameter.empty:
            continue
        missing_in_case = [i for i, c in enumerate(cases) if key not in c]
        if key not in params and key not in grid and (key not in case_keys or missing_in_case):
            raise ConfigError(f"{src}: missing key '{key}': study function '{spec.name}' needs "
                              "it; set it in [params], [grid] or every [[cases]] table.")


# --------------------------------------------------------------------------------------------
# Tasks: keys and seeds
# --------------------------------------------------------------------------------------------


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)


def task_key(function: str, params: Mapping, replicate: int) -> str:
    """Stable identifier of a task: SHA-256 of the canonical JSON of its definition (16 hex).

    Independent of dict order and of the process; changes if any parameter value changes.

    >>> task_key("f", {"a": 1, "b": [1, 2]}, 0) == task_key("f", {"b": [1, 2], "a": 1}, 0)
    True
    >>> task_key("f", {"a": 1}, 0) == task_key("f", {"a": 1}, 1)
    False
    """
    text = _canonical({"function": function, "params": dict(params), "replicate": int(replicate)})
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def task_seed(study_seed: int, function: str, params: Mapping, replicate: int, *,
              paired: bool = False) -> int:
    """Seed of one task, in ``[0, 2**32)``.

    ``numpy.random.SeedSequence(entropy=study_seed, spawn_key=(replicate, h_1..h_4))`` with
    ``h`` four 32-bit words of the SHA-256 of ``(function, params)``; with ``paired=True`` the
    parameters are left out, so all grid points of one replicate share a seed (common random
    numbers). Depends only on the task's definition, never on scheduling.

    >>> task_seed(7, "f", {"a": 1}, 0) == task_seed(7, "f", {"a": 1}, 0)
    True
    >>> task_seed(7, "f", {"a": 1}, 0, paired=True) == task_seed(7, "f", {"a": 2}, 0, paired=True)
    True
    """
    words: tuple[int, ...] = ()
    if not paired:
        digest = hashlib.sha256(_canonical({"function": function,
                                            "params": dict(params)}).encode("ascii")).digest()
        words = tuple(int.from_bytes(digest[4 * i:4 * i + 4], "little") for i in range(4))
    ss = np.random.SeedSequence(entropy=int(study_seed), spawn_key=(int(replicate), *words))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


@dataclasses.dataclass(frozen=True)
class Task:
    """One unit of work: a study function called with ``params`` and ``seed``."""

    study: str
    function: str
    params: dict
    replicate: int
    seed: int
    key: str
    threads: int = 1

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def expand_tasks(config: Mapping) -> list[Task]:
    """All tasks of a resolved configuration, in a fixed order: cases x grid x replicates."""
    grid_keys = list(config["grid"])
    cases = config["cases"] or [{}]
    tasks = []
    seen = set()
    for case in cases:
        for values in itertools.product(*(config["grid"][k] for k in grid_keys)):
            params = {**config["params"], **case, **dict(zip(grid_keys, values, strict=True))}
            for rep in config["replicates"]:
                key = task_key(config["function"], params, rep)
                if key in seen:
                    raise ConfigError(f"{config.get('source', '<config>')}: two tasks have the "
                                      f"same parameters {params} (replicate {rep}); remove the "
                                      "duplicate grid value or case.")
                seen.add(key)
                seed = task_seed(config["seed"], config["function"], params, rep,
                                 paired=config["paired_seeds"])
                tasks.append(Task(config["name"], config["function"], params, rep, seed, key,
                                  config["execution"]["threads_per_task"]))
    return tasks


# --------------------------------------------------------------------------------------------
# Executing one task (runs in the worker)
# --------------------------------------------------------------------------------------------


def _to_scalar(value: Any, where: str) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int | float):
        return value
    if isinstance(value, list | tuple | np.ndarray):
        arr = np.asarray(value)
        if arr.ndim == 1 and arr.size <= 64:
            return [_to_scalar(v, where) for v in arr.tolist()]
    raise TypeError(f"{where}: result values must be scalars (or short 1-D lists), got "
                    f"{type(value).__name__}.")


def _normalise_rows(result: Any) -> list[dict]:
    if result is None:
        raise TypeError("the study function returned None; it must return a dict, a list of "
                        "dicts or a DataFrame.")
    if hasattr(result, "to_dict") and hasattr(result, "columns"):
        result = result.to_dict(orient="records")
    if isinstance(result, Mapping):
        result = [result]
    if not isinstance(result, list | tuple):
        raise TypeError(f"the study function returned {type(result).__name__}; it must return "
                        "a dict, a list of dicts or a DataFrame.")
    rows = []
    for i, row in enumerate(result):
        if not isinstance(row, Mapping):
            raise TypeError(f"row {i} is a {type(row).__name__}, not a dict.")
        rows.append({str(k): _to_scalar(v, f"row {i} key {k!r}") for k, v in row.items()})
    return rows


@contextlib.contextmanager
def _limited_threads(threads: int):
    """Pin BLAS/OpenMP threads (and torch's, if loaded) so that results do not depend on the
    number of workers. The learners pin torch's threads themselves while they fit."""
    from threadpoolctl import threadpool_limits

    torch = sys.modules.get("torch")
    old = torch.get_num_threads() if torch is not None else None
    if torch is not None:
        torch.set_num_threads(threads)
    try:
        with threadpool_limits(limits=threads):
            yield
    finally:
        if torch is not None:
            torch.set_num_threads(old)


def execute_task(task: Mapping) -> dict:
    """Run one task and return its record (never raises for an error inside the study)."""
    start, cpu_start = time.perf_counter(), time.process_time()
    record = {
        "format": _FORMAT_VERSION,
        "key": task["key"],
        "study": task["study"],
        "function": task["function"],
        "params": task["params"],
        "replicate": task["replicate"],
        "seed": task["seed"],
        "host": platform.node(),
        "pid": os.getpid(),
    }
    try:
        spec = resolve_function(task["function"])
        with _limited_threads(task.get("threads", 1)):
            result = spec.function(seed=task["seed"], **task["params"])
        rows = _normalise_rows(result)
        for i, row in enumerate(rows):
            for k, v in task["params"].items():
                if k in row and json.dumps(row[k], sort_keys=True) != json.dumps(v, sort_keys=True):
                    raise ValueError(f"row {i} key {k!r} = {row[k]!r} contradicts the task "
                                     f"parameter {k} = {v!r}.")
        record.update(status="ok", rows=rows)
    except Exception as exc:  # noqa: BLE001 - every failure is recorded, the study goes on
        record.update(status="failed", error=f"{type(exc).__name__}: {exc}",
                      traceback=traceback.format_exc())
    record["elapsed_s"] = time.perf_counter() - start
    record["cpu_s"] = time.process_time() - cpu_start
    record["finished_at"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return record


# --------------------------------------------------------------------------------------------
# Files of a study folder
# --------------------------------------------------------------------------------------------


def _atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: temporary file in the same folder, then replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _ok_path(study_dir: Path, key: str) -> Path:
    return study_dir / TASKS_DIR / f"{key}.json"


def _failed_path(study_dir: Path, key: str) -> Path:
    return study_dir / TASKS_DIR / f"{key}.failed.json"


def _write_record(study_dir: Path, record: dict) -> None:
    key = record["key"]
    if record["status"] == "ok":
        _atomic_write_text(_ok_path(study_dir, key), json.dumps(record, indent=1))
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_failed_path(study_dir, key))
    else:
        _atomic_write_text(_failed_path(study_dir, key), json.dumps(record, indent=1))


def _read_record(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def _read_manifest(study_dir: Path) -> dict:
    path = study_dir / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(f"{study_dir} is not a study folder: {MANIFEST} is missing "
                                "(start a study with `bipartite study run CONFIG.toml`).")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: the manifest is not valid JSON: {exc}") from None
    if manifest.get("format") != _FORMAT_VERSION:
        raise ConfigError(f"{path}: unsupported manifest format {manifest.get('format')!r}.")
    return manifest


def _manifest_identity(config: Mapping) -> dict:
    """The parts of a configuration that define its tasks (execution options may differ)."""
    return {k: config[k] for k in ("function", "seed", "replicates", "paired_seeds", "params",
                                   "grid", "cases", "name")}


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass
class StudyResult:
    """What a run of a study did: the tidy results and the task counts."""

    study_dir: Path
    results: Any  # pandas.DataFrame
    n_tasks: int
    n_skipped: int
    n_run: int
    failures: list[dict]
    elapsed_s: float

    @property
    def ok(self) -> bool:
        return not self.failures


def _run_loky(pending: list[Task], jobs: int):
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered",
                        batch_size=1, pre_dispatch="2*n_jobs")
    yield from parallel(delayed(execute_task)(t.as_dict()) for t in pending)


def _run_dask(pending: list[Task], jobs: int, scheduler: str | None, cluster_kwargs: Mapping):
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        kwargs = {"n_workers": jobs, "threads_per_worker": 1, "dashboard_address": None,
                  "processes": True, **dict(cluster_kwargs)}
        cluster = LocalCluster(**kwargs)
        client = Client(cluster)
    try:
        futures = {}
        for t in pending:
            fut = client.submit(execute_task, t.as_dict(), key=f"bipartite-{t.key}", pure=False)
            futures[fut] = t
        for fut in as_completed(futures):
            task = futures[fut]
            try:
                yield fut.result()
            except Exception as exc:  # noqa: BLE001 - a lost worker fails this task only
                yield {"format": _FORMAT_VERSION, "key": task.key, "study": task.study,
                       "function": task.function, "params": task.params,
                       "replicate": task.replicate, "seed": task.seed, "status": "failed",
                       "error": f"{type(exc).__name__}: {exc}",
                       "traceback": traceback.format_exc(), "elapsed_s": float("nan")}
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _execute_pending(study_dir: Path, pending: list[Task], *, jobs: int, backend: str,
                     scheduler: str | None, progress: bool, n_total: int, n_done: int,
                     dask_cluster_kwargs: Mapping | None, desc: str) -> list[dict]:
    from tqdm.auto import tqdm

    if backend == "dask":
        stream = _run_dask(pending, jobs, scheduler, dask_cluster_kwargs or {})
    else:
        stream = _run_loky(pending, jobs)
    failures = []
    with tqdm(total=n_total, initial=n_done, desc=desc, unit="task", disable=not progress,
              dynamic_ncols=True) as bar:
        for record in stream:
            _write_record(study_dir, record)
            if record["status"] != "ok":
                failures.append(record)
                bar.set_postfix(failed=len(failures))
            bar.update(1)
    return failures


def run_study(config: Mapping | str | os.PathLike, out_dir: str | os.PathLike | None = None, *,
              jobs: int | None = None, backend: str | None = None, scheduler: str | None = None,
              progress: bool = True, retry_failed: bool = True,
              dask_cluster_kwargs: Mapping | None = None) -> StudyResult:
    """Run (or continue) a study into ``out_dir`` and gather its results.

    Parameters
    ----------
    config : path to a TOML file, or a mapping with the TOML structure (see
        :func:`resolve_config`), or an already resolved configuration.
    out_dir : the study folder (default ``results/<name>``). If it already holds a manifest for
        the same tasks, the run continues it like :func:`resume_study`; a manifest for different
        tasks is an error (use a new folder).
    jobs, backend, scheduler : override ``[execution]``. ``backend="dask"`` connects to
        ``scheduler`` (an address) if given, else starts a ``LocalCluster`` with ``jobs`` workers
        (``dask_cluster_kwargs`` are passed to it, e.g. ``{"processes": False}``).
    progress : show a tqdm progress bar (on stderr).
    retry_failed : rerun tasks that failed before (default) or keep their failure records.

    Returns
    -------
    StudyResult with ``results`` (the tidy table, also written to ``results.parquet`` and
    ``results.csv``), the counts of tasks skipped and run, and the failure records.
    """
    if isinstance(config, str | os.PathLike):
        config = load_config(config)
    elif "format" not in config:
        config = resolve_config(config)
    config = dict(config)
    study_dir = Path(out_dir) if out_dir is not None else Path("results") / config["name"]
    if jobs is not None:
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise ValueError(f"The 'jobs' parameter must be an integer >= 1, got {jobs!r}.")
        config["execution"] = {**config["execution"], "jobs": jobs}
    if backend is not None:
        from bipartite._validation import check_option

        check_option(backend, "backend", BACKENDS)
        config["execution"] = {**config["execution"], "backend": backend}
    if scheduler is not None:
        config["execution"] = {**config["execution"], "scheduler": scheduler}
    tasks = expand_tasks(config)

    manifest_path = study_dir / MANIFEST
    if manifest_path.is_file():
        old = _read_manifest(study_dir)
        if _manifest_identity(old) != _manifest_identity(config):
            raise ConfigError(f"{study_dir} already holds a different study "
                              f"({old.get('name')!r} from {old.get('source')}); choose another "
                              "--out folder, or use `bipartite study resume` to continue it.")
    else:
        manifest = dict(config)
        manifest["created_at"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        from bipartite import __version__

        manifest["bipartite_version"] = __version__
        manifest["n_tasks"] = len(tasks)
        _atomic_write_text(manifest_path, json.dumps(manifest, indent=1))
    (study_dir / TASKS_DIR).mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    done = [t for t in tasks if _ok_path(study_dir, t.key).is_file()]
    kept_failed = []
    if not retry_failed:
        kept_failed = [t for t in tasks
                       if t not in done and _failed_path(study_dir, t.key).is_file()]
    skip = {t.key for t in done} | {t.key for t in kept_failed}
    pending = [t for t in tasks if t.key not in skip]
    ex = config["execution"]
    failures = []
    if pending:
        failures = _execute_pending(
            study_dir, pending, jobs=ex["jobs"], backend=ex["backend"],
            scheduler=ex["scheduler"], progress=progress, n_total=len(tasks),
            n_done=len(skip), dask_cluster_kwargs=dask_cluster_kwargs, desc=config["name"])
    for t in kept_failed:
        rec = _read_record(_failed_path(study_dir, t.key))
        if rec is not None:
            failures.append(rec)
    order = {t.key: i for i, t in enumerate(tasks)}
    failures.sort(key=lambda rec: order.get(rec["key"], len(order)))  # task order, not finish
    results = collect_results(study_dir, tasks=tasks)
    return StudyResult(study_dir, results, len(tasks), len(skip), len(pending), failures,
                       time.perf_counter() - start)


def resume_study(study_dir: str | os.PathLike, *, jobs: int | None = None,
                 backend: str | None = None, scheduler: str | None = None,
                 progress: bool = True, retry_failed: bool = True,
                 dask_cluster_kwargs: Mapping | None = None) -> StudyResult:
    """Continue a study from its folder alone (its ``manifest.json``): finished tasks are kept,
    unfinished (and, with ``retry_failed``, failed) tasks are run. Options as :func:`run_study`."""
    study_dir = Path(study_dir)
    manifest = _read_manifest(study_dir)
    return run_study(manifest, study_dir, jobs=jobs, backend=backend, scheduler=scheduler,
                     progress=progress, retry_failed=retry_failed,
                     dask_cluster_kwargs=dask_cluster_kwargs)


def study_status(study_dir: str | os.PathLike) -> dict:
    """Counts of finished, failed and pending tasks of a study folder."""
    study_dir = Path(study_dir)
    manifest = _read_manifest(study_dir)
    tasks = expand_tasks(manifest)
    done = sum(_ok_path(study_dir, t.key).is_file() for t in tasks)
    failed = sum((not _ok_path(study_dir, t.key).is_file())
                 and _failed_path(study_dir, t.key).is_file() for t in tasks)
    return {"name": manifest["name"], "function": manifest["function"], "tasks": len(tasks),
            "done": done, "failed": failed, "pending": len(tasks) - done - failed}


def _table_value(value: Any) -> Any:
    if isinstance(value, list | dict):
        return _canonical(value)
    return value


def collect_results(study_dir: str | os.PathLike, *, tasks: list[Task] | None = None,
                    write: bool = True):
    """Gather the finished tasks of a study folder into one tidy ``pandas.DataFrame``.

    One row per result row of each task, in task order (never completion order): columns
    ``study, function, task, replicate, seed``, then the parameters, then the study's own
    columns. Lists are stored as JSON text. With ``write``, also writes ``results.parquet``,
    ``results.csv``, ``task_index.csv`` (status and time of each task) and ``failures.csv``.
    """
    import pandas as pd

    study_dir = Path(study_dir)
    if tasks is None:
        tasks = expand_tasks(_read_manifest(study_dir))
    rows, index, failures = [], [], []
    for t in tasks:
        rec = _read_record(_ok_path(study_dir, t.key))
        status = "ok" if rec is not None else "pending"
        if rec is None:
            frec = _read_record(_failed_path(study_dir, t.key))
            if frec is not None:
                status = "failed"
                failures.append({"task": t.key, "replicate": t.replicate,
                                 "params": _canonical(t.params), "error": frec.get("error"),
                                 "file": str(_failed_path(study_dir, t.key))})
        index.append({"task": t.key, "replicate": t.replicate, "seed": t.seed,
                      "params": _canonical(t.params), "status": status,
                      "elapsed_s": (rec or {}).get("elapsed_s"),
                      "cpu_s": (rec or {}).get("cpu_s")})
        if rec is None:
            continue
        base = {"study": t.study, "function": t.function, "task": t.key,
                "replicate": t.replicate, "seed": t.seed}
        base.update({k: _table_value(v) for k, v in t.params.items()})
        for row in rec["rows"]:
            rows.append({**base, **{k: _table_value(v) for k, v in row.items()}})
    df = pd.DataFrame(rows)
    if write:
        _write_table(df, study_dir / RESULTS_PARQUET, study_dir / RESULTS_CSV)
        pd.DataFrame(index).to_csv(study_dir / TASK_INDEX_CSV, index=False)
        failures_path = study_dir / FAILURES_CSV
        if failures:
            pd.DataFrame(failures).to_csv(failures_path, index=False)
        elif failures_path.exists():
            failures_path.unlink()
    return df


def _write_table(df, parquet_path: Path, csv_path: Path) -> None:
    """Parquet (pyarrow) + CSV; object columns mixing types are stored as text in Parquet."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object:
            kinds = {type(v) for v in out[col] if v is not None and not
                     (isinstance(v, float) and math.isnan(v))}
            if len(kinds) > 1:
                out[col] = out[col].map(lambda v: None if v is None else str(v))
    tmp = parquet_path.with_name(f".{parquet_path.name}.tmp")
    out.to_parquet(tmp, index=False, engine="pyarrow")
    os.replace(tmp, parquet_path)
    tmp = csv_path.with_name(f".{csv_path.name}.tmp")
    df.to_csv(tmp, index=False)
    os.replace(tmp, csv_path)


def read_results(study_dir: str | os.PathLike):
    """The tidy results table of a finished study folder (``results.parquet``)."""
    import pandas as pd

    path = Path(study_dir) / RESULTS_PARQUET
    if not path.is_file():
        return collect_results(study_dir)
    return pd.read_parquet(path)


# --------------------------------------------------------------------------------------------
# A small demonstration study (example config, runner tests)
# --------------------------------------------------------------------------------------------


@register_study("demo.binormal_auc")
def binormal_auc(*, seed: int, n: int, shift: float = 1.0, prior: float = 0.5) -> dict:
    """Empirical AUC of a binormal sample against its exact value (THEORY §2).

    Positives score ``N(shift, 1)``, negatives ``N(0, 1)``; the population AUC is
    ``Φ(shift / √2)``. The sample has ``round(prior n)`` positives among ``n``. Returns the
    empirical AUC (:func:`bipartite.metrics.auc`), the exact value and the error.

    >>> row = binormal_auc(seed=0, n=2000, shift=1.0)
    >>> round(row["auc_exact"], 4), abs(row["error"]) < 0.03
    (0.7602, True)
    """
    from bipartite.metrics import auc

    rng = np.random.default_rng(seed)
    n_pos = int(round(prior * n))
    y = np.r_[np.ones(n_pos), np.zeros(n - n_pos)]
    scores = rng.normal(size=n) + shift * y
    value = auc(y, scores)
    exact = 0.5 * math.erfc(-shift / 2.0)  # Φ(shift/√2) = ½ erfc(−shift/2)
    return {"auc": value, "auc_exact": exact, "error": value - exact}


# --------------------------------------------------------------------------------------------
# Figures and tables from results folders (shared helpers; analysis/ scripts call these)
# --------------------------------------------------------------------------------------------


def _pyplot():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "cairo"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, fig_dir: str | os.PathLike, name: str) -> list[Path]:
    """Save ``fig`` as ``<fig_dir>/<name>.png`` (150 dpi) and ``.pdf``; close it; return paths."""
    plt = _pyplot()
    fig_dir = Path(fig_dir)
    fig_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "pdf"):
        path = fig_dir / f"{name}.{ext}"
        fig.savefig(path, dpi=150, bbox_inches="tight",
                    metadata={"CreationDate": None} if ext == "pdf" else None)
        paths.append(path)
    plt.close(fig)
    return paths


def mean_and_se(df, by: list[str], value: str):
    """Mean, standard error and count of ``value`` per group ``by`` (NaN-aware)."""
    g = df.groupby(by, sort=True, dropna=False)[value]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["se"] = out["std"] / np.sqrt(out["count"].clip(lower=1))
    out.loc[out["count"] < 2, "se"] = 0.0
    return out[[*by, "mean", "se", "count"]]


def generic_figures(study_dir: str | os.PathLike, fig_dir: str | os.PathLike) -> list[Path]:
    """One figure per numeric result column of any study folder: mean ± s.e. over replicates
    against the first numeric grid parameter, one line per combination of the other grid keys."""
    plt = _pyplot()
    study_dir = Path(study_dir)
    manifest = _read_manifest(study_dir)
    df = read_results(study_dir)
    if df.empty:
        return []
    grid_keys = [k for k in manifest["grid"] if k in df.columns]
    numeric_grid = [k for k in grid_keys if np.issubdtype(df[k].dtype, np.number)]
    x = numeric_grid[0] if numeric_grid else None
    others = [k for k in grid_keys if k != x]
    skip = set(TASK_COLUMNS) | set(manifest["params"]) | set(grid_keys)
    for case in manifest.get("cases", []):
        skip |= set(case)
    values = [c for c in df.columns if c not in skip and np.issubdtype(df[c].dtype, np.number)]
    labels = [c for c in df.columns if c not in skip and df[c].dtype == object]
    paths = []
    for value in values:
        fig, ax = plt.subplots(figsize=(5.5, 3.8))
        group_keys = others + labels
        if x is None:
            stats = mean_and_se(df, group_keys or ["study"], value)
            names = stats[group_keys or ["study"]].astype(str).agg(", ".join, axis=1)
            ax.bar(range(len(stats)), stats["mean"], yerr=stats["se"])
            ax.set_xticks(range(len(stats)), names, rotation=45, ha="right")
        else:
            for key, sub in (df.groupby(group_keys, sort=True, dropna=False) if group_keys
                             else [((), df)]):
                stats = mean_and_se(sub, [x], value)
                key = key if isinstance(key, tuple) else (key,)
                label = ", ".join(f"{k}={v}" for k, v in zip(group_keys, key, strict=True))
                ax.errorbar(stats[x], stats["mean"], yerr=stats["se"], marker="o", ms=3,
                            capsize=2, label=label or None)
            ax.set_xlabel(x)
            if (df[x] > 0).all() and df[x].max() / max(df[x].min(), 1e-300) >= 50:
                ax.set_xscale("log")
            if group_keys:
                ax.legend(fontsize=7)
        ax.set_ylabel(value)
        ax.set_title(f"{manifest['name']}: {value} (mean ± s.e.)", fontsize=9)
        ax.grid(alpha=0.3)
        paths += save_figure(fig, fig_dir, f"{manifest['name']}_{value}".replace("/", "_"))
    return paths


def study_figures(study_dir: str | os.PathLike, fig_dir: str | os.PathLike) -> list[Path]:
    """Figures of one study folder: the registered study's own figure function if it has one
    (``register_study(..., figures=...)``), else :func:`generic_figures`."""
    study_dir = Path(study_dir)
    manifest = _read_manifest(study_dir)
    spec = STUDIES.get(manifest["function"])
    if spec is not None and spec.figures is not None:
        return spec.figures(read_results(study_dir), Path(fig_dir))
    return generic_figures(study_dir, fig_dir)


def markdown_table(df, *, digits: int = 4) -> str:
    """A GitHub-flavoured Markdown table of a DataFrame (floats rounded to ``digits``).

    >>> import pandas as pd
    >>> print(markdown_table(pd.DataFrame({"a": [1, 2], "b": [0.5, float("nan")]})))
    | a | b |
    |---|---|
    | 1 | 0.5000 |
    | 2 | – |
    """
    def fmt(v):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "–"
        if isinstance(v, float | np.floating):
            if v != 0 and abs(v) < 10.0 ** -(digits - 1):
                return f"{v:.2e}"
            return f"{v:.{digits}f}"
        return str(v).replace("|", "\\|")

    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(fmt(v) for v in row) + " |"
            for row in df.itertuples(index=False, name=None)]
    return "\n".join([head, rule, *body])


def study_summary_table(study_dir: str | os.PathLike):
    """Mean, standard error and count of every numeric result column per grid point (and per
    text column of the results, e.g. a method name) of a study folder."""
    import pandas as pd

    study_dir = Path(study_dir)
    manifest = _read_manifest(study_dir)
    df = read_results(study_dir)
    params = list(manifest["grid"]) + sorted(set().union(*manifest["cases"]) if manifest["cases"]
                                             else set())
    skip = set(TASK_COLUMNS) | set(manifest["params"]) | set(params)
    labels = [c for c in df.columns if c not in skip and df[c].dtype == object]
    values = [c for c in df.columns if c not in skip and np.issubdtype(df[c].dtype, np.number)]
    by = [c for c in params + labels if c in df.columns]
    if not by:
        by = ["study"]
    pieces = []
    for value in values:
        stats = mean_and_se(df, by, value).rename(columns={"mean": f"{value}_mean",
                                                           "se": f"{value}_se",
                                                           "count": f"{value}_n"})
        pieces.append(stats.set_index(by))
    if not pieces:
        return pd.DataFrame(columns=by)
    return pd.concat(pieces, axis=1).reset_index()


# --------------------------------------------------------------------------------------------
# One-shot tables for the CLI (`bipartite frontier`, `bipartite dictatorship`)
# --------------------------------------------------------------------------------------------


def _dense_rank_desc(scores: np.ndarray) -> np.ndarray:
    """Rank 1 = highest score; equal scores (to a relative 1e-12) share a rank."""
    f = np.asarray(scores, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(f))))
    order = np.argsort(-f, kind="stable")
    ranks = np.empty(len(f), dtype=np.int64)
    rank, last = 0, None
    for i in order:
        if last is None or last - f[i] > 1e-12 * scale:
            rank += 1
            last = f[i]
        ranks[i] = rank
    return ranks


def dictatorship_tables(problem, *, a=None):
    """Label table and point-order table of a finite problem (THEORY §4, §5, §7).

    Returns ``(labels, orders)``: ``labels`` has per label k the prior π_k, the mixing weight
    a_k, the effective weight α_k (:func:`bipartite.bayes.effective_weights`), its share
    (:func:`bipartite.dictatorship.effective_weight_shares`), whether it is the dictator for
    deterministic labels (:func:`bipartite.dictatorship.dictator`) and the priors below / above
    which it would dictate (:func:`bipartite.dictatorship.dictator_threshold`); ``orders`` has
    per point its mass, η, and its score and rank (1 = top, ties share a rank) under loss
    aggregation (:func:`bipartite.bayes.loss_aggregation`) and label aggregation by sum and by
    product (:func:`bipartite.bayes.label_aggregation_scores`).

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.25] * 4, [[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> labels, orders = dictatorship_tables(P, a=[1.0, 3.0])
    >>> labels["dictator"].tolist(), orders["rank_loss"].tolist(), orders["rank_sum"].tolist()
    ([False, True], [4, 2, 3, 1], [3, 2, 2, 1])
    """
    import pandas as pd

    from bipartite.bayes import effective_weights, label_aggregation_scores, loss_aggregation
    from bipartite.dictatorship import dictator, dictator_threshold, effective_weight_shares

    pi = problem.pi
    K = problem.K
    a_vec = np.ones(K) if a is None else np.asarray(a, dtype=np.float64)
    if a_vec.shape != (K,):
        raise ValueError(f"The 'a' parameter must have K = {K} entries, got {a_vec.tolist()}.")
    alpha = effective_weights(pi, a_vec)
    shares = effective_weight_shares(pi, a_vec)
    dic = dictator(pi, a_vec)
    rows = []
    for k in range(K):
        thr = dictator_threshold(pi, k, a=a_vec) if K >= 2 else None
        rows.append({"label": k + 1, "pi": pi[k], "a": a_vec[k], "alpha": alpha[k],
                     "alpha_share": shares[k], "dictator": dic == k,
                     "dictates_below_pi": np.nan if thr is None else thr[0],
                     "dictates_above_pi": np.nan if thr is None else thr[1]})
    labels = pd.DataFrame(rows)
    loss = loss_aggregation(problem.eta, pi, a_vec)
    total = label_aggregation_scores(problem.eta, problem.label_probs, aggregate="sum")
    orders = {"point": np.arange(1, problem.n + 1), "mass": problem.mass}
    for k in range(K):
        orders[f"eta_{k + 1}"] = problem.eta[:, k]
    orders.update({"score_loss": loss, "rank_loss": _dense_rank_desc(loss),
                   "score_sum": total, "rank_sum": _dense_rank_desc(total)})
    if K >= 2:
        prod = label_aggregation_scores(problem.eta, problem.label_probs, aggregate="product")
        orders.update({"score_product": prod, "rank_product": _dense_rank_desc(prod)})
    return labels, pd.DataFrame(orders)


# ============================================================================================
# LA25 studies (Lukasik et al., ICML 2025: loss vs label aggregation)
# ============================================================================================
#
# Every study function below uses the package's public API for each formula (population AUCs,
# Bayes scorers, frontiers, dictatorship diagnostics, surrogate minimisers, learners) and only
# arranges the computations into tidy rows. Sizes for `bipartite reproduce` are in _LA25_SIZES.


def _valid_random_problem(n: int, K: int, rng: np.random.Generator, *,
                          deterministic: bool = False, max_tries: int = 1000):
    """``FiniteProblem.random`` redrawn until every prior is strictly inside (0, 1)."""
    from bipartite.population import FiniteProblem

    for _ in range(max_tries):
        problem = FiniteProblem.random(n, K, seed=rng, deterministic=deterministic)
        if np.all((problem.pi > 1e-9) & (problem.pi < 1 - 1e-9)):
            return problem
    raise ValueError(f"could not draw a problem with n={n}, K={K} whose priors are all inside "
                     f"(0, 1) in {max_tries} tries.")


def _quiet(fn, *args, **kwargs):
    """Call ``fn`` with UndefinedMetricWarning silenced (NaN results are recorded as NaN)."""
    import warnings

    from bipartite._validation import UndefinedMetricWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


@register_study("la25.frontier")
def la25_frontier(*, seed: int, n: int = 6, deterministic: bool = False,
                  time_limit: float = 60.0) -> list[dict]:
    """Exact vs supported Pareto frontier of per-label AUCs on a random finite problem (THEORY §6).

    Draws ``FiniteProblem.random(n, 2)`` (redrawn until both priors are inside (0, 1)) and
    computes the exact frontier (:func:`bipartite.pareto.exact_frontier`: subset DP for n ≤ 12,
    MILP above), the supported
    points (:func:`bipartite.pareto.supported_frontier`), and the AUC vectors of the Bayes
    scorers of loss aggregation (a = 1, :func:`bipartite.bayes.loss_aggregation`) and label
    aggregation (sum, linear costs, :func:`bipartite.bayes.label_aggregation`) with their
    Pareto certificates (:func:`bipartite.pareto.is_pareto_optimal`).

    Rows: ``kind`` in {"exact", "supported", "loss_aggregation", "label_aggregation",
    "summary"}; ``auc_1, auc_2``; for exact points ``supported`` (within 1e-7 of a supported
    point); for the Bayes points ``pareto_optimal``; the summary row counts the points and gives
    the hypervolumes (reference (0, 0), :func:`bipartite.pareto.hypervolume`) of both sets.
    If the exact frontier takes longer than ``time_limit`` seconds (wall) the task returns only
    a summary row with ``timed_out=True`` (the tables count such problems), rather than
    blocking a worker: some random problems make the MILP recursion very slow.

    >>> rows = la25_frontier(seed=0, n=4)
    >>> summary = rows[-1]
    >>> summary["kind"], summary["n_exact"] >= summary["n_supported"] >= 1
    ('summary', True)
    """
    from bipartite.bayes import label_aggregation, loss_aggregation
    from bipartite.pareto import exact_frontier, hypervolume, is_pareto_optimal, supported_frontier

    rng = np.random.default_rng(seed)
    problem = _valid_random_problem(n, 2, rng, deterministic=deterministic)
    try:
        exact = exact_frontier(problem, time_limit=time_limit)
    except TimeoutError:
        return [{"kind": "summary", "pi_1": problem.pi[0], "pi_2": problem.pi[1],
                 "timed_out": True}]
    supported = supported_frontier(problem)
    rows: list[dict] = []
    dist = np.abs(exact[:, None, :] - supported[None, :, :]).max(axis=2).min(axis=1)
    is_supported = dist <= 1e-7
    for point, sup in zip(exact, is_supported, strict=True):
        rows.append({"kind": "exact", "auc_1": point[0], "auc_2": point[1],
                     "supported": bool(sup)})
    for point in supported:
        rows.append({"kind": "supported", "auc_1": point[0], "auc_2": point[1]})
    bayes = {"loss_aggregation": loss_aggregation(problem.eta, problem.pi),
             "label_aggregation": label_aggregation(problem)}
    for kind, scores in bayes.items():
        point = problem.auc(scores)
        rows.append({"kind": kind, "auc_1": point[0], "auc_2": point[1],
                     "pareto_optimal": is_pareto_optimal(problem, scores)})
    ref = [0.0, 0.0]
    hv_exact, hv_supported = hypervolume(exact, ref), hypervolume(supported, ref)
    rows.append({"kind": "summary", "pi_1": problem.pi[0], "pi_2": problem.pi[1],
                 "n_exact": len(exact), "n_supported": int(is_supported.sum()),
                 "n_unsupported": int((~is_supported).sum()),
                 "hv_exact": hv_exact, "hv_supported": hv_supported,
                 "hv_gap": hv_exact - hv_supported, "timed_out": False})
    return rows


@register_study("la25.consistency")
def la25_consistency(*, seed: int, n: int = 8, K: int = 2, surrogate: str = "logistic",
                     objective: str = "loss_aggregation",
                     plugin_samples: list[int] | None = None) -> list[dict]:
    """Surrogate consistency on a random finite problem (THEORY §9).

    Draws ``FiniteProblem.random(n, K)`` and computes the AUC regret
    (:func:`bipartite.consistency.auc_regret`) of (i) the exact population minimiser of the
    pairwise ``surrogate`` risk weighted by the ``objective``'s pair weights
    (:func:`bipartite.consistency.surrogate_minimizer`), (ii) the plug-in scorer on the
    population (:func:`bipartite.consistency.plugin_scores`; regret 0 by Bayes optimality) and
    (iii) the plug-in scorer estimated from samples of each size in ``plugin_samples``.

    Rows: ``method`` ("surrogate", "plugin", "plugin_sampled"), ``n_samples`` (sampled plug-in
    only), ``regret`` and ``positive_regret`` (regret > 1e-6, well above the solver tolerance);
    the surrogate row also says whether the infimum was attained (else a tiny ridge was added,
    see :func:`bipartite.consistency.surrogate_minimizer`) and whether the solver warned.

    >>> rows = la25_consistency(seed=0, n=4, K=1, plugin_samples=[])
    >>> [(r["method"], r["positive_regret"]) for r in rows]  # K = 1: consistent
    [('surrogate', False), ('plugin', False)]
    """
    from bipartite.consistency import auc_regret, plugin_scores, surrogate_minimizer

    rng = np.random.default_rng(seed)
    problem = _valid_random_problem(n, K, rng)
    samples = [100, 1000, 10000] if plugin_samples is None else list(plugin_samples)
    rows = []

    def add(method, scores, **extra):
        regret = float(auc_regret(problem, scores, objective=objective))
        rows.append({"method": method, **extra, "regret": regret,
                     "positive_regret": regret > 1e-6})

    import warnings

    from bipartite.consistency import InfimumNotAttainedWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = surrogate_minimizer(problem, surrogate=surrogate, objective=objective)
    ridge = any(issubclass(w.category, InfimumNotAttainedWarning) for w in caught)
    add("surrogate", scores, infimum_attained=not ridge,
        solver_warning=any(not issubclass(w.category, InfimumNotAttainedWarning)
                           for w in caught))
    add("plugin", plugin_scores(problem, objective=objective))
    for m in samples:
        sample_seed = int(rng.integers(2**32))
        try:
            scores = plugin_scores(problem, objective=objective, n_samples=int(m),
                                   seed=sample_seed)
        except ValueError:  # a label without positives (or negatives) in a small sample
            rows.append({"method": "plugin_sampled", "n_samples": int(m), "regret": np.nan,
                         "positive_regret": False})
            continue
        add("plugin_sampled", scores, n_samples=int(m))
    return rows



# ---- helpers shared by the synthetic LA25 studies -------------------------------------------

_BAYES_NAMES = {"loss_aggregation": "loss aggregation (a = 1)",
                "label_aggregation": "label aggregation (sum)"}


def _scorer_row(problem, scores, **fields) -> dict:
    """Population per-label AUCs and the cross-pair win rate W_{1>2} of one scorer on a finite
    problem (:meth:`FiniteProblem.auc`, :func:`bipartite.dictatorship.population_win_rate`)."""
    from bipartite.dictatorship import population_win_rate

    aucs = _quiet(problem.auc, scores)
    row = dict(fields)
    for k, value in enumerate(aucs):
        row[f"auc_{k + 1}"] = float(value)
    if problem.K >= 2:
        row["win_12"] = _quiet(population_win_rate, problem, scores, 0, 1)
    return row


def _make_learner(learner: str, objective: str, method: str, seed: int, *, epochs: int,
                  n_estimators: int, weights=None):
    """An :class:`~bipartite.learners.MLPRanker` or :class:`~bipartite.learners.XGBRanker`,
    single-threaded (the runner parallelises over tasks), seeded."""
    from bipartite.learners import MLPRanker, XGBRanker

    if learner == "mlp":
        return MLPRanker(objective=objective, method=method, weights=weights, hidden=(32, 32),
                         epochs=epochs, batch_size=512, lr=3e-3, n_iter_no_change=8,
                         n_jobs=1, random_state=seed)
    if learner == "xgb":
        return XGBRanker(objective=objective, method=method, weights=weights,
                         n_estimators=n_estimators, learning_rate=0.1, max_depth=3,
                         n_jobs=1, random_state=seed)
    raise ValueError(f"The 'learner' parameter must be 'mlp' or 'xgb', got {learner!r}.")


@register_study("la25.skew")
def la25_skew(*, seed: int, pi2: float, pi1: float = 0.5, beta: float = 8.0, rho: float = 0.0,
              n_test: int = 20000, n_train: int = 2000, learners: list[str] | None = None,
              epochs: int = 40, n_estimators: int = 150) -> list[dict]:
    """Per-label AUC and dictatorship as label 2 gets rarer (THEORY §4, §5, §7; LA25 §6-7).

    Synthetic problem (:func:`bipartite.data.synthetic_model`, priors ``(pi1, pi2)``); the test
    sample, with its exact conditional joint, is a finite problem
    (:meth:`~bipartite.data.SyntheticModel.finite_problem`) on which AUCs and the cross-pair
    win rate ``W_{1>2}`` are exact population values. Scorers: the Bayes scorers of loss
    aggregation (a = 1) and label aggregation (sum), each label's η alone (the reference), and
    the ``learners`` ("xgb", "mlp") trained with the pairwise objective of each aggregation on
    ``n_train`` samples. Rows: ``scorer`` ("bayes" or the learner), ``objective``,
    ``auc_1, auc_2``, ``frac_1, frac_2`` (AUC as a share of the label's best single-label AUC),
    ``win_12``, and the theory: ``alpha_share_2``, ``dictator`` (-1 for none).

    >>> rows = la25_skew(seed=0, pi2=0.05, n_test=500, learners=[])
    >>> loss = [r for r in rows if r["objective"] == "loss_aggregation"][0]
    >>> loss["dictator"], loss["win_12"] < 0.5  # the rare label 2 dictates
    (1, True)
    """
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.data import synthetic_model
    from bipartite.dictatorship import dictator, effective_weight_shares

    rng = np.random.default_rng(seed)
    model = synthetic_model(priors=(pi1, pi2), beta=beta, rho=rho)
    test = model.sample(n_test, seed=int(rng.integers(2**32)))
    problem = model.finite_problem(test.X)
    best = [_quiet(problem.auc, test.eta[:, k])[k] for k in range(2)]
    theory = {"alpha_share_2": float(effective_weight_shares(model.pi)[1]),
              "dictator": -1 if dictator(model.pi) is None else int(dictator(model.pi))}
    scorers = {("bayes", "loss_aggregation"): loss_aggregation(test.eta, model.pi),
               ("bayes", "label_aggregation"): label_aggregation_scores(test.eta),
               ("bayes", "label_1_only"): test.eta[:, 0],
               ("bayes", "label_2_only"): test.eta[:, 1]}
    learners = ["xgb"] if learners is None else list(learners)
    if learners:
        train = model.sample(n_train, seed=int(rng.integers(2**32)))
        for learner in learners:
            for objective in ("loss_aggregation", "label_aggregation"):
                est = _make_learner(learner, objective, "pairwise", int(rng.integers(2**31)),
                                    epochs=epochs, n_estimators=n_estimators)
                est.fit(train.X, train.Y)
                scorers[(learner, objective)] = est.decision_function(test.X)
    rows = []
    for (scorer, objective), scores in scorers.items():
        row = _scorer_row(problem, scores, scorer=scorer, objective=objective)
        row.update(frac_1=row["auc_1"] / best[0], frac_2=row["auc_2"] / best[1], **theory)
        rows.append(row)
    return rows


def _correlated_problem(model, X, c: float):
    """Finite problem on the rows of ``X`` whose label correlation slides with ``c`` in [−1, 1].

    ``model`` is a two-label synthetic model (orthogonal directions, η_1 and η_b). Label 2 has
    ``η_2 = |c| η_1^± + (1 − |c|) η_b`` with ``η_1^+ = η_1`` (c > 0) and ``η_1^- = 1 − η_1``
    (c < 0), and the two labels are coupled given x by the Gaussian copula with correlation c
    (:func:`bipartite.population.gaussian_copula_joint`): c = 0 gives label 2 = the independent
    synthetic label, c = 1 gives Y_2 = Y_1 (identical), c = −1 gives Y_2 = 1 − Y_1. Joint
    probabilities below 1e-12 are rounding left by the copula at c = ±1 (e.g. 2e-16 on (1, 1)
    when Y_2 = 1 − Y_1): they are set to 0 and the rows renormalised, so that a constant summed
    label is recognised as such."""
    from bipartite.population import FiniteProblem, gaussian_copula_joint

    E = model.eta(X)
    e1 = E[:, 0]
    toward = e1 if c >= 0 else 1.0 - e1
    eta = np.column_stack([e1, abs(c) * toward + (1.0 - abs(c)) * E[:, 1]])
    joint = gaussian_copula_joint(eta, c)
    joint[joint < 1e-12] = 0.0
    joint /= joint.sum(axis=1, keepdims=True)
    return FiniteProblem(np.full(len(X), 1.0 / len(X)), joint)


@register_study("la25.correlation")
def la25_correlation(*, seed: int, c: float, pi1: float = 0.5, pi2: float = 0.1,
                     beta: float = 8.0, n_points: int = 2000) -> list[dict]:
    """Label-correlation sweep from anti-correlated (c = −1: Y_2 = 1 − Y_1) through independent
    (c = 0) to identical labels (c = 1) (THEORY §4, §5).

    The synthetic model with priors ``(pi1, pi2)`` (:func:`bipartite.data.synthetic_model`)
    gives η_1 and an independent η_b; label 2 moves from η_b toward η_1 (c > 0) or 1 − η_1
    (c < 0) as in :func:`_correlated_problem`, so its prior moves from pi2 (c = 0) to pi1 or
    1 − pi1. On the finite problem of ``n_points`` sampled x, the Bayes scorers of loss
    aggregation (a = 1) and label aggregation by sum, product and or
    (:func:`bipartite.bayes.label_aggregation`) get their population per-label AUCs, ``win_12``
    and the multipartite AUC of the summed label (``mp_auc``, linear costs; NaN when the sum is
    constant, at c = −1). ``corr`` is the label correlation computed from the joint.

    >>> rows = la25_correlation(seed=0, c=-1.0, n_points=200)
    >>> r = rows[0]
    >>> r["scorer"], round(r["corr"], 6), bool(np.isnan(r["mp_auc"]))
    ('loss_aggregation', -1.0, True)
    """
    from bipartite.bayes import label_aggregation, loss_aggregation
    from bipartite.data import synthetic_model

    rng = np.random.default_rng(seed)
    model = synthetic_model(priors=(pi1, pi2), beta=beta)
    X = model.sample(n_points, seed=int(rng.integers(2**32))).X
    problem = _correlated_problem(model, X, c)
    pi = problem.pi
    joint11 = float(problem.mass @ problem.label_probs[:, 3])
    corr = float((joint11 - pi[0] * pi[1])
                 / math.sqrt(pi[0] * (1 - pi[0]) * pi[1] * (1 - pi[1])))
    scorers = {"loss_aggregation": loss_aggregation(problem.eta, pi)}
    for aggregate in ("sum", "product", "or"):
        try:
            scorers[f"label_{aggregate}"] = _quiet(label_aggregation, problem,
                                                   aggregate=aggregate)
        except ValueError:  # the aggregated label is constant: every scorer is optimal
            scorers[f"label_{aggregate}"] = np.zeros(problem.n)
    rows = []
    for name, scores in scorers.items():
        row = _scorer_row(problem, scores, scorer=name)
        row.update(corr=corr, pi_2=float(pi[1]), mp_auc=_quiet(problem.multipartite_auc, scores))
        rows.append(row)
    return rows


@register_study("la25.weights")
def la25_weights(*, seed: int, pi2: float = 0.1, pi1: float = 0.5, beta: float = 8.0,
                 rho: float = 0.0, n_points: int = 2000, n_ratios: int = 25,
                 max_ratio: float = 100.0) -> list[dict]:
    """Weight sensitivity: label-aggregation weights w against loss-aggregation weights a
    (THEORY §4, §5).

    On the finite problem of ``n_points`` synthetic x (exact joint), for ratios r from
    1/max_ratio to max_ratio (log grid), the Bayes scorer of loss aggregation with a = (1, r)
    (:func:`bipartite.bayes.loss_aggregation`) and of label aggregation with w = (1, r)
    (:func:`bipartite.bayes.label_aggregation_scores`). Loss aggregation is even-handed only
    near r* = π_2(1 − π_2)/(π_1(1 − π_1)) (column ``balanced_ratio``): its effective weights
    put the prior into the scale; label aggregation's scorer is free of the priors.

    >>> rows = la25_weights(seed=0, n_points=300, n_ratios=3)
    >>> [(r["aggregation"], r["ratio"]) for r in rows][:3]
    [('loss', 0.01), ('loss', 1.0), ('loss', 100.0)]
    """
    from bipartite.bayes import effective_weights, label_aggregation_scores, loss_aggregation
    from bipartite.data import synthetic_model

    rng = np.random.default_rng(seed)
    model = synthetic_model(priors=(pi1, pi2), beta=beta, rho=rho)
    X = model.sample(n_points, seed=int(rng.integers(2**32))).X
    problem = model.finite_problem(X)
    pi = problem.pi
    balanced = float(pi[1] * (1 - pi[1]) / (pi[0] * (1 - pi[0])))
    ratios = np.logspace(-math.log10(max_ratio), math.log10(max_ratio), n_ratios)
    rows = []
    for aggregation in ("loss", "label"):
        for r in ratios:
            w = np.array([1.0, float(r)])
            if aggregation == "loss":
                scores = loss_aggregation(problem.eta, pi, w)
                alpha = effective_weights(pi, w)
            else:
                scores = label_aggregation_scores(problem.eta, weights=w)
                alpha = w
            rows.append(_scorer_row(problem, scores, aggregation=aggregation,
                                    ratio=float(round(r, 12)),
                                    score_weight_share_2=float(alpha[1] / alpha.sum()),
                                    balanced_ratio=balanced))
    return rows


@register_study("la25.learning_curve")
def la25_learning_curve(*, seed: int, n_train: int, learner: str, method: str,
                        objective: str = "loss_aggregation", pi1: float = 0.5,
                        pi2: float = 0.1, beta: float = 8.0, rho: float = 0.0,
                        n_test: int = 5000, epochs: int = 40,
                        n_estimators: int = 150) -> dict:
    """Learners vs Bayes as the training set grows: exact AUC regret (THEORY §9, §10).

    A learner (``"mlp"``/``"xgb"``, ``method`` "pairwise" or "plugin", see
    :mod:`bipartite.learners`) is trained on ``n_train`` synthetic samples; its regret
    (:func:`bipartite.consistency.auc_regret`) is computed on the finite problem of ``n_test``
    test x with their exact conditional joint, against the Bayes scorer of that finite problem.
    Returns ``regret``, the objective value and the per-label AUCs.

    >>> row = la25_learning_curve(seed=0, n_train=300, learner="xgb", method="plugin",
    ...                           n_test=300, n_estimators=10)
    >>> row["regret"] >= 0
    True
    """
    from bipartite.consistency import auc_regret, objective_value
    from bipartite.data import synthetic_model

    rng = np.random.default_rng(seed)
    model = synthetic_model(priors=(pi1, pi2), beta=beta, rho=rho)
    train = model.sample(n_train, seed=int(rng.integers(2**32)))
    test = model.sample(n_test, seed=int(rng.integers(2**32)))
    problem = model.finite_problem(test.X)
    est = _make_learner(learner, objective, method, int(rng.integers(2**31)), epochs=epochs,
                        n_estimators=n_estimators)
    est.fit(train.X, train.Y)
    scores = est.decision_function(test.X)
    row = _scorer_row(problem, scores)
    row.update(regret=float(auc_regret(problem, scores, objective=objective)),
               objective_value=float(objective_value(problem, scores, objective=objective)))
    return row



def _letor_files(path: Path) -> list[Path]:
    """A LETOR file, or the LETOR files (with ``qid:``) of a folder: MQ2008 ``S1..S5`` if
    present, else every ``*.txt`` whose first line has a ``qid:`` field."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"LETOR path {path} does not exist.")
    parts = sorted(path.glob("*S[0-9].txt"))
    if parts:
        return parts
    files = []
    for f in sorted(path.glob("*.txt")):
        with open(f, encoding="utf-8", errors="replace") as fh:
            if "qid:" in fh.readline():
                files.append(f)
    if not files:
        raise FileNotFoundError(f"no LETOR file with 'qid:' fields in {path}.")
    return files


def _real_split(dataset: str, path: str, rng: np.random.Generator):
    """Load Banking or LETOR (:func:`bipartite.data.load_banking` / ``load_letor``) and split
    70/30 (by query for LETOR)."""
    from sklearn.model_selection import GroupShuffleSplit, train_test_split

    from bipartite.data import load_banking, load_letor

    split_seed = int(rng.integers(2**31))
    if dataset == "banking":
        d = load_banking(path)
        codes = d.Y @ (2 ** np.arange(d.Y.shape[1]))
        tr, te = train_test_split(np.arange(len(d.Y)), test_size=0.3, random_state=split_seed,
                                  stratify=codes)
        groups = None
    elif dataset == "letor":
        d = load_letor([str(f) for f in _letor_files(Path(path))], seed=split_seed)
        splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=split_seed)
        tr, te = next(splitter.split(d.X, d.Y, groups=d.qid))
        groups = d.qid
    else:
        raise ValueError(f"The 'dataset' parameter must be 'banking' or 'letor', got {dataset!r}.")
    return d, tr, te, groups


@register_study("la25.real")
def la25_real(*, seed: int, dataset: str, path: str, learner: str = "xgb",
              n_weights: int = 11, n_estimators: int = 200, epochs: int = 60) -> list[dict]:
    """Per-label AUC trade-offs on real data: Banking or LETOR (THEORY §4-§7, §10; LA25 §7).

    A 70/30 split (by query for LETOR). The ``learner`` ("xgb" or "mlp") estimates each η_k by
    the plug-in route (label aggregation with weights e_k: the score is η̂_k); the weight sweeps
    of loss aggregation (:func:`bipartite.bayes.loss_aggregation`, a = (1 − t, t), π̂ = training
    means) and of label aggregation (w = (1 − t, t),
    :func:`bipartite.bayes.label_aggregation_scores`) trace the per-label test AUCs reachable by
    each family; the same learner trained directly with the pairwise objective of loss
    aggregation (a = 1) and label aggregation (sum) gives one point each (``kind="direct"``).
    Test metrics: per-label AUC (pooled), gAUC per query for LETOR
    (:func:`bipartite.metrics.group_auc`), and the cross-pair win rate W_{1>2}
    (:func:`bipartite.dictatorship.cross_pair_win_rate`).
    """
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.dictatorship import cross_pair_win_rate
    from bipartite.metrics import group_auc, multilabel_auc

    rng = np.random.default_rng(seed)
    d, tr, te, groups = _real_split(dataset, path, rng)
    X, Y = np.asarray(d.X, dtype=np.float64), np.asarray(d.Y)
    K = Y.shape[1]
    g_tr = None if groups is None else groups[tr]
    eta_hat = np.empty((len(te), K))
    for k in range(K):
        est = _make_learner(learner, "label_aggregation", "plugin", int(rng.integers(2**31)),
                            epochs=epochs, n_estimators=n_estimators, weights=np.eye(K)[k])
        est.fit(X[tr], Y[tr])
        eta_hat[:, k] = est.decision_function(X[te])
    pi_hat = Y[tr].mean(axis=0)
    t = np.linspace(0.0, 1.0, n_weights)

    def metrics(scores) -> dict:
        row = {f"auc_{k + 1}": v for k, v in enumerate(_quiet(multilabel_auc, Y[te], scores))}
        if groups is not None:
            for k in range(K):
                row[f"gauc_{k + 1}"] = _quiet(group_auc, Y[te, k], scores, groups[te])
        row["win_12"] = _quiet(cross_pair_win_rate, Y[te], scores, 0, 1)
        return row

    rows = []
    for ti in t:
        w = np.array([1.0 - ti, ti])
        loss_scores = loss_aggregation(eta_hat, pi_hat, w)
        label_scores = label_aggregation_scores(eta_hat, weights=w)
        rows.append({"kind": "loss_sweep", "t": float(ti), **metrics(loss_scores)})
        rows.append({"kind": "label_sweep", "t": float(ti), **metrics(label_scores)})
    for objective in ("loss_aggregation", "label_aggregation"):
        est = _make_learner(learner, objective, "pairwise", int(rng.integers(2**31)),
                            epochs=epochs, n_estimators=n_estimators)
        est.fit(X[tr], Y[tr], g_tr)
        rows.append({"kind": "direct", "objective": objective,
                     **metrics(est.decision_function(X[te]))})
    for row in rows:
        row.update(label_1=d.label_names[0], label_2=d.label_names[1],
                   pi_1=float(pi_hat[0]), pi_2=float(pi_hat[1]))
    return rows


# --------------------------------------------------------------------------------------------
# LA25: figures and key-number tables of each study (from its tidy results only)
# --------------------------------------------------------------------------------------------

_KIND_STYLE = {
    "loss_aggregation": {"marker": "*", "color": "C3", "label": "loss aggregation (a = 1)"},
    "label_aggregation": {"marker": "D", "color": "C2", "label": "label aggregation (sum)"},
}


def _attach_figures(name: str, figures) -> None:
    STUDIES[name] = dataclasses.replace(STUDIES[name], figures=figures)


def _solved_summaries(df):
    summary = df[df["kind"] == "summary"]
    if "timed_out" in summary:
        summary = summary[~summary["timed_out"].astype(bool)]
    return summary


def _frontier_figures(df, fig_dir: Path) -> list[Path]:
    from bipartite.plots import plot_frontier

    plt = _pyplot()
    paths: list[Path] = []
    summary = _solved_summaries(df)
    if summary.empty:
        return paths
    # (a) One example: the task with the most unsupported points at the n closest to 6 (larger
    # frontiers have thousands of points and draw as a solid line).
    ns = np.sort(summary["n"].unique())
    top_n = ns[np.argmin(np.abs(ns - 6))]
    cand = summary[summary["n"] == top_n].sort_values(["n_unsupported", "task"],
                                                      ascending=[False, True])
    task = cand["task"].iloc[0]
    sub = df[df["task"] == task]
    ex, sup = sub[sub["kind"] == "exact"], sub[sub["kind"] == "supported"]
    fig, ax = plt.subplots(figsize=(5.2, 4.4))
    unsup = ex[~ex["supported"].astype(bool)]
    row = cand.iloc[0]
    points = {style["label"]: sub.loc[sub["kind"] == kind, ["auc_1", "auc_2"]].to_numpy()[0]
              for kind, style in _KIND_STYLE.items() if (sub["kind"] == kind).any()}
    plot_frontier(exact=ex[["auc_1", "auc_2"]].to_numpy(),
                  supported=sup[["auc_1", "auc_2"]].to_numpy(), label_points=points, ax=ax,
                  labels=("AUC$_1$", "AUC$_2$"),
                  title=f"Exact vs supported frontier (n = {top_n}, π = ({row['pi_1']:.2f}, "
                        f"{row['pi_2']:.2f}))")
    ax.scatter(unsup["auc_1"], unsup["auc_2"], s=10, color="C1", zorder=3,
               label=f"unsupported Pareto points ({len(unsup)} of {len(ex)})")
    ax.legend(fontsize=7, loc="lower left")
    ax.title.set_fontsize(9)
    paths += save_figure(fig, fig_dir, "la25_frontier_example")
    # (b) How much of the frontier is unsupported, by n.
    s = summary.assign(frac_unsupported=summary["n_unsupported"] / summary["n_exact"],
                       any_unsupported=(summary["n_unsupported"] > 0).astype(float),
                       rel_hv_gap=summary["hv_gap"] / summary["hv_exact"])
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.6), layout="constrained")
    for det, sub_s in s.groupby("deterministic") if "deterministic" in s else [(False, s)]:
        lab = "deterministic labels" if det else "random conditionals"
        for ax, col, ylabel in [(axes[0], "frac_unsupported", "share of Pareto points unsupported"),
                                (axes[0], "any_unsupported", None),
                                (axes[1], "n_exact", "number of points")]:
            st = mean_and_se(sub_s, ["n"], col)
            style = "--" if col == "any_unsupported" else "-"
            name = {"frac_unsupported": "share unsupported", "any_unsupported":
                    "P(some point unsupported)", "n_exact": "Pareto points"}[col]
            ax.errorbar(st["n"], st["mean"], yerr=st["se"], fmt="o" + style, capsize=2, ms=4,
                        label=f"{name}, {lab}")
            if ylabel:
                ax.set_ylabel(ylabel)
        st = mean_and_se(sub_s, ["n"], "n_supported")
        axes[1].errorbar(st["n"], st["mean"], yerr=st["se"], fmt="s:", capsize=2, ms=4,
                         label=f"supported points, {lab}")
    from matplotlib.ticker import MaxNLocator, NullFormatter, ScalarFormatter

    for ax in axes:
        ax.set_xlabel("support size n")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[1].set_yscale("log")
    axes[1].yaxis.set_major_formatter(ScalarFormatter())
    axes[1].yaxis.set_minor_formatter(NullFormatter())
    fig.suptitle("Unsupported Pareto points are the rule (random finite problems, K = 2)",
                 fontsize=9)
    paths += save_figure(fig, fig_dir, "la25_frontier_unsupported")
    return paths


def _frontier_table(df):
    import pandas as pd

    everything = df[df["kind"] == "summary"]
    summary = _solved_summaries(df).copy()
    summary["any_unsupported"] = summary["n_unsupported"] > 0
    summary["rel_hv_gap"] = summary["hv_gap"] / summary["hv_exact"]
    by = ["n", "deterministic"] if "deterministic" in summary else ["n"]
    table = summary.groupby(by).agg(
        problems=("task", "count"), pareto_points=("n_exact", "mean"),
        supported_points=("n_supported", "mean"),
        share_with_unsupported=("any_unsupported", "mean"),
        relative_hypervolume_gap=("rel_hv_gap", "mean")).reset_index()
    bayes = df[df["kind"].isin(list(_KIND_STYLE))]
    opt = bayes.groupby("kind")["pareto_optimal"].mean()
    for kind in _KIND_STYLE:
        table[f"{kind}_pareto_optimal"] = float(opt.get(kind, np.nan))
    timed = (everything.groupby(by)["timed_out"].sum() if "timed_out" in everything
             else pd.Series(dtype=float))
    table["timed_out"] = [int(timed.get(tuple(k) if len(by) > 1 else k[0], 0))
                          for k in table[by].itertuples(index=False, name=None)]
    return table


def _consistency_figures(df, fig_dir: Path) -> list[Path]:
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.8), layout="constrained")
    sur = df[df["method"] == "surrogate"].assign(
        positive=lambda d: d["positive_regret"].astype(float))
    groups = list(sur.groupby(["objective", "surrogate"]))
    width = 0.8 / max(1, len(groups))
    for i, ((objective, surrogate), sub) in enumerate(groups):
        st = mean_and_se(sub, ["K"], "positive")
        axes[0].bar(st["K"] + (i - (len(groups) - 1) / 2) * width, st["mean"], width,
                    yerr=st["se"], capsize=2,
                    label=f"{objective.replace('_', ' ')}, {surrogate}")
    axes[0].set_xlabel("number of labels K")
    axes[0].set_ylabel("share of problems with regret > 1e-6")
    axes[0].set_title("Pairwise surrogate minimiser (population)", fontsize=9)
    axes[0].set_xticks(sorted(sur["K"].unique()))
    axes[0].legend(fontsize=7)
    plug = df[df["method"] == "plugin_sampled"]
    # The sampled plug-in does not depend on the surrogate (same problem and samples in each
    # surrogate's task): keep one surrogate so that no problem is counted twice.
    plug = plug[plug["surrogate"] == sorted(plug["surrogate"].unique())[0]] if len(plug) else plug
    for (objective, K), sub in plug.groupby(["objective", "K"]):
        st = mean_and_se(sub, ["n_samples"], "regret")
        axes[1].errorbar(st["n_samples"], st["mean"], yerr=st["se"], marker="o", ms=3,
                         capsize=2, label=f"{objective.replace('_', ' ')}, K = {K}")
    axes[1].set_xscale("log")
    axes[1].set_yscale("symlog", linthresh=1e-4)
    axes[1].set_ylim(bottom=0.0)
    axes[1].set_xlabel("sample size")
    axes[1].set_ylabel("AUC regret of the plug-in scorer")
    axes[1].set_title("Plug-in (saturated model) is consistent", fontsize=9)
    axes[1].legend(fontsize=7)
    for ax in axes:
        ax.grid(alpha=0.3)
    return save_figure(fig, fig_dir, "la25_consistency")


def _consistency_table(df):
    sur = df[df["method"] == "surrogate"]
    table = sur.groupby(["objective", "surrogate", "K"]).agg(
        problems=("task", "count"), share_positive_regret=("positive_regret", "mean"),
        mean_regret=("regret", "mean"), max_regret=("regret", "max")).reset_index()
    plug = df[df["method"] == "plugin"].groupby(["objective", "K"])["regret"].max()
    table["plugin_population_max_regret"] = [
        float(plug.get((o, k), np.nan)) for o, k in zip(table["objective"], table["K"],
                                                         strict=True)]
    return table



_SCORER_LABEL = {
    ("bayes", "loss_aggregation"): "Bayes, loss aggregation (a = 1)",
    ("bayes", "label_aggregation"): "Bayes, label aggregation (sum)",
    ("bayes", "label_1_only"): "η₁ only",
    ("bayes", "label_2_only"): "η₂ only",
}


def _scorer_name(scorer: str, objective: str) -> str:
    if (scorer, objective) in _SCORER_LABEL:
        return _SCORER_LABEL[(scorer, objective)]
    return f"{scorer.upper()}, {objective.replace('_', ' ')}"


def _skew_figures(df, fig_dir: Path) -> list[Path]:
    from bipartite.plots import plot_auc_vs_skew

    plt = _pyplot()
    df = df[~df["objective"].isin(["label_1_only", "label_2_only"])]
    fig, axes = plt.subplots(1, 2, figsize=(11.0, 4.2), layout="constrained")
    results, skews = {}, None
    for (scorer, objective), sub in df.groupby(["scorer", "objective"], sort=False):
        means = sub.groupby("pi2")[["auc_1", "auc_2"]].mean()
        skews = means.index.to_numpy()
        results[_scorer_name(scorer, objective)] = means.to_numpy()
    plot_auc_vs_skew(skews, results, label_names=["label 1 (π = ½)", "label 2"],
                     xlabel="prior π₂ of label 2", ax=axes[0],
                     title="Per-label population AUC as label 2 gets rarer")
    axes[0].legend(fontsize=6)
    for (scorer, objective), sub in df.groupby(["scorer", "objective"], sort=False):
        st = mean_and_se(sub, ["pi2"], "win_12")
        axes[1].errorbar(st["pi2"], st["mean"], yerr=st["se"], marker="o", ms=3, capsize=2,
                         label=_scorer_name(scorer, objective))
    axes[1].axhline(0.5, color="k", lw=0.8)
    axes[1].set_xlabel("prior π₂ of label 2")
    axes[1].set_ylabel("cross-pair win rate W₁>₂ (½ = even-handed)")
    axes[1].set_title("Who wins the (1,0)-vs-(0,1) pairs", fontsize=9)
    axes[1].grid(alpha=0.3)
    axes[1].legend(fontsize=6)
    return save_figure(fig, fig_dir, "la25_skew")


def _skew_table(df):
    df = df.assign(scorer_name=[_scorer_name(s, o) for s, o in zip(df["scorer"], df["objective"],
                                                                     strict=True)])
    table = df.groupby(["pi2", "scorer_name"], sort=True).agg(
        auc_1=("auc_1", "mean"), auc_2=("auc_2", "mean"), win_12=("win_12", "mean"),
        alpha_share_2=("alpha_share_2", "mean"), replicates=("task", "nunique")).reset_index()
    return table.rename(columns={"scorer_name": "scorer"})


_CORR_NAMES = {"loss_aggregation": "loss aggregation (a = 1)", "label_sum": "label: sum",
               "label_product": "label: product (AND)", "label_or": "label: or"}


def _correlation_figures(df, fig_dir: Path) -> list[Path]:
    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(12.0, 3.8), layout="constrained")
    for scorer, sub in df.groupby("scorer", sort=False):
        for ax, col in zip(axes, ["auc_1", "auc_2", "mp_auc"], strict=True):
            st = mean_and_se(sub, ["c"], col)
            ax.errorbar(st["c"], st["mean"], yerr=st["se"], marker="o", ms=3, capsize=2,
                        label=_CORR_NAMES.get(scorer, scorer))
    titles = ["AUC of label 1 (π₁ fixed)", "AUC of label 2",
              "multipartite AUC of Y₁ + Y₂ (linear costs)"]
    for ax, title in zip(axes, titles, strict=True):
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    fig.supxlabel("c:  −1 = anti-correlated (Y₂ = 1 − Y₁),  0 = independent rare label 2,  "
                  "1 = identical (Y₂ = Y₁)", fontsize=9)
    axes[2].annotate("undefined at c = −1\n(Y₁ + Y₂ ≡ 1)", xy=(-1, 0.5), fontsize=7)
    axes[0].legend(fontsize=7)
    return save_figure(fig, fig_dir, "la25_correlation")


def _correlation_table(df):
    table = df.groupby(["c", "scorer"], sort=True).agg(
        corr=("corr", "mean"), pi_2=("pi_2", "mean"), auc_1=("auc_1", "mean"),
        auc_2=("auc_2", "mean"), win_12=("win_12", "mean"),
        mp_auc=("mp_auc", "mean")).reset_index()
    return table


def _weights_figures(df, fig_dir: Path) -> list[Path]:
    plt = _pyplot()
    cases = sorted(df.groupby(["pi2", "beta"]).groups)
    ncols = min(2, len(cases))
    nrows = -(-len(cases) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.4 * ncols, 3.9 * nrows), squeeze=False,
                             layout="constrained")
    for ax in axes.ravel()[len(cases):]:
        ax.set_visible(False)
    for ax, (pi2, beta) in zip(axes.ravel(), cases, strict=False):
        sub = df[(df["pi2"] == pi2) & (df["beta"] == beta)]
        for agg, style in [("loss", "-"), ("label", "--")]:
            part = sub[sub["aggregation"] == agg]
            for k, color in [(1, "C0"), (2, "C1")]:
                st = mean_and_se(part, ["ratio"], f"auc_{k}")
                name = "loss agg. a = (1, r)" if agg == "loss" else "label agg. w = (1, r)"
                ax.plot(st["ratio"], st["mean"], style, color=color,
                        label=f"{name}: AUC$_{k}$")
        ax.axvline(sub["balanced_ratio"].mean(), color="C3", lw=0.8, ls=":",
                   label="r* = π₂(1−π₂)/(π₁(1−π₁))")
        ax.axvline(1.0, color="0.5", lw=0.6)
        ax.set_xscale("log")
        ax.set_xlabel("weight ratio r (label 2 : label 1)")
        ax.set_ylabel("population AUC")
        ax.set_title(f"π = (½, {pi2:g}), β = {beta:g}", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    fig.suptitle("Loss aggregation is even-handed only at r ≈ r* (the priors enter its "
                 "weights); label aggregation's scorer ignores the priors", fontsize=9)
    return save_figure(fig, fig_dir, "la25_weights")


def _weights_table(df):
    rows = []
    for (pi2, beta), sub in df.groupby(["pi2", "beta"]):
        means = sub.groupby(["aggregation", "ratio"])[["auc_1", "auc_2", "win_12"]].mean()
        balanced = float(sub["balanced_ratio"].mean())
        ratios = np.array(sorted(sub["ratio"].unique()))
        near = float(ratios[np.argmin(np.abs(np.log(ratios) - math.log(balanced)))])
        for agg in ("loss", "label"):
            for r in sorted({1.0, near}):
                if (agg, r) in means.index:
                    m = means.loc[(agg, r)]
                    rows.append({"pi2": pi2, "beta": beta, "aggregation": agg, "ratio": r,
                                 "balanced_ratio": balanced, "auc_1": m["auc_1"],
                                 "auc_2": m["auc_2"], "win_12": m["win_12"]})
    import pandas as pd

    return pd.DataFrame(rows)


def _learning_curve_figures(df, fig_dir: Path) -> list[Path]:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.8, 4.0), layout="constrained")
    for (learner, method), sub in df.groupby(["learner", "method"]):
        st = mean_and_se(sub, ["n_train"], "regret")
        ax.errorbar(st["n_train"], st["mean"], yerr=st["se"], marker="o", ms=3, capsize=2,
                    label=f"{learner.upper()} {method}")
    from matplotlib.ticker import NullLocator

    ax.set_xscale("log")
    ax.set_yscale("log")
    sizes = sorted(df["n_train"].unique())
    ax.set_xticks(sizes, [str(int(v)) for v in sizes])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("training samples n")
    ax.set_ylabel("AUC regret vs the Bayes scorer (exact)")
    objective = str(df["objective"].iloc[0]) if "objective" in df else "loss_aggregation"
    pi2 = float(df["pi2"].iloc[0]) if "pi2" in df else 0.1
    ax.set_title(f"Learners approach Bayes ({objective.replace('_', ' ')}, π = (½, {pi2:g}))",
                 fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return save_figure(fig, fig_dir, "la25_learning_curve")


def _learning_curve_table(df):
    return df.groupby(["learner", "method", "n_train"]).agg(
        regret=("regret", "mean"), regret_se=("regret", "sem"), auc_1=("auc_1", "mean"),
        auc_2=("auc_2", "mean"), replicates=("task", "count")).reset_index()


def _real_figures(df, fig_dir: Path) -> list[Path]:
    plt = _pyplot()
    combos = list(df.groupby(["dataset", "learner"]).groups)
    fig, axes = plt.subplots(1, len(combos), figsize=(5.2 * len(combos), 4.2), squeeze=False,
                             layout="constrained")
    for ax, (dataset, learner) in zip(axes[0], combos, strict=True):
        sub = df[(df["dataset"] == dataset) & (df["learner"] == learner)]
        for kind, style, name in [("loss_sweep", "o-", "loss agg. sweep a = (1−t, t)"),
                                  ("label_sweep", "s--", "label agg. sweep w = (1−t, t)")]:
            m = sub[sub["kind"] == kind].groupby("t")[["auc_1", "auc_2"]].mean()
            ax.plot(m["auc_1"], m["auc_2"], style, ms=3, label=name)
            mid = m.iloc[[len(m) // 2]]
            ax.plot(mid["auc_1"], mid["auc_2"], style[0], ms=9, mfc="none", color="k")
        direct = sub[sub["kind"] == "direct"].groupby("objective")[["auc_1", "auc_2"]].mean()
        for objective, marker in [("loss_aggregation", "*"), ("label_aggregation", "D")]:
            if objective in direct.index:
                pt = direct.loc[objective]
                ax.scatter(pt["auc_1"], pt["auc_2"], s=80, marker=marker, edgecolors="k",
                           zorder=4, label=f"{learner.upper()} pairwise, "
                                           f"{objective.replace('_', ' ')}")
        ax.set_xlabel(f"test AUC, {sub['label_1'].iloc[0]} (π = {sub['pi_1'].mean():.3f})")
        ax.set_ylabel(f"test AUC, {sub['label_2'].iloc[0]} (π = {sub['pi_2'].mean():.3f})")
        ax.set_title(f"{dataset}: per-label trade-off (circled: equal weights)", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    return save_figure(fig, fig_dir, "la25_real")


def _real_table(df):
    sub = df[(df["kind"] == "direct") | (df["t"] == 0.5)].copy()
    sub["scorer"] = np.where(sub["kind"] == "direct", "pairwise " + sub["objective"].astype(str),
                             "plug-in " + sub["kind"].str.replace("_sweep", "") + " (t = ½)")
    cols = [c for c in ["auc_1", "auc_2", "gauc_1", "gauc_2", "win_12"] if c in sub]
    return sub.groupby(["dataset", "learner", "scorer"])[cols].mean().reset_index()


_attach_figures("la25.frontier", _frontier_figures)
_attach_figures("la25.consistency", _consistency_figures)
_attach_figures("la25.skew", _skew_figures)
_attach_figures("la25.correlation", _correlation_figures)
_attach_figures("la25.weights", _weights_figures)
_attach_figures("la25.learning_curve", _learning_curve_figures)
_attach_figures("la25.real", _real_figures)


# --------------------------------------------------------------------------------------------
# LA25: the paper entry (`bipartite reproduce --paper la25`)
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _PaperStudy:
    function: str
    title: str
    caption: str
    table: Callable[..., Any]


_LA25_STUDIES: dict[str, _PaperStudy] = {}


def _la25_study(name: str, function: str, title: str, caption: str, table) -> None:
    _LA25_STUDIES[name] = _PaperStudy(function, title, caption, table)


_la25_study(
    "skew", "la25.skew", "Per-label AUC and dictatorship vs label skew (THEORY §4, §7)",
    "Synthetic data (x uniform on [−1, 1]², η_k logistic in one coordinate each, β = 8), label 1 "
    "with π₁ = ½, label 2 with prior π₂. Population AUCs and the cross-pair win rate "
    "W₁>₂ (share of (1,0)-vs-(0,1) pairs won by the label-1 instance; ½ = even-handed) on a test "
    "sample with its exact conditional labels, for the Bayes scorers and for learners trained "
    "with each objective's pairwise loss. Loss aggregation hands the rare label the ranking "
    "(W₁>₂ → 0, `alpha_share_2` → 1); label aggregation by sum keeps label 1's AUC.",
    _skew_table)
_la25_study(
    "frontier", "la25.frontier", "Exact vs supported Pareto frontier (THEORY §6)",
    "Random finite problems (K = 2, `FiniteProblem.random`). The exact frontier over all weak "
    "orders (subset DP) against the points a sweep of loss-aggregation weights reaches (supported "
    "points). `share_with_unsupported`: share of problems with at least one unsupported Pareto "
    "point; `relative_hypervolume_gap`: hypervolume the supported points miss, relative to the "
    "exact frontier; then the share of problems where the Bayes scorers' AUC vectors are "
    "certified Pareto-optimal (MILP); `timed_out`: problems whose exact frontier exceeded the "
    "time limit (left out of the other columns).", _frontier_table)
_la25_study(
    "correlation", "la25.correlation", "Label correlation: anti-correlated to identical "
    "(THEORY §5)",
    "Label 1 synthetic with π₁ = ½; label 2 slides from Y₂ = 1 − Y₁ (c = −1) through an "
    "independent label with prior 0.1 (c = 0) to Y₂ = Y₁ (c = 1); `corr` is the label "
    "correlation. At c = −1 every scorer has AUC₂ = 1 − AUC₁ and the summed label is constant "
    "(AUC_MP undefined, NaN); at c = 1 all aggregations coincide; in between loss aggregation "
    "favours the rarer label 2 and product/or aggregation trade differently.",
    _correlation_table)
_la25_study(
    "weights", "la25.weights", "Weight sensitivity: label weights w vs loss weights a "
    "(THEORY §4, §5)",
    "Bayes scorers with weight ratio r on label 2: loss aggregation a = (1, r) and label "
    "aggregation w = (1, r), at r = 1 and at the ratio nearest r* = π₂(1−π₂)/(π₁(1−π₁)), where "
    "loss aggregation equals label aggregation with w = 1.", _weights_table)
_la25_study(
    "learning_curve", "la25.learning_curve", "Learners vs Bayes as n grows (THEORY §9, §10)",
    "Exact AUC regret (loss aggregation, a = 1, π = (½, 0.1)) of the learners on a test "
    "population with exact conditional labels, by training-set size. Pairwise surrogates are "
    "not rank-consistent for loss aggregation (THEORY §9), the plug-in route is.",
    _learning_curve_table)
_la25_study(
    "consistency", "la25.consistency", "Surrogate consistency (THEORY §9)",
    "Random finite problems (n = 8). Exact population minimiser of the pairwise surrogate risk "
    "weighted by the objective's pair weights: share of problems where its ranking has positive "
    "AUC regret (> 1e-6). For K = 1 the surrogates are consistent (regret 0); for K ≥ 2 they "
    "are not. The plug-in scorer has regret 0 on the population.", _consistency_table)
_la25_study(
    "real", "la25.real", "Real data: per-label trade-offs (LA25 §7)",
    "Banking (labels: personal loan, mortgage > 0) and/or LETOR (labels: relevant, click; "
    "MQ2008 has no click features, so clicks are simulated by a position-based model, see "
    "`bipartite.data.load_letor`). Test AUCs (and per-query gAUC for LETOR) of the plug-in "
    "scorers at equal weights and of learners trained with each pairwise objective.",
    _real_table)


def _la25_sizes(size: str) -> dict[str, dict]:
    """Configurations (TOML structure) of the LA25 studies for ``size`` in smoke/quick/full."""
    def pick(smoke, quick, full):
        return {"smoke": smoke, "quick": quick, "full": full}[size]

    configs = {
        "skew": {
            "study": {"function": "la25.skew", "seed": 600, "replicates": pick(1, 2, 5)},
            "params": {"n_test": pick(400, 5000, 20000), "n_train": pick(300, 2000, 4000),
                       "learners": pick(["xgb"], ["xgb"], ["xgb", "mlp"]),
                       "n_estimators": pick(10, 100, 200), "epochs": 40},
            "grid": {"pi2": pick([0.05, 0.5], [0.02, 0.05, 0.1, 0.2, 0.35, 0.5],
                                 [0.02, 0.05, 0.1, 0.2, 0.35, 0.5])},
        },
        "frontier": {
            "study": {"function": "la25.frontier", "seed": 601, "replicates": pick(2, 5, 20)},
            "grid": {"n": pick([4], [4, 6, 8], [4, 6, 8, 10]), "deterministic": [False]},
        },
        "correlation": {
            "study": {"function": "la25.correlation", "seed": 602,
                      "replicates": pick(1, 1, 3), "paired_seeds": True},
            "params": {"n_points": pick(200, 2000, 4000)},
            "grid": {"c": pick([-1.0, 0.0, 1.0], [round(v, 4) for v in np.linspace(-1, 1, 9)],
                               [round(v, 4) for v in np.linspace(-1, 1, 17)])},
        },
        "weights": {
            "study": {"function": "la25.weights", "seed": 603, "replicates": pick(1, 1, 3),
                      "paired_seeds": True},
            "params": {"n_points": pick(300, 2000, 4000), "n_ratios": pick(5, 25, 41)},
            "grid": {"pi2": pick([0.1], [0.05, 0.2], [0.05, 0.2]),
                     "beta": pick([8.0], [8.0, 64.0], [8.0, 64.0])},
        },
        "learning_curve": {
            "study": {"function": "la25.learning_curve", "seed": 604,
                      "replicates": pick(1, 2, 3)},
            "params": {"n_test": pick(300, 5000, 10000), "n_estimators": pick(10, 100, 200),
                       "epochs": 40, "objective": "loss_aggregation", "pi2": 0.1},
            "grid": {"n_train": pick([200], [250, 1000, 4000],
                                     [250, 500, 1000, 2000, 4000, 8000])},
            "cases": pick(
                [{"learner": "xgb", "method": "plugin"}],
                [{"learner": "xgb", "method": "pairwise"}, {"learner": "xgb", "method": "plugin"},
                 {"learner": "mlp", "method": "plugin"}],
                [{"learner": "xgb", "method": "pairwise"}, {"learner": "xgb", "method": "plugin"},
                 {"learner": "mlp", "method": "pairwise"}, {"learner": "mlp", "method": "plugin"}]),
        },
        "consistency": {
            "study": {"function": "la25.consistency", "seed": 606,
                      "replicates": pick(2, 10, 50)},
            "params": {"n": 8, "plugin_samples": pick([100], [100, 1000, 10000],
                                                      [100, 1000, 10000, 100000])},
            "grid": {"K": [1, 2, 3], "surrogate": ["logistic", "exponential"],
                     "objective": ["loss_aggregation", "label_aggregation"]},
        },
    }
    for name, cfg in configs.items():
        cfg["study"]["name"] = f"la25-{name}"
    return configs


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
    _atomic_write_text(path, json.dumps(record, indent=1, default=str))
    return path


def run_la25(out_dir: str | os.PathLike, quick: bool = False, jobs: int = 1,
             **options: Any) -> list[Path]:
    """Run the LA25 study set into ``out_dir`` (``bipartite reproduce --paper la25``).

    Each study runs through the resumable runner into ``out_dir/studies/<name>/`` (rerunning
    skips finished tasks); then the figures (``figures/``, PNG + PDF), the key-number tables
    (``tables/*.csv``) and ``summary.md`` are written, and ``reproduce.json`` records what ran.
    Options: ``smoke`` (tiny sizes), ``only`` (list of study names), ``banking`` / ``letor``
    (data paths: the real-data study), ``backend``, ``scheduler``, ``progress``.
    Returns the paths written (task files excluded).
    """
    size = "smoke" if options.get("smoke") else "quick" if quick else "full"
    out = Path(out_dir)
    configs = _la25_sizes(size)
    configs.update(_la25_real_configs(size, options.get("banking"), options.get("letor")))
    only = options.get("only")
    if only:
        unknown = sorted(set(only) - set(configs))
        if unknown:
            raise ValueError(f"The 'only' option names unknown la25 studies {unknown}; available: "
                             f"{sorted(configs)}.")
        configs = {k: v for k, v in configs.items() if k in only}
    start = time.perf_counter()
    record: dict[str, dict] = {}
    old = out / "reproduce.json"
    if old.is_file():  # keep the record of studies run earlier into this folder (--only)
        with contextlib.suppress(json.JSONDecodeError, KeyError):
            record.update(json.loads(old.read_text())["studies"])
    written: list[Path] = []
    for name, cfg in configs.items():
        result = run_study(cfg, out / "studies" / name, jobs=jobs,
                           backend=options.get("backend") or "loky",
                           scheduler=options.get("scheduler"),
                           progress=options.get("progress", True))
        import pandas as pd

        cpu = pd.read_csv(result.study_dir / TASK_INDEX_CSV).get("cpu_s")
        record[name] = {"tasks": result.n_tasks, "run": result.n_run,
                        "failed": len(result.failures), "elapsed_s": round(result.elapsed_s, 2),
                        "task_cpu_s": None if cpu is None else round(float(cpu.sum()), 2)}
        written += [result.study_dir / RESULTS_PARQUET, result.study_dir / RESULTS_CSV]
    written.append(write_reproduce_record(out, "la25", size=size, options=options,
                                          studies=record,
                                          elapsed_s=round(time.perf_counter() - start, 2)))
    written += la25_figures(out, out / "figures")
    text = la25_summary(out, out / "tables")
    _atomic_write_text(out / "summary.md", text)
    written += sorted((out / "tables").glob("*.csv")) + [out / "summary.md"]
    return written


def _la25_results(results_dir: Path) -> dict[str, Any]:
    """The results table of every LA25 study present in ``results_dir/studies``."""
    found = {}
    for name in _LA25_STUDIES:
        folder = results_dir / "studies" / name
        if (folder / MANIFEST).is_file():
            df = read_results(folder)
            if not df.empty:
                found[name] = df
    return found


def la25_figures(results_dir: str | os.PathLike, fig_dir: str | os.PathLike) -> list[Path]:
    """Redraw every LA25 figure from the saved results in ``results_dir`` (PNG + PDF)."""
    results_dir, fig_dir = Path(results_dir), Path(fig_dir)
    paths: list[Path] = []
    for name, df in _la25_results(results_dir).items():
        spec = STUDIES[_LA25_STUDIES[name].function]
        if spec.figures is not None:
            paths += spec.figures(df, fig_dir)
    paths += _la25_theory_figures(fig_dir)
    return paths


def la25_summary(results_dir: str | os.PathLike, table_dir: str | os.PathLike) -> str:
    """Rebuild the LA25 key-number tables (CSV in ``table_dir``) and return ``summary.md``."""
    results_dir, table_dir = Path(results_dir), Path(table_dir)
    table_dir.mkdir(parents=True, exist_ok=True)
    meta = {}
    if (results_dir / "reproduce.json").is_file():
        meta = json.loads((results_dir / "reproduce.json").read_text())
    lines = ["# LA25 — loss vs label aggregation: reproduced results", ""]
    if meta:
        lines += [f"Made by `bipartite reproduce --paper la25` (size **{meta.get('size')}**, "
                  f"bipartite {meta.get('bipartite_version')}, {meta.get('finished_at')}; "
                  f"studies ran in {meta.get('elapsed_s')} s).", ""]
        rows = [{"study": k, **v} for k, v in meta.get("studies", {}).items()]
        if rows:
            import pandas as pd

            lines += ["| study | tasks | run now | failed | wall seconds | task CPU seconds |",
                      "|---|---|---|---|---|---|"]
            lines += [f"| {r['study']} | {r['tasks']} | {r['run']} | {r['failed']} | "
                      f"{r['elapsed_s']} | {r.get('task_cpu_s', '–')} |"
                      for r in pd.DataFrame(rows).to_dict("records")]
            lines.append("")
    results = _la25_results(results_dir)
    fig_dir = results_dir / "figures"
    for name, study in _LA25_STUDIES.items():
        if name not in results:
            continue
        table = study.table(results[name])
        table.to_csv(table_dir / f"la25_{name}.csv", index=False)
        lines += [f"## {study.title}", "", study.caption, "", markdown_table(table), ""]
        figs = sorted(p.name for p in fig_dir.glob(f"la25_{name}*.png"))
        lines += [f"![{f}](figures/{f})" for f in figs]
        lines.append("")
    missing = [n for n in _LA25_STUDIES if n not in results]
    if missing:
        lines += ["Studies not in this folder: " + ", ".join(missing) + ".", ""]
    return "\n".join(lines)


def _la25_theory_figures(fig_dir: Path) -> list[Path]:
    """Figures that need no simulation: LA25 Fig. 1 (partial orders over label vectors,
    :func:`bipartite.plots.plot_partial_orders`) and the effective-weight share of a label as its
    prior varies, with the dictator region (:func:`bipartite.dictatorship.dictator_threshold`)."""
    from bipartite.dictatorship import dictator_threshold, effective_weight_shares
    from bipartite.plots import default_partial_orders, plot_partial_orders

    plt = _pyplot()
    paths = save_figure(plot_partial_orders(default_partial_orders()), fig_dir,
                        "la25_fig1_partial_orders")
    grid = np.linspace(0.005, 0.995, 397)
    fig, ax = plt.subplots(figsize=(5.4, 3.6))
    for K, style in [(2, "-"), (3, "--"), (5, ":")]:
        share = [effective_weight_shares(np.r_[np.full(K - 1, 0.5), p])[-1] for p in grid]
        ax.plot(grid, share, style, color="C0", label=f"K = {K} (other priors ½)")
        thr = dictator_threshold(np.r_[np.full(K - 1, 0.5), 0.5], K - 1)
        if thr is not None and thr[0] < thr[1]:
            ax.plot(thr, [0.5, 0.5], "o", color="C3", ms=4)
    ax.axhline(0.5, color="C3", lw=0.8, label="share ½: dictator above (deterministic labels)")
    ax.set_xlabel("prior π of the last label (a = 1)")
    ax.set_ylabel("its share of the effective weights α")
    ax.set_title("Loss aggregation: skew, not importance, sets the weight", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return paths + save_figure(fig, fig_dir, "la25_effective_weight_share")


def _la25_real_configs(size: str, banking: Any, letor: Any) -> dict[str, dict]:
    """The real-data study config (only when a Banking or LETOR path is given)."""
    cases = []
    if banking is not None:
        cases.append({"dataset": "banking", "path": str(Path(banking).resolve())})
    if letor is not None:
        cases.append({"dataset": "letor", "path": str(Path(letor).resolve())})
    if not cases:
        return {}
    return {"real": {
        "study": {"function": "la25.real", "name": "la25-real", "seed": 607,
                  "replicates": {"smoke": 1, "quick": 2, "full": 5}[size]},
        "params": {"n_weights": {"smoke": 3, "quick": 7, "full": 11}[size],
                   "n_estimators": {"smoke": 10, "quick": 60, "full": 200}[size]},
        "grid": {"learner": ["xgb"] if size != "full" else ["xgb", "mlp"]},
        "cases": cases,
    }}


#: The LA25 entry of :data:`PAPERS`.
LA25 = Paper("la25", run_la25, figures=la25_figures, summary=la25_summary,
             description="LA25: loss vs label aggregation (Lukasik et al., ICML 2025)")


def frontier_table(problem):
    """The Pareto frontier of per-label AUCs of a finite problem as a table (THEORY §6).

    One row per exact Pareto-optimal AUC vector (:func:`bipartite.pareto.exact_frontier`) with
    ``supported`` (a vertex reached by a weight sweep, :func:`bipartite.pareto.supported_frontier`;
    K ≥ 2), then one row each for the Bayes scorers of loss aggregation (a = 1)
    and label aggregation (sum, linear costs) with their Pareto certificate
    (:func:`bipartite.pareto.is_pareto_optimal`).

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.25] * 4, [[0.9, 0.1], [0.6, 0.7], [0.2, 0.8], [0.1, 0.3]])
    >>> t = frontier_table(P)
    >>> t["point"].iloc[-2:].tolist(), bool(t["pareto_optimal"].iloc[-2:].all())
    (['loss aggregation (a = 1)', 'label aggregation (sum)'], True)
    """
    import pandas as pd

    from bipartite.bayes import label_aggregation, loss_aggregation
    from bipartite.pareto import exact_frontier, is_pareto_optimal, supported_frontier

    exact = exact_frontier(problem)
    supported = supported_frontier(problem) if problem.K >= 2 else np.zeros((0, problem.K))
    rows = []
    for i, point in enumerate(exact):
        row = {"point": f"frontier {i + 1}"}
        row.update({f"AUC_{k + 1}": v for k, v in enumerate(point)})
        if problem.K >= 2:
            row["supported"] = bool(np.abs(supported - point).max(axis=1).min() <= 1e-7)
        row["pareto_optimal"] = True
        rows.append(row)
    for name, scores in [("loss aggregation (a = 1)", loss_aggregation(problem.eta, problem.pi)),
                         ("label aggregation (sum)", label_aggregation(problem))]:
        row = {"point": name}
        row.update({f"AUC_{k + 1}": v for k, v in enumerate(problem.auc(scores))})
        row["pareto_optimal"] = is_pareto_optimal(problem, scores)
        rows.append(row)
    return pd.DataFrame(rows)
