"""The multi-round site (`reportgen index`): `update` brings a site up to date round by round,
`cache` keeps each round's entry, `site` decides what may be written, `page` writes index.html.
"""
