"""Both page languages: the static UI strings, and language patches for figures.

Static text (headings, table headers, glossary, figure labels) lives in
``templates/i18n/ui.toml``, one ``{ zh = "...", en = "..." }`` per key; never in Python. A string
may hold ``{name}`` slots that the page context fills with already-formatted values, and inline
markdown (``code``, **bold**), rendered with the same safe configuration as the narrative.

Figures are built once per language in Python; ``figure_patches`` diffs the ``to_dict()``
results into flat ``Plotly.update(gd, data, layout, traces)`` arguments, so only the base figure
carries data arrays and a language switch is one call per figure.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup

from reportgen.text.bilingual import LANGS, Bi, flatten_table


def markdown() -> MarkdownIt:
    """The one markdown configuration the page uses (raw HTML off): UI strings here, the
    narrative in reportgen.narrative."""
    return MarkdownIt("js-default")


_SLOT = re.compile(r"(?<!%)\{([a-z][a-z0-9_]*)\}")


# A rendered string with its slots left open: literal HTML and slot names alternating
# (even indices HTML, odd ones names). See compile_strings.
Compiled = list[str]
_OPEN, _CLOSE = "\ue000", "\ue001"   # private-use marks: markdown and escaping leave them be
_MARK = re.compile(f"{_OPEN}([a-z][a-z0-9_]*){_CLOSE}")
COMPILED_NAME = "ui.compiled.json"


class UI:
    """The UI string table. ``ui.t(key, **slots)`` → Bi of inline HTML; ``ui.raw(key, lang)``
    → the unrendered string (for figure labels, which Plotly escapes itself).

    ``compiled`` holds every string already rendered (``compile_strings``; shipped as
    ui.compiled.json), so a build fills slots into ready HTML instead of parsing markdown."""

    def __init__(self, strings: Mapping[str, Mapping[str, str]], md: MarkdownIt | None = None,
                 compiled: Mapping[str, Mapping[str, Compiled]] | None = None):
        self._strings = dict(strings)
        self._md_given = md
        self._compiled = dict(compiled or {})

    @property
    def _md(self) -> MarkdownIt:
        if self._md_given is None:
            self._md_given = markdown()
        return self._md_given

    def for_axis(self, axis: str) -> UI:
        """The table a request-rate round reads: every ``rate.<key>`` string replaces
        ``<key>`` (axis titles, column heads, hover text that would otherwise say C)."""
        if axis != "request_rate":
            return self
        swapped = dict(self._strings)
        compiled = dict(self._compiled)
        for key, value in self._strings.items():
            if key.startswith("rate."):
                swapped[key[len("rate."):]] = value
                if key in self._compiled:
                    compiled[key[len("rate."):]] = self._compiled[key]
                else:
                    compiled.pop(key[len("rate."):], None)
        return UI(swapped, self._md_given, compiled)

    def __contains__(self, key: str) -> bool:
        return key in self._strings

    def keys(self) -> list[str]:
        return sorted(self._strings)

    def raw(self, key: str, lang: str, **slots: Any) -> str:
        text = self._strings[key][lang]
        if not slots:
            return text
        return _SLOT.sub(lambda m: _slot(slots[m.group(1)], lang), text)

    def plain(self, key: str, **slots: Any) -> Bi:
        """Plain text in both languages (the template escapes it; no markdown); a ``Bi``
        slot gives each language its own value."""
        return Bi(*(self.raw(key, lang, **slots) for lang in LANGS))

    def t(self, key: str, **slots: Any) -> Bi:
        """Inline text; slot values (str, or Bi for per-language text such as engine labels)
        are inserted as plain text after markdown parsing, so a value never becomes markup."""
        done = self._compiled.get(key)
        if done is not None:
            return Bi(*(_fill_compiled(done[f"{lang}.inline"], _per_lang(slots, lang))
                        for lang in LANGS))
        return Bi(*(self._inline(self._strings[key][lang], _per_lang(slots, lang))
                    for lang in LANGS))

    def block(self, key: str, **slots: Any) -> Bi:
        """Block text (paragraphs, lists, code blocks)."""
        done = self._compiled.get(key)
        if done is not None:
            return Bi(*(_fill_compiled(done[f"{lang}.block"], _per_lang(slots, lang))
                        for lang in LANGS))
        return Bi(*(self._block(self._strings[key][lang], _per_lang(slots, lang))
                    for lang in LANGS))

    def _fill(self, tokens: list[Any], slots: Mapping[str, Any]) -> None:
        def repl(m: re.Match[str]) -> str:
            if m.group(1) not in slots:
                raise KeyError(f"UI string slot '{m.group(1)}' not given")
            return str(slots[m.group(1)])

        for token in tokens:
            if token.type in ("fence", "code_block", "text", "code_inline"):
                token.content = _SLOT.sub(repl, token.content)
            if token.children:
                self._fill(token.children, slots)

    def _inline(self, text: str, slots: Mapping[str, Any]) -> Markup:
        env: dict[str, Any] = {}
        tokens = self._md.parseInline(text, env)
        self._fill(tokens, slots)
        return Markup(self._md.renderer.render(tokens, self._md.options, env))

    def _block(self, text: str, slots: Mapping[str, Any]) -> Markup:
        env: dict[str, Any] = {}
        tokens = self._md.parse(text, env)
        self._fill(tokens, slots)
        return Markup(self._md.renderer.render(tokens, self._md.options, env))


def _fill_compiled(parts: Compiled, slots: Mapping[str, str]) -> Markup:
    """A compiled string with its slots filled: each value escaped exactly as markdown-it
    escapes the text token it would have been put in (``escapeHtml``)."""
    out = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(part)
        elif part in slots:
            out.append(escapeHtml(str(slots[part])))
        else:
            raise KeyError(f"UI string slot '{part}' not given")
    return Markup("".join(out))


def compile_strings(strings: Mapping[str, Mapping[str, str]], md: MarkdownIt | None = None
                    ) -> dict[str, dict[str, Compiled]]:
    """Every string rendered once, inline and as a block, per language. Each slot is filled
    with a private-use mark through the same path ``UI.t`` takes (parse, fill the text
    tokens, render), then the rendered HTML is cut at the marks: filling the cuts with escaped
    values later gives the bytes the live path gives."""
    ui = UI(strings, md)
    out: dict[str, dict[str, Compiled]] = {}
    for key in sorted(strings):
        entry: dict[str, Compiled] = {}
        for lang in LANGS:
            text = strings[key][lang]
            marks = {m: f"{_OPEN}{m}{_CLOSE}" for m in _SLOT.findall(text)}
            for form, render in (("inline", ui._inline), ("block", ui._block)):
                entry[f"{lang}.{form}"] = _MARK.split(str(render(text, marks)))
        out[key] = entry
    return out


def ui_digest(source: bytes) -> str:
    return hashlib.sha256(source).hexdigest()


def compiled_text(source: bytes, path: Path) -> str:
    """The ui.compiled.json that belongs to ui.toml's ``source`` (see tools/compile_ui.py)."""
    strings = flatten_table(tomllib.loads(source.decode("utf-8")), path)
    data = {"ui_toml_sha256": ui_digest(source), "strings": strings,
            "compiled": compile_strings(strings)}
    return json.dumps(data, ensure_ascii=False, indent=0, sort_keys=True) + "\n"


