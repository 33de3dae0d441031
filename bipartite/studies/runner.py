"""Running a study into its folder: :func:`run_study`, :func:`resume_study`,
:func:`study_status`; reading a folder's manifest, records and tables
(:func:`~bipartite.studies.collect_results`, :func:`~bipartite.studies.read_results`) is
:mod:`bipartite.studies.results`.

Guarantees
----------
Each is tested by fault injection (``tests/studies/test_faults.py``).

* **Nothing finished is lost, nothing is run twice.** The driver appends each task's record to
  a segment of ``<study_dir>/tasks/`` (``segment-NNNNNN.jsonl``, one per run; one line per
  record) as it comes back, and writes and fsyncs them in batches (group commit: every
  :data:`~bipartite.studies.records.FLUSH_INTERVAL_S` = 0.1 s while records arrive, from a timer
  when they stop, and when the run ends however it ends; :mod:`bipartite.studies.records`). A
  run skips every task with a valid record. After ``kill -9``, SIGTERM, Ctrl-C, a crash or a
  full disk, the next run (``resume``) runs exactly the tasks without a record, and its
  ``results.csv`` and ``results.parquet`` are byte-identical to those of an uninterrupted run.
  (Tasks *running*, or finished but not yet flushed, when the driver dies have no record: they
  are run again, which is not a duplicate, since their first run left nothing. A last line cut
  short by the crash is ignored.) A record found twice (a crash while records were compacted)
  is read once; two *different* successes of one task are flagged
  (:class:`~bipartite.studies.DuplicateRecordWarning`) and the first is used.
* **One run per folder.** A run holds an advisory lock on its folder
  (:mod:`bipartite.studies.locking`, POSIX ``flock`` on ``<study_dir>/.lock``, released by the
  kernel when the run ends however it ends). A second run fails at once with
  :class:`~bipartite.studies.StudyLockedError` naming the folder and the holder's pid and host
  (``lock_timeout=0``, the default), or waits up to ``lock_timeout`` seconds (``None``: for
  ever) and then continues the study (usually finding nothing left to do).
* **Records carry a checksum.** Every task record holds ``checksum``, the SHA-256 of the
  canonical JSON of its other fields (:func:`~bipartite.studies.tasks.record_checksum`; record
  format 2), set by the worker and checked by the driver when the result arrives; the segment
  line stores that canonical JSON with the checksum in front, so every later read checks it by
  hashing the line's bytes, and a record damaged or edited by hand (even into valid JSON) is
  detected. A result that is not a valid record of the task it was sent for (another study's,
  under a shared key) becomes a failure of that task, never a result.
* **Damaged records are rerun, not dropped.** A segment line that is not a record, fails its
  checksum or is a record of another task or study (and a per-task file of 0.5.0 that is empty,
  not JSON, not a regular file or of the wrong shape) is copied to
  ``quarantine/<segment>.line<N>.corrupt-<UTC time>`` (a file is moved there) with a
  :class:`~bipartite.studies.CorruptTaskFileWarning`; the valid records are compacted into one
  new segment and the task is run again. :func:`study_status` and :func:`collect_results` count
  such records (``corrupt`` when their task can be told, else ``unreadable``) without moving
  them. A run also compacts a folder of more than
  :data:`~bipartite.studies.records.MAX_SEGMENTS` segments.
* **Every run proves it is complete.** At the end of a run every task must have exactly one
  valid record (a result or a failure); otherwise (a file vanished or was damaged while the
  study ran, a result never came back) the run raises
  :class:`~bipartite.studies.StudyIncompleteError` naming the missing tasks and the
  ``bipartite study resume`` command, and writes no results table. :func:`study_status` reports
  the same check (``complete``, ``missing``). Every record is read and checked (its checksum,
  its task) by every run, including one that finds nothing to run.
* **Tables follow the records.** After writing the tables a run leaves ``.tables-stamp.json``
  (:data:`~bipartite.studies.files.TABLES_STAMP`): the inode, size and modification time of
  each segment the tables were made from, and of each table. A run that runs nothing and finds the stamp true of the folder
  (no record added, compacted or edited, no table removed or edited since; the same bipartite
  version and tables format, :data:`~bipartite.studies.files.TABLES_FORMAT`) does not write the tables again: they are a function of the records. Its
  ``StudyResult.results`` is built, from the records it checked, when first asked for.
* **Folders of bipartite 0.5.0 and earlier** (one file per task: ``tasks/<key>.json``,
  ``tasks/<key>.failed.json``) are read as they are by :func:`study_status` and
  :func:`collect_results`; a run (``resume``) moves their records into a segment (written and
  fsync-ed before the files are removed: a crash in between leaves the same records twice,
  read once). Records of bipartite 0.3.0 (format 1, no checksum) are read: their shape and task
  are checked, they are used with one :class:`~bipartite.studies.LegacyRecordWarning` (edits
  made to them before they were moved cannot be detected), and ``study status`` counts them
  (``legacy``).
* **No orphan processes.** The loky workers die with the driver, ``kill -9`` included: Linux
  sends them SIGKILL (``PR_SET_PDEATHSIG``) and, on any POSIX system, a watchdog thread exits
  within :data:`~bipartite.studies.execution.WATCHDOG_POLL_S` (0.5) s of the driver's death; the
  pool's resource trackers follow. On SIGTERM the driver saves the tasks that had finished, kills
  its workers (``kill_workers=True``) and raises :class:`~bipartite.studies.StudyTerminated`, a
  ``SystemExit`` with status 143; on Ctrl-C it does the same and re-raises
  ``KeyboardInterrupt`` (workers ignore SIGINT, and start with it blocked, so a Ctrl-C while
  they start cannot kill their interpreter mid-start-up). See
  :mod:`bipartite.studies.execution`.
* **Studies sharing a dask scheduler** never share a task key: keys are
  ``bipartite-<study token>-<task key>`` with the study's name, seed and a hash of its resolved
  configuration (:func:`~bipartite.studies.tasks.study_token`).
* **Clear errors.** Problems outside the tasks raise :class:`~bipartite.studies.StudyError`:
  :class:`~bipartite.studies.StudyIOError` (also an ``OSError``) for a full disk (ENOSPC,
  EDQUOT, EFBIG), a path below a file, a ``tasks`` path that is a file, no permission;
  :class:`~bipartite.studies.StudyLockedError`; an unreachable dask scheduler (at once when
  its address refuses connections, else after ``scheduler_timeout`` seconds, with the hint to
  resume with ``--backend loky``); a worker process that died. The output folders are checked
  writable before any worker starts (a read-only file system is named as such). Bad configurations, damaged
  manifests, bad study names and oversized grids raise :class:`~bipartite.studies.ConfigError`.
  Each message names the path, key or address and what to do. Front ends map ``ConfigError``
  and ``StudyError`` to exit status 2, ``KeyboardInterrupt`` to 130, and let
  ``StudyTerminated`` exit with 143.

Limits
------
* A study has at most :data:`~bipartite.studies.MAX_TASKS` (1,000,000) tasks unless raised by
  ``[execution] max_tasks`` or ``max_tasks=``; the count is checked before any task is listed.
* Study names match :data:`~bipartite.studies.config.NAME_PATTERN`: 1-128 characters of
  ``A-Z a-z 0-9 . _ - :``, first a letter, digit or ``_``, no ``..`` (they are folder names
  under ``results/``; never a path).
* ``lock_timeout`` defaults to 0 s (:data:`~bipartite.studies.DEFAULT_LOCK_TIMEOUT`),
  ``scheduler_timeout`` to 30 s (:data:`~bipartite.studies.DEFAULT_SCHEDULER_TIMEOUT`).
* Locking needs POSIX ``fcntl.flock`` and a local file system (NFS only if the server supports
  byte-range locks); without ``fcntl`` (Windows) the runner warns and runs unlocked.
  Parent-death signals are Linux-only; the watchdog works on any POSIX system.
* Not covered: processes that a study function starts itself and remote dask workers (they
  belong to their cluster). Records are fsync-ed per batch and new segments' folder entries too,
  so a power cut loses at most the batch being written.
* A worker that dies (killed, out of memory) breaks the loky pool: the run stops with
  ``StudyError``; the finished tasks are kept and ``resume`` runs the rest.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import json
import os
import platform
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from bipartite.studies.config import (
    BACKENDS,
    ConfigError,
    check_max_tasks,
    check_study_name,
    load_config,
    resolve_config,
)
from bipartite.studies.errors import StudyError, StudyIncompleteError, StudyIOError, study_io_error
from bipartite.studies.execution import (
    DEFAULT_SCHEDULER_TIMEOUT,
    failed_record,
    run_pending,
    sigterm_raises,
)
from bipartite.studies.files import (
    FAILURES_CSV,
    MANIFEST,
    RESULTS_CSV,
    RESULTS_PARQUET,
    TABLES_FORMAT,
    TABLES_STAMP,
    TASK_INDEX_CSV,
    TASKS_DIR,
    check_writable,
    pid_alive,
    prepare_study_dir,
    prepare_tasks_dir,
    record_problem,
    remove_stale_temp_files,
    write_text_atomic,
)
from bipartite.studies.locking import DEFAULT_LOCK_TIMEOUT, LOCK_FILE, StudyLock, read_lock_holder
from bipartite.studies.records import (
    SegmentWriter,
    encode_record,
    read_store,
    repair_store,
    task_states,
    warn_conflicts,
)
from bipartite.studies.results import (
    Census,
    collect_results,
    read_manifest,
    read_results,
    stamp_tables,
    tables_current,
    take_census,
    warn_legacy,
    write_results,
)
from bipartite.studies.tasks import Task, expand_tasks, gc_paused, study_identity, study_token

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["StudyResult", "collect_results", "read_manifest", "read_results", "resume_study",
           "run_study", "study_status", "write_text_atomic"]

# Re-exported here for compatibility (the folder layout lives in bipartite.studies.files).
__all__ += ["FAILURES_CSV", "MANIFEST", "RESULTS_CSV", "RESULTS_PARQUET", "TABLES_FORMAT",
            "TABLES_STAMP", "TASKS_DIR", "TASK_INDEX_CSV"]


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------


class StudyResult:
    """What a run of a study did: the tidy results (``results``) and the task counts.

    ``results`` is the table of :func:`collect_results`. A run that ran nothing and found the
    folder's tables current (see :func:`run_study`) did not build it: it is built from the
    records the run read and checked, the first time it is asked for."""

    def __init__(self, study_dir: Path, results: pd.DataFrame | Callable[[], pd.DataFrame],
                 n_tasks: int, n_skipped: int, n_run: int, failures: list[dict],
                 elapsed_s: float, *, n_rows: int | None = None):
        self.study_dir, self.n_tasks, self.n_skipped = study_dir, n_tasks, n_skipped
        self.n_run, self.failures, self.elapsed_s = n_run, failures, elapsed_s
        self._results, self._n_rows = results, n_rows

    @property
    def n_rows(self) -> int:
        """The number of rows of ``results`` (without building it)."""
        if self._n_rows is None:
            self._n_rows = len(self.results)
        return self._n_rows

    @property
    def results(self) -> pd.DataFrame:
        """The tidy results table (one row per result row of each finished task)."""
        if callable(self._results):
            self._results = self._results()
        return self._results

    @property
    def ok(self) -> bool:
        return not self.failures

    def __repr__(self) -> str:
        return (f"StudyResult(study_dir={str(self.study_dir)!r}, n_tasks={self.n_tasks}, "
                f"n_skipped={self.n_skipped}, n_run={self.n_run}, "
                f"failures={len(self.failures)}, elapsed_s={self.elapsed_s:.3f})")


def _with_overrides(config: Mapping, jobs, backend, scheduler, max_tasks) -> dict:
    config = dict(config)
    execution = dict(config["execution"])
    if jobs is not None:
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise ValueError(f"The 'jobs' parameter must be an integer >= 1, got {jobs!r}.")
        execution["jobs"] = jobs
    if backend is not None:
        from bipartite._utils.validation import check_option

        check_option(backend, "backend", BACKENDS)
        execution["backend"] = backend
    if scheduler is not None:
        execution["scheduler"] = scheduler
    if max_tasks is not None:
        execution["max_tasks"] = check_max_tasks(max_tasks, "The 'max_tasks' parameter")
    config["execution"] = execution
    return config


def _write_manifest_or_check(study_dir: Path, config: dict, n_tasks: int) -> None:
    manifest_path = study_dir / MANIFEST
    if manifest_path.is_file():
        old = read_manifest(study_dir)
        if study_identity(old) != study_identity(config):
            raise ConfigError(f"{study_dir} already holds a different study "
                              f"({old.get('name')!r} from {old.get('source')}); choose another "
                              "--out folder, or use `bipartite study resume` to continue it.")
        return
    manifest = dict(config)
    manifest["created_at"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    from bipartite import __version__

    manifest["bipartite_version"] = __version__
    manifest["n_tasks"] = n_tasks
    try:
        write_text_atomic(manifest_path, json.dumps(manifest, indent=1))
    except OSError as exc:
        raise study_io_error(exc, "writing", manifest_path, study_dir=study_dir) from None


def run_study(config: Mapping | str | os.PathLike, out_dir: str | os.PathLike | None = None, *,
              jobs: int | None = None, backend: str | None = None, scheduler: str | None = None,
              progress: bool = True, retry_failed: bool = True,
              dask_cluster_kwargs: Mapping | None = None,
              lock_timeout: float | None = DEFAULT_LOCK_TIMEOUT,
              scheduler_timeout: float = DEFAULT_SCHEDULER_TIMEOUT,
              max_tasks: int | None = None,
              on_task: Callable[[dict], None] | None = None) -> StudyResult:
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
    lock_timeout : seconds to wait while another run holds the folder (``0``, the default:
        fail at once with :class:`~bipartite.studies.StudyLockedError`; ``None``: wait for ever).
    scheduler_timeout : seconds to reach the dask ``scheduler`` before failing with
        :class:`~bipartite.studies.StudyError` (default 30).
    max_tasks : largest number of tasks allowed (default ``[execution] max_tasks``, else
        :data:`~bipartite.studies.MAX_TASKS`); checked before the tasks are listed.
    on_task : called with each task's record (a dict with ``key``, ``status``, ``cpu_s``, ...)
        once it is saved (its batch written and fsync-ed), in the driver process: e.g. to drive one progress bar over
        several studies (:func:`bipartite.experiments.run_paper`).

    Returns
    -------
    StudyResult with ``results`` (the tidy table, also written to ``results.parquet`` and
    ``results.csv``), the counts of tasks skipped and run, and the failure records.

    Raises
    ------
    ConfigError (bad config or manifest, bad name, too many tasks, folder of another study),
    StudyLockedError, StudyIOError (disk full, path not a folder, no permission), StudyError
    (scheduler unreachable, worker pool broken), KeyboardInterrupt and StudyTerminated (SIGTERM,
    exit status 143) after the finished tasks are saved and the workers stopped. See the module
    docstring for the guarantees.
    """
    if isinstance(config, str | os.PathLike):
        config = load_config(config)
    elif "format" not in config:
        config = resolve_config(config)
    config = _with_overrides(config, jobs, backend, scheduler, max_tasks)
    check_study_name(config["name"], f"{config.get('source', '<config>')}: study name")
    study_dir = Path(out_dir) if out_dir is not None else Path("results") / config["name"]
    tasks = expand_tasks(config)  # refuses too many tasks before touching the disk
    with sigterm_raises():
        prepare_study_dir(study_dir)
        with StudyLock(study_dir, timeout=lock_timeout):
            return _run_locked(study_dir, config, tasks, progress=progress,
                               retry_failed=retry_failed, scheduler_timeout=scheduler_timeout,
                               dask_cluster_kwargs=dask_cluster_kwargs, on_task=on_task)


