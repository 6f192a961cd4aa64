"""Author prose per report section: ``<round>/narrative/<section>.<zh|en>.md`` → safe HTML.

Markdown is rendered with ``MarkdownIt("js-default")``: raw HTML off, GFM tables and
strikethrough on, ``javascript:``-style links refused. The rendered HTML is the only user-derived
text the page marks safe, so nothing else may reach it unrendered.

Placeholders put computed numbers into the prose, so the text follows corrected data::

    {{ name }}            default format for the value's type
    {{ name:SPEC }}       SPEC is one of the formats below

``name`` is a dotted key of ``analysis.values`` (e.g. ``crossover.concurrency``). Formats (the
same in both languages, from ``reportgen.text.formatting``; ``N`` is a number of decimals):

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
from reportgen.files.paths import display_path
from reportgen.files.safe_read import printable, read_bytes, read_input, refuse_outside
from reportgen.text.bidi import isolate
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import format_value
from reportgen.text.i18n import load_ui, markdown

# Page sections in page order; a narrative file may exist for any of them.
SECTIONS: tuple[str, ...] = (
    "setup", "glossary", "headline", "findings", "baseline", "crossover", "bytes", "prefill",
    "batching", "waves", "stalls", "distributions", "anomalies", "memory", "telemetry", "data",
    "checks", "constants", "next",
)

# the body holds no brace or newline: a long run of `{` cannot make the search quadratic
_PLACEHOLDER = re.compile(r"\{\{([^{}\n]*)\}\}")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]*(\.[A-Za-z0-9_\-]+)*$")
_FILE = re.compile(r"^(?P<section>[a-z]+)\.(?P<lang>[a-z]+)\.md$")
_TIER = re.compile(r"^c\d+$")
HEADLINE = re.compile(r"^# \S")  # a first line `# …` is the section's headline


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
    if isinstance(value, Bi):  # bilingual text value
        value = value.get(lang)
    # text from input (a label) must not reorder the sentence it is put in
    return isolate(value) if isinstance(value, str) else value


def _check_placeholders(source: str, values: Mapping[str, Any], path: Path | str,
                        lang: str) -> None:
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
            braced = line[match.start() - 1:match.start()] == "{" or \
                line[match.end():match.end() + 1] == "}"  # `{{{ x }}}`: `{{` opens at the first
            if ref is None or braced:
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

@dataclass(frozen=True)
class Prose:
    """One section's rendered prose: optional heading line and body, per language."""

    title: Bi                  # inline HTML of a leading '# ' line ('' when absent)
    body: Bi                   # block HTML
    source_lang: dict[str, str]  # lang shown → language the text was written in


def render_markdown(source: str, values: Mapping[str, Any], path: Path | str, lang: str,
                    md: MarkdownIt | None = None, marked: Collection[str] = (),
                    images: Images | None = None                    ) -> tuple[Markup, Markup]:
    """Render one narrative file. A first line ``# ...`` becomes the section's headline
    (returned separately, inline HTML); the rest is the body. Images: see ``Images``."""
    md = md or markdown()
    _check_placeholders(source, values, path, lang)
    title_src, body_src = "", source
    lines = source.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and HEADLINE.match(lines[first]):
        title_src = lines[first][2:].strip()
        body_src = "\n" * (first + 1) + "\n".join(lines[first + 1:])
    env: dict[str, Any] = {}
    title = ""
    if title_src and first is not None:
        tokens = md.parseInline(title_src, env)
        _fill_tokens(tokens, values, lang, marked)
        (images or Images(None, None, str(path), lang)).place(tokens, first + 1)
        title = md.renderer.render(tokens, md.options, env)
    tokens = md.parse(body_src, env)
    _fill_tokens(tokens, values, lang, marked)
    (images or Images(None, None, str(path), lang)).place(tokens)
    body = md.renderer.render(tokens, md.options, env)
    return Markup(title), Markup(body)


# ---------------------------------------------------------------------------- images

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")  # may sit beside the .md files
IMAGE_TYPES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
               (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"))
_SCHEME = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")
_DATA_IMAGE = re.compile(r"^data:image/(?:png|jpeg|gif|webp);", re.IGNORECASE)


def _image_type(data: bytes) -> str | None:
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for magic, mime in IMAGE_TYPES if data.startswith(magic)), None)


