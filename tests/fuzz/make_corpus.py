#!/usr/bin/python3
"""make_corpus.py - the seed corpus of the fuzz targets (docs/fuzzing.md).

  make_corpus.py --record REPRO   record the real programs with REPRO into
                                  corpus/reader/real-* (then as below)
  make_corpus.py                  from corpus/reader/real-*, write the
                                  crafted inputs and the copies of the real
                                  bundles into every target's directory

Files it writes are named real-*, crafted-* and pair-*; it removes the
crafted-* and pair-* files it did not write, and never touches the
regression inputs (regress-*).  The output is deterministic (fixed tar
times and owners, zstd at a fixed level), so running it again changes no
file.  Crafted inputs are built the way tests/integration/hostile.sh builds
its bundles: the members of a real recording, changed, packed again as a
pax tar compressed with the zstd command.

The diff target reads a 4-byte little-endian length N, bundle A (N bytes),
then bundle B; any other input is diffed against itself (tests/fuzz/
fuzz_diff.c).  Its corpus holds the real bundles as they are, pairs of real
bundles, and a real bundle paired with each crafted one.
"""
import copy
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
BUNDLE_TARGETS = ("reader", "show", "explain")
MEMBERS = ("manifest.json", "processes.jsonl", "events.jsonl", "trace.txt",
           "host.json", "files.jsonl", "network.jsonl")
JSONL = ("processes.jsonl", "events.jsonl", "files.jsonl", "network.jsonl")
MTIME = 1700000000
BASE = "real-curl-refused"

# name -> (command, record options); run in an empty directory with a
# minimal environment, so that the bundles hold nothing of who made them
PROGRAMS = {
    "real-ls-enoent": (["/bin/ls", "/nonexistent"], []),
    "real-sh-exit3": (["/bin/sh", "-c", "cat /etc/hostname; exit 3"], ["--redact-hostname"]),
    "real-python-enoent": (["/usr/bin/python3", "-I", "-S", "-c", 'open("/nope")'], []),
    "real-curl-refused": (["/usr/bin/curl", "-sS", "-m", "2", "http://127.0.0.1:9/"], []),
    "real-sh-children": (["/bin/sh", "-c", "/bin/true & /bin/ls /nope; wait"], []),
    "real-sh-signal": (["/bin/sh", "-c", "kill -SEGV $$"], []),
    "real-cat-present": (["/bin/sh", "-c", "cat data.txt"], []),
    "real-cat-missing": (["/bin/sh", "-c", "cat data.txt"], []),
    "real-getent-netnone": (["/usr/bin/getent", "hosts", "example.invalid"], ["--net=none"]),
    "real-unix-connect": (["/usr/bin/python3", "-I", "-S", "-c",
                           "import socket; s = socket.socket(socket.AF_UNIX); "
                           "s.connect('/nonexistent.sock')"], []),
}


