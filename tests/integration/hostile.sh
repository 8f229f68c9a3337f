#!/bin/bash
# hostile.sh REPRO: crafted bundles that once made the readers blow up,
# built here from a real recording.  Each reader must finish with its usual
# status and a peak RSS far below what the defect took (docs/errors.md).
#   - a chain of 40,000 forks without execs (pid i+1 child of i): diff once
#     grew each label from its parent's, 5.4 GB for this input
#   - a run whose argv and paths carry ESC, OSC, CSI (as UTF-8 U+009B and as
#     a raw 0x9B byte) and BEL: no view may let one reach the terminal, and
#     --json output is ASCII
#   - a path with DEL, a C1 control and a bidirectional override: every
#     --json output and export are printable ASCII (no raw DEL either)
#   - a FIFO nobody writes to as the bundle path (open(2) blocked for ever):
#     one line, exit 2; a pipe (<(cat B)) is read like the file
#   - a manifest "argv" that is not the first exec (show one command, replay
#     another): every reader refuses it in one line, replay runs nothing
#   - replay of a bundle whose manifest says "net": "host", without --net
#     host: the run has loopback only (the server here sees nothing)
#   - replay of a command that writes to /tmp and /var/tmp: the writes work
#     and land in the overlays, not on this machine
# (bundle_limits.sh: the read and memory limits, duplicate members, one pass;
# replay.sh: the command shown whole and quoted, an escape and a word of
# 5,000 spaces with a tail, nothing run off a terminal without --yes,
# rule keys in a bundle's words, a write outside the overlays refused)
set -u
. "$(dirname "$0")/lib.sh"
repro=$(realpath "$1")
work=$(mktemp -d /tmp/repro-hostile.XXXXXX)
tmpw=/tmp/$(basename "$work").w vtmpw=/var/tmp/$(basename "$work").w
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work" "$tmpw" "$vtmpw"' EXIT
cd "$work" || exit 1
fail=0
# peak RSS in MiB of one command, and its status: "STATUS MIB"
peak() {
	/usr/bin/python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$@"
}

"$repro" record -o base.repro -- sh -c 'exit 0' >/dev/null 2>&1 || { echo "cannot record: skip"; exit 77; }
mkdir chain && tar --zstd -xf base.repro -C chain || exit 1
/usr/bin/python3 - chain <<'PY'
import json, os, sys
d, n = sys.argv[1], 40000
m = json.load(open(os.path.join(d, "manifest.json")))
with open(os.path.join(d, "processes.jsonl"), "w") as f:
    f.write(json.dumps({"pid": 1000, "ppid": 0, "start_ns": 0, "end_ns": n + 1, "exit": {"code": 0},
                        "execs": [{"t_ns": 1, "path": "/bin/sh", "argv": m["argv"]}]}) + "\n")
    for i in range(1, n):
        f.write(json.dumps({"pid": 1000 + i, "ppid": 999 + i, "start_ns": i, "end_ns": i + 1,
                            "exit": {"code": 0}}) + "\n")
m["counts"]["processes"] = n
json.dump(m, open(os.path.join(d, "manifest.json"), "w"))
PY
# in the order manifest.json "members" lists
(cd chain && tar --zstd --format=pax -cf ../chain.repro $(/usr/bin/python3 -c \
	'import json; print(" ".join(json.load(open("manifest.json"))["members"]))')) || exit 1
for cmd in "diff chain.repro chain.repro" "explain chain.repro" "show chain.repro"; do
	read -r status mib < <(peak "$repro" $cmd)
	check "$cmd (a chain of 40,000 forks): exit 0, peak RSS ${mib} MiB < 1 GiB (5.4 GB before)" \
		test "$status" = 0 -a "$mib" -lt 1024
done
evil=$(printf 'x\033]0;pwned\007\302\2332J\2332J\033[31m')
"$repro" record -o evil.repro -- ls "/nonexistent-$evil" >/dev/null 2>&1
check "a run with control bytes in argv and paths is recorded" test -s evil.repro
for view in "" --trace --files --net --host --all; do
	for js in "" --json; do
		[ "$view" = --trace ] && [ -n "$js" ] && continue
		"$repro" show $view $js evil.repro >view.out 2>&1
		check "show $view $js: no ESC, BEL, C1 or raw 0x9B reaches the output" \
			/usr/bin/python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
bad = [c for c in (b"\x1b", b"\x07", b"\xc2\x9b", b"\xc2\x9d", b"\x9b") if c in b]
ascii_ok = sys.argv[2] != "--json" or all(x < 0x80 for x in b)
sys.exit(1 if bad or not ascii_ok else 0)' view.out "$js"
	done
done
"$repro" explain evil.repro >view.out 2>&1
check "explain: no control byte reaches the output" \
	/usr/bin/python3 -c 'import sys; b = open("view.out", "rb").read(); sys.exit(any(c in b for c in (b"\x1b", b"\x07", b"\xc2\x9b", b"\x9b")))'

odd=$(printf 'y\177\302\205\342\200\256gnp.exe')
"$repro" record -o odd.repro -- ls "/nonexistent-$odd" >/dev/null 2>&1
for args in "show --json" "show --files --json" "explain --json" "export"; do
	# shellcheck disable=SC2086
	"$repro" $args odd.repro >view.out 2>&1
	check "$args of a path with DEL, C1 and a bidi override: printable ASCII only" \
		/usr/bin/python3 -c 'import sys; b = open("view.out", "rb").read(); sys.exit(not b or any(x >= 0x7f or (x < 0x20 and x not in (9, 10)) for x in b))'
