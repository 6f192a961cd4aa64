"""The one number formatter: the page, narrative placeholders, the console, diff and tables.

Every number a reader sees goes through here, so both languages and every output show the same
digits and the same missing mark. Specs (also the narrative placeholder formats; ``N`` is a
number of decimals):

    (none)  int → ``1,332``; float → 0 dp from 100, 1 dp from 10, 2 dp from 1, else 3 significant
            digits (``1,388`` ``22.5`` ``5.84`` ``0.0655``)
    .Nf     fixed decimals with thousands separators             ``8.3``
    d       rounded integer with thousands separators            ``19,089``
    pct     a fraction as a percent (0 dp from 10 %, 1 from 1 %, else 2)   ``81%``
    .Npct   a fraction as a percent with N decimals              ``1.35%``
    x       a ratio with a multiplication sign (auto decimals)   ``2.71×``
    .Nx     a ratio with N decimals                              ``3.2×``
    s       text only (a number here is an error)

Besides the specs: ``fmt_g`` (shortest faithful form, for tiers and counts), ``exact`` (full
precision, for constants), ``plain`` (the terminal's reading form: ``8``, ``16``, ``121.61``)
and ``signed``/``pct_signed`` (changes). A missing value (None, NaN) prints as ``MISSING``; no
output ever shows a negative zero.
"""

from __future__ import annotations

import decimal
import functools
import math
import re
from numbers import Integral, Real
from typing import Any

MISSING = "—"
_SPEC = re.compile(r"^(?:\.(?P<digits>\d{1,2}))?(?P<kind>f|d|pct|x|s)?$")
# plain(): at most this many decimals below 1, so a tiny value reads 0.000000000001, never 1e-12
_PLAIN_MAX_DECIMALS = 12


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, Real) and math.isnan(float(value)))


def _auto_decimals(x: float) -> int:
    a = abs(x)
    if a >= 100:
        return 0
    if a >= 10:
        return 1
    if a >= 1 or a == 0:
        return 2
    # below 1: three significant digits (0.0655 → 4 decimals)
    return min(2 - math.floor(math.log10(a)), 12)


def _fixed(x: float, decimals: int, sep: str = ",") -> str:
    """``x`` with ``decimals`` decimals; a value that rounds to zero never keeps a minus sign."""
    text = f"{x:{sep}.{decimals}f}"
    if text.startswith("-") and not text.strip("-0.,"):
        return text[1:]
    return text


def _infinity(x: float) -> str:
    return "∞" if x > 0 else "-∞"


@functools.lru_cache(maxsize=64)
def _spec_parts(spec: str) -> tuple[str | None, str | None]:
    """(kind, digits) of a SPEC; ValueError when it does not parse. Cached: a page formats a
    thousand values with a dozen specs."""
    m = _SPEC.match(spec)
    if not m:
        raise ValueError(f"unknown format '{spec}' (expected .Nf, d, pct, .Npct, x, .Nx or s)")
    kind, digits = m.group("kind"), m.group("digits")
    if digits is not None and kind in (None, "d", "s"):
        raise ValueError(f"format '{spec}': decimals need f, pct or x")
    if kind is None and digits is None and spec:
        raise ValueError(f"unknown format '{spec}'")
    return kind, digits


def format_value(value: Any, spec: str = "") -> str:
    """Format one value with a SPEC (see the module doc). Raises ValueError for a spec that does
    not parse or does not fit the value's type."""
    kind, digits = _spec_parts(spec)
    if type(value) is not float:  # a plain float (the usual value) needs none of these checks
        if isinstance(value, str):
            if kind not in (None, "s"):
                raise ValueError(f"format '{spec}' needs a number, the value is text")
            return value
        if isinstance(value, bool) or not (value is None or isinstance(value, Real)):
            if kind == "s":
                raise ValueError("format 's' needs text, the value is a number")
            raise ValueError(f"cannot format a {type(value).__name__}")
    if kind == "s":
        raise ValueError("format 's' needs text, the value is a number")
    if is_missing(value):
        return MISSING
    if isinstance(value, Integral) and kind in (None, "d"):
        return f"{int(value):,d}"  # exact, however many digits
    x = float(value)
    if math.isinf(x):
        return _infinity(x)
    if kind == "d":
        return f"{round(x):,d}"
    if kind == "pct":
        p = x * 100
        n = int(digits) if digits is not None else (0 if abs(p) >= 10 else 1 if abs(p) >= 1 else 2)
        return _fixed(p, n) + "%"
    if kind == "x":
        n = int(digits) if digits is not None else _auto_decimals(x)
        return _fixed(x, n) + "×"
    if kind == "f":
        return _fixed(x, int(digits or 0))
    return _fixed(x, _auto_decimals(x))


def fmt(value: Any, spec: str = "") -> str:
    """``format_value`` that never raises: a value the spec does not fit is shown as text."""
    try:
        return format_value(value, spec)
    except (ValueError, OverflowError):
        return MISSING if is_missing(value) else str(value)


def fmt_g(value: Any) -> str:
    """Shortest faithful form: 24.0 → 24, 1152.0 → 1,152, 0.0655 → 0.0655."""
    if is_missing(value):
        return MISSING
    if isinstance(value, Integral) and not isinstance(value, bool):
        return f"{int(value):,d}"
    x = float(value)
    if math.isinf(x):
        return _infinity(x)
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,d}"
    return fmt(x)


