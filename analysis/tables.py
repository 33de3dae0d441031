"""Rebuild the key-number tables (and ``summary.md``) from a results folder.

    python analysis/tables.py RESULTS_DIR [--out TABLE_DIR]

For a ``bipartite reproduce`` folder, the paper's summary function recomputes every table from
``studies/*/results.parquet``, writes them as CSV to TABLE_DIR (default ``RESULTS_DIR/tables``)
and rewrites ``RESULTS_DIR/summary.md``. For a single ``bipartite study run`` folder, it writes
mean, standard error and count of every numeric result column per grid point
(``TABLE_DIR/<study>_summary.csv``) and prints it as Markdown.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from bipartite.experiments import get_paper
    from bipartite.studies import MANIFEST, markdown_table, study_summary_table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n", 2)[2])
    parser.add_argument("results_dir", type=Path, metavar="RESULTS_DIR")
    parser.add_argument("--out", type=Path, default=None, metavar="TABLE_DIR",
                        help="where to write the CSV tables (default RESULTS_DIR/tables)")
    args = parser.parse_args(argv)
    root = args.results_dir
    table_dir = args.out or root / "tables"
    if (root / "reproduce.json").is_file():
        meta = json.loads((root / "reproduce.json").read_text())
        paper = get_paper(meta["paper"])
        text = paper.summary(root, table_dir)
        (root / "summary.md").write_text(text)
        print(text)
    elif (root / MANIFEST).is_file():
        table = study_summary_table(root)
        table_dir.mkdir(parents=True, exist_ok=True)
        name = json.loads((root / MANIFEST).read_text())["name"].replace("/", "_")
        table.to_csv(table_dir / f"{name}_summary.csv", index=False)
        print(markdown_table(table))
    else:
        print(f"{root}: neither reproduce.json nor {MANIFEST} found; is this a results folder?",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
