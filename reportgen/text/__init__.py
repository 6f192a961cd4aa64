"""Bilingual text and its formatting: `bilingual` (`Bi`, `LANGS`, string tables), `i18n` (UI
strings, figure language patches, markdown), `formatting` (the one number formatter), `bidi`,
`terminal` (text safe for a terminal) and `listing` (long lists shortened).
"""
