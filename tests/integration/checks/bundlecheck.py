"""Helpers for the integration checks: load an extracted bundle, find events,
and report each assertion with the values actually seen.

A check script is run by run_case.sh with these variables set:
  BUNDLE_DIR        the extracted bundle (manifest.json, events.jsonl, ...)
  CASE_TMP          the per-case temp dir, cwd of the runs (@TMP@)
  CASE_PORT         the free port chosen for @PORT@
  CASE_STDOUT/ERR   files with the recorded run's stdout and stderr
  CASE_STATUS       repro's exit status; CASE_BARE_STATUS the bare run's
  CASE_VARIANT      root or user; CASE_UID the uid the runs had
  PROG_DIR          the test programs; SRC_DIR the source tree
  REPRO_BIN         the repro under test; CASE_BUNDLE the bundle file
  CASE_NAME         the row's name in cases.tsv
Exit status of a check: 0 pass, 1 fail, 77 skip.
"""
import json
import os
import signal
import sys

_failures = []


def env(name, default=None):
    value = os.environ.get(name, default)
    if value is None:
        sys.exit("check: %s is not set (run through run_case.sh)" % name)
    return value


TMP = env("CASE_TMP", "")
STATUS = int(env("CASE_STATUS", "0"))
UID = int(env("CASE_UID", str(os.getuid())))


def read_text(name):
    with open(env(name), encoding="utf-8", errors="replace") as f:
        return f.read()


def stdout():
    return read_text("CASE_STDOUT")


def stderr():
    return read_text("CASE_STDERR")


def norm(path):
    """Drop "." segments and doubled slashes; keep ".." as written."""
    if not isinstance(path, str):
        return path
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return "/" + "/".join(parts) if path.startswith("/") else "/".join(parts)


def canon(path):
    """What repro records as "path" for an absolute path: its directory
    resolved (realpath), its last component as written."""
    d, name = os.path.split(path.rstrip("/") or "/")
    if name in ("", ".", ".."):
        return os.path.realpath(path)
    return os.path.join(os.path.realpath(d), name)


def _load_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as e:
                    sys.exit("check: %s:%d is not JSON: %s" % (path, n, e))
    return rows


class Bundle:
    def __init__(self, directory=None):
        d = directory or env("BUNDLE_DIR")
        with open(os.path.join(d, "manifest.json"), encoding="utf-8") as f:
            self.manifest = json.load(f)
        self.events = _load_jsonl(os.path.join(d, "events.jsonl"))
        self.processes = _load_jsonl(os.path.join(d, "processes.jsonl"))
        out = os.path.join(d, "output.jsonl")
        self.output = _load_jsonl(out) if os.path.exists(out) else []
        with open(os.path.join(d, "trace.txt"), encoding="utf-8", errors="replace") as f:
            self.trace = f.read()

    def find(self, syscall=None, path=None, errno=None, ok=None, pred=None, **keys):
        """Events matching all given criteria.

        syscall: a name or a tuple of names; path: compared after norm();
        errno: a name, or a tuple of names; ok=True: ret >= 0, ok=False:
        ret == -1; other keys compare equal; pred(ev) for the rest.
        """
        out = []
        for ev in self.events:
            if syscall is not None and ev.get("syscall") not in _tuple(syscall):
                continue
            if path is not None and norm(ev.get("path")) != norm(path):
                continue
            if errno is not None and ev.get("errno") not in _tuple(errno):
                continue
            if ok is True and not (isinstance(ev.get("ret"), int) and ev["ret"] >= 0):
                continue
            if ok is False and ev.get("ret") != -1:
                continue
            if any(ev.get(k) != v for k, v in keys.items()):
                continue
            if pred is not None and not pred(ev):
                continue
            out.append(ev)
        return out

    def about(self, path):
        """Every event naming path (as path or newpath), for failure messages."""
        p = norm(path)
        return [ev for ev in self.events
                if norm(ev.get("path")) == p or norm(ev.get("newpath")) == p]

    def process(self, pid):
        for p in self.processes:
            if p.get("pid") == pid:
                return p
        return None

    def exec_process(self, path):
        """The processes that exec'd path, in start order."""
        return [p for p in self.processes
                if any(norm(x.get("path")) == norm(path) for x in p.get("execs") or [])]