def exact(value: Any) -> str:
    """Full precision (six significant digits), for constants shown as given."""
    if value is None:
        return MISSING
    if isinstance(value, Integral) and not isinstance(value, bool):
        return f"{int(value):,d}"
    if isinstance(value, Real) and not isinstance(value, bool):
        x = float(value)
        return fmt_g(x) if math.isnan(x) or math.isinf(x) or x.is_integer() else f"{x:,.6g}"
    return str(value)


def input_value(value: float) -> str:
    """A number for an ``<input>``'s value that reads back as the same float64: the shortest
    round-trip form (``repr``), no grouping, no exponent for everyday sizes (500.0 → 500,
    0.1 + 0.2 → 0.30000000000000004)."""
    x = float(value)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def input_percent(share: float) -> str:
    """A share as the percentage an ``<input>`` shows, exact in decimal: the share's shortest
    decimal form times 100 (0.99 → 99, 0.995 → 99.5), which the page reads back as
    ``Number(text + 'e-2')``, the same float64 as the share."""
    scaled = (decimal.Decimal(repr(float(share))) * 100).normalize()
    return format(scaled, "f")


def pct_signed(value: Any, digits: int = 1) -> str:
    """A fraction as a signed percent: ``+2.1%``, ``-0.4%``."""
    if is_missing(value):
        return MISSING
    text = fmt(value, f".{digits}pct")
    return text if text.startswith("-") else "+" + text


def plain(value: Any, decimals: int = 2) -> str:
    """The reading form for terminal tables: whole numbers without decimals (``8``, ``1,152``),
    others with up to ``decimals`` decimals from 1 up (``121.61``, ``22.5``) and three
    significant digits below 1 (``0.0655``); trailing zeros dropped, never scientific notation.
    Booleans read ``yes``/``no``; text is returned as is."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if is_missing(value):
        return MISSING
    if isinstance(value, Integral):
        return f"{int(value):,d}"
    if not isinstance(value, Real):
        return str(value)
    x = float(value)
    if math.isinf(x):
        return _infinity(x)
    a = abs(x)
    if a >= 1 or a == 0:
        n = decimals
    else:
        n = min(max(decimals, 2 - math.floor(math.log10(a))), _PLAIN_MAX_DECIMALS)
    text = _fixed(x, n)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def signed(value: Any, decimals: int = 2) -> str:
    """``plain`` with an explicit sign: ``+8.7``, ``-0.05``, ``0``."""
    text = plain(value, decimals)
    if text in (MISSING, "0") or text.startswith("-") or isinstance(value, bool) \
            or not isinstance(value, Real):
        return text
    return "+" + text


def change_texts(old: Any, new: Any, delta: Any = None,
                 relative: Any = None) -> tuple[str, str, str, str]:
    """(old, new, delta, relative) of one changed figure in the reading form, with just enough
    decimals (2 to 6) that old and new read differently; a missing delta or relative is ''."""
    decimals = 2
    while decimals < 6 and plain(old, decimals) == plain(new, decimals):
        decimals += 1
    rel = ""
    if not is_missing(relative):
        digits = 1
        while digits < 4 and fmt(abs(relative), f".{digits}pct") == fmt(0.0, f".{digits}pct"):
            digits += 1
        rel = pct_signed(relative, digits)
    return (plain(old, decimals), plain(new, decimals),
            "" if is_missing(delta) else signed(delta, decimals), rel)


def signed_delta(value: float, spec: str) -> str:
    """A delta in the figure's own format with its sign; percent figures move in points."""
    if is_missing(value) or math.isinf(value):
        return MISSING
    if spec.endswith("pct"):
        text = f"{abs(value) * 100:,.1f} pp"
    elif spec.endswith("x"):
        text = format_value(abs(value), spec[:-1] + "f" if spec[:-1] else ".2f")
    else:
        text = format_value(abs(value), spec)
    if not any(ch in "123456789" for ch in text):   # rounds to zero: no "-0.0"
        return "±" + text
    return ("+" if value > 0 else "-") + text


def signed_change(value: float) -> str:
    """Relative change, whole percent, signed; ±0% when it rounds to zero."""
    if is_missing(value) or math.isinf(value):
        return MISSING
    text = format_value(abs(value), ".0pct")
    return ("±" if text == "0%" else "+" if value > 0 else "-") + text


SECONDS_FROM_MS = 10_000.0   # a latency of 10 s or more reads in seconds


def fmt_latency_ms(value: Any, spec: str = "") -> str:
    """A latency given in ms: as ``fmt(value, spec)`` below 10 s; from 10 s on in seconds with
    its unit ("773 s", "12.5 s"), since 773,158 ms is not read at a glance."""
    try:
        ms = float(value)
    except (TypeError, ValueError):
        return fmt(value, spec)
    if not math.isfinite(ms) or abs(ms) < SECONDS_FROM_MS:
        return fmt(value, spec)
    s = ms / 1000.0
    return f"{fmt(s, '.0f' if abs(s) >= 100 else '.1f')} s"


def tier_label(value: float, axis: str = "concurrency") -> str:
    """A tier as the round's axis names it, in plain text (check, diff, console, figures, the
    ids of a configuration split by the axis not swept): `C=8`, or `4 req/s` / `∞ req/s` on a
    rate sweep; `C=?` when unknown. The page's own tier labels come from its string table."""
    x = float(value)
    text = ("?" if math.isnan(x) else "∞" if math.isinf(x)
            else f"{int(x)}" if x.is_integer() else f"{x:g}")
    return f"{text} req/s" if axis == "request_rate" else f"C={text}"
