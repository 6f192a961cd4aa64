"""Bidi isolation of input text on the page and in figures.

A label carrying a right-to-left override (U+202E) or an unclosed embedding reorders everything
after it up to the end of the paragraph: "vLLM beats ‮X" can be made to read as something else.
``isolate`` wraps such a text in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE after dropping
any stray PDI inside it that would close the wrapper early, so its effect ends where the text
ends (what ``<bdi>`` does in HTML; render.py also wraps such cells in ``<bdi>``). Text with no
bidi formatting character is returned unchanged, so ordinary pages keep their bytes.
"""

from __future__ import annotations

import re

BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
FSI, PDI = "\u2068", "\u2069"
_INITIATORS = "\u2066\u2067\u2068"


def has_bidi(text: str) -> bool:
    return BIDI_CONTROLS.search(text) is not None


def isolate(text: str) -> str:
    """``text`` as one isolated run when it holds bidi controls, else unchanged."""
    if not has_bidi(text):
        return text
    out: list[str] = []
    depth = 0
    for char in text:
        if char in _INITIATORS:
            depth += 1
        elif char == PDI:
            if depth == 0:
                continue  # would close the wrapper: dropped
            depth -= 1
        out.append(char)
    return FSI + "".join(out) + PDI * depth + PDI
