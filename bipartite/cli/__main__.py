"""``python -m bipartite.cli``: the same as ``python -m bipartite``."""

import sys

from bipartite.cli import main

if __name__ == "__main__":
    sys.exit(main())
