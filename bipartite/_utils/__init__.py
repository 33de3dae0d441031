"""Private helpers shared by every module (the package's one private base, as ``sklearn.utils``).

Any module of :mod:`bipartite` may import from here; nothing here imports the rest of the package.
"""
