"""The true cause of each corpus scenario (corpus.tsv, corpus.sh): explain's
finding #1, in its text and in --json findings[0]; no probe in the top 3;
for diff_* scenarios, `repro diff`'s "Most likely cause" names it too.

Usage: corpus.py NAME, with the variables corpus.sh sets (REPRO_BIN,
CASE_BUNDLE, CORPUS_WORK, CASE_PORT ...).  It prints what explain put
first, whatever the outcome, so that a run of the corpus gives the figures.
"""
import json
import os
import subprocess
import sys

import bundlecheck as bc

NAME = sys.argv[1]
WORK = bc.env("CORPUS_WORK")
PORT = int(bc.env("CASE_PORT"))
REPRO = bc.env("REPRO_BIN")

# Probe shapes (issue 12, section 3), independent of explain's own rules:
# the loader's and interpreters' searches in any prefix, and the optional
# configuration files that programs look for and do without.
PROBES = bc._PROBES + (
    "/haswell/", "/x86_64/", "/avx512_1/", "/ld.so.cache", ".pth", "/selinux", "/etc/selinux/",
    "/.netrc", "/_netrc", "/dev/log", "locale-langpack", "/etc/gnutls/", "gcrypt", "openssl.cnf",
    "/userdb", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf", "/lib/python3",
)


def is_probe(f):
    text = json.dumps(f.get("path") or "") + json.dumps(
        (f.get("evidence") or {}).get("network") or "")
    return any(p in text for p in PROBES)


def p(*parts):
    return os.path.join(WORK, *parts)


def file_cause(path, errnos, ops=None):
    """A file (or exec) finding about path (a suffix when it starts without
    "/") with one of errnos."""
    errnos = errnos if isinstance(errnos, tuple) else (errnos,)

    def pred(f):
        fp = f.get("path") or ""
        where = fp == path if path.startswith("/") else fp.endswith("/" + path)
        return (f.get("kind") in ("file", "exec") and where and f.get("errno") in errnos
                and (ops is None or f.get("op") in ops))
    return pred


def told(f):
    """The finding's sentence after the process that it is about (whose
    argv may hold any word, a URL's host among them)."""
    sentence = f.get("sentence") or ""
    cut = sentence.find(") ")
    return sentence[cut + 2:] if cut >= 0 else sentence


def net_cause(kinds, *words):
    """A network finding of one of kinds whose record or sentence names
    every word."""
    def pred(f):
        text = json.dumps(f.get("reason") or {}) + json.dumps(
            (f.get("evidence") or {}).get("network") or "") + told(f)
        return f.get("kind") in kinds and all(w in text for w in words)
    return pred


def said(f, *words):
    return all(w in told(f) for w in words)


def said_cause(path, *words):
    """A "said" finding (nothing failed, the program said why) that names
    path (a suffix) and every word."""
    def pred(f):
        return (f.get("kind") == "said" and (f.get("path") or "").endswith("/" + path) and
                all(w in (f.get("sentence") or "") for w in words))
    return pred


def any_of(*preds):
    return lambda f: any(q(f) for q in preds)


