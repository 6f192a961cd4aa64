"""Built-in GPU table: peak memory bandwidth (GB/s, 1e9 B/s) and memory size.

Used only when round.toml leaves the value out; the report names this table as the source.
Figures are the vendors' published specifications; each row says where its figure comes from.

Memory is the marketed capacity: "80GB" HBM parts are entered as 80.0 and GDDR cards as their
marketed size (24 GB on an RTX 4090 is 24 GiB). The field keeps its historical name
``memory_gib``; every row's ``source`` says what the vendor prints.

How names are matched
---------------------
The name (a round.toml ``gpu`` value, an nvidia-smi ``name``, or a short name such as
``a100 80gb``, ``h200``, ``tpu v6e``, ``v6e-4``) is lower-cased, ``-`` and ``_`` become spaces
and runs of spaces collapse to one. The rows of ``GPUS`` are then tried top to bottom and the
first pattern that matches (``re.search``) decides. Order is therefore part of the data:

* exclusions come first: a row whose bandwidth is ``None`` recognises a part whose figures
  could not be verified (or a name that does not say which variant it is) and answers
  ``None`` rather than letting a broader pattern below hand out a sibling's figures;
* specific rows come before general ones: Max-Q before Workstation, NVL and PCIe before the
  plain H100 (SXM), A100 80GB PCIe before A100 80GB before plain A100 (40GB);
* ``\\b`` keeps GH200 away from H200 and GB200 away from B200.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class GpuSpec:
    """One GPU's published peak memory bandwidth and memory size."""

    name: str  # canonical, e.g. "H100 SXM"
    bandwidth_gb_s: float  # peak DRAM/HBM bandwidth, 1e9 bytes per second
    memory_gib: float  # marketed capacity (GB for HBM parts); the source says which
    source: str  # vendor datasheet / page the figures come from


