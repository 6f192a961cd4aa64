"""The built-in GPU table: name matching (nvidia-smi and short names), order, sources."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.files import resources
from reportgen.reference.gpus import GPUS, GpuSpec, lookup_gpu, lookup_gpu_spec


@pytest.mark.parametrize(("name", "canonical", "bandwidth", "memory"), [
    # nvidia-smi names
    ("NVIDIA H100 80GB HBM3", "H100 SXM", 3350.0, 80.0),
    ("NVIDIA H100 PCIe", "H100 PCIe", 2000.0, 80.0),
    ("NVIDIA H100 NVL", "H100 NVL", 3900.0, 94.0),
    ("NVIDIA H100NVL", "H100 NVL", 3900.0, 94.0),
    ("NVIDIA A100-SXM4-80GB", "A100 80GB SXM", 2039.0, 80.0),
    ("NVIDIA A100-SXM4-40GB", "A100 40GB", 1555.0, 40.0),
    ("NVIDIA A100 80GB PCIe", "A100 80GB PCIe", 1935.0, 80.0),
    ("NVIDIA A100-PCIE-80GB", "A100 80GB PCIe", 1935.0, 80.0),
    ("NVIDIA A100-PCIE-40GB", "A100 40GB", 1555.0, 40.0),
    ("NVIDIA GeForce RTX 4090", "GeForce RTX 4090", 1008.0, 24.0),
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
     "RTX PRO 6000 Blackwell Max-Q Workstation Edition", 1792.0, 96.0),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
     "RTX PRO 6000 Blackwell Workstation Edition", 1792.0, 96.0),
    ("NVIDIA H200", "H200 SXM", 4800.0, 141.0),
    ("NVIDIA H200 NVL", "H200 NVL", 4800.0, 141.0),
    ("NVIDIA GB10", "GB10 (DGX Spark)", 273.0, 128.0),
    ("NVIDIA GH200 480GB", "GH200 96GB HBM3", 4000.0, 96.0),
    ("NVIDIA B200", "B200", 8000.0, 180.0),
    ("NVIDIA GB200", "GB200 (per GPU)", 8000.0, 186.0),
    ("NVIDIA L40S", "L40S", 864.0, 48.0),
    ("NVIDIA L4", "L4", 300.0, 24.0),
    ("NVIDIA A10", "A10", 600.0, 24.0),
    ("NVIDIA GeForce RTX 5090", "GeForce RTX 5090", 1792.0, 32.0),
    ("NVIDIA GeForce RTX 4080", "GeForce RTX 4080", 716.8, 16.0),
    ("NVIDIA GeForce RTX 3090", "GeForce RTX 3090", 936.2, 24.0),
    ("AMD Instinct MI300X", "Instinct MI300X", 5300.0, 192.0),
    ("AMD Instinct MI325X", "Instinct MI325X", 6000.0, 256.0),
    # short names
    ("a100 80gb", "A100 80GB SXM", 2039.0, 80.0),
    ("A100", "A100 40GB", 1555.0, 40.0),
    ("h100", "H100 SXM", 3350.0, 80.0),
    ("h100-pcie", "H100 PCIe", 2000.0, 80.0),
    ("h200", "H200 SXM", 4800.0, 141.0),
    ("RTX 4090", "GeForce RTX 4090", 1008.0, 24.0),
    ("rtx4090", "GeForce RTX 4090", 1008.0, 24.0),
    ("rtx pro 6000 max-q", "RTX PRO 6000 Blackwell Max-Q Workstation Edition", 1792.0, 96.0),
    ("mi300x", "Instinct MI300X", 5300.0, 192.0),
    ("DGX Spark", "GB10 (DGX Spark)", 273.0, 128.0),
    ("tpu v6e", "TPU v6e (Trillium)", 1640.0, 32.0),
    ("v6e-4", "TPU v6e (Trillium)", 1640.0, 32.0),
    ("Trillium", "TPU v6e (Trillium)", 1640.0, 32.0),
    ("TPU v5e", "TPU v5e", 819.0, 16.0),
    ("v5e-8", "TPU v5e", 819.0, 16.0),
    ("TPU v5 lite", "TPU v5e", 819.0, 16.0),
    ("v5litepod-8", "TPU v5e", 819.0, 16.0),
])
def test_name_to_spec(name: str, canonical: str, bandwidth: float, memory: float) -> None:
    spec = lookup_gpu_spec(name)
    assert spec is not None, name
    assert (spec.name, spec.bandwidth_gb_s, spec.memory_gib) == (canonical, bandwidth, memory)
    assert lookup_gpu(name) == (bandwidth, memory)


@pytest.mark.parametrize("name", [
    "", "   ", "Test GPU", "Mystery 9000", "NVIDIA A10G", "NVIDIA L40", "NVIDIA H800",
    "NVIDIA B300", "AMD Instinct MI300A", "MI250X", "TPU v5p", "v4-8",
    "NVIDIA RTX 6000 Ada Generation",
    # recognised, but the figure is not verified or the variant is not named
    "NVIDIA RTX PRO 6000 Blackwell Server Edition", "NVIDIA GH200 144G HBM3e", "GH200",
    "NVIDIA GeForce RTX 4090 Laptop GPU", "NVIDIA GeForce RTX 3090 Ti",
    "NVIDIA GeForce RTX 4080 SUPER", "NVIDIA H100 SXM5 94GB", "NVIDIA H100 144GB HBM3",
])
def test_unknown_or_unverified_is_none(name: str) -> None:
    assert lookup_gpu_spec(name) is None
    assert lookup_gpu(name) is None


def test_rtx_4090_golden_figures_unchanged() -> None:
    # the round-2 golden report takes its bandwidth from this row
    assert lookup_gpu("RTX 4090") == (1008.0, 24.0)
    assert lookup_gpu("NVIDIA GeForce RTX 4090") == (1008.0, 24.0)


@pytest.mark.parametrize(("name", "figures"), [
    # names the previous table knew keep their figures unless a row corrects them
    ("RTX 5090", (1792.0, 32.0)), ("RTX 4080", (716.8, 16.0)), ("RTX 3090", (936.2, 24.0)),
    ("L40S", (864.0, 48.0)), ("L4", (300.0, 24.0)), ("A10", (600.0, 24.0)),
    ("A100 80GB", (2039.0, 80.0)), ("A100", (1555.0, 40.0)), ("H100", (3350.0, 80.0)),
    ("H200", (4800.0, 141.0)), ("B200", (8000.0, 180.0)),
])
def test_previous_names_keep_their_figures(name: str, figures: tuple[float, float]) -> None:
    assert lookup_gpu(name) == figures


@pytest.mark.parametrize(("first", "second"), [
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
     "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"),
    ("NVIDIA H100 PCIe", "NVIDIA H100 80GB HBM3"),
    ("NVIDIA H100 NVL", "NVIDIA H100 80GB HBM3"),
    ("NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB"),
    ("NVIDIA A100 80GB PCIe", "NVIDIA A100-SXM4-80GB"),
    ("NVIDIA GH200 480GB", "NVIDIA H200"),
    ("NVIDIA GB200", "NVIDIA B200"),
])
def test_order_keeps_siblings_apart(first: str, second: str) -> None:
    a, b = lookup_gpu_spec(first), lookup_gpu_spec(second)
    assert a is not None and b is not None
    assert a.name != b.name


def test_case_and_separators_do_not_matter() -> None:
    expected = lookup_gpu_spec("NVIDIA A100-SXM4-80GB")
    for variant in ("nvidia a100 sxm4 80gb", "NVIDIA_A100_SXM4_80GB", "  A100-80GB  "):
        assert lookup_gpu_spec(variant) == expected


def test_every_row_has_a_source_and_sane_figures() -> None:
    for pattern, canonical, bandwidth, memory, source in GPUS:
        re.compile(pattern)
        assert canonical.strip() and source.strip(), pattern
        assert (bandwidth is None) == (memory is None), pattern
        if bandwidth is not None and memory is not None:
            assert 100.0 <= bandwidth <= 10_000.0, canonical
            assert 8.0 <= memory <= 512.0, canonical


def test_spec_carries_its_source() -> None:
    spec = lookup_gpu_spec("NVIDIA H200")
    assert isinstance(spec, GpuSpec)
    assert "H200" in spec.source and "4.8 TB/s" in spec.source


def test_table_is_read_on_first_lookup_not_at_import() -> None:
    # cold start: importing the module (discover, analyze and init all do) parses no TOML
    code = """
import reportgen.files.resources as resources
read = []
real = resources.data_tables
resources.data_tables = lambda name, allowed: read.append(name) or real(name, allowed)
import reportgen.reference.gpus as gpu_table
print(read)
gpu_table.lookup_gpu("H100")
gpu_table.lookup_gpu("A100")
print(read, len(gpu_table.GPUS))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.splitlines() == ["[]", f"['gpus.toml'] {len(GPUS)}"]


def test_misspelt_key_in_a_data_table_is_an_error(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # a typo must not read as a deliberately left-out figure
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "t.toml").write_text(
        '[[gpu]]\npattern = "x"\nname = "X"\nbandwith_gb_s = 1.0\nsource = "s"\n',
        encoding="utf-8")
    monkeypatch.setattr(resources, "_PKG", tmp_path)
    allowed = {"gpu": frozenset({"pattern", "name", "bandwidth_gb_s", "memory_gib", "source"})}
    with pytest.raises(ValueError, match=r"t\.toml: \[\[gpu\]\] row 1: unknown key\(s\) "
                                         r"bandwith_gb_s"):
        resources.data_tables("t.toml", allowed)
    assert resources.data_tables("t.toml", {"gpu": allowed["gpu"] | {"bandwith_gb_s"}})
