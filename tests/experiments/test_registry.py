"""The paper registry: every paper resolves, and a paper runs on the one runner."""

from __future__ import annotations

import inspect
import json

import pytest

from bipartite import experiments


def test_every_registered_paper_resolves():
    for name in list(experiments.PAPERS):
        paper = experiments.get_paper(name)
        assert isinstance(paper, experiments.Paper) and paper.name == name
        for size in experiments.SIZES:
            configs = paper.configs(size, {})
            assert configs and all("study" in cfg for cfg in configs.values()), (name, size)
        params = inspect.signature(paper.run).parameters
        assert any(p.kind is p.VAR_KEYWORD for p in params.values()), name
    with pytest.raises(ValueError, match="The 'paper' parameter must be one of"):
        experiments.get_paper("nope")


def test_register_paper_and_lazy_reference(tmp_path, monkeypatch):
    (tmp_path / "mypaper_mod.py").write_text(
        "from bipartite.experiments import Paper\n"
        "def configs(size, options):\n"
        "    return {'demo': {'study': {'function': 'demo.binormal_auc', 'seed': 1,\n"
        "                               'replicates': 2}, 'params': {'n': 50}}}\n"
        "def figures(results_dir, fig_dir):\n"
        "    return []\n"
        "def summary(results_dir, table_dir):\n"
        "    return 'mine ' + ','.join(sorted(p.name for p in (results_dir / 'studies').iterdir()))\n"
        "PAPER = Paper('mine', configs, figures, summary)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(experiments.PAPERS, "mine", "mypaper_mod:PAPER")
    paper = experiments.get_paper("mine")
    written = paper(tmp_path / "o", quick=True, jobs=1, banking=None, progress=False)
    assert (tmp_path / "o" / "studies" / "demo" / "results.parquet") in written
    assert (tmp_path / "o" / "summary.md").read_text() == "mine demo"
    record = json.loads((tmp_path / "o" / "reproduce.json").read_text())
    assert record["paper"] == "mine" and record["size"] == "quick"
    assert record["studies"]["demo"]["tasks"] == 2
    monkeypatch.setitem(experiments.PAPERS, "broken", "mypaper_mod:configs")
    with pytest.raises(TypeError, match="must name a bipartite.experiments.Paper"):
        experiments.get_paper("broken")
