#!/bin/bash
# iouring.sh REPRO PROGRAMS: a program that sets up io_uring is flagged in the
# bundle; with --io-uring=deny its io_uring_setup fails with ENOSYS (injected,
# the call does not run) and it falls back to read(2), which is recorded.
set -u
. "$(dirname "$0")/lib.sh"
repro=$1
prog=$2/iouring_fallback
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-iouring.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
echo "twelve bytes" > data.txt
fail=0
events() { tar --zstd -xOf "$1" events.jsonl; }

bare=$("$prog" data.txt)
echo "bare: $bare"
if grep -q "available" <<<"$bare"; then
	"$repro" record -o allow.repro -- "$prog" data.txt >allow.out
	check "allowed: the program behaves as bare" test "$(cat allow.out)" = "$bare"
	check "allowed: io_uring_setup is recorded and succeeded" \
		sh -c "tar --zstd -xOf allow.repro events.jsonl | grep '\"syscall\":\"io_uring_setup\"' | grep -vq errno"
	check "allowed: the manifest warns that io_uring I/O is not recorded" \
		sh -c "tar --zstd -xOf allow.repro manifest.json | grep -q 'io_uring set up by pid'"
else
	echo "io_uring is not available here; only the deny half runs"
fi
"$repro" record --io-uring=deny -o deny.repro -- "$prog" data.txt >deny.out
check "denied: the program saw ENOSYS and fell back" grep -q "ENOSYS, falling back" deny.out
check "denied: it read the file" grep -q "read 13 bytes" deny.out
check "denied: io_uring_setup = -1 ENOSYS, marked injected" \
	sh -c "tar --zstd -xOf deny.repro events.jsonl | grep '\"syscall\":\"io_uring_setup\"' | grep '\"errno\":\"ENOSYS\"' | grep -q '\"injected\":true'"
check "denied: the fallback openat of data.txt is recorded" \
	sh -c "tar --zstd -xOf deny.repro events.jsonl | grep '\"syscall\":\"openat\"' | grep -q '$work/data.txt'"
check "denied: no io_uring warning" sh -c "! tar --zstd -xOf deny.repro manifest.json | grep -q 'io_uring set up'"
exit $fail
