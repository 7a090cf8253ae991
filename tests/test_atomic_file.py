"""The one whole-file writer (graph pictures, screenshots, packs): a file is whole or absent, a full
disk is one line naming the folder, and an existing file is kept unless the caller may replace it."""

from __future__ import annotations

import errno
import os
import zipfile
from pathlib import Path

import pytest

from explorer.atomic_file import staged_file, write_whole
from explorer.errors import TensorwegError


def test_text_and_bytes_are_written_whole_and_nothing_else_is_left(tmp_path):
    write_whole(tmp_path / "a.dot", "digraph { \u00e4 }", overwrite=False)
    write_whole(tmp_path / "b.png", b"\x89PNG\x00", overwrite=False)
    assert (tmp_path / "a.dot").read_text(encoding="utf-8") == "digraph { \u00e4 }"
    assert (tmp_path / "b.png").read_bytes() == b"\x89PNG\x00"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.dot", "b.png"]


def test_the_file_is_for_sharing_not_private_as_a_temporary_file(tmp_path):
    write_whole(tmp_path / "s.svg", "<svg/>", overwrite=True)
    assert (tmp_path / "s.svg").stat().st_mode & 0o777 == 0o644


def test_an_existing_file_is_kept_unless_overwrite_is_given(tmp_path):
    out = tmp_path / "taken.dot"
    out.write_text("theirs", encoding="utf-8")
    with pytest.raises(TensorwegError, match=r"taken\.dot: the file exists; --force replaces it$"):
        write_whole(out, "ours", overwrite=False)
    assert out.read_text(encoding="utf-8") == "theirs"
    write_whole(out, "ours", overwrite=True)
    assert out.read_text(encoding="utf-8") == "ours"
    assert [p.name for p in tmp_path.iterdir()] == ["taken.dot"]


def no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("data", ["text", b"bytes"], ids=["text", "bytes"])
def test_a_full_disk_names_the_folder_and_leaves_nothing(tmp_path, monkeypatch, data):
    monkeypatch.setattr(Path, "write_text", no_space)
    monkeypatch.setattr(Path, "write_bytes", no_space)
    out = tmp_path / "p.svg"
    with pytest.raises(TensorwegError) as failed:
        write_whole(out, data, overwrite=True)
    assert str(failed.value) == f"no space left on {tmp_path}: {out} was not written"
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_while_an_old_file_is_there_keeps_the_old_file(tmp_path, monkeypatch):
    out = tmp_path / "p.svg"
    out.write_text("before", encoding="utf-8")
    monkeypatch.setattr(Path, "write_text", no_space)
    with pytest.raises(TensorwegError, match="^no space left on "):
        write_whole(out, "after", overwrite=True)
    assert out.read_text(encoding="utf-8") == "before"
    assert [p.name for p in tmp_path.iterdir()] == ["p.svg"]


def test_a_relative_name_says_the_folder_it_is_in(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(Path, "write_text", no_space)
    with pytest.raises(TensorwegError, match=rf"^no space left on {tmp_path}: s\.svg was not written$"):
        write_whole(Path("s.svg"), "<svg/>", overwrite=True)


def test_an_unwritable_folder_gives_the_systems_reason(tmp_path):
    with pytest.raises(TensorwegError, match=r"nowhere/x\.dot: cannot write \(No such file or directory\)$"):
        write_whole(tmp_path / "nowhere" / "x.dot", "digraph {}", overwrite=True)


def test_an_error_or_interrupt_inside_a_staged_write_leaves_nothing(tmp_path):
    out = tmp_path / "lesson.twpack"
    for error in (ValueError("bad member"), KeyboardInterrupt()):
        with pytest.raises(type(error)), staged_file(out, overwrite=True) as partial:
            partial.write_bytes(b"half a pack")
            raise error
    assert list(tmp_path.iterdir()) == []


def test_a_staged_file_can_be_written_by_name_as_a_zip_archive(tmp_path):
    out = tmp_path / "lesson.twpack"
    with staged_file(out, overwrite=False) as partial, zipfile.ZipFile(partial, "w") as archive:
        assert partial.parent == tmp_path and partial.name.endswith(".partial")
        archive.writestr("twpack.json", "{}")
    with zipfile.ZipFile(out) as archive:
        assert archive.namelist() == ["twpack.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["lesson.twpack"]
