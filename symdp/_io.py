r"""Atomic output: a reader never sees a half-written file or report directory.

* :func:`atomic_write_text` / :func:`atomic_write_bytes` write a temporary
  file in the destination's directory, flush and ``fsync`` it, then
  :func:`os.replace` it over the destination (atomic on POSIX and Windows for
  the same file system).
* :func:`atomic_dir` yields an empty staging directory (hidden, next to the
  destination) to build a whole report in.  On success the staging
  directory is renamed to the destination if that does not exist yet (one
  atomic step), otherwise each file is moved over its old version with
  :func:`os.replace` (each file atomic; files of the old directory that the
  new run does not produce are left alone, so ``--out .`` never deletes a
  user's files).  On any exception, including ``KeyboardInterrupt``, the
  staging directory is removed and the destination is untouched, so a failed
  run creates no empty output directory.  A process killed with SIGKILL can
  leave a hidden ``.NAME.tmp-*`` staging directory behind, never a partial
  destination.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> with atomic_dir(d / "report") as stage:
...     _ = atomic_write_text(stage / "a.txt", "done")
>>> (d / "report" / "a.txt").read_text()
'done'
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import InvalidParameterError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same directory, fsync, os.replace)."""
    dest = Path(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return dest


def atomic_write_text(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically; see :func:`atomic_write_bytes`."""
    return atomic_write_bytes(path, text.encode(encoding))


def _existing_ancestor(p: Path) -> Path:
    p = p.absolute()
    for cand in (p.parent, *p.parent.parents):
        if cand.is_dir():
            return cand
    return Path.cwd()


def _merge(stage: Path, dest: Path) -> None:
    for root, _dirs, files in os.walk(stage):
        rel = Path(root).relative_to(stage)
        (dest / rel).mkdir(parents=True, exist_ok=True)
        for f in files:
            os.replace(Path(root) / f, dest / rel / f)


@contextlib.contextmanager
def atomic_dir(path: str | Path, owned: tuple[str, ...] = ()) -> Iterator[Path]:
    """Build a directory in a staging area and put it at ``path`` only when the block succeeds.

    When ``path`` already exists, the entries named in ``owned`` (files or directories the producer
    writes, such as a report's ``plots/``) are removed from it before the new ones are moved in, so
    no file of an earlier run is left beside the new report; anything else there is kept.
    """
    dest = Path(path)
    if dest.exists() and not dest.is_dir():
        raise InvalidParameterError(f"output directory {str(dest)!r} exists and is not a directory")
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{dest.name or 'out'}.tmp-", dir=_existing_ancestor(dest)))
    except OSError as exc:
        raise InvalidParameterError(f"output directory {str(dest)!r} cannot be created there ({exc.strerror})") from None
    os.chmod(stage, 0o777 & ~_umask())
    try:
        yield stage
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.rename(stage, dest)
                return
            except OSError:  # created meanwhile, or another file system: fall back to per-file moves
                pass
        for name in owned:
            old = dest / name
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old)
            elif old.exists() or old.is_symlink():
                old.unlink()
        _merge(stage, dest)
    finally:
        if stage.exists():
            shutil.rmtree(stage, ignore_errors=True)


def read_bytes_limited(path: str | Path, *, limit: int, what: str, error: type[Exception]) -> bytes:
    """At most ``limit`` bytes of a regular file, else ``error`` (one line naming the file).

    The file is opened without blocking (a FIFO does not hang the open) and checked to be a regular
    file on the open descriptor (``/dev/zero``, a FIFO, a directory or a socket is refused before any
    read); then at most ``limit + 1`` bytes are read, so a file that grows while it is read cannot
    make the read unbounded either.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(os.fspath(path), flags)
    except OSError as exc:
        raise error(f"{what} {str(path)!r}: cannot read ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{what} {str(path)!r}: not a regular file")
        if st.st_size > limit:
            raise error(f"{what} {str(path)!r}: {st.st_size} bytes; the limit is {limit}")
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            try:
                b = os.read(fd, min(1 << 20, limit + 1 - got))
            except OSError as exc:
                raise error(f"{what} {str(path)!r}: cannot read ({exc.strerror})") from None
            if not b:
                break
            chunks.append(b)
            got += len(b)
    finally:
        os.close(fd)
    if got > limit:
        raise error(f"{what} {str(path)!r}: more than {limit} bytes; the limit is {limit}")
    return b"".join(chunks)


def read_text_limited(path: str | Path, *, limit: int, what: str, error: type[Exception]) -> str:
    """The UTF-8 text of an untrusted input file (a claim or theorem file), read once and checked before anything
    parses it: unreadable, not a regular file, larger than ``limit`` bytes or not UTF-8 raises ``error`` with one line
    naming the file.  One leading UTF-8 byte-order mark (as some editors write) is dropped."""
    data = read_bytes_limited(path, limit=limit, what=what, error=error)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{what} {str(path)!r}: not UTF-8 text") from None
    return text[1:] if text.startswith("\ufeff") else text  # a UTF-8 byte-order mark is not part of the text


__all__ = ["atomic_dir", "atomic_write_bytes", "atomic_write_text", "read_bytes_limited", "read_text_limited"]
