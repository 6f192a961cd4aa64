"""Decode only the parts of a large JSON file that a reader uses.

A GuideLLM ``benchmarks.json`` holds, per benchmark, some 30 metric distributions (text, image,
audio …) and the scheduler's state, of which a reader uses seven distributions; parsing all of
it into Python objects costs more than everything else the load does with the file. Given the
shape of what is used (``Fields``), msgspec decodes those keys (as TypedDicts: plain dicts) and
only checks the rest as JSON (no Python objects are made for it). The answer is plain dicts and
lists holding the named keys that the file has, so the reader's code is the same as on a fully
decoded file.

Where the file does not have the expected shape (a list where an object was named, a BOM, JSON
Lines, invalid JSON), ``decode_fields`` answers None and the reader decodes the whole file with
its usual errors: this is a faster route to the same values, never a second schema.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, TypeAlias, TypedDict

import msgspec

# key → None (the whole value, as it is), the Fields of an object, or [Fields] (a list of
# such objects); anything the shape does not name is skipped
Fields: TypeAlias = Mapping[str, "Fields | list[Fields] | None"]
Shape: TypeAlias = "Fields | list[Fields] | None"


_TYPED_DICT: Any = TypedDict  # called with a field map made at run time (mypy wants literals)


class _ListOf(tuple[Any, ...]):
    """The frozen shape of a list of objects (told apart from an object's key pairs)."""


@functools.cache
def _decoder(frozen: tuple[tuple[str, Any], ...]) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(_typed_dict(frozen))


def _freeze(shape: Shape) -> Any:
    """A hashable copy of ``shape`` (the decoder of each shape is built once)."""
    if shape is None:
        return None
    if isinstance(shape, list):
        return _ListOf((_freeze(shape[0]),))
    return tuple((key, _freeze(sub)) for key, sub in shape.items())


def _type(frozen: Any) -> Any:
    if frozen is None:
        return Any
    if isinstance(frozen, _ListOf):
        return list[_type(frozen[0])]  # type: ignore[misc]
    return _typed_dict(frozen)


def _typed_dict(frozen: tuple[tuple[str, Any], ...]) -> Any:
    # a TypedDict: msgspec decodes the named keys straight into a dict and skips the others
    # (keys need not be identifiers in the functional form)
    return _TYPED_DICT("Picked", {key: _type(sub) for key, sub in frozen}, total=False)


_FROZEN: dict[int, tuple[Fields, Any]] = {}  # id(shape) → (shape, its frozen form)


def decode_fields(raw: bytes, shape: Fields) -> dict[str, Any] | None:
    """The top-level object of ``raw`` with only the keys ``shape`` names (as far as the file
    has them), else None when ``raw`` is not one JSON object of that shape."""
    frozen = _FROZEN.get(id(shape))
    if frozen is None or frozen[0] is not shape:  # each shape frozen once (a reader's constant)
        frozen = _FROZEN[id(shape)] = (shape, _freeze(shape))
    try:
        picked = _decoder(frozen[1]).decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return picked if isinstance(picked, dict) else None
