"""Tasks of a study: stable keys, per-task seeds, expansion of the grid, execution of one task.
"""


from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import functools
import gc
import hashlib
import itertools
import json
import os
import platform
import struct
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from bipartite.studies.config import MAX_TASKS, ConfigError, resolve_function

#: Columns the runner adds in front of every result row.
TASK_COLUMNS = ("study", "function", "task", "replicate", "seed")
#: Format of task records: 2 carries a ``checksum`` (:func:`record_checksum`); 1 (bipartite
#: 0.3.0) has none and is read as a *legacy* record (:mod:`bipartite.studies.files`).
RECORD_FORMAT = 2
#: Format of the records of bipartite 0.3.0 (no checksum).
LEGACY_RECORD_FORMAT = 1
#: Prefix of a record's checksum: the algorithm.
CHECKSUM_PREFIX = "sha256:"


# --------------------------------------------------------------------------------------------
# Tasks: keys and seeds
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector in this block (reference counting still frees
    everything). Reading the records of a large study builds millions of small acyclic
    objects (dicts, strings), each allocation counting towards a collection that then walks the
    whole growing heap: a third of the time of reading 10^5 records. Nothing of this block
    makes reference cycles; the collector is enabled again on exit, unless it was already off."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _check_index(value: Any, name: str) -> int:
    """A non-negative integer (a replicate number or a study seed), not a bool."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ValueError(f"The '{name}' parameter must be a non-negative integer, got {value!r}.")
    return int(value)


#: The encoders of :func:`canonical_json` and :func:`record_checksum` (made once: ``json.dumps``
#: with options builds a new encoder per call).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                              allow_nan=False)
_CANONICAL_NAN = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                                  allow_nan=True)


def _c_encoder(encoder: json.JSONEncoder) -> Callable[[object], str] | None:
    """The C encoder of :mod:`json` with ``encoder``'s options, made once: ``encoder.encode``
    makes a new one per call (half the time of encoding a task's parameters). ``None`` where
    :mod:`json` has no C accelerator. It leaves out the check for circular references (the
    objects encoded here are parsed JSON or plain configuration values; a cycle would end in a
    ``RecursionError``, not a ``ValueError``). The texts are :meth:`json.JSONEncoder.encode`'s
    (checked in ``tests/studies/test_resume_fast.py``)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - CPython has it
        return None
    chunks = make(None, encoder.default, json.encoder.encode_basestring_ascii, None,
                  encoder.key_separator, encoder.item_separator, encoder.sort_keys,
                  encoder.skipkeys, encoder.allow_nan)
    return lambda obj: "".join(chunks(obj, 0))


_encode = _c_encoder(_CANONICAL) or _CANONICAL.encode
_encode_nan = _c_encoder(_CANONICAL_NAN) or _CANONICAL_NAN.encode


def canonical_json(obj: object) -> str:
    """Canonical JSON text of ``obj`` (sorted keys, no spaces, ASCII, NaN refused): the input of
    task keys and seeds."""
    return _encode(obj)


def record_body_text(record: Mapping) -> str:
    """The canonical JSON of every field of a record but ``checksum`` (NaN and infinities as
    JSON's ``NaN``/``Infinity``): the text whose SHA-256 is the record's checksum, and the text a
    record segment stores (:mod:`bipartite.studies.records`)."""
    return _encode_nan({k: v for k, v in record.items() if k != "checksum"})


def record_checksum(record: Mapping) -> str:
    """Checksum of a task record: ``"sha256:"`` and the SHA-256 of the canonical JSON (sorted
    keys, no spaces, ASCII; NaN and infinities as JSON's ``NaN``/``Infinity``) of every field
    but ``checksum``.

    It is computed from the parsed record, not from the file's bytes, so it does not depend on
    the layout (indentation, the file or segment holding the record) and survives a move into
    another container; floats round-trip exactly through JSON.

    >>> rec = {"key": "ab", "rows": [{"auc": 0.75}], "status": "ok"}
    >>> record_checksum(rec) == record_checksum(json.loads(json.dumps(rec, indent=3)))
    True
    >>> record_checksum(rec) == record_checksum({**rec, "rows": [{"auc": 0.76}]})
    False
    """
    text = record_body_text(record)
    return CHECKSUM_PREFIX + hashlib.sha256(text.encode("ascii")).hexdigest()


def seal_record(record: dict) -> dict:
    """Set the record's ``format`` to :data:`RECORD_FORMAT` and its ``checksum``; return it."""
    record["format"] = RECORD_FORMAT
    record.pop("checksum", None)
    record["checksum"] = record_checksum(record)
    return record


def study_identity(config: Mapping) -> dict:
    """The parts of a resolved configuration that define its tasks and their results (execution
    options may differ between runs of one study)."""
    return {k: config[k] for k in ("name", "function", "seed", "replicates", "paired_seeds",
                                   "params", "grid", "cases")}


def study_token(config: Mapping) -> str:
    """A short identifier of a study: ``<name>-s<seed>-<12 hex>``, the hex from the SHA-256 of
    :func:`study_identity`. Two studies differing in anything that defines their tasks (name,
    seed, grid, function...) get different tokens; the dask backend puts it in every task's key,
    so that studies sharing one scheduler never share a key.

    >>> a = {"name": "s", "function": "f", "seed": 1, "replicates": [0], "paired_seeds": False,
    ...      "params": {}, "grid": {"x": [1]}, "cases": []}
    >>> study_token(a)[:5], study_token(a) == study_token({**a, "seed": 2})
    ('s-s1-', False)
    """
    digest = hashlib.sha256(canonical_json(study_identity(config)).encode("ascii")).hexdigest()
    return f"{config['name']}-s{config['seed']}-{digest[:12]}"


def task_key(function: str, params: Mapping, replicate: int) -> str:
    """Stable identifier of a task: SHA-256 of the canonical JSON of its definition (16 hex).

    Independent of dict order and of the process; changes if any parameter value changes.

    >>> task_key("f", {"a": 1, "b": [1, 2]}, 0) == task_key("f", {"b": [1, 2], "a": 1}, 0)
    True
    >>> task_key("f", {"a": 1}, 0) == task_key("f", {"a": 1}, 1)
    False
    """
    replicate = _check_index(replicate, "replicate")
    text = canonical_json({"function": function, "params": dict(params), "replicate": replicate})
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def _definition_texts(function_json: str, params_json: str) -> tuple[str, str]:
    """The canonical JSON of ``{"function", "params"}`` and the prefix of ``{"function",
    "params", "replicate"}`` up to the replicate's value, built from the canonical JSON of the
    function's name and of the parameters (sorted keys: ``function`` < ``params`` < ``replicate``; the same text as
    :func:`canonical_json` of the whole, checked in the tests), so that a grid point's
    parameters are serialised once for all its replicates."""
    head = '{"function":' + function_json + ',"params":' + params_json
    return head + "}", head + ',"replicate":'


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
    study_seed = _check_index(study_seed, "study_seed")
    replicate = _check_index(replicate, "replicate")
    words = () if paired else _params_words(function, params)
    ss = np.random.SeedSequence(entropy=study_seed, spawn_key=(replicate, *words))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


# numpy's SeedSequence (numpy/random/bit_generator.pyx): its hash constants, pool of 4 words.
_MASK32 = 0xFFFFFFFF
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_POOL_SIZE = 4


def _uint32_words(value: int) -> list[int]:
    """The 32-bit words of a non-negative integer, least significant first (``[0]`` for 0), as
    SeedSequence splits its entropy and spawn key."""
    words = [value & _MASK32]
    value >>= 32
    while value:
        words.append(value & _MASK32)
        value >>= 32
    return words


def seed_sequence_words(entropy: int, spawn_keys: np.ndarray) -> np.ndarray:
    """``SeedSequence(entropy, spawn_key=row).generate_state(1, np.uint32)[0]`` for every row of
    ``spawn_keys`` (an ``(n, m)`` array of 32-bit words, ``m >= 1``; a row is the spawn key's
    words), computed for all rows at once: the hash-mixing of numpy's ``SeedSequence`` (pool of
    4 words) written over columns of ``uint32`` arrays, which wrap as its C code does.

    The reference, ``numpy.random.SeedSequence`` itself, is checked against it in
    ``tests/studies/test_runner.py``; :func:`expand_tasks` uses it for the seeds of
    :func:`task_seed` (about 50 µs a task one at a time).

    >>> rows = np.array([[0, 7], [3, 9]], dtype=np.uint32)
    >>> [int(w) for w in seed_sequence_words(5, rows)] == [int(np.random.SeedSequence(
    ...     5, spawn_key=tuple(int(v) for v in r)).generate_state(1)[0]) for r in rows]
    True
    """
    spawn_keys = np.asarray(spawn_keys, dtype=np.uint32)
    if spawn_keys.ndim != 2 or spawn_keys.shape[1] < 1:
        raise ValueError(f"The 'spawn_keys' parameter must be an (n, m >= 1) array of words, "
                         f"got shape {spawn_keys.shape}.")
    run = _uint32_words(_check_index(entropy, "entropy"))
    run += [0] * max(0, _POOL_SIZE - len(run))  # a spawn key pads the run entropy to the pool
    n = spawn_keys.shape[0]
    columns = [np.full(n, w, dtype=np.uint32) for w in run] + list(spawn_keys.T)
    shift = np.uint32(16)
    const = _INIT_A

    def hashmix(value: np.ndarray) -> np.ndarray:
        nonlocal const
        value = value ^ np.uint32(const)
        const = (const * _MULT_A) & _MASK32
        value = value * np.uint32(const)
        return value ^ (value >> shift)

    def mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        result = np.uint32(_MIX_MULT_L) * x - np.uint32(_MIX_MULT_R) * y
        return result ^ (result >> shift)

    pool = [hashmix(columns[i]) for i in range(_POOL_SIZE)]
    for i_src in range(_POOL_SIZE):
        for i_dst in range(_POOL_SIZE):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hashmix(pool[i_src]))
    for i_src in range(_POOL_SIZE, len(columns)):
        for i_dst in range(_POOL_SIZE):
            pool[i_dst] = mix(pool[i_dst], hashmix(columns[i_src]))
    value = pool[0] ^ np.uint32(_INIT_B)  # generate_state, first word
    value = value * np.uint32((_INIT_B * _MULT_B) & _MASK32)
    return value ^ (value >> shift)


