"""
The filesystem toolkit's ground floor: statuses, lexical path rules, and descriptor-relative primitives.

Every access walks from a descriptor of the root, one component at a time, with ``O_NOFOLLOW``: the kernel
never resolves a path we did not check, so a symlink swapped in during a call is refused, not followed. The
final object is opened with ``O_PATH`` first and inspected with ``fstat``; only a regular file is reopened for
reading (through ``/proc/self/fd``, the same inode), so a device or FIFO is never opened.
"""

from __future__ import annotations

import contextlib
import ctypes
import enum
import errno
import hashlib
import os
import secrets
import stat

__all__ = [
    "FileStatus",
    "EntryType",
    "Refusal",
    "split_path",
    "render",
    "open_root",
    "descend",
    "walk_dirs",
    "kind_of",
    "open_regular",
    "read_bounded",
    "revision_of",
    "write_atomic",
    "rename_noreplace",
    "classify_os_error",
    "decode_text",
    "encode_text",
]

#: Linux bounds: a component name and a whole path, in bytes.
NAME_MAX = 255
PATH_MAX = 4096

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_PATH = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class FileStatus(enum.Enum):
    """How a filesystem operation ended."""

    OK = "ok"
    NOT_FOUND = "not_found"
    ALREADY_EXISTS = "already_exists"
    PERMISSION_DENIED = "permission_denied"
    APPROVAL_DENIED = "approval_denied"
    OUTSIDE_ROOT = "outside_root"
    CANCELLED = "cancelled"
    INVALID_PATH = "invalid_path"
    INVALID_REQUEST = "invalid_request"
    TYPE_MISMATCH = "type_mismatch"
    CONFLICT = "conflict"
    LIMIT_EXCEEDED = "limit_exceeded"
    IO_ERROR = "io_error"


class EntryType(enum.Enum):
    """What a directory entry is (never followed)."""

    FILE = "file"
    DIRECTORY = "directory"
    SYMLINK = "symlink"
    OTHER = "other"


