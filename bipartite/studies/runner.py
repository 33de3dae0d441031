
from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import math
import os
import tempfile
import time
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bipartite.studies.config import BACKENDS, ConfigError, load_config, resolve_config
from bipartite.studies.tasks import FORMAT_VERSION, Task, canonical_json, execute_task, expand_tasks

__all__ = ["StudyResult", "collect_results", "read_manifest", "read_results", "resume_study",
           "run_study", "study_status", "write_text_atomic"]

MANIFEST = "manifest.json"
TASKS_DIR = "tasks"
RESULTS_PARQUET = "results.parquet"
RESULTS_CSV = "results.csv"
FAILURES_CSV = "failures.csv"
TASK_INDEX_CSV = "task_index.csv"


# --------------------------------------------------------------------------------------------
# Files of a study folder
# --------------------------------------------------------------------------------------------


def write_text_atomic(path: Path, text: str) -> None:
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
        write_text_atomic(_ok_path(study_dir, key), json.dumps(record, indent=1))
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_failed_path(study_dir, key))
    else:
        write_text_atomic(_failed_path(study_dir, key), json.dumps(record, indent=1))


def _read_record(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def read_manifest(study_dir: Path) -> dict:
    path = study_dir / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(f"{study_dir} is not a study folder: {MANIFEST} is missing "
                                "(start a study with `bipartite study run CONFIG.toml`).")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: the manifest is not valid JSON: {exc}") from None
    if manifest.get("format") != FORMAT_VERSION:
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
                yield {"format": FORMAT_VERSION, "key": task.key, "study": task.study,
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
        from bipartite._utils.validation import check_option

        check_option(backend, "backend", BACKENDS)
        config["execution"] = {**config["execution"], "backend": backend}
    if scheduler is not None:
        config["execution"] = {**config["execution"], "scheduler": scheduler}
    tasks = expand_tasks(config)

    manifest_path = study_dir / MANIFEST
    if manifest_path.is_file():
        old = read_manifest(study_dir)
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
        write_text_atomic(manifest_path, json.dumps(manifest, indent=1))
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
    manifest = read_manifest(study_dir)
    return run_study(manifest, study_dir, jobs=jobs, backend=backend, scheduler=scheduler,
                     progress=progress, retry_failed=retry_failed,
                     dask_cluster_kwargs=dask_cluster_kwargs)


def study_status(study_dir: str | os.PathLike) -> dict:
    """Counts of finished, failed and pending tasks of a study folder."""
    study_dir = Path(study_dir)
    manifest = read_manifest(study_dir)
    tasks = expand_tasks(manifest)
    done = sum(_ok_path(study_dir, t.key).is_file() for t in tasks)
    failed = sum((not _ok_path(study_dir, t.key).is_file())
                 and _failed_path(study_dir, t.key).is_file() for t in tasks)
    return {"name": manifest["name"], "function": manifest["function"], "tasks": len(tasks),
            "done": done, "failed": failed, "pending": len(tasks) - done - failed}


def _table_value(value: Any) -> Any:
    if isinstance(value, list | dict):
        return canonical_json(value)
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
        tasks = expand_tasks(read_manifest(study_dir))
    rows, index, failures = [], [], []
    for t in tasks:
        rec = _read_record(_ok_path(study_dir, t.key))
        status = "ok" if rec is not None else "pending"
        if rec is None:
            frec = _read_record(_failed_path(study_dir, t.key))
            if frec is not None:
                status = "failed"
                failures.append({"task": t.key, "replicate": t.replicate,
                                 "params": canonical_json(t.params), "error": frec.get("error"),
                                 "file": str(_failed_path(study_dir, t.key))})
        index.append({"task": t.key, "replicate": t.replicate, "seed": t.seed,
                      "params": canonical_json(t.params), "status": status,
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


