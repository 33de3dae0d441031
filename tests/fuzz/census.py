"""Census of the fuzz campaign: every bad input of every registered callable, run under the guard,
counted by outcome class.

    python -m tests.fuzz.census            # default registry (slow cases included with --all)
    python -m tests.fuzz.census --all --jobs 2 --list unclear,silent,hang

Prints a markdown table (outcome, calls, share) and, with ``--list``, the calls of those classes.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor

from tests.fuzz.exempt import EXEMPT
from tests.fuzz.guard import OUTCOMES, run_guarded
from tests.fuzz.registry import CASES, bad_inputs


def _one(item: tuple[str, str, str]):
    """Run one bad input (looked up again here, so that only names cross process boundaries)."""
    name, param, fam = item
    case = CASES[name]
    value = next(v for p, f, v in bad_inputs(name) if (p, f) == (param, fam))
    return (name, param, fam, value), run_guarded(lambda: case.call(**{param: value}), (param,))


def run_census(include_slow: bool = False, jobs: int = 2):
    """Every bad input under the guard. ``jobs`` single-threaded worker processes (forked before
    any thread starts) each fork the guard's worker per call: no fork ever happens while another
    thread of the same process could hold a lock."""
    work = [(name, param, fam) for name, case in CASES.items()
            if include_slow or not case.slow for param, fam, _ in bad_inputs(name)]
    if jobs <= 1:
        return [_one(item) for item in work]
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        return list(pool.map(_one, work, chunksize=8))


def table(results) -> str:
    counts = collections.Counter(r.outcome for _, r in results)
    total = sum(counts.values())
    rows = ["| outcome | calls | share |", "|---|---|---|"]
    labels = {"clean": "clean error naming the argument", "nan": "documented NaN + warning",
              "unclear": "unclear error", "silent": "silent value", "hang": "hang or memory blow-up"}
    for o in OUTCOMES:
        rows.append(f"| {labels[o]} | {counts[o]} | {100 * counts[o] / max(total, 1):.1f}% |")
    rows.append(f"| total | {total} | |")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="include the slow cases (learners, cvxpy)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", default="", help="comma-separated outcome classes to list")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    results = run_census(args.all, args.jobs)
    n_cases = sum(1 for c in CASES.values() if args.all or not c.slow)
    n_accepted = sum(len(CASES[n].accepts) for n in CASES if args.all or not CASES[n].slow)
    print(f"registry: {len(CASES)} callables with a valid call ({n_cases} fuzzed here), "
          f"{len(EXEMPT)} exempt with a reason; {n_accepted} family values documented as valid "
          "input (not counted; tested to give a value)\n")
    print(table(results))
    wanted = {w for w in args.list.split(",") if w}
    for (name, param, fam, _), r in results:
        if r.outcome in wanted:
            print(f"{r.outcome:8s} {name} {param}={fam}: {r.kind}: {r.message[:160]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