def _slot(value: Any, lang: str) -> str:
    return value.get(lang) if isinstance(value, Bi) else str(value)


def _per_lang(slots: Mapping[str, Any], lang: str) -> dict[str, str]:
    return {k: _slot(v, lang) for k, v in slots.items()}


@cache
def load_ui(path: Path) -> UI:
    """Read the UI string table (cached per path; the file ships with the package). The
    compiled table beside it is used when it was made from these exact bytes; otherwise (an
    edited ui.toml not yet recompiled) every string is parsed as it is used."""
    source = path.read_bytes()
    try:
        data = json.loads((path.parent / COMPILED_NAME).read_bytes())
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and data.get("ui_toml_sha256") == ui_digest(source):
        return UI(data["strings"], compiled=data["compiled"])
    return UI(flatten_table(tomllib.loads(source.decode("utf-8")), path))


# ---------------------------------------------------------------------------- figure patches

def _is_leaf(value: Any) -> bool:
    if isinstance(value, dict):
        return "bdata" in value or not value
    if isinstance(value, list):
        return not value or not all(isinstance(v, dict) for v in value)
    return True


def flatten(obj: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{'xaxis': {'title': {'text': 'C'}}}`` → ``{'xaxis.title.text': 'C'}``; lists of dicts
    become ``annotations[0].text``; scalar lists and ``{dtype, bdata}`` arrays stay leaves."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if _is_leaf(value):
            out[name] = value
        elif isinstance(value, dict):
            out.update(flatten(value, name))
        else:
            for i, item in enumerate(value):
                out.update(flatten(item, f"{name}[{i}]"))
    return out


def figure_patches(figs: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per language: ``{"data": {attr: [value per trace]}, "layout": {attr: value},
    "traces": [indices]}`` holding only what differs between the language variants.

    A key missing in one variant is sent as ``None`` (Plotly resets it). The variants must have
    the same traces; anything else is a programming error.
    """
    langs = list(figs)
    traces = {lang: [flatten(t) for t in figs[lang].get("data", [])] for lang in langs}
    counts = {len(v) for v in traces.values()}
    if len(counts) != 1:
        raise ValueError("figure language variants have different trace counts")
    layout = {lang: flatten(figs[lang].get("layout", {})) for lang in langs}

    def differs(values: list[Any]) -> bool:
        return any(v != values[0] for v in values[1:])

    layout_keys = sorted(set().union(*(layout[lang] for lang in langs)))
    layout_diff = [k for k in layout_keys if differs([layout[lang].get(k) for lang in langs])]

    n = counts.pop()
    data_keys: set[str] = set()
    changed: set[int] = set()
    for i in range(n):
        keys = set().union(*(traces[lang][i] for lang in langs))
        for k in keys:
            if differs([traces[lang][i].get(k) for lang in langs]):
                data_keys.add(k)
                changed.add(i)
    indices = sorted(changed)
    out: dict[str, dict[str, Any]] = {}
    for lang in langs:
        out[lang] = {
            "data": {k: [traces[lang][i].get(k) for i in indices] for k in sorted(data_keys)},
            "layout": {k: layout[lang].get(k) for k in layout_diff},
            "traces": indices,
        }
    return out
