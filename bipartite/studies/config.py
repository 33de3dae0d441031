"""Study configurations and the registry of study functions.

A study is a grid of parameters x replicates over one registered study function. This module reads
TOML configs, checks them against the function's signature, and resolves them into the manifest.
"""


from __future__ import annotations

import dataclasses
import errno
import importlib
import inspect
import math
import os
import re
import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bipartite.studies.configfile import (
    MAX_CONFIG_BYTES,
    MAX_CONFIG_NESTING,
    NestingError,
    NotRegularFileError,
    decode_config_text,
    key_line,
    read_regular_file,
    toml_key_lines,
)
from bipartite.studies.constraints import check_constraints

#: Version of the on-disk layout (manifest, task files).
FORMAT_VERSION = 1
#: Execution backends of the runner.
BACKENDS = ("loky", "dask")
#: Largest number of tasks a study may have unless raised (``[execution] max_tasks``, or the
#: ``max_tasks`` argument of :func:`~bipartite.studies.run_study`); checked before the grid is
#: expanded, so a mistyped grid fails at once instead of hanging while it is listed.
MAX_TASKS = 1_000_000
#: Study names (``[study] name``): they become folder names (``results/<name>``), so they are
#: 1 to 128 characters among ``A-Z a-z 0-9 . _ - :``, start with a letter, digit or ``_``, and
#: contain no ``..`` (no path separator, no parent folder, never absolute).
NAME_PATTERN = r"[A-Za-z0-9_][A-Za-z0-9._:-]{0,127}"


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
    #: parameter -> constraint (:mod:`bipartite.studies.constraints`), applied by the config check
    constraints: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def doc(self) -> str:
        text = inspect.getdoc(self.function) or ""
        return " ".join(text.split("\n\n")[0].split())  # the first paragraph, on one line


#: Registered study functions, by name (``bipartite study list`` prints them).
STUDIES: dict[str, StudySpec] = {}


def register_study(name: str, *, figures: Callable[..., object] | None = None,
                   constraints: Mapping[str, Any] | None = None
                   ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator registering a study function under ``name``.

    The function must take a keyword ``seed`` (int) and return a row (dict), a list of rows or a
    DataFrame. ``figures(results, fig_dir) -> [paths]`` optionally draws the study's figures from
    its tidy results. ``constraints`` maps parameters to their allowed values
    (:class:`~bipartite.studies.constraints.Range`, ``OneOf``, ``Each``); the config check
    refuses a value outside them, naming the file, key and line, before any task runs.

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
        parameters = inspect.signature(fn).parameters
        if "seed" not in parameters:
            raise TypeError(f"study function {fn.__qualname__} must accept a keyword 'seed'.")
        checked = check_constraints(None if constraints is None else dict(constraints),
                                    list(parameters), f"register_study({name!r})")
        STUDIES[name] = StudySpec(name, fn, figures=figures, constraints=checked)
        return fn

    return decorate


def import_reference(ref: str, *, what: str) -> object:
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


#: Entry-point group through which packages register study functions: each entry names a module
#: whose import registers its studies with :func:`register_study` (this package's own paper
#: reproductions are registered this way, in ``pyproject.toml``).
ENTRY_POINT_GROUP = "bipartite.studies"


def load_registered_studies(namespace: str | None = None) -> list[str]:
    """Import the modules of the ``bipartite.studies`` entry-point group (registering their study
    functions); return the names of the entries loaded. Idempotent.

    An entry's name is the namespace of its studies (entry ``mypkg`` registers ``mypkg.sweep``, ...):
    with ``namespace`` only that entry is loaded, so one broken plug-in cannot break the others.
    """
    from importlib.metadata import entry_points

    loaded = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if namespace is None or ep.name == namespace:
            ep.load()
            loaded.append(ep.name)
    return loaded


def resolve_function(ref: str) -> StudySpec:
    """A registered study name, or ``"module:function"`` for any importable function.

    Names not registered yet are looked up after loading the ``bipartite.studies`` entry points
    (:func:`load_registered_studies`), so a study of an installed package resolves in a fresh
    process (``bipartite study resume``, dask workers) without the runner naming its package.
    """
    if ref not in STUDIES and ":" not in ref:
        load_registered_studies(ref.split(".")[0])
    if ref in STUDIES:
        return STUDIES[ref]
    if ":" in ref:
        fn = import_reference(ref, what="study function")
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
    "execution": {"jobs", "backend", "scheduler", "threads_per_task", "max_tasks"},
}


