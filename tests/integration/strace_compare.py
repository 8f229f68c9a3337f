#!/usr/bin/python3
"""Compare a program's failed calls as strace sees them with a repro bundle.

    strace_compare.py --events EVENTS.jsonl [--cwd DIR] [--log LOG] -- CMD...

Runs `strace -f -qq -y -s 65535 -e trace=%file,%network,%process,fchdir -o LOG
CMD` (fchdir only to follow each task's working directory), collects every
failed call (`= -1 EXXX`) of strace 6.1's %file, %network and %process
classes (strace_classes.txt), and asserts that each one is in EVENTS.jsonl
with the same syscall and errno, and the same absolute paths, socket address,
fd and signal where the call has them.  Calls repro answers through seccomp
notification (the stat, access and readlink families) must match as well:
an event without its result does not count.  A relative path is joined to the directory of its dirfd as strace's
-y shows it (AT_FDCWD included, strace >= 6.0), else to the cwd followed
through chdir/fchdir/clone; a call whose directory is still unknown is
skipped and counted.

Exit status: 0 all present, 1 some missing, 77 strace cannot trace here,
2 usage or strace failure.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CLASSES_FILE = os.path.join(HERE, "strace_classes.txt")


def load_classes(path=CLASSES_FILE):
    """strace 6.1's %file, %network and %process: {class: set of names}."""
    classes = {"file": set(), "network": set(), "process": set()}
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if len(words) == 2 and not line.startswith("#"):
                classes[words[0]].add(words[1])
    return classes


CLASSES = load_classes()
TRACED = set().union(*CLASSES.values())

# name -> ((repro key, dirfd index or None, path index), ...) for each path
# argument, with the JSON key repro gives it (recorder/sys/table.def).
P, N = "path", "newpath"
PATH_ARGS = {
    **{name: ((P, None, 0),) for name in (
        "open", "creat", "stat", "lstat", "access", "readlink", "mkdir", "unlink",
        "rmdir", "chmod", "chown", "lchown", "truncate", "chdir", "mknod", "statfs",
        "execve", "utime", "utimes", "getxattr", "lgetxattr", "setxattr", "lsetxattr",
        "listxattr", "llistxattr", "removexattr", "lremovexattr", "acct", "swapon",
        "swapoff", "uselib", "chroot")},
    **{name: ((P, 0, 1),) for name in (
        "openat", "openat2", "newfstatat", "statx", "faccessat", "faccessat2",
        "readlinkat", "mkdirat", "unlinkat", "fchmodat", "fchownat", "utimensat",
        "mknodat", "execveat", "futimesat", "name_to_handle_at", "open_tree", "fspick",
        "mount_setattr")},
    "rename": ((P, None, 0), (N, None, 1)), "link": ((P, None, 0), (N, None, 1)),
    "renameat": ((P, 0, 1), (N, 2, 3)), "renameat2": ((P, 0, 1), (N, 2, 3)),
    "linkat": ((P, 0, 1), (N, 2, 3)),
    "symlink": ((P, None, 1),), "symlinkat": ((P, 1, 2),),
    "quotactl": ((P, None, 1),), "inotify_add_watch": ((P, None, 1),),
    "fanotify_mark": ((P, 3, 4),),
    "mount": (("target", None, 1),), "umount2": (("target", None, 0),),
    "pivot_root": (("new_root", None, 0), ("put_old", None, 1)),
    "move_mount": (("from_path", 0, 1), ("to_path", 2, 3)),
}
# Calls whose first argument is a socket (or fd) that repro keeps as "fd".
FD_FIRST = {
    "connect", "bind", "listen", "accept", "accept4", "getsockname", "getpeername",
    "setsockopt", "getsockopt", "shutdown", "sendto", "sendmsg", "sendmmsg", "recvfrom",
    "recvmsg", "recvmmsg", "sendfile", "getpmsg", "putpmsg",
}
# Signal argument of the %process calls that send one (repro's "signal").
SIG_ARG = {"kill": 1, "tkill": 1, "tgkill": 2, "rt_sigqueueinfo": 1,
           "rt_tgsigqueueinfo": 2, "pidfd_send_signal": 1}
ADDR_ARG = {"connect": 1, "bind": 1, "sendto": 4}

