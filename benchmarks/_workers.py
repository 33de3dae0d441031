"""Versions of the package timed side by side, each in a worker process of its own: the workers
are asked in turn, the order alternating between repeats (``bench_report.py --cpu-targets
--against``, ``bench_checkouts.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def start(code: str, trees: dict[str, str], *args: str) -> dict[str, subprocess.Popen]:
    """One worker per checkout: ``python -c code TREE *args`` with ``PYTHONPATH`` at the tree
    (``trees``: name → checkout folder), each started and its first line (its "ready" answer, a
    JSON line) read before any is timed."""
    procs = {name: subprocess.Popen([sys.executable, "-c", code, path, *args],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                    env={**os.environ, "PYTHONPATH": path})
             for name, path in trees.items()}
    for name, p in procs.items():
        line = p.stdout.readline()
        if not line:  # it ended before its first answer
            raise RuntimeError(f"the worker of {trees[name]} did not start (its error above)")
        json.loads(line)
    return procs


def ask_in_turn(procs: dict[str, subprocess.Popen], repeats: int) -> dict[str, list[dict]]:
    """Each worker's answers to ``repeats`` requests (a line ``go``; the answer one JSON line),
    the workers asked in turn, the order reversed every other repeat; then their input is closed
    and they are waited for."""
    out: dict[str, list[dict]] = {name: [] for name in procs}
    for r in range(repeats):
        for name in (list(procs) if r % 2 == 0 else list(procs)[::-1]):
            procs[name].stdin.write("go\n")
            procs[name].stdin.flush()
            out[name].append(json.loads(procs[name].stdout.readline()))
    for p in procs.values():
        p.stdin.close()
        p.wait()
    return out
