"""Round folder with no fixed layout → which file is what, decided by content, not by name.

Every file under the round folder (recursively, hidden entries and ``narrative/`` excepted) is
sniffed once: benchmark results (JSON, JSON Lines, a list of results, console output), server
logs, nvidia-smi fingerprints and CSV samples, Prometheus scrapes, launch scripts. Whatever is
none of these is listed as skipped, with the reason, so `check` and the page can say what was
not read and why.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from reportgen.errors import InputError
from reportgen.files.safe_read import check_head, leads_out, open_regular, printable
from reportgen.load.copies import skip_copies
from reportgen.load.scanned import ScannedFile  # re-exported: scan.ScannedFile
from reportgen.load.walk import walk

SNIFF = 1 << 20  # enough for a console log's header and the first record of a result file
WARMUP = re.compile(r"(?<![a-z])(?<!no[-_ ])warm[-_ ]?up", re.IGNORECASE)  # not `no-warmup`
FAILURE = re.compile(r"[.-]fail(?:ure|ed)?\.json$", re.IGNORECASE)  # sweep run=N.failure.json
NVSMI_CSV = re.compile(rb"^\s*(?:timestamp|index|name|uuid|pci\.bus_id)\s*,\s*[a-z_.]+", re.I)
SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh", ".ps1", ".cmd", ".bat", ".yaml", ".yml", ".md",
                   ".txt", ".toml", ".cfg", ".ini", ".env", ".py")
LAUNCH = (b"vllm serve", b"sglang.launch_server", b"llama-server", b"--tensor-parallel-size",
          b"--tp-size", b"vllm.entrypoints")
# strings only a vLLM server log / a llama-server log prints (also used to tell a log's kind
# when round.toml does not say it: reportgen.load.round.sniff_log_kind)
VLLM_MARKERS = (b"vLLM API server version", b"Initializing a V1 LLM engine", b"vllm.entrypoints",
                b"[gpu_model_runner.py", b"[kv_cache_utils.py", b"(APIServer pid=",
                b"(EngineCore")
LLAMA_MARKERS = (b"llama_model_loader:", b"build_info:", b"print_timing:", b"llama_context:",
                 b"load_tensors:", b"load_model:", b"llama_server:", b"server is listening",
                 b"slot launch_slot_", b"llama_kv_cache")
UTF8_BOM = b"\xef\xbb\xbf"
NOT_SCANNED = {"narrative", "__pycache__", "node_modules", ".git"}


def _head(path: Path, shown: str) -> tuple[bytes, bytes]:
    """The first and (for a larger file) the last MiB: a console log's result table comes
    after its progress bar, which can be megabytes of `\r`-separated updates. A file that
    starts as JSON: its first 64 KiB only."""
    from reportgen.load.formats import SNIFF_HEAD

    try:
        with open_regular(path, shown) as f:
            # JSON is told from its first 64 KiB (a reader's sniff sees no more): the rest of
            # the MiB and the tail are read only for text, where a console log's table hides
            head = f.read(SNIFF_HEAD)
            if len(head) < SNIFF_HEAD or _looks_json(head.removeprefix(UTF8_BOM)):
                return head, b""
            head += f.read(SNIFF - len(head))
            if len(head) < SNIFF:
                return head, b""
            f.seek(0, os.SEEK_END)
            f.seek(max(f.tell() - SNIFF, SNIFF))
            return head, f.read(SNIFF)
    except OSError as exc:
        raise InputError(shown, f"cannot read: {exc.strerror or exc} (expected a readable file)"
                         ) from None


def _looks_json(head: bytes) -> bool:
    """`{…` or `[{…` / `[]`; a log line such as `[2026-01-01 …]` is not JSON."""
    i = _SPACE.match(head).end()  # type: ignore[union-attr]  # matches the empty string
    if head[i:i + 1] == b"{":
        return True
    if head[i:i + 1] != b"[":
        return False
    j = _SPACE.match(head, i + 1).end()  # type: ignore[union-attr]
    return head[j:j + 1] in (b"{", b"]", b'"', b"")


_SPACE = re.compile(rb"[ \t\n\r\x0b\x0c]*")  # what bytes.lstrip() strips, found without a copy


def _is_prometheus(head: bytes) -> bool:
    return head.lstrip().startswith((b"# HELP ", b"# TYPE ")) or (
        b"\n# TYPE " in head and b"\n# HELP " in head)


def classify(path: Path, head: bytes, tail: bytes = b"") -> tuple[str, str]:
    """(kind, reason) for one file from its name's suffix, its first bytes and (for a large
    file) its last ones; kind ``client:<id>`` when a reader of another client claims it."""
    from reportgen.load.bench_console import looks_like_console
    from reportgen.load.formats import sniff
    from reportgen.load.series import looks_like_query_json, looks_timestamped

    name = path.name.lower()
    if name.endswith(".pytorch.json"):
        return "skipped", "vLLM's PyTorch-benchmark side file (a different schema)"
    encoding = check_head(head)
    if encoding is not None:
        return "skipped", encoding
    head = head.removeprefix(UTF8_BOM)  # accepted everywhere, as by every reader
    if b"\x00" in head[:4096]:
        return "skipped", "binary file"
    if looks_like_query_json(head):
        return "series", ""
    claimed = sniff(path.name, head)
    if claimed is not None:
        if WARMUP.search(path.stem):
            return "skipped", "warm-up run (the file name says so); not a measured run"
        return f"client:{claimed[0]}", claimed[1]
    if _looks_json(head):
        if FAILURE.search(name):
            return "failure", "a failed run (its result file records the failure)"
        if WARMUP.search(path.stem):
            return "skipped", "warm-up run (the file name says so); not a measured run"
        return "json", ""  # a result or not: decided from its decoded structure
    if looks_like_console(head) or (tail and looks_like_console(tail)):
        if WARMUP.search(path.stem):
            return "skipped", "warm-up run (the file name says so); not a measured run"
        return "console", ""
    vllm = sum(m in head for m in VLLM_MARKERS)
    llama = sum(m in head for m in LLAMA_MARKERS)
    if max(vllm, llama) >= 2 and vllm != llama:
        return ("vllm_log" if vllm > llama else "llama_log"), ""
    if b"NVIDIA-SMI" in head and b"Driver Version" in head:
        return "fingerprint", ""
    if NVSMI_CSV.match(head):
        return "gpu_csv", ""
    if looks_timestamped(head):
        return "series", ""
    if _is_prometheus(head):
        return "metrics", ""
    if name.endswith(SCRIPT_SUFFIXES) and any(m in head for m in LAUNCH):
        return "script", ""
    return "skipped", "not a benchmark result, log or sample this tool reads"


def scan_round(root: Path, show: Callable[[Path], str]) -> list[ScannedFile]:
    """Every file under ``root`` with its kind, in a stable (sorted) order. Links that lead
    out of the round are refused: a round must not pull in files from elsewhere."""
    out: list[ScannedFile] = []

    def unreadable(folder: Path, exc: OSError) -> None:
        rel = printable(folder.relative_to(root).as_posix())
        out.append(ScannedFile(folder, show(folder), rel, "unreadable",
                               f"a folder that cannot be read ({exc.strerror or exc}); its "
                               "files are not in the report"))

    for folder, dirs, files in walk(root, unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and not (Path(folder) == root and d in NOT_SCANNED))
        for name in sorted(files):
            if name.startswith(".") or (Path(folder) == root and name == "round.toml"):
                continue
            path = Path(folder) / name
            rel = printable(path.relative_to(root).as_posix())
            shown = show(path)
            if path.is_symlink() and leads_out(path, root):
                out.append(ScannedFile(path, shown, rel, "skipped",
                                       "a link that leads out of the round folder; not read"))
                continue
            if not path.is_file():
                out.append(ScannedFile(path, shown, rel, "skipped", "not a regular file"))
                continue
            kind, reason = classify(path, *_head(path, shown))
            kind, _, client = kind.partition(":")
            out.append(ScannedFile(path, shown, rel, kind, reason, client))
    return skip_copies(out)  # a backup or "(1)" copy is never a run of its own
