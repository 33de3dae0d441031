"""``python -m bipartite`` runs the ``bipartite`` command line (see :mod:`bipartite.cli`)."""

import sys

from bipartite.cli import main

if __name__ == "__main__":
    sys.exit(main())
