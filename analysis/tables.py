"""Rebuild the tables of a results folder (same as ``bipartite tables RESULTS_DIR``).

    python analysis/tables.py RESULTS_DIR [--out TABLE_DIR]

A ``bipartite reproduce`` folder gets its paper's key-number tables (``tables/*.csv``) and
``summary.md`` rewritten, printed as Markdown; a single ``bipartite study run`` folder gets
``<name>_summary.csv`` (mean, standard error and count of every numeric result per grid point),
printed as a Markdown table. Nothing is recomputed: only the saved results are read.
"""

from __future__ import annotations

import sys

from bipartite.cli import main

if __name__ == "__main__":
    sys.exit(main(["tables", *sys.argv[1:]]))
