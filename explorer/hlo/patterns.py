"""The tokens of XLA's HLO text as regular expressions, for `explorer.hlo.parser`.

Two kinds. The general ones match one token where the parser stands, after
whitespace and comments are skipped (XLA's lexer allows them between any two
tokens). The fast ones (`FAST_*`) match a whole common piece as XLA prints it
(`name = f32[2]{0} add(a, b)`, `, key=value`) in one call; each must only ever
match text that the general route reads the same way, which the parser's
property test checks on generated text.
"""

from __future__ import annotations

import re

# Whitespace, `/*index=5*/` comments and `//` line comments between tokens.
_SKIP_TEXT = r"\s*(?:(?:/\*.*?\*/|//[^\n]*)\s*)*"
SKIP = re.compile(_SKIP_TEXT, re.S)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
NAME = re.compile(r"%?([\w][\w.\-]*)")
MODULE_NAME = re.compile(r"[^\s,]+")
OPCODE = re.compile(r"[A-Za-z][\w\-]*")
# XLA lexes `key=` as one token: no space between an attribute's name and `=`.
ATTR_KEY = re.compile(r"([\w.\-]+)=")
KEYWORD = re.compile(r"(ENTRY|ROOT)(?![\w.\-])")
INT = re.compile(r"-?\d+")
ELEMENT_TYPE = re.compile(r"[a-z][a-z0-9]*")
# Where a shape starts (XLA's CanBeShape): a tuple, `type[`, or a buffer `b(`.
SHAPE_START = re.compile(r"\(|[a-z][a-z0-9]*" + _SKIP_TEXT + r"\[|b" + _SKIP_TEXT + r"\(", re.S)
# A layout is `{` followed by a dimension number, `:` or `}`; any other `{` after
# a shape (a computation body after `-> f32[]`, a literal) is not one.
LAYOUT_START = re.compile(r"\{" + _SKIP_TEXT + r"[\d:}]", re.S)
LAYOUT_ITEM = re.compile(r"[A-Za-z#*]+")
STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
# A word of an attribute value; a comment after it is not part of it.
PLAIN_VALUE = re.compile(r'(?:[^\s,{}()\[\]"/]|/(?![*/]))+')
GROUP_TEXT = re.compile(r'[^{}()\[\]"]+')
OUTPUT_INDEX = re.compile(r"#\d+")
# One `key=value` of a metadata body; commas between them are optional (XLA's
# sub-attributes), values are strings, braced lists (`profile_type={1}`) or words.
_METADATA_GAP = r"(?:[\s,]+|/\*.*?\*/|//[^\n]*)*"
_METADATA_FIELD_TEXT = (
    _METADATA_GAP + r'([\w.\-]+)=' + _SKIP_TEXT
    + r'("[^"\\]*(?:\\.[^"\\]*)*"|\{[^{}"]*\}|[^\s,{}"]+)')
METADATA_FIELD = re.compile(_METADATA_FIELD_TEXT, re.S)
METADATA_BODY = re.compile(r"(?:" + _METADATA_FIELD_TEXT + r")*" + _METADATA_GAP, re.S)
ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|(.))", re.S)
# Newer XLA prints stack-frame tables (a keyword line, then numbered entries)
# between the module header and the computations; metadata `stack_frame_id`
# points into them. Skipped: `source_file`/`source_line` already say where.
FRAME_TABLE = re.compile(
    r"(?:FileNames|FunctionNames|FileLocations|StackFrames)[ \t]*\n(?:[ \t]*\d+[^\n]*(?:\n|$))*")

# Attributes whose value names one computation (or holds its body inline), as XLA spells them.
CALLING_KEYS_TEXT = ("calls", "to_apply", "condition", "body", "true_computation", "false_computation",
                      "select", "scatter", "async_wrapped_computation")

# Attributes whose value is a braced list of computations.
CALLING_LIST_KEYS_TEXT = ("branch_computations", "called_computations")

# --- fast paths: strict special cases of the general route -------------------
# `[ROOT] name = ` on one line; a bare `ROOT` is the keyword, never a name.
FAST_HEAD = re.compile(r"(ROOT[ \t]+)?(?!ROOT(?![\w.\-]))%?([\w][\w.\-]*)[ \t]*=[ \t]*")
# An array shape written without spaces or comments, e.g. `bf16[8,<=128]{1,0:T(8,128)(2,1)}`,
# with nothing after it that the general route could read as part of the shape
# (a layout, or a comment that may hide one).
# Its text is a key into a cache filled by the general route itself.
_ARRAY_TEXT = r"[a-z][a-z0-9]*\[[\d,<=?]*\](?:\{[^{}\s/]*\})?"
# The commonest of them, built without the general route: `f32[2,3]{1,0}`.
SIMPLE_ARRAY = re.compile(r"([a-z][a-z0-9]*)\[((?:\d+(?:,\d+)*)?)\](?:\{((?:\d+(?:,\d+)*)?)\})?")
# ... and the tiled ones TPUs print: `bf16[8,128]{1,0:T(8,128)(2,1)S(1)}`.
TILED_ARRAY = re.compile(
    r"([a-z][a-z0-9]*)\[((?:\d+(?:,\d+)*)?)\]\{((?:\d+(?:,\d+)*)?):(?:T((?:\(\d+(?:,\d+)*\))+))?(?:S\((\d+)\))?\}")