def record(repro):
    out = os.path.join(CORPUS, "reader")
    os.makedirs(out, exist_ok=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"}
    for name, (cmd, opts) in sorted(PROGRAMS.items()):
        with tempfile.TemporaryDirectory(prefix="repro-seed.") as work:
            if name == "real-cat-present":
                with open(os.path.join(work, "data.txt"), "w") as f:
                    f.write("data\n")
            path = os.path.join(out, name)
            subprocess.run([os.path.abspath(repro), "record", "-o", path] + opts + ["--"] + cmd, cwd=work,
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if not os.path.exists(path):
                sys.exit("make_corpus: recording %s failed" % name)
            print("recorded %s: %d bytes" % (name, os.path.getsize(path)))


# ---- packing ----

def zstd(data, *args):
    return subprocess.run(["zstd", "-q", "-c"] + list(args), input=data, stdout=subprocess.PIPE,
                          check=True).stdout


def tar_bytes(entries):
    """entries: (name, bytes) for regular files, or a tarfile.TarInfo with
    its data (None for non-regular ones), in archive order."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for e in entries:
            if isinstance(e[0], tarfile.TarInfo):
                info, data = e
            else:
                info, data = tarfile.TarInfo(e[0]), e[1]
                info.size = len(data)
            info.mtime, info.uid, info.gid, info.uname, info.gname = MTIME, 0, 0, "", ""
            if info.isreg():
                info.mode = 0o644
            t.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def pack(members, order=None):
    """A bundle from a dict of member name -> bytes."""
    names = order if order is not None else [m for m in MEMBERS if m in members] + \
        [m for m in members if m not in MEMBERS]
    return zstd(tar_bytes([(n, members[n]) for n in names]))


def unpack(bundle):
    raw = subprocess.run(["zstd", "-q", "-d", "-c"], input=bundle, stdout=subprocess.PIPE,
                         check=True).stdout
    out = {}
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as t:
        for info in t:
            out[info.name] = t.extractfile(info).read()
    return out


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


def jsonl(objs):
    return "".join(dumps(o) + "\n" for o in objs).encode()


def lines(members, name):
    return [json.loads(x) for x in members[name].decode().splitlines() if x.strip()]


# ---- crafted shapes ----

# Wrong-typed values put in place of each key the readers look at.
WRONG = {
    "str": "x", "obj": {}, "arr": [], "neg": -1, "zero": 0, "int32": 2 ** 31,
    "max": 2 ** 63 - 1, "min": -2 ** 63, "real": 1.5, "null": None, "true": True,
}


def key_paths(obj, depth=0, prefix=()):
    """Paths to the values of obj: every object key and the first array
    element, to depth 3."""
    if depth > 3:
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield prefix + (k,)
            yield from key_paths(v, depth + 1, prefix + (k,))
    elif isinstance(obj, list) and obj:
        yield prefix + (0,)
        yield from key_paths(obj[0], depth + 1, prefix + (0,))


def with_value(obj, path, value):
    obj = copy.deepcopy(obj)
    node = obj
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return obj


def sample(objs, limit):
    """Up to limit objects with the most distinct shapes (syscalls, outcomes)."""
    seen, out = set(), []
    for o in objs:
        key = (o.get("syscall"), o.get("kind"), o.get("errno"), o.get("first"),
               tuple(sorted(o)))
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out[:limit]


def wrong_types(base):
    """Per .jsonl member: every sampled line once per key path and wrong
    type, with that one value replaced and the rest valid.  Per wrong type
    and depth: manifest.json and host.json with every value at that depth
    replaced at once (but the manifest's format and version)."""
    out = {}
    for member in JSONL:
        objs = sample(lines(base, member), 20)
        if not objs:
            continue
        rows = [with_value(o, p, v) for o in objs for p in key_paths(o) for v in WRONG.values()]
        out["crafted-types-" + member.split(".")[0]] = pack(dict(base, **{member: jsonl(rows)}))
    for depth in (1, 2):
        for tname, value in WRONG.items():
            m = dict(base)
            for member in ("manifest.json", "host.json"):
                o = json.loads(base[member])
                paths = [p for p in key_paths(o) if len(p) == depth and
                         not (member == "manifest.json" and p[0] in ("format", "version"))]
                for p in paths:
                    o = with_value(o, p, value)
                m[member] = dumps(o).encode()
            out["crafted-types-manifest-host-d%d-%s" % (depth, tname)] = pack(m)
    return out


def manifest_shapes(base):
    out = {}
    man = json.loads(base["manifest.json"])
    variants = {
        "version-2": {"version": 2}, "version-huge": {"version": 2 ** 63 - 1},
        "version-0": {"version": 0}, "version-neg": {"version": -2 ** 63},
        "version-str": {"version": "1"}, "version-real": {"version": 1.0},
        "version-null": {"version": None}, "format-other": {"format": "repro-bundle2"},
        "format-num": {"format": 1}, "format-esc": {"format": "repro-bundle\u001b[2J"},
    }
    for name, change in variants.items():
        m = dict(base)
        m["manifest.json"] = dumps(dict(man, **change)).encode()
        out["crafted-manifest-" + name] = pack(m)
    texts = {
        "not-json": b"repro-bundle version 1\n",
        "array": b"[1,2,3]",
        "string": b'"repro-bundle"',
        "empty": b"",
        "deep": b"[" * 100000,
        "deep-obj": b'{"format":"repro-bundle","version":1,"x":' + b'{"a":' * 3000 + b"1" +
                    b"}" * 3000 + b"}",
        "huge-int": b'{"format":"repro-bundle","version":18446744073709551616}',
        "nul": b'{"format":"repro-bundle\\u0000","version":1}',
        "raw-nul": b'{"format":"repro-bundle","version":1}\x00garbage',
        "bad-utf8": b'{"format":"repro-bundle","version":1,"cwd":"/\x9b\xff"}',
        "trailing": b'{"format":"repro-bundle","version":1} {"more":1}',
    }
    for name, text in texts.items():
        m = dict(base)
        m["manifest.json"] = text
        out["crafted-manifest-" + name] = pack(m)
    return out


def line_shapes(base):
    """Lines of each .jsonl member that are not objects, or nasty objects."""
    out = {}
    amp = b"[" + b",".join([b"{}"] * 50000) + b"]"
    bad_lines = {
        "array": b"[1,2,3]\n", "string": b'"events"\n', "null": b"null\n",
        "not-json": b"openat(AT_FDCWD, \"/x\") = -1 ENOENT\n",
        "deep": b"[" * 100000 + b"\n",
        "deep-obj": b'{"a":' * 100000 + b"\n",
        "amplifier": amp + b"\n",
        "huge-int": b'{"seq":18446744073709551616,"pid":1}\n',
        "huge-real": b'{"seq":1e400,"pid":1}\n',
        "nul-escape": b'{"seq":1,"pid":1,"path":"/a\\u0000b"}\n',
        "raw-nul": b'{"seq":1,"pid":1,"path":"/a\x00b"}\n',
        "bad-utf8": b'{"seq":1,"pid":1,"path":"/a\xff\x9b"}\n',
        "crlf": b'{"seq":1,"pid":1}\r\n',
        "blank": b"\n\n   \n\t\n",
        "no-newline": b'{"seq":1,"pid":1,"ret":-1,"errno":"ENOENT"}',
        "two-per-line": b'{"seq":1,"pid":1} {"seq":2,"pid":1}\n',
    }
    for member in JSONL:
        short = member.split(".")[0]
        for name, text in bad_lines.items():
            m = dict(base)
            # after the real lines, so that readers get that far
            m[member] = base[member] + text
            out["crafted-lines-%s-%s" % (short, name)] = pack(m)
    for name in ("deep", "amplifier", "not-json", "array"):
        m = dict(base)
        m["host.json"] = bad_lines[name]
        out["crafted-host-" + name] = pack(m)
    return out


def string_shapes(base):
    """Control bytes, C1, ESC and \\xNN text in every string the readers print."""
    evil = ["x\u001b]0;pwned\u0007\u009b2J\u001b[31m", "\\x00\\xff", "\u0085\u009d\u2028",
            "'quoted' \"both\" $(x)", "\ud7ff\ue000\U0010ffff", "", "a" * 5000]

    def poison(obj, i=0):
        if isinstance(obj, dict):
            return {k: poison(v, i + n) for n, (k, v) in enumerate(obj.items())}
        if isinstance(obj, list):
            return [poison(v, i + n) for n, v in enumerate(obj)]
        if isinstance(obj, str):
            s = evil[i % len(evil)]
            return obj + s if len(s) < 100 else s
        return obj

    m = dict(base)
    for member in JSONL:
        m[member] = jsonl([poison(o, n) for n, o in enumerate(lines(base, member))])
    for member in ("host.json", "manifest.json"):
        o = poison(json.loads(base[member]))
        if member == "manifest.json":
            o.update(format="repro-bundle", version=1)
        m[member] = dumps(o).encode()
    m["trace.txt"] = base["trace.txt"] + b"\x1b]52;c;cHduZWQ=\x07\x9b\x1b[2J\xc2\x9b\xff\x00\n"
    out = {"crafted-strings-control": pack(m)}
    keys = dict(base)
    for member in JSONL:
        keys[member] = jsonl([{("\u001b[2J" + k if n % 2 else k): v for k, v in o.items()}
                              for n, o in enumerate(lines(base, member))])
    out["crafted-strings-keys"] = pack(keys)
    return out


def archive_shapes(base):
    out = {}
    real = pack(base)
    for frac in (0, 4, 10, 100):
        out["crafted-truncated-%d" % frac] = real[:frac]
    for pct in (25, 50, 75, 99):
        out["crafted-truncated-%dpct" % pct] = real[:len(real) * pct // 100]
    raw = tar_bytes([(n, base[n]) for n in MEMBERS])
    for pct in (30, 60, 90):
        out["crafted-tar-truncated-%dpct" % pct] = zstd(raw[:len(raw) * pct // 100])
    # no compression at all (the reader takes a plain tar too): a few lines of each member
    small = {n: b"".join(base[n].splitlines(True)[:8]) for n in MEMBERS}
    small["host.json"] = base["host.json"]
    out["crafted-tar-uncompressed"] = tar_bytes([(n, small[n]) for n in MEMBERS])
    out["crafted-gzip"] = subprocess.run(["gzip", "-n", "-c"], input=raw, stdout=subprocess.PIPE,
                                         check=True).stdout
    out["crafted-zstd-garbage-after"] = real + b"\x00garbage\xff" * 10
    out["crafted-zstd-two-frames"] = zstd(raw[:len(raw) // 2]) + zstd(raw[len(raw) // 2:])
    out["crafted-zstd-of-nothing"] = zstd(b"")
    out["crafted-zstd-of-zeros"] = zstd(b"\x00" * 100000)
    out["crafted-random"] = bytes((i * 7919 + 13) % 251 for i in range(4096))
    for name in MEMBERS:
        m = {k: v for k, v in base.items() if k != name}
        out["crafted-missing-" + name.split(".")[0]] = pack(m)
        m = dict(base, **{name: b""})
        out["crafted-empty-" + name.split(".")[0]] = pack(m)
    out["crafted-only-manifest"] = pack({"manifest.json": base["manifest.json"]})
    out["crafted-order-reversed"] = pack(base, order=list(reversed(MEMBERS)))
    out["crafted-order-shuffled"] = pack(base, order=[MEMBERS[i] for i in (4, 2, 6, 0, 5, 1, 3)])
    dup = [(n, base[n]) for n in MEMBERS] + [
        ("manifest.json", dumps({"format": "repro-bundle", "version": 9}).encode()),
        ("events.jsonl", b"not json\n"), ("processes.jsonl", base["processes.jsonl"] * 2)]
    out["crafted-duplicate-members"] = zstd(tar_bytes(dup))
    dup_first = [("events.jsonl", b"[[[\n"), ("host.json", b"[]")] + [(n, base[n]) for n in MEMBERS]
    out["crafted-duplicate-bad-first"] = zstd(tar_bytes(dup_first))
    names = ["../manifest.json", "/manifest.json", "./manifest.json", "manifest.json/",
             "x/../manifest.json", "manifest.json\u001b[2J", "MANIFEST.JSON"]
    out["crafted-names-dotdot-absolute"] = zstd(tar_bytes(
        [(n, base["manifest.json"]) for n in names] + [("/" + n, base[n]) for n in MEMBERS[1:]]))
    out["crafted-names-dotdot-plus-real"] = zstd(tar_bytes(
        [("../" + n, b"[[[[") for n in MEMBERS] + [(n, base[n]) for n in MEMBERS] +
        [("/etc/passwd", b"root:x:0:0\n"), ("../../tmp/x", b"x")]))
    out["crafted-many-members"] = zstd(tar_bytes(
        [("pad-%04d" % i, b"") for i in range(2000)] + [(n, base[n]) for n in MEMBERS]))
    out["crafted-member-types"] = zstd(tar_bytes(special_members(base)))
    out["crafted-long-line"] = pack(dict(base, **{"events.jsonl": b'{"seq":1,"path":"' +
                                                  b"a" * (2 << 20) + b'"}\n'}))
    return out


def special_members(base):
    """Members named like the real ones that are not regular files."""
    def info(name, kind, link=""):
        t = tarfile.TarInfo(name)
        t.type, t.linkname = kind, link
        return t
    return [
        (info("manifest.json", tarfile.DIRTYPE), None),
        (info("events.jsonl", tarfile.SYMTYPE, "/etc/passwd"), None),
        (info("processes.jsonl", tarfile.LNKTYPE, "manifest.json"), None),
        (info("host.json", tarfile.FIFOTYPE), None),
        (info("files.jsonl", tarfile.CHRTYPE), None),
    ] + [(n, base[n]) for n in MEMBERS]


def process_shapes(base):
    """Process trees no recorder writes: long chains, cycles, reused pids."""
    out = {}
    first = lines(base, "processes.jsonl")[0]
    n = 10000
    chain = [dict(first, pid=1000, ppid=0, start_ns=0, end_ns=n + 1)]
    chain += [{"pid": 1000 + i, "ppid": 999 + i, "start_ns": i, "end_ns": i + 1,
               "exit": {"code": i % 3}} for i in range(1, n)]
    events = [{"seq": i, "t_ns": i, "pid": 1000 + i * 97 % n, "syscall": "openat",
               "path": "/x/%d" % (i % 50), "ret": -1, "errno": "ENOENT"} for i in range(1, 2001)]
    man = dict(json.loads(base["manifest.json"]), counts={"events": len(events), "failed": 2000,
                                                         "processes": n})
    out["crafted-fork-chain-10000"] = pack(dict(base, **{
        "processes.jsonl": jsonl(chain), "events.jsonl": jsonl(events),
        "manifest.json": dumps(man).encode()}))
    trees = {
        "self-parent": [{"pid": 5, "ppid": 5}, {"pid": 6, "ppid": 6, "execs": [{"argv": ["a"]}]}],
        "cycle": [{"pid": 5, "ppid": 7}, {"pid": 6, "ppid": 5}, {"pid": 7, "ppid": 6}],
        "reused-pid": [{"pid": 5, "ppid": 0, "start_ns": 10}, {"pid": 5, "ppid": 5, "start_ns": 5},
                       {"pid": 5, "ppid": 0, "start_ns": 1}, {"pid": 6, "ppid": 5}],
        "pid-extremes": [{"pid": 0, "ppid": 0}, {"pid": -1, "ppid": 0},
                         {"pid": 2 ** 31, "ppid": -1}, {"pid": 2 ** 32, "ppid": 2 ** 31},
                         {"pid": 2 ** 63 - 1, "ppid": -2 ** 63}],
        "wide": [{"pid": 1, "ppid": 0}] + [{"pid": i, "ppid": 1, "execs": [
            {"t_ns": i, "path": "/bin/x", "argv": ["x", str(i)]}]} for i in range(2, 3000)],
        "deep-execs": [{"pid": 1, "ppid": 0, "execs": [
            {"t_ns": 0, "path": "/bin/sh", "argv": man["argv"]}] + [
            {"t_ns": i, "path": "/bin/sh", "argv": ["sh", "-c", "exec %d" % i]}
            for i in range(1, 5000)]}],
        # manifest.json "argv" is not the first exec: refused (docs/bundle-format.md)
        "command-differs": [{"pid": 1, "ppid": 0, "execs": [
            {"t_ns": 0, "path": "/bin/sh", "argv": ["sh", "-c", "not the manifest's"]}]}],
    }
    for name, procs in trees.items():
        ev = [{"seq": i + 1, "t_ns": -i, "pid": p.get("pid"), "syscall": "execve",
               "path": "/bin/x", "ret": -1, "errno": "EACCES"} for i, p in enumerate(procs[:500])]
        out["crafted-procs-" + name] = pack(dict(base, **{"processes.jsonl": jsonl(procs),
                                                           "events.jsonl": jsonl(ev)}))
    return out


def event_shapes(base):
    """Event streams in orders and amounts no recorder writes."""
    out = {}
    evs = lines(base, "events.jsonl")
    files = lines(base, "files.jsonl")
    out["crafted-events-reversed"] = pack(dict(base, **{"events.jsonl": jsonl(evs[::-1]),
                                                         "files.jsonl": jsonl(files[::-1])}))
    out["crafted-events-dup-seq"] = pack(dict(base, **{"events.jsonl": jsonl(
        [dict(e, seq=1) for e in evs] + [dict(e, seq=-5) for e in evs])}))
    out["crafted-events-unknown-pids"] = pack(dict(base, **{"events.jsonl": jsonl(
        [dict(e, pid=100000 + i, t_ns=-i) for i, e in enumerate(evs)])}))
    many = [{"seq": i, "t_ns": i, "pid": i, "syscall": "connect", "ret": -1,
             "errno": "ECONNREFUSED", "addr": {"family": "AF_INET", "ip": "10.0.0.%d" % (i % 256),
                                               "port": i % 65536}} for i in range(1, 8001)]
    out["crafted-events-8000-unknown-procs"] = pack(dict(base, **{"events.jsonl": jsonl(many)}))
    empty = b"{}\n" * 20000
    out["crafted-events-empty-objects"] = pack(dict(base, **{
        "events.jsonl": empty, "processes.jsonl": empty[:3000], "files.jsonl": empty[:3000],
        "network.jsonl": empty[:3000]}))
    failed_paths = [{"seq": i, "t_ns": i, "pid": evs[0]["pid"], "syscall": "openat",
                     "path": "/deep/" + "d/" * (i % 60) + "f", "ret": -1,
                     "errno": ["ENOENT", "EACCES", "ENOTDIR", "ELOOP", "EROFS"][i % 5]}
                    for i in range(1, 1500)]
    anc = [{"path": "/deep/" + "d/" * j, "meta": {"type": "dir", "mode": "0700", "uid": j,
                                                   "gid": j}} for j in range(60)]
    frows = [{"path": e["path"], "ops": ["read", "create"], "first": e["errno"],
              "last": e["errno"], "errno": e["errno"], "calls": 1, "meta": None,
              "ancestors": anc[:e["seq"] % 60], "mount": {"mount_point": "/deep",
                                                        "fstype": "ext4", "options": ["ro"]}}
             for e in failed_paths[:60]]
    out["crafted-events-failed-paths"] = pack(dict(base, **{"events.jsonl": jsonl(failed_paths),
                                                             "files.jsonl": jsonl(frows)}))
    return out


def network_shapes(base):
    out = {}
    rows = [
        {"kind": "dns", "name": "a" * 300, "qtype": "A", "outcome": "answered",
         "answers": [{}, {"ip": 1}, "x", None, {"ip": "1.2.3.4"}] * 50, "tries": 2 ** 63 - 1},
        {"kind": "dns", "outcome": "nxdomain", "server": {"family": "AF_INET6", "ip": "::1",
                                                          "port": -1}, "dur_ns": -2 ** 63},
        {"kind": "connect", "syscall": "connect", "outcome": "refused", "errno": "ECONNREFUSED",
         "addr": {"family": "AF_UNIX", "abstract": "\u001b[2J"}, "pid": -1, "dur_ns": 2 ** 63 - 1},
        {"kind": "connect", "addr": {"family": "AF_INET", "ip": None, "port": "80"},
         "outcome": None, "name": ["x"]},
        {"kind": "bind", "addr": [], "outcome": "ok"},
        {"kind": "unknown-kind", "addr": {"family": "AF_PACKET"}},
        {"kind": "dns", "answers": {}, "transport": 5, "tries": "3"},
    ]
    out["crafted-network-odd"] = pack(dict(base, **{"network.jsonl": jsonl(rows * 3)}))
    return out


def crafted(base):
    out = {}
    for make in (wrong_types, manifest_shapes, line_shapes, string_shapes, archive_shapes,
                 process_shapes, event_shapes, network_shapes):
        out.update(make(base))
    return out


def pair(a, b):
    return struct.pack("<I", len(a)) + a + b


def write_all(target_dir, files):
    os.makedirs(target_dir, exist_ok=True)
    for name in os.listdir(target_dir):
        if name.startswith(("crafted-", "pair-")) and name not in files:
            os.unlink(os.path.join(target_dir, name))
    for name, data in files.items():
        path = os.path.join(target_dir, name)
        try:
            with open(path, "rb") as f:
                if f.read() == data:
                    continue
        except FileNotFoundError:
            pass
        with open(path, "wb") as f:
            f.write(data)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--record":
        record(sys.argv[2])
    elif len(sys.argv) != 1:
        sys.exit(__doc__)
    real_dir = os.path.join(CORPUS, "reader")
    real = {}
    for name in sorted(os.listdir(real_dir)):
        if name.startswith("real-"):
            with open(os.path.join(real_dir, name), "rb") as f:
                real[name] = f.read()
    if BASE not in real:
        sys.exit("make_corpus: no %s: run make_corpus.py --record REPRO first" % BASE)
    shapes = crafted(unpack(real[BASE]))
    big = [n for n, d in shapes.items() if len(d) > 64 * 1024]
    if big:
        sys.exit("make_corpus: larger than 64 KiB: %s" % " ".join(big))
    for target in BUNDLE_TARGETS:
        files = dict(shapes)
        if target != "reader":
            files.update(real)
            # the 2 MiB line only tests the reader's line buffer
            files.pop("crafted-long-line", None)
        write_all(os.path.join(CORPUS, target), files)
    files = dict(real)
    files["pair-cat-present-missing"] = pair(real["real-cat-present"], real["real-cat-missing"])
    files["pair-cat-missing-present"] = pair(real["real-cat-missing"], real["real-cat-present"])
    files["pair-ls-python"] = pair(real["real-ls-enoent"], real["real-python-enoent"])
    files["pair-children-signal"] = pair(real["real-sh-children"], real["real-sh-signal"])
    files["pair-empty-base"] = pair(b"", real[BASE])
    for name, data in shapes.items():
        if name != "crafted-long-line":
            files["pair-base-" + name[len("crafted-"):]] = pair(real[BASE], data)
    write_all(os.path.join(CORPUS, "diff"), files)
    for target in BUNDLE_TARGETS + ("diff",):
        d = os.path.join(CORPUS, target)
        print("%s: %d inputs" % (d, len(os.listdir(d))))


if __name__ == "__main__":
    main()