done

mkfifo fifo.repro
for cmd in show explain; do
	timeout 20 "$repro" $cmd fifo.repro >out.txt 2>err.txt
	rc=$?
	check "$cmd on a FIFO nobody writes to: exit 2 at once, one 'repro:' line" \
		sh -c "test $rc = 2 && test \$(wc -l <err.txt) = 1 && grep -q '^repro: .fifo.repro. is empty' err.txt"
done
"$repro" show base.repro >file.txt 2>&1
"$repro" show <(cat base.repro) >out.txt 2>err.txt
rc=$?
check "show on a pipe: exit 0, what the file shows" sh -c "test $rc = 0 && cmp -s file.txt out.txt"
"$repro" show /dev/stdin <base.repro >out.txt 2>err.txt
check "show /dev/stdin redirected from a file reads it" test $? = 0

# manifest.json "argv" that is not the first process's first exec: explain
# would name one command and replay run another.  Every reader refuses it
# in one line, before any output, and nothing runs.
mkdir argv && tar --zstd -xf base.repro -C argv || exit 1
/usr/bin/python3 - argv "$work/marker" <<'PY'
import json, os, sys
path = os.path.join(sys.argv[1], "manifest.json")
m = json.load(open(path))
m["argv"] = ["sh", "-c", "touch '%s'" % sys.argv[2]]
json.dump(m, open(path, "w"))
PY
(cd argv && tar --zstd --format=pax -cf ../argv.repro $(/usr/bin/python3 -c \
	'import json; print(" ".join(json.load(open("manifest.json"))["members"]))')) || exit 1
want="repro: 'argv.repro' is not a consistent repro bundle: manifest.json \"argv\" is not the first process's first exec (processes.jsonl line 1)"
for cmd in "show" "show --host" "show --host --json" "show --net" "show --files" "show --trace" \
	"show --all" "explain" "explain --json" "diff argv.repro base.repro" "diff base.repro argv.repro" \
	"export" "report" "replay --simulate" "replay --yes --no-overlay" "replay --yes" "replay"; do
	case $cmd in diff*) args=$cmd ;; *) args="$cmd argv.repro" ;; esac
	timeout 60 "$repro" $args >out.txt 2>err.txt
	rc=$?
	# replay names the bundle by its full path
	check "$cmd of a bundle whose manifest argv is not its first exec: exit 2, the one line, no output" \
		sh -c "test $rc = 2 && test ! -s out.txt && test \"\$(sed \"s|'\$2/|'|\" err.txt)\" = \"\$1\"" \
		sh "$want" "$work"
done
check "replay of that bundle ran nothing" test ! -e "$work/marker" -a ! -e argv.replay.repro
"$repro" show --host <(cat argv.repro) >out.txt 2>err.txt
rc=$?
check "show --host of that bundle from a pipe: exit 2, the one line" \
	sh -c "test $rc = 2 && test ! -s out.txt && grep -q 'is not a consistent repro bundle' err.txt && test \$(wc -l <err.txt) = 1"
"$repro" show --host base.repro >file.txt 2>&1
"$repro" show --host <(cat base.repro) >out.txt 2>err.txt
rc=$?
check "show --host of a consistent bundle from a pipe: exit 0, what the file shows" \
	sh -c "test $rc = 0 && cmp -s file.txt out.txt"

# replay of a bundle whose manifest asks for this machine's network: loopback only all the same
members_of() { /usr/bin/python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["members"]))' "$1"; }
if command -v curl >/dev/null; then
	mkdir www && echo hi >www/index.html
	port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	/usr/bin/python3 -m http.server "$port" --bind 127.0.0.1 --directory www >/dev/null 2>>server.log &
	for _ in $(seq 100); do curl -s "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.05; done
	: >server.log
	"$repro" record -o net0.repro -- curl -sS -o /dev/null "http://127.0.0.1:$port/" >/dev/null 2>&1
	rec=$?
	mkdir net && tar --zstd -xf net0.repro -C net || exit 1
	/usr/bin/python3 - net/manifest.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m.setdefault("options", {})["net"] = "host"
json.dump(m, open(sys.argv[1], "w"))
PY
	(cd net && tar --zstd --format=pax -cf ../net.repro $(members_of manifest.json)) || exit 1
	"$repro" replay --yes net.repro </dev/null >net.out 2>net.err
	rc=$?
	check "replay of a bundle whose manifest says net host, without --net host: loopback only (curl exit $rec, then $rc), said so, the server here saw one request (the recording's)" \
		sh -c "[ $rec = 0 ] && [ $rc = 7 ] && grep -q '^  network:     none but loopback' net.err &&
			[ \$(grep -c '\"GET / ' server.log) = 1 ]" || cat net.err server.log
fi

# replay of a command that writes to /tmp and /var/tmp: into the overlays, not here
"$repro" record -o tmpw.repro -- sh -c 'echo x >"$1" && echo y >"$2"' sh "$tmpw" "$vtmpw" >/dev/null 2>&1
rec=$?
rm -f "$tmpw" "$vtmpw"
"$repro" replay --yes tmpw.repro </dev/null >tmpw.out 2>tmpw.err
rc=$?
check "replay of writes to /tmp and /var/tmp: they work (exit $rec, then $rc), in overlays said so, neither file is here" \
	sh -c "[ $rec = 0 ] && [ $rc = 0 ] && [ ! -e '$tmpw' ] && [ ! -e '$vtmpw' ] &&
		grep -q '^  writes:      into throwaway overlays of.* /tmp, /var/tmp' tmpw.err" || cat tmpw.err
exit $fail
