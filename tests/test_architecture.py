"""The layering rules: the UI never loads a compiler, the core never loads the UI.

Checked in fresh interpreters by looking at `sys.modules` after importing every
module of a package, so a lazy import hidden in a module body is caught too.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

COMPILERS = ("tensorflow", "keras", "jax", "jaxlib", "libtpu")

# Worker modules run in their own processes; they are the only ones allowed to import compilers.
WORKER_PREFIXES = ("explorer.capture.tf_", "explorer.capture.jax_")

PROBE = r"""
import importlib, json, pkgutil, sys
package = importlib.import_module(sys.argv[1])
skip = tuple(sys.argv[2].split(",")) if sys.argv[2] else ()
names = [package.__name__]
for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
    # A `__main__` module runs its program when imported (`python -m explorer.cli`): not a library module.
    if not info.name.startswith(skip) and not info.name.endswith(".__main__"):
        names.append(info.name)
for name in names:
    importlib.import_module(name)
top = sorted({m.split(".")[0] for m in sys.modules})
print(json.dumps({"imported": names, "top": top}))
"""


def imported_by(package: str, skip: tuple[str, ...] = ()) -> dict:
    result = subprocess.run([sys.executable, "-c", PROBE, package, ",".join(skip)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_screens_never_import_a_compiler():
    probe = imported_by("screens")
    assert len(probe["imported"]) > 1, "expected the screens package to have modules"
    leaked = [name for name in COMPILERS if name in probe["top"]]
    assert leaked == [], f"screens imported {leaked}"


def test_explorer_core_imports_neither_textual_nor_compilers():
    probe = imported_by("explorer", skip=WORKER_PREFIXES)
    assert "explorer.model.bundle" in probe["imported"]
    assert "textual" not in probe["top"] and "screens" not in probe["top"]
    leaked = [name for name in COMPILERS if name in probe["top"]]
    assert leaked == [], f"explorer core imported {leaked}"


@pytest.mark.parametrize("package", ["sample_models"])
def test_sample_registry_is_cheap_to_import(package):
    """Listing samples must not start TensorFlow: builders import keras only when called."""
    probe = imported_by(package)
    assert "tensorflow" not in probe["top"] and "keras" not in probe["top"]