def _tuple(v):
    return v if isinstance(v, tuple) else (v,)


def short(obj, limit=600):
    text = json.dumps(obj, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "..."


def expect(cond, what, seen=None):
    """Record one assertion; print it with what was seen when it fails."""
    if cond:
        print("  ok   %s" % what)
    else:
        print("  FAIL %s" % what)
        if seen is not None:
            print("       seen: %s" % short(seen))
        _failures.append(what)
    return bool(cond)


def expect_one(found, what, context=None):
    """At least one event found; returns the first (or None)."""
    expect(len(found) > 0, what, None if found else context)
    return found[0] if found else None


def expect_exit(bundle, code=None, sig=None):
    """manifest exit and repro's own status agree with the expectation."""
    ex = bundle.manifest.get("exit")
    if sig is not None:
        num = getattr(signal, sig)
        expect(isinstance(ex, dict) and ex.get("signal") == sig,
               "manifest exit.signal == %s" % sig, ex)
        expect(STATUS == 128 + num, "repro exited 128+%d = %d" % (num, 128 + num), STATUS)
    else:
        expect(isinstance(ex, dict) and ex.get("code") == code,
               "manifest exit.code == %d" % code, ex)
        expect(STATUS == code, "repro exited %d" % code, STATUS)


# Paths that are probes whatever explain thinks: an independent list, so that
# a regression in explain's noise rules shows up here.
_PROBES = ("/etc/ld.so.preload", "/glibc-hwcaps/", "/tls/", "/__pycache__/", ".pyc",
           "site-packages", "dist-packages", "pyvenv.cfg", "._pth", "pybuilddir.txt",
           "/lib-dynload", "/locale/", "/gconv/", "/terminfo/", "/nscd/")


def explain(*args):
    """`repro explain --json [ARGS] BUNDLE` as a dict (exit 0 expected)."""
    import subprocess
    cmd = [env("REPRO_BIN"), "explain", "--json"] + list(args) + [env("CASE_BUNDLE")]
    out = subprocess.run(cmd, capture_output=True, text=True)
    expect(out.returncode == 0, "repro explain --json exits 0", out.stderr)
    try:
        return json.loads(out.stdout)
    except ValueError:
        expect(False, "repro explain --json prints JSON", out.stdout[:300])
        return {"findings": []}


def is_probe(finding):
    text = json.dumps(finding.get("path") or "") + json.dumps(
        (finding.get("evidence") or {}).get("network") or "")
    return any(p in text for p in _PROBES)


def expect_cause(what, pred):
    """explain's finding #1 satisfies pred, and no probe is in its top 3."""
    doc = explain()
    found = doc.get("findings") or []
    expect(bool(found) and pred(found[0]), "explain: finding #1 is " + what,
           [f.get("sentence") for f in found[:3]])
    bad = [f.get("sentence") for f in found[:3] if is_probe(f)]
    expect(not bad, "explain: no probe noise in the top 3", bad)
    return found[0] if found else {}


def said(bundle, pid):
    """output.jsonl's record of pid (what it wrote to stderr), or None."""
    for o in bundle.output:
        if o.get("pid") == pid:
            return o
    return None


def explain_text(*args):
    """`repro explain [ARGS] BUNDLE` as text (exit 0 expected)."""
    import subprocess
    cmd = [env("REPRO_BIN"), "explain"] + list(args) + [env("CASE_BUNDLE")]
    out = subprocess.run(cmd, capture_output=True, text=True)
    expect(out.returncode == 0, "repro explain exits 0", out.stderr)
    return out.stdout


def failures():
    return list(_failures)


def skip(why):
    print("  skip %s" % why)
    sys.exit(77)


def done():
    if _failures:
        print("  %d assertion(s) failed" % len(_failures))
        sys.exit(1)
    sys.exit(0)
