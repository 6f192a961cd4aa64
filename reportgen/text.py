"""The one bilingual text type and the page languages.

Every piece of text that differs by language — round.toml titles and labels, UI strings,
self-check messages, where a constant came from — is a ``Bi``. ``manifest.Text`` and
``i18n.Bi`` are this class under their historical names.
"""

from __future__ import annotations

from dataclasses import dataclass

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

    def as_dict(self) -> dict[str, str]:
        """``{"zh": …, "en": …}``: the form tables JSON and narrative values use."""
        return {"zh": self.zh, "en": self.en}
