"""The page stage: an Analysis as plain dataclasses (``model``) the template lays out.

This is the only place that decides what the page says. Every number comes from the Analysis
(read through ``data.Data``) and is formatted by ``reportgen.text.formatting``, so both languages
show identical digits; every fixed word comes from the UI string table. ``assemble`` puts the
sections in page order (``from reportgen.page.assemble import build_page``: this file imports
nothing, so importing one section module runs no other); each section is a function
``(Builder) -> blocks`` in a module of its own; ``builder`` holds what they share, ``cells`` the
one place cells get their marks.
"""
