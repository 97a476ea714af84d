"""The connection line's "connecting"/"offline" colour is readable (WCAG AA, 4.5:1).

axe-core found it at 3.8:1 (#b07800 on white) in a loaded full run: the family-end test's
login screen was still connecting.  The axe tests see that state only when the broker is
slow, so the colour itself is checked here, against white and the page's background."""

from __future__ import annotations

import re
from pathlib import Path

CSS = Path(__file__).resolve().parents[2] / "clients" / "web" / "static" / "style.css"


def _luminance(hex6: str) -> float:
    c = [int(hex6[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_connecting_and_offline_are_readable():
    css = CSS.read_text()
    m = re.search(r"\.conn-connecting, \.conn-offline \{ color: #([0-9a-fA-F]{6}); \}", css)
    assert m, "the connection states' colour rule moved: update this test"
    backgrounds = ["ffffff", *re.findall(r"--bg:\s*#([0-9a-fA-F]{6})", css)]
    for bg in backgrounds:
        assert _contrast(m.group(1), bg) >= 4.5, (m.group(1), bg, round(_contrast(m.group(1), bg), 2))