def _run_locked(study_dir: Path, config: dict, tasks: list[Task], *, progress: bool,
                retry_failed: bool, scheduler_timeout: float,
                dask_cluster_kwargs: Mapping | None,
                on_task: Callable[[dict], None] | None = None) -> StudyResult:
    from tqdm.auto import tqdm

    _write_manifest_or_check(study_dir, config, len(tasks))
    tasks_dir = prepare_tasks_dir(study_dir)
    for folder in (study_dir, tasks_dir):
        remove_stale_temp_files(folder)
        check_writable(folder, study_dir)  # before any worker starts

    start = time.perf_counter()
    with gc_paused():  # the records of the folder: many small objects (see gc_paused)
        store = read_store(study_dir, tasks)
        states = task_states(store, tasks)
        warn_conflicts(study_dir, states)
        if repair_store(store, tasks, states):  # quarantine, compaction, 0.5.0 files migrated
            store = read_store(study_dir, tasks)
            states = task_states(store, tasks)
    keep = {"ok"} | ({"failed"} if not retry_failed else set())
    pending = [t for t in tasks if states[t.key].status not in keep]
    n_skip = len(tasks) - len(pending)
    ex = config["execution"]
    if pending:
        by_key = {t.key: t for t in pending}
        n_failed: list[str] = []
        with tqdm(total=len(tasks), initial=n_skip, desc=config["name"], unit="task",
                  disable=not progress, dynamic_ncols=True) as bar:
            writer = SegmentWriter(tasks_dir, on_saved=on_task, study_dir=study_dir)

            def on_record(record: dict) -> None:
                task = by_key.get(record.get("key")) if isinstance(record, dict) else None
                if task is None:  # not a task of this run: never written
                    return
                status = record.get("status")
                line, checksum = encode_record(record)
                problem = (record_problem(record, task, status, checksum=checksum)
                           if status in ("ok", "failed") else f"status {status!r}")
                if problem is not None:  # e.g. another study's result under the same key
                    record = failed_record(task, StudyError(
                        f"the result that came back is not a valid record of this task "
                        f"({problem})"))
                    line, _ = encode_record(record)
                writer.add(line, record)
                if record["status"] != "ok":
                    n_failed.append(task.key)
                    bar.set_postfix(failed=len(n_failed), refresh=False)
                bar.update(1)

            try:
                run_pending(pending, on_record, jobs=ex["jobs"], backend=ex["backend"],
                            scheduler=ex["scheduler"], scheduler_timeout=scheduler_timeout,
                            dask_cluster_kwargs=dask_cluster_kwargs, where=str(study_dir),
                            study_token=study_token(config))
            except BaseException:
                with contextlib.suppress(StudyIOError):  # the first error is the one to see
                    writer.close()  # the finished tasks' last batch is saved
                raise
            writer.close()
        store = read_store(study_dir, tasks, previous=store)  # only the new segment is read
        states = None
    with gc_paused():
        census = take_census(study_dir, tasks, repair=True, store=store, states=states)
        if census.missing:
            raise StudyIncompleteError(_incomplete_message(study_dir, census),
                                       study_dir=study_dir, missing=census.missing)
        if not pending and tables_current(study_dir, census.store):
            warn_legacy(study_dir, census, stacklevel=3)
            results = functools.partial(write_results, study_dir, census, write=False,
                                        warn=False)
            n_rows = sum(len(s.record["rows"]) for s in census.states.values()
                         if s.status == "ok")
        else:
            results = write_results(study_dir, census)
            stamp_tables(study_dir, census.store)
            n_rows = len(results)
    return StudyResult(study_dir, results, len(tasks), n_skip, len(pending), census.failures,
                       time.perf_counter() - start, n_rows=n_rows)


