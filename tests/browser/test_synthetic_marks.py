"""Issue 20: the † cross of a synthetic point is visible on a filled marker — on screen in
either colour scheme and in print — checked by the pixels at the marker's centre, where the
cross's two strokes meet. Drawn in the fill colour (the old way), the centre is the fill."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

FIGURE = "fig-6"   # the sample's llama.cpp TPOT medians at C=2…32 are synthetic

# the first filled synthetic point of the figure: its centre relative to the plot, its fill
POINT = """(id) => {
  const gd = document.getElementById(id);
  const traces = [...gd.querySelectorAll('.scatterlayer .trace')];
  for (let i = 0; i < gd._fullData.length; i++) {
    const m = gd._fullData[i].marker || {};
    const symbols = Array.isArray(m.symbol) ? m.symbol : [];
    const j = symbols.findIndex(s => /-x$/.test(String(s)));
    if (j < 0 || !traces[i]) continue;
    const path = traces[i].querySelectorAll('.points path')[j];
    const box = path.getBoundingClientRect(), plot = gd.getBoundingClientRect();
    return {x: box.x + box.width / 2 - plot.x, y: box.y + box.height / 2 - plot.y,
            fill: m.color, trace: i, point: j};
  }
  return null;
}"""


# the same point in the figure's print image (an SVG plotly.js rendered at its own size):
# its position in that SVG, from the translate() of the point and of every group above it
IN_PRINT_IMAGE = r"""([id, trace, point]) => {
  const img = document.getElementById(id).parentNode.querySelector('img.plot-print');
  const src = img.getAttribute('src');
  const body = src.slice(src.indexOf(',') + 1);
  const text = /;base64,/.test(src) ? atob(body) : decodeURIComponent(body);
  const svg = new DOMParser().parseFromString(text, 'image/svg+xml');
  let node = svg.querySelectorAll('.scatterlayer .trace')[trace]
                .querySelectorAll('.points path')[point];
  let x = 0, y = 0;
  for (; node && node.getAttribute; node = node.parentNode) {
    const m = /translate\(\s*([-\d.e]+)[ ,]+([-\d.e]+)\s*\)/.exec(
      node.getAttribute('transform') || '');
    if (m) { x += +m[1]; y += +m[2]; }
  }
  const root = svg.documentElement;
  return {x, y, w: +root.getAttribute('width'), h: +root.getAttribute('height')};
}"""


def png_pixels(data: bytes) -> tuple[int, int, list[list[tuple[int, int, int]]]]:
    """Width, height and RGB rows of an 8-bit, non-interlaced RGB/RGBA PNG (what Chromium
    writes for a screenshot)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert header is not None
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytearray] = []
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) \
                    & 255
        rows.append(line)
        prev = line
    return width, height, [[tuple(r[x * channels:x * channels + 3]) for x in range(width)]
                           for r in rows]


def rgb(hex_color: str) -> tuple[int, int, int]:
    return tuple(int(hex_color[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def distance(px: tuple[int, int, int], want: tuple[int, int, int]) -> int:
    return sum(abs(p - q) for p, q in zip(px, want, strict=True))


def centre_differs_from_fill(page: Any, clip_x: float, clip_y: float, fill: str) -> bool:
    """The marker is where we look (its fill colour within 4 px of the centre), and a pixel
    within 1 px of its centre stands clear of that fill colour (the cross)."""
    shot = page.screenshot(clip={"x": round(clip_x) - 4, "y": round(clip_y) - 4, "width": 9,
                                 "height": 9})
    _, _, pixels = png_pixels(shot)
    want = rgb(fill)
    assert any(distance(px, want) < 40 for row in pixels for px in row), \
        f"no marker of colour {fill} at ({clip_x:.0f}, {clip_y:.0f})"
    return any(distance(px, want) > 150 for row in pixels[3:6] for px in row[3:6])


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_cross_shows_on_a_filled_marker(open_page: Any, sample_report: Path,
                                            scheme: str) -> None:
    page, watch = open_page(sample_report, "?lang=en")
    page.emulate_media(color_scheme=scheme)
    point = page.evaluate(POINT, FIGURE)
    assert point is not None, "no synthetic point in the figure"
    plot = page.locator(f"#{FIGURE}")
    plot.scroll_into_view_if_needed()
    box = plot.bounding_box()
    assert centre_differs_from_fill(page, box["x"] + point["x"], box["y"] + point["y"],
                                    point["fill"])
    watch.assert_clean()


def test_the_cross_shows_in_print(open_page: Any, sample_report: Path) -> None:
    page, _ = open_page(sample_report, "?lang=en")
    # print images are made on beforeprint (issue 23), not at load
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    page.wait_for_function("() => document.documentElement.dataset.printReady === 'true'",
                           timeout=60_000)
    point = page.evaluate(POINT, FIGURE)
    assert point is not None
    printed = page.evaluate(IN_PRINT_IMAGE, [FIGURE, point["trace"], point["point"]])
    page.emulate_media(media="print")
    img = page.locator(f"#{FIGURE}").locator("xpath=..").locator("img.plot-print")
    img.scroll_into_view_if_needed()
    box = img.bounding_box()
    assert box and box["width"] > 0
    x = box["x"] + printed["x"] * box["width"] / printed["w"]
    y = box["y"] + printed["y"] * box["height"] / printed["h"]
    assert centre_differs_from_fill(page, x, y, point["fill"])