class Refusal(Exception):  # internal control flow: always caught at the operation boundary
    """An operation stops with ``status``; ``message`` is our text, never input."""

    def __init__(self, status: FileStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


SYMLINK_REFUSED = "symbolic links are disabled by policy"
SPECIAL_REFUSED = "device files, FIFOs and sockets are disabled by policy"


def split_path(path: str) -> tuple[str, ...]:
    """
    The root-relative components of ``path``, normalized lexically (``.`` and empty parts dropped, ``..``
    taken back); the root itself is ``()``. Raises ``Refusal`` for an empty, absolute, escaping or malformed
    path.
    """
    if path == "":
        raise Refusal(FileStatus.INVALID_PATH, "the path is empty")
    if "\x00" in path:
        raise Refusal(FileStatus.INVALID_PATH, "the path holds a NUL character")
    if path.startswith("/"):
        raise Refusal(
            FileStatus.PERMISSION_DENIED, "absolute paths are disabled by policy; use a root-relative path"
        )
    try:
        size = len(path.encode("utf-8"))
    except UnicodeEncodeError:
        raise Refusal(FileStatus.INVALID_PATH, "the path is not valid Unicode text") from None
    if size > PATH_MAX:
        raise Refusal(FileStatus.INVALID_PATH, f"the path is longer than {PATH_MAX} bytes")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise Refusal(FileStatus.OUTSIDE_ROOT, "the path leaves the root")
            parts.pop()
            continue
        if len(part.encode("utf-8")) > NAME_MAX:
            raise Refusal(FileStatus.INVALID_PATH, f"a path component is longer than {NAME_MAX} bytes")
        parts.append(part)
    return tuple(parts)


def render(parts: tuple[str, ...]) -> str:
    """The root-relative text of ``parts``: ``.`` for the root."""
    return "/".join(parts) if parts else "."


def open_root(root: str, identity: tuple[int, int]) -> int:
    """A descriptor of the root; raises ``Refusal(IO_ERROR)`` when the root is gone or was replaced."""
    try:
        fd = os.open(root, _DIR)
    except OSError:
        raise Refusal(FileStatus.IO_ERROR, "the root directory cannot be opened") from None
    info = os.fstat(fd)
    if (info.st_dev, info.st_ino) != identity:
        os.close(fd)
        raise Refusal(FileStatus.IO_ERROR, "the root directory was replaced")
    return fd


def kind_of(dir_fd: int, name: str) -> EntryType | None:
    """What ``name`` is in ``dir_fd``, without following it; ``None`` when it does not exist."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None
    return _type_of(mode)


def _type_of(mode: int) -> EntryType:
    if stat.S_ISREG(mode):
        return EntryType.FILE
    if stat.S_ISDIR(mode):
        return EntryType.DIRECTORY
    if stat.S_ISLNK(mode):
        return EntryType.SYMLINK
    return EntryType.OTHER


def descend(dir_fd: int, name: str) -> int:
    """A descriptor of the directory ``name`` in ``dir_fd``; a symlink, a non-directory or a gap refuses."""
    try:
        return os.open(name, _DIR, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            if kind_of(dir_fd, name) is EntryType.SYMLINK:
                raise Refusal(FileStatus.PERMISSION_DENIED, SYMLINK_REFUSED) from None
            raise Refusal(FileStatus.TYPE_MISMATCH, "a path component is not a directory") from None
        raise classify_os_error(exc) from None


def walk_dirs(root_fd: int, parts: tuple[str, ...], *, create: bool = False) -> tuple[int, bool]:
    """
    A descriptor of the directory at ``parts`` (a new descriptor, even for the root), and whether any
    directory was created on the way (only with ``create``).
    """
    fd = os.dup(root_fd)
    created = False
    try:
        for part in parts:
            if create and kind_of(fd, part) is None:
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                    created = True
                except FileExistsError:
                    pass
            child = descend(fd, part)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd, created


def open_regular(dir_fd: int, name: str) -> tuple[int, os.stat_result]:
    """
    A read descriptor of the regular file ``name`` and its ``fstat``. A symlink or special file refuses
    before anything is opened for reading; a directory is a type mismatch.
    """
    try:
        handle = os.open(name, _PATH, dir_fd=dir_fd)
    except OSError as exc:
        raise classify_os_error(exc) from None
    try:
        info = os.fstat(handle)
        kind = _type_of(info.st_mode)
        if kind is EntryType.SYMLINK:
            raise Refusal(FileStatus.PERMISSION_DENIED, SYMLINK_REFUSED)
        if kind is EntryType.DIRECTORY:
            raise Refusal(FileStatus.TYPE_MISMATCH, "the path is a directory, not a file")
        if kind is EntryType.OTHER:
            raise Refusal(FileStatus.PERMISSION_DENIED, SPECIAL_REFUSED)
        # The same inode, now opened for reading: no path is resolved again.
        fd = os.open(f"/proc/self/fd/{handle}", os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY)
    finally:
        os.close(handle)
    return fd, info


def read_bounded(fd: int, limit: int) -> tuple[bytes, bool]:
    """Up to ``limit`` bytes from ``fd``, and whether more were there."""
    chunks: list[bytes] = []
    left = limit + 1
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    data = b"".join(chunks)
    return data[:limit], len(data) > limit


def revision_of(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def write_atomic(dir_fd: int, name: str, data: bytes, *, mode: int | None, replace: bool) -> None:
    """
    Write ``data`` to ``name`` in ``dir_fd`` through a temp file (flushed, given ``mode``, fsynced) renamed
    into place; without ``replace`` an existing name is never overwritten (``Refusal(ALREADY_EXISTS)``).
    """
    temp = f".llm_wire-{secrets.token_hex(8)}.tmp"
    fd = os.open(temp, _NEW, 0o666, dir_fd=dir_fd)
    placed = False
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            placed = True
        else:
            try:
                os.link(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
            except FileExistsError:
                raise Refusal(FileStatus.ALREADY_EXISTS, "the destination already exists") from None
        os.fsync(dir_fd)
    finally:
        if not placed:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp, dir_fd=dir_fd)


_RENAME_NOREPLACE = 1
_libc = ctypes.CDLL(None, use_errno=True)
_renameat2 = getattr(_libc, "renameat2", None)


def rename_noreplace(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """
    Rename without ever replacing an existing destination (``renameat2(RENAME_NOREPLACE)``); where the
    kernel or filesystem lacks it, a link for a file, or a check then rename for a directory (a narrow race).
    """
    if _renameat2 is not None:
        result = _renameat2(src_fd, os.fsencode(src), dst_fd, os.fsencode(dst), _RENAME_NOREPLACE)
        if result == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.ENOSYS, errno.EINVAL):
            if code == errno.EEXIST:
                raise Refusal(FileStatus.ALREADY_EXISTS, "the destination already exists")
            raise classify_os_error(OSError(code, os.strerror(code)))
    if kind_of(src_fd, src) is EntryType.FILE:
        try:
            os.link(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd, follow_symlinks=False)
        except FileExistsError:
            raise Refusal(FileStatus.ALREADY_EXISTS, "the destination already exists") from None
        os.unlink(src, dir_fd=src_fd)
        return
    if kind_of(dst_fd, dst) is not None:
        raise Refusal(FileStatus.ALREADY_EXISTS, "the destination already exists")
    os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)


def classify_os_error(exc: OSError) -> Refusal:
    """The status an ``OSError`` of the kernel stands for; anything unexpected is ``io_error``."""
    match exc.errno:
        case errno.ENOENT:
            return Refusal(FileStatus.NOT_FOUND, "the path does not exist")
        case errno.EEXIST:
            return Refusal(FileStatus.ALREADY_EXISTS, "the destination already exists")
        case errno.EACCES | errno.EPERM:
            return Refusal(FileStatus.PERMISSION_DENIED, "the operating system denied access")
        case errno.ELOOP:
            return Refusal(FileStatus.PERMISSION_DENIED, SYMLINK_REFUSED)
        case errno.ENOTDIR:
            return Refusal(FileStatus.TYPE_MISMATCH, "a path component is not a directory")
        case errno.EISDIR:
            return Refusal(FileStatus.TYPE_MISMATCH, "the path is a directory, not a file")
        case errno.ENOTEMPTY:
            return Refusal(
                FileStatus.INVALID_REQUEST, "the directory is not empty; pass recursive to remove it"
            )
        case errno.ENAMETOOLONG:
            return Refusal(FileStatus.INVALID_PATH, "the path is too long")
        case _:
            return Refusal(FileStatus.IO_ERROR, "the operating system reported an I/O error")


def decode_text(data: bytes, *, cut: bool) -> str:
    """UTF-8 text of ``data``; a cut read may end inside a character. NUL or bad UTF-8 is a type mismatch."""
    if b"\x00" in data:
        raise Refusal(FileStatus.TYPE_MISMATCH, "the file holds binary data (a NUL byte), not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if cut and exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8")
        raise Refusal(FileStatus.TYPE_MISMATCH, "the file is not UTF-8 text") from None


def encode_text(content: str) -> bytes:
    if "\x00" in content:
        raise Refusal(FileStatus.INVALID_REQUEST, "the content holds a NUL character")
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError:
        raise Refusal(FileStatus.INVALID_REQUEST, "the content is not valid Unicode text") from None
