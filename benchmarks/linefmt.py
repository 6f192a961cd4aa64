"""Render millions of printf-like text lines with numpy instead of one f-string per line.

A template is a list of parts (literal bytes, integer fields, fixed-point fields, picks from a
few strings). Each part fills some columns of a (rows, width) uint8 matrix; byte 0 marks "no
character here", so variable-width numbers are right-aligned in fixed columns and the zeros are
dropped when the rows are joined. This costs under a microsecond per line, which is what makes a
1 GB log affordable to generate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

NUL = 0
SPACE = ord(" ")
ZERO = ord("0")


@dataclass(frozen=True)
class Int:
    """``%d`` (width 0), ``%Nd`` (space padded) or ``%0Nd`` (zero=True) of non-negative ints."""

    values: np.ndarray
    width: int = 0
    zero: bool = False


@dataclass(frozen=True)
class Fixed:
    """``%W.Df`` of non-negative floats (rounded half to even, which is fine for synthetic data)."""

    values: np.ndarray
    width: int
    decimals: int


@dataclass(frozen=True)
class Pick:
    """One of a few byte strings per row."""

    index: np.ndarray
    choices: Sequence[bytes]


Part = bytes | Int | Fixed | Pick
Template = Callable[[dict[str, np.ndarray]], list[Part]]


def _digits(values: np.ndarray, width: int, zero: bool) -> np.ndarray:
    v = np.asarray(values, dtype=np.int64)
    if v.size and v.min() < 0:
        raise ValueError("Int fields take non-negative values; write the sign as a literal")
    top = int(v.max()) if v.size else 0
    n = max(width, len(str(top)), 1)
    out = np.empty((v.size, n), dtype=np.uint8)
    pad = ZERO if zero else SPACE
    for p in range(n):
        power = 10 ** (n - 1 - p)
        col = (v // power % 10 + ZERO).astype(np.uint8)
        if p < n - 1:
            leading = v < power
            col[leading] = pad if p >= n - width else NUL
        out[:, p] = col
    return out


def _part_bytes(part: Part, rows: int) -> np.ndarray:
    if isinstance(part, bytes):
        return np.broadcast_to(np.frombuffer(part, dtype=np.uint8), (rows, len(part)))
    if isinstance(part, Int):
        return _digits(part.values, part.width, part.zero)
    if isinstance(part, Fixed):
        scale = 10**part.decimals
        scaled = np.rint(np.asarray(part.values, dtype=np.float64) * scale).astype(np.int64)
        whole = _digits(scaled // scale, part.width - part.decimals - 1, False)
        frac = _digits(scaled % scale, part.decimals, True)
        dot = np.full((rows, 1), ord("."), dtype=np.uint8)
        return np.hstack([whole, dot, frac])
    if isinstance(part, Pick):
        longest = max(len(c) for c in part.choices)
        table = np.zeros((len(part.choices), longest), dtype=np.uint8)
        for i, choice in enumerate(part.choices):
            table[i, : len(choice)] = np.frombuffer(choice, dtype=np.uint8)
        return table[np.asarray(part.index)]
    raise TypeError(f"unknown template part {part!r}")


def render(parts: Sequence[Part], rows: int, newline: bool = False) -> np.ndarray:
    """Render ``rows`` lines into a (rows, width) uint8 matrix; 0 bytes are dropped later."""
    blocks = [_part_bytes(p, rows) for p in parts]
    width = sum(b.shape[1] for b in blocks) + int(newline)
    out = np.empty((rows, width), dtype=np.uint8)
    col = 0
    for block in blocks:
        out[:, col : col + block.shape[1]] = block
        col += block.shape[1]
    if newline:
        out[:, -1] = ord("\n")
    return out


def join_rows(matrix: np.ndarray, has_newline: bool = False) -> bytes:
    """Rows → text with the 0 bytes removed; adds a newline per row unless already there."""
    if not has_newline:
        matrix = np.hstack([matrix, np.full((matrix.shape[0], 1), ord("\n"), np.uint8)])
    flat = np.ascontiguousarray(matrix).ravel()
    return flat[flat != NUL].tobytes()


def timestamp_parts(t_us: np.ndarray) -> list[Part]:
    """llama.cpp's elapsed-time prefix ``M.SS.mmm.uuu`` (minutes unbounded)."""
    t = np.asarray(t_us, dtype=np.int64)
    return [
        Int(t // 60_000_000), b".", Int(t // 1_000_000 % 60, 2, True), b".",
        Int(t // 1000 % 1000, 3, True), b".", Int(t % 1000, 3, True),
    ]


class LineSet:
    """Lines of several kinds, each kind rendered by its own template, written in time order."""

    def __init__(self) -> None:
        self._kinds: list[tuple[Template, bytes, dict[str, np.ndarray]]] = []
        self._t: list[np.ndarray] = []
        self._key: list[np.ndarray] = []
        self._tie: list[np.ndarray] = []

    def add(self, template: Template, level: str, t_us: np.ndarray, *,
            key_us: np.ndarray | None = None, tie: np.ndarray | None = None,
            **cols: np.ndarray) -> None:
        """Add one line per element of ``t_us`` (printed time). Lines sort by ``key_us``
        (default: the printed time), then by ``tie``, then by order of ``add`` calls."""
        t = np.asarray(t_us, dtype=np.int64)
        if t.size == 0:
            return
        cols = {k: np.broadcast_to(np.asarray(v), t.shape) for k, v in cols.items()}
        self._kinds.append((template, level.encode(), {"t": t, **cols}))
        self._t.append(t)
        self._key.append(t if key_us is None else np.asarray(key_us, dtype=np.int64))
        self._tie.append(np.zeros(t.size, np.int64) if tie is None else np.asarray(tie, np.int64))

    def __len__(self) -> int:
        return sum(t.size for t in self._t)

    def write(self, fh: BinaryIO, chunk: int = 400_000) -> int:
        """Write every line in order to ``fh``; return the number of bytes written."""
        if not self._t:
            return 0
        kind = np.concatenate([np.full(t.size, i, np.int32) for i, t in enumerate(self._t)])
        row = np.concatenate([np.arange(t.size) for t in self._t])
        call = kind.astype(np.int64)
        order = np.lexsort((call, np.concatenate(self._tie), np.concatenate(self._key)))
        kind, row = kind[order], row[order]
        written = 0
        for lo in range(0, order.size, chunk):
            k, r = kind[lo : lo + chunk], row[lo : lo + chunk]
            pieces: list[tuple[np.ndarray, np.ndarray]] = []
            for i in np.unique(k):
                template, level, cols = self._kinds[i]
                sel = np.flatnonzero(k == i)
                picked = {name: v[r[sel]] for name, v in cols.items()}
                parts = [*timestamp_parts(picked["t"]), b" " + level + b" ", *template(picked)]
                pieces.append((sel, render(parts, sel.size, newline=True)))
            width = max(m.shape[1] for _, m in pieces)
            matrix = np.zeros((k.size, width), dtype=np.uint8)
            for sel, m in pieces:
                matrix[sel, : m.shape[1]] = m
            data = join_rows(matrix, has_newline=True)
            fh.write(data)
            written += len(data)
        return written
