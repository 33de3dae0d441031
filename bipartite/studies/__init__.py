"""The one experiment runner: a resumable task runner and a registry of study functions.

A *study* is a grid of parameters x replicates over one *study function*. Each task
``(function, params, replicate)`` gets its own seed and runs once; its record is appended to a
segment of the study folder as soon as it comes back, and the results of all tasks are gathered
into one tidy table.

Runner guarantees
-----------------
The full list, with the limits, is the docstring of :mod:`bipartite.studies.runner`; in short:

* **A few segment files, group commit, a checksum per record; completeness proved at the end
  of every run** (:class:`StudyIncompleteError` otherwise). The study folder holds
  ``manifest.json``, the tables (``results.parquet``, ``results.csv``, ``task_index.csv``,
  ``failures.csv``) and ``tasks/segment-NNNNNN.jsonl``: one segment per run that had tasks to
  run, one line per task record ``{"checksum": "sha256:...", "record": {...}}`` (the key of a
  task is a stable hash of ``(function, params, replicate)``, :func:`task_key`). Records are
  written and fsync-ed in batches (every 0.1 s, not per task), so a study of 10⁵ tasks leaves a
  handful of files; a ``kill -9`` loses at most the last unflushed batch, whose tasks are run
  again (:mod:`bipartite.studies.records`). Folders of 0.5.0 and earlier (one file per task,
  ``tasks/<key>.json``) are read as they are and moved into a segment by the next run.
* **Resume.** :func:`resume_study` (``bipartite study resume DIR``) reads ``manifest.json`` (the
  resolved configuration, written before any task starts), reads each segment once, skips tasks
  with a valid record and reruns the others (a damaged record is moved to ``quarantine/`` and
  its task rerun). No finished task is lost or run twice, after ``kill -9``, SIGTERM, Ctrl-C or
  a full disk alike.
* **One run per folder, no orphans.** A run locks its folder (POSIX ``flock``; a second run
  fails with :class:`StudyLockedError` or waits ``lock_timeout`` seconds); its worker processes
  die with it, and SIGTERM stops it cleanly with :class:`StudyTerminated` (exit status 143).
* **Failures do not stop a study.** A task that raises records its error and traceback (a record
  with ``status: "failed"``, listed in ``failures.csv``); the other tasks go on. ``resume`` reruns failed tasks (unless
  ``retry_failed=False``).
* **Reproducible seeds.** The seed of a task is drawn from ``numpy.random.SeedSequence`` with the
  study seed as entropy and the task key as spawn key (:func:`task_seed`), so a result does not
  depend on the number of workers or the order in which tasks run. Every task also runs with BLAS /
  OpenMP (and torch) limited to ``threads_per_task`` threads (default 1), so on CPU the results are
  equal bit for bit whatever ``jobs`` is (the learners pin torch's threads themselves).
* **Backends.** ``"loky"`` (a local process pool of its own; ``jobs=1`` runs in-process) and
  ``"dask"`` (``dask.distributed``: an existing scheduler given by address, reached within
  ``scheduler_timeout`` seconds, else a ``LocalCluster``). Ray is not offered: it is a heavy extra
  dependency and ``dask.distributed`` already covers multi-machine scale-out with the same futures
  model. Results travel back to the driver, which writes the records, so dask workers need no
  shared file system. loky workers get short tasks in batches (as joblib's auto-batching does);
  dask gets the tasks in a bounded window (``client.map`` of a few per worker thread at a time).
* **Limits.** At most :data:`MAX_TASKS` tasks per study unless raised (``[execution] max_tasks``);
  study names are folder names (:data:`~bipartite.studies.config.NAME_PATTERN`).

Study functions
---------------
A study function takes a keyword ``seed`` (an ``int``) and its parameters as keywords, and returns a
tidy result: one row (a ``dict`` of scalars), a list of rows, or a ``pandas.DataFrame``. Register it
with :func:`register_study`; configs may also name any importable function as ``"module:function"``.
Study functions registered by other packages are found through the ``bipartite.studies`` entry-point
group (this package registers its paper reproductions there), so the runner names no paper.
Parameter values in configs are checked against the function's signature and type annotations,
and against the constraints the function declares at registration
(``register_study(..., constraints={"n": Range(1, integer=True)})``; :class:`Range`,
:class:`OneOf`, :class:`Each`), before any task runs; config errors name the file, the key and
its line.

See ``simulations/README.md`` for the TOML schema of ``bipartite study run``.
"""

