"""benchmarks/run_all.py: one command runs every README benchmark in its own process and writes
what each printed, the machine load around it and the versions; a failing benchmark is reported
and makes the command exit non-zero."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests._scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "run_all.py"


@pytest.fixture
def run_all():
    try:
        yield load_script("benchmarks/run_all.py")
    finally:
        sys.modules.pop("run_all", None)


def test_every_listed_benchmark_script_exists(run_all):
    for bench in run_all.BENCHES:
        assert (SCRIPT.parent / bench.script).is_file(), bench.script


def test_tables_load_and_failures_are_recorded(run_all, tmp_path, monkeypatch, capsys):
    good = tmp_path / "good.py"
    good.write_text("import sys\nprint('| case | ratio |')\nprint('|---|---|')\n"
                    "print('| x |', ' '.join(sys.argv[1:]), '|')\n")
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nprint('partial table')\nsys.exit('boom: no kernel')\n")
    monkeypatch.setattr(run_all, "BENCHES", (
        run_all.Bench("good", str(good), ("--q",), ("--f",), "a table"),
        run_all.Bench("bad", str(bad), (), (), "a failing benchmark"),
    ))
    out = tmp_path / "out"
    rc = run_all.main(["--quick", "--out", str(out)])
    assert rc == 1
    assert "| x | --q |" in (out / "good.md").read_text()
    info = json.loads((out / "machine.json").read_text())
    assert [r["rc"] for r in info["runs"]] == [0, 1]
    assert info["versions"]["numpy"]
    assert all(len(r["load_before"]) == 3 for r in info["runs"])
    text = (out / "summary.md").read_text()
    assert "FAILED (exit 1)" in text and "boom: no kernel" in text and "| x | --q |" in text
    assert run_all.main(["--full", "--only", "good", "--out", str(out)]) == 0
    assert "| x | --f |" in (out / "good.md").read_text()
    runs = json.loads((out / "machine.json").read_text())["runs"]
    assert [r["name"] for r in runs] == ["good", "bad"]  # --only keeps the other runs
    assert "boom: no kernel" in (out / "summary.md").read_text()
    # two benchmarks rerun together keep one run each (the earlier runs were added once per
    # rerun benchmark: five copies of each after a five-benchmark --only)
    monkeypatch.setattr(run_all, "BENCHES", (
        *run_all.BENCHES, run_all.Bench("good2", str(good), ("--q2",), ("--f2",), "another"),
        run_all.Bench("kept", str(good), ("--k",), ("--k",), "kept from before")))
    assert run_all.main(["--quick", "--only", "kept", "--out", str(out)]) == 0
    assert run_all.main(["--quick", "--only", "good", "good2", "--out", str(out)]) == 0
    runs = json.loads((out / "machine.json").read_text())["runs"]
    assert [r["name"] for r in runs] == ["good", "bad", "good2", "kept"]
    assert (out / "summary.md").read_text().count("## kept:") == 1
    capsys.readouterr()


def test_bad_options_are_refused(run_all, capsys):
    with pytest.raises(SystemExit):
        run_all.main(["--quick", "--timeout", "0"])
    assert "--timeout must be > 0 seconds, got 0.0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_all.main(["--quick", "--only", "nosuch"])
    assert "invalid choice: 'nosuch'" in capsys.readouterr().err


def test_a_benchmark_past_its_time_is_stopped_with_its_children(run_all, tmp_path, monkeypatch,
                                                                 capsys):
    """--timeout stops the benchmark's whole process group (a child it started too) and records
    exit 124; the command goes on and exits 1."""
    import time

    pidfile = tmp_path / "child.pid"
    slow = tmp_path / "slow.py"
    slow.write_text("import subprocess, sys, time\n"
                    "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                    f"open({str(pidfile)!r}, 'w').write(str(c.pid))\n"
                    "print('started', flush=True)\ntime.sleep(60)\n")
    monkeypatch.setattr(run_all, "BENCHES", (run_all.Bench("slow", str(slow), (), (), "sleeps"),))
    start = time.perf_counter()
    assert run_all.main(["--quick", "--out", str(tmp_path / "o"), "--timeout", "8"]) == 1
    assert time.perf_counter() - start < 45
    info = json.loads((tmp_path / "o" / "machine.json").read_text())
    assert info["runs"][0]["rc"] == 124 and "started" in (tmp_path / "o" / "slow.md").read_text()
    import psutil

    child = int(pidfile.read_text())
    deadline = time.time() + 10
    while time.time() < deadline:  # gone, or a zombie waiting for a reaper: not running
        try:
            if psutil.Process(child).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the benchmark's child outlived the time-out")
    capsys.readouterr()
