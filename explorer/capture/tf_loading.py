"""Turn what the user named (file, SavedModel, sample, `module:function`) into a Keras model.

Runs inside the TF capture worker only: TensorFlow and Keras are imported inside
the functions. Every failure the user can act on becomes a one-line
`TensorwegError`; Keras' own safe mode stays on unless `unsafe=True`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

from explorer.capture.keras_config import refusals
from explorer.capture.source_lines import mark_user_model, recording_call_sites
from explorer.errors import TensorwegError
from explorer.model.records import MAX_INPUT_ELEMENTS, ModelIdentity

import sample_models
from sample_models import SAMPLES

ZIP_MAGIC = b"PK\x03\x04"
HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
SAVED_MODEL_FILES = ("saved_model.pb", "saved_model.pbtxt")
# `package.module:function` or `path/to/file.py:function`.
FUNCTION_SPEC = re.compile(r"^(?P<module>[^:]+):(?P<function>[A-Za-z_][A-Za-z0-9_]*)$")

Signature = list[tuple[str, tuple[int, ...], str]]


def load_model(spec: str, unsafe: bool = False, cwd: str | None = None) -> tuple[Any, ModelIdentity]:
    """Load `spec` and say what it was.

    Order: an existing path wins, then a sample name, then `module:function`.
    A SavedModel is wrapped in a one-layer functional model around its
    `serving_default` signature: it has no Keras layers of its own, so the
    layers level shows that single wrapper layer. `cwd` is where the user
    ran tensorweg: a `module:function` is imported from there (and only that).
    """
    path = Path(spec)
    if path.is_dir():
        return _load_saved_model(path)
    if path.is_file():
        return _load_model_file(path, unsafe)

    if spec in SAMPLES:
        return _load_sample(spec)
    match = FUNCTION_SPEC.match(spec)
    if match and not spec.endswith((".keras", ".h5")):
        return _load_function(spec, match["module"], match["function"], cwd or os.getcwd())
    if path.suffix in (".keras", ".h5", ".hdf5") or "/" in spec or spec.startswith("."):
        raise TensorwegError(f"no such file or directory: {spec}")
    raise TensorwegError(
        f"unknown model {spec!r}: not a file, directory or module:function; "
        f"built-in samples are: {', '.join(SAMPLES)}"
    )


# --- files -------------------------------------------------------------------


def _load_model_file(path: Path, unsafe: bool) -> tuple[Any, ModelIdentity]:
    # Sniff the content instead of trusting the suffix: Keras' own message for
    # random bytes in a `.keras` file is "File not found", which misleads.
    try:
        head = path.open("rb").read(8)
    except OSError as error:
        raise TensorwegError(f"cannot read {path.name}: {error.strerror}") from None
    if head.startswith(ZIP_MAGIC):
        kind, config = "keras", _keras_zip_config(path)
    elif head.startswith(HDF5_MAGIC):
        kind, config = "h5", _h5_config(path)
    else:
        raise TensorwegError(
            f"{path.name} is not a Keras model file (expected a .keras zip archive or a legacy .h5 file)"
        )
    _check_config(path.name, config, legacy=kind == "h5", unsafe=unsafe)
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    try:
        model: Any = keras.saving.load_model(path, safe_mode=not unsafe, compile=False)  # Keras annotates no model type
    except Exception as error:  # Keras raises ValueError, TypeError, OSError, KeyError...
        unknown = re.search(r"Unknown (?:layer|object): '([^']+)'", str(error))
        if unknown:  # the legacy .h5 loader names the class itself
            raise TensorwegError(
                f"{path.name} uses custom layer class {unknown[1]!r} that is not registered "
                "(decorate it with @keras.saving.register_keras_serializable() and load it via module:function)"
            ) from None
        raise TensorwegError(f"cannot load {path.name}: {_first_line(error)}") from None
    return model, ModelIdentity(spec=path.name, kind=kind, name=model.name, sha256=_file_sha256(path))


def _keras_zip_config(path: Path) -> dict:
    try:
        with zipfile.ZipFile(path) as archive:
            return json.loads(archive.read("config.json"))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as error:
        raise TensorwegError(f"{path.name} is not a readable .keras archive: {_first_line(error)}") from None


def _h5_config(path: Path) -> dict:
    import h5py  # noqa: PLC0415 (the compiler loads in the capture worker only)

    try:
        with h5py.File(path, "r") as handle:
            text = handle.attrs.get("model_config")
    except OSError as error:
        raise TensorwegError(f"{path.name} is not a readable HDF5 file: {_first_line(error)}") from None
    if text is None:
        raise TensorwegError(f"{path.name} holds no Keras model (only weights?): no model_config attribute")
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return json.loads(text)


def _check_config(file_name: str, config: dict, legacy: bool, unsafe: bool) -> None:
    """Refuse, before Keras reads the config, what would run or import code (explorer.capture.keras_config)."""
    if unsafe:
        return
    found = refusals(config, legacy)
    lambdas = [r.name for r in found if r.kind == "lambda"]
    if lambdas:
        raise TensorwegError(
            f"{file_name} contains Lambda layer {', '.join(repr(n) for n in lambdas)} whose Python code "
            "would run on load; Keras safe mode refuses it (pass --unsafe if you trust the file)"
        )
    unknown = [repr(r.name) + (f" from module {r.module!r}" if r.module else "") for r in found if r.kind == "unknown"]
    if unknown:
        raise TensorwegError(
            f"{file_name} uses custom layer class {', '.join(unknown)} that is neither part of "
            "Keras nor registered, so loading it would import code named by the file "
            "(decorate it with @keras.saving.register_keras_serializable() and load it via module:function, "
            "or pass --unsafe if you trust the file)"
        )


# --- SavedModel ----------------------------------------------------------------


def _load_saved_model(path: Path) -> tuple[Any, ModelIdentity]:
    if not any((path / name).is_file() for name in SAVED_MODEL_FILES):
        raise TensorwegError(f"{path.name}/ is a directory but not a SavedModel (no saved_model.pb in it)")
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)
    import tensorflow as tf  # noqa: PLC0415 (the compiler loads in the capture worker only)

    try:
        loaded = tf.saved_model.load(str(path))
    except Exception as error:
        raise TensorwegError(f"cannot load SavedModel {path.name}/: {_first_line(error)}") from None
    signature = loaded.signatures.get("serving_default")
    if signature is None:
        raise TensorwegError(
            f"SavedModel {path.name}/ has no serving_default signature "
            f"(it has: {', '.join(loaded.signatures) or 'none'}); save it with a serving signature"
        )
    _, input_specs = signature.structured_input_signature
    inputs = {
        name: keras.Input(batch_shape=tuple(spec.shape), dtype=spec.dtype.name, name=name)
        for name, spec in sorted(input_specs.items())
    }
    layer = _signature_layer_class()(str(path), call_endpoint="serving_default", name="serving_default")
    outputs = layer(inputs if len(inputs) > 1 else next(iter(inputs.values())))
    if isinstance(outputs, dict) and len(outputs) == 1:
        outputs = next(iter(outputs.values()))
    name = re.sub(r"[^A-Za-z0-9_]", "_", path.resolve().name) or "savedmodel"
    model = keras.Model(list(inputs.values()), outputs, name=name)
    return model, ModelIdentity(spec=path.name, kind="savedmodel", name=model.name, sha256=_directory_sha256(path))


def _signature_layer_class():
    """TFSMLayer, but feeding several named inputs as keyword arguments (signatures want them so)."""
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    class SavedModelSignatureLayer(keras.layers.TFSMLayer):
        def call(self, inputs, training=False, **kwargs):
            if isinstance(inputs, dict):
                return self.call_endpoint_fn(**inputs, **kwargs)
            return self.call_endpoint_fn(inputs, **kwargs)

    return SavedModelSignatureLayer


# --- samples and module:function -----------------------------------------------


def _load_sample(name: str) -> tuple[Any, ModelIdentity]:
    model = sample_models.SAMPLES[name].build()
    digest = hashlib.sha256(name.encode("utf-8"))
    digest.update(Path(sample_models.__file__).read_bytes())
    return model, ModelIdentity(spec=name, kind="sample", name=model.name, sha256=digest.hexdigest())


def _load_function(spec: str, module_name: str, function_name: str, cwd: str) -> tuple[Any, ModelIdentity]:
    module = _import_user_module(spec, module_name, cwd)
    builder = getattr(module, function_name, None)
    if not callable(builder):
        raise TensorwegError(f"{spec}: module {module_name!r} has no function {function_name!r}")
    module_file = getattr(module, "__file__", None)
    folder = os.path.dirname(os.path.abspath(module_file)) if module_file else ""
    try:
        with recording_call_sites(folder):  # the passport's first line: where the user called each layer
            model = builder()
    except Exception as error:
        raise TensorwegError(f"{spec}: {function_name}() raised {type(error).__name__}: {_first_line(error)}") from None
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    if not isinstance(model, keras.Model):
        raise TensorwegError(f"{spec}: {function_name}() returned {type(model).__name__}, not a keras.Model")
    if folder:
        mark_user_model(model, folder)
    sha = _file_sha256(Path(module_file)) if module_file else ""
    return model, ModelIdentity(spec=spec, kind="function", name=model.name, sha256=sha)


def _import_user_module(spec: str, module_name: str, cwd: str):
    """Import the user's module: a `.py` path or a dotted name importable from `cwd`.

    The worker runs isolated (no current directory on its path). The user named
    this module, so `cwd` joins the path, but last and only after Keras and
    TensorFlow are imported: a file there can add modules, never replace one the
    worker uses.
    """
    import keras  # noqa: F401, PLC0415 (installed modules load before cwd joins the path)
    import tensorflow  # noqa: F401, PLC0415 (installed modules load before cwd joins the path)

    try:
        if module_name.endswith(".py"):
            file = Path(cwd, module_name)
            if not file.is_file():
                raise TensorwegError(f"{spec}: no such file {module_name}")
            module_spec = importlib.util.spec_from_file_location(file.stem, file)
            if module_spec is None or module_spec.loader is None:  # not a file Python knows how to load
                raise TensorwegError(f"{spec}: cannot load {module_name}")
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
            return module
        if cwd not in sys.path:
            sys.path.append(cwd)
        return importlib.import_module(module_name)
    except TensorwegError:
        raise
    except ImportError as error:
        raise TensorwegError(f"{spec}: cannot import module {module_name!r}: {_first_line(error)}") from None
    except Exception as error:  # a syntax error or a failing top level in the user's module
        raise TensorwegError(f"{spec}: importing {module_name!r} raised "
                             f"{type(error).__name__}: {_first_line(error)}") from None


# --- identity --------------------------------------------------------------------


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _directory_sha256(path: Path) -> str:
    """Over relative names and bytes of every file, in sorted order, so a rename counts too."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(file.relative_to(path).as_posix().encode("utf-8") + b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


