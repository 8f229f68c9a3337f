#!/bin/bash
# files_before.sh REPRO: files.jsonl keeps a path's state from before the
# program first changed it ("before"), next to its state at the end ("meta"):
# a file overwritten then deleted, a file created, a directory made and chmod'ed.
set -u
repro=$1
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-before.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir t && printf 'old\n' > t/a
"$repro" record -o b.repro -- sh -c 'echo new > t/a; echo x > t/b; rm t/a; mkdir t/d; chmod 700 t/d; cat t/b >/dev/null' || exit 1
tar --zstd -xOf b.repro files.jsonl > files.jsonl || exit 1
/usr/bin/python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
f = {}
for line in open("files.jsonl"):
    o = json.loads(line)
    f[o["path"]] = o
fail = 0
def check(what, ok, got):
    global fail
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else "  got: %r" % (got,)))
    fail |= not ok
a, b, d = (f.get(work + "/t/" + n, {}) for n in "abd")
check("t/a existed before (a 4-byte file) and is gone at the end",
      (a.get("before") or {}).get("size") == 4 and a.get("before", {}).get("type") == "file" and a.get("meta") is None, a)
check("t/a was written and deleted", {"write", "delete"} <= set(a.get("ops", [])), a.get("ops"))
check("t/b did not exist before and is a 2-byte file at the end",
      "before" in b and b["before"] is None and (b.get("meta") or {}).get("size") == 2, b)
check("t/d did not exist before and is a 0700 dir at the end",
      "before" in d and d["before"] is None and (d.get("meta") or {}).get("mode") == "0700", d)
check("a path only read has no before", "before" not in f.get("/etc/ld.so.cache", {}), f.get("/etc/ld.so.cache"))
sys.exit(fail)
PY
