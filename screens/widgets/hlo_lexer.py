"""A small Pygments lexer for HLO text (XLA ships none; see jax#25366).

Only what helps reading: instruction names, opcodes, shapes with layouts,
attribute keys, and metadata dimmed as a comment so the data flow stands out.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace


class HloLexer(RegexLexer):
    name = "HLO"
    aliases = ["hlo"]
    filenames = ["*.hlo"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"(metadata=)(\{[^\n]*?\})(?=(, [a-z_]+=|$))", bygroups(Comment, Comment)),
            (r"(backend_config=)([^\n]*)$", bygroups(Comment, Comment)),
            (r"\b(HloModule|ENTRY|ROOT)\b", Keyword.Reserved),
            (r"%[\w.\-]+", Name.Variable),
            # a shape: element type, dims, optional layout
            (r"\b(pred|[sfu]\d+|bf16|f8\w*|c64|c128|token)(\[[^\]]*\])(\{[^}]*\})?",
             bygroups(Keyword.Type, Keyword.Type, Comment.Special)),
            (r"\b([a-z][\w\-]*)(\()", bygroups(Name.Function, Punctuation)),
            (r"\b([a-z_][\w]*)(=)", bygroups(Name.Attribute, Operator)),
            (r'"[^"]*"', String),
            (r"-?\d+(\.\d+)?(e[+-]?\d+)?", Number),
            (r"[{}()\[\],:]", Punctuation),
            (r"(=|->)", Operator),
            (r"[^\s%{}()\[\],:=\"]+", Text),
        ]
    }
