"""A few hot kernels of this checkout side by side with another checkout's, each version in a
subprocess of its own (``PYTHONPATH`` at its tree), asked in turn (the order alternating between
repeats), CPU time (``time.process_time``), medians; ``np.sort`` of the scores in each process
for scale. For a change that should leave these kernels' speed alone (e.g. one home for the
float64 order key, round 8 of issue 37): ``auc`` on continuous and on tied scores,
``multipartite_auc`` with 256 levels (the Fenwick route and ``sort_order``), and the report's
``sorted_rows`` (packed keys, their sort, the gather), on 10⁶ rows.

    python benchmarks/bench_checkouts.py --against /path/to/other/checkout [--n 1e6] [--repeats 11]
"""

from __future__ import annotations

import argparse
import os
import textwrap

import numpy as np
from _workers import ask_in_turn, start

_WORKER = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import bipartite
    assert bipartite.__file__.startswith(sys.argv[1]), bipartite.__file__
    from bipartite.diagnostics._walk import sorted_rows
    from bipartite.metrics import auc, multipartite_auc
    rng = np.random.default_rng(0)
    n = int(sys.argv[2])
    s = rng.normal(size=n)
    y = rng.integers(0, 2, n)
    st = np.round(s, 2)
    yl = rng.integers(0, 256, n)
    lab = rng.integers(0, 2**17, n).astype(np.uint32)
    fs = {"auc": lambda: auc(y, s), "auc, tied scores": lambda: auc(y, st),
          "multipartite_auc, L = 256": lambda: multipartite_auc(yl, s),
          "sorted_rows (report)": lambda: sorted_rows(s, lab, np.zeros(0), True)}
    for f in fs.values():
        f()  # warm (numba's first call)
    print(json.dumps("ready"), flush=True)
    cpu = time.process_time
    for _ in sys.stdin:
        out = {}
        t = cpu(); np.sort(s); out["np.sort"] = cpu() - t
        for k, f in fs.items():
            t = cpu(); f(); out[k] = cpu() - t
        print(json.dumps(out), flush=True)
""")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", required=True, metavar="DIR", help="the other checkout")
    ap.add_argument("--n", type=lambda v: int(float(v)), default=10**6)
    ap.add_argument("--repeats", type=int, default=11)
    args = ap.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"this": here, "other": os.path.abspath(args.against)}
    procs = start(_WORKER, trees, str(args.n))
    load0 = os.getloadavg()[0]
    res = ask_in_turn(procs, args.repeats)
    print(f"n = {args.n:,}; CPU time, medians of {args.repeats} alternating repeats, each "
          f"version in its own process; this: {here}, other: {trees['other']}; load average "
          f"{load0:.2f} before, {os.getloadavg()[0]:.2f} after\n")
    print("| kernel | this (ms) | other (ms) | this / other |\n|---|---|---|---|")
    for key in res["this"][0]:
        a = np.median([x[key] for x in res["this"]])
        b = np.median([x[key] for x in res["other"]])
        print(f"| {key} | {1e3 * a:.2f} | {1e3 * b:.2f} | {a / b:.3f} |")


if __name__ == "__main__":
    main()
