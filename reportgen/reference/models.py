"""Built-in table of common open models: weight and KV-cache bytes without the user typing them.

For each model the table holds the figures a decode roofline needs: total and active
parameters, layers, KV heads and head size (or the MLA latent sizes for DeepSeek), and where
they come from. Parameter counts are computed from the official config.json dimensions
(embeddings, attention, MLP/experts, norms; biases where the architecture has them) and checked
against the model card's rounded figure, which each ``source`` quotes where one was found.

Conventions
-----------
* ``active_params`` is what one decode step reads. For MoE models it counts the routed experts
  actually used (top-k) plus everything shared. The input embedding is a row gather, not a full
  read, but dense models count it anyway (the model-card convention), so dense
  ``weight_bytes_per_step`` is a slight upper bound; gpt-oss and DeepSeek follow their cards.
* Multimodal Gemma 3 checkpoints (4B/12B/27B) ship a ~0.4B SigLIP vision tower that text decode
  never reads; ``params`` and ``active_params`` are the language model only, which the source
  says.
* ``kv_bytes_per_token`` is the full-attention upper bound: every layer keeps K and V for every
  token. Models with sliding-window layers (Gemma 2 and 3, gpt-oss; Mistral-7B v0.1) keep at
  most ``sliding_window`` tokens in those layers; ``kv_bytes_for_context`` accounts for that.

Name matching
-------------
``lookup_model`` lower-cases the name, drops a file extension (``.gguf``, ``.safetensors``),
and turns every run of ``-``, ``_``, ``.``, ``:`` and spaces into one ``-``; so
``Qwen2.5-7B-Instruct``, ``qwen2.5:7b`` and ``qwen2_5 7b`` all read ``qwen2-5-7b...``. Path
components are tried from the last one back (``org/name``, ``/models/name``, and
``models--org--name/snapshots/<hash>`` cache paths). The rows of ``MODELS`` (the
``[[model]]`` tables of ``reportgen/data/models.toml``, in file order) are tried in order;
the first whose pattern matches decides, and a row with no spec is a deliberate
"unknown" (e.g. R1 distills built on bases not in the table). Every pattern names the family
*and* the size, bounded on both sides, so Qwen3-32B, Qwen3-30B-A3B and Qwen2.5-32B, or
gemma-3-1b and gemma-3-12b, cannot be confused, and a family without a size matches nothing.
DeepSeek-V3/R1 come in one size, so their rows need no size but refuse a name carrying any
other size (Ollama's ``deepseek-r1:7b`` is a distill).

Weight precision is read off the name the same way, from ``QUANT_MARKERS`` (the ``[[quant]]``
tables of the same file): each marker is matched as a whole token, first match wins.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from reportgen.files.resources import data_tables


@dataclass(frozen=True)
class ModelSpec:
    """Decode-relevant shape of one model; see the module docstring for the conventions."""

    key: str  # canonical name, e.g. "Llama-3.1-8B"
    params: float  # total parameters
    active_params: float  # parameters read per decode step (MoE: active experts only)
    layers: int
    kv_heads: int
    head_dim: int
    kv_lora_rank: int | None = None  # MLA: compressed KV latent per token per layer
    rope_head_dim: int | None = None  # MLA: decoupled RoPE key per token per layer
    source: str = ""
    sliding_window_layers: int = 0  # layers that attend to a sliding window only
    sliding_window: int | None = None  # tokens those layers keep

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None and self.rope_head_dim is not None

    def kv_elements_per_token_per_layer(self) -> int:
        """Cached elements per token in one layer: 2×kv_heads×head_dim, or the MLA latent."""
        if self.kv_lora_rank is not None and self.rope_head_dim is not None:
            return self.kv_lora_rank + self.rope_head_dim
        return 2 * self.kv_heads * self.head_dim

    def weight_bytes_per_step(self, bytes_per_param: float) -> float:
        """Weight bytes read per decode step: active_params × bytes per parameter."""
        return self.active_params * bytes_per_param

    def kv_bytes_per_token(self, bytes_per_elem: float) -> float:
        """KV-cache bytes per token, every layer full attention (an upper bound for models with
        sliding-window layers): 2(K,V)×layers×kv_heads×head_dim×bytes, or for MLA
        layers×(kv_lora_rank+rope_head_dim)×bytes."""
        return self.layers * self.kv_elements_per_token_per_layer() * bytes_per_elem

    def kv_bytes_for_context(self, tokens: int, bytes_per_elem: float) -> float:
        """KV-cache bytes one sequence of ``tokens`` tokens holds, sliding-window layers keeping
        at most ``sliding_window`` tokens."""
        per_layer_token = self.kv_elements_per_token_per_layer() * bytes_per_elem
        full_layers = self.layers - self.sliding_window_layers
        windowed = min(tokens, self.sliding_window) if self.sliding_window else tokens
        return per_layer_token * (full_layers * tokens + self.sliding_window_layers * windowed)


_B = r"(?<![a-z0-9])"  # the family starts a token
_E = r"(?![a-z0-9])"  # the size ends a token

# (pattern on the normalised name, spec or None). First match wins; None means "unknown".
ModelRow = tuple[str, ModelSpec | None]
# (pattern on the normalised name, bytes per parameter, reason). First match wins.
QuantRow = tuple[str, float, str]

if TYPE_CHECKING:
    # The rows of data/models.toml in file order, read on first use (see __getattr__).
    MODELS: tuple[ModelRow, ...]
    QUANT_MARKERS: tuple[QuantRow, ...]

_SPEC_KEYS = frozenset(field.name for field in dataclasses.fields(ModelSpec))


@cache
def _tables() -> tuple[tuple[ModelRow, ...], tuple[QuantRow, ...]]:
    # Read on first lookup, not at import: most commands never need the table.
    doc = data_tables("models.toml", {
        "model": _SPEC_KEYS | {"pattern"},
        "quant": frozenset({"marker", "bits_per_weight", "reason"}),
    })
    models = tuple((row["pattern"], _spec(row)) for row in doc["model"])
    quant = tuple((_B + "(?:" + row["marker"] + ")" + _E, row["bits_per_weight"] / 8,
                   row["reason"]) for row in doc["quant"])
    return models, quant


def _spec(row: dict[str, Any]) -> ModelSpec | None:
    """A [[model]] row's spec; a row with only a pattern is a deliberate "unknown"."""
    fields = {key: value for key, value in row.items() if key != "pattern"}
    if not fields:
        return None
    fields.setdefault("active_params", fields["params"])  # left out: dense, all read each step
    return ModelSpec(**fields)