def _incomplete_message(study_dir: Path, census: Census) -> str:
    shown = [f"{t.key} ({t.params_json}, replicate {t.replicate})"
             for t in census.tasks if t.key in set(census.missing[:10])]
    more = len(census.missing) - len(shown)
    return (f"{study_dir}: the study is incomplete: {len(census.missing)} of "
            f"{len(census.tasks)} task(s) have no valid record after the run (a task file "
            f"vanished or was damaged while it ran, or a result never came back): "
            f"{'; '.join(shown)}{f'; and {more} more' if more > 0 else ''}. The finished tasks "
            f"are kept; run `bipartite study resume {study_dir}` to run the missing ones "
            f"(damaged files are in {study_dir}/quarantine).")


def resume_study(study_dir: str | os.PathLike, *, jobs: int | None = None,
                 backend: str | None = None, scheduler: str | None = None,
                 progress: bool = True, retry_failed: bool = True,
                 dask_cluster_kwargs: Mapping | None = None,
                 lock_timeout: float | None = DEFAULT_LOCK_TIMEOUT,
                 scheduler_timeout: float = DEFAULT_SCHEDULER_TIMEOUT,
                 max_tasks: int | None = None) -> StudyResult:
    """Continue a study from its folder alone (its ``manifest.json``): finished tasks are kept,
    unfinished, corrupt and (with ``retry_failed``) failed tasks are run. Options and errors as
    :func:`run_study`."""
    study_dir = Path(study_dir)
    manifest = read_manifest(study_dir)
    return run_study(manifest, study_dir, jobs=jobs, backend=backend, scheduler=scheduler,
                     progress=progress, retry_failed=retry_failed,
                     dask_cluster_kwargs=dask_cluster_kwargs, lock_timeout=lock_timeout,
                     scheduler_timeout=scheduler_timeout, max_tasks=max_tasks)


