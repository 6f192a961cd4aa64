"""The provenance banner of a round whose files are declared reconstructed or synthetic."""

from __future__ import annotations

from markupsafe import Markup, escape

from reportgen.analyze.result import Analysis
from reportgen.page.cells import html_list
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.i18n import UI


def provenance_notice(analysis: Analysis, ui: UI) -> Bi | None:
    """The banner of a round whose files are declared reconstructed or synthetic: the
    author's note, then what is synthetic (the † mark) and what is reconstructed."""
    prov = analysis.synthetic.declared
    if not prov.stated:
        return None
    status = prov.status if prov.status != "measured" else (
        "synthetic" if any(f.status == "synthetic" for f in prov.files) else "reconstructed")
    parts = {lang: [Markup("<p><strong>") + ui.t(f"provenance.title_{status}").get(lang)
                    + Markup("</strong> ")
                    + (escape(prov.note.get(lang)) if prov.note else Markup(""))
                    + Markup("</p>")] for lang in LANGS}
    for kind in ("synthetic", "reconstructed"):
        entries = [f for f in prov.files if f.status == kind]
        whole = kind == "synthetic" and prov.status == "synthetic" and not prov.files
        if not entries and not whole:
            continue
        for lang in LANGS:
            items = [f.note.get(lang) if f.note else ", ".join(f.files) for f in entries]
            parts[lang].append(Markup("<p>") + ui.t(f"provenance.lead_{kind}").get(lang)
                               + Markup("</p>"))
            if items:
                parts[lang].append(html_list(items))
    return Bi(*(Markup("").join(parts[lang]) for lang in LANGS))
