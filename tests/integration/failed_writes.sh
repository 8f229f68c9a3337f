#!/bin/bash
# failed_writes.sh REPRO [root|user]: a write that fails is recorded, with
# the path of its fd and the filesystem's space at that moment, and explain
# names it first (docs/bundle-format.md "events.jsonl": "fd", "path",
# "fd_target", "fs", "size"; docs/explain.md).  Each case runs in a mount
# namespace of its own with a small tmpfs (as the user: inside `unshare -Urm`,
# as deployments run in containers), and compares the program's output and
# status with the same run without repro.
#   1. python3 writes 200,000 bytes to a 64 KiB tmpfs: the write's ENOSPC,
#      its path, the filesystem's 64 KiB and the file's size; explain #1 is
#      that write, "when the write failed", reason disk_full;
#   2. sqlite3 inserts 1 MB into a database on a 128 KiB tmpfs: explain #1
#      is the database's ENOSPC, and says the space after the run too (the
#      rollback freed it);
#   3. `ulimit -f 8` and a 200,000-byte write: EFBIG (python ignores
#      SIGXFSZ), reason file_too_large;
#   4. a write to a pipe nobody reads (EPIPE): "fd_target" pipe:[N], no path;
#   5. writes that work are not recorded (10,000 of them to a file): no
#      write event, and the file's content is the same as without repro.
# With "user" as root: the same as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(realpath "$1")
variant=${2:-root}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ] && [ "${3:-}" != inside ]; then
	stage_for_test_user || exit 77
	run_staged bash "$stage/$(basename "$0")" "$stage/repro" user
	exit $?
fi
if [ "${3:-}" != inside ]; then
	if [ "$(id -u)" = 0 ]; then
		unshare --mount --propagation private true 2>/dev/null || { echo "no mount namespaces: skip"; exit 77; }
		exec unshare --mount --propagation private bash "$0" "$repro" "$variant" inside
	fi
	unshare -Urm true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
	exec unshare -Urm bash "$0" "$repro" "$variant" inside
fi
work=$(mktemp -d /tmp/repro-fwrite.XXXXXX)
trap 'umount "$work/full" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir full
fail=0

# small SIZE: a fresh tmpfs of SIZE on $work/full
small() {
	umount full 2>/dev/null
	mount -t tmpfs -o "size=$1" tmpfs full || { echo "cannot mount tmpfs: skip"; exit 77; }
}

# same NAME SIZE CMD...: CMD bare and under repro (bundle NAME.repro), each on
# a fresh tmpfs of SIZE, print the same output and exit with the same status
same() {
	local name=$1 size=$2 bare rec
	shift 2
	small "$size"
	"$@" >"$name.bare" 2>&1
	bare=$?
	small "$size"
	"$repro" record -o "$name.repro" -- "$@" >"$name.rec" 2>&1
	rec=$?
	check "$name: same status bare ($bare) and under repro ($rec)" [ "$bare" = "$rec" ]
	check "$name: same output bare and under repro" cmp -s "$name.bare" "$name.rec"
}

# py NAME CODE: the events.jsonl, explain --json and explain text of NAME.repro
# given to CODE (python) as ev (list), ex (dict), text (str); CODE asserts
py() {
	local name=$1 code=$2
	mkdir -p "$name.x" && tar --zstd -xf "$name.repro" -C "$name.x" &&
		"$repro" explain --json "$name.repro" >"$name.json" &&
		"$repro" explain "$name.repro" >"$name.txt" &&
		python3 - "$name.x/events.jsonl" "$name.json" "$name.txt" <<EOF
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
ex = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
first = ex["findings"][0] if ex["findings"] else None
$code
EOF
}

# 1. python3 on a full tmpfs
same py_full 64k python3 -c 'open("full/w.bin", "wb").write(b"x" * 200000)'
check "py_full: the program said ENOSPC" grep -q 'Errno 28' py_full.bare
check "py_full: the failed write is recorded with its path and the filesystem's space" py py_full '
w = [e for e in ev if e.get("errno") == "ENOSPC" and e["syscall"] in ("write", "writev")]
assert w, "no failed write"
e = w[0]
assert e["path"].endswith("/full/w.bin"), e
assert e["op"] == "write" and e["fd"] >= 3, e
assert e["fs"]["total_bytes"] == 65536 and e["fs"]["free_bytes"] < 4096, e
assert 0 < e["size"] <= 65536, e'
check "py_full: explain #1 is the write, with the space when it failed" py py_full '
assert first["syscall"] in ("write", "writev") and first["path"].endswith("/full/w.bin"), first
assert first["reason"]["what"] == "disk_full", first
assert first["reason"]["filesystem"]["total_bytes"] == 65536, first
assert "when the write failed" in text.split("\n1. ")[1].split("\n")[0], text'

# 2. sqlite3 on a full tmpfs: the rollback frees what the insert took
same sq_full 128k sqlite3 full/db.sqlite 'create table t(x); insert into t values(randomblob(1000000));'
check "sq_full: sqlite3 said the disk is full" grep -q 'disk is full' sq_full.bare
check "sq_full: explain #1 is the database's ENOSPC, with the space after the run" py sq_full '
assert first["errno"] == "ENOSPC" and "/full/db.sqlite" in first["path"], first
assert first["reason"]["what"] == "disk_full", first
line = text.split("\n1. ")[1].split("\n")[0]
assert "when the write failed" in line and "free after the run" in line, line'

# 3. a file size limit (RLIMIT_FSIZE)
same fbig 1m bash -c 'ulimit -f 8; exec python3 -c "open(\"full/big.bin\", \"wb\").write(b\"x\" * 200000)"'
check "fbig: the program said EFBIG" grep -q 'Errno 27' fbig.bare
check "fbig: explain #1 is the write past the limit" py fbig '
assert first["errno"] == "EFBIG" and first["path"].endswith("/full/big.bin"), first
assert first["reason"]["what"] == "file_too_large", first
assert "RLIMIT_FSIZE" in text, text'

# 4. a pipe nobody reads: no path, what the fd was
same epipe 64k python3 -c 'import os; r, w = os.pipe(); os.close(r); os.write(w, b"x")'
check "epipe: the failed write names a pipe, no path" py epipe '
w = [e for e in ev if e.get("errno") == "EPIPE" and e["syscall"] == "write"]
assert w and w[0]["fd_target"].startswith("pipe:[") and "path" not in w[0], w'

# 5. writes that work leave no event
same ok_writes 8m python3 -c '
import os
fd = os.open("full/ok.bin", os.O_WRONLY | os.O_CREAT, 0o600)
for i in range(10000):
    os.write(fd, b"%09d\n" % i)
os.close(fd)
print(os.path.getsize("full/ok.bin"))'
check "ok_writes: the file has every line" grep -qx 100000 ok_writes.rec
check "ok_writes: no write is recorded" py ok_writes '
assert not [e for e in ev if e["syscall"] in ("write", "writev")], "a write that worked was recorded"'

exit $fail
