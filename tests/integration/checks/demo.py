"""The demo (examples/startup-failure) under --net=none: missing weights
(openat ENOENT), the CDN connect failing, the cache write (EACCES for an
unprivileged user; allowed for root), exit 1."""
import json
import os

import bundlecheck as bc

b = bc.Bundle()
app = os.path.join(bc.TMP, "app")
weights = os.path.join(app, "cache_hub", "model.pth")
print("demo: bash start_app.sh, as uid %d" % bc.UID)
bc.expect_exit(b, code=1)
bc.expect("model load failed" in bc.stderr() and "startup failed" in bc.stderr(),
          "stderr has 'model load failed' and 'startup failed'", bc.stderr())
bc.expect((b.manifest.get("options") or {}).get("net") == "none", "recorded with --net=none",
          b.manifest.get("options"))
bc.expect_one(b.find(syscall="chdir", path=app, ok=True), "start_app.sh cd'd into the app")
py = bc.expect_one([p for p in b.exec_process("/usr/bin/python3")
                    if any(x.get("argv") == ["python3", "webui.py"] for x in p["execs"])],
                   "a process exec'd /usr/bin/python3 webui.py",
                   [p.get("execs") for p in b.processes])
if py:
    bc.expect(py.get("exit") == {"code": 1}, "python exited 1", py.get("exit"))
miss = bc.expect_one(b.find(syscall=("openat", "open"), path=weights, errno="ENOENT",
                            pred=lambda e: "O_RDONLY" in (e.get("flags") or "")),
                     "openat(%s, O_RDONLY) = -1 ENOENT" % weights, b.about(weights))
cdn = {"family": "AF_INET", "ip": "198.51.100.7", "port": 443}
conn = bc.expect_one(b.find(syscall="connect", addr=cdn, errno="ENETUNREACH"),
                     "connect(198.51.100.7:443) = -1 ENETUNREACH (no network)",
                     b.find(syscall="connect"))


def is_write(e):
    flags = e.get("flags") or ""
    return "O_WRONLY" in flags and "O_CREAT" in flags


if bc.UID != 0:
    save = bc.expect_one(b.find(syscall=("openat", "open"), path=weights, errno="EACCES",
                                pred=is_write),
                         "openat(%s, O_WRONLY|O_CREAT..) = -1 EACCES" % weights,
                         b.about(weights))
else:
    save = bc.expect_one(b.find(syscall=("openat", "open"), path=weights, ok=True,
                                pred=is_write),
                         "root may write the root-owned cache: openat(O_WRONLY|O_CREAT) ok",
                         b.about(weights))
if miss and conn and save:
    bc.expect(miss["seq"] < conn["seq"] < save["seq"],
              "in story order: missing weights, CDN, cache write", [miss, conn, save])

# files.jsonl explains the denied write: the cache directory, its owner and mode, and who ran
d = os.environ.get("BUNDLE_DIR")
files = {f["path"]: f for f in bc._load_jsonl(os.path.join(d, "files.jsonl"))}
host = json.load(open(os.path.join(d, "host.json")))
net = bc._load_jsonl(os.path.join(d, "network.jsonl"))
bc.expect(host.get("uid") == bc.UID, "host.json has the uid the program ran as", host.get("uid"))
w = files.get(weights)
bc.expect(w is not None and "read" in w.get("ops", []) and "create" in w.get("ops", []),
          "files.jsonl has the weights path, read and create", w)
if bc.UID != 0 and w is not None:
    bc.expect(w.get("meta") is None and w.get("errno") == "EACCES",
              "the weights file does not exist and the last try was EACCES", w)
    anc = {a["path"]: a.get("meta") for a in w.get("ancestors", [])}
    cache = anc.get(os.path.dirname(weights)) or {}
    bc.expect(cache.get("type") == "dir" and cache.get("uid") == 0 and cache.get("mode") == "0755",
              "its directory cache_hub is named: a dir owned by uid 0, mode 0755", anc)
cdn_net = [n for n in net if n.get("ip") == "198.51.100.7" and n.get("port") == 443]
bc.expect(len(cdn_net) == 1 and cdn_net[0].get("outcome") == "unreachable",
          "network.jsonl has the CDN attempt, unreachable", net)
if bc.UID != 0:
    bc.expect_cause("the denied create of cache_hub/model.pth, naming the directory's owner and mode",
                    lambda f: f.get("errno") == "EACCES" and f.get("op") == "create"
                    and f.get("path", "").endswith("/cache_hub/model.pth")
                    and (f.get("reason") or {}).get("what") == "permission"
                    and (f.get("reason") or {}).get("path", "").endswith("/cache_hub")
                    and "mode 0755" in f.get("sentence", ""))
else:  # root may write the cache: what failed is the download
    bc.expect_cause("the CDN connect, unreachable under --net=none",
                    lambda f: f.get("kind") == "connect" and f.get("outcome") == "unreachable"
                    and "198.51.100.7:443" in f.get("sentence", ""))
bc.done()
