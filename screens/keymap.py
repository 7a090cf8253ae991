"""A learner's own keys: a small TOML file that rebinds tensorweg's keys by their binding ids.

Every tensorweg binding has an id (`app.target`, `level.down`, `tour.next`, ...: the help screen
lists them); Textual's `App.set_keymap` puts other keys on an id. The file is
`$TENSORWEG_KEYMAP`, else `keymap.toml` in the user's config folder (on Linux
`~/.config/tensorweg/`), one line per binding:

    [keys]
    "app.target" = "ctrl+t"
    "level.down" = "enter,l"

A file that is not TOML, a `[keys]` that is not a table, an id no binding has or a key that is not
text is one error line before the explorer starts (`read_keymap`), never a half-applied keymap.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.errors import TensorwegError
from explorer.labels import LABELS

ENVIRONMENT = "TENSORWEG_KEYMAP"


def keymap_path(environ=os.environ) -> Path:
    """Where the keymap is read from (it need not exist)."""
    if environ.get(ENVIRONMENT):
        return Path(environ[ENVIRONMENT]).expanduser()
    from platformdirs import user_config_dir  # noqa: PLC0415 (start-up: only when no file is named)

    return Path(user_config_dir("tensorweg")) / "keymap.toml"


def binding_ids() -> frozenset[str]:
    """The ids a keymap may name: every tensorweg binding's (each has its words in explorer.labels)."""
    return frozenset(key.removeprefix("binding.") for key in LABELS if key.startswith("binding."))


def read_keymap(path: Path | None = None) -> dict[str, str]:
    """binding id -> keys from the keymap file ({} when there is none); TensorwegError for a bad one."""
    path = keymap_path() if path is None else path
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise TensorwegError(f"keymap {path.name}: cannot read it ({exc})") from None
    import tomllib  # noqa: PLC0415 (start-up: only when there is a keymap to read)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TensorwegError(f"keymap {path.name}: not TOML ({exc})") from None
    keys = data.get("keys", {})
    if not isinstance(keys, dict):
        raise TensorwegError(f"keymap {path.name}: [keys] must be a table of binding id = \"keys\"")
    known = binding_ids()
    for ident, value in keys.items():
        if ident not in known:
            raise TensorwegError(f"keymap {path.name}: no binding has the id '{ident}' "
                                 "(the help screen `?` lists them)")
        if not isinstance(value, str) or not value.strip():
            raise TensorwegError(f"keymap {path.name}: '{ident}' needs its keys as text, e.g. \"ctrl+t\"")
    return {ident: value.strip() for ident, value in keys.items()}
