"""Lesson packs: one versioned file with captured bundles and tours (`tensorweg pack`, whose
parser and command are the command line's `pack_command`).

A pack is a zip file (`.twpack`) holding `twpack.json` (format, version, the bundles and tours
it holds, every member's name), `bundles/<name>/...` (bundle directories as captured) and
`tours/<name>.tour`. It is written to a temporary name and renamed, so a pack is whole or absent.

Opening a pack never imports a compiler: it is checked (format, version, member names, CRCs,
each bundle's manifest) and extracted once into the per-user cache under the SHA-256 of its
bytes (`<cache>/packs/<hash>/`), so the pack itself may sit in a read-only folder and the
same pack opens from the cache the next time. Bad packs raise `PackError` (one line).

Limits (`PackLimits`; `serve --max-pack-members/--max-pack-disk` set them): a pack of more than
MAX_MEMBERS files is refused before anything is unpacked (a zip of a million empty files fills a disk's
inodes, not its bytes), and so is one that would take the cache's unpacked packs together past
MAX_CACHE_BYTES. Nothing already unpacked is removed to make room: a served class may be using it.

`tensorweg MODEL` asks `bundle_argument` whether MODEL is a pack or a bundle: the tours, the bundle
reader and zipfile load only when one is opened, read or written.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from explorer.errors import BundleError, TensorwegError, no_space_left

if TYPE_CHECKING:
    import zipfile

    from explorer.course.tours.parser import Tour
    from explorer.model.bundle import Bundle

PACK_SUFFIX = ".twpack"
PACK_FORMAT = "tensorweg-pack"
PACK_VERSION = 1
PACK_MANIFEST = "twpack.json"
# A pack larger than this when unpacked is refused (a zip bomb would fill the learner's disk).
MAX_UNPACKED_BYTES = 4 << 30
MAX_MEMBERS = 20_000  # a bundle captured with --passes for three targets holds a few thousand files
MAX_CACHE_BYTES = 10 << 30  # every unpacked pack in the cache together
_AREAS = ("bundles", "tours")


class PackError(TensorwegError):
    """A file that is not a usable lesson pack (wrong, damaged, truncated, newer, unsafe)."""


@dataclass(frozen=True)
class PackLimits:
    """How much a pack may unpack: files in one pack, bytes of all unpacked packs in the cache."""

    max_members: int = MAX_MEMBERS
    max_cache_bytes: int = MAX_CACHE_BYTES


@dataclass(frozen=True)
class Pack:
    """An opened (checked and extracted) pack: bundle directories and tour texts, by name."""

    source: Path
    root: Path
    bundles: tuple[str, ...]
    tours: tuple[str, ...]

    def bundle_path(self, name: str | None = None) -> Path:
        """The named bundle's directory (the first bundle when no name is given)."""
        if name is None:
            return self.root / "bundles" / self.bundles[0]
        if name not in self.bundles:
            raise PackError(f"{self.source.name}: no bundle '{name}' (it has: {', '.join(self.bundles)})")
        return self.root / "bundles" / name

    def bundle_for(self, tour) -> Path:
        """The first bundle that has the capture `tour` selects in (`pack` checked one does), else the first."""
        from explorer.course.tours import missing_capture  # noqa: PLC0415 (start-up: the tours load only with a pack's lesson)
        from explorer.model.bundle import read_manifest  # noqa: PLC0415 (start-up: the bundle reader loads only with a pack)

        for name in self.bundles:
            manifest = read_manifest(self.root / "bundles" / name)
            if not missing_capture(tour, manifest.model.spec, manifest.options):
                return self.root / "bundles" / name
        return self.bundle_path()

    def tour_text(self, name: str) -> str:
        return (self.root / "tours" / f"{name}.tour").read_text(encoding="utf-8")

    def tour(self, name: str | None = None) -> Tour | None:
        """The named tour (the first when no name is given) as an explorer.course.tours.Tour; None if none."""
        name = name if name is not None else (self.tours[0] if self.tours else None)
        if name is None or name not in self.tours:
            return None
        from explorer.course.tours import parse_tour  # noqa: PLC0415 (start-up: the tours load only with a pack's lesson)

        return parse_tour(self.tour_text(name), f"{name}.tour")

    def start_tour(self, lang: str):
        """The lesson `tensorweg PACK` (and each `serve` tab) starts in a UI of `lang`: the pack's first
        tour in that language (its twin, when the pack holds the other language's first: the pack lists
        a lesson's twins side by side, alphabetically, so its first may be either), else the first tour
        written in `lang`, else the first tour; None when the pack has none."""
        if not self.tours:
            return None
        from explorer.course.tours import twin_in  # noqa: PLC0415 (start-up: the tours load only with a pack's lesson)

        for name in dict.fromkeys((twin_in(self.tours[0], lang), *self.tours)):
            if name in self.tours and (tour := self.tour(name)) is not None and tour.lang == lang:
                return tour
        return self.tour()


