"""Round directory → which input files exist for each engine (nothing is parsed here except
``round.toml``).

Paths in messages are shown relative to the round directory's *parent*, e.g.
``round2-rtx4090/vllm/bench/c8.json``: short, and still says which round a file belongs to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.errors import Finding, InputError
from reportgen.files.paths import display_path
from reportgen.load.manifest import Manifest, parse_manifest
from reportgen.reference.gpus import lookup_gpu

__all__ = ["EngineFiles", "RoundFiles", "discover", "display_path", "list_bench_files",
           "read_manifest"]
from reportgen.files.safe_read import check_input, refuse_outside

METRICS_FILE = re.compile(r"^c(\d+)-(before|after)\.prom$")
NOT_ENGINES = {"narrative", "__pycache__"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")  # narrative images (narrative.py)
DIGIT_RUN = re.compile(r"([0-9]+)")


@dataclass(frozen=True)
class EngineFiles:
    id: str
    dir: Path
    bench: tuple[Path, ...]
    server_log: Path | None = None
    fingerprint: Path | None = None
    gpu_csv: Path | None = None
    metrics: dict[int, tuple[Path, Path]] = field(default_factory=dict)  # C -> (before, after)
    series: tuple[Path, ...] = ()  # telemetry time series (DCGM, engine /metrics)


@dataclass
class RoundFiles:
    root: Path
    manifest: Manifest
    engines: dict[str, EngineFiles]
    findings: list[Finding] = field(default_factory=list)
    # display_path resolves the path (system calls); each file is shown several times
    _shown: dict[Path, str] = field(default_factory=dict, repr=False, compare=False)

    def show(self, path: Path) -> str:
        if path not in self._shown:
            self._shown[path] = display_path(path, self.root)
        return self._shown[path]


def _check_readable(path: Path, root: Path) -> None:
    """An input that is there but cannot be read (a dangling symlink, a symlink loop, a
    folder, FIFO or device where a file belongs) or that is a link leading out of the round
    is an error rather than a silently missing file. Nothing is opened here."""
    shown = display_path(path, root)
    check_input(path, shown)
    refuse_outside(path, root, shown)


def _natural_key(path: Path) -> tuple[object, ...]:
    # digit runs compare by value without int() (a 5,000-digit name is still a name)
    parts = DIGIT_RUN.split(path.name)
    return tuple((0, len(p.lstrip("0")), p.lstrip("0"), p) if p.isascii() and p.isdigit()
                 else (1, 0, "", p) for p in parts), path.name


def list_bench_files(directory: Path) -> list[Path]:
    """``*.json`` / ``*.jsonl`` result files in ``directory`` (not recursive), skipping the
    ``*.pytorch.json`` side files, hidden and non-JSON files, in natural order (c2 before c16,
    then by name, so the order never depends on the file system)."""
    if not directory.is_dir():
        raise InputError(directory, "folder not found (expected vllm bench serve result files)")
    files = [
        p for p in directory.iterdir()
        # a broken link, a FIFO or a device is listed, so reading it fails loudly
        if (p.is_symlink() or not p.is_dir())
        and not p.name.startswith(".")
        and p.suffix.lower() in (".json", ".jsonl")
        and not p.name.lower().endswith(".pytorch.json")
    ]
    return sorted(files, key=_natural_key)


def _optional(folder: Path, name: str, root: Path) -> Path | None:
    path = folder / name
    if not (path.is_file() or path.is_symlink() or path.exists()):
        return None
    _check_readable(path, root)
    return path


def _metrics(folder: Path, root: Path, engine: str, findings: list[Finding]
             ) -> dict[int, tuple[Path, Path]]:
    if not folder.is_dir():
        return {}
    halves: dict[int, dict[str, Path]] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        m = METRICS_FILE.match(path.name)
        if m is not None:
            _check_readable(path, root)
        if m is None or not path.is_file():
            findings.append(Finding(display_path(path, root),
                                    "not a c<C>-before.prom / c<C>-after.prom scrape; ignored",
                                    engine=engine))
            continue
        halves.setdefault(int(m.group(1)), {})[m.group(2)] = path
    pairs = {}
    for conc, pair in sorted(halves.items()):
        if len(pair) == 2:
            pairs[conc] = (pair["before"], pair["after"])
        else:
            have = next(iter(pair.values()))
            missing = "after" if "before" in pair else "before"
            findings.append(Finding(display_path(have, root),
                                    f"no matching c{conc}-{missing}.prom; this scrape is ignored",
                                    engine=engine))
    return pairs


def _series(folder: Path, root: Path) -> tuple[Path, ...]:
    """Every file of ``<engine>/telemetry/`` (timestamped scrapes, query_range JSON)."""
    if not folder.is_dir():
        return ()
    paths = tuple(p for p in sorted(folder.iterdir())
                  if not p.name.startswith(".") and not p.is_dir())
    for path in paths:
        _check_readable(path, root)
    return paths


def read_manifest(root: Path) -> Manifest | None:
    """round.toml parsed, or None when the folder has none (everything is then inferred)."""
    if not root.is_dir():
        raise InputError(root, "round directory not found")
    path = root / "round.toml"
    if not (path.exists() or path.is_symlink()):
        return None
    refuse_outside(path, root, display_path(path, root))
    try:
        return parse_manifest(path, lookup_gpu, name=display_path(path, root))
    except InputError as exc:  # re-word with the same path style as every other message
        raise InputError(display_path(path, root), exc.message, exc.line) from None


def discover(round_dir: Path, manifest: Manifest | None = None) -> RoundFiles:
    """List each engine's files of the fixed layout (``round.toml`` parsed here unless the
    caller already did). Missing engine folders and engines without any bench result are
    errors; everything else optional."""
    root = round_dir
    if manifest is None:
        manifest = read_manifest(root)
    if manifest is None:
        raise InputError(display_path(root / "round.toml", root),
                         "round.toml not found (every round directory needs one)")

    findings: list[Finding] = []
    engines: dict[str, EngineFiles] = {}
    for spec in manifest.engines:
        folder = root / spec.dir
        shown = display_path(folder, root)
        if not folder.is_dir():
            raise InputError(shown, f"folder for engine '{spec.id}' not found "
                                    f"(round.toml [[engines]] dir = \"{spec.dir}\")")
        bench_dir = folder / "bench"
        if not bench_dir.is_dir():
            raise InputError(display_path(bench_dir, root),
                             f"engine '{spec.id}' has no bench/ folder with vllm bench serve "
                             "result files")
        bench = list_bench_files(bench_dir)
        for path in bench:
            _check_readable(path, root)
        if not bench:
            raise InputError(display_path(bench_dir, root),
                             f"no *.json result files for engine '{spec.id}' (expected vllm "
                             "bench serve --save-result output; *.pytorch.json is skipped)")
        engines[spec.id] = EngineFiles(
            id=spec.id,
            dir=folder,
            bench=tuple(bench),
            server_log=_optional(folder, "server.log", root),
            fingerprint=_optional(folder, "fingerprint.txt", root),
            gpu_csv=_optional(folder, "gpu.csv", root),
            metrics=_metrics(folder / "metrics", root, spec.id, findings),
            series=_series(folder / "telemetry", root),
        )

    used = {Path(spec.dir).parts[0] for spec in manifest.engines}
    for path in sorted(root.iterdir()):
        if path.is_dir() and not path.name.startswith(".") and path.name not in used | NOT_ENGINES:
            findings.append(Finding(display_path(path, root),
                                    "folder is not an engine listed in round.toml; ignored"))

    # narrative/ is read (and its file names checked) by reportgen.narrative alone
    return RoundFiles(root=root, manifest=manifest, engines=engines, findings=findings)
