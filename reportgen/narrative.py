"""Author prose per report section: ``<round>/narrative/<section>.<zh|en>.md`` → safe HTML.

Markdown is rendered with ``MarkdownIt("js-default")``: raw HTML off, GFM tables and
strikethrough on, ``javascript:``-style links refused. The rendered HTML is the only user-derived
text the page marks safe, so nothing else may reach it unrendered.

Placeholders put computed numbers into the prose, so the text follows corrected data::

    {{ name }}            default format for the value's type
    {{ name:SPEC }}       SPEC is one of the formats below

``name`` is a dotted key of ``analysis.values`` (e.g. ``crossover.concurrency``). Formats (the
same in both languages, from ``reportgen.formatting``; ``N`` is a number of decimals):

    (none)  int → ``1,332``; float → 0 dp from 100, 1 dp from 10, 2 dp from 1, else 3 significant
            digits (``1,388`` ``22.5`` ``5.84`` ``0.0655``); text as is
    .Nf     fixed decimals with thousands separators        ``{{ x:.1f }}`` → ``8.3``
    d       rounded integer with thousands separators       ``{{ x:d }}``   → ``19,089``
    pct     a fraction as a percent (auto decimals: 0 from 10 %, 1 from 1 %, else 2)  → ``81%``
    .Npct   a fraction as a percent with N decimals         ``{{ x:.2pct }}`` → ``1.35%``
    x       a ratio with a multiplication sign (auto decimals)   → ``2.71×``
    .Nx     a ratio with N decimals                          ``{{ x:.1x }}``  → ``3.2×``
    s       text only (a number here is an error)

A missing value (NaN / None) prints as ``—``. Placeholders are replaced inside the parsed
markdown (text, inline code, code blocks), so a substituted value is always plain text and can
never become markup. ``{{`` always opens a placeholder. An unknown name, an unknown format, a
malformed placeholder, or a file whose name is not ``<section>.<zh|en>.md`` is an ``InputError``
naming the file (and line).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup

from reportgen.errors import InputError
from reportgen.formatting import format_value
from reportgen.paths import display_path
from reportgen.text import LANGS

# Page sections in page order; a narrative file may exist for any of them.
SECTIONS: tuple[str, ...] = (
    "setup", "glossary", "headline", "baseline", "crossover", "bytes", "prefill", "batching",
    "waves", "stalls", "anomalies", "memory", "data", "checks", "constants", "next",
)

_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]*(\.[A-Za-z0-9_\-]+)*$")
_FILE = re.compile(r"^(?P<section>[a-z]+)\.(?P<lang>[a-z]+)\.md$")
_TIER = re.compile(r"^c\d+$")


# ---------------------------------------------------------------------------- placeholders

@dataclass(frozen=True)
class _Ref:
    name: str
    spec: str


def _parse_ref(body: str) -> _Ref | None:
    name, _, spec = body.strip().partition(":")
    name, spec = name.strip(), spec.strip()
    if not _NAME.match(name):
        return None
    return _Ref(name, spec)


def _lookup(values: Mapping[str, Any], name: str, lang: str) -> Any:
    value = values[name]
    if isinstance(value, Mapping) and set(value) <= set(LANGS):  # bilingual text value
        return value.get(lang, value.get("en"))
    return value


def _check_placeholders(source: str, values: Mapping[str, Any], path: Path, lang: str) -> None:
    """Validate every placeholder against the raw lines, so errors can name the line."""
    for lineno, line in enumerate(source.splitlines(), start=1):
        if "{{" not in line and "}}" not in line:
            continue
        stripped = _PLACEHOLDER.sub("", line)
        if "{{" in stripped:
            raise InputError(path, "unclosed placeholder '{{' (expected '{{ name }}' on one line)",
                             lineno)
        for match in _PLACEHOLDER.finditer(line):
            ref = _parse_ref(match.group(1))
            if ref is None:
                expected = "'{{ dotted.name }}' or '{{ dotted.name:format }}'"
                shown = match.group(0) if len(match.group(0)) <= 80 else \
                    f"{match.group(0)[:80]}…"
                raise InputError(path, f"malformed placeholder '{shown}' "
                                       f"(expected {expected})", lineno)
            if ref.name not in values:
                raise InputError(path, _unknown_name(ref.name, values), lineno)
            try:
                format_value(_lookup(values, ref.name, lang), ref.spec)
            except ValueError as exc:
                raise InputError(path, f"placeholder '{ref.name}': {exc}", lineno) from None


# Value families that exist only when the data shows the thing they describe.
_CONDITIONAL = {
    "throughput_drop": "no engine's output throughput falls from one tier to the next",
    "crossover": "no pair of engines has throughput curves that cross",
}


def _unknown_name(name: str, values: Mapping[str, Any]) -> str:
    """Tell a typo from a figure the data no longer has: a name that differs from existing
    ones only in its tier (``c8``) or engine part means that tier / engine data is missing."""
    parts = name.split(".")
    engines = {k.split(".")[1] for k in values if k.startswith("engines.") and
               k.endswith(".label") and k.count(".") == 2}
    tiers: set[str] = set()
    others: set[str] = set()
    for key in values:
        other = key.split(".")
        if len(other) != len(parts):
            continue
        diff = [i for i, (a, b) in enumerate(zip(parts, other, strict=True)) if a != b]
        if len(diff) != 1:
            continue
        i = diff[0]
        if _TIER.match(parts[i]) and _TIER.match(other[i]):
            tiers.add(other[i])
        elif i == 1 and other[i] in engines and parts[1] in engines:
            others.add(other[i])
    fix = "the data changed, so update the narrative"
    if tiers:
        have = ", ".join(f"C={t[1:]}" for t in sorted(tiers, key=lambda t: int(t[1:])))
        tier = next(p for p in parts if _TIER.match(p))
        return (f"'{name}' has no value in this round's data: there is no C={tier[1:]} result "
                f"for it (there is for {have}); {fix}")
    if others:
        return (f"'{name}' has no value in this round's data: engine '{parts[1]}' lacks this "
                f"figure ({', '.join(sorted(others))} has it; a missing log or file?); {fix}")
    family = _CONDITIONAL.get(parts[0])
    if family and not any(k.startswith(f"{parts[0]}.") for k in values):
        return f"'{name}' has no value in this round's data ({family}); {fix}"
    near = difflib.get_close_matches(name, list(values), n=1)
    hint = f"; did you mean '{near[0]}'?" if near else ""
    shown = name if len(name) <= 80 else f"{name[:80]}…"
    return f"unknown placeholder name '{shown}'{hint}"


SYNTHETIC_MARK = "†"


def _substitute(text: str, values: Mapping[str, Any], lang: str,
                marked: Collection[str] = ()) -> str:
    """Fill the placeholders; a value computed from declared-synthetic input carries the mark,
    so prose can never pass one off as a measurement."""
    def repl(match: re.Match[str]) -> str:
        ref = _parse_ref(match.group(1))
        assert ref is not None  # validated line by line beforehand
        text = format_value(_lookup(values, ref.name, lang), ref.spec)
        return text + SYNTHETIC_MARK if ref.name in marked else text

    return _PLACEHOLDER.sub(repl, text)


def _fill_tokens(tokens: list[Token], values: Mapping[str, Any], lang: str,
                 marked: Collection[str] = ()) -> None:
    for token in tokens:
        if token.type in ("fence", "code_block"):
            token.content = _substitute(token.content, values, lang, marked)
        if token.children:
            for child in token.children:
                if child.type in ("text", "code_inline"):
                    child.content = _substitute(child.content, values, lang, marked)


# ---------------------------------------------------------------------------- rendering

def markdown() -> MarkdownIt:
    """The one markdown configuration the page uses (raw HTML off)."""
    return MarkdownIt("js-default")


@dataclass(frozen=True)
class Prose:
    """One section's rendered prose: optional heading line and body, per language."""

    title: dict[str, Markup]   # lang → inline HTML of a leading '# ' line ('' when absent)
    body: dict[str, Markup]    # lang → block HTML
    source_lang: dict[str, str]  # lang shown → language the text was written in


