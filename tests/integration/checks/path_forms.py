"""path_forms: one file named in many forms (the oracle checks each event's
canonical path); here: the written forms are kept beside it, files.jsonl has
one record for the file with its metadata and none under another name,
fstat(3) is not recorded, and openat2's resolve flags and the failures they
cause are named."""
import os
import re

import bundlecheck as bc

b = bc.Bundle()
print("path_forms: one file, every form of its name")
bc.expect_exit(b, code=0)
m = re.search(r"^path_forms: file (/\S+)$", bc.stdout(), re.M)
bc.expect(m, "the program printed its file", bc.stdout()[:200])
target = m.group(1) if m else "/nonexistent"
base = os.path.dirname(os.path.dirname(os.path.dirname(target)))

on_file = b.find(path=target)
written = {ev.get("path_as_written") for ev in on_file}
for form in ("./../sub/f2.txt", "sub/../sub/f2.txt", "/proc/self/cwd/f2.txt", "/dev/stdin",
             base + "/ldir/sub/f2.txt"):
    bc.expect(form in written, "%r is recorded as %s" % (form, target), sorted(map(str, written)))
bc.expect(any(w and re.match(r"^/proc/self/fd/\d+/sub/f2\.txt$", w) for w in written),
          "/proc/self/fd/N/sub/f2.txt is recorded as the file", sorted(map(str, written)))
bc.expect(any(w and re.match(r"^/dev/fd/\d+$", w) for w in written),
          "/dev/fd/N (the file's own fd) is recorded as the file", sorted(map(str, written)))

st = [e for e in b.find(syscall=("newfstatat", "stat"))
      if re.match(r"^/proc/self/fd/\d+$", e.get("path_as_written") or "")]
bc.expect(st and all(e.get("path") == target for e in st),
          "stat(/proc/self/fd/N) is recorded as the file", st)

# AT_EMPTY_PATH: with a path recorded (not with --ptrace-only, where the
# filter skips AT_EMPTY_PATH rather than stop at every fstat), fstat(3) never
with open(os.environ["CASE_ARGS_FILE"], encoding="utf-8") as f:
    ptrace_only = "--ptrace-only" in f.read()
empty = b.find(syscall="newfstatat", path=target, flags="AT_EMPTY_PATH", ok=True)
if ptrace_only:
    bc.expect(not empty, "--ptrace-only: AT_EMPTY_PATH calls do not stop", empty)
else:
    ev = bc.expect_one(empty, "newfstatat(dirfd, \"sub/f2.txt\", AT_EMPTY_PATH) is recorded",
                       b.find(syscall="newfstatat"))
    bc.expect(ev is None or ev.get("path_as_written") == "sub/f2.txt", "its path as written", ev)
fstats = b.find(syscall=("newfstatat", "statx"), pred=lambda e: e.get("path_as_written") == ""
                and "AT_EMPTY_PATH" in (e.get("flags") or ""))
bc.expect(not fstats, "no fstat-style call (empty path, AT_EMPTY_PATH) is recorded", fstats)

# openat2: resolve decoded, the flag behind EXDEV/ELOOP named
o2 = b.find(syscall="openat2")
for flag, errno in (("RESOLVE_BENEATH", "EXDEV"), ("RESOLVE_NO_SYMLINKS", "ELOOP"),
                    ("RESOLVE_NO_MAGICLINKS", "ELOOP"), ("RESOLVE_NO_XDEV", "EXDEV")):
    hit = [e for e in o2 if e.get("resolve") == flag and e.get("errno") == errno]
    bc.expect(hit and all(e.get("resolve_cause") == flag for e in hit),
              "openat2 %s fails %s, resolve_cause %s" % (flag, errno, flag), o2)
for flag in ("RESOLVE_BENEATH", "RESOLVE_IN_ROOT", "RESOLVE_NO_XDEV"):
    ok = [e for e in o2 if e.get("resolve") == flag and e.get("ret", -1) >= 0]
    bc.expect(ok and all(e.get("path") == target and "resolve_cause" not in e for e in ok),
              "openat2 %s succeeds on the file, no resolve_cause" % flag, o2)
cached = [e for e in o2 if e.get("resolve") == "RESOLVE_CACHED"]
bc.expect(len(cached) == 1 and cached[0].get("path") == target
          and (cached[0].get("ret", -1) >= 0 or cached[0].get("resolve_cause") == "RESOLVE_CACHED"),
          "openat2 RESOLVE_CACHED is recorded on the file", cached)
in_root = [e for e in o2 if e.get("resolve") == "RESOLVE_IN_ROOT"]
bc.expect(len(in_root) == 2 and all(e.get("path") == target for e in in_root),
          "RESOLVE_IN_ROOT: '/' and '..' stop at the dirfd", in_root)

# files.jsonl: one record, with metadata; no other name of it
files = bc._load_jsonl(os.path.join(bc.env("BUNDLE_DIR"), "files.jsonl"))
rec = [f for f in files if f.get("path") == target]
bc.expect(len(rec) == 1, "one files.jsonl record for the file", rec)
if rec:
    meta = rec[0].get("meta") or {}
    bc.expect(meta.get("type") == "file" and meta.get("size") == 3 and meta.get("mode") == "0644",
              "its metadata: a 3-byte file, mode 0644", rec[0])
    bc.expect(rec[0].get("calls", 0) >= 17, "it counts the calls of every form", rec[0])
    bc.expect("read" in rec[0].get("ops", []) and "stat" in rec[0].get("ops", []),
              "read and stat", rec[0])
aliases = [f["path"] for f in files
           if f.get("path", "").endswith("f2.txt") and f.get("path") != target]
bc.expect(not aliases, "no files.jsonl record under another name of the file", aliases)
odd = [f["path"] for f in files if re.search(r"/\.\.(/|$)|^/proc/self/|^/dev/fd/|^/dev/stdin$",
                                             f.get("path", ""))]
bc.expect(not odd, "no files.jsonl path with '..', /proc/self, /dev/fd or /dev/stdin", odd)
bc.expect(all(f.get("meta") is not None for f in files
              if f.get("path", "").startswith(base + "/")),
          "every path under the base has metadata", [f for f in files
                                                     if f.get("path", "").startswith(base)])
bc.done()