class Images:
    """What a narrative image becomes. The page makes no network request, so:

    - a remote image (``https://…``, ``//host/…``, any URL scheme) is shown as a link with its
      alt text and a note that it was not embedded;
    - a local image (a path relative to the narrative file) is embedded as a ``data:`` URI:
      PNG, JPEG, GIF or WebP, at most ``CAPS["image"]`` bytes (512 KiB), inside the round
      folder (a link leading out of it is refused like every input);
    - a ``data:image/…`` URI already in the file stays as written.

    A local image that is missing, too large, of another type or outside the round stops the
    build with an InputError naming the narrative file and line.
    """

    def __init__(self, folder: Path | None, root: Path | None, shown: str, lang: str) -> None:
        self.folder, self.root, self.shown, self.lang = folder, root, shown, lang

    def place(self, tokens: list[Token], line: int | None = None) -> None:
        for token in tokens:
            where = token.map[0] + 1 if token.map else line
            for child in token.children or ():
                if child.type == "image":
                    self._one(child, where)
            if token.type == "image":
                self._one(token, line)

    def _one(self, token: Token, line: int | None) -> None:
        src = str(token.attrGet("src") or "")
        if _DATA_IMAGE.match(src):
            return
        if _SCHEME.match(src):
            self._remote(token, src)
            return
        token.attrSet("src", self._embed(src, line))

    def _remote(self, token: Token, src: str) -> None:
        """An image token turned into a link and a note (built here, every part escaped)."""
        from reportgen.files.resources import templates_dir

        note = load_ui(templates_dir() / "i18n" / "ui.toml").raw("narrative.remote_image",
                                                                 self.lang)
        alt = "".join(c.content for c in token.children or ()) or src
        token.type, token.tag, token.children, token.attrs = "html_inline", "", None, {}
        token.content = str(Markup('<a href="{}" rel="noreferrer noopener">{}</a> <em>({})</em>'
                                   ).format(src, alt, note))

    def _embed(self, src: str, line: int | None) -> str:
        import base64
        from urllib.parse import unquote

        name = unquote(src.split("#", 1)[0].split("?", 1)[0])
        if self.folder is None or self.root is None or not name:
            raise InputError(self.shown, f"image '{_short(src)}': expected a file next to the "
                                         "narrative file", line)
        path = self.folder / name
        try:
            refuse_outside(path, self.root, name)
            data = read_bytes(path, name, "image")
        except InputError as exc:
            raise InputError(self.shown, f"image '{_short(name)}': {exc.message}", line
                             ) from None
        mime = _image_type(data)
        if mime is None:
            raise InputError(self.shown, f"image '{_short(name)}': not a PNG, JPEG, GIF or WebP "
                                         "file (only these are embedded)", line)
        return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _short(text: str, limit: int = 80) -> str:
    text = printable(text)
    return text if len(text) <= limit else f"{text[:limit]}…"


def load_narrative(round_dir: Path, values: Mapping[str, Any],
                   marked: Collection[str] = ()) -> dict[str, Prose]:
    """Read ``<round>/narrative/*.md`` → section id → Prose. A missing folder means no prose.
    Placeholders named in ``marked`` (values from declared-synthetic input) get the † mark.

    When only one language exists for a section, it is shown in both (marked with its own
    ``lang``), so switching language never hides the author's text.
    """
    root = Path(round_dir)
    folder = root / "narrative"
    if not folder.is_dir():
        return {}
    md = markdown()
    found: dict[str, dict[str, tuple[Markup, Markup]]] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or (path.is_dir() and not path.is_symlink()) or \
                path.suffix.lower() in IMAGE_SUFFIXES:
            continue  # a folder (images, drafts) or an image is not a narrative file
        shown = display_path(path, root)
        m = _FILE.match(path.name)
        if not m or m.group("section") not in SECTIONS or m.group("lang") not in LANGS:
            raise InputError(shown, "unexpected file: narrative files are named "
                                    "<section>.<zh|en>.md with section one of "
                                    + ", ".join(SECTIONS))
        refuse_outside(path, root, shown)
        raw = read_input(path, shown, "narrative")  # a byte-order mark is dropped here
        try:
            source = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(shown, f"not UTF-8 (byte {exc.start})",
                             raw.count(b"\n", 0, exc.start) + 1) from None
        section, lang = m.group("section"), m.group("lang")
        images = Images(path.parent, root, shown, lang)
        found.setdefault(section, {})[lang] = render_markdown(source, values, shown, lang, md,
                                                              marked, images)
    out: dict[str, Prose] = {}
    for section in SECTIONS:
        if section not in found:
            continue
        per = found[section]
        src = {lang: lang if lang in per else next(iter(per)) for lang in LANGS}
        out[section] = Prose(
            title=Bi(*(per[src[lang]][0] for lang in LANGS)),
            body=Bi(*(per[src[lang]][1] for lang in LANGS)),
            source_lang=src,
        )
    return out
