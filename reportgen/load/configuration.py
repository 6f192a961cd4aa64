"""One configuration of a round in any layout: its side files (server log, fingerprint, GPU
samples, telemetry series) found by folder, read into ``EngineData``, and the settings
inferred from them (``load/auto.py`` calls ``load_configuration`` once per configuration)."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd

from reportgen.errors import Finding, Inferred
from reportgen.load.discover import EngineFiles
from reportgen.load.engine_data import Show
from reportgen.load.manifest import (
    EngineSpec,
)
from reportgen.load.placement import (
    Configuration,
)
from reportgen.load.records import EngineData
from reportgen.load.scanned import ScannedFile
from reportgen.text.bilingual import Bi

PLACEHOLDER = re.compile(r"^\$|^\{\{|^<")  # "$MODEL", "{{model}}", "<path>": sanitized values


def _common_depth(a: str, b: str) -> int:
    pa, pb = PurePosixPath(a).parts, PurePosixPath(b).parts
    n = 0
    while n < min(len(pa), len(pb)) and pa[n] == pb[n]:
        n += 1
    return n


def owner(rel: str, homes: dict[str, str]) -> str | None:
    """The configuration a side file (log, fingerprint, samples) belongs to: the one whose
    results share the longest folder path with it; None when that is not one configuration
    (then the file describes the whole round, or cannot be attributed)."""
    folder = str(PurePosixPath(rel).parent)
    folder = "" if folder == "." else folder
    depth = {cid: _common_depth(folder, home) for cid, home in homes.items()}
    best = max(depth.values(), default=0)
    winners = [c for c, d in depth.items() if d == best]
    if len(winners) == 1 and (best > 0 or len(homes) == 1):
        return winners[0]
    return None


def most_common(values: list[str]) -> str | None:
    counted = Counter(v for v in values if v)
    return counted.most_common(1)[0][0] if counted else None


def _first(*candidates: list[ScannedFile] | None) -> ScannedFile | None:
    """The first file of the first candidate list that has one."""
    return next((c[0] for c in candidates if c), None)


def _attach(files: list[ScannedFile], own: dict[str, str], kind: str
            ) -> tuple[dict[str, list[ScannedFile]], list[ScannedFile]]:
    """Side files of one kind by configuration (``own``: their home folders, ``homes``);
    those that belong to none."""
    by: dict[str, list[ScannedFile]] = {}
    loose: list[ScannedFile] = []
    for f in files:
        if f.kind != kind:
            continue
        cid = owner(f.rel, own)
        if cid is None:
            loose.append(f)
        else:
            by.setdefault(cid, []).append(f)
    return by, loose


def _server_info(rows: pd.DataFrame) -> list[tuple[str, str, str]]:
    """Settings a result record carries about its server (SGLang's ``server_info``)."""
    out: list[tuple[str, str, str]] = []
    if "server" not in rows.columns:
        return out
    for info, source in zip(rows["server"], rows["source"], strict=True):
        if isinstance(info, dict):
            out += [(k, str(v), f"{source} (server_info.{k})") for k, v in info.items()]
            break
    for stated in rows["stated"] if "stated" in rows.columns else ():
        if isinstance(stated, dict):  # what another client's file states (ClientRun.settings)
            out += [(k, str(v), src) for k, (v, src) in stated.items()]
            break
    return out


def _config_gpu(data: EngineData, found: list[tuple[str, str, str]]
                ) -> tuple[str, str] | None:
    """(GPU name, where read) for one configuration: its nvidia-smi fingerprint, its
    nvidia-smi CSV, else an author's metadata file beside its results."""
    fp = data.fingerprint
    if fp is not None and fp.gpu_name:
        return fp.gpu_name, fp.provenance.get("gpu_name", fp.path)
    if data.gpu is not None and "name" in data.gpu.columns and len(data.gpu):
        return str(data.gpu["name"].iloc[0]), f"{data.files.gpu_csv} (name)"
    return next(((v, src) for k, v, src in found if k == "gpu"), None)


def _log_settings(data: EngineData) -> list[tuple[str, str, str]]:
    """Launch settings a server log states (version, parallel sizes, model)."""
    out: list[tuple[str, str, str]] = []
    v = data.vllm_log
    if v is not None:
        for attr, key in (("version", "version"), ("tensor_parallel_size", "tensor_parallel"),
                          ("pipeline_parallel_size", "pipeline_parallel"), ("model", "model")):
            value = getattr(v, attr)
            if value is not None:
                out.append((key, str(value), v.provenance.get(attr, v.path)))
    llama = data.llama_log
    if llama is not None and llama.facts.build:
        out.append(("version", str(llama.facts.build),
                    llama.facts.provenance.get("build", llama.path)))
    return out


def _with_settings(spec: EngineSpec, found: list[tuple[str, str, str]]) -> EngineSpec:
    """round.toml's values stay; what it leaves out is filled from the files (first found)."""
    updates: dict[str, Any] = {}  # EngineSpec fields: int parallel sizes, str version/model
    for key, value, _ in found:
        if key in updates:
            continue
        if key in ("tensor_parallel", "pipeline_parallel", "data_parallel", "gpu_count") \
                and getattr(spec, key) is None and value.isdigit() and int(value) >= 1:
            updates[key] = int(value)
        elif (key == "version" and spec.version is None) or (key == "model" and spec.model is None):
            updates[key] = value
    return dataclasses.replace(spec, **updates) if updates else spec


Setting = tuple[str, str, str]   # (key, value, source)


@dataclass(frozen=True)
class SideFiles:
    """Server logs, fingerprints, GPU CSVs and telemetry series by configuration, and those in
    no configuration's folder (``loose_*``: they belong to each)."""

    vllm_logs: dict[str, list[ScannedFile]]
    llama_logs: dict[str, list[ScannedFile]]
    prints: dict[str, list[ScannedFile]]
    loose_prints: list[ScannedFile]
    csvs: dict[str, list[ScannedFile]]
    loose_csvs: list[ScannedFile]
    series: dict[str, list[ScannedFile]]
    loose_series: list[ScannedFile]

    @staticmethod
    def of(files: list[ScannedFile], own: dict[str, str]) -> SideFiles:
        vllm_logs, _ = _attach(files, own, "vllm_log")
        llama_logs, _ = _attach(files, own, "llama_log")
        return SideFiles(vllm_logs, llama_logs, *_attach(files, own, "fingerprint"),
                          *_attach(files, own, "gpu_csv"), *_attach(files, own, "series"))


def load_configuration(c: Configuration, rows: pd.DataFrame, root: Path, show: Show,
                        given_spec: EngineSpec | None, home: str, settings: list[Setting],
                        named: list[Setting], side: SideFiles, findings: list[Finding]
                        ) -> tuple[EngineData, list[Inferred]]:
    """One configuration: its spec (round.toml's, else built from what its files state), its
    server log, fingerprint, GPU samples and telemetry read, and the settings inferred."""
    from reportgen.load import engine_data as legacy
    from reportgen.load.fingerprint import parse_fingerprint
    from reportgen.load.nvidia_smi import load_gpu_csv
    from reportgen.load.telemetry import load_telemetry

    inferred: list[Inferred] = []
    kind = None
    log = _first(side.vllm_logs.get(c.id), side.llama_logs.get(c.id))
    if log is not None:
        kind = "vllm" if log.kind == "vllm_log" else "llamacpp"
    elif (rows["backend"] == "sglang").all():
        kind = "sglang"
    spec = given_spec or EngineSpec(
        id=c.id, label=Bi(c.label, c.label), dir=home, kind=kind)
    if spec.kind is None and kind is not None:
        spec = dataclasses.replace(spec, kind=kind)
    stated = settings + _server_info(rows) + named
    spec = _with_settings(spec, settings + _server_info(rows))
    fp = _first(side.prints.get(c.id), side.loose_prints)
    csv = _first(side.csvs.get(c.id), side.loose_csvs)
    ef = EngineFiles(id=c.id, dir=root / home,
                     bench=tuple(dict.fromkeys(root / r for r in rows["rel"])),
                     server_log=log.path if log else None,
                     fingerprint=fp.path if fp else None, gpu_csv=csv.path if csv else None)
    data = EngineData(spec=spec, files=ef)
    legacy.load_log(data, show, findings)
    log_facts = _log_settings(data)
    data.spec = spec = _with_settings(_with_settings(spec, log_facts), named)
    if fp is not None:
        data.fingerprint = parse_fingerprint(fp.path, name=fp.shown)
    if csv is not None:
        data.gpu = load_gpu_csv(csv.path, name=csv.shown)
    # a series file in no configuration's folder belongs to each (one server, one GPU set)
    data.telemetry = load_telemetry([f.path for f in side.series.get(c.id) or side.loose_series],
                                    show, c.id, findings)
    gpu_found = _config_gpu(data, stated)
    if gpu_found and spec.gpu is None:
        data.spec = spec = dataclasses.replace(spec, gpu=gpu_found[0])
    if spec.kind and log is not None:
        inferred.append(Inferred(f"engines.{c.id}.kind", spec.kind,
                                 f"{log.shown} (log lines)"))
    seen_keys: set[str] = set()
    for key, value, source in [*log_facts, *([("gpu", *gpu_found)] if gpu_found else []),
                               *stated]:
        if key not in seen_keys:
            seen_keys.add(key)
            inferred.append(Inferred(f"engines.{c.id}.{key}", value, source))
    model = most_common([m for m in rows["model_id"] if isinstance(m, str)
                         and not PLACEHOLDER.match(m)])
    if model and "model" not in seen_keys:
        if spec.model is None:
            data.spec = spec = dataclasses.replace(spec, model=model)
        src = rows.loc[rows["model_id"] == model, "source"].iloc[0]
        inferred.append(Inferred(f"engines.{c.id}.model", model, f"{src} (model_id)"))
    inferred.append(Inferred(f"engines.{c.id}.label", c.label,
                             f"runs told apart by {c.basis}" if c.basis != "single"
                             else "the only configuration"))
    return data, inferred
