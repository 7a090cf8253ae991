"""What the kernels level's code view shows for a kernel: the code recorded for it, machine code first.

On the CPU assembly, then LLVM IR before and after LLVM's passes; on the GPU PTX, then SASS (the
machine code ptxas made of it), then the LLVM IR. A kernel with none (a library call, a TPU
program step) says why instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.labels import label

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle
    from explorer.model.records import KernelRecord

# (KernelRecord field, title, the code view's language): the machine's own code first, down to the registers.
CODE_FIELDS = (("asm", "assembly", "asm"), ("ptx", "PTX", "ptx"), ("sass", "SASS", "sass"),
               ("llvm_ir", "LLVM IR", "llvm"), ("llvm_ir_optimized", "LLVM IR optimized", "llvm"))


@dataclass(frozen=True)
class KernelCode:
    """One recorded text of a kernel: its title ("PTX"), the code view's language, the text."""

    title: str
    language: str
    text: str


@dataclass(frozen=True)
class KernelCodes:
    """Every code recorded for one kernel, in the order `v` cycles them; `note` when there is none."""

    codes: tuple[KernelCode, ...]
    note: str = ""


def recorded_codes(kernel: KernelRecord) -> tuple[KernelCode, ...]:
    return tuple(KernelCode(title, language, getattr(kernel, field))
                 for field, title, language in CODE_FIELDS if getattr(kernel, field))


def kernel_codes(bundle: Bundle | None, target: str, name: str, lang: str) -> KernelCodes:
    """What the code view cycles through for kernel `name` on `target`."""
    kernel = next((k for k in bundle.kernels(target) if k.name == name), None) if bundle is not None else None
    codes = recorded_codes(kernel) if kernel is not None else ()
    if codes:
        return KernelCodes(codes)
    if kernel is not None and (kernel.kind == "library" or kernel.library_calls):
        calls = f" ({', '.join(kernel.library_calls)})" if kernel.library_calls else ""
        return KernelCodes((), label("text.library_call", lang).format(calls=calls))
    return KernelCodes((), label("text.no_code", lang))
