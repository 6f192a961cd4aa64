"""The page's data block (``<script id="report-data">``, what ``reportgen diff`` reads back).

A block up to ``PACK_ABOVE`` characters is plain JSON. A larger one (a round of many
configurations: tens of thousands of table cells) is stored as base64 of an xz stream, its
named values that repeat a table's cells by reference (``value_refs``): 64 configurations ×
12 tiers, 4.5 MB of JSON, become 0.4 MB. xz rather than gzip: its window spans the whole block
(gzip's 32 KiB window misses the repeats across tables: 1.6× larger). No script of the page
reads the block, so the browser never has to unpack it. Same data and liblzma, same bytes (xz
records no time or name).
"""

from __future__ import annotations

import base64
import binascii
import lzma

PACK_ABOVE = 1_000_000
JSON_TYPE = "application/json"
PACKED_TYPE = "application/x-xz"  # the <script type>: base64 text of an xz stream
PRESET = 6  # xz's default; preset 2 is 5× faster (0.13 s against 0.7 s at 64 × 12, in a
#            thread beside the page) for 23 % more bytes
_XZ_B64 = b"/Td6WFo"  # base64 of xz's magic bytes fd 37 7a 58 5a 00
_MEMLIMIT = 64 << 20  # a crafted header cannot make the reader allocate more


def packs(json_text: str) -> bool:
    return len(json_text) > PACK_ABOVE


def pack(json_text: str, packed: bool = False) -> tuple[str, str]:
    """(script type, body) for the block, packed above ``PACK_ABOVE`` characters or when
    ``packed``; the body of a packed block is plain ASCII."""
    if not packed and not packs(json_text):
        return JSON_TYPE, json_text
    xz = lzma.compress(json_text.encode("utf-8"), format=lzma.FORMAT_XZ, preset=PRESET)
    return PACKED_TYPE, base64.b64encode(xz).decode("ascii")


MAX_UNPACKED = 256 << 20  # absolute cap on a packed block's JSON
MAX_RATIO = 100           # JSON ÷ packed bytes; real blocks pack ~8×, a bomb thousands ×
MIN_ALLOWED = 4 << 20     # a small block may always unpack to this much


def unpack_limit(packed_len: int, limit: int = MAX_UNPACKED) -> int:
    """How many bytes a packed block of ``packed_len`` base64 characters may unpack to."""
    return min(limit, MAX_UNPACKED, max(MIN_ALLOWED, packed_len * MAX_RATIO))


def unpack(body: bytes, limit: int = MAX_UNPACKED) -> bytes:
    """The JSON bytes of a block read back from a page, packed or not. Raises ValueError for
    a packed block that does not decode or unpacks to more than its cap (``unpack_limit``:
    ``limit``, 256 MiB, and 100× its packed size), so memory stays bounded."""
    text = body.strip()
    if not text.startswith(_XZ_B64):
        return body
    limit = unpack_limit(len(text), limit)
    try:
        unxz = lzma.LZMADecompressor(format=lzma.FORMAT_XZ, memlimit=_MEMLIMIT)
        out = unxz.decompress(base64.b64decode(text, validate=True), max_length=limit)
    except (binascii.Error, lzma.LZMAError) as exc:
        raise ValueError(f"packed data block does not decode: {exc}") from None
    if not unxz.eof:
        raise ValueError(f"packed data block is cut off or unpacks to more than {limit:,} bytes")
    return out