@cache
def _compiled() -> tuple[tuple[re.Pattern[str], ModelSpec | None], ...]:
    return tuple((re.compile(pattern), spec) for pattern, spec in _tables()[0])


@cache
def _quant_compiled() -> tuple[tuple[re.Pattern[str], float, str], ...]:
    return tuple((re.compile(p), value, reason) for p, value, reason in _tables()[1])


def __getattr__(name: str) -> tuple[ModelRow, ...] | tuple[QuantRow, ...]:
    # ``MODELS`` and ``QUANT_MARKERS`` stay importable as constants without parsing the TOML at
    # import time.
    if name == "MODELS":
        return _tables()[0]
    if name == "QUANT_MARKERS":
        return _tables()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_EXTENSION = re.compile(r"\.(?:gguf|safetensors|bin|pt|pth)$", re.IGNORECASE)


def _normalise(text: str) -> str:
    text = _EXTENSION.sub("", text.strip().lower())
    return re.sub(r"[\s_.:-]+", "-", text).strip("-")


def _components(name: str) -> tuple[str, ...]:
    """Normalised path components, last first (a bare model id is one or two components)."""
    parts = (_normalise(part) for part in reversed(re.split(r"[/\\]", name)))
    return tuple(part for part in parts if part)


def _match(text: str) -> tuple[bool, ModelSpec | None]:
    for pattern, spec in _compiled():
        if pattern.search(text):
            return True, spec
    return False, None


def lookup_model(name: str) -> ModelSpec | None:
    """The table's ModelSpec for a model id as users write it, or None (never a guess).

    Path components are tried from the last one back, so ``org/name``, ``/models/name`` and
    Hugging Face cache paths (``models--org--name/snapshots/<hash>``) all resolve."""
    for text in _components(name):
        matched, spec = _match(text)
        if matched:
            return spec
    return None


# --- weight precision from the name --------------------------------------------------------


def bytes_per_param(name: str) -> tuple[float, str] | None:
    """Weight bytes per parameter read off a model name, with the reason; None when the name
    carries no recognised quantisation marker (bf16/fp16 or nothing: the caller decides).

    Path components are read from the last one back, stopping at the component that names the
    model, so a marker in an unrelated parent directory is not picked up."""
    for text in _components(name):
        for pattern, value, reason in _quant_compiled():
            if pattern.search(text):
                return value, reason
        if _match(text)[0]:
            return None
    return None
