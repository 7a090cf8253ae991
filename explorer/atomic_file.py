"""One file written whole or not at all: the one writer behind graph pictures, screenshots and packs.

The file is written under a temporary name in the same folder (`.NAME.XXXX.partial`: same folder, so
the rename is atomic and the file system is the one that must have the space) and then renamed, or
linked, into place: a reader, an error or an interrupt never sees half a file, and nothing is left
behind. An existing file is replaced only when the caller says so (`overwrite`, the commands' `--force`
where they have one); without it a hard link makes the new file, which fails when the name is taken,
even by a racing writer. A full disk is said in the house's one line, `no space left on FOLDER`
(`explorer.errors.write_failed`), never as a crash.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from explorer.errors import TensorwegError, write_failed


def write_whole(out: Path, data: str | bytes, *, overwrite: bool) -> None:
    """`data` (text is written as UTF-8) as the file `out`, whole or not at all."""
    with staged_file(out, overwrite=overwrite) as partial:
        if isinstance(data, str):
            partial.write_text(data, encoding="utf-8")
        else:
            partial.write_bytes(data)


@contextmanager
def staged_file(out: Path, *, overwrite: bool) -> Iterator[Path]:
    """A temporary file beside `out` for the block to write (a zip archive opens it by name); when the
    block ends, it becomes `out`. When the block or the rename fails, it is removed, and an `OSError`
    becomes the one-line `TensorwegError` (`no space left on FOLDER: NAME was not written` for a full disk)."""
    folder = out.absolute().parent
    partial = None
    try:
        handle, staged = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".partial", dir=folder)
        os.close(handle)  # the block writes it by name
        partial = Path(staged)
        yield partial
        partial.chmod(0o644)  # mkstemp's file is private; what we write is for sharing
        if overwrite:
            partial.replace(out)
        else:
            _link_new(partial, out)
    except OSError as exc:
        raise write_failed(exc, folder, out) from exc
    finally:  # an interrupt too: no partial file is left behind
        if partial is not None:
            partial.unlink(missing_ok=True)


def _link_new(partial: Path, out: Path) -> None:
    """`partial` as the new file `out`: a hard link fails when `out` exists, so nothing is overwritten even
    by a racing writer; a file system without hard links (FAT, some network mounts) checks, then renames."""
    try:
        os.link(partial, out)
    except FileExistsError:
        raise _taken(out) from None
    except OSError:
        if out.exists():
            raise _taken(out) from None
        partial.replace(out)


def _taken(out: Path) -> TensorwegError:
    return TensorwegError(f"{out}: the file exists; --force replaces it")
