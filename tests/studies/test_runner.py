"""The study runner: task keys and seeds, record segments, resume, failures, backends,
config validation."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from segment_reader import failed_records, ok_records, remove_records, segments

from bipartite import studies
from bipartite.studies import (
    ConfigError,
    binormal_auc,
    collect_results,
    expand_tasks,
    load_config,
    resolve_config,
    resume_study,
    run_study,
    task_key,
    task_seed,
)


def demo_config(**study):
    """A small grid over the demo study: 3 shifts x 2 sizes x 2 replicates = 12 tasks."""
    return {
        "study": {"function": "demo.binormal_auc", "name": "demo", "seed": 5,
                  "replicates": 2, **study},
        "params": {"prior": 0.3},
        "grid": {"shift": [0.0, 0.5, 1.0], "n": [50, 80]},
    }


def task_files(study_dir: Path) -> dict[str, bytes]:
    """The line of each finished task's record, by task key (segment_reader, the reference)."""
    return ok_records(study_dir)


# ---------------------------------------------------------------------------------------------
# Keys and seeds
# ---------------------------------------------------------------------------------------------


def test_task_seed_matches_seedsequence_reference():
    """The seed is SeedSequence(entropy=study seed, spawn_key=(replicate, 4 hash words)), first
    32-bit word of its state — recomputed here from hashlib and numpy directly."""
    import hashlib

    params = {"n": 10, "shift": 0.5}
    text = json.dumps({"function": "f", "params": params}, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).digest()
    words = [int.from_bytes(digest[4 * i:4 * i + 4], "little") for i in range(4)]
    expected = np.random.SeedSequence(123, spawn_key=(2, *words)).generate_state(1, np.uint32)[0]
    assert task_seed(123, "f", {"shift": 0.5, "n": 10}, 2) == int(expected)
    paired = np.random.SeedSequence(123, spawn_key=(2,)).generate_state(1, np.uint32)[0]
    assert task_seed(123, "f", params, 2, paired=True) == int(paired)


def test_seed_sequence_words_match_numpy():
    """The vectorised SeedSequence (expand_tasks' seeds) against numpy.random.SeedSequence, the
    reference: random entropies (one to five 32-bit words) and spawn keys of 1 to 6 words."""
    rng = np.random.default_rng(0)
    for n_entropy_words in (1, 2, 5):
        entropy = int.from_bytes(rng.bytes(4 * n_entropy_words), "little")
        for width in (1, 2, 5, 6):
            keys = rng.integers(0, 2**32, size=(40, width), dtype=np.uint64).astype(np.uint32)
            keys[0] = 0
            got = studies.seed_sequence_words(entropy, keys)
            want = [np.random.SeedSequence(entropy, spawn_key=tuple(int(v) for v in row))
                    .generate_state(1, np.uint32)[0] for row in keys]
            np.testing.assert_array_equal(got, np.array(want, dtype=np.uint32))


@pytest.mark.parametrize("paired", [False, True])
@pytest.mark.parametrize("seed, replicates", [(5, 3), (2**40 + 1, [0, 7, 2**33])])
def test_expanded_seeds_equal_task_seed(paired, seed, replicates):
    """expand_tasks computes the seeds of a grid at once; each equals task_seed (one task at a
    time), also for a study seed of two words and a replicate number of two words."""
    cfg = resolve_config({"study": {"function": "demo.binormal_auc", "seed": seed,
                                    "replicates": replicates, "paired_seeds": paired},
                          "params": {"n": 10}, "grid": {"shift": [0.0, 0.5, 1.0]}})
    tasks = expand_tasks(cfg)
    assert [t.seed for t in tasks] == [task_seed(seed, t.function, t.params, t.replicate,
                                                 paired=paired) for t in tasks]
    # keys built from the parameters' JSON once per grid point equal task_key's
    assert [t.key for t in tasks] == [task_key(t.function, t.params, t.replicate) for t in tasks]
    assert all(t.params_json == json.dumps(t.params, sort_keys=True, separators=(",", ":"))
               for t in tasks)