LINE_RE = re.compile(r"^(\d+)\s+(.*)$")
CALL_RE = re.compile(r"^([a-z_0-9]+)\((.*)\)\s+=\s+(.*)$", re.S)
UNFINISHED = " <unfinished ...>"
RESUMED_RE = re.compile(r"^<\.\.\. ([a-z_0-9]+) resumed>(.*)$", re.S)
FD_PATH_RE = re.compile(r"^-?\d+<(.*)>$", re.S)


def split_args(text):
    """Split strace's argument text at top-level commas."""
    args, depth, cur, i, in_str = [], 0, [], 0, False
    while i < len(text):
        c = text[i]
        if in_str:
            cur.append(c)
            if c == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            cur.append(c)
        elif c in "{[(<":
            depth += 1
            cur.append(c)
        elif c in "}])>":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur or args:
        args.append("".join(cur).strip())
    return args


def unquote(token):
    """strace's "..." string (C escapes, maybe a trailing ...) or None."""
    m = re.match(r'^@?"((?:[^"\\]|\\.)*)"(\.\.\.)?$', token, re.S)
    if not m:
        return None
    raw = m.group(1)
    out = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, "v": 11, "f": 12, "\\": 92, '"': 34}
    while i < len(raw):
        if raw[i] == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt == "x":
                out.append(int(raw[i + 2:i + 4], 16))
                i += 4
                continue
            if nxt.isdigit():
                j = i + 1
                while j < len(raw) and j < i + 4 and raw[j].isdigit():
                    j += 1
                out.append(int(raw[i + 1:j], 8))
                i = j
                continue
            out.append(simple.get(nxt, ord(nxt)))
            i += 2
            continue
        out.extend(raw[i].encode())
        i += 1
    return out.decode("utf-8", "surrogateescape")


def norm(path):
    """Drop "." segments and doubled slashes; keep ".." as written."""
    if path is None:
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return "/" + "/".join(parts) if path.startswith("/") else "/".join(parts)


def parse_sockaddr(token):
    """strace's sockaddr text -> repro's addr key text, or None."""
    if "AF_UNIX" in token:
        m = re.search(r'sun_path=(@?)"((?:[^"\\]|\\.)*)"', token)
        if not m:
            return "unix:"
        name = unquote('"' + m.group(2) + '"')
        return ("abstract:" if m.group(1) else "unix:") + name
    if "AF_INET6" in token:
        port = re.search(r"sin6_port=htons\((\d+)\)", token)
        ip = re.search(r'inet_pton\(AF_INET6, "([^"]*)"', token)
        if port and ip:
            return "%s:%s" % (ip.group(1), port.group(1))
    elif "AF_INET" in token:
        port = re.search(r"sin_port=htons\((\d+)\)", token)
        ip = re.search(r'inet_addr\("([^"]*)"\)', token)
        if port and ip:
            return "%s:%s" % (ip.group(1), port.group(1))
    return None


def event_addr(ev):
    """repro's addr object -> the same key text as parse_sockaddr."""
    addr = ev.get("addr")
    if not isinstance(addr, dict):
        return None
    fam = addr.get("family")
    if fam == "AF_UNIX":
        if "abstract" in addr:
            return "abstract:" + addr["abstract"]
        return "unix:" + (addr.get("path") or "")
    if fam in ("AF_INET", "AF_INET6"):
        return "%s:%s" % (addr.get("ip"), addr.get("port"))
    return None


def merge_lines(text):
    """Yield (pid, call text) with unfinished/resumed halves joined."""
    pending = {}
    for line in text.splitlines():
        m = LINE_RE.match(line)
        if not m:
            continue
        pid, rest = int(m.group(1)), m.group(2)
        if rest.startswith(("---", "+++")):
            continue
        if rest.endswith(UNFINISHED):
            pending[pid] = rest[: -len(UNFINISHED)]
            continue
        r = RESUMED_RE.match(rest)
        if r:
            head = pending.pop(pid, None)
            if head is None:
                continue
            rest = head + r.group(2)
        yield pid, rest


class Call:
    """One completed call from the log."""

    def __init__(self, pid, name, args, result):
        self.pid, self.name, self.args = pid, name, args
        self.ret, self.errno = None, None
        m = re.match(r"^(-?\d+|0x[0-9a-f]+)(?:<.*?>)?(?:\s+(E[A-Z0-9]+))?", result)
        if m:
            self.ret = int(m.group(1), 0)
            self.errno = m.group(2)
        self.paths = []      # [(key, abs path or None, why skipped)]
        self.addr = None
        self.fd = None
        self.signal = None


