"""Write an MSLR-WEB-shaped LETOR file with :func:`bipartite.data.make_mslr_like` (docs/theory.md §10).

Usage::

    python simulations/make_mslr_like.py /tmp/mslr_like.txt --n-queries 30000 --seed 0

Prints the number of rows and queries, the file size, the relevance counts, the rows with a
positive click feature (f134 > 0) per grade, and the wall time.
"""

from __future__ import annotations

import argparse
import time

from bipartite.data import make_mslr_like


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="output file (LETOR/SVMlight text with qid:)")
    parser.add_argument("--n-queries", type=int, default=30000)
    parser.add_argument("--docs-per-query", type=float, default=75.7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk-rows", type=int, default=20000)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    s = make_mslr_like(
        args.path,
        n_queries=args.n_queries,
        docs_per_query=args.docs_per_query,
        seed=args.seed,
        chunk_rows=args.chunk_rows,
    )
    dt = time.perf_counter() - t0
    print(f"path            {s.path}")
    print(f"queries         {s.n_queries}")
    print(f"rows            {s.n_rows}")
    print(f"bytes           {s.n_bytes} ({s.n_bytes / 2**30:.3f} GiB)")
    print(f"relevance 0..4  {s.relevance_counts.tolist()}")
    print(f"f134>0 by grade {s.click_counts.tolist()}")
    print(f"seconds         {dt:.1f}")


if __name__ == "__main__":
    main()
