"""Rewrite the gold files that pin the page: tests/gold/<case>_page.json (the page model as
JSON, `reportgen.page.gold.page_json`) and tests/gold/report_sha256.json (the sha256 of each
case's complete report bytes).

    python tools/update_gold.py [CASE ...]

Run it only after an intended change of what the page says or how it is rendered, and read
the diff of tests/gold/ before committing it: a refactor must leave every gold file as it is
(tests/test_page_gold.py). The cases:

- ``sample``: the bundled sample (`reportgen build` with no arguments; its round.toml names a
  baseline, so "Since the previous round" is pinned too);
- ``sample-revisions``: the sample built with ``--previous`` a copy of its own tables with a
  few figures changed (the revisions section);
- ``bench``: a small synthetic round from benchmarks/make_round.py (4 configurations × 12
  tiers, fixed seed: the same bytes on every machine);
- ``real-rtx`` and ``real-a100``: two real folders vendored in tests/data/real_rounds, read in
  place (auto layout, several workloads; concurrency and request-rate axes).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportgen.page.gold import page_json  # noqa: E402

GOLD = ROOT / "tests" / "gold"
SHA_FILE = GOLD / "report_sha256.json"
REAL_ROUNDS = ROOT / "tests" / "data" / "real_rounds"   # vendored from ../shared/real_rounds


@dataclass(frozen=True)
class Inputs:
    round_dir: Path
    previous: Path | None = None


def _sample(_: Path) -> Inputs:
    from reportgen.files.resources import sample_round_dir

    return Inputs(sample_round_dir())


def _sample_revisions(tmp: Path) -> Inputs:
    """The sample against its own tables with three figures moved: every kind of row the
    revisions section has (a group per input, delta and percent)."""
    from reportgen.files.resources import sample_round_dir
    from reportgen.sources.diff import tables_from_round

    tables = tables_from_round(sample_round_dir())
    tables["tiers"][0]["output_tok_s"] *= 1.01
    tables["tiers"][3]["ttft_p50_ms"] += 5.0
    tables["tiers"][-1]["duration_s"] *= 0.98
    previous = tmp / "previous.json"
    previous.write_text(json.dumps(tables), encoding="utf-8")
    return Inputs(sample_round_dir(), previous)


def _bench(tmp: Path) -> Inputs:
    sys.path.insert(0, str(ROOT))
    from benchmarks import make_round

    out = tmp / "round"   # the folder's name is part of every file reference on the page
    make_round.generate(out, itl_samples=20_000, log_mb=1.5, seed=7, jobs=1)
    return Inputs(out)


def _real(name: str) -> Callable[[Path], Inputs]:
    def inputs(_: Path) -> Inputs:
        folder = REAL_ROUNDS / name
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder} is not there (the vendored real rounds)")
        return Inputs(folder)
    return inputs


CASES: dict[str, Callable[[Path], Inputs]] = {
    "sample": _sample,
    "sample-revisions": _sample_revisions,
    "bench": _bench,
    "real-rtx": _real("rtxpro6000-maxq-vs-ws-concurrency-repeats"),
    "real-a100": _real("a100-vs-tpu-request-rate-sweep"),
}


def outputs(case: str, tmp: Path) -> tuple[str, str]:
    """(page model JSON, sha256 of the report bytes) of one case, as `reportgen build` makes
    them (no SOURCE_DATE_EPOCH: a round without a date shows none)."""
    from reportgen.build import assemble_report

    os.environ.pop("SOURCE_DATE_EPOCH", None)
    given = CASES[case](tmp)
    assembled = assemble_report(given.round_dir, previous=given.previous)
    html = assembled.html().encode("utf-8")   # the bytes build_report writes
    return page_json(assembled.page), hashlib.sha256(html).hexdigest()


def page_file(case: str) -> Path:
    return GOLD / f"{case.replace('-', '_')}_page.json"


def read_shas() -> dict[str, str]:
    return json.loads(SHA_FILE.read_text(encoding="utf-8")) if SHA_FILE.exists() else {}


def main(argv: list[str]) -> int:
    cases = argv or list(CASES)
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        print(f"unknown case {unknown[0]!r}; cases: {', '.join(CASES)}", file=sys.stderr)
        return 2
    GOLD.mkdir(parents=True, exist_ok=True)
    shas = read_shas()
    for case in cases:
        with tempfile.TemporaryDirectory() as tmp:
            text, sha = outputs(case, Path(tmp))
        page_file(case).write_text(text, encoding="utf-8")
        shas[case] = sha
        print(f"{case}: {page_file(case).relative_to(ROOT)} ({len(text) / 1e3:.0f} kB), "
              f"report sha256 {sha[:16]}…")
    SHA_FILE.write_text(json.dumps(dict(sorted(shas.items())), indent=1) + "\n",
                        encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
