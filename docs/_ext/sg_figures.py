"""sphinx-gallery image scraper for matplotlib figures made without pyplot.

:func:`bipartite.plots.new_figure` (used by e.g. ``Diagnostics.figure``) builds a
:class:`matplotlib.figure.Figure` directly, so that the package leaves no pyplot state behind.
sphinx-gallery's built-in ``"matplotlib"`` scraper only sees figures that pyplot tracks, so such a
figure would silently be missing from its example's page. This scraper, listed *before* the
built-in one in ``sphinx_gallery_conf["image_scrapers"]``, saves every ``Figure`` bound to a global
name of the example that it has not seen before and that pyplot does not track. A figure that
pyplot tracks when first seen is left to the built-in scraper (which closes it, so it is remembered
here rather than looked at again).

sphinx-gallery loads it by module name (``"sg_figures"``: ``docs/_ext`` is on ``sys.path``) and calls
``_get_sg_image_scraper()``; a module-level function in ``conf.py`` would not be picklable, which
Sphinx reports as a warning.
"""

from __future__ import annotations

import weakref

_SAVED: weakref.WeakSet = weakref.WeakSet()


def scrape_pyplot_free_figures(block, block_vars, gallery_conf) -> str:
    from matplotlib.figure import Figure
    from sphinx_gallery.scrapers import figure_rst

    paths = []
    iterator = block_vars["image_path_iterator"]
    for value in list(block_vars.get("example_globals", {}).values()):
        if not isinstance(value, Figure) or value in _SAVED:
            continue
        _SAVED.add(value)
        if getattr(value.canvas, "manager", None) is not None:
            continue  # pyplot's figure: the built-in scraper saves (and closes) it after this one
        path = next(iterator)
        value.savefig(path)
        paths.append(path)
    return figure_rst(paths, gallery_conf["src_dir"]) if paths else ""


def _get_sg_image_scraper():
    return scrape_pyplot_free_figures
