"""Small disks and read-only media for tests: tmpfs mounts, root only.

As root, file permissions do not stop writes, so a read-only medium is a tmpfs remounted
``ro`` (the kernel refuses every write to it, root's too), and a full disk is a tmpfs of a
few hundred kB. Mounting needs root; the tests skip, saying so, when not run as root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

NOT_ROOT = (
    "needs root to mount a small tmpfs (a full disk, a read-only medium): run as root, as CI does"
)


class Mounts:
    """tmpfs mounts made by one test; :meth:`unmount_all` runs in the fixture's finalizer."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.mounted: list[Path] = []

    def tmpfs(self, name: str, size_kb: int) -> Path:
        """A fresh tmpfs of ``size_kb`` kB (1,024 bytes) at ``base/name``."""
        folder = self.base / name
        folder.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
        )
        if done.returncode:
            pytest.fail(f"mount -t tmpfs failed as root: {done.stderr.strip()}")
        self.mounted.append(folder)
        return folder

    def readonly(self, folder: Path) -> None:
        """Remount ``folder`` (a tmpfs of :meth:`tmpfs`) read-only."""
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)

    def readonly_copy(self, name: str, *files: str) -> Path:
        """A read-only medium holding copies of ``files`` (same names), 2 MB larger than
        they are."""
        size = sum(os.path.getsize(f) for f in files) // 1024 + 2048
        folder = self.tmpfs(name, size)
        for f in files:
            shutil.copyfile(f, folder / os.path.basename(f))
        self.readonly(folder)
        return folder

    def fill(self, folder: Path, leave_kb: int = 0) -> None:
        """Fill ``folder``'s file system up to ``leave_kb`` kB free (a file ``filler``)."""
        st = os.statvfs(folder)
        room = st.f_bavail * st.f_frsize - leave_kb * 1024
        fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        chunk = b"\0" * 65536
        try:
            while room > 0:
                room -= os.write(fd, chunk[: min(room, len(chunk))])
        except OSError:
            pass
        finally:
            os.close(fd)

    def unmount_all(self) -> None:
        for folder in reversed(self.mounted):
            done = subprocess.run(["umount", str(folder)], capture_output=True)
            if done.returncode:  # something still holds it open: detach it lazily
                subprocess.run(["umount", "-l", str(folder)], capture_output=True)
        self.mounted.clear()


@pytest.fixture(name="mounts")
def mounts_fixture(tmp_path: Path) -> Iterator[Mounts]:
    """Make tmpfs mounts under ``tmp_path`` (unmounted afterwards); skips when not root."""
    if os.geteuid() != 0:
        pytest.skip(NOT_ROOT)
    made = Mounts(tmp_path)
    try:
        yield made
    finally:
        made.unmount_all()
