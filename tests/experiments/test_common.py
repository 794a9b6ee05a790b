"""The page and claims every reproduction writes the same way."""

from __future__ import annotations

from schedlab.experiments.common import Claim, write_summary_html


def test_summary_html_ends_every_page_with_escaped_claims_then_figures(tmp_path):
    claims = [Claim(1, "a < b", "holds", ["1 < 2", "x & y"]), Claim(2, "c", "fails", [])]
    path = write_summary_html(tmp_path, ["<html><body>", "<h2>Table</h2>"], claims, [("f.png", 'a "b"')])
    assert path == tmp_path / "summary.html"
    assert path.read_text(encoding="utf-8").splitlines() == [
        "<html><body>",
        "<h2>Table</h2>",
        "<h2>Claims</h2>",
        "<h3>1. a &lt; b <em>holds</em></h3><ul><li>1 &lt; 2</li><li>x &amp; y</li></ul>",
        "<h3>2. c <em>fails</em></h3><ul></ul>",
        '<h2>a &quot;b&quot;</h2><img src="f.png" alt="a &quot;b&quot;">',
        "</body></html>",
    ]