# name: (what the true cause is, predicate on findings[0], exit status test,
#        words its stdout or stderr must hold, words diff's cause must hold or None)
CASES = {
    "pg_data_owner": (
        "postgres (uid postgres) denied the root-owned 0700 data directory: "
        "DATA/postgresql.conf EACCES",
        file_cause(p("pg", "data", "postgresql.conf"), "EACCES"),
        lambda s: s == 2, ["Permission denied"], None),
    "pg_data_readonly": (
        "postmaster.pid cannot be created on the read-only mount: EROFS",
        file_cause(p("pg", "data", "postmaster.pid"), "EROFS"),
        lambda s: s != 0, ["Read-only file system"], None),
    "pg_config_missing": (
        "the config_file that -c names does not exist: ENOENT",
        file_cause("/etc/postgresql/repro-corpus/main/postgresql.conf", "ENOENT"),
        lambda s: s != 0, ["No such file or directory"], None),
    "redis_dir_unwritable": (
        "mkdir DIR/appendonlydir in the root-owned 0755 dir: EACCES",
        file_cause(p("redis-data", "appendonlydir"), "EACCES"),
        lambda s: s != 0, ["Permission denied"], None),
    "redis_port_taken": (
        "bind 127.0.0.1:PORT: address in use",
        net_cause(("bind",), str(PORT), "address_in_use"),
        lambda s: s != 0, ["Address already in use"], None),
    "nginx_cert_missing": (
        "the ssl_certificate file does not exist: ENOENT",
        file_cause(p("ngx", "certs", "site.crt"), "ENOENT"),
        lambda s: s != 0, ["site.crt"], None),
    "nginx_port_taken": (
        "bind 127.0.0.1:PORT: address in use",
        net_cause(("bind",), str(PORT), "address_in_use"),
        lambda s: s != 0, ["Address already in use"], None),
    "git_clone_netnone": (
        "git.example.com could not be resolved (no network: --net=none)",
        any_of(net_cause(("dns",), "git.example.com"),
               lambda f: f.get("kind") == "connect" and said(f, "git.example.com")),
        lambda s: s != 0, ["git.example.com"], None),
    "git_clone_unreadable": (
        "the root-owned 0700 repository may not be entered: EACCES under repo.git",
        lambda f: (f.get("path") or "").startswith(p("repo.git")) and f.get("errno") == "EACCES",
        lambda s: s != 0, ["repo.git"], None),
    "pip_install_netnone": (
        "pypi.org could not be resolved (no network: --net=none)",
        any_of(net_cause(("dns",), "pypi.org"),
               lambda f: f.get("kind") == "connect" and said(f, "pypi.org")),
        lambda s: s != 0, ["requests"], None),
    # a machine that keeps apt's caches (not a docker-clean image) has the
    # user fail first to remove /var/cache/apt/*.bin: the same cause, not root
    "apt_update_user": (
        "apt's root-owned state may not be changed by a user: EACCES (the lists' lock,"
        " or the package caches apt removes first)",
        any_of(file_cause("/var/lib/apt/lists/lock", "EACCES"),
               file_cause("/var/cache/apt/srcpkgcache.bin", "EACCES"),
               file_cause("/var/cache/apt/pkgcache.bin", "EACCES")),
        lambda s: s != 0, ["lock"], None),
    "sqlite_readonly_dir": (
        "app.db cannot be created in the root-owned 0755 dir: EACCES",
        file_cause(p("db", "app.db"), "EACCES"),
        lambda s: s != 0, ["unable to open database"], None),
    "python_shim_venv": (
        "app/config/settings.json does not exist: ENOENT",
        file_cause(p("app", "config", "settings.json"), "ENOENT"),
        lambda s: s == 1, ["settings.json"], None),
    "download_stall_close": (
        "127.0.0.1:PORT accepted, sent nothing for 3 s, then closed the connection",
        lambda f: f.get("kind") != "file" and "127.0.0.1:%d" % PORT in json.dumps(f)
        and "without sending anything" in (f.get("sentence") or ""),
        lambda s: s == 1, ["Remote end closed connection"], None),
    "connect_interrupted": (
        "interrupted by SIGINT while waiting in connect to 127.0.0.1:8080",
        lambda f: "127.0.0.1:8080" in (f.get("sentence") or "") and any(
            w in (f.get("sentence") or "") for w in ("SIGINT", "interrupted")),
        lambda s: s == 130, [], None),
    "program_said_file": (
        "settings.json, which the program named, does not exist: ENOENT "
        "(not the log it did without)",
        file_cause(p("app", "settings.json"), "ENOENT"),
        lambda s: s == 1, ["cannot read settings from"], None),
    "sshd_key_too_open": (
        "nothing fails: sshd reads its 0644 host key and refuses it as too open; "
        "its words, naming the key, are the finding",
        said_cause("ssh_host_ed25519_key"),
        lambda s: s != 0, ["too open"], None),
    "dnsmasq_bad_value": (
        "nothing fails: dnsmasq --test rejects a value of local.conf and names the file",
        said_cause("local.conf"),
        lambda s: s != 0, ["local.conf"], None),
    "weights_empty": (
        "nothing fails: models/weights.bin is empty (0 bytes) and the app says it "
        "could not load it",
        said_cause("models/weights.bin", "an empty file"),
        lambda s: s == 1, ["model load failed"], None),
    "full_disk_cache": (
        "the write of cache/embeddings.npy fails with ENOSPC on a 64 KiB filesystem",
        lambda f: file_cause("cache/embeddings.npy", "ENOSPC")(f) and
        "when the write failed" in (f.get("sentence") or ""),
        lambda s: s == 1, ["No space left on device"], None),
    "venv_module_missing": (
        "nothing fails but probes: the venv has no module webapp, as python says "
        "(not the X_OK check of venv/bin/activate)",
        lambda f: f.get("kind") == "said" and
        "No module named webapp" in ((f.get("said") or {}).get("line") or ""),
        lambda s: s == 1, ["No module named webapp"], None),
    "diff_redis_dir": (
        "mkdir DIR/appendonlydir: ok in A, EACCES in B (the dir is read-only)",
        file_cause(p("redis-data", "appendonlydir"), "EACCES"),
        lambda s: s != 0, ["Permission denied"], ["appendonlydir", "EACCES"]),
    "diff_app_config": (
        "config/settings.json: present in A, missing in B",
        file_cause(p("app", "config", "settings.json"), "ENOENT"),
        lambda s: s == 1, ["not found"], ["settings.json"]),
    "diff_sqlite_dir": (
        "app.db: created in A, EACCES in B (the dir is read-only)",
        file_cause(p("db", "app.db"), "EACCES"),
        lambda s: s != 0, ["unable to open database"], ["app.db", "EACCES"]),
}


