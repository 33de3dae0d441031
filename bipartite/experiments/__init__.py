"""The source papers' reproductions, every one on the one runner (:mod:`bipartite.studies`).

One sub-package per paper — :mod:`~bipartite.experiments.la25`, :mod:`~bipartite.experiments.mtrub`,
:mod:`~bipartite.experiments.hapvr`, :mod:`~bipartite.experiments.rlsep`,
:mod:`~bipartite.experiments.lr2ppo` — has the same shape: ``studies`` (the study functions,
registered with the runner), ``figures`` (tables and figures from the results only) and ``run``
(the study sets by size, the summary, and the :class:`Paper` entry ``PAPER``); how to add one:
"Adding a paper" in ``simulations/README.md``. ``bipartite reproduce --paper X``
runs :meth:`Paper.run`, which writes the same layout for every paper: ``studies/*/results.parquet``,
``figures/``, ``tables/`` and ``summary.md``.
"""

from bipartite.experiments.registry import (
    EXAMPLES_DIR,
    PAPERS,
    SIZES,
    Paper,
    example_configs,
    get_paper,
    provenance_lines,
    rebuild_tables,
    redraw_figures,
    register_paper,
    reproduce_record,
    run_paper,
    study_result,
    study_results,
    write_reproduce_record,
)

__all__ = ["EXAMPLES_DIR", "PAPERS", "example_configs", "SIZES", "Paper", "get_paper",
           "provenance_lines", "rebuild_tables", "redraw_figures", "register_paper",
           "reproduce_record", "run_paper", "study_result", "study_results",
           "write_reproduce_record"]
