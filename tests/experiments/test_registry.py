"""The paper registry: every paper resolves, and a paper runs on the one runner."""

from __future__ import annotations

import inspect
import json

import pytest

from bipartite import experiments


def test_every_registered_paper_resolves(tmp_path):
    """Every paper resolves and configures its studies at every size; a paper whose studies all
    need real data (LR2PPO: MQ2008) configures none without it — a clone without the data folder
    — and its studies once the data is named (empty stand-in files: nothing is read here)."""
    letor = tmp_path / "letor"
    letor.mkdir()
    for k in range(1, 6):
        (letor / f"mq2008_S{k}.txt").touch()
    for name in list(experiments.PAPERS):
        paper = experiments.get_paper(name)
        assert isinstance(paper, experiments.Paper) and paper.name == name
        for size in experiments.SIZES:
            configs = paper.configs(size, {}) or paper.configs(size, {"letor": letor})
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


# The how-to of simulations/README.md ("Adding a paper to `bipartite reproduce`"), step by step, with
# a throw-away paper package written into a temporary folder.
_HOWTO_STUDIES = '''
import numpy as np
from bipartite.studies import register_study
from throwaway_paper.figures import coin_figures

@register_study("throwaway.coin", figures=coin_figures)
def coin(*, seed: int, method: str, n: int = 100) -> dict:
    rng = np.random.default_rng(seed)        # every stream from the runner's seed
    data = rng.random(n)                     # paired seeds: both methods see the same data
    noise = np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[1]).random()
    est = data.mean() if method == "mean" else float(np.median(data))
    return {"method": method, "estimate": float(est), "first": float(data[0]),
            "noise": float(noise)}
'''
_HOWTO_FIGURES = '''
from bipartite.plots import new_figure, save_figures

def coin_table(df):
    return df.groupby("method", as_index=False)["estimate"].mean()

def coin_figures(df, fig_dir):
    fig, ax = new_figure()
    t = coin_table(df)
    ax.bar(t["method"], t["estimate"])
    return save_figures(fig, fig_dir, "throwaway_coin")
'''
_HOWTO_RUN = '''
import throwaway_paper.studies  # noqa: F401  (registers the study functions)
from bipartite.experiments import Paper, provenance_lines, study_result
from bipartite.studies.config import STUDIES
from bipartite.studies.report import markdown_table, write_table
from throwaway_paper.figures import coin_table

def configs(size, options):
    return {"coin": {"study": {"function": "throwaway.coin", "seed": 901,
                               "replicates": {"smoke": 2, "quick": 3, "full": 10}[size],
                               "paired_seeds": True},
                     "params": {"n": {"smoke": 20, "quick": 200, "full": 2000}[size]},
                     "grid": {"method": ["mean", "median"]}}}

def figures(results_dir, fig_dir):
    df = study_result(results_dir, "coin")
    return [] if df is None else STUDIES["throwaway.coin"].figures(df, fig_dir)

def summary(results_dir, table_dir):
    table = coin_table(study_result(results_dir, "coin"))
    write_table(table, table_dir, "throwaway_coin", note="Mean estimate per method.")
    return "\\n".join(["# Throw-away paper", "", *provenance_lines(results_dir),
                      markdown_table(table), ""])

PAPER = Paper("throwaway", configs, figures=figures, summary=summary,
              description="the how-to's example")
'''


