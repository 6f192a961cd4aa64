"""Text from input made safe for a terminal line.

A file name, label or message quoted from an input may carry ESC sequences (colours, cursor
moves, OSC 8 links, window titles), C1 controls, bidi overrides that reorder what follows, or a
newline that forges a second ``Error:`` line. ``terminal_safe`` shows every such character as a
visible escape (``\\x1b``, ``\\n``, ``\\u202e``) so one input string stays one inert piece of one
line; undecodable file-name bytes show as ``\\xNN`` (``safe_read.printable``). Used by
console.py for every cell and wrapped text, and by the CLI for errors and the lines it prints.
"""

from __future__ import annotations

import re

from reportgen.files.safe_read import printable

# C0 controls (tab included: it moves the cursor), DEL, C1 controls; bidi embeddings,
# overrides and isolates, the marks, the Arabic letter mark; line and paragraph separators.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                     "\u2028\u2029\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with control, bidi and line-breaking characters escaped, on one line."""
    return _UNSAFE.sub(_escape, printable(text))