def is_pack(path: Path) -> bool:
    """A lesson pack is a file named `*.twpack` (directories are bundles, anything else a model)."""
    return path.suffix.lower() == PACK_SUFFIX and not path.is_dir()


def bundle_argument(text: str, tour=None, limits: PackLimits = PackLimits()) -> Path | None:
    """The bundle directory a MODEL argument names (a bundle, or a pack's first bundle: with a
    `tour`, the first that has the lesson's capture), else None."""
    path = Path(text)
    if is_pack(path):
        pack = open_pack(path, limits)
        return pack.bundle_for(tour) if tour is not None else pack.bundle_path()
    if not path.is_dir():
        return None
    from explorer.model.bundle import is_bundle  # noqa: PLC0415 (start-up: the bundle reader loads only for a folder)

    return path if is_bundle(path) else None


# --- writing ---------------------------------------------------------------------------------


def lessons_with_capture(bundles: list[Bundle]) -> list[str]:
    """The built-in lessons (in both languages) that one of `bundles` has the capture for: what
    `tensorweg pack` packs when no `--tours` is named (a lesson for another model selects nothing)."""
    from explorer.course.tours import builtin_tours, missing_capture  # noqa: PLC0415 (start-up: the tours load only for `pack`)

    return [name for name, tour in builtin_tours()
            if any(not missing_capture(tour, b.manifest.model.spec, b.manifest.options) for b in bundles)]


def write_pack(bundles: list[Bundle], tours: list[tuple[str, str]], out: Path) -> list[str]:
    """Write `bundles` and `tours` ((name, text)) to `out`, whole or not at all (an existing file is
    replaced); the bundles' names in the pack."""
    import json  # noqa: PLC0415 (start-up: json loads only when a pack is written or opened)
    import zipfile  # noqa: PLC0415 (start-up: zipfile loads only when a pack is written or opened)

    from explorer.atomic_file import staged_file  # noqa: PLC0415 (start-up: loads only when a pack is written)

    names = _bundle_names(bundles)
    members: list[tuple[str, Path | str]] = []
    for name, bundle in zip(names, bundles, strict=True):
        for file in sorted(p for p in bundle.path.rglob("*") if p.is_file() and not p.is_symlink()):
            relative = file.relative_to(bundle.path).as_posix()
            if not any(part.startswith(".") for part in relative.split("/")):  # no staging leftovers
                members.append((f"bundles/{name}/{relative}", file))
    for name, text in tours:
        members.append((f"tours/{name}.tour", text))
    manifest = {"format": PACK_FORMAT, "version": PACK_VERSION, "bundles": names,
                "tours": [name for name, _ in tours], "files": [name for name, _ in members]}
    with (staged_file(out, overwrite=True) as partial,
          zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive):
        archive.writestr(PACK_MANIFEST, json.dumps(manifest, indent=1, sort_keys=True))
        for name, content in members:
            if isinstance(content, Path):
                archive.write(content, name)
            else:
                archive.writestr(name, content)
    return names


def _bundle_names(bundles: list[Bundle]) -> list[str]:
    """One name per bundle: the model's name, with -2, -3 ... where two bundles share it."""
    names: list[str] = []
    for bundle in bundles:
        base = "".join(c if c.isalnum() or c in "-_" else "_" for c in bundle.model_name) or "model"
        name, count = base, 1
        while name in names:
            count += 1
            name = f"{base}-{count}"
        names.append(name)
    return names


# --- opening -----------------------------------------------------------------------------------


