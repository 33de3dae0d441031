"""The ``bipartite`` command line: help texts, study run / resume (including after kill -9),
configuration errors, the frontier and dictatorship commands, and ``reproduce``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bipartite.cli import build_parser, main
from bipartite.studies import run_study

REPO = Path(__file__).resolve().parents[1]


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "bipartite", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=REPO)


# ---------------------------------------------------------------------------------------------
# Help
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, words", [
    ([], ["reproduce", "study", "frontier", "dictatorship"]),
    (["reproduce"], ["--full", "--quick", "--out", "--banking", "--letor", "--jobs", "--paper",
                     "la25"]),
    (["study"], ["run", "resume", "status", "list"]),
    (["study", "run"], ["CONFIG.toml", "--out", "--jobs", "--backend", "--scheduler"]),
    (["study", "resume"], ["DIR", "--skip-failed"]),
    (["frontier"], ["PROBLEM", "label_probs", "eta", "supported"]),
    (["dictatorship"], ["PROBLEM", "--a", "effective weights", "dictator"]),
])
def test_every_command_has_help(argv, words, capsys):
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for word in words:
        assert word in out, (argv, word)


def test_reproduce_help_quotes_the_readme_times(capsys):
    """The --quick and --full times in ``reproduce --help`` are the README's measured ones."""
    import re

    readme = " ".join((REPO / "README.md").read_text().split())
    quick = re.search(r"no external data needed; (\d+ s) on 2 idle cores", readme).group(1)
    full = re.search(r"(\d+) min (\d+) s for LA25 on 2 cores", readme).groups()
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"LA25: {quick} on 2 idle cores" in out and "a few minutes" not in out
    assert f"about {round(int(full[0]) + int(full[1]) / 60)} min on 2 idle cores" in out


def test_reproduce_defaults_to_the_quick_main_job_on_every_core():
    """The README's first command: quick sizes, every usable core; --full is one flag away."""
    import os

    args = build_parser().parse_args(["reproduce"])
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert args.jobs == cores and not args.full and not args.smoke
    assert build_parser().parse_args(["reproduce", "--full"]).full
    with pytest.raises(SystemExit):
        build_parser().parse_args(["reproduce", "--full", "--quick"])


def test_python_dash_m_entry_point():
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("bipartite ")


def test_parser_rejects_bad_jobs(capsys):
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["study", "run", "x.toml", "--jobs", "0"])
    assert info.value.code == 2
    assert "expected a positive integer" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# study run / resume / status
# ---------------------------------------------------------------------------------------------

CONFIG = """
[study]
name = "cli-demo"
function = "demo.binormal_auc"
seed = 3
replicates = 2
[grid]
shift = [0.0, 1.0]
n = [30, 60]
"""