# --- input signature ---------------------------------------------------------------


def input_signature(model: Any, batch: int, input_shapes: dict[str, tuple[int, ...]] | None = None) -> Signature:
    """Concrete (name, shape, dtype) for every model input, in `model.inputs` order.

    The first dim, when unknown, becomes `batch`. `input_shapes[name]` gives
    either the dims after the batch dim (as `keras.Input(shape=...)` takes them)
    or the whole shape with the batch dim first (as `--input-shape image=1x28x28x1`
    reads); it fills unknown dims and must agree with dims the model fixes.
    """
    input_shapes = dict(input_shapes or {})
    inputs = list(getattr(model, "inputs", None) or [])
    if not inputs:
        raise TensorwegError(
            f"model {model.name!r} has no defined inputs (a subclassed model that was never built?); "
            "build it as a functional model or call it once before returning it"
        )
    names = [_input_name(tensor) for tensor in inputs]
    unknown = sorted(set(input_shapes) - set(names))
    if unknown:
        raise TensorwegError(f"no model input named {', '.join(unknown)}; inputs are: {', '.join(names)}")
    signature: Signature = []
    for name, tensor in zip(names, inputs, strict=True):  # one name per input
        dims = list(tensor.shape)
        given = input_shapes.get(name)
        if given is not None:
            dims = _apply_given_shape(name, tensor.shape, tuple(int(d) for d in given))
        if dims and dims[0] is None:
            dims[0] = batch
        if any(d is None for d in dims):
            raise TensorwegError(
                f"input {name!r} has shape {_shape_text(tensor.shape)} with unknown dims after the batch dim; "
                f"give them with --input-shape {name}=" + "x".join("N" if d is None else str(d) for d in dims)
            )
        _check_size(name, dims)
        signature.append((name, tuple(int(d) for d in dims), _dtype_name(tensor.dtype)))
    return signature


