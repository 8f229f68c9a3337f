#!/bin/bash
# bundle_limits.sh REPRO: the readers' limits on hostile bundles built here
# from a real recording (docs/bundle-format.md "Reading a hostile bundle").
#   - one pass: show, explain and diff read a bundle from a pipe, and give
#     what they give for the file
#   - a member name twice (tar -x keeps the last copy, a reader the first):
#     refused, also when the copy comes after what the command needs (show,
#     explain, diff, replay --simulate, sweep --from)
#   - members not where manifest.json "members" says: refused
#   - older bundles (no "members", the old order) are still read from a file;
#     from a pipe, one line says to save it first
#   - a 1 GiB member of zeros before the real ones (a 1 MiB file): read
#     once; past --max-read, refused from its header at once
#   - a 60 MB line of [{},{},...] (13 KB compressed) that jansson would
#     expand to 1.5 GB: one line naming the memory limit, under an
#     address-space limit one line naming the memory that ran out
#   - a 100 KB path: printed cut, with its length
set -u
. "$(dirname "$0")/lib.sh"
repro=$(realpath "$1")
work=$(mktemp -d /tmp/repro-limits.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
# one failure line on stderr, starting "repro: " and containing $2, exit status $1
one_line() { test "$rc" = "$1" && test "$(wc -l <err.txt)" = 1 && grep -q "^repro: .*$2" err.txt; }
# status and peak RSS (MiB) of one command: "STATUS MIB"
peak() {
	/usr/bin/python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=open("err.txt", "w"))
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$@"
}
# under AddressSanitizer blocks carry red zones and the shadow maps terabytes
san=0; ldd "$repro" | grep -q libasan && san=1
members() { /usr/bin/python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["members"]))' "$1"; }

"$repro" record -o ok.repro -- sh -c 'cat /etc/hostname >/dev/null; exit 0' >/dev/null 2>&1 || { echo "cannot record: skip"; exit 77; }
"$repro" record -o bad.repro -- sh -c 'cat /nonexistent-config.yaml; exit 3' >/dev/null 2>&1
mkdir x && tar --zstd -xf bad.repro -C x || exit 1
order=$(members x/manifest.json)
check "manifest.json lists the members in archive order" \
	test "$order" = "$(tar --zstd -tf bad.repro | tr '\n' ' ' | sed 's/ $//')"

# ---- one pass: a pipe reads like the file ----
for cmd in show "show --files" "show --net" "show --host" "show --trace" "show --json" explain "explain --json"; do
	"$repro" $cmd bad.repro >file.txt 2>&1
	"$repro" $cmd <(cat bad.repro) >pipe.txt 2>&1
	check "$cmd from a pipe: the same output as from the file" cmp -s file.txt pipe.txt
done
"$repro" diff ok.repro bad.repro >file.txt 2>&1
a=$?
"$repro" diff <(cat ok.repro) <(cat bad.repro) 2>&1 | sed 's|/dev/fd/[0-9]*|X|g' >pipe.txt
b=${PIPESTATUS[0]}
sed -i -e 's#(ok\.repro)#(X)#' -e 's#(bad\.repro)#(X)#' file.txt
check "diff from two pipes: status $a and the output of the files" sh -c "test $a = $b && cmp -s file.txt pipe.txt"

# ---- a member twice ----
cp x/events.jsonl events.copy
(cd x && tar --zstd --format=pax -cf ../dup.repro $order events.jsonl) || exit 1
for cmd in show explain "diff ok.repro"; do
	"$repro" $cmd dup.repro >/dev/null 2>err.txt
	rc=$?
	check "$cmd: a second events.jsonl after trace.txt is refused in one line" \
		one_line 2 "two members are named 'events.jsonl'"
done
# --simulate reads files.jsonl and network.jsonl, and the rest to the end, before it prints
(cd x && tar --zstd --format=pax -cf ../dupfiles.repro $order files.jsonl) || exit 1
for b in dup dupfiles; do
	"$repro" replay --simulate $b.repro >out.txt 2>err.txt
	rc=$?
	m=events.jsonl && [ $b = dupfiles ] && m=files.jsonl
	check "replay --simulate: a second $m is refused in one line, nothing printed" \
		sh -c "$(declare -f one_line); rc=$rc; one_line 2 \"two members are named '$m'\" && test ! -s out.txt"
done
"$repro" sweep --from dupfiles.repro -- sh -c 'exit 0' >out.txt 2>err.txt
rc=$?
check "sweep --from: a second files.jsonl is refused in one line, nothing run" \
	sh -c "$(declare -f one_line); rc=$rc; one_line 2 \"two members are named 'files.jsonl'\" && test ! -s out.txt"
"$repro" show --trace dup.repro >/dev/null 2>err.txt
rc=$?
check "show --trace: the same bundle is refused too" one_line 2 "two members are named"