# ... or a tuple of such arrays, `(f32[2]{0}, u8[0]{0})`.
_SHAPE_TEXT = r"(?:" + _ARRAY_TEXT + r"|\((?:" + _ARRAY_TEXT + r"(?:, " + _ARRAY_TEXT + r")*)?\))"
# A `{` after it may open a computation body (`-> f32[] {`), not a layout.
FAST_SHAPE = re.compile(_SHAPE_TEXT + r"(?![:\w\[(]|\s*/|\s*\{\s*[\d:}/])")
FAST_OPCODE = re.compile(r"[ \t]*([A-Za-z][\w\-]*)\(")
FAST_OPERANDS = re.compile(r"((?:%?[\w][\w.\-]*(?:,[ \t]*%?[\w][\w.\-]*)*)?)\)")
# Possessive runs (`++`, `*+`): a value that does not match fails at once, without backtracking.
_STRING_TEXT = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_FLAT = r'(?:[^{}()\[\]"/]++|' + _STRING_TEXT + r')*+'  # no brackets, no comments; strings whole


def _nested_once(inner: str) -> str:
    """Text with brackets balanced one level deeper than `inner`."""
    return (r'(?:[^{}()\[\]"/]++|' + _STRING_TEXT + r'|\{' + inner + r'\}|\[' + inner + r'\]|\(' + inner
            + r'\))*+')


_TWO_LEVELS = _nested_once(_nested_once(_FLAT))  # e.g. GPU backend_config JSON


def _fast_attribute_text(capture: bool) -> str:
    """`, key=value` (key and value captured or not).

    Bodies written inline (`calls={...}`), lists of computations (which may
    hold such bodies) and custom-call literals (a shape, a space, the values)
    take the general route.
    """
    group = "(" if capture else "(?:"
    return (
        r'[ \t]*,[ \t]*(?!(?:' + "|".join(CALLING_KEYS_TEXT) + r')=\{|literal=|'
        + "|".join(CALLING_LIST_KEYS_TEXT) + r'=)' + group + r'[\w.\-]+)=' + group
        + r'[^\s,{}()\[\]"/]++'  # kind=kLoop, to_apply=%region_0.3
        + r'|' + _STRING_TEXT  # custom_call_target="..."
        + r'|\{' + _TWO_LEVELS + r'\}'  # metadata={...}, dimensions={1}, backend_config={"a":{"b":[1]}}
        + r')(?=[\s,]|$)')


FAST_ATTRIBUTE = re.compile(_fast_attribute_text(capture=True))
# All of an instruction's attributes in one match (then split by `FAST_ATTRIBUTE.findall`).
FAST_ATTRIBUTES = re.compile("(?:" + _fast_attribute_text(capture=False) + ")*")
# The end of an instruction's attributes: the next line starts a name or closes the computation.
FAST_ATTRIBUTES_END = re.compile(r"[ \t]*(?:\r?\n[ \t]*)+(?=[%\w}])")
# Metadata as XLA prints it: fields one space apart, strings without escapes,
# words, or braced numbers (`profile_type={1}`).


def _fast_metadata_field_text(capture: bool) -> str:
    group = "(" if capture else "(?:"
    return group + r'[\w.\-]+)=' + group + r'"[^"\\]*+"|[^\s"{},]++|\{[\d,]*+\})'


FAST_METADATA_FIELD = re.compile(_fast_metadata_field_text(capture=True))
FAST_METADATA = re.compile(r"\{(?:" + _fast_metadata_field_text(False) + "(?: " + _fast_metadata_field_text(False)
                            + r")*)?\}")
# `[ROOT] name = f32[2]{0} opcode(a, b)`: a whole instruction up to its attributes.
# An operand, maybe with its shape as XLA prints it before optimisation: `f32[2]{0} %a`.
_OPERAND_TEXT = r"(?:" + _SHAPE_TEXT + r" )?%?[\w][\w.\-]*"
FAST_OPERAND = re.compile(r"(?:(" + _SHAPE_TEXT + r") )?%?([\w][\w.\-]*)")
FAST_LINE = re.compile(
    r"(ROOT[ \t]+)?(?!ROOT(?![\w.\-]))%?([\w][\w.\-]*)[ \t]*=[ \t]*"
    r"(" + _SHAPE_TEXT + r")[ \t]+"
    r"([A-Za-z][\w\-]*)\(((?:" + _OPERAND_TEXT + r"(?:,[ \t]*" + _OPERAND_TEXT + r")*)?)\)")
