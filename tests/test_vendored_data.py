"""tests/data holds verbatim copies of shared inputs: every vendored folder has the same files,
byte for byte, as its original in ../shared (plus the SOURCE.md this project wrote for its own
data), and every vendored folder names its source and licence."""

from __future__ import annotations

from pathlib import Path

import pytest
from data_paths import DATA, SHARED

# the vendored folders, each a whole copy of the shared folder of the same relative path
FOLDERS = sorted(p.relative_to(DATA) for p in
                 [DATA / "round2-reference", DATA / "seed",
                  *(DATA / "real_rounds").iterdir(), *(DATA / "real_samples").iterdir()])
ADDED = {"round2-reference/SOURCE.md", "seed/SOURCE.md"}   # written here: the data is our own


def files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_every_vendored_folder_names_its_source_and_licence() -> None:
    assert len(FOLDERS) == 6
    for folder in FOLDERS:
        text = (DATA / folder / "SOURCE.md").read_text(encoding="utf-8")
        assert "licen" in text.lower(), folder
        assert folder.as_posix() in (DATA / "README.md").read_text(encoding="utf-8")


@pytest.mark.shared
@pytest.mark.parametrize("folder", FOLDERS, ids=str)
def test_vendored_folder_is_a_verbatim_copy(folder: Path) -> None:
    ours, original = DATA / folder, SHARED / folder
    added = {a.split("/", 1)[1] for a in ADDED if a.startswith(f"{folder.as_posix()}/")}
    assert files(ours) - added == files(original)
    for name in sorted(files(original)):
        assert (ours / name).read_bytes() == (original / name).read_bytes(), f"{folder}/{name}"
