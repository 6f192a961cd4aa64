"""Rounds read back: `baseline` opens the previous round (a folder, a report, a baseline.toml),
`diff` reads what `reportgen diff` compares; both call the pipeline for a round folder.
"""
