"""Rebuild every figure from a results folder (same as ``bipartite figures RESULTS_DIR``).

    python analysis/figures.py RESULTS_DIR [--out FIG_DIR]

RESULTS_DIR is either a ``bipartite reproduce`` folder (it holds ``reproduce.json``: the paper's
figure function redraws every figure from ``studies/*/results.parquet``) or a single
``bipartite study run`` folder (it holds ``manifest.json``: the study's own figures if it registered
some, else one mean ± s.e. plot per result column). Figures are written as PNG and PDF to FIG_DIR
(default ``RESULTS_DIR/figures``). Nothing is recomputed: only the saved results are read.
"""

from __future__ import annotations

import sys

from bipartite.cli import main

if __name__ == "__main__":
    sys.exit(main(["figures", *sys.argv[1:]]))