def check_study_name(name: object, where: str) -> str:
    """``name`` if it is a valid study name (:data:`NAME_PATTERN`), else :class:`ConfigError`
    naming ``where``.

    >>> check_study_name("skew_sweep-2.v1", "[study] key 'name'")
    'skew_sweep-2.v1'
    >>> check_study_name("../../x", "cfg.toml: [study] key 'name'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bipartite.studies.config.ConfigError: cfg.toml: [study] key 'name' must be a folder name: ...
    """
    if not isinstance(name, str) or not re.fullmatch(NAME_PATTERN, name) or ".." in name:
        raise ConfigError(f"{where} must be a folder name: 1 to 128 characters among A-Z a-z 0-9 "
                          "'.' '_' '-' ':', starting with a letter, digit or '_', without '..' "
                          f"(no '/', no parent folder, not absolute), got {name!r}.")
    return name


def check_max_tasks(value: object, where: str) -> int:
    """``value`` if it is a valid task limit (an integer >= 1), else :class:`ConfigError`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{where} must be an integer >= 1, got {value!r}.")
    return value


def load_config(path: str | os.PathLike) -> dict:
    """Read a study TOML file and return the resolved, validated configuration.

    Errors (:class:`ConfigError`) name the file, the offending key and its line; TOML syntax
    errors give the line and column. Refused at once: a path that is not a regular file (a
    folder, a named pipe...), a file over :data:`~bipartite.studies.configfile.MAX_CONFIG_BYTES`,
    a file that is not UTF-8 text (gzip, UTF-16 are named), values nested deeper than
    :data:`~bipartite.studies.configfile.MAX_CONFIG_NESTING`. CRLF line ends and a UTF-8
    byte-order mark are accepted.
    """
    path = Path(path)
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        raw = read_regular_file(path, max_bytes=MAX_CONFIG_BYTES)
    except NotRegularFileError as exc:
        raise ConfigError(f"{path}: cannot read the config file: it {exc.strerror}; give the "
                          "path of a .toml file.") from None
    except OSError as exc:
        what = f"it {exc.strerror}" if exc.errno == errno.EFBIG else exc.strerror
        raise ConfigError(f"{path}: cannot read the config file: {what}") from None
    try:
        text = decode_config_text(raw)
        lines = toml_key_lines(text)
    except NestingError as exc:
        raise ConfigError(f"{path}, {exc}.") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}.") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        end = (f"; the file ends at line {text.count(chr(10)) + 1}: is it truncated?"
               if "end of document" in str(exc) else "")
        raise ConfigError(f"{path}: invalid TOML: {exc}{end}") from None
    except RecursionError:  # pragma: no cover - the nesting limit comes first
        raise ConfigError(f"{path}: values are nested too deeply.") from None
    config = resolve_config(data, source=str(path), lines=lines)
    config["source"] = str(path.resolve())
    return config


def _type_name(value: Any) -> str:
    return type(value).__name__


def _check_json_value(value: Any, where: str, src: str, depth: int = 0) -> Any:
    """Values that can travel in a manifest: str, int, float, bool, lists and tables of them,
    nested at most :data:`~bipartite.studies.configfile.MAX_CONFIG_NESTING` levels deep."""
    if depth > MAX_CONFIG_NESTING:
        quotes = [i for i, c in enumerate(where) if c == "'"][:2]
        base = where[:quotes[1] + 1] if len(quotes) == 2 else where
        raise ConfigError(f"{src}: {base} is nested more than {MAX_CONFIG_NESTING} levels deep "
                          "(lists or tables).")
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"{src}: {where} must be finite, got {value!r}.")
        return value
    if isinstance(value, list | tuple):
        return [_check_json_value(v, f"{where}[{i}]", src, depth + 1)
                for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        return {str(k): _check_json_value(v, f"{where}.{k}", src, depth + 1)
                for k, v in value.items()}
    raise ConfigError(f"{src}: {where} has unsupported type {_type_name(value)} ({value!r}); "
                      "use strings, numbers, booleans, lists or tables.")


def resolve_config(data: Mapping, *, source: str = "<config>",
                   lines: Mapping[tuple, int] | None = None) -> dict:
    """Validate a configuration mapping (parsed TOML, or built in code) and resolve defaults.

    Schema (see ``simulations/README.md``)::

        [study]      function (required), name, seed (int, default 0),
                     replicates (int n -> 0..n-1, or list of ints; default 1),
                     paired_seeds (bool, default false), description
        [params]     fixed keyword arguments of the function
        [grid]       key -> non-empty list of values; the Cartesian product is taken
        [[cases]]    optional list of tables of keyword arguments, crossed with the grid
        [execution]  jobs (int >= 1), backend ("loky" | "dask"), scheduler (address),
                     threads_per_task (int >= 1, default 1),
                     max_tasks (int >= 1, default MAX_TASKS = 1_000_000)

    ``[study] name`` must match :data:`NAME_PATTERN` (it becomes a folder name).

    >>> from bipartite.studies import expand_tasks
    >>> cfg = resolve_config({"study": {"function": "demo.binormal_auc", "replicates": 3},
    ...                       "params": {"n": 100}, "grid": {"shift": [0.0, 1.0]}})
    >>> cfg["name"], cfg["replicates"], len(expand_tasks(cfg))
    ('demo.binormal_auc', [0, 1, 2], 6)
    >>> resolve_config({"study": {"function": "demo.binormal_auc"}, "grid": {"n": 100}},
    ...                source="my.toml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bipartite.studies.config.ConfigError: my.toml: [grid] key 'n' must be a non-empty list of ...
    """
    src = source

    def at(*path) -> str:
        """The source, with the line of the key ``path`` when it is known."""
        line = key_line(lines, path)
        return src if line is None else f"{src}, line {line}"

    if not isinstance(data, Mapping):
        raise ConfigError(f"{src}: the configuration must be a table, got {_type_name(data)}.")
    for section in data:
        if section not in _SECTIONS:
            raise ConfigError(f"{at(section)}: unknown section [{section}]; allowed sections are "
                              f"{sorted(_SECTIONS)}.")
    for section in ("study", "params", "grid", "execution"):
        if section in data and not isinstance(data[section], Mapping):
            raise ConfigError(f"{at(section)}: [{section}] must be a table, got "
                              f"{_type_name(data[section])} ({data[section]!r}).")
    study = dict(data.get("study", {}))
    for key in study:
        if key not in _SECTIONS["study"]:
            raise ConfigError(f"{at('study', key)}: unknown key '{key}' in [study]; allowed keys are "
                              f"{sorted(_SECTIONS['study'])}.")
    if "function" not in study:
        raise ConfigError(f"{at('study')}: missing key 'function' in [study] (the registered study "
                          f"function to run; one of {sorted(STUDIES)} or 'module:function').")
    function = study["function"]
    if not isinstance(function, str):
        raise ConfigError(f"{at('study', 'function')}: [study] key 'function' must be a string, got "
                          f"{function!r} ({_type_name(function)}).")
    try:
        spec = resolve_function(function)
    except (ValueError, ImportError) as exc:
        raise ConfigError(f"{at('study', 'function')}: [study] key 'function': {exc}") from None
    name = check_study_name(study.get("name", function), f"{at('study', 'name')}: [study] key 'name'")
    seed = study.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"{at('study', 'seed')}: [study] key 'seed' must be a non-negative integer, got "
                          f"{seed!r} ({_type_name(seed)}).")
    reps = study.get("replicates", 1)
    if isinstance(reps, bool) or not isinstance(reps, int | list):
        raise ConfigError(f"{at('study', 'replicates')}: [study] key 'replicates' must be an integer or a list of "
                          f"integers, got {reps!r} ({_type_name(reps)}).")
    if isinstance(reps, int):
        if reps < 1:
            raise ConfigError(f"{at('study', 'replicates')}: [study] key 'replicates' must be >= 1, got {reps}.")
        replicates = list(range(reps))
    else:
        bad = [r for r in reps if isinstance(r, bool) or not isinstance(r, int) or r < 0]
        if not reps or bad or len(set(reps)) != len(reps):
            raise ConfigError(f"{at('study', 'replicates')}: [study] key 'replicates' must be a non-empty list of "
                              f"distinct non-negative integers, got {reps!r}.")
        replicates = list(reps)
    paired = study.get("paired_seeds", False)
    if not isinstance(paired, bool):
        raise ConfigError(f"{at('study', 'paired_seeds')}: [study] key 'paired_seeds' must be true or false, got "
                          f"{paired!r} ({_type_name(paired)}).")
    description = study.get("description", "")
    if not isinstance(description, str):
        raise ConfigError(f"{at('study', 'description')}: [study] key 'description' must be a string, got "
                          f"{description!r}.")

    params = {k: _check_json_value(v, f"[params] key '{k}'", at("params", k))
              for k, v in dict(data.get("params", {})).items()}
    grid: dict[str, list] = {}
    for key, values in dict(data.get("grid", {})).items():
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{at('grid', key)}: [grid] key '{key}' must be a non-empty list of values, "
                              f"got {values!r} ({_type_name(values)}).")
        grid[key] = _check_json_value(values, f"[grid] key '{key}'", at("grid", key))
    cases_raw = data.get("cases", [])
    if not isinstance(cases_raw, list) or not all(isinstance(c, Mapping) for c in cases_raw):
        raise ConfigError(f"{at('cases')}: 'cases' must be an array of tables ([[cases]]), got "
                          f"{cases_raw!r}.")
    cases = [{k: _check_json_value(v, f"[[cases]] #{i} key '{k}'", at("cases", i, k))
              for k, v in c.items()}
             for i, c in enumerate(cases_raw)]

    # The same parameter may not be set in two places (which value would win is not obvious).
    seen: dict[str, str] = {}
    for where, keys in [("[params]", params), ("[grid]", grid)]:
        for key in keys:
            if key in seen:
                raise ConfigError(f"{at('grid', key)}: key '{key}' is set in both {seen[key]} and {where}.")
            seen[key] = where
    for i, case in enumerate(cases):
        for key in case:
            if key in seen:
                raise ConfigError(f"{at('cases', i, key)}: [[cases]] #{i} key '{key}' is also set in {seen[key]}.")
    _check_signature(spec, params, grid, cases, at)

    execution = _resolve_execution(data, at)
    return {
        "format": FORMAT_VERSION,
        "name": name,
        "function": function,
        "description": description,
        "seed": seed,
        "replicates": replicates,
        "paired_seeds": paired,
        "params": params,
        "grid": grid,
        "cases": cases,
        "execution": execution,
        "source": source,
    }


def _resolve_execution(data: Mapping, at) -> dict:
    """The checked ``[execution]`` table of :func:`resolve_config` (``at(*path)`` gives the
    source and line of a key)."""
    execution = dict(data.get("execution", {}))
    for key in execution:
        if key not in _SECTIONS["execution"]:
            raise ConfigError(f"{at('execution', key)}: unknown key '{key}' in [execution]; allowed keys are "
                              f"{sorted(_SECTIONS['execution'])}.")
    jobs = execution.get("jobs", 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"{at('execution', 'jobs')}: [execution] key 'jobs' must be an integer >= 1, got {jobs!r}.")
    backend = execution.get("backend", "loky")
    if backend not in BACKENDS:
        raise ConfigError(f"{at('execution', 'backend')}: [execution] key 'backend' must be one of {list(BACKENDS)}, "
                          f"got {backend!r}.")
    scheduler = execution.get("scheduler")
    if scheduler is not None and not isinstance(scheduler, str):
        raise ConfigError(f"{at('execution', 'scheduler')}: [execution] key 'scheduler' must be an address string, got "
                          f"{scheduler!r}.")
    threads = execution.get("threads_per_task", 1)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ConfigError(f"{at('execution', 'threads_per_task')}: [execution] key 'threads_per_task' must be an integer >= 1, "
                          f"got {threads!r}.")
    max_tasks = check_max_tasks(execution.get("max_tasks", MAX_TASKS),
                                f"{at('execution', 'max_tasks')}: [execution] key 'max_tasks'")
    return {"jobs": jobs, "backend": backend, "scheduler": scheduler,
            "threads_per_task": threads, "max_tasks": max_tasks}


#: Keys of a manifest (a resolved configuration) and a check of each.
_MANIFEST_KEYS = {
    "name": ("a study name", lambda v: isinstance(v, str)),
    "function": ("a non-empty string", lambda v: isinstance(v, str) and bool(v)),
    "seed": ("an integer >= 0",
             lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0),
    "replicates": ("a non-empty list of integers >= 0",
                   lambda v: isinstance(v, list) and bool(v) and all(
                       isinstance(r, int) and not isinstance(r, bool) and r >= 0 for r in v)),
    "paired_seeds": ("true or false", lambda v: isinstance(v, bool)),
    "params": ("an object", lambda v: isinstance(v, dict)),
    "grid": ("an object of non-empty lists", lambda v: isinstance(v, dict) and all(
        isinstance(x, list) and x for x in v.values())),
    "cases": ("a list of objects",
              lambda v: isinstance(v, list) and all(isinstance(c, dict) for c in v)),
    "execution": ("an object", lambda v: isinstance(v, dict)),
}


def check_manifest(manifest: object, path: str) -> dict:
    """Check the shape of a study folder's manifest (read from ``path``): every key of a
    resolved configuration, of the right type. Errors (:class:`ConfigError`) name the file and
    the key. Study functions are not imported (reading a folder needs no plug-in)."""
    damaged = ("the study folder is damaged or was not written by this runner; restore its "
               "manifest.json or run the config into a new folder.")
    if not isinstance(manifest, dict):
        raise ConfigError(f"{path}: the manifest must be a JSON object, got "
                          f"{_type_name(manifest)}; {damaged}")
    if manifest.get("format") != FORMAT_VERSION:
        raise ConfigError(f"{path}: unsupported manifest format {manifest.get('format')!r} "
                          f"(this runner reads format {FORMAT_VERSION}).")
    for key, (what, ok) in _MANIFEST_KEYS.items():
        if key not in manifest:
            raise ConfigError(f"{path}: the manifest has no key '{key}'; {damaged}")
        if not ok(manifest[key]):
            shown = repr(manifest[key])
            shown = shown if len(shown) <= 200 else shown[:200] + "..."
            raise ConfigError(f"{path}: manifest key '{key}' must be {what}, got {shown}; "
                              f"{damaged}")
    check_study_name(manifest["name"], f"{path}: manifest key 'name'")
    ex = manifest["execution"]
    jobs, backend, threads = ex.get("jobs", 1), ex.get("backend", "loky"), ex.get(
        "threads_per_task", 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"{path}: manifest key 'execution.jobs' must be an integer >= 1, "
                          f"got {jobs!r}; {damaged}")
    if backend not in BACKENDS:
        raise ConfigError(f"{path}: manifest key 'execution.backend' must be one of "
                          f"{list(BACKENDS)}, got {backend!r}; {damaged}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ConfigError(f"{path}: manifest key 'execution.threads_per_task' must be an "
                          f"integer >= 1, got {threads!r}; {damaged}")
    if ex.get("scheduler") is not None and not isinstance(ex["scheduler"], str):
        raise ConfigError(f"{path}: manifest key 'execution.scheduler' must be a string, got "
                          f"{ex['scheduler']!r}; {damaged}")
    check_max_tasks(ex.get("max_tasks", MAX_TASKS), f"{path}: manifest key 'execution.max_tasks'")
    manifest["execution"] = {"jobs": jobs, "backend": backend, "scheduler": ex.get("scheduler"),
                             "threads_per_task": threads,
                             "max_tasks": ex.get("max_tasks", MAX_TASKS)}
    return manifest


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


def _check_signature(spec: StudySpec, params: dict, grid: dict, cases: list,
                     at: Callable[..., str]) -> None:
    """Config values against the function's signature, annotations and declared constraints
    (:mod:`bipartite.studies.constraints`); ``at(*key_path)`` is the file and line of a key."""
    sig = inspect.signature(spec.function)
    try:
        hints = typing.get_type_hints(spec.function)
    except (NameError, TypeError):
        hints = {}
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    named = {k: p for k, p in sig.parameters.items()
             if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    given: dict[str, list[tuple[str, tuple, Any]]] = {}
    for key, value in params.items():
        given.setdefault(key, []).append((f"[params] key '{key}'", ("params", key), value))
    for key, values in grid.items():
        for i, value in enumerate(values):
            given.setdefault(key, []).append((f"[grid] key '{key}' (value #{i})", ("grid", key),
                                              value))
    for i, case in enumerate(cases):
        for key, value in case.items():
            given.setdefault(key, []).append((f"[[cases]] #{i} key '{key}'", ("cases", i, key),
                                              value))
    if "seed" in given:
        where, path, _ = given["seed"][0]
        raise ConfigError(f"{at(*path)}: {where}: 'seed' is set by the runner per task; "
                          "set the study seed with [study] seed = ...")
    for key, places in given.items():
        if key not in named:
            if accepts_any:
                continue
            allowed = sorted(k for k in named if k != "seed")
            raise ConfigError(f"{at(*places[0][1])}: {places[0][0]}: study function "
                              f"'{spec.name}' has no parameter '{key}'; its parameters are "
                              f"{allowed}.")
        annotation = hints.get(key, inspect.Parameter.empty)
        constraint = spec.constraints.get(key)
        for where, path, value in places:
            if not _annotation_check(annotation, value):
                raise ConfigError(f"{at(*path)}: {where} must be of type "
                                  f"{_describe_annotation(annotation)}, got {value!r} "
                                  f"({_type_name(value)}).")
            reason = constraint.problem(value) if constraint is not None and value is not None \
                else None
            if reason is not None:
                raise ConfigError(f"{at(*path)}: {where} {reason} (a constraint of study "
                                  f"function '{spec.name}').")
    case_keys = set().union(*cases) if cases else set()
    for key, p in named.items():
        if key == "seed" or p.default is not inspect.Parameter.empty:
            continue
        missing_in_case = [i for i, c in enumerate(cases) if key not in c]
        if key not in params and key not in grid and (key not in case_keys or missing_in_case):
            raise ConfigError(f"{at()}: missing key '{key}': study function '{spec.name}' needs "
                              "it; set it in [params], [grid] or every [[cases]] table.")