def parse_log(text):
    calls = []
    for pid, rest in merge_lines(text):
        m = CALL_RE.match(rest)
        if m:
            calls.append(Call(pid, m.group(1), split_args(m.group(2)), m.group(3)))
    return calls


class CwdTracker:
    """Follow the cwd of each task through clone/fork and chdir/fchdir."""

    def __init__(self, calls, start_cwd):
        self.parent, self.shares = {}, {}
        for c in calls:
            if c.name in ("clone", "clone3", "fork", "vfork") and c.ret and c.ret > 0:
                self.parent[c.ret] = c.pid
                text = ", ".join(c.args)
                self.shares[c.ret] = "CLONE_FS" in text or "CLONE_THREAD" in text
        self.cells = {}
        self.first = calls[0].pid if calls else None
        self.start = start_cwd

    def cell(self, pid):
        if pid not in self.cells:
            ppid = self.parent.get(pid)
            if pid == self.first:
                self.cells[pid] = [self.start]
            elif ppid is None:
                self.cells[pid] = [None]
            else:
                pcell = self.cell(ppid)
                self.cells[pid] = pcell if self.shares.get(pid) else [pcell[0]]
        return self.cells[pid]

    def update(self, c):
        cell = self.cell(c.pid)
        for arg in c.args[:1]:
            m = re.match(r"^AT_FDCWD<(/.*)>$", arg, re.S)
            if m:
                cell[0] = m.group(1)
        if c.ret != 0:
            return
        if c.name == "chdir" and c.paths:
            cell[0] = c.paths[0][1]
        elif c.name == "fchdir" and c.args:
            m = FD_PATH_RE.match(c.args[0])
            cell[0] = m.group(1) if m else None


def dirfd_base(dirfd, cwd):
    """The directory a relative path starts from, or None when unknown.

    With -y strace decorates a dirfd with the path it names, AT_FDCWD too
    (strace >= 6.0: "AT_FDCWD</srv/app>"); older versions print a bare
    AT_FDCWD, and then the tracked cwd is used.
    """
    if dirfd == "AT_FDCWD":
        return cwd
    m = re.match(r"^(?:AT_FDCWD|-?\d+)<(/.*)>$", dirfd, re.S)
    return m.group(1) if m else None


def resolve(c, tracker):
    """Fill c.paths and c.addr from the raw arguments."""
    cwd = tracker.cell(c.pid)[0]
    for key, dirfd_i, path_i in PATH_ARGS.get(c.name, ()):
        if path_i >= len(c.args):
            continue
        path = unquote(c.args[path_i])
        if path is None:
            c.paths.append((key, None, "path not a string"))
            continue
        if path.startswith("/"):
            c.paths.append((key, norm(path), None))
            continue
        dirfd = c.args[dirfd_i] if dirfd_i is not None else "AT_FDCWD"
        base = dirfd_base(dirfd, cwd)
        if base is None:
            c.paths.append((key, None, "relative to dirfd %s, directory unknown" % dirfd))
        else:
            c.paths.append((key, norm(base + "/" + path), None))
    if c.name in FD_FIRST and c.args:
        m = re.match(r"^(-?\d+)(?:<.*>)?$", c.args[0], re.S)
        c.fd = int(m.group(1)) if m else None
    if c.name in SIG_ARG and SIG_ARG[c.name] < len(c.args):
        c.signal = c.args[SIG_ARG[c.name]]
    if c.name in ADDR_ARG and ADDR_ARG[c.name] < len(c.args):
        c.addr = parse_sockaddr(c.args[ADDR_ARG[c.name]])
    elif c.name == "sendmsg" and c.args and len(c.args) > 1:
        c.addr = parse_sockaddr(c.args[1]) if "msg_name={" in c.args[1] else None


def collect(calls, start_cwd):
    """All calls with paths resolved, in log order."""
    tracker = CwdTracker(calls, start_cwd)
    for c in calls:
        resolve(c, tracker)
        tracker.update(c)
    return calls


def canonical(path):
    """The canonical form repro records (docs/bundle-format.md "path"): the
    directory part resolved as it is now (`..` and directory symlinks), the
    last component as written.  strace prints paths as the program wrote
    them, so a strace path matches an event under either form."""
    if path is None or not path.startswith("/") or path == "/":
        return path
    head, tail = os.path.split(path.rstrip("/"))
    if tail in ("", ".", ".."):
        return norm(os.path.realpath(path))
    return norm(os.path.join(os.path.realpath(head), tail))