def _params_words(function: str, params: Mapping) -> tuple[int, ...]:
    """The four 32-bit words of the SHA-256 of ``(function, params)`` in a task's spawn key."""
    digest = hashlib.sha256(canonical_json({"function": function,
                                            "params": dict(params)}).encode("ascii")).digest()
    return struct.unpack("<4I", digest[:16])


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
        """The task as a plain dict (what a worker receives; ``params`` is a copy)."""
        return {"study": self.study, "function": self.function, "params": dict(self.params),
                "replicate": self.replicate, "seed": self.seed, "key": self.key,
                "threads": self.threads}

    @functools.cached_property
    def params_json(self) -> str:
        """:func:`canonical_json` of ``params`` (computed once)."""
        return canonical_json(self.params)


def count_tasks(config: Mapping) -> int:
    """Number of tasks of a resolved configuration, computed without listing them:
    ``max(1, #cases) x product of the grid's list lengths x #replicates``.

    >>> count_tasks({"cases": [], "grid": {"a": [1, 2, 3], "b": [0.1, 0.2]}, "replicates": [0, 1]})
    12
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"The 'config' parameter must be a resolved study configuration (a "
                        f"mapping), got {type(config).__name__}.")
    missing = [k for k in ("cases", "replicates", "grid") if k not in config]
    if missing:
        raise ValueError(f"The 'config' parameter lacks the key(s) {missing}: pass the resolved "
                         "configuration (bipartite.studies.load_config).")
    n = max(1, len(config["cases"])) * len(config["replicates"])
    for values in config["grid"].values():
        n *= len(values)
    return n


def expand_tasks(config: Mapping, *, max_tasks: int | None = None) -> list[Task]:
    """All tasks of a resolved configuration, in a fixed order: cases x grid x replicates.

    Refuses (:class:`ConfigError`, before listing any task) a study of more than ``max_tasks``
    tasks: the argument, else ``[execution] max_tasks``, else :data:`MAX_TASKS`.

    >>> cfg = {"name": "big", "function": "f", "seed": 0, "replicates": [0], "params": {},
    ...        "paired_seeds": False, "cases": [], "execution": {"threads_per_task": 1},
    ...        "grid": {"a": list(range(2000)), "b": list(range(1000))}}
    >>> expand_tasks(cfg)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bipartite.studies.config.ConfigError: <config>: study 'big' has 2,000,000 tasks (1 case(s) x grid 2000 x 1000 x 1 replicate(s)), above the limit of 1,000,000 ...
    """
    limit = max_tasks if max_tasks is not None else config["execution"].get("max_tasks",
                                                                             MAX_TASKS)
    n_tasks = count_tasks(config)
    if n_tasks > limit:
        sizes = " x ".join(str(len(v)) for v in config["grid"].values()) or "(none)"
        raise ConfigError(
            f"{config.get('source', '<config>')}: study {config['name']!r} has {n_tasks:,} tasks "
            f"({max(1, len(config['cases']))} case(s) x grid {sizes} x "
            f"{len(config['replicates'])} replicate(s)), above the limit of {limit:,} "
            "(MAX_TASKS); check the grid, or raise the limit with [execution] max_tasks = N "
            "(or the max_tasks argument of run_study).")
    with gc_paused():
        return _expand(config)


def _expand(config: Mapping) -> list[Task]:
    """The tasks of :func:`expand_tasks`, their number checked."""
    grid_keys = list(config["grid"])
    cases = config["cases"] or [{}]
    function, paired = config["function"], config["paired_seeds"]
    replicates = [_check_index(rep, "replicate") for rep in config["replicates"]]
    study_seed = _check_index(config["seed"], "study_seed")
    function_json = canonical_json(function)
    defs, spawn = [], []  # (params, replicate, key, params JSON), spawn-key words of each task
    seen = set()
    for case in cases:
        for values in itertools.product(*(config["grid"][k] for k in grid_keys)):
            params = {**config["params"], **case, **dict(zip(grid_keys, values, strict=True))}
            params_json = canonical_json(params)
            pair_text, key_prefix = _definition_texts(function_json, params_json)
            words = () if paired else struct.unpack(
                "<4I", hashlib.sha256(pair_text.encode("ascii")).digest()[:16])
            for rep in replicates:
                key = hashlib.sha256(f"{key_prefix}{rep}}}".encode("ascii")).hexdigest()[:16]
                if key in seen:
                    raise ConfigError(f"{config.get('source', '<config>')}: two tasks have the "
                                      f"same parameters {params} (replicate {rep}); remove the "
                                      "duplicate grid value or case.")
                seen.add(key)
                defs.append((params, rep, key, params_json))
                spawn.append((rep, *words))
    if all(rep <= _MASK32 for rep in replicates):  # one word per replicate: all seeds at once
        seeds = seed_sequence_words(study_seed, np.array(spawn, dtype=np.uint32)).tolist()
    else:  # a replicate number of several words (>= 2**32): one at a time
        seeds = [task_seed(study_seed, function, params, rep, paired=paired)
                 for params, rep, _, _ in defs]
    threads = config["execution"]["threads_per_task"]
    tasks = []
    for (params, rep, key, params_json), seed in zip(defs, seeds, strict=True):
        task = Task(config["name"], function, params, rep, seed, key, threads)
        task.__dict__["params_json"] = params_json  # the cached property, known already
        tasks.append(task)
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


#: ``(number of modules loaded, threadpoolctl controller)``: the native thread pools found the
#: last time; looked for again once a module was imported since (a new library may have come).
_CONTROLLER: list = [-1, None]


def _thread_controller():
    from threadpoolctl import ThreadpoolController

    if _CONTROLLER[0] != len(sys.modules):
        _CONTROLLER[1] = ThreadpoolController()  # scans the loaded libraries (about 1 ms)
        _CONTROLLER[0] = len(sys.modules)
    return _CONTROLLER[1]


@contextlib.contextmanager
def _limited_threads(threads: int):
    """Pin BLAS/OpenMP threads (and torch's, if loaded) so that results do not depend on the
    number of workers. The learners pin torch's threads themselves while they fit. The loaded
    thread pools are looked up again only when a module was imported since the last task; a
    pool already at ``threads`` is left as it is (what ``threadpool_limits`` does, without its
    cost of about 50 µs a task), the others are set and restored after the task."""
    torch = sys.modules.get("torch")
    old = torch.get_num_threads() if torch is not None else None
    if torch is not None and old != threads:
        torch.set_num_threads(threads)
    changed = []  # (library, its thread count before): only those set are restored
    try:
        for lib in _thread_controller().lib_controllers:
            before = lib.num_threads
            if before != threads:
                lib.set_num_threads(threads)
                changed.append((lib, before))
        yield
    finally:
        for lib, before in reversed(changed):
            lib.set_num_threads(before)
        if torch is not None and old != threads:
            torch.set_num_threads(old)


def execute_task(task: Mapping) -> dict:
    """Run one task and return its record, sealed with its checksum (:func:`seal_record`;
    never raises for an error inside the study)."""
    with _limited_threads(task.get("threads", 1)):
        return _execute(task)


def execute_batch(tasks: list[Mapping]) -> list[dict]:
    """Run several tasks one after the other in this process and return their records, as
    :func:`execute_task` does for each (a worker of the loky backend runs batches of short
    tasks)."""
    return list(iter_execute(tasks))


def iter_execute(tasks: Iterable[Mapping]) -> Iterator[dict]:
    """The records of ``tasks`` run one after the other in this process (:func:`execute_task`),
    each yielded as soon as its task is done (the in-process backend)."""
    for task in tasks:
        yield execute_task(task)


def _execute(task: Mapping) -> dict:
    start, cpu_start = time.perf_counter(), time.process_time()
    record = {
        "format": RECORD_FORMAT,
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
    return seal_record(record)
