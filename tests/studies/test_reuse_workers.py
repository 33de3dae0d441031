"""studies.execution.reuse_workers: a paper's studies share one loky pool (workers start, and
import torch, once), a failing study still stops its own pool, and nothing outlives the block."""

from __future__ import annotations

import psutil
import pytest

from bipartite.studies import execution, run_study

MODULE = '''
import os
from bipartite.studies import register_study

@register_study("reusepool.pid")
def pid(*, seed, x=0):
    if x < 0:
        raise ValueError("negative x")
    return {"pid": os.getpid(), "x": x}
'''


@pytest.fixture
def pid_study(tmp_path, monkeypatch):
    (tmp_path / "reusepool.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    return {"study": {"function": "reusepool:pid", "name": "reuse", "seed": 1},
            "grid": {"x": [0, 1, 2, 3]}}


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE}


def test_studies_in_the_block_share_one_pool(pid_study, tmp_path):
    with execution.reuse_workers():
        a = run_study(pid_study, tmp_path / "a", jobs=2, progress=False)
        pool = _children()  # the kept pool's workers (a may have used only one of them)
        b = run_study({**pid_study, "study": {**pid_study["study"], "name": "reuse-b"}},
                      tmp_path / "b", jobs=2, progress=False)
        assert execution._KEPT_POOLS and 2 in execution._KEPT_POOLS
    assert a.ok and b.ok
    assert set(a.results["pid"]) <= pool
    assert set(b.results["pid"]) <= pool  # the same worker processes
    assert execution._KEPT_POOLS is None
    workers = set(a.results["pid"]) & _children()
    assert not psutil.wait_procs([psutil.Process(p) for p in workers], timeout=10)[1]


def test_without_the_block_each_study_has_its_own_pool(pid_study, tmp_path):
    a = run_study(pid_study, tmp_path / "a", jobs=2, progress=False)
    b = run_study({**pid_study, "study": {**pid_study["study"], "name": "reuse-b"}},
                  tmp_path / "b", jobs=2, progress=False)
    assert not set(a.results["pid"]) & set(b.results["pid"])


def test_an_interrupt_kills_the_kept_pools(pid_study, tmp_path):
    with pytest.raises(KeyboardInterrupt), execution.reuse_workers():
        res = run_study(pid_study, tmp_path / "a", jobs=2, progress=False)
        workers = set(res.results["pid"])
        assert workers <= _children()  # the kept pool's workers are alive here
        raise KeyboardInterrupt
    assert execution._KEPT_POOLS is None
    assert not psutil.wait_procs([psutil.Process(p) for p in workers & _children()],
                                 timeout=10)[1]