def test_study_run_status_list(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text(CONFIG)
    assert main(["study", "run", str(cfg), "--out", str(tmp_path / "o"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "8 tasks (0 already done, 8 run), 8 result rows, 0 failed" in out
    assert len(pd.read_parquet(tmp_path / "o" / "results.parquet")) == 8
    assert main(["study", "status", str(tmp_path / "o")]) == 0
    assert json.loads(capsys.readouterr().out)["done"] == 8
    assert main(["study", "list"]) == 0
    assert "demo.binormal_auc" in capsys.readouterr().out


def test_study_errors_exit_2_with_file_and_key(tmp_path, capsys):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(CONFIG.replace('"demo.binormal_auc"', '"no.such.study"'))
    assert main(["study", "run", str(cfg), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert str(cfg.resolve()) in err and "unknown study function 'no.such.study'" in err
    cfg.write_text(CONFIG.replace("seed = 3", "seed = 3\nreplicates_typo = 1"))
    assert main(["study", "run", str(cfg)]) == 2
    assert "unknown key 'replicates_typo' in [study]" in capsys.readouterr().err
    assert main(["study", "resume", str(tmp_path / "missing")]) == 2
    assert "manifest.json is missing" in capsys.readouterr().err


def test_ctrl_c_names_the_folder_that_keeps_the_work(tmp_path, capsys, monkeypatch):
    """Ctrl-C (exit 130) and SIGTERM (143) say where the finished tasks are and how to go on,
    with the real folder: --out, the default results/<study name>, resume's DIR, reproduce's
    --out (no literal ``DIR``)."""
    import bipartite.experiments
    from bipartite import studies

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(studies, "run_study", interrupted)
    monkeypatch.setattr(studies, "resume_study", interrupted)
    cfg = tmp_path / "c.toml"
    cfg.write_text(CONFIG)
    out = tmp_path / "o"
    assert main(["study", "run", str(cfg), "--out", str(out)]) == 130
    assert f"saved in {out} (`bipartite study resume {out}` continues)" in capsys.readouterr().err
    assert main(["study", "run", str(cfg)]) == 130
    default = Path("results") / "cli-demo"
    assert f"`bipartite study resume {default}`" in capsys.readouterr().err
    assert main(["study", "resume", str(out)]) == 130
    assert f"`bipartite study resume {out}`" in capsys.readouterr().err

    class Paper:
        def run(self, *args, **kwargs):
            raise studies.StudyTerminated("terminated by SIGTERM; finished tasks are saved")

    monkeypatch.setattr(bipartite.experiments, "get_paper", lambda name: Paper())
    assert main(["reproduce", "--smoke", "--out", str(out)]) == 143
    err = capsys.readouterr().err
    assert f"saved under {out} (rerun the same command to continue)" in err
    assert "DIR" not in err


def test_study_with_failures_exits_1(tmp_path, capsys, monkeypatch):
    # a study whose tasks fail inside (demo.binormal_auc's declared constraints refuse n = 0
    # before any task runs)
    (tmp_path / "fragile_study.py").write_text(
        "def work(*, seed: int, n: int, shift: float = 0.0):\n"
        "    if n == 0:\n"
        "        raise ValueError('n must be positive')\n"
        "    return {'y': n + shift}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    cfg = tmp_path / "c.toml"
    cfg.write_text(CONFIG.replace("n = [30, 60]", "n = [0, 60]").replace(
        '"demo.binormal_auc"', '"fragile_study:work"'))
    assert main(["study", "run", str(cfg), "--out", str(tmp_path / "o"), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "FAILED" in err and "failures.csv" in err


def test_kill_9_then_resume_loses_and_duplicates_nothing(tmp_path):
    """SIGKILL a running study after some tasks finished; `study resume DIR` (config file
    deleted: the manifest suffices) completes it. Finished records are kept as they were, every
    task has exactly one record, and the results equal an uninterrupted run bit for bit. Tasks
    of 10⁶ rows (tens of ms each): records are flushed every 0.1 s, and on a quiet machine 20
    tasks of 1.5·10⁵ rows all finished within the first flush, before the kill could land."""
    cfg = tmp_path / "kill.toml"
    cfg.write_text("""
[study]
name = "killme"
function = "demo.binormal_auc"
seed = 99
replicates = 4
[grid]
shift = [0.0, 0.5, 1.0, 1.5, 2.0]
n = [1000000]
""")
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "bipartite", "study", "run", str(cfg),
                             "--out", str(out), "--jobs", "1", "--no-progress"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tasks = out / "tasks"

    def records() -> dict[str, tuple[str, bytes]]:
        """(status, line) of each task's first record in the segments (whole lines only)."""
        found: dict[str, tuple[str, bytes]] = {}
        for seg in sorted(tasks.glob("segment-*.jsonl")):
            data = seg.read_bytes()
            for line in data[:data.rfind(b"\n") + 1].splitlines():
                rec = json.loads(line)["record"]
                found.setdefault(rec["key"], (rec["status"], line))
        return found

    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline:
            if tasks.is_dir() and len(records()) >= 3:
                break
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    finished = records()
    assert 3 <= len(finished) < 20, "the kill must land while tasks remain"
    assert not (out / "results.parquet").exists()
    cfg.unlink()

    proc = run_cli("study", "resume", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert f"20 tasks ({len(finished)} already done, {20 - len(finished)} run)" in proc.stdout
    after = records()
    assert all(after[key] == rec for key, rec in finished.items())  # finished records kept
    assert len(after) == 20 and {status for status, _ in after.values()} == {"ok"}

    cfg.write_text((out / "manifest.json").read_text())  # same config, uninterrupted
    manifest = json.loads(cfg.read_text())
    ref = run_study(manifest, tmp_path / "ref", progress=False).results
    got = pd.read_parquet(out / "results.parquet")
    pd.testing.assert_frame_equal(got, ref, check_exact=True)
    assert got["task"].is_unique and len(got) == 20


# ---------------------------------------------------------------------------------------------
# frontier / dictatorship
# ---------------------------------------------------------------------------------------------

ETA = [[0.9, 0.1], [0.6, 0.7], [0.2, 0.8], [0.1, 0.3]]
MASS = [0.1, 0.2, 0.3, 0.4]


def brute_pareto(mass, eta):
    """Every weak order of the 4 points (enumeration), population AUCs written out (docs/theory.md §2,
    self-pairs included), then the non-dominated AUC vectors."""
    from bipartite.population import enumerate_weak_orders

    p, E = np.asarray(mass), np.asarray(eta)
    vecs = []
    for f in enumerate_weak_orders(len(p)):
        S = (f[:, None] > f[None, :]) + 0.5 * (f[:, None] == f[None, :])
        vec = []
        for k in range(E.shape[1]):
            pik = p @ E[:, k]
            vec.append(np.sum(np.outer(p * E[:, k], p * (1 - E[:, k])) * S) / (pik * (1 - pik)))
        vecs.append(vec)
    V = np.unique(np.round(vecs, 12), axis=0)
    keep = [not any(np.all(w >= v) and np.any(w > v) for w in V) for v in V]
    return V[np.array(keep)]


def test_frontier_command_json_and_npz(tmp_path, capsys):
    src = tmp_path / "p.json"
    src.write_text(json.dumps({"mass": MASS, "eta": ETA}))
    assert main(["frontier", str(src), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    pts = np.array([[r["AUC_1"], r["AUC_2"]] for r in rows if r["point"].startswith("frontier")])
    ref = brute_pareto(MASS, ETA)
    np.testing.assert_allclose(pts[np.lexsort(pts.T[::-1])], ref[np.lexsort(ref.T[::-1])],
                               atol=1e-9)
    assert [r["pareto_optimal"] for r in rows[-2:]] == [True, True]
    # The same problem as NPZ with the joint (independent labels given x), printed as a table.
    from bipartite.population import independent_joint

    npz = tmp_path / "p.npz"
    np.savez(npz, mass=np.array(MASS), label_probs=independent_joint(np.array(ETA)))
    assert main(["frontier", str(npz)]) == 0
    out = capsys.readouterr().out
    assert "n = 4 points, K = 2 labels" in out and "loss aggregation (a = 1)" in out
    assert out.count("frontier ") == len(ref)


def test_dictatorship_command(tmp_path, capsys):
    src = tmp_path / "p.json"
    src.write_text(json.dumps({"mass": MASS, "eta": ETA}))
    assert main(["dictatorship", str(src), "--a", "1,3", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    pi = np.array(MASS) @ np.array(ETA)
    alpha = np.array([1.0, 3.0]) / (pi * (1 - pi))  # docs/theory.md §4 by hand
    np.testing.assert_allclose([r["alpha"] for r in out["labels"]], alpha, rtol=1e-12)
    assert [r["dictator"] for r in out["labels"]] == [False, True]  # 3 α-units beat 1
    scores = np.array(ETA) @ alpha
    assert [r["rank_loss"] for r in out["orders"]] == list(1 + np.argsort(np.argsort(-scores)))
    assert main(["dictatorship", str(src)]) == 0
    assert "alpha_share" in capsys.readouterr().out


def test_load_problem_reads_json_and_npz_with_labels(tmp_path):
    """``bipartite.data.load_problem`` (the data layer; the CLI only calls it): JSON with ``eta``
    and NPZ with the joint give the same problem, label names default to "1".."K"."""
    from bipartite.data import load_problem
    from bipartite.population import independent_joint

    src = tmp_path / "p.json"
    src.write_text(json.dumps({"mass": MASS, "eta": ETA, "labels": ["rel", "click"]}))
    problem, names = load_problem(src, return_labels=True)
    assert names == ["rel", "click"]
    np.testing.assert_allclose(problem.eta, ETA, atol=1e-12)
    np.testing.assert_allclose(problem.pi, np.array(MASS) @ np.array(ETA), atol=1e-12)
    npz = tmp_path / "p.npz"
    np.savez(npz, mass=np.array(MASS), label_probs=independent_joint(np.array(ETA)))
    again = load_problem(npz)
    np.testing.assert_allclose(again.label_probs, problem.label_probs, atol=1e-12)
    assert load_problem(npz, return_labels=True)[1] == ["1", "2"]


def test_cli_load_problem_is_the_data_function_with_a_future_warning():
    import bipartite.cli
    from bipartite.data import load_problem

    assert "load_problem" not in bipartite.cli.__all__
    with pytest.warns(FutureWarning, match="bipartite.data.load_problem"):
        assert bipartite.cli.load_problem is load_problem
    with pytest.raises(AttributeError, match="no_such_name"):
        bipartite.cli.no_such_name  # noqa: B018 - the attribute access is the test


def test_parser_lists_every_command_in_order():
    """The top-level parser lists exactly the commands, in the order of the module docstring
    (each command's parser is added by its own function; tests/test_layering.py bounds their
    length)."""
    import argparse

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == ["reproduce", "study", "report", "figures", "tables", "frontier",
                                 "dictatorship"]


@pytest.mark.parametrize("content, message", [
    ('{"mass": [0.5, 0.5]}', "give exactly one of 'label_probs'"),
    ('{"eta": [[0.5]]}', "missing key 'mass'"),
    ('{"mass": [0.5, 0.5], "eta": [[0.5, 0.2]], "extra": 1}', "unknown key(s) ['extra']"),
    ('{"mass": [0.5, 0.6], "eta": [[0.5], [0.2]]}', "'mass' parameter must sum to 1"),
    ('{"mass": [0.5, 0.5', "invalid JSON"),
])
def test_bad_problem_files_exit_2(tmp_path, capsys, content, message):
    src = tmp_path / "bad.json"
    src.write_text(content)
    assert main(["frontier", str(src)]) == 2
    err = capsys.readouterr().err
    assert message in err and str(src) in err


# ---------------------------------------------------------------------------------------------
# reproduce and the analysis scripts
# ---------------------------------------------------------------------------------------------


def check_reproduce_folder(out: Path, studies: list[str]) -> None:
    pngs = sorted(p.stem for p in (out / "figures").glob("*.png"))
    pdfs = sorted(p.stem for p in (out / "figures").glob("*.pdf"))
    assert len(pngs) >= 6 and pngs == pdfs
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# LA25") and "| study | tasks |" in summary
    for name in studies:
        folder = out / "studies" / name
        df = pd.read_parquet(folder / "results.parquet")
        assert len(df) > 0 and (folder / "results.csv").is_file()
        assert (out / "tables" / f"la25_{name}.csv").is_file()
    meta = json.loads((out / "reproduce.json").read_text())
    assert meta["paper"] == "la25" and set(meta["studies"]) >= set(studies)
    assert all(v["failed"] == 0 for v in meta["studies"].values())


@pytest.mark.slow  # 111 s at load 2: the default suite stays near its budget
def test_reproduce_smoke_and_analysis_scripts(tmp_path):
    """`reproduce --smoke` end to end (every default study, no external data); then the
    analysis scripts rebuild the same figures and tables from the results folder alone."""
    out = tmp_path / "r"
    proc = run_cli("reproduce", "--smoke", "--out", str(out), "--no-progress", timeout=600)
    assert proc.returncode == 0, proc.stderr
    studies = ["skew", "frontier", "correlation", "weights", "learning_curve", "consistency"]
    check_reproduce_folder(out, studies)
    assert len(list((out / "figures").glob("*.png"))) >= 9
    made = sorted(p.name for p in (out / "figures").iterdir())
    figs = subprocess.run([sys.executable, str(REPO / "analysis" / "figures.py"), str(out),
                           "--out", str(tmp_path / "again")], capture_output=True, text=True,
                          timeout=300, cwd=REPO)
    assert figs.returncode == 0, figs.stderr
    assert sorted(p.name for p in (tmp_path / "again").iterdir()) == made
    tables = subprocess.run([sys.executable, str(REPO / "analysis" / "tables.py"), str(out),
                             "--out", str(tmp_path / "tables")], capture_output=True, text=True,
                            timeout=300, cwd=REPO)
    assert tables.returncode == 0, tables.stderr
    for name in studies:
        a = pd.read_csv(out / "tables" / f"la25_{name}.csv")
        b = pd.read_csv(tmp_path / "tables" / f"la25_{name}.csv")
        pd.testing.assert_frame_equal(a, b)


def test_reproduce_real_data_study(tmp_path, shared_data):
    """The real-data study runs when --banking/--letor are given (here through the paper entry
    in-process, smoke sizes): Banking and LETOR results, the trade-off figure and its table."""
    from bipartite.experiments import get_paper

    out = tmp_path / "r"
    written = get_paper("la25")(out, False, 1, smoke=True, only=["real"], progress=False,
                                banking=shared_data / "bank_personal_loan.csv",
                                letor=shared_data / "letor")
    assert out / "figures" / "la25_real.png" in written
    df = pd.read_parquet(out / "studies" / "real" / "results.parquet")
    assert set(df["dataset"]) == {"banking", "letor"}
    assert df.loc[df["dataset"] == "letor", "gauc_1"].notna().all()
    table = pd.read_csv(out / "tables" / "la25_real.csv")
    assert set(table["dataset"]) == {"banking", "letor"} and "Real data" in (
        out / "summary.md").read_text()


def test_reproduce_rejects_unknown_study(tmp_path, capsys):
    assert main(["reproduce", "--smoke", "--out", str(tmp_path), "--only", "nope"]) == 2
    assert "unknown la25 studies ['nope']" in capsys.readouterr().err


@pytest.mark.slow
def test_reproduce_quick_end_to_end(tmp_path):
    """`bipartite reproduce --quick` (the documented < 5 min run) writes every study, >= 6
    figures (PNG + PDF) and summary.md."""
    out = tmp_path / "q"
    proc = run_cli("reproduce", "--quick", "--out", str(out), "--jobs", "2", "--no-progress",
                   timeout=900)
    assert proc.returncode == 0, proc.stderr
    check_reproduce_folder(out, ["skew", "frontier", "correlation", "weights", "learning_curve",
                                 "consistency"])


def test_analysis_scripts_on_a_study_folder(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text(CONFIG)
    assert main(["study", "run", str(cfg), "--out", str(tmp_path / "s"), "--no-progress"]) == 0
    figs = subprocess.run([sys.executable, str(REPO / "analysis" / "figures.py"),
                           str(tmp_path / "s")], capture_output=True, text=True, timeout=300,
                          cwd=REPO)
    assert figs.returncode == 0, figs.stderr
    assert {p.name for p in (tmp_path / "s" / "figures").iterdir()} == {
        f"cli-demo_{c}.{e}" for c in ("auc", "auc_exact", "error") for e in ("png", "pdf")}
    tables = subprocess.run([sys.executable, str(REPO / "analysis" / "tables.py"),
                             str(tmp_path / "s")], capture_output=True, text=True, timeout=300,
                            cwd=REPO)
    assert tables.returncode == 0, tables.stderr
    table = pd.read_csv(tmp_path / "s" / "tables" / "cli-demo_summary.csv")
    res = pd.read_parquet(tmp_path / "s" / "results.parquet")
    expect = res.groupby(["shift", "n"])["auc"].mean().to_numpy()
    np.testing.assert_allclose(table["auc_mean"].to_numpy(), expect, rtol=1e-12)
    bad = subprocess.run([sys.executable, str(REPO / "analysis" / "figures.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert bad.returncode == 2 and "is this a results folder" in bad.stderr


# ------------------------------------------------------------------------------------------------
# CLI papercuts and bad files (issues "diagnose your own ranker" and "reliability")
# ------------------------------------------------------------------------------------------------
def _strict_loads(text: str):
    def refuse(constant):
        raise ValueError(f"non-strict JSON constant {constant}")

    return json.loads(text, parse_constant=refuse)


def test_label_names_and_strict_json(tmp_path, capsys):
    src = tmp_path / "p.json"
    src.write_text(json.dumps({"mass": MASS, "eta": ETA, "labels": ["click", "rel"]}))
    assert main(["frontier", str(src), "--format", "json"]) == 0
    rows = _strict_loads(capsys.readouterr().out)["rows"]
    assert {"AUC_click", "AUC_rel"} <= set(rows[0])
    # a problem where a label never dictates on one side: NaN thresholds become null + a note
    assert main(["dictatorship", str(src), "--format", "json"]) == 0
    out = _strict_loads(capsys.readouterr().out)
    assert [r["label"] for r in out["labels"]] == ["click", "rel"]
    if any(r["dictates_below_pi"] is None for r in out["labels"]):
        assert "notes" in out
    bad = tmp_path / "b.json"
    bad.write_text(json.dumps({"mass": MASS, "eta": ETA, "labels": ["x"]}))
    assert main(["frontier", str(bad)]) == 2
    assert "'labels' must be a list of 2" in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [
    (b"PK\x03\x04garbage", "cannot read the NPZ"),
    (b"\xff\xfe\x00", "not UTF-8"),
    (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
])
def test_malformed_problem_files_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / ("p.npz" if content.startswith(b"PK") else "p.json")
    path.write_bytes(content)
    assert main(["frontier", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err


def test_float_list_refuses_empty_fields(tmp_path, capsys):
    src = tmp_path / "p.json"
    src.write_text(json.dumps({"mass": MASS, "eta": ETA}))
    with pytest.raises(SystemExit) as info:
        main(["dictatorship", str(src), "--a", "1,,2"])
    assert info.value.code == 2
    assert "no empty fields" in capsys.readouterr().err


def test_frontier_limits_and_time_out_suggest_eps(tmp_path, capsys):
    from bipartite.population import FiniteProblem

    P = FiniteProblem.random(17, 2, seed=0)  # past the K = 2 subset DP's limit (16)
    src = tmp_path / "p.json"
    src.write_text(json.dumps({"mass": P.mass.tolist(), "label_probs": P.label_probs.tolist()}))
    assert main(["frontier", str(src), "--max-n", "16"]) == 2
    assert "past --max-n 16" in capsys.readouterr().err
    assert main(["frontier", str(src), "--time-limit", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "warning: n = 17 > 16" in err and "--eps" in err.split("time-limit 0.5")[-1]


def test_frontier_plot_draws_the_frontier(tmp_path, capsys):
    """``--plot FILE`` writes a non-blank PNG of the frontier; a problem it cannot draw (K = 3)
    or a suffix it cannot write is refused before the work."""
    import matplotlib.image

    src = tmp_path / "p.json"
    src.write_text(json.dumps({"mass": MASS, "eta": ETA, "labels": ["rel", "click"]}))
    png = tmp_path / "plots" / "frontier.png"
    assert main(["frontier", str(src), "--plot", str(png), "--format", "csv"]) == 0
    assert f"wrote {png}" in capsys.readouterr().err
    img = matplotlib.image.imread(png)[..., :3]
    assert img.shape[0] > 200 and img.shape[1] > 200
    ink = (img.min(axis=2) < 0.9).mean()  # share of pixels that are not (near) white
    assert 0.01 < ink < 0.5, ink
    three = tmp_path / "k3.json"
    three.write_text(json.dumps({"mass": MASS, "eta": [row + [0.5] for row in ETA]}))
    assert main(["frontier", str(three), "--plot", str(tmp_path / "k3.png")]) == 2
    assert "K = 2 labels" in capsys.readouterr().err and not (tmp_path / "k3.png").exists()
    assert main(["frontier", str(src), "--plot", str(tmp_path / "f.jpg")]) == 2
    assert "--plot must end in .png, .pdf or .svg" in capsys.readouterr().err


def test_frontier_plot_takes_the_suffixes_that_figures_are_saved_under(tmp_path):
    """``--plot`` accepts exactly :data:`bipartite.plots.FIGURE_SUFFIXES` (in any case), the one
    list that :func:`bipartite.plots.save_figure` checks too."""
    from bipartite.cli._problems import _check_frontier_plot
    from bipartite.plots import FIGURE_SUFFIXES, new_figure, save_figure

    fig, _ = new_figure()
    for suffix in FIGURE_SUFFIXES:
        _check_frontier_plot(tmp_path / f"f{suffix.upper()}", 2)
        assert save_figure(fig, tmp_path / f"f{suffix}")[0].stat().st_size > 0
    for suffix in (".jpg", ".eps", ""):
        with pytest.raises(ValueError, match=r"--plot must end in \.png, \.pdf or \.svg"):
            _check_frontier_plot(tmp_path / f"f{suffix}", 2)
        with pytest.raises(ValueError, match="must end in one of"):
            save_figure(fig, tmp_path / f"f{suffix}")


def test_frontier_help_states_the_dp_limits(capsys):
    """The help's exact-method limits are the ones :func:`bipartite.pareto.dp_limit` applies."""
    from bipartite.pareto import dp_limit

    with pytest.raises(SystemExit):
        main(["frontier", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"n <= {dp_limit(2)} with K = 2 labels and n <= {dp_limit(3)} with K >= 3" in out
    assert f"the subset DP for n <= {dp_limit(2)} (K = 2)" in out


def test_defaults_are_printed_once(capsys):
    with pytest.raises(SystemExit):
        main(["study", "run", "--help"])
    out = capsys.readouterr().out
    assert out.count("default") == out.count("(default")  # every default stated once
    assert "(default: None)" not in out
    for line in out.splitlines():
        assert line.count("default") <= 1, line


def test_closed_pipe_ends_quietly(tmp_path):
    src = tmp_path / "p.json"
    src.write_text(json.dumps({"mass": MASS, "eta": ETA}))
    proc = subprocess.run(f"{sys.executable} -m bipartite frontier {src} | head -n 1",
                          shell=True, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr


def test_figures_and_tables_commands(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[study]\nfunction = "demo.binormal_auc"\nname = "d"\nreplicates = 2\n'
                   '[params]\nn = 60\n[grid]\nshift = [0.0, 1.0]\n')
    assert main(["study", "run", str(cfg), "--out", str(tmp_path / "s"), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["figures", str(tmp_path / "s")]) == 0
    assert (tmp_path / "s" / "figures" / "d_auc.png").is_file()
    assert main(["tables", str(tmp_path / "s")]) == 0
    assert "auc_mean" in capsys.readouterr().out
    assert main(["tables", str(tmp_path / "nothing")]) == 2


def test_figures_of_a_custom_study_are_labelled_with_a_readable_legend(tmp_path, capsys):
    """``bipartite figures`` on a study with 2 x 6 x 3 grid points: 18 lines against n would
    crowd one legend over the axes; the figure splits them into panels (one per shift, titled),
    3 lines each (prior), with one legend beside the panels, not over any of them; every panel
    keeps its x tick labels, and the axes name the parameter and the result."""
    from bipartite.studies import read_manifest, read_results
    from bipartite.studies.report import _line_figure

    cfg = tmp_path / "c.toml"
    cfg.write_text('[study]\nfunction = "demo.binormal_auc"\nname = "g"\nreplicates = 1\n'
                   '[grid]\nn = [30, 60]\nshift = [0.0, 0.25, 0.5, 1.0, 1.5, 2.0]\n'
                   'prior = [0.1, 0.3, 0.5]\n')
    assert main(["study", "run", str(cfg), "--out", str(tmp_path / "s"), "--no-progress"]) == 0
    assert main(["figures", str(tmp_path / "s")]) == 0
    assert (tmp_path / "s" / "figures" / "g_auc.png").is_file()
    assert list(read_manifest(tmp_path / "s")["grid"]) == ["n", "shift", "prior"]
    fig = _line_figure(read_results(tmp_path / "s"), "n", ["shift", "prior"], "auc")
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert sorted(ax.get_title() for ax in panels) == sorted(
        f"shift = {v}" for v in (0.0, 0.25, 0.5, 1.0, 1.5, 2.0))
    assert {ax.get_xlabel() for ax in panels} <= {"n", ""} and any(ax.get_ylabel() == "auc"
                                                                   for ax in panels)
    for ax in panels:
        assert any(t.get_text() for t in ax.get_xticklabels()), ax.get_title()
        assert not ax.get_legend()
    (legend,) = fig.legends
    assert legend.get_title().get_text() == "prior"
    assert [t.get_text() for t in legend.get_texts()] == ["0.1", "0.3", "0.5"]
    box = legend.get_window_extent()
    for ax in panels:
        assert not box.overlaps(ax.get_window_extent()), ax.get_title()
    few = _line_figure(read_results(tmp_path / "s").query("shift == 1.0"), "n", ["prior"], "auc")
    assert len(few.axes) == 1 and few.axes[0].get_legend() is not None  # 3 lines: inside


def test_study_module_found_in_the_current_directory(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_local_study.py").write_text(
        "def twice(*, seed: int, x: float = 1.0):\n    return {'y': 2 * x}\n")
    cfg = tmp_path / "c.toml"
    cfg.write_text('[study]\nfunction = "my_local_study:twice"\nname = "t"\n[grid]\n'
                   'x = [1.0, 2.0]\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert main(["study", "run", str(cfg), "--out", str(tmp_path / "o"), "--no-progress"]) == 0
    missing = tmp_path / "m.toml"
    missing.write_text('[study]\nfunction = "no_such_module_xyz:f"\nname = "m"\n[grid]\n'
                       'x = [1]\n')
    assert main(["study", "run", str(missing), "--out", str(tmp_path / "m")]) == 2
    assert "current directory or on PYTHONPATH" in capsys.readouterr().err


def test_examples_are_listed_and_runnable_by_name(tmp_path, monkeypatch, capsys):
    assert main(["study", "list", "--examples"]) == 0
    out = capsys.readouterr().out
    assert "example_quick: function demo.binormal_auc" in out
    monkeypatch.chdir(tmp_path)  # no file of that name here: the shipped example is used
    assert main(["study", "run", "example_quick", "--out", str(tmp_path / "e"),
                 "--no-progress", "--max-tasks", "1000"]) == 0
    assert (tmp_path / "e" / "results.parquet").is_file()


def test_report_command_markdown_json_and_files(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 400
    y1, y2 = rng.integers(0, 2, n), (rng.random(n) < 0.2).astype(int)
    frame = pd.DataFrame({"qid": np.repeat(np.arange(20), 20), "rel": y1, "click": y2,
                          "s1": y1 + rng.normal(size=n), "s2": y2 + rng.normal(size=n)})
    src = tmp_path / "scores.csv"
    frame.to_csv(src, index=False)
    args = ["report", str(src), "--score", "s1", "--score", "s2", "--label", "rel",
            "--label", "click", "--qid", "qid", "--n-boot", "50", "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "`rel`" in out and "`click`" in out and "Per-label AUC" in out
    assert (tmp_path / "r" / "report.json").is_file() and (tmp_path / "r" / "report.png").is_file()
    assert main([*args, "--format", "json"]) == 0
    doc = _strict_loads(capsys.readouterr().out)
    from sklearn.metrics import roc_auc_score

    row = [r for r in doc["auc"] if r["scorer"] == "s1" and r["label"] == "rel"][0]
    assert row["auc"] == pytest.approx(roc_auc_score(y1, frame["s1"]), abs=1e-12)
    assert main(["report", str(src), "--score", "nope", "--label", "rel"]) == 2
    assert "nope" in capsys.readouterr().err


def test_ctrl_c_before_the_command_starts_is_status_130(monkeypatch, capsys):
    """A Ctrl-C while the command line loads or is parsed (before the command's own handler):
    status 130 and one line naming the command, no traceback (``python -m bipartite`` and the
    console script both enter through ``bipartite.__main__.run``)."""
    import bipartite.cli
    from bipartite.__main__ import run

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(bipartite.cli, "build_parser", interrupted)
    monkeypatch.setattr("sys.argv", ["bipartite", "report", "x.csv"])
    assert run() == 130
    assert capsys.readouterr().err == "bipartite report: interrupted; nothing was written\n"