def test_thread_pools_are_pinned_during_a_task_and_restored():
    """Inside a task every BLAS/OpenMP pool threadpoolctl finds runs `threads` threads; after
    it, each is back to its count before (threadpoolctl's own report is the reference)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from bipartite.studies.tasks import _limited_threads

    def counts():
        return [(d["filepath"], d["num_threads"]) for d in threadpool_info()]

    with threadpool_limits(limits=2):
        before = counts()
        with _limited_threads(1):
            assert {n for _, n in counts()} <= {1}
        assert counts() == before
        with _limited_threads(2):  # already at 2: left as it is
            assert counts() == before


def test_task_key_depends_on_definition_only():
    key = task_key("f", {"a": 1, "b": 2.5}, 0)
    assert key == task_key("f", {"b": 2.5, "a": 1}, 0)
    assert len({key, task_key("g", {"a": 1, "b": 2.5}, 0), task_key("f", {"a": 2, "b": 2.5}, 0),
                task_key("f", {"a": 1, "b": 2.5}, 1)}) == 4


def test_expand_tasks_order_and_distinct_seeds():
    cfg = resolve_config(demo_config())
    tasks = expand_tasks(cfg)
    assert len(tasks) == 12
    assert [(t.params["shift"], t.params["n"], t.replicate) for t in tasks[:4]] == [
        (0.0, 50, 0), (0.0, 50, 1), (0.0, 80, 0), (0.0, 80, 1)]
    assert len({t.seed for t in tasks}) == 12
    assert all(t.params["prior"] == 0.3 for t in tasks)
    paired = expand_tasks(resolve_config(demo_config(paired_seeds=True)))
    assert {t.seed for t in paired if t.replicate == 0} == {paired[0].seed}


def test_cases_are_crossed_with_grid():
    cfg = resolve_config({"study": {"function": "demo.binormal_auc"},
                          "grid": {"shift": [0.0, 1.0]},
                          "cases": [{"n": 10}, {"n": 20, "prior": 0.2}]})
    got = [(t.params["n"], t.params.get("prior"), t.params["shift"]) for t in expand_tasks(cfg)]
    assert got == [(10, None, 0.0), (10, None, 1.0), (20, 0.2, 0.0), (20, 0.2, 1.0)]


# ---------------------------------------------------------------------------------------------
# Running, reproducibility, resume
# ---------------------------------------------------------------------------------------------


def test_run_writes_one_segment_and_tidy_results(tmp_path):
    res = run_study(demo_config(), tmp_path / "s", progress=False)
    assert res.ok and res.n_tasks == 12 and res.n_run == 12 and res.n_skipped == 0
    files = task_files(tmp_path / "s")
    assert len(files) == 12 and not list((tmp_path / "s" / "tasks").glob(".*"))  # no temp files
    assert [p.name for p in (tmp_path / "s" / "tasks").iterdir()] == ["segment-000001.jsonl"]
    df = pd.read_parquet(tmp_path / "s" / "results.parquet")
    assert list(df.columns[:5]) == ["study", "function", "task", "replicate", "seed"]
    assert len(df) == 12 and df["task"].is_unique
    csv = pd.read_csv(tmp_path / "s" / "results.csv")
    np.testing.assert_array_equal(csv["auc"].to_numpy(), df["auc"].to_numpy())
    # Each row is exactly the study function called with the recorded seed and parameters.
    for row in df.itertuples():
        direct = binormal_auc(seed=int(row.seed), n=int(row.n), shift=row.shift, prior=row.prior)
        assert direct["auc"] == row.auc
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert manifest["grid"] == {"shift": [0.0, 0.5, 1.0], "n": [50, 80]}


def test_results_bit_identical_across_jobs_and_backends(tmp_path):
    """Same numbers, bit for bit, serially, with 2 loky workers and on a dask LocalCluster."""
    serial = run_study(demo_config(), tmp_path / "serial", jobs=1, progress=False).results
    loky = run_study(demo_config(), tmp_path / "loky", jobs=2, progress=False).results
    pd.testing.assert_frame_equal(serial, loky, check_exact=True)
    assert task_files(tmp_path / "serial").keys() == task_files(tmp_path / "loky").keys()
    dask = run_study(demo_config(), tmp_path / "dask", jobs=2, backend="dask", progress=False,
                     dask_cluster_kwargs={"processes": False}).results
    pd.testing.assert_frame_equal(serial, dask, check_exact=True)


def test_dask_backend_with_scheduler_address(tmp_path):
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None) as cluster:
        res = run_study(demo_config(replicates=1), tmp_path / "d", backend="dask",
                        scheduler=cluster.scheduler_address, progress=False)
    ref = run_study(demo_config(replicates=1), tmp_path / "ref", progress=False)
    assert res.ok and res.n_run == 6
    pd.testing.assert_frame_equal(res.results, ref.results, check_exact=True)


def test_resume_reruns_only_missing_tasks(tmp_path):
    full = run_study(demo_config(), tmp_path / "s", progress=False)
    before = task_files(tmp_path / "s")
    removed = sorted(before)[:5]
    remove_records(tmp_path / "s", removed)
    kept_mtimes = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "s" / "tasks").glob("*")}
    res = resume_study(tmp_path / "s", progress=False)
    assert (res.n_skipped, res.n_run) == (7, 5)
    for name, mtime in kept_mtimes.items():  # finished tasks were not rewritten (append-only)
        assert (tmp_path / "s" / "tasks" / name).stat().st_mtime_ns == mtime
    assert [p.name for p in segments(tmp_path / "s")] == ["segment-000001.jsonl",
                                                          "segment-000002.jsonl"]
    pd.testing.assert_frame_equal(res.results, full.results, check_exact=True)
    # The records hold the same rows (timing fields aside).
    after = task_files(tmp_path / "s")
    for name in removed:
        old, new = json.loads(before[name])["record"], json.loads(after[name])["record"]
        assert old["rows"] == new["rows"] and old["seed"] == new["seed"]
    # Running the same config into the same folder continues it too.
    again = run_study(demo_config(), tmp_path / "s", progress=False)
    assert (again.n_skipped, again.n_run) == (12, 0)


@studies.register_study("test.unchecked_binormal")
def _unchecked_binormal(*, seed: int, n: int, shift: float = 1.0, prior: float = 0.5) -> dict:
    """The demo study without its declared constraints (n = 0 fails inside the task)."""
    return binormal_auc(seed=seed, n=n, shift=shift, prior=prior)


def test_failed_tasks_are_recorded_and_the_rest_continue(tmp_path):
    cfg = demo_config(function="test.unchecked_binormal")
    cfg["grid"]["n"] = [0, 50]  # n = 0: the AUC input is empty -> ValueError inside the task
    res = run_study(cfg, tmp_path / "s", progress=False)
    assert not res.ok and len(res.failures) == 6 and len(res.results) == 6
    failed = failed_records(tmp_path / "s")
    assert len(failed) == 6
    rec = failed[sorted(failed)[0]]
    assert rec["status"] == "failed" and rec["params"]["n"] == 0
    assert "ValueError" in rec["error"] and "Traceback" in rec["traceback"]
    assert "binormal_auc" in rec["traceback"]
    fails = pd.read_csv(tmp_path / "s" / "failures.csv")
    assert len(fails) == 6 and fails["error"].str.contains("must not be empty").all()
    index = pd.read_csv(tmp_path / "s" / "task_index.csv")
    assert (index["status"] == "failed").sum() == 6 and (index["status"] == "ok").sum() == 6
    # resume retries the failures (deterministic: they fail again); --skip-failed keeps them.
    again = resume_study(tmp_path / "s", progress=False)
    assert (again.n_run, len(again.failures)) == (6, 6)
    kept = resume_study(tmp_path / "s", progress=False, retry_failed=False)
    assert (kept.n_run, len(kept.failures)) == (0, 6)
    assert studies.study_status(tmp_path / "s") == {
        "name": "demo", "function": "test.unchecked_binormal", "tasks": 12, "done": 6,
        "failed": 6, "corrupt": 0, "pending": 0, "legacy": 0, "complete": True, "missing": [],
        "unreadable": 0, "running_pid": None}


def test_bad_rows_become_failures(tmp_path, monkeypatch):
    """Rows must be dicts of scalars and must not contradict the task's parameters."""

    @studies.register_study("test.bad_rows")
    def bad(*, seed: int, kind: str):
        if kind == "array":
            return {"x": np.zeros((3, 3))}
        if kind == "conflict":
            return {"kind": "other"}
        return "text"

    try:
        res = run_study({"study": {"function": "test.bad_rows"},
                         "grid": {"kind": ["array", "conflict", "text"]}},
                        tmp_path / "s", progress=False)
    finally:
        del studies.STUDIES["test.bad_rows"]
    errors = sorted(f["error"] for f in res.failures)
    assert len(errors) == 3
    assert "result values must be scalars" in errors[0]
    assert "returned str" in errors[1]
    assert "contradicts the task parameter kind" in errors[2]


