"""The study runner's overhead per task, against bare joblib and bare dask, side by side.

One trivial function (:func:`trivial`, about 10 µs of work) over N tasks, run in one process,
interleaved (A B C ... A B C ...), medians of ``--repeats``:

* **loky, 2 workers**: ``run_study(..., jobs=2)`` (the Python API; the pool is started by each
  run, "cold", as ``bipartite study run --jobs 2`` does, and kept between runs with
  ``reuse_workers()``, "warm") against ``joblib.Parallel(n_jobs=2, backend="loky")`` (its
  auto-batching, its reusable pool: warm after the first call);
* **dask, 2 local workers**: ``run_study(..., backend="dask", scheduler=ADDRESS)`` against bare
  ``client.map`` + ``client.gather`` on the same ``LocalCluster(n_workers=2,
  threads_per_worker=1)``;
* **in-process**: ``run_study(..., jobs=1)`` against a plain loop over the function.

The dask rows also give the runner's cost per run (a study of 10 tasks: connecting a client,
the manifest, the lock, the tables), and the runner's time less that cost.

The overhead per task is ``(wall − work) / N`` with ``work`` the plain loop's time divided by
the number of workers; the ratios are of wall times. Then the folder of a study of
``--resume-n`` (default 10⁵) finished tasks: the time of ``resume_study`` on it (nothing left to
run: every record is read and checked, the completeness proved; the tables, current, are not
written again), the same with the tables written again (their stamp removed before each
resume), the time of ``study_status`` (wall and CPU time of this process: on a loaded machine the
CPU time is the work done), and the number of files in the folder.

Targets (issue 27): loky ``--jobs 2`` within 2× of bare joblib or ≤ 1 ms per task; dask with 2
local workers within 2× of bare ``client.map``; resume of 10⁵ finished tasks under 5 s; a
10⁵-task study leaves at most a few dozen files.

    python benchmarks/bench_runner.py                    # N = 2000, resume 1e5
    python benchmarks/bench_runner.py --n 500 --resume-n 1e4 --repeats 3
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def trivial(*, seed: int, x: int) -> dict:
    """About 10 µs of pure-Python work (one result row)."""
    total = seed % 7
    for i in range(300):
        total += (i * x) % 13
    return {"y": total}


def trivial_at(i: int) -> dict:
    """:func:`trivial` for task ``i`` (positional, for ``client.map``)."""
    return trivial(seed=i, x=i)


#: Tasks of the run that measures the runner's cost per run (not per task).
SMALL = 10


def study(n: int, name: str = "bench") -> dict:
    return {"study": {"function": "bench_runner:trivial", "name": name, "seed": 1,
                      "replicates": 1}, "grid": {"x": list(range(n))}}


def median_times(fns: dict, repeats: int) -> dict:
    """Median wall time of each function, the functions called in turn ``repeats`` times."""
    times: dict = {k: [] for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return {k: float(np.median(v)) for k, v in times.items()}


def count_files(folder: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(folder))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=2000, help="tasks per timed run")
    ap.add_argument("--resume-n", type=float, default=1e5, help="tasks of the resumed study")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--skip-loky", action="store_true", help="no loky / in-process rows")
    ap.add_argument("--skip-resume", action="store_true", help="no resume / file-count table")
    args = ap.parse_args()
    n, n_resume = int(args.n), int(args.resume_n)

    from joblib import Parallel, delayed

    from bipartite.studies import resume_study, run_study, study_status
    from bipartite.studies.execution import reuse_workers

    module = importlib.import_module("bench_runner")  # its functions go by reference
    fn, fn_at = module.trivial, module.trivial_at
    root = Path(tempfile.mkdtemp(prefix="bench_runner-"))
    counter = iter(range(10**9))

    def fresh() -> Path:
        return root / f"s{next(counter)}"

    def runner(size=None, **kw):
        size = n if size is None else size

        def go():
            out = fresh()
            res = run_study(study(size), out, progress=False, **kw)
            assert res.ok and res.n_run == size
            shutil.rmtree(out)
        return go

    def plain():
        for i in range(n):
            fn(seed=i, x=i)

    def bare_joblib():
        Parallel(n_jobs=2, backend="loky")(delayed(fn)(seed=i, x=i) for i in range(n))

    load = os.getloadavg()
    print(f"# Study runner overhead (N = {n} tasks of ~10 µs, {args.repeats} interleaved "
          f"repeats, medians)\n")
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{os.cpu_count()} CPUs\n")
    rows = []
    work = median_times({"plain": plain}, args.repeats)["plain"]
    if not args.skip_loky:
        rows += loky_rows(args, n, plain, bare_joblib, runner, reuse_workers)
    rows.insert(0, ("plain loop (work only)", work, None, None, "—"))
    _dask_and_print(args, n, work, rows, fn_at, runner)
    if not args.skip_resume:
        _resume_table(n_resume, args.repeats, root, resume_study, run_study, study_status)
    load = os.getloadavg()
    print(f"\nload average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    shutil.rmtree(root, ignore_errors=True)


def loky_rows(args, n, plain, bare_joblib, runner, reuse_workers) -> list:
    from joblib.externals.loky import get_reusable_executor

    def bare_joblib_cold():
        """Bare joblib with a pool started for the call and stopped after it (as in a fresh
        process, and as ``bipartite study run --jobs 2`` does)."""
        bare_joblib()
        get_reusable_executor().shutdown(wait=True)
    bare_joblib()  # joblib's pool, warm as in any session
    with reuse_workers():
        runner(jobs=2)()  # the kept pool: warm
        t = median_times({"plain": plain, "joblib": bare_joblib,
                          "runner_warm": runner(jobs=2), "inprocess": runner(jobs=1)},
                         args.repeats)
    t.update(median_times({"runner_cold": runner(jobs=2), "joblib_cold": bare_joblib_cold},
                          args.repeats))
    work = t["plain"]
    over = {k: (v - work / (1 if k == "inprocess" else 2)) / n * 1e3 for k, v in t.items()}
    return [("bare joblib, loky n_jobs=2 (its pool warm)", t["joblib"], over["joblib"], 1.0, "—"),
             ("run_study jobs=2, pool kept (reuse_workers)", t["runner_warm"],
              over["runner_warm"], t["runner_warm"] / t["joblib"],
              "≤ 2× joblib or ≤ 1 ms/task"),
             ("bare joblib, its pool started and stopped per call", t["joblib_cold"],
              over["joblib_cold"], 1.0, "—"),
             ("run_study jobs=2, pool started per run (CLI)", t["runner_cold"],
              over["runner_cold"], t["runner_cold"] / t["joblib"],
              "≤ 2× joblib or ≤ 1 ms/task"),
             ("  the same, ratio to joblib's pool started per call", t["runner_cold"],
              over["runner_cold"], t["runner_cold"] / t["joblib_cold"], "—"),
             ("run_study jobs=1 (in-process)", t["inprocess"], over["inprocess"],
              t["inprocess"] / t["plain"], "(vs the plain loop)")]


def _dask_and_print(args, n, work, rows, fn_at, runner) -> None:
    if not args.skip_dask:
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            def bare_dask():
                futures = client.map(fn_at, range(n), pure=False)
                client.gather(futures)
                del futures

            address = cluster.scheduler_address
            bare_dask()
            runner(backend="dask", scheduler=address)()
            td = median_times({"dask": bare_dask,
                               "runner_dask": runner(backend="dask", scheduler=address),
                               "runner_fixed": runner(SMALL, backend="dask",
                                                      scheduler=address)}, args.repeats)
        fixed = td["runner_fixed"]
        rows += [("bare dask client.map, LocalCluster 2 workers", td["dask"],
                  (td["dask"] - work / 2) / n * 1e3, 1.0, "—"),
                 ("run_study backend=dask, same cluster", td["runner_dask"],
                  (td["runner_dask"] - work / 2) / n * 1e3, td["runner_dask"] / td["dask"],
                  "≤ 2× client.map"),
                 (f"  its cost per run ({SMALL} tasks: connect, manifest, tables)", fixed,
                  None, None, "—"),
                 ("  run_study backend=dask less that cost", td["runner_dask"] - fixed,
                  (td["runner_dask"] - fixed - work / 2) / n * 1e3,
                  (td["runner_dask"] - fixed) / td["dask"], "≤ 2× client.map")]

    print("| mode | wall (s) | overhead per task (ms) | ratio to its baseline | target |")
    print("|---|---|---|---|---|")
    for name, wall, ms, ratio, target in rows:
        print(f"| {name} | {wall:.3f} | {'—' if ms is None else f'{ms:.3f}'} | "
              f"{'—' if ratio is None else f'{ratio:.2f}×'} | {target} |")



def _resume_table(n_resume, repeats, root, resume_study, run_study, study_status) -> None:
    """A study of ``n_resume`` finished tasks: resume time, status time, files."""
    out = root / "big"
    t0 = time.perf_counter()
    res = run_study(study(n_resume, "big"), out, progress=False)
    t_run = time.perf_counter() - t0
    assert res.ok and res.n_run == n_resume
    n_files = count_files(out)
    cpu = {"resume": [], "status": []}

    def timed_cpu(name, fn):
        def go():
            c0 = time.process_time()
            fn()
            cpu[name].append(time.process_time() - c0)
        return go

    t_resume = median_times({"resume": timed_cpu(
        "resume", lambda: resume_study(out, progress=False))}, repeats)["resume"]
    cpu["rewrite"] = []

    def rewrite():
        (out / ".tables-stamp.json").unlink()
        resume_study(out, progress=False)
    t_rewrite = median_times({"rewrite": timed_cpu("rewrite", rewrite)}, repeats)["rewrite"]
    c_rewrite = float(np.median(cpu["rewrite"]))
    t_status = median_times({"status": timed_cpu("status", lambda: study_status(out))},
                            repeats)["status"]
    c_resume, c_status = (float(np.median(cpu[k])) for k in ("resume", "status"))
    again = resume_study(out, progress=False)
    assert again.n_run == 0 and again.n_skipped == n_resume
    print(f"\n## A study of {n_resume:,} tasks (in-process)\n")
    print("| quantity | value | target |")
    print("|---|---|---|")
    print(f"| run, in-process | {t_run:.2f} s ({t_run / n_resume * 1e3:.3f} ms/task) | — |")
    print(f"| resume with every task finished | {t_resume:.2f} s wall, {c_resume:.2f} s CPU "
          f"| < 5 s |")
    print(f"| resume, the tables written again | {t_rewrite:.2f} s wall, {c_rewrite:.2f} s CPU "
          f"| — |")
    print(f"| study status | {t_status:.2f} s wall, {c_status:.2f} s CPU | — |")
    print(f"| files in the study folder | {n_files} "
          f"({', '.join(sorted(p.name for p in (out / 'tasks').iterdir()))} in tasks/; "
          f"{', '.join(sorted(p.name for p in out.iterdir() if p.is_file()))}) "
          f"| a few dozen |")


if __name__ == "__main__":
    main()