# (pattern, canonical name, GB/s or None, memory or None, source). A row with None figures
# is a deliberate "unknown": the lookup answers None and the source says why.
GPUS: tuple[tuple[str, str, float | None, float | None, str], ...] = (
    # --- exclusions: recognised, but no verified figure (or the variant is not named) ---
    (r"\blaptop\b|\bmobile\b", "laptop GPU", None, None,
     "Laptop parts have their own memory configuration (e.g. the RTX 4090 Laptop GPU has "
     "16 GB); not in this table."),
    (r"rtx\s*3090\s*ti\b", "RTX 3090 Ti", None, None,
     "Faster memory than the RTX 3090; not in this table."),
    (r"rtx\s*4080\s*super\b", "RTX 4080 SUPER", None, None,
     "Faster memory than the RTX 4080; not in this table."),
    (r"rtx\s*pro\s*6000\b.*\bserver\b", "RTX PRO 6000 Blackwell Server Edition", None, None,
     "No NVIDIA datasheet figure for the Server Edition's bandwidth was found to check "
     "(press reports give 1792 GB/s, the Workstation figure); left out rather than guessed."),
    (r"\bgh200\b.*(?:\b144\s*g|\bhbm3e\b)", "GH200 144GB HBM3e", None, None,
     "The 144GB HBM3e GH200's bandwidth could not be verified against an NVIDIA page; "
     "left out rather than guessed."),
    (r"\bgh200\b(?=.*(?:\b480\s*g|\b96\s*g|\bhbm3\b))", "GH200 96GB HBM3", 4000.0, 96.0,
     "NVIDIA GH200 Grace Hopper Superchip (original version): 96GB HBM3 at 4 TB/s on the "
     "Hopper GPU (nvidia-smi calls it 'NVIDIA GH200 480GB' after the 480GB LPDDR5X CPU "
     "memory); the GPU's HBM only, as marketed in GB."),
    (r"\bgh200\b", "GH200 (variant not named)", None, None,
     "GH200 comes with 96GB HBM3 or 144GB HBM3e; the name does not say which."),
    # --- NVIDIA data centre ---
    (r"\bh100\s*nvl\b|\bh100\b.*\bnvl\b", "H100 NVL", 3900.0, 94.0,
     "NVIDIA H100 Tensor Core GPU datasheet / product page: H100 NVL 94GB HBM3, 3.9 TB/s "
     "(per GPU), GB as marketed."),
    (r"\bh100\b.*\bpcie\b", "H100 PCIe", 2000.0, 80.0,
     "NVIDIA H100 Tensor Core GPU datasheet: H100 PCIe 80GB, 2 TB/s (the PCIe product brief "
     "says 'greater than 2,000 GB/s'), GB as marketed."),
    (r"\bh100\b(?=.*\b\d+\s*gb?\b)(?!.*\b80\s*gb?\b)", "H100 (non-80GB variant)", None, None,
     "H100 variants with other memory sizes (64/94/96/144 GB) have other memory "
     "configurations; not in this table."),
    (r"\bh100\b", "H100 SXM", 3350.0, 80.0,
     "NVIDIA H100 Tensor Core GPU datasheet: H100 SXM 80GB HBM3, 3.35 TB/s, GB as marketed "
     "(nvidia-smi: 'NVIDIA H100 80GB HBM3'; a bare 'H100' is taken as SXM)."),
    (r"\bh200\b.*\bnvl\b", "H200 NVL", 4800.0, 141.0,
     "NVIDIA H200 Tensor Core GPU datasheet: H200 NVL 141GB HBM3e, 4.8 TB/s, GB as marketed."),
    (r"\bh200\b", "H200 SXM", 4800.0, 141.0,
     "NVIDIA H200 Tensor Core GPU datasheet: H200 SXM 141GB HBM3e, 4.8 TB/s, GB as marketed."),
    (r"\bgb200\b", "GB200 (per GPU)", 8000.0, 186.0,
     "NVIDIA GB200 NVL72 specifications: 13.4 TB HBM3e and 576 TB/s across 72 Blackwell GPUs "
     "= 186 GB and 8 TB/s per GPU (MLPerf system descriptions list 'GB200 186GB'); some later "
     "NVIDIA tables print 7.7 TB/s. GB as marketed."),
    (r"\bb200\b", "B200", 8000.0, 180.0,
     "NVIDIA DGX B200 datasheet: 8 GPUs with 1,440 GB HBM3e and 64 TB/s = 180 GB and 8 TB/s "
     "per GPU (nvidia-smi: 'NVIDIA B200'); the later HGX B200 page prints 7.7 TB/s. GB as "
     "marketed."),
    (r"\bgb10\b|\bdgx\s*spark\b", "GB10 (DGX Spark)", 273.0, 128.0,
     "NVIDIA DGX Spark hardware guide / product page: GB10 Grace Blackwell, 128 GB LPDDR5x "
     "coherent unified system memory shared by CPU and GPU, 273 GB/s."),
    (r"\ba100\b(?=.*\bpcie\b)(?=.*\b80\s*g)", "A100 80GB PCIe", 1935.0, 80.0,
     "NVIDIA A100 Tensor Core GPU datasheet: A100 80GB PCIe, HBM2e, 1,935 GB/s, GB as "
     "marketed."),
    (r"\ba100\b(?=.*\b80\s*g)", "A100 80GB SXM", 2039.0, 80.0,
     "NVIDIA A100 Tensor Core GPU datasheet: A100 80GB SXM, HBM2e, 2,039 GB/s, GB as marketed "
     "(80GB without a form factor is taken as SXM4)."),
    (r"\ba100\b", "A100 40GB", 1555.0, 40.0,
     "NVIDIA A100 Tensor Core GPU datasheet: A100 40GB (PCIe and SXM), HBM2, 1,555 GB/s, GB as "
     "marketed (a bare 'A100' is taken as the 40GB part)."),
    (r"\bl40s\b", "L40S", 864.0, 48.0,
     "NVIDIA L40S datasheet: 48GB GDDR6 with ECC, 864 GB/s."),
    (r"\bl4\b", "L4", 300.0, 24.0,
     "NVIDIA L4 Tensor Core GPU datasheet: 24GB GDDR6, 300 GB/s."),
    (r"\ba10\b", "A10", 600.0, 24.0,
     "NVIDIA A10 Tensor Core GPU datasheet: 24GB GDDR6, 600 GB/s."),
    # --- NVIDIA workstation / GeForce ---
    (r"rtx\s*pro\s*6000\b(?=.*\bmax\s*q\b)",
     "RTX PRO 6000 Blackwell Max-Q Workstation Edition", 1792.0, 96.0,
     "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition: 96GB GDDR7 with ECC, 512-bit, "
     "1792 GB/s, 300 W (same memory as the 600 W Workstation Edition)."),
    (r"rtx\s*pro\s*6000\b", "RTX PRO 6000 Blackwell Workstation Edition", 1792.0, 96.0,
     "NVIDIA RTX PRO 6000 Blackwell Workstation Edition: 96GB GDDR7 with ECC, 512-bit, "
     "1792 GB/s, 600 W."),
    (r"rtx\s*5090", "GeForce RTX 5090", 1792.0, 32.0,
     "NVIDIA GeForce RTX 5090 specifications: 32GB GDDR7, 512-bit, 1,792 GB/s."),
    (r"rtx\s*4090", "GeForce RTX 4090", 1008.0, 24.0,
     "NVIDIA GeForce RTX 4090 specifications: 24GB GDDR6X, 384-bit, 21 Gbps = 1,008 GB/s."),
    (r"rtx\s*4080", "GeForce RTX 4080", 716.8, 16.0,
     "NVIDIA GeForce RTX 4080 specifications: 16GB GDDR6X, 256-bit, 22.4 Gbps = 716.8 GB/s."),
    (r"rtx\s*3090", "GeForce RTX 3090", 936.2, 24.0,
     "NVIDIA GeForce RTX 3090 specifications: 24GB GDDR6X, 384-bit, 936 GB/s (936.2 GB/s at "
     "the 1219 MHz memory clock)."),
    # --- AMD ---
    (r"\bmi\s*325x\b", "Instinct MI325X", 6000.0, 256.0,
     "AMD Instinct MI325X product page: 256 GB HBM3E, 6 TB/s peak memory bandwidth, GB as "
     "marketed."),
    (r"\bmi\s*300x\b", "Instinct MI300X", 5300.0, 192.0,
     "AMD Instinct MI300X product page: 192 GB HBM3, 5.3 TB/s peak memory bandwidth, GB as "
     "marketed."),
    # --- Google TPU (per chip) ---
    (r"\bv6e\b|\btrillium\b", "TPU v6e (Trillium)", 1640.0, 32.0,
     "Google Cloud TPU v6e system architecture (cloud.google.com/tpu/docs/v6e): HBM capacity "
     "32 GB and bandwidth 1640 GBps per chip (later page revisions print 1600 or 1638 GBps)."),
    (r"\bv5\s*e\b|\bv5\s*lite", "TPU v5e", 819.0, 16.0,
     "Google Cloud TPU v5e system architecture (cloud.google.com/tpu/docs/v5e): HBM2 16 GB, "
     "819 GBps per chip (later page revisions print 800 GiBps)."),
)

_COMPILED = tuple((re.compile(row[0]), row) for row in GPUS)


def _normalise(name: str) -> str:
    return " ".join(re.sub(r"[-_]", " ", name.lower()).split())


def lookup_gpu_spec(name: str) -> GpuSpec | None:
    """Return the table's GpuSpec for a GPU name, or None when it is unknown or unverified."""
    text = _normalise(name)
    if not text:
        return None
    for pattern, (_, canonical, bandwidth, memory, source) in _COMPILED:
        if pattern.search(text):
            if bandwidth is None or memory is None:
                return None
            return GpuSpec(canonical, bandwidth, memory, source)
    return None


def lookup_gpu(name: str) -> tuple[float, float] | None:
    """Return (bandwidth_gb_s, memory_gib) for a known GPU name, else None."""
    spec = lookup_gpu_spec(name)
    return (spec.bandwidth_gb_s, spec.memory_gib) if spec is not None else None