def test_module_function_reference(tmp_path, monkeypatch):
    """A config may name any importable function as 'module:function'."""
    (tmp_path / "mystudy_mod.py").write_text(
        "def f(*, seed: int, x: float):\n    return [{'y': x * 2}, {'y': seed % 7}]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    res = run_study({"study": {"function": "mystudy_mod:f", "name": "mine"},
                     "grid": {"x": [1.0, 2.0]}}, tmp_path / "s", progress=False)
    assert res.ok and res.results["y"].tolist()[::2] == [2.0, 4.0]
    assert res.results["seed"].iloc[1] % 7 == res.results["y"].iloc[1]


def test_other_study_in_folder_is_refused(tmp_path):
    run_study(demo_config(replicates=1), tmp_path / "s", progress=False)
    with pytest.raises(ConfigError, match="already holds a different study"):
        run_study(demo_config(replicates=3), tmp_path / "s", progress=False)
    with pytest.raises(FileNotFoundError, match="manifest.json is missing"):
        resume_study(tmp_path / "nothing")


def test_collect_results_tolerates_missing_tasks(tmp_path):
    run_study(demo_config(replicates=1), tmp_path / "s", progress=False)
    remove_records(tmp_path / "s", sorted(task_files(tmp_path / "s"))[:1])
    df = collect_results(tmp_path / "s")
    assert len(df) == 5
    index = pd.read_csv(tmp_path / "s" / "task_index.csv")
    assert (index["status"] == "pending").sum() == 1