def study_status(study_dir: str | os.PathLike) -> dict:
    """Counts of finished, failed, corrupt and pending tasks of a study folder (read-only: a
    corrupt task file is counted, not moved), and the completeness check of a run's end:
    ``complete`` is true when every task has exactly one valid record (``done`` or ``failed``),
    ``missing`` lists the keys of up to 20 tasks without one. ``legacy`` counts the records of
    bipartite 0.3.0 (no checksum); ``unreadable`` the damaged records whose task cannot be
    told (a line of garbage in a segment). ``running_pid`` is the pid of the run holding the folder
    (from the lock file; ``None`` when no run is active)."""
    study_dir = Path(study_dir)
    manifest = read_manifest(study_dir)
    census = take_census(study_dir, expand_tasks(manifest), repair=False)
    holder = read_lock_holder(study_dir / LOCK_FILE) if (study_dir / LOCK_FILE).is_file() else {}
    pid = holder.get("pid")
    running = (pid if isinstance(pid, int) and holder.get("host") == platform.node()
               and pid_alive(pid) else None)
    return {"name": manifest["name"], "function": manifest["function"],
            "tasks": len(census.tasks), "done": census.counts["ok"],
            "failed": census.counts["failed"], "corrupt": census.counts["corrupt"],
            "pending": census.counts["pending"], "legacy": len(census.legacy),
            "complete": not census.missing, "missing": census.missing[:20],
            "unreadable": census.unreadable, "running_pid": running}


