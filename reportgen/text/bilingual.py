"""The one bilingual text type and the page languages.

Every piece of text that differs by language — round.toml titles and labels, UI strings,
self-check messages, where a constant came from — is a ``Bi``, imported from here (it has no
other name).
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from reportgen.errors import InputError

LANGS: tuple[str, ...] = ("zh", "en")


@dataclass(frozen=True)
class Bi:
    """One piece of text in both languages. ``zh``/``en`` are plain text (escaped by the
    template) or ``Markup`` produced by the safe markdown renderer."""

    zh: str
    en: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en

    @property
    def same(self) -> bool:
        return self.zh == self.en

    @classmethod
    def plain(cls, text: str) -> Bi:
        return cls(text, text)

    @classmethod
    def read(cls, value: object, fallback: str = "") -> Bi:
        """A text read back from JSON or TOML: ``{zh, en}`` (a missing or non-text language
        takes the other's, then ``fallback``) or a plain string for both; anything else is
        ``fallback``. The one place a read ``{zh, en}`` object becomes a ``Bi``."""
        if isinstance(value, Mapping):
            zh, en = value.get("zh"), value.get("en")
            zh = zh if isinstance(zh, str) and zh else en if isinstance(en, str) and en \
                else fallback
            en = en if isinstance(en, str) and en else zh
            return cls(zh, en)
        return cls.plain(value if isinstance(value, str) and value else fallback)

    def as_dict(self) -> dict[str, str]:
        """``{"zh": …, "en": …}``: the form tables JSON and narrative values use."""
        return {"zh": self.zh, "en": self.en}


# ------------------------------------------------------------------------- plain string tables

Special = Callable[[Any], str]


class _Formatter(string.Formatter):
    """``str.format`` plus named specs (``{c:tier}``) that the caller supplies."""

    def __init__(self, specials: Mapping[str, Special]) -> None:
        self.specials = specials

    def format_field(self, value: Any, format_spec: str) -> str:
        special = self.specials.get(format_spec)
        return special(value) if special is not None else format(value, format_spec)


def _rstrip(value: Any) -> str:
    return str(value).rstrip()


def _then(value: Any) -> str:
    return f" {value}".rstrip()


class Strings:
    """A plain-text string table (key → both languages) whose leaves are Python format
    strings; ``bi(key, **params)`` fills them. A ``Bi`` parameter gives each language its own
    text. Unlike the UI table (``reportgen.text.i18n.UI``) nothing is markdown: these strings go to
    the terminal and into JSON as they are."""

    def __init__(self, strings: Mapping[str, Mapping[str, str]]) -> None:
        self._strings = dict(strings)

    def __contains__(self, key: str) -> bool:
        return key in self._strings

    def keys(self) -> list[str]:
        return sorted(self._strings)

    def bi(self, key: str, specials: Mapping[str, Special] | None = None,
           **params: Any) -> Bi:
        fmt = _Formatter({"rstrip": _rstrip, "then": _then, **(specials or {})})
        text = self._strings[key]
        return Bi(*(fmt.vformat(text[lang], (), {
            k: v.get(lang) if isinstance(v, Bi) else v for k, v in params.items()})
            for lang in LANGS))


def flatten_table(table: Mapping[str, Any], where: str | Path, prefix: str = ""
                  ) -> dict[str, dict[str, str]]:
    """Nested TOML tables → ``{"a.b.c": {"zh": …, "en": …}}``; a table holding zh/en is a
    leaf and must hold exactly those two strings."""
    out: dict[str, dict[str, str]] = {}
    for key, value in table.items():
        name = f"{prefix}.{key}" if prefix else key
        if not isinstance(value, dict):
            raise InputError(where, f"[{name}]: expected a table")
        if set(value) & set(LANGS):
            if set(value) != set(LANGS) or not all(isinstance(v, str) for v in value.values()):
                raise InputError(where, f"[{name}]: expected exactly zh and en strings")
            out[name] = dict(value)
        else:
            out.update(flatten_table(value, where, name))
    return out


@cache
def load_strings(path: Path) -> Strings:
    """Read a plain-text string table (cached per path; the file ships with the package)."""
    return Strings(flatten_table(tomllib.loads(path.read_text(encoding="utf-8")), path))