def explain_text():
    out = subprocess.run([REPRO, "explain", bc.env("CASE_BUNDLE")], capture_output=True, text=True)
    bc.expect(out.returncode == 0, "repro explain exits 0", out.stderr)
    first = [ln for ln in out.stdout.splitlines() if ln.startswith("1. ")]
    return first[0] if first else ""


def check_diff(words):
    a = os.path.join(WORK, "a.repro")
    out = subprocess.run([REPRO, "diff", a, bc.env("CASE_BUNDLE")], capture_output=True,
                         text=True)
    bc.expect(out.returncode == 1, "repro diff exits 1 (the runs differ)", out.stderr)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("Most likely cause")]
    line = line[0] if line else ""
    print("  diff's most likely cause: %s" % line[:400])
    bc.expect(all(w in line for w in words),
              "diff: the most likely cause names %s" % ", ".join(words), line[:400])
    js = subprocess.run([REPRO, "diff", "--json", a, bc.env("CASE_BUNDLE")], capture_output=True,
                        text=True)
    try:
        cause = json.dumps(json.loads(js.stdout).get("cause"))
    except ValueError:
        cause = ""
    bc.expect(all(w in cause for w in words), "diff --json: cause names %s" % ", ".join(words),
              cause[:400])
    return all(w in line for w in words) and all(w in cause for w in words)


def record_accuracy(rank, diff_ok):
    """One line for ./dev.sh accuracy (REPRO_ACCURACY_OUT, appended): the
    case, its variant, the rank of the true cause among explain's findings
    (null: not among them) and whether diff's cause named it (null: no
    pair)."""
    out = os.environ.get("REPRO_ACCURACY_OUT")
    if not out:
        return
    line = json.dumps({"case": NAME, "variant": bc.env("CASE_VARIANT"), "rank": rank,
                       "diff": diff_ok})
    with open(out, "a") as f:
        f.write(line + "\n")


def main():
    what, pred, status_ok, err_words, diff_words = CASES[NAME]
    print("corpus %s: the true cause is %s" % (NAME, what))
    status = int(bc.env("CASE_STATUS"))
    err = bc.stdout() + bc.stderr()
    bc.expect(status_ok(status), "the program failed as it does without repro (status %d)" % status,
              err[-400:])
    bc.expect(all(w in err for w in err_words), "its output says %s" % err_words, err[-400:])
    doc = bc.explain()
    found = doc.get("findings") or []
    first = found[0] if found else {}
    text1 = explain_text()
    print("  explain's #1: %s" % (first.get("sentence") or "(no finding)")[:600])
    for f in found[1:3]:
        print("  explain's #%d: %s" % (f.get("rank", 0), (f.get("sentence") or "")[:300]))
    bc.expect(bool(first) and pred(first), "explain --json: findings[0] is the true cause",
              first.get("sentence"))
    rank = next((i + 1 for i, f in enumerate(found) if pred(f)), None)
    bc.expect(bool(first) and text1.startswith("1. ") and
              (first.get("sentence") or "")[:80] in text1,
              "explain: the text's finding 1 is the same", text1[:300])
    bad = [f.get("sentence") for f in found[:3] if is_probe(f)]
    bc.expect(not bad, "explain: no probe in the top 3", bad)
    diff_ok = check_diff(diff_words) if diff_words else None
    record_accuracy(rank, diff_ok)
    bc.done()


main()