def test_add_a_paper_as_the_howto_says(tmp_path, monkeypatch, capsys):
    """simulations/README.md, "Adding a paper": studies / figures / run in a package on sys.path,
    registered with register_paper, run at the smoke size through the one runner; the layout,
    the one table writer, the runner's seeds and resuming hold."""
    import sys

    import pandas as pd

    from bipartite.studies.config import STUDIES

    pkg = tmp_path / "src" / "throwaway_paper"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "studies.py").write_text(_HOWTO_STUDIES)
    (pkg / "figures.py").write_text(_HOWTO_FIGURES)
    (pkg / "run.py").write_text(_HOWTO_RUN)
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.delitem(STUDIES, "throwaway.coin", raising=False)
    for mod in ("throwaway_paper", "throwaway_paper.studies", "throwaway_paper.figures",
                "throwaway_paper.run"):
        monkeypatch.delitem(sys.modules, mod, raising=False)
    import importlib

    run = importlib.import_module("throwaway_paper.run")
    monkeypatch.setitem(experiments.PAPERS, "throwaway", run.PAPER)  # restored after the test
    assert experiments.register_paper(run.PAPER) is run.PAPER
    paper = experiments.get_paper("throwaway")
    assert paper is run.PAPER and "throwaway.coin" in STUDIES

    out = tmp_path / "out"
    written = paper.run(out, smoke=True, progress=False)
    study = out / "studies" / "coin"
    assert study / "results.parquet" in written
    assert (out / "figures" / "throwaway_coin.png").is_file()
    assert (out / "tables" / "throwaway_coin.csv").is_file()
    assert (out / "tables" / "throwaway_coin.md").read_text().startswith("Mean estimate per method.")
    text = (out / "summary.md").read_text()
    assert text.startswith("# Throw-away paper") and "size **smoke**" in text
    assert "| mean |" in text and "| median |" in text
    record = json.loads((out / "reproduce.json").read_text())
    assert record["paper"] == "throwaway" and record["size"] == "smoke"
    assert record["studies"]["coin"] == {**record["studies"]["coin"], "tasks": 4, "run": 4,
                                         "failed": 0}

    df = experiments.study_result(out, "coin")
    pd.testing.assert_frame_equal(df, experiments.study_results(out, ["coin"])["coin"])
    assert experiments.study_result(out, "no_such_study") is None
    assert experiments.reproduce_record(out) == record
    assert experiments.reproduce_record(tmp_path / "nowhere") == {}
    # the runner's seeds: paired within a replicate (same data), distinct across replicates
    by_rep = df.groupby("replicate")
    assert (by_rep["seed"].nunique() == 1).all() and df["seed"].nunique() == 2
    assert (by_rep["first"].nunique() == 1).all() and df["first"].nunique() == 2
    from bipartite.studies import task_seed

    for rep, seed in by_rep["seed"].first().items():
        assert seed == task_seed(901, "throwaway.coin", {"n": 20, "method": "mean"}, int(rep),
                                 paired=True)

    # resuming: a rerun computes nothing; tables and figures rebuild from the results only
    paper.run(out, smoke=True, progress=False)
    assert json.loads((out / "reproduce.json").read_text())["studies"]["coin"]["run"] == 0
    assert "| mean |" in experiments.rebuild_tables(out)
    assert experiments.redraw_figures(out)
    pd.testing.assert_frame_equal(pd.read_csv(out / "tables" / "throwaway_coin.csv"),
                                  run.coin_table(df).reset_index(drop=True),
                                  check_dtype=False)

    # one progress bar over every study, weighted by the measured seconds per task, with the
    # a-priori estimate from the start; a resumed run fills it with the finished tasks
    import dataclasses

    timed = dataclasses.replace(paper, task_seconds={"smoke": {"coin": 30.0}})
    for folder in (tmp_path / "bar", tmp_path / "bar"):
        capsys.readouterr()
        timed.run(folder, smoke=True, progress=True)
        err = capsys.readouterr().err
        assert "estimate 2.0 min on 1 worker(s)" in err  # 4 tasks x 30 s / 1 worker
        assert "throwaway smoke: coin: 100%" in err


def test_reproduce_time_left_follows_the_measured_rate():
    """The bar's estimate starts a priori (work / workers) and, once 2 % of this run's work is
    done and 2 s have passed, is the work left over the rate measured in this run; work finished
    by an earlier run moves the bar but not the rate."""
    from bipartite.experiments.registry import _TimeLeft

    class Bar:
        total, n, postfix = 1200.0, 0.0, ""

        def update(self, work):
            self.n += work

        def set_postfix_str(self, text, refresh=True):
            self.postfix = text

    now = [0.0]
    bar = Bar()
    eta = _TimeLeft(bar, workers=2, clock=lambda: now[0])
    eta.skipped(200.0)  # an earlier run's tasks: 1000 task-s left to do here
    assert eta.text() == "estimate 8.3 min on 2 worker(s)"  # 1000 / 2 / 60
    now[0] = 1.0
    eta.done(30.0)  # 3 % done but only 1 s: still a priori
    assert bar.postfix == "estimate 8.1 min on 2 worker(s)" and bar.n == 230.0
    now[0] = 30.0  # a busy machine: 60 task-s in 30 s = 2 task-s/s, not the 2 workers' 2
    eta.done(30.0)
    left = 1200.0 - 260.0
    assert bar.postfix == f"about {left / 2.0 / 60:.1f} min left, measured (2 task-s/s)"
    now[0] = 90.0  # slower still: 90 task-s in 90 s
    eta.done(30.0)
    assert bar.postfix == f"about {(left - 30.0) / 1.0 / 60:.1f} min left, measured (1 task-s/s)"