# ---------------------------------------------------------------------------------------------
# Config validation: clear errors naming the file and the key
# ---------------------------------------------------------------------------------------------


def write(tmp_path, text: str) -> Path:
    path = tmp_path / "cfg.toml"
    path.write_text(text)
    return path


GOOD = """
[study]
function = "demo.binormal_auc"
seed = 1
replicates = 2
[params]
prior = 0.4
[grid]
n = [20, 40]
"""


@pytest.mark.parametrize("text, pattern", [
    (GOOD.replace('"demo.binormal_auc"', '"nope"'),
     r"\[study\] key 'function': unknown study function 'nope'"),
    (GOOD.replace('function = "demo.binormal_auc"\n', ""), r"missing key 'function' in \[study\]"),
    (GOOD.replace("n = [20, 40]", "shift = [1.0]"), r"missing key 'n'"),
    (GOOD.replace("prior = 0.4", 'prior = "high"'),
     r"\[params\] key 'prior' must be of type float, got 'high' \(str\)"),
    (GOOD.replace("n = [20, 40]", "n = [20, 4.5]"),
     r"\[grid\] key 'n' \(value #1\) must be of type int, got 4.5"),
    (GOOD.replace("n = [20, 40]", "n = 20"), r"\[grid\] key 'n' must be a non-empty list"),
    (GOOD.replace("replicates = 2", 'replicates = "two"'),
     r"\[study\] key 'replicates' must be an integer or a list"),
    (GOOD.replace("seed = 1", "seed = -1"), r"\[study\] key 'seed' must be a non-negative"),
    (GOOD.replace("prior = 0.4", "prior = 0.4\nbogus = 1"),
     r"\[params\] key 'bogus': study function 'demo.binormal_auc' has no parameter 'bogus'"),
    (GOOD + "[extra]\nx = 1\n", r"unknown section \[extra\]"),
    (GOOD + "[execution]\nbackend = 'ray'\n", r"\[execution\] key 'backend' must be one of"),
    (GOOD + "[execution]\njobs = 0\n", r"\[execution\] key 'jobs' must be an integer >= 1"),
    (GOOD.replace("prior = 0.4", "prior = 0.4\nn = 5"), r"key 'n' is set in both"),
    (GOOD.replace("prior = 0.4", "seed = 3"), r"'seed' is set by the runner"),
    (GOOD.replace("prior = 0.4", "prior = = 0.4"), r"invalid TOML: .*line 7, column"),
])
def test_malformed_configs_name_file_and_key(tmp_path, text, pattern):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=pattern) as info:
        load_config(path)
    assert str(path.resolve()) in str(info.value) or str(path) in str(info.value)