def render_markdown(source: str, values: Mapping[str, Any], path: Path, lang: str,
                    md: MarkdownIt | None = None, marked: Collection[str] = ()
                    ) -> tuple[Markup, Markup]:
    """Render one narrative file. A first line ``# ...`` becomes the section's headline
    (returned separately, inline HTML); the rest is the body."""
    md = md or markdown()
    _check_placeholders(source, values, path, lang)
    title_src, body_src = "", source
    lines = source.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and re.match(r"^# \S", lines[first]):
        title_src = lines[first][2:].strip()
        body_src = "\n" * (first + 1) + "\n".join(lines[first + 1:])
    env: dict[str, Any] = {}
    title = ""
    if title_src:
        tokens = md.parseInline(title_src, env)
        _fill_tokens(tokens, values, lang, marked)
        title = md.renderer.render(tokens, md.options, env)
    tokens = md.parse(body_src, env)
    _fill_tokens(tokens, values, lang, marked)
    body = md.renderer.render(tokens, md.options, env)
    return Markup(title), Markup(body)


def load_narrative(round_dir: Path, values: Mapping[str, Any],
                   marked: Collection[str] = ()) -> dict[str, Prose]:
    """Read ``<round>/narrative/*.md`` → section id → Prose. A missing folder means no prose.
    Placeholders named in ``marked`` (values from declared-synthetic input) get the † mark.

    When only one language exists for a section, it is shown in both (marked with its own
    ``lang``), so switching language never hides the author's text.
    """
    folder = Path(round_dir) / "narrative"
    if not folder.is_dir():
        return {}
    md = markdown()
    found: dict[str, dict[str, tuple[Markup, Markup]]] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        shown = display_path(path, Path(round_dir))
        m = _FILE.match(path.name)
        if not path.is_file() or not m or m.group("section") not in SECTIONS or \
                m.group("lang") not in LANGS:
            raise InputError(shown, "unexpected file: narrative files are named "
                                    "<section>.<zh|en>.md with section one of "
                                    + ", ".join(SECTIONS))
        try:
            raw = path.read_bytes()
            source = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(shown, f"not UTF-8 (byte {exc.start})",
                             raw.count(b"\n", 0, exc.start) + 1) from None
        except OSError as exc:
            raise InputError(shown, f"cannot read: {exc.strerror}") from None
        section, lang = m.group("section"), m.group("lang")
        found.setdefault(section, {})[lang] = render_markdown(source, values, shown, lang, md,
                                                           marked)
    out: dict[str, Prose] = {}
    for section in SECTIONS:
        if section not in found:
            continue
        per = found[section]
        src = {lang: lang if lang in per else next(iter(per)) for lang in LANGS}
        out[section] = Prose(
            title={lang: per[src[lang]][0] for lang in LANGS},
            body={lang: per[src[lang]][1] for lang in LANGS},
            source_lang=src,
        )
    return out
