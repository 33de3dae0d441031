"""Rebuild every figure from a results folder.

    python analysis/figures.py RESULTS_DIR [--out FIG_DIR]

RESULTS_DIR is either a ``bipartite reproduce`` folder (it holds ``reproduce.json``: the paper's
figure function redraws every figure from ``studies/*/results.parquet``) or a single
``bipartite study run`` folder (it holds ``manifest.json``: the study's own figures if it registered
some, else one mean ± s.e. plot per result column). Figures are written as PNG and PDF to FIG_DIR
(default ``RESULTS_DIR/figures``). Nothing is recomputed: only the saved results are read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from bipartite.experiments import get_paper
    from bipartite.studies import MANIFEST, study_figures

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n", 2)[2])
    parser.add_argument("results_dir", type=Path, metavar="RESULTS_DIR")
    parser.add_argument("--out", type=Path, default=None, metavar="FIG_DIR",
                        help="where to write the figures (default RESULTS_DIR/figures)")
    args = parser.parse_args(argv)
    root = args.results_dir
    fig_dir = args.out or root / "figures"
    if (root / "reproduce.json").is_file():
        meta = json.loads((root / "reproduce.json").read_text())
        paper = get_paper(meta["paper"])
        paths = paper.figures(root, fig_dir)
    elif (root / MANIFEST).is_file():
        paths = study_figures(root, fig_dir)
    else:
        print(f"{root}: neither reproduce.json nor {MANIFEST} found; is this a results folder?",
              file=sys.stderr)
        return 2
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
