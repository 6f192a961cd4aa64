"""`reportgen init`: a commented round.toml holding what the files say, with TODO lines for
what only the author knows. Pure text from a LoadedRound; the CLI writes it."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from reportgen.errors import Inferred, InputError
from reportgen.files.safe_read import printable
from reportgen.load.manifest import EngineSpec, folder_name
from reportgen.load.records import LoadedRound
from reportgen.reference.gpus import lookup_gpu_spec
from reportgen.reference.model_bytes import model_bytes
from reportgen.text.terminal import terminal_safe


@dataclass(frozen=True)
class InitResult:
    text: str
    open_keys: list[str]  # keys left as TODO, each with what it would enable


def _q(value: str) -> str:
    """A TOML basic string that reads back as ``value``: JSON's escapes are valid TOML, DEL
    (which JSON leaves raw and TOML forbids) is escaped, and a lone surrogate (an undecodable
    byte of a folder name, which no TOML string can hold) is written as ``\\xNN``, the form
    every message shows and ``manifest`` maps back for a ``dir``."""
    return json.dumps(printable(value), ensure_ascii=False).replace("\x7f", "\\u007f")


def _c(text: str) -> str:
    """Text for a ``#`` comment: on one line, with no control character (TOML allows none in
    a comment but tab) and no bidi override."""
    return terminal_safe(" ".join(str(text).split()))


def _num(value: float) -> str:
    return f"{int(value)}" if float(value).is_integer() else f"{value:g}"


def _line(key: str, value: str, source: str) -> str:
    source = _c(source)  # a file name with a line break must not end the comment
    return f"{key} = {value}  # from {source}" if source else f"{key} = {value}"


def init_text(loaded: LoadedRound) -> InitResult:
    """round.toml for ``loaded``: every inferred value with its source, TODOs for the rest."""
    m = loaded.manifest
    found: dict[str, Inferred] = {}
    for first in loaded.inferred:
        found.setdefault(first.key, first)
    todo: list[str] = []
    out = [
        "# round.toml written by `reportgen init` from the files in this folder.",
        "# Each value says where it was read. A value written here is used as it is and wins",
        "# over what reportgen infers; correct anything that is wrong. `# TODO` lines need a",
        "# value no file states: fill them in to enable what they name.",
        "",
        "[round]",
        f"title = {{ zh = {_q(m.title.zh)}, en = {_q(m.title.en)} }}",
    ]
    for key in ("date", "axis"):
        if (item := found.get(f"round.{key}")) is not None:
            out.append(_line(key, _q(item.value), item.source))
    out += ["", "[hardware]"]
    gpu = found.get("hardware.gpu")
    if gpu is not None:
        out.append(_line("gpu", _q(gpu.value), gpu.source))
        gpu_spec = lookup_gpu_spec(gpu.value)
        if gpu_spec is not None:
            out.append(f"# bandwidth_gb_s = {_num(gpu_spec.bandwidth_gb_s)}  # built-in GPU "
                       f"table ({_c(gpu_spec.name)}: {_c(gpu_spec.source)}); uncomment to "
                       "override")
        else:
            out.append("# TODO bandwidth_gb_s = ?  # the GPU table does not know this GPU; "
                       "enables the roofline floor, MBU and batching efficiency")
            todo.append("hardware.bandwidth_gb_s (roofline floor, MBU, batching efficiency)")
    elif any(s.gpu for s in m.engines):
        # the files name a GPU per configuration (meta.json, a log, nvidia-smi): `check` reads
        # the same facts, so the round has one owner for them, each [[engines]] entry's gpu
        out.append("# gpu: each configuration names its own (gpu in [[engines]] below)")
    else:
        out.append('# TODO gpu = "?"  # no file names the GPU; enables the roofline floor, '
                   "MBU and the memory split")
        todo.append("hardware.gpu (roofline floor, MBU, memory split)")
    if (count := found.get("hardware.gpu_count")) is not None:
        out.append(_line("gpu_count", count.value, count.source))
    if len(loaded.workloads) == 1:
        out += ["", "[workload]"]
        for key in ("input_tokens", "output_tokens"):
            if (item := found.get(f"workload.{key}")) is not None:
                out.append(_line(key, item.value, item.source))
        if (item := found.get("workload.dataset")) is not None:
            out.append(_line("dataset", _q(item.value), item.source))
    elif loaded.workloads:
        out += ["", f"# [workload]: {len(loaded.workloads)} workloads, each read from its "
                    "files (see the page's workload switch)"]
    out += ["", "[model]"]
    if m.model_name:
        out.append(_line("name", _q(m.model_name), "the results' model_id"))
    kv_line = _kv_line(loaded)
    out.append(kv_line)
    if kv_line.startswith("# TODO"):
        todo.append("model.kv_bytes_per_token (roofline floor, KV capacity)")
    stamped = any(d.telemetry is not None and not (d.telemetry.dcgm.empty
                                                   and d.telemetry.engine.empty)
                  for d in loaded.engines.values())
    if m.utc_offset_min is not None or stamped:
        out += ["", "[telemetry]"]
        if m.utc_offset_min is not None:
            whole = int(abs(m.utc_offset_min))
            sign = "-" if m.utc_offset_min < 0 else "+"
            out.append(f'utc_offset = "{sign}{whole // 60:02d}:{whole % 60:02d}"')
        else:
            out.append('# TODO utc_offset = "+00:00"  # the benchmark host\'s `date +%z`: places '
                       "DCGM / engine scrapes (UTC) on the results' local clock")
            todo.append("telemetry.utc_offset (power, J/tok, peak KV usage from DCGM / engine "
                        "scrapes)")
    for spec in m.engines:
        out += _engine_lines(loaded, spec, found, todo, gpu is None)
    return InitResult("\n".join(out) + "\n", todo)


def _engine_lines(loaded: LoadedRound, spec: EngineSpec, found: dict[str, Inferred],
                  todo: list[str], own_gpu: bool) -> list[str]:
    """One [[engines]] entry: its values with their sources, TODOs (added to ``todo``) for
    what no file states. ``own_gpu``: the round names no one GPU, so each entry names its."""
    m = loaded.manifest
    data = loaded.engines.get(spec.id)
    out = ["", "[[engines]]", f"id = {_q(spec.id)}"]
    label = found.get(f"engines.{spec.id}.label")
    out.append(_line("label", _q(spec.label.en), label.source if label else ""))
    home = PurePosixPath(spec.dir)
    if home.name == "bench" and (m.path.parent / folder_name(m.path.parent, str(home))
                                 ).is_dir():  # the <dir>/bench layout
        out.append(f"dir = {_q(str(home.parent))}")
    for key in ("kind", "version", "model", *(("gpu",) if own_gpu else ())):
        value = getattr(spec, key)
        if value:
            item = found.get(f"engines.{spec.id}.{key}")
            out.append(_line(key, _q(str(value)), item.source if item else ""))
    for key in ("tensor_parallel", "pipeline_parallel", "data_parallel", "gpu_count"):
        value = getattr(spec, key)
        if value is not None:
            item = found.get(f"engines.{spec.id}.{key}")
            out.append(_line(key, str(value), item.source if item else ""))
    if spec.tensor_parallel is None:
        out.append("# TODO tensor_parallel = ?  # GPUs that split each step's weights; "
                   "leave out for one GPU")
    known = model_bytes(data.model_name(m.model_name), *data.dtypes()) if data else None
    if math.isfinite(spec.weight_bytes_per_step):
        out.append(f"weight_bytes_per_step = {_num(spec.weight_bytes_per_step)}")
    elif data is not None and data.llama_log is not None \
            and data.llama_log.facts.model_buffer_mib:
        out.append("# weight_bytes_per_step: read from the llama-server log's model "
                   "buffer at build time")
    elif data is not None and data.vllm_log is not None and data.vllm_log.weights_gib:
        out.append("# weight_bytes_per_step: read from the vLLM log's weight size at build "
                   "time")
    elif known is not None and math.isfinite(known.weight_bytes_per_step):
        out.append(f"weight_bytes_per_step = {_num(known.weight_bytes_per_step)}  # "
                   f"{_c(known.weight_source)}")
    else:
        out.append("# TODO weight_bytes_per_step = ?  # weight bytes read per decode step "
                   "(active parameters × bytes per parameter)")
        todo.append(f"engines.{spec.id}.weight_bytes_per_step (roofline floor, MBU)")
    return out


def _kv_line(loaded: LoadedRound) -> str:
    """[model].kv_bytes_per_token when every configuration resolved the same figure."""
    values = {d.kv_bytes_per_token for d in loaded.engines.values()
              if math.isfinite(d.kv_bytes_per_token)}
    if len(values) == 1 and len(loaded.engines) and all(
            math.isfinite(d.kv_bytes_per_token) for d in loaded.engines.values()):
        data = next(iter(loaded.engines.values()))
        return (f"kv_bytes_per_token = {_num(values.pop())}  # "
                f"{_c(data.kv_bytes_per_token_source)}")
    if values:
        return ("# kv_bytes_per_token differs by configuration; each is read from its own "
                "log or the model table at build time")
    return ("# TODO kv_bytes_per_token = ?  # 2 (K,V) × layers × KV heads × head dim × bytes "
            "per element")


def write_round_toml(root: Path, force: bool = False) -> tuple[InitResult, Path, Path | None]:
    """Infer from ``root``'s files alone (an existing round.toml is not read) and write
    round.toml atomically; an existing one is refused, or with ``force`` kept as
    round.toml.bak (round.toml.bak.2 … when that exists too)."""
    from reportgen.files.safe_read import leads_out
    from reportgen.files.write import output_target, write_output
    from reportgen.load.auto import load_auto
    from reportgen.load.discover import display_path

    path = root / "round.toml"
    if path.is_symlink() and leads_out(path, root):
        raise InputError(display_path(path, root), "is a link that leads out of the round "
                                                   "folder; refused (init writes inside it)")
    output_target(path, kind="round.toml")  # a FIFO, device or folder: refused before work
    if (path.exists() or path.is_symlink()) and not force:
        raise InputError(display_path(path, root), "already exists; `reportgen init` never "
                                                   "overwrites it (use --force to replace it "
                                                   "and keep a backup)")
    result = init_text(load_auto(root, lambda p: display_path(p, root), None))
    backup = None
    if path.exists() or path.is_symlink():
        backup = root / "round.toml.bak"
        n = 2
        while backup.exists() or backup.is_symlink():
            backup, n = root / f"round.toml.bak.{n}", n + 1
        try:
            shutil.copy2(path, backup, follow_symlinks=False)
        except OSError as exc:
            raise InputError(display_path(path, root),
                             f"cannot keep a backup: {exc.strerror or exc}") from None
    data = result.text.encode("utf-8")
    check_builds(data, root)
    # written through a link (inside the round), atomic, mode from the umask
    write_output(path, data, kind="round.toml")
    return result, path, backup


def write_example_csv(folder: Path) -> Path:
    """``folder/runs.csv``: the commented example of the tidy import (docs/ROUNDS.md, "Your own
    harness: a tidy CSV"); the folder is created when missing, an existing file is never
    replaced."""
    from reportgen.files.write import write_atomic

    path = folder / "runs.csv"
    if path.exists() or path.is_symlink():
        raise InputError(str(path), "already exists; `reportgen init --example-csv` never "
                                    "overwrites it")
    if folder.exists() and not folder.is_dir():
        raise InputError(str(folder), "not a folder")
    example = (Path(__file__).resolve().parent / "data" / "example-runs.csv").read_bytes()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(path, example)
    except OSError as exc:
        raise InputError(str(path), f"cannot write: {exc.strerror or exc}") from None
    return path


def check_builds(data: bytes, root: Path) -> None:
    """InputError unless ``data`` is a round.toml the manifest reader accepts for ``root``
    (checked on a private copy, before round.toml is touched)."""
    import tempfile

    from reportgen.files.write import check_content
    from reportgen.load.manifest import parse_manifest
    from reportgen.reference.gpus import lookup_gpu

    check_content(root / "round.toml", data, "round.toml")
    with tempfile.TemporaryDirectory(prefix="reportgen-init-") as scratch:
        probe = Path(scratch) / "round.toml"
        probe.write_bytes(data)
        try:
            parse_manifest(probe, lookup_gpu, name="round.toml")
        except InputError as exc:
            raise InputError(root / "round.toml", f"the text init made does not read back "
                                                  f"({exc}); nothing was written") from None