def test_good_config_and_missing_file(tmp_path):
    cfg = load_config(write(tmp_path, GOOD))
    assert cfg["name"] == "demo.binormal_auc" and cfg["replicates"] == [0, 1]
    assert len(expand_tasks(cfg)) == 4
    with pytest.raises(ConfigError, match="cannot read the config file"):
        load_config(tmp_path / "absent.toml")


def test_example_configs_are_valid():
    """Every example config shipped with the package resolves against the registered studies,
    and simulations/*.toml in the checkout are links to exactly those files."""
    from bipartite.experiments import example_configs

    configs = example_configs()
    assert configs, "the package must ship example configs"
    for path in configs:
        cfg = load_config(path)
        assert expand_tasks(cfg)
    folder = Path(__file__).resolve().parents[2] / "simulations"
    linked = sorted(p.resolve() for p in folder.glob("*.toml"))
    assert linked == [p.resolve() for p in configs]


def test_binormal_auc_error_is_small_on_average():
    """Reference: the binormal AUC Φ(δ/√2) (Hanley & McNeil); 40 replicates average within
    3 standard errors of it."""
    errs = [binormal_auc(seed=s, n=400, shift=0.8)["error"] for s in range(40)]
    se = np.std(errs) / math.sqrt(len(errs))
    assert abs(np.mean(errs)) < 3 * se + 1e-3


def test_no_temp_files_left_after_atomic_write(tmp_path):
    studies.write_text_atomic(tmp_path / "a" / "x.json", "{}")
    assert os.listdir(tmp_path / "a") == ["x.json"]


@pytest.mark.parametrize("text_dtype", ["object", "str"])
def test_figures_and_tables_of_a_study_with_text_columns(tmp_path, monkeypatch, text_dtype):
    """The pattern simulations/README.md teaches, a study that returns ``{"method": ...}`` rows,
    gives figures and a summary table whether pandas reads text as object (pandas 2) or as
    ``StringDtype`` (pandas 3; np.issubdtype cannot read it and used to crash)."""
    import pandas as pd

    from bipartite.studies.report import generic_figures, study_summary_table

    (tmp_path / "textstudy_mod.py").write_text(
        "def f(*, seed: int, x: float):\n"
        "    return [{'method': 'a', 'y': x + seed % 3}, {'method': 'b', 'y': 2 * x}]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    res = run_study({"study": {"function": "textstudy_mod:f", "name": "txt", "replicates": 2},
                     "grid": {"x": [1.0, 2.0, 3.0]}}, tmp_path / "s", progress=False)
    assert res.ok
    real_read = studies.report.read_results

    def read_as(study_dir):
        df = real_read(study_dir)
        return df.astype({"method": "object" if text_dtype == "object" else pd.StringDtype()})

    monkeypatch.setattr(studies.report, "read_results", read_as)
    assert not pd.api.types.is_numeric_dtype(read_as(tmp_path / "s")["method"])
    paths = generic_figures(tmp_path / "s", tmp_path / "figs")
    assert sorted(p.name for p in paths) == ["txt_y.pdf", "txt_y.png"]
    table = study_summary_table(tmp_path / "s")
    assert list(table["method"]) == ["a", "b", "a", "b", "a", "b"]
    df = res.results
    expect = df.groupby(["x", "method"])["y"].mean().to_numpy()
    np.testing.assert_allclose(table["y_mean"].to_numpy(), expect, rtol=1e-12)
