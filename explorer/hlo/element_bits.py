"""Bits per element of XLA's primitive types: a table without the HLO data model, so a module that
only sizes arrays (the HLO scanner, TVM's program) does not build its dataclasses (start-up)."""

from __future__ import annotations

# Bytes per element for XLA's primitive types (sub-byte types round up to 1 for
# display purposes; `bits` keeps the exact width).
ELEMENT_BITS: dict[str, int] = {
    "pred": 8, "s2": 2, "s4": 4, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "u2": 2, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "f8e4m3fn": 8, "f8e5m2": 8, "f8e4m3b11fnuz": 8, "f8e4m3fnuz": 8,
    "f8e5m2fnuz": 8, "f8e4m3": 8, "f8e3m4": 8, "f4e2m1fn": 4, "f8e8m0fnu": 8,
    "bf16": 16, "f16": 16, "f32": 32, "f64": 64, "c64": 64, "c128": 128,
    "token": 0, "opaque": 0,
}
