#!/bin/bash
# files_explain.sh REPRO: files.jsonl holds what explains a failed path:
#  - a missing parent directory: the path and its parent null, the
#    grandparent's metadata;
#  - a symlink chain: each link's target, the final file's metadata;
#  - a read-only bind mount (root only: mount(2) in a private mount
#    namespace): EROFS with the mount's "ro" option.
set -u
repro=$1
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-explain.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir -p top ro && ln -s l2 l1 && ln -s l3 l2 && ln -s real l3 && echo data > real
"$repro" record -o a.repro -- sh -c 'cat top/missing/file; cat l1' >/dev/null 2>&1
tar --zstd -xOf a.repro files.jsonl > a.jsonl || exit 1
ro_case=0
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	ro_case=1
	unshare -m --propagation private sh -c "mount --bind '$work/ro' '$work/ro' && mount -o remount,bind,ro '$work/ro' && \
		'$repro' record -o '$work/b.repro' -- sh -c 'echo x > $work/ro/new'" >/dev/null 2>&1
	tar --zstd -xOf b.repro files.jsonl > b.jsonl || exit 1
fi
/usr/bin/python3 - "$work" "$ro_case" <<'PY'
import json, sys
work, ro_case = sys.argv[1], sys.argv[2] == "1"
def load(name):
    return {o["path"]: o for o in map(json.loads, open(name))}
a = load("a.jsonl")
fail = 0
def check(what, ok, got):
    global fail
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else "  got: %r" % (got,)))
    fail |= not ok
f = a.get(work + "/top/missing/file", {})
anc = {x["path"]: x["meta"] for x in f.get("ancestors", [])}
check("missing parent: the file is ENOENT with meta null", f.get("errno") == "ENOENT" and f.get("meta") is None, f)
check("missing parent: top/missing is null, top is a dir", work + "/top/missing" in anc and anc[work + "/top/missing"] is None
      and (anc.get(work + "/top") or {}).get("type") == "dir", anc)
l1 = a.get(work + "/l1", {})
check("symlink chain: l1 is a symlink to l2", (l1.get("meta") or {}).get("type") == "symlink"
      and (l1.get("meta") or {}).get("target") == "l2", l1)
check("symlink chain: l1 was read", "read" in l1.get("ops", []) and l1.get("last") == "ok", l1)
if ro_case:
    b = load("b.jsonl")
    n = b.get(work + "/ro/new", {})
    m = n.get("mount") or {}
    check("read-only bind mount: EROFS", n.get("errno") == "EROFS", n)
    check("read-only bind mount: its mount is ro", m.get("mount_point") == work + "/ro" and "ro" in m.get("options", []), m)
else:
    print("read-only bind mount: needs root, not checked")
sys.exit(fail)
PY
