"""The load stage: a round folder (discover, round.toml's manifest) and its raw files → tidy frames.
"""
