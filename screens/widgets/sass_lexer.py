"""A small Pygments lexer for NVIDIA SASS as `cuobjdump -sass` prints it (Pygments has none:
its "Sass" is the CSS language).

Registers get the token type the nasm lexer gives x86 registers (Name.Builtin), so the GPU's
`R0`..`R255`, uniform registers `UR4`, predicates `P0`/`PT` and special registers `SR_TID.X`
stand out the way `xmm0` does in the CPU's assembly; the address comment and `.reuse`
(an operand-reuse cache hint, not an operand) are dimmed.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer
from pygments.token import Comment, Name, Number, Operator, Punctuation, Text, Whitespace

REGISTER = r"\b(?:U?R\d+|U?RZ|U?P\d+|U?PT|SR_[A-Z0-9_.]+)\b"


class SassLexer(RegexLexer):
    name = "NVIDIA SASS"
    aliases = ["nvidia-sass"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"/\*[0-9a-fA-F]+\*/", Comment),  # the instruction's address
            (r"//[^\n]*", Comment.Single),
            (r"@!?" + REGISTER, Name.Builtin),  # a predicate guarding the instruction
            (REGISTER, Name.Builtin),
            (r"\.reuse\b", Comment),
            (r"\bc\[0x[0-9a-fA-F]+\]\[0x[0-9a-fA-F]+\]", Name.Constant),  # constant bank
            (r"\b[A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*", Name.Function),  # opcode and its modifiers
            (r"-?0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", Number),
            (r"[;,\[\]{}|]", Punctuation),
            (r"[-+!~|]", Operator),
            (r"[^\s;,\[\]{}|]+", Text),
        ]
    }
