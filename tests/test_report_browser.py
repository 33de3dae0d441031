"""``report.html`` in a real browser (issue 34, item 4): ``bipartite report ... --out DIR``
writes the page, headless Chromium (Debian's ``chromium-headless-shell``) opens it from disk,
a probe script added to a copy of the page reports every image's decoded size, its size on the
page and any window error into the DOM (``--dump-dom``), the browser's log is searched for
console messages, and a screenshot is taken. Skips, with the reason, where no Chromium binary
is installed; nothing else skips it."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from bipartite.cli import main

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome",
            "headless_shell")

#: Added to a copy of the page (the page itself has no script): on load, write the images'
#: natural and rendered sizes, the window errors and the visible text into <pre id="probe">.
PROBE = """<script>
window.__errors = [];
window.addEventListener("error", function (e) {
  window.__errors.push(String(e.message || (e.target && e.target.src) || e.type)); }, true);
window.addEventListener("load", function () {
  var imgs = Array.prototype.map.call(document.images, function (i) {
    var r = i.getBoundingClientRect();
    return {natural_w: i.naturalWidth, natural_h: i.naturalHeight, w: r.width, h: r.height,
            complete: i.complete};
  });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify({images: imgs, errors: window.__errors,
                                    text: document.body.innerText});
  document.body.appendChild(pre);
});
</script>"""


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no headless Chromium on PATH (tried " + ", ".join(BROWSERS) + "; Debian: "
                "apt-get install chromium-headless-shell)")


def _run(browser: str, tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [browser, "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0", *args],
        capture_output=True, text=True, timeout=90, check=False)


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    """``bipartite report --out``: three scorers (one perfect on a label: a degenerate
    interval), two labels, query ids, a label named with ``|``."""
    tmp = tmp_path_factory.mktemp("browser")
    rng = np.random.default_rng(0)
    n = 900
    Y = (rng.random((n, 2)) < [0.35, 0.2]).astype(int)
    pd.DataFrame({"model_a": Y @ [1.2, 0.8] + rng.normal(size=n),
                  "model_b": Y @ [0.8, 1.2] + rng.normal(size=n),
                  "oracle": Y[:, 0] + 0.1 * rng.random(n), "qid": rng.integers(0, 60, n),
                  "y|rel": Y[:, 0], "click": Y[:, 1]}).to_csv(tmp / "scores.csv", index=False)
    out = tmp / "report"
    assert main(["report", str(tmp / "scores.csv"), "--score", "model_a", "--score", "model_b",
                 "--score", "oracle", "--label", "y|rel", "--label", "click", "--qid", "qid",
                 "--no-progress", "--out", str(out)]) == 0
    return out


def test_out_writes_the_page_the_json_the_markdown_and_the_figures(report_dir):
    for name in ("report.html", "report.json", "report.md", "scorers.csv", "paired_min.csv"):
        assert (report_dir / name).is_file(), name
    figs = sorted(p.name for p in report_dir.glob("figure_*.png"))
    assert figs == ["figure_auc_intervals.png", "figure_auc_plane.png",
                    "figure_per_query.png", "figure_weights.png", "figure_win_rates.png"]
    md = (report_dir / "report.md").read_text(encoding="utf-8")
    assert all(f"]({f})" in md for f in figs)  # report.md links the figure files
    doc = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    assert {"scorers", "paired_min", "recommendation"} <= set(doc)


def test_report_html_in_headless_chromium(report_dir, tmp_path):
    """Claim: the page opens in a real browser with no console message and no window error;
    every image decodes (natural size > 0) and is drawn at a visible size; the decoded PNGs are
    not blank; the visible text holds no literal Markdown; a screenshot is not blank."""
    from PIL import Image

    browser = _browser()
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    assert "<script" not in page and "<link" not in page  # nothing runs, nothing is fetched
    assert not re.search(r"""(src|href)=["'](?!data:)""", page)
    for src in re.findall(r'<img src="data:image/png;base64,([^"]+)"', page):
        img = np.asarray(Image.open(io.BytesIO(base64.b64decode(src))).convert("L"))
        assert img.shape[0] > 200 and img.shape[1] > 300 and img.std() > 5  # not blank
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("<head>", "<head>\n" + PROBE, 1), encoding="utf-8")
    run = _run(browser, tmp_path, "--dump-dom", probe.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert "CONSOLE" not in run.stderr, [x for x in run.stderr.splitlines() if "CONSOLE" in x]
    found = re.search(r'<pre id="probe">(.*?)</pre>', run.stdout, flags=re.S)
    assert found, run.stdout[-2000:]
    import html

    got = json.loads(html.unescape(found.group(1)))
    assert got["errors"] == []
    assert len(got["images"]) == 5
    for im in got["images"]:
        assert im["complete"] and im["natural_w"] > 300 and im["natural_h"] > 200, im
        assert im["w"] > 300 and im["h"] > 150, im  # drawn, at a readable size
    text = got["text"]
    assert "Choosing a scorer" in text and "Recommendation:" in text and "y|rel" in text
    assert "1 (every positive ranked above every negative)" in text  # the oracle's note
    assert "**" not in text and "`" not in text and "|---|" not in text
    assert not re.search(r"(?<![\w*])\*[^\s*][^*\n]*\*(?![\w*])", text)
    shot = tmp_path / "report.png"
    run = _run(browser, tmp_path, f"--screenshot={shot}", "--window-size=1200,3000",
               (report_dir / "report.html").as_uri())
    assert run.returncode == 0 and shot.is_file(), run.stderr[-2000:]
    img = np.asarray(Image.open(shot).convert("L"))
    assert img.shape == (3000, 1200) and img.std() > 10
