"""What a serialized Keras config may name before anything in it is loaded.

Runs in the TF worker, before `keras.saving.load_model`. Every object a config
names is resolved the way Keras's own deserializer resolves it
(`keras.src.saving.serialization_lib._retrieve_class_or_fn`), but only against
what is already registered: Keras's exported API (`api_export`, e.g.
`keras.layers.Conv2D`, also when spelled `"module": "keras", "class_name":
"layers.Lambda"`) and the custom-object registry filled by code the user
named. Nothing is imported to find out. What does not resolve is refused
unless `--unsafe`, because Keras would import its module (`keras_cv.evil`)
to find it; a Lambda layer or Python bytecode is refused because loading it
runs code stored in the file.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# Config entries that carry data, not code (Keras's own `__tensor__`, `__numpy__`...).
_CODE_ENTRIES = ("__lambda__",)


@dataclass(frozen=True)
class Refusal:
    """One object of the config that may not be loaded: `kind` is "lambda" or "unknown"."""

    kind: str
    name: str  # the layer name (lambda) or the class name (unknown)
    module: str = ""  # the module the config names for an unknown class


def walk_objects(config: Any) -> Iterator[dict]:
    """Every dict in a serialised Keras config that describes an object (has a `class_name`)."""
    stack = [config]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if isinstance(value.get("class_name"), str):
                yield value
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            stack.extend(reversed(value))


def refusals(config: Any, legacy: bool = False) -> list[Refusal]:
    """What in `config` loads code (Lambda layers, bytecode) or would be imported (unknown classes).

    `legacy`: an `.h5` config, whose objects carry no module; Keras's legacy
    loader looks their class names up among its own layers and registered
    objects and never imports, so only Lambda layers matter there.
    """
    found: list[Refusal] = []
    for entry in walk_objects(config):
        class_name = entry["class_name"]
        if class_name in _CODE_ENTRIES:
            found.append(Refusal("lambda", _owner_name(config, entry)))
            continue
        if class_name.startswith("__"):
            continue
        resolved = resolve(entry, legacy)
        if resolved is None:
            found.append(Refusal("unknown", class_name, str(entry.get("module") or "")))
        elif _is_lambda_layer(resolved):
            name = entry.get("config", {}).get("name") if isinstance(entry.get("config"), dict) else None
            found.append(Refusal("lambda", str(name or class_name)))
    return _unique(found)


def resolve(entry: dict, legacy: bool = False) -> Any | None:
    """The class or function `entry` names, from Keras's registries only; None when it names nothing there."""
    from keras.src import api_export  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from keras.src.saving import object_registration  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from keras.src.saving.serialization_lib import BUILTIN_MODULES  # noqa: PLC0415 (the compiler loads in the capture worker only)

    class_name = entry["class_name"]
    is_function = class_name == "function"
    name = entry.get("config") if is_function else class_name
    if not isinstance(name, str):
        return None
    registered_name = entry.get("registered_name")
    custom = object_registration.get_registered_object(
        name if is_function else (registered_name if isinstance(registered_name, str) else class_name))
    if custom is not None:
        return custom
    module = entry.get("module")
    if legacy and module is None:
        for package in ("keras.layers", "keras.models", "keras"):
            found = api_export.get_symbol_from_name(f"{package}.{class_name}")
            if found is not None:
                return found
        return _LEGACY_UNKNOWN  # the legacy loader reports it as unknown itself; it never imports
    if not isinstance(module, str):
        return None
    if module == "keras" or module.startswith("keras."):
        found = api_export.get_symbol_from_name(f"{module}.{name}")
        if found is not None:
            return found
    if is_function and module == "builtins":
        for builtin in sorted(BUILTIN_MODULES):
            found = api_export.get_symbol_from_name(f"keras.{builtin}.{name}")
            if found is not None:
                return found
    return _loaded_keras_class(module, name)


# Packages whose modules Keras itself imports by name while deserializing.
KERAS_PACKAGES = ("keras", "keras_hub", "keras_cv", "keras_nlp")


def _loaded_keras_class(module: str, name: str) -> Any | None:
    """A Keras-saveable class of a module already loaded from the installed Keras packages.

    `keras.src.models.functional.Functional` is found so (importing Keras loaded
    it); `keras_cv.evil` is not, and nothing is imported to look.
    """
    from keras.src.saving.keras_saveable import KerasSaveable  # noqa: PLC0415 (the compiler loads in the capture worker only)

    if module.split(".", 1)[0] not in KERAS_PACKAGES:
        return None
    loaded = sys.modules.get(module)
    found = vars(loaded).get(name) if loaded is not None else None
    return found if isinstance(found, type) and issubclass(found, KerasSaveable) else None


_LEGACY_UNKNOWN = object()


def _is_lambda_layer(obj: Any) -> bool:
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    return isinstance(obj, type) and issubclass(obj, keras.layers.Lambda)


def _owner_name(config: Any, code_entry: dict) -> str:
    """The name of the layer whose config holds `code_entry` (a Lambda's function)."""
    for entry in walk_objects(config):
        inner = entry.get("config")
        if isinstance(inner, dict) and any(value is code_entry for value in inner.values()):
            return str(inner.get("name") or entry["class_name"])
    return "?"


def _unique(found: list[Refusal]) -> list[Refusal]:
    seen, unique = set(), []
    for refusal in found:
        if refusal not in seen:
            seen.add(refusal)
            unique.append(refusal)
    return unique
