"""A folder of output files (`tensorweg handout -o DIR`), written whole or not at all.

The files are written into a hidden folder beside the target and renamed into place at the
end, so an error or an interrupt leaves no half-written folder. An existing folder is used
only when it is empty, or with `--force` when it holds nothing but an earlier output of the
same kind (`replaceable`): a mistyped `-o ~` can never delete anyone's files.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from explorer.errors import TensorwegError, write_failed


def check_output_folder(out: Path, replaceable: re.Pattern, force: bool) -> None:
    """Fail before any work when `out` cannot become the new output folder (checked again on writing)."""
    if out.exists() and not out.is_dir():
        raise TensorwegError(f"{out}: -o names a file; name a new folder")
    if out.is_dir() and any(out.iterdir()):
        others = sorted(p.name for p in out.iterdir() if not replaceable.fullmatch(p.name))
        if others:
            raise TensorwegError(f"{out}: the folder is not empty (it holds {others[0]}); name a new folder")
        if not force:
            raise TensorwegError(f"{out}: the folder holds an earlier handout; --force replaces it")
    parent = out.absolute().parent
    if parent.exists() and not parent.is_dir():
        raise TensorwegError(f"{out}: {parent} is not a folder")
    if not parent.is_dir():
        raise TensorwegError(f"{out}: the folder {parent} does not exist")
    try:  # a real try, not os.access: root passes that check even on a read-only file system
        Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".probe", dir=parent)).rmdir()
    except OSError as exc:
        raise TensorwegError(f"{out}: the folder {parent} is not writable ({exc.strerror or exc})") from None


def write_output_folder(out: Path, files: Mapping[str, str]) -> None:
    """Write `files` (name -> text) as the folder `out`, replacing what `check_output_folder` allowed."""
    parent = out.absolute().parent
    staging = None
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=parent))
        for name, content in files.items():
            (staging / name).write_text(content, encoding="utf-8")
        staging.chmod(0o755)  # mkdtemp's folder is private; a handout is for sharing
        if out.is_dir() and any(out.iterdir()):  # an earlier output (checked): set it aside, then delete it
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=parent))
            out.replace(old / "previous")
            try:
                staging.replace(out)
            except BaseException:
                (old / "previous").replace(out)  # the earlier handout stays as it was
                old.rmdir()
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.replace(out)  # over an empty folder too
    except BaseException as exc:  # an interrupt too: no staging folder is left behind
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise write_failed(exc, parent, out) from exc
        raise
