"""The Python lines behind a layer, recorded in the TensorFlow capture worker.

Two records (docs/passport.md): for every TensorFlow graph op a layer creates, the lines of the
traceback TensorFlow keeps while tracing (`Operation.traceback`: the whole Python stack, outermost
first), cut to the layer's `call` down to the last line outside TensorFlow (the Keras backend line
that called `tf.nn...`); and, for a `module:function` model, where the user's function called
each layer while it built the model. Paths are made relative here, before anything is written:
to the user's module folder, else to the package root (site-packages); any other file becomes
`<path>/<file name>`. The line's text is read now, from the file that ran.
"""

from __future__ import annotations

import linecache
import os
import site
import sys
import sysconfig
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from explorer.model.records import SourceLine

# Frames a reader learns nothing from: TensorFlow's own (op creation, dispatch) and Keras's
# error-handling wrapper around every call.
_SKIPPED_PREFIXES = ("tensorflow/", "keras/src/utils/traceback_utils.py")
_LAYER_CALL = "call"  # a layer's own code: the traceback is cut above its `call`
_MOST_FRAMES = 8  # at most this many lines per op (innermost kept)
_MOST_USER_FRAMES = 4  # at most this many of the user's lines per layer call (innermost kept)
_LONGEST_TEXT = 200  # a line's text is cut here: a bundle holds one per frame
# The attributes the capture stamps on the user's model and layers (never serialised by Keras).
_CALLED_AT = "_tensorweg_called_at"
_USER_FOLDER = "_tensorweg_user_folder"


@cache
def _package_roots() -> tuple[str, ...]:
    """Folders whose files are shown relative to them, the longest first (a venv inside another)."""
    paths = sysconfig.get_paths()
    roots = [paths.get("purelib", ""), paths.get("platlib", ""), *site.getsitepackages()]
    roots += [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages"))]
    found = {os.path.abspath(root) for root in roots if root and os.path.isdir(root)}
    return tuple(sorted(found, key=len, reverse=True))


def relative_file(filename: str, user_folder: str = "") -> str:
    """`filename` relative to the user's folder or a package root, else `<path>/<name>`."""
    if not filename or filename.startswith("<"):
        return filename  # `<frozen runpy>`, `<string>`: no file, nothing absolute
    path = os.path.abspath(filename)
    for root in ((user_folder,) if user_folder else ()) + _package_roots():
        if path.startswith(root.rstrip(os.sep) + os.sep):
            return Path(os.path.relpath(path, root)).as_posix()
    return f"<path>/{os.path.basename(path)}"


@lru_cache(maxsize=4096)  # ResNet50's 867 ops walk 12,891 frames, 43 of them different: 0.6 s -> 0.1 s
def _line(filename: str, lineno: int, function: str, user_folder: str) -> SourceLine:
    text = linecache.getline(filename, lineno).strip()[:_LONGEST_TEXT] if lineno > 0 else ""
    return SourceLine(relative_file(filename, user_folder), int(lineno), function, text)


def op_source(traceback: Iterable[Any], user_folder: str = "") -> tuple[SourceLine, ...]:
    """The lines of an op's traceback (frames with `filename`, `lineno`, `name`, outermost first)
    from the innermost `call` down to the last frame outside TensorFlow, outermost first."""
    kept: list[SourceLine] = []
    for frame in reversed(list(traceback)):
        line = _line(frame.filename, frame.lineno, frame.name, user_folder)
        if line.file.startswith(_SKIPPED_PREFIXES):
            continue
        kept.append(line)
        if frame.name == _LAYER_CALL:
            return tuple(reversed(kept[-_MOST_FRAMES:]))
    return tuple(reversed(kept[:_MOST_FRAMES]))


def _user_frames(folder: str) -> tuple[SourceLine, ...]:
    """The frames of the running stack inside `folder` (the user's module), outermost first."""
    kept: list[SourceLine] = []
    frame = sys._getframe(2)  # above the recording wrapper
    prefix = folder.rstrip(os.sep) + os.sep
    while frame is not None and len(kept) < _MOST_USER_FRAMES:
        filename = frame.f_code.co_filename
        if os.path.abspath(filename).startswith(prefix):
            kept.append(_line(filename, frame.f_lineno, frame.f_code.co_name, folder))
        frame = frame.f_back
    return tuple(reversed(kept))


@contextmanager
def recording_call_sites(model_folder: str) -> Iterator[None]:
    """While the block runs the user's function, stamp every layer it calls with where (its
    first call only). Patches `keras.layers.Layer.__call__` on the class and restores it.
    Without a folder (a module without a file) nothing is recorded."""
    if not model_folder:
        yield
        return
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    layer_class = keras.layers.Layer
    original = layer_class.__call__

    def recording_call(self, *args, **kwargs):
        if _CALLED_AT not in self.__dict__:
            # object.__setattr__: keep Keras' attribute tracker out of it.
            object.__setattr__(self, _CALLED_AT, _user_frames(model_folder))
        return original(self, *args, **kwargs)

    layer_class.__call__ = recording_call
    try:
        yield
    finally:
        layer_class.__call__ = original


def mark_user_model(model: Any, model_folder: str) -> None:
    """Remember the user's module folder on the model: the op tracebacks are relative to it too."""
    object.__setattr__(model, _USER_FOLDER, model_folder)


def user_folder(model: Any) -> str:
    """The folder of a `module:function` model's module ("" for every other model)."""
    return getattr(model, "__dict__", {}).get(_USER_FOLDER, "")


def called_at(layer: Any) -> tuple[SourceLine, ...]:
    """Where the user's function called `layer` (() when not recorded)."""
    return getattr(layer, "__dict__", {}).get(_CALLED_AT, ())
