"""Remove run-specific details from compiler text before it is stored or shown.

XLA dumps carry two kinds of noise that differ between runs of the same model:

- Module names made by TensorFlow, e.g.
  `a_inference__lambda__72__XlaMustCompile_true_config_proto_1356..._executor_type_1116..._.5`.
  The `config_proto_<digits>` and `executor_type_<digits>` parts are hashes of
  the session configuration, and `72` is TensorFlow's function counter: it
  grows with everything the process traced before (checked: tracing one other
  jit function first turned `72` into `82`), so it is dropped. The trailing
  `.5` is XLA's module id and did not change, so it is kept.
- Absolute paths in HLO metadata (`source_file="/.../site-packages/keras/..."`):
  installed packages become package-relative (`keras/src/...`), any other
  absolute path becomes `<path>/<file name>`. Line numbers are kept.

Every function here is idempotent: normalising normalised text changes nothing.
"""

from __future__ import annotations

import re

# `_config_proto_<digits>` / `_executor_type_<digits>`: hashes of TF's session config.
_CONFIG_HASHES = re.compile(r"_(?:config_proto|executor_type)_\d+")
# `a_inference_<function>_<uid>__XlaMustCompile...`: drop `_<uid>` (TF's trace counter).
_FUNCTION_UID = re.compile(r"(a_inference_\w*?)_\d+(__XlaMustCompile)")
# Everything up to and including `site-packages/` or `dist-packages/` of an absolute path.
_PACKAGE_PREFIX = re.compile(r"(?<![\w.\-/)\]])(?:/[^\s\"'/]+)+/(?:site|dist)-packages/")
# Any other absolute path with at least one directory; `/*index=5*/` and
# relative paths (`keras/src/ops.py`) do not match because of the lookbehind.
_ABSOLUTE_PATH = re.compile(r"(?<![\w.\-/*<>)\]])/(?:[\w.\-+@]+/)+([\w.\-+@]+)")


def normalise_module_name(name: str) -> str:
    """A TF/XLA module name without its run-specific hashes and counter.

    >>> normalise_module_name("a_inference_f_38__XlaMustCompile_true_config_proto_1_executor_type_2_.3")
    'a_inference_f__XlaMustCompile_true_.3'
    """
    return _FUNCTION_UID.sub(r"\1\2", _CONFIG_HASHES.sub("", name))


def normalise_paths(text: str) -> str:
    """Make absolute paths relative to their package, or `<path>/<file>` otherwise."""
    text = _PACKAGE_PREFIX.sub("", text)
    return _ABSOLUTE_PATH.sub(r"<path>/\1", text)


def normalise_text(text: str) -> str:
    """Normalise module names and paths anywhere in a compiler dump's text."""
    return normalise_paths(normalise_module_name(text))
