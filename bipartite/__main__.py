"""``python -m bipartite`` and the ``bipartite`` console script: the command line
(:func:`bipartite.cli.main`), with a Ctrl-C that arrives before the command's own handler
(while the command line module loads or the arguments are parsed) ending as that handler ends
it: status 130, one line, no traceback."""

import sys


def run() -> int:
    """Run :func:`bipartite.cli.main` on ``sys.argv``; returns the exit status."""
    try:
        from bipartite.cli import main

        return main()
    except KeyboardInterrupt:  # before main's handler: nothing began, nothing was written
        sys.stderr.write(f"{' '.join(['bipartite', *sys.argv[1:2]])}: interrupted; nothing "
                         "was written\n")
        return 130


if __name__ == "__main__":
    sys.exit(run())
