"""What the machine itself says: its CPU model and the file systems mounted on it."""

from __future__ import annotations

from pathlib import Path

from jubex.platform.detect.model import Value

#: kinds of file system a benchmark may target (parallel, network or local disks)
KINDS = {
    "lustre",
    "gpfs",
    "beegfs",
    "nfs",
    "nfs4",
    "cephfs",
    "ceph",
    "glusterfs",
    "fuse.glusterfs",
    "wekafs",
    "panfs",
    "pvfs2",
    "orangefs",
    "daos",
    "fuse.dfuse",
    "cifs",
    "smb3",
    "xfs",
    "ext4",
    "ext3",
    "btrfs",
    "zfs",
}
#: kinds that are shared between nodes, a benchmark's usual target
PARALLEL = {"lustre", "gpfs", "beegfs", "cephfs", "wekafs", "panfs", "pvfs2", "orangefs", "daos"}
#: mount points that hold the system, never a benchmark's files
SYSTEM = ("/proc", "/sys", "/dev", "/run", "/boot", "/snap", "/var/lib", "/etc", "/usr")


def cpu_model(cpuinfo: str) -> str:
    """The first ``model name`` (x86), ``cpu model`` or ``Processor`` line of /proc/cpuinfo."""
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("model name", "cpu model", "Processor"):
            return value.strip()
    return ""


def filesystems(mountinfo: str) -> dict[str, dict[str, Value]]:
    """Mounted file systems a benchmark may target, by a name made of the mount point; the
    first parallel one is marked default (a guess)."""
    found: dict[str, dict[str, Value]] = {}
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if not sep or len(fields) < 5 or not rest or rest[0] not in KINDS:
            continue
        point = fields[4].replace("\\040", " ")
        if point == "/" or point.startswith(SYSTEM) or " " in point:
            continue
        name = point.strip("/").replace("/", "-") or "root"
        found.setdefault(name, {"path": Value(point), "kind": Value(rest[0])})
    parallel = [n for n, fs in found.items() if fs["kind"].value in PARALLEL]
    if parallel:
        found[parallel[0]]["default"] = Value(True, "the first parallel file system mounted")
    return found


def read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""