def open_pack(path: Path, limits: PackLimits = PackLimits()) -> Pack:
    """Check the pack at `path` and extract it into the cache (once per content); PackError if unusable."""
    path = Path(path)
    label = path.name
    try:
        digest = _sha256(path)
    except OSError as exc:
        raise PackError(f"{label}: cannot read ({exc.strerror or exc})") from None
    import zipfile  # noqa: PLC0415 (start-up: zipfile loads only when a pack is written or opened)

    from explorer.capture.cache import cache_root  # noqa: PLC0415 (the capture cache loads only when a pack is opened)

    root = cache_root() / "packs" / digest[:32]
    if (root / PACK_MANIFEST).is_file():
        manifest = _read_manifest((root / PACK_MANIFEST).read_bytes(), label)
        return Pack(path, root, tuple(manifest["bundles"]), tuple(manifest["tours"]))
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise PackError(f"{label}: not a tensorweg lesson pack, or truncated (no zip directory)") from None
    except OSError as exc:
        raise PackError(f"{label}: cannot read ({exc.strerror or exc})") from None
    with archive:
        manifest, unpacked = _check_archive(archive, label, limits.max_members)
        _check_cache_room(root.parent, unpacked, limits.max_cache_bytes, label)
        _extract(archive, root, label)
    return Pack(path, root, tuple(manifest["bundles"]), tuple(manifest["tours"]))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_manifest(data: bytes, label: str) -> dict:
    import json  # noqa: PLC0415 (start-up: json loads only when a pack is written or opened)

    try:
        manifest = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        raise PackError(f"{label}: damaged pack manifest ({PACK_MANIFEST} is not JSON)") from None
    if not isinstance(manifest, dict) or manifest.get("format") != PACK_FORMAT:
        raise PackError(f"{label}: not a tensorweg lesson pack")
    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise PackError(f"{label}: damaged pack manifest (no version)")
    if version > PACK_VERSION:
        raise PackError(f"{label}: pack version {version} was made by a newer tensorweg "
                        f"(this one reads version {PACK_VERSION}); update tensorweg")
    if version < 1:
        raise PackError(f"{label}: damaged pack manifest (version {version})")
    for key in ("bundles", "tours", "files"):
        value = manifest.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise PackError(f"{label}: damaged pack manifest ('{key}' is not a list of names)")
    for name in manifest["bundles"] + manifest["tours"]:
        if not _plain_name(name):
            raise PackError(f"{label}: refused: unsafe name {name!r} in the pack manifest")
    if not manifest["bundles"]:
        raise PackError(f"{label}: the pack holds no bundle")
    return manifest


def _plain_name(name: str) -> bool:
    return bool(name) and name not in (".", "..") and all(c.isalnum() or c in "-_." for c in name)


def _safe_member(name: str) -> bool:
    """A relative POSIX path inside one of the pack's areas: no '..', no absolute or drive paths."""
    if "\\" in name or "\0" in name or name.startswith("/"):
        return False
    parts = PurePosixPath(name).parts
    return (len(parts) >= 2 and parts[0] in _AREAS and ":" not in parts[0]
            and all(part not in ("", ".", "..") for part in parts))


def _check_archive(archive: zipfile.ZipFile, label: str, max_members: int) -> tuple[dict, int]:
    """The pack's manifest and its size unpacked, once every member is safe to extract and matches
    the manifest (PackError if not)."""
    infos = archive.infolist()
    if len(infos) > max_members + 1:  # and the manifest
        raise PackError(f"{label}: refused: {len(infos) - 1:,} files in the pack (at most {max_members:,})")
    names = [info.filename for info in infos]
    manifest = _archive_manifest(archive, names, label)
    _check_members(infos, label)
    _check_listed(names, manifest, label)
    return manifest, sum(info.file_size for info in infos)  # extracting never writes more than the headers say


def _archive_manifest(archive: zipfile.ZipFile, names: list[str], label: str) -> dict:
    if PACK_MANIFEST not in names:
        raise PackError(f"{label}: not a tensorweg lesson pack (no {PACK_MANIFEST})")
    import zipfile  # noqa: PLC0415 (start-up: zipfile loads only when a pack is written or opened)

    try:
        return _read_manifest(archive.read(PACK_MANIFEST), label)
    except (zipfile.BadZipFile, OSError, EOFError):  # zlib.error is caught in _extract only, not here
        raise PackError(f"{label}: damaged pack (its manifest cannot be read)") from None