def path_matches(ev, key, path):
    seen = norm(ev.get(key))
    return seen == path or seen == canonical(path)


def event_matches(ev, c):
    if ev.get("syscall") != c.name or ev.get("errno") != c.errno:
        return False
    if ev.get("ret") not in (-1, None):
        return False
    for key, path, _ in c.paths:
        if path is None:
            continue
        if c.name in ("symlink", "symlinkat"):
            if not (path_matches(ev, "path", path) or path_matches(ev, "newpath", path)):
                return False
        elif not path_matches(ev, key, path):
            return False
    if c.addr is not None and event_addr(ev) != c.addr:
        return False
    if c.fd is not None and ev.get("fd") != c.fd:
        return False
    if c.signal is not None and re.match(r"^SIG[A-Z0-9]+$", c.signal) and \
            ev.get("signal") != c.signal:
        return False
    return True


def describe(c):
    where = ", ".join("%s=%s" % (k, p) for k, p, _ in c.paths if p) or c.addr or "-"
    if c.fd is not None:
        where += " fd=%d" % c.fd
    return "%s %s %s" % (c.name, where, c.errno)


def compare(calls, events):
    """Return (compared, skipped, missing) lists of failed calls.

    Every call strace reports failed (= -1 EXXX) in %file, %network or
    %process must have an event with the same syscall and errno, and the
    same absolute paths, socket address, fd and signal where it has them.
    Linear in calls + events: events are indexed by (syscall, errno).
    """
    by_key = {}
    for ev in events:
        by_key.setdefault((ev.get("syscall"), ev.get("errno")), []).append(ev)
    compared, skipped, missing = [], [], []
    for c in calls:
        if c.ret != -1 or not c.errno or c.name not in TRACED:
            continue
        why = [w for _, p, w in c.paths if p is None]
        if why:
            skipped.append((c, why[0]))
            continue
        compared.append(c)
        if not any(event_matches(ev, c) for ev in by_key.get((c.name, c.errno), ())):
            missing.append(c)
    return compared, skipped, missing


def class_counts(compared):
    """'file N, network N, process N' of the compared calls (execve counts twice)."""
    return ", ".join("%s %d" % (k, sum(1 for c in compared if c.name in CLASSES[k]))
                     for k in ("file", "network", "process"))


def load_events(path):
    events = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                events.append(json.loads(line))
            except ValueError as e:
                sys.exit("strace_compare: %s:%d: not JSON: %s" % (path, n, e))
    return events


def run_strace(log, cmd):
    argv = ["strace", "-f", "-qq", "-y", "-s", "65535",
            "-e", "trace=%file,%network,%process,fchdir", "-o", log, "--"] + cmd
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, check=False)
    except FileNotFoundError:
        print("strace_compare: SKIP: strace is not installed")
        sys.exit(77)
    err = proc.stderr.decode(errors="replace")
    if "PTRACE_TRACEME" in err or "ptrace" in err.lower() and "not permitted" in err:
        print("strace_compare: SKIP: strace cannot trace here: %s" % err.strip())
        sys.exit(77)
    if not os.path.exists(log):
        sys.exit("strace_compare: strace wrote no log: %s" % err.strip())
    return proc.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", required=True, help="events.jsonl of the recording")
    ap.add_argument("--cwd", default=os.getcwd(), help="cwd the command starts in")
    ap.add_argument("--log", default="strace.log", help="where strace writes")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("cmd", nargs="+")
    opts = ap.parse_args()

    status = run_strace(opts.log, opts.cmd)
    with open(opts.log, encoding="utf-8", errors="surrogateescape") as f:
        calls = collect(parse_log(f.read()), os.path.abspath(opts.cwd))
    compared, skipped, missing = compare(calls, load_events(opts.events))
    print("strace_compare: command exited %d under strace; %d failed %%file/%%network/"
          "%%process calls compared (%s), %d skipped, %d missing from events.jsonl"
          % (status, len(compared), class_counts(compared), len(skipped), len(missing)))
    for c, why in skipped if opts.verbose else ():
        print("  skipped: %s (%s)" % (describe(c), why))
    for c in compared if opts.verbose else ():
        print("  found:   %s" % describe(c))
    for c in missing:
        print("  MISSING: %s    [strace: %s(%s)]" % (describe(c), c.name, ", ".join(c.args)[:200]))
    if not compared:
        print("strace_compare: strace reported no failed call to compare")
        return 1
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