def _apply_given_shape(name: str, model_shape: Any, given: tuple[int, ...]) -> list:
    """The model's dims with `given` filled in; `given` may include the batch dim or not."""
    dims = list(model_shape)
    if len(given) == len(dims) - 1:
        given = (dims[0],) + given  # the batch dim stays the model's (or --batch)
    elif len(given) != len(dims):
        raise TensorwegError(
            f"input {name!r} has shape {_shape_text(model_shape)}: --input-shape needs {len(dims)} dims "
            f"(or {len(dims) - 1} after the batch dim), got {len(given)} ({_shape_text(given)})"
        )
    for axis, (model_dim, user_dim) in enumerate(zip(dims, given, strict=True)):  # same length: checked above
        if model_dim is not None and user_dim is not None and model_dim != user_dim:
            raise TensorwegError(
                f"input {name!r} has shape {_shape_text(model_shape)}: dim {axis} is fixed to "
                f"{model_dim}, the given input shape says {user_dim}"
            )
    return list(given)


def _check_size(name: str, dims: list[int]) -> None:
    """A shape the compilers can hold: the cpu level runs the model once on zeros of this shape."""
    elements = 1
    for dim in dims:
        elements *= int(dim)
    if elements > MAX_INPUT_ELEMENTS:
        raise TensorwegError(
            f"input {name!r} of shape {_shape_text(dims)} has {elements:,} elements; "
            f"at most {MAX_INPUT_ELEMENTS:,} are captured (use a smaller --batch or --input-shape)"
        )


def _input_name(tensor: Any) -> str:
    # A KerasTensor's name is its Input layer's name (`image`), possibly with a `:0` in TF.
    return str(tensor.name).split(":")[0]


def _dtype_name(dtype: Any) -> str:
    return getattr(dtype, "name", None) or str(dtype)


def _shape_text(shape) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"