# ---- members not where the manifest says ----
(cd x && tar --zstd --format=pax -cf ../order.repro manifest.json processes.jsonl host.json events.jsonl \
	network.jsonl files.jsonl trace.txt) || exit 1
"$repro" explain order.repro >/dev/null 2>err.txt
rc=$?
check "explain: members out of the listed order are refused" one_line 2 "manifest.json \"members\" says"

# ---- an older bundle: no "members", the old order ----
mkdir old && cp x/* old/ && /usr/bin/python3 - old/manifest.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); del m["members"]; json.dump(m, open(sys.argv[1], "w"))
PY
# (what the program said, kept since, last: the recording's stderr was /dev/null)
(cd old && tar --zstd --format=pax -cf ../old.repro manifest.json processes.jsonl events.jsonl trace.txt \
	host.json files.jsonl network.jsonl $(ls output.jsonl 2>/dev/null)) || exit 1
"$repro" explain bad.repro >new.txt 2>&1
"$repro" explain old.repro >old.txt 2>&1
check "explain reads an older bundle as it reads the new one" cmp -s new.txt old.txt
"$repro" explain <(cat old.repro) >/dev/null 2>err.txt
rc=$?
check "explain of an older bundle from a pipe: one line, save it first" one_line 2 "save it to a file first"
(cd old && tar --zstd --format=pax -cf ../olddup.repro manifest.json processes.jsonl events.jsonl trace.txt \
	host.json files.jsonl network.jsonl events.jsonl) || exit 1
"$repro" show olddup.repro >/dev/null 2>err.txt
rc=$?
check "show: an older bundle with a member twice is refused" one_line 2 "two members are named"

# ---- 1 GiB of zeros before the real members ----
mkdir zero && cp old/* zero/ && truncate -s 1G zero/aaa-zeros.bin
(cd zero && tar --zstd --format=pax -cf ../zeros.repro aaa-zeros.bin manifest.json processes.jsonl \
	events.jsonl trace.txt host.json files.jsonl network.jsonl) || exit 1
start=$(date +%s%N)
"$repro" show zeros.repro >/dev/null 2>err.txt
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "  show of $(stat -c %s zeros.repro) bytes holding 1 GiB of zeros: $ms ms"
check "show of a bundle with 1 GiB of zeros first: exit 0" test "$rc" = 0
"$repro" show --max-read=256M zeros.repro >/dev/null 2>err.txt
rc=$?
check "show --max-read=256M: refused in one line naming the limit" one_line 2 "read limit of 256 MiB"
"$repro" show --max-read=lots zeros.repro >/dev/null 2>err.txt
rc=$?
check "show --max-read=lots: a bad size is refused in one line" one_line 2 "expected a size"

# ---- an amplifier line ----
mkdir amp && cp x/* amp/ && /usr/bin/python3 - amp/processes.jsonl <<'PY'
import sys
with open(sys.argv[1], "a") as f:
    f.write('{"pid":5,"ppid":1,"x":[' + '{},' * 20000000 + '{}]}\n')
PY
(cd amp && tar --zstd --format=pax -cf ../amp.repro $order) || exit 1
max=$((san ? 3072 : 1536))
for cmd in show explain "diff ok.repro"; do
	read -r rc mib < <(peak "$repro" $cmd amp.repro)
	check "$cmd of a 60 MB line of {} ($(stat -c %s amp.repro) bytes): one line naming the memory limit, peak ${mib} MiB < $max MiB" \
		sh -c "$(declare -f one_line); rc=$rc; one_line 2 'memory limit of 1 GiB' && test $mib -lt $max"
done
[ $san = 1 ] || prlimit --as=$((600 * 1024 * 1024)) "$repro" show --max-memory=8G amp.repro >/dev/null 2>err.txt
rc=$?
[ $san = 1 ] || check "show under a 600 MiB address-space limit: one line, the limit is half of it" one_line 2 "memory limit of 300 MiB"

# ---- a path longer than any real one ----
/usr/bin/python3 - x/events.jsonl <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
ev = json.loads(lines[-1])
ev.update({"seq": ev.get("seq", 0) + 1, "syscall": "openat", "path": "/" + "a" * 102400, "ret": -2, "errno": "ENOENT"})
ev.pop("result_unseen", None)
open(sys.argv[1], "a").write(json.dumps(ev) + "\n")
PY
(cd x && tar --zstd --format=pax -cf ../long.repro $order) || exit 1
"$repro" show --all long.repro >out.txt 2>&1
check "show: a 100 KB path is printed cut, with its length" \
	sh -c "grep -q '\.\.\.\[102401 bytes\]' out.txt && test \$(wc -L <out.txt) -lt 5000"
exit $fail
