"""The commands that run and rebuild studies: ``bipartite reproduce``, ``bipartite study
run|resume|status|list``, ``bipartite figures`` and ``bipartite tables``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["cmd_figures", "cmd_reproduce", "cmd_study", "cmd_tables"]


def cmd_figures(args) -> int:
    from bipartite.experiments import redraw_figures

    for path in redraw_figures(args.dir, args.out):
        print(path)
    return 0


def cmd_tables(args) -> int:
    from bipartite.experiments import rebuild_tables

    print(rebuild_tables(args.dir, args.out))
    return 0



def _report_study(result) -> int:
    status = (f"{result.study_dir}: {result.n_tasks} tasks ({result.n_skipped} already done, "
              f"{result.n_run} run), {result.n_rows} result rows, "
              f"{len(result.failures)} failed")
    print(status)
    for rec in result.failures[:10]:
        print(f"  FAILED {rec['key']} {json.dumps(rec['params'])} replicate "
              f"{rec['replicate']}: {rec.get('error')}", file=sys.stderr)
    if result.failures:
        print(f"  errors: {result.study_dir}/failures.csv (tracebacks in the records of "
              f"{result.study_dir}/tasks/segment-*.jsonl); rerun them with "
              f"`bipartite study resume {result.study_dir}`", file=sys.stderr)
        return 1
    return 0


def _runner_limits(args) -> dict:
    """The runner's lock, scheduler and size options from the command line."""
    from bipartite.studies import check_lock_timeout

    return {"lock_timeout": check_lock_timeout(args.wait, "--wait"),
            "scheduler_timeout": args.scheduler_timeout, "max_tasks": args.max_tasks}


def _backend(args) -> str | None:
    if args.scheduler and args.backend not in (None, "dask"):
        raise ValueError("--scheduler needs --backend dask.")
    return "dask" if args.scheduler else args.backend


def cmd_study(args) -> int:
    from bipartite import studies

    if args.study_command == "list":
        if args.examples:
            from bipartite.experiments import example_configs

            for path in example_configs():
                config = studies.load_config(path)
                print(f"{path}\n    {config['name']}: function "
                      f"{config['function']}")
            return 0
        studies.load_registered_studies()
        for name, spec in sorted(studies.STUDIES.items()):
            import inspect

            params = [p for p in inspect.signature(spec.function).parameters if p != "seed"]
            print(f"{name}\n    {spec.doc}\n    parameters: {', '.join(params)}")
        return 0
    if args.study_command == "status":
        print(json.dumps(studies.study_status(args.dir), indent=1))
        return 0
    kwargs = {"jobs": args.jobs, "backend": _backend(args), "scheduler": args.scheduler,
              "progress": not args.no_progress, **_runner_limits(args)}
    if args.study_command == "run":
        config = args.config
        if not config.exists():  # the name of an example that ships with the package
            from bipartite.experiments import example_configs

            named = {p.stem: p for p in example_configs()}
            if config.suffix in ("", ".toml") and config.stem in named and config.parent == Path():
                config = named[config.stem]
        config = studies.load_config(config)
        args.saved_in = args.out if args.out is not None else Path("results") / config["name"]
        result = studies.run_study(config, args.saved_in, **kwargs)
    else:
        args.saved_in = args.dir
        result = studies.resume_study(args.dir, retry_failed=not args.skip_failed, **kwargs)
    return _report_study(result)


def cmd_reproduce(args) -> int:
    from bipartite.experiments import get_paper, write_reproduce_record

    paper = get_paper(args.paper)
    size = "smoke" if args.smoke else "full" if args.full else "quick"
    out = args.out or Path("results") / (args.paper if size == "full" else f"{args.paper}-{size}")
    args.saved_in = out
    only = [s.strip() for s in args.only.split(",") if s.strip()] if args.only else None
    options = {"banking": args.banking, "letor": args.letor, "real_data": args.real_data,
               "backend": _backend(args) or "loky",
               "scheduler": args.scheduler, "only": only, "smoke": args.smoke,
               "progress": not args.no_progress, "runner": _runner_limits(args)}
    files = paper.run(out, quick=size != "full", jobs=args.jobs, **options)
    record = Path(out) / "reproduce.json"
    if not record.is_file():  # lets analysis/ scripts find the paper of this folder
        write_reproduce_record(out, args.paper, size=size, options=options)
    print(f"wrote {len(files)} files under {out}")
    summary = Path(out) / "summary.md"
    if summary.is_file():
        print(f"summary: {summary}")
    meta = json.loads(record.read_text())
    failed = {k: v.get("failed", 0) for k, v in meta.get("studies", {}).items()
              if v.get("failed", 0)}
    if failed:
        print(f"failed tasks per study: {failed}; errors in {out}/studies/<study>/failures.csv"
              f"; rerun the same command to retry them.", file=sys.stderr)
        return 1
    return 0