from bipartite._utils.moved import register
from bipartite.studies.config import (
    MAX_TASKS,
    STUDIES,
    ConfigError,
    StudySpec,
    load_config,
    load_registered_studies,
    register_study,
    resolve_config,
    resolve_function,
)
from bipartite.studies.constraints import Each, OneOf, Range
from bipartite.studies.demo import binormal_auc
from bipartite.studies.errors import (
    CorruptTaskFileWarning,
    DuplicateRecordWarning,
    LegacyRecordWarning,
    StudyError,
    StudyIncompleteError,
    StudyIOError,
    StudyLockedError,
    StudyTerminated,
)
from bipartite.studies.execution import DEFAULT_SCHEDULER_TIMEOUT
from bipartite.studies.locking import DEFAULT_LOCK_TIMEOUT, StudyLock, check_lock_timeout
from bipartite.studies.report import (
    generic_figures,
    markdown_table,
    mean_and_se,
    study_figures,
    study_summary_table,
    write_table,
)
from bipartite.studies.runner import (
    BACKENDS,
    FAILURES_CSV,
    MANIFEST,
    RESULTS_CSV,
    RESULTS_PARQUET,
    TASK_INDEX_CSV,
    TASKS_DIR,
    StudyResult,
    collect_results,
    read_manifest,
    read_results,
    resume_study,
    run_study,
    study_status,
    write_text_atomic,
)
from bipartite.studies.tasks import (
    TASK_COLUMNS,
    Task,
    count_tasks,
    execute_batch,
    execute_task,
    expand_tasks,
    record_checksum,
    seed_sequence_words,
    study_token,
    task_key,
    task_seed,
)

__all__ = [
    "BACKENDS",
    "ConfigError",
    "CorruptTaskFileWarning",
    "DuplicateRecordWarning",
    "Each",
    "LegacyRecordWarning",
    "OneOf",
    "Range",
    "StudyIncompleteError",
    "check_lock_timeout",
    "record_checksum",
    "study_token",
    "DEFAULT_LOCK_TIMEOUT",
    "DEFAULT_SCHEDULER_TIMEOUT",
    "MAX_TASKS",
    "StudyError",
    "StudyIOError",
    "StudyLock",
    "StudyLockedError",
    "StudyTerminated",
    "count_tasks",
    "FAILURES_CSV",
    "MANIFEST",
    "RESULTS_CSV",
    "RESULTS_PARQUET",
    "STUDIES",
    "StudyResult",
    "StudySpec",
    "TASKS_DIR",
    "TASK_COLUMNS",
    "TASK_INDEX_CSV",
    "Task",
    "binormal_auc",
    "collect_results",
    "execute_batch",
    "execute_task",
    "expand_tasks",
    "generic_figures",
    "load_config",
    "load_registered_studies",
    "markdown_table",
    "mean_and_se",
    "read_manifest",
    "read_results",
    "register_study",
    "resolve_config",
    "resolve_function",
    "resume_study",
    "run_study",
    "study_figures",
    "study_status",
    "study_summary_table",
    "task_key",
    "task_seed",
    "seed_sequence_words",
    "write_table",
    "write_text_atomic",
]

# ``bipartite.studies.segments`` held the task records of a study folder, not query segments: it is
# now :mod:`bipartite.studies.records` (issue 36); the old path warns and forwards for a release.
register({"bipartite.studies.segments": ("bipartite.studies.records",)})
