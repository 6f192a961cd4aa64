"""File I/O: `safe_read` (the one checked reader of every input), `write` (output-path policy and
the atomic write), `resources` (packaged files), `paths` (how a file is shown), `datablock` (the
page's data block) and `embedded` (the checked reader of report data read back).
"""