def _check_members(infos: list[zipfile.ZipInfo], label: str) -> None:
    """Refuse a member outside the pack's areas, one that is not a plain file, or too much to unpack."""
    total = 0
    for info in infos:
        if info.filename == PACK_MANIFEST:
            continue
        if not _safe_member(info.filename):
            raise PackError(f"{label}: refused: unsafe path {info.filename!r} in the pack")
        mode = info.external_attr >> 16
        if info.is_dir() or (stat.S_IFMT(mode) and not stat.S_ISREG(mode)):  # no type bits: a plain file
            raise PackError(f"{label}: refused: {info.filename!r} is not a plain file")
        total += info.file_size
    if total > MAX_UNPACKED_BYTES:
        raise PackError(f"{label}: refused: unpacks to {total:,} bytes (at most {MAX_UNPACKED_BYTES:,})")


def _check_cache_room(packs: Path, unpacked: int, max_cache_bytes: int, label: str) -> None:
    """Refuse a pack that would take the cache's unpacked packs together past `max_cache_bytes`."""
    used = _tree_bytes(packs)
    if used + unpacked > max_cache_bytes:
        raise PackError(f"{label}: refused: it unpacks to {unpacked:,} bytes and the packs unpacked in the cache "
                        f"take {used:,} of at most {max_cache_bytes:,}; delete the ones no longer needed "
                        f"in {packs}")


def _tree_bytes(folder: Path) -> int:
    """The bytes of the files under `folder` (another process may be unpacking or removing some now)."""
    total = 0
    for parent, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(parent, name)).st_size
    return total


def _check_listed(names: list[str], manifest: dict, label: str) -> None:
    """The archive holds exactly the manifest's files, once each, with every bundle's manifest and every tour."""
    if len(set(names)) != len(names) or set(names) - {PACK_MANIFEST} != set(manifest["files"]):
        raise PackError(f"{label}: damaged pack (its files do not match its manifest)")
    for name in manifest["bundles"]:
        if f"bundles/{name}/manifest.json" not in names:
            raise PackError(f"{label}: damaged pack (bundle '{name}' has no manifest)")
    for name in manifest["tours"]:
        if f"tours/{name}.tour" not in names:
            raise PackError(f"{label}: damaged pack (tour '{name}' is missing)")


def _extract(archive: zipfile.ZipFile, root: Path, label: str) -> None:
    """Extract into a staging sibling of `root`, check every bundle and tour there, then rename."""
    import zipfile  # noqa: PLC0415 (start-up: zipfile loads only when a pack is written or opened)

    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=root.parent))
    except OSError as exc:
        raise _unpack_failed(exc, root, label) from None
    try:
        for info in archive.infolist():
            target = staging.joinpath(*PurePosixPath(info.filename).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as source, target.open("wb") as sink:
                shutil.copyfileobj(source, sink)
        _check_contents(staging, label)
        try:
            os.rename(staging, root)
        except OSError:
            if not (root / PACK_MANIFEST).is_file():  # another process unpacked it first: keep theirs
                raise
    except (zipfile.BadZipFile, EOFError) as exc:
        raise PackError(f"{label}: damaged pack ({exc})") from None
    except OSError as exc:
        raise _unpack_failed(exc, root, label) from None
    except Exception as exc:  # zlib.error from a corrupt deflate stream, and everything else
        if isinstance(exc, TensorwegError):
            raise
        raise PackError(f"{label}: damaged pack ({exc.__class__.__name__})") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _unpack_failed(error: OSError, root: Path, label: str) -> PackError:
    """A full disk is named as such (the staging folder is removed by the caller); else the system's reason."""
    if no_space_left(error):
        return PackError(f"{label}: no space left on {root.parent}: the pack was not unpacked")
    return PackError(f"{label}: cannot unpack into the cache ({error.strerror or error})")


def _check_contents(root: Path, label: str) -> None:
    import json  # noqa: PLC0415 (start-up: json loads only when a pack is written or opened)

    from explorer.course.tours import parse_tour  # noqa: PLC0415 (start-up: the tours load only with a pack)
    from explorer.model.bundle import read_manifest  # noqa: PLC0415 (start-up: the bundle reader loads only with a pack)

    manifest = json.loads((root / PACK_MANIFEST).read_text(encoding="utf-8"))
    for name in manifest["bundles"]:
        try:
            read_manifest(root / "bundles" / name)
        except BundleError as exc:
            raise PackError(f"{label}: bundle '{name}': {exc}") from None
    for name in manifest["tours"]:
        try:
            text = (root / "tours" / f"{name}.tour").read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise PackError(f"{label}: tour '{name}' is not UTF-8 text") from None
        try:
            parse_tour(text, f"{name}.tour")
        except TensorwegError as exc:
            raise PackError(f"{label}: {exc}") from None
