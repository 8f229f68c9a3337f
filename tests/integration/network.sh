#!/bin/bash
# network.sh REPRO PROGRAMS [root|user]: network.jsonl on real programs in a
# network namespace this test creates (loopback only), with its own
# resolv.conf pointing at a small DNS responder (net/dns_responder.py):
#  1. python3 resolves names through glibc (A+AAAA over UDP): answered,
#     NXDOMAIN, SERVFAIL, a CNAME, a server that never answers (timed out);
#     then connects to the name that resolved (the attempt carries the
#     name) and asks one question over DNS-over-TCP by hand;
#  2. curl resolves and connects the same way, and fails on a name that
#     does not exist (explain names the NXDOMAIN first);
#  3. connects that never get an answer (a listener whose accept queue is
#     full drops SYNs): abandoned after the program's own 500 ms wait, timed
#     out by the kernel, and curl giving up after --connect-timeout 1;
#  4. fault rules on names (docs/faults.md): dns:error=TIMEOUT for
#     good.repro.test makes python3's lookup of it fail as a silent server
#     does ("Temporary failure in name resolution") while tcp.repro.test
#     resolves; NXDOMAIN and SERVFAIL the same, as the server would say
#     them ("Name or service not known", "Temporary failure …" / curl's
#     "Could not resolve host"); a connect rule with host=good.repro.test
#     refuses curl's connect to the address that name resolved to;
#  5. the same rules over TCP (resolv.conf "options use-vc": glibc writes
#     its queries with writev and reads the answers with read): NXDOMAIN
#     for python3, SERVFAIL for curl (A and AAAA in one writev), each as
#     the server itself would say it over TCP (glibc reports a SERVFAIL
#     over TCP as "Name or service not known"), network.jsonl's lookup is
#     over tcp and injected; TIMEOUT leaves the resolver waiting, as a
#     silent server over TCP does (glibc sets no timeout on a TCP read);
#  6. replay: python3's recorded NXDOMAIN is imposed again (the same
#     "Name or service not known", exit 1) while the name resolves here;
# each run bare and under repro with the same output and exit status.
# "user" runs repro as the unprivileged user repro-test inside the namespace.
set -u
. "$(dirname "$0")/lib.sh"
repro=$1
programs=$2
variant=${3:-root}
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "needs root to create the network namespace: skip"; exit 77; }
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
command -v curl >/dev/null || { echo "no curl: skip"; exit 77; }

if [ "${1:-}" != --inner ] && [ -z "${REPRO_NET_INNER:-}" ]; then
	stage=$(mktemp -d /tmp/repro-net.XXXXXX)
	trap 'rm -rf "$stage"' EXIT
	chmod 755 "$stage"
	cp "$repro" "$programs/connect_stalled" "$here"/net/*.py "$stage/"
	mkdir "$stage/work"
	if [ "$variant" = user ]; then
		ensure_test_user || exit 77
		chown repro-test: "$stage/work"
	fi
	chmod -R a+rX "$stage"
	REPRO_NET_INNER=1 unshare --net --mount --propagation private \
		bash "$0" "$stage/repro" "$stage" "$variant"
	exit $?
fi

# ---- inside the namespaces ----
stage=$programs
work=$stage/work
ip link set lo up || exit 1
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$stage/resolv.conf"
printf 'hosts: files dns\n' >"$stage/nsswitch.conf"
mount --bind "$stage/resolv.conf" /etc/resolv.conf || exit 1
mount --bind "$stage/nsswitch.conf" /etc/nsswitch.conf || exit 1
/usr/bin/python3 "$stage/dns_responder.py" "$stage/dns.ready" &
dns_pid=$!
/usr/bin/python3 -m http.server 8080 --bind 127.0.0.1 --directory "$stage" >/dev/null 2>&1 &
http_pid=$!
trap 'kill $dns_pid $http_pid 2>/dev/null' EXIT
for _ in $(seq 50); do
	[ -e "$stage/dns.ready" ] && (exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null && break
	sleep 0.1
done

as_variant() {
	if [ "$variant" = user ]; then
		runuser -u repro-test -- env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
			${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"} \
			${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} "$@"
	else
		"$@"
	fi
}
fail=0
# same NAME CMD...: bare and recorded runs print the same and exit the same
same() {
	local name=$1 bare_rc rec_rc
	shift
	(cd "$work" && as_variant "$@" >"$work/$name.bare" 2>&1)
	bare_rc=$?
	(cd "$work" && as_variant "$stage/repro" record -o "$work/$name.repro" -- "$@" \
		>"$work/$name.rec" 2>&1)
	rec_rc=$?
	if [ "$bare_rc" = "$rec_rc" ] && cmp -s "$work/$name.bare" "$work/$name.rec"; then
		echo "ok: $name behaves the same under repro (exit $rec_rc)"
	else
		echo "FAIL: $name: bare exit $bare_rc, recorded exit $rec_rc"
		diff "$work/$name.bare" "$work/$name.rec"
		fail=1
	fi
	tar --zstd -xOf "$work/$name.repro" network.jsonl >"$work/$name.net" || fail=1
	as_variant "$stage/repro" explain --json "$work/$name.repro" >"$work/$name.explain" || fail=1
}

same resolve /usr/bin/python3 "$stage/dns_client.py" 8080
same curl curl -sS -o /dev/null -w '%{http_code}\n' http://good.repro.test:8080/
same curl_nx curl -sS http://bad.repro.test:8080/
same stalled "$stage/connect_stalled" 500
# a listener whose accept queue is full (backlog 0, one connection waiting)
/usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(0)
c = socket.create_connection(s.getsockname())
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(600)' "$stage/full.port" &
full_pid=$!
trap 'kill $dns_pid $http_pid $full_pid 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$stage/full.port" ] && break; sleep 0.1; done
same curl_stalled sh -c 'curl -sS --connect-timeout 1 "http://127.0.0.1:$1/" 2>&1 | sed "s/[0-9][0-9]*/N/g"' sh \
	"$(cat "$stage/full.port")"
cat "$work/resolve.bare"
/usr/bin/python3 "$here/checks/network_dns.py" "$work" || fail=1

# 4. fault rules on names
cat >"$stage/two_names.py" <<'PY'
import socket, sys
status = 0
for name in ("good.repro.test", "tcp.repro.test"):
    try:
        print(name, socket.getaddrinfo(name, 80, socket.AF_INET, socket.SOCK_STREAM)[0][4][0])
    except socket.gaierror as e:
        print(name, "failed:", e.strerror)
        status = 1
sys.exit(status)
PY
(cd "$work" && as_variant "$stage/repro" record -o "$work/dnsfault.repro" \
	--inject 'dns:error=TIMEOUT:host=good.repro.test' -- /usr/bin/python3 "$stage/two_names.py" \
	>"$work/dnsfault.out" 2>&1)
if grep -qx 'good.repro.test failed: Temporary failure in name resolution' "$work/dnsfault.out" &&
	grep -qx 'tcp.repro.test 127.0.0.2' "$work/dnsfault.out"; then
	echo "ok: dns:error=TIMEOUT for good.repro.test: its lookup times out, tcp.repro.test resolves"
else
	echo "FAIL: dns:error=TIMEOUT"; cat "$work/dnsfault.out"; fail=1
fi
(cd "$work" && as_variant "$stage/repro" record -o "$work/nxfault.repro" \
	--inject 'dns:error=NXDOMAIN:host=good.repro.test' -- /usr/bin/python3 "$stage/two_names.py" \
	>"$work/nxfault.out" 2>&1)
if grep -qx 'good.repro.test failed: Name or service not known' "$work/nxfault.out" &&
	grep -qx 'tcp.repro.test 127.0.0.2' "$work/nxfault.out"; then
	echo "ok: dns:error=NXDOMAIN for good.repro.test: it does not exist, tcp.repro.test resolves"
else
	echo "FAIL: dns:error=NXDOMAIN"; cat "$work/nxfault.out"; fail=1
fi
tar --zstd -xOf "$work/nxfault.repro" network.jsonl | grep '"name":"good.repro.test"' |
	grep '"outcome":"nxdomain"' | grep -q '"injected":true,"rule":1'
if [ $? = 0 ] && as_variant "$stage/repro" explain "$work/nxfault.repro" 2>&1 |
	grep -q '^1\. .*good.repro.test.*injected by rule 1'; then
	echo "ok: network.jsonl: good.repro.test's lookup says nxdomain, injected; explain names the rule"
else
	echo "FAIL: network.jsonl lookup, or explain"
	tar --zstd -xOf "$work/nxfault.repro" network.jsonl | grep good.repro
	as_variant "$stage/repro" explain "$work/nxfault.repro" 2>&1 | head -6
	fail=1
fi
(cd "$work" && as_variant "$stage/repro" record -o "$work/sffault.repro" \
	--inject 'dns:error=SERVFAIL:host=good.repro.test' -- curl -sS http://good.repro.test:8080/ \
	>"$work/sffault.out" 2>&1)
rc=$?
if [ $rc = 6 ] && grep -q 'Could not resolve host: good.repro.test' "$work/sffault.out"; then
	echo "ok: dns:error=SERVFAIL: curl cannot resolve good.repro.test (exit 6)"
else
	echo "FAIL: dns:error=SERVFAIL: curl exit $rc"; cat "$work/sffault.out"; fail=1
fi
(cd "$work" && as_variant "$stage/repro" record -o "$work/hostfault.repro" \
	--inject 'connect:error=ECONNREFUSED:host=good.repro.test' -- \
	curl -sS -o /dev/null http://good.repro.test:8080/ >"$work/hostfault.out" 2>&1)
rc=$?
if [ $rc = 7 ] && grep -q "Couldn't connect to server" "$work/hostfault.out"; then
	echo "ok: host=good.repro.test: curl's connect to 127.0.0.1:8080 is refused (exit 7)"
else
	echo "FAIL: host=: curl exit $rc"; cat "$work/hostfault.out"; fail=1
fi

# 5. the same over TCP
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1 use-vc\n' >"$stage/resolv.conf"
/usr/bin/python3 "$stage/two_names.py" >"$work/tcp_bare.out" 2>&1
(cd "$work" && as_variant "$stage/repro" record -o "$work/nxtcp.repro" \
	--inject 'dns:error=NXDOMAIN:host=good.repro.test' -- /usr/bin/python3 "$stage/two_names.py" \
	>"$work/nxtcp.out" 2>&1)
rc=$?
if [ $rc = 1 ] && grep -qx 'good.repro.test 127.0.0.1' "$work/tcp_bare.out" &&
	grep -qx 'good.repro.test failed: Name or service not known' "$work/nxtcp.out" &&
	grep -qx 'tcp.repro.test 127.0.0.2' "$work/nxtcp.out" &&
	tar --zstd -xOf "$work/nxtcp.repro" network.jsonl | grep '"name":"good.repro.test"' |
	grep '"transport":"tcp"' | grep '"injected":true,"rule":1' | grep -q '"outcome":"nxdomain"'; then
	echo "ok: over TCP, dns:error=NXDOMAIN for good.repro.test: it does not exist, tcp.repro.test resolves"
else
	echo "FAIL: dns:error=NXDOMAIN over TCP (exit $rc)"; cat "$work/tcp_bare.out" "$work/nxtcp.out"
	tar --zstd -xOf "$work/nxtcp.repro" network.jsonl | grep '"kind":"dns"'
	fail=1
fi
bare=$(curl -sS http://broken.repro.test:8080/ 2>&1; echo "exit $?")
(cd "$work" && as_variant "$stage/repro" record -o "$work/sftcp.repro" \
	--inject 'dns:error=SERVFAIL:host=good.repro.test' -- curl -sS http://good.repro.test:8080/ \
	>"$work/sftcp.out" 2>&1)
rc=$?
if [ $rc = 6 ] && grep -q 'Could not resolve host: good.repro.test' "$work/sftcp.out" &&
	[ "$bare" = "curl: (6) Could not resolve host: broken.repro.test
exit 6" ]; then
	echo "ok: over TCP, dns:error=SERVFAIL: curl cannot resolve good.repro.test (exit 6), as for the server's own SERVFAIL"
else
	echo "FAIL: dns:error=SERVFAIL over TCP: curl exit $rc"; cat "$work/sftcp.out"; echo "$bare"; fail=1
fi
start=$(date +%s%N)
(cd "$work" && as_variant "$stage/repro" record -o "$work/totcp.repro" \
	--inject 'dns:error=TIMEOUT:host=good.repro.test' -- \
	timeout -s KILL 2 /usr/bin/python3 "$stage/two_names.py" >"$work/totcp.out" 2>&1)
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
if [ $rc = 137 ] && [ "$ms" -ge 1900 ] && ! grep -q good.repro.test "$work/totcp.out" &&
	tar --zstd -xOf "$work/totcp.repro" trace.txt | grep -q '^[0-9]*  writev(.* (INJECTED)$'; then
	echo "ok: over TCP, dns:error=TIMEOUT: the query is not sent and the resolver waits until killed (${ms} ms)"
else
	echo "FAIL: dns:error=TIMEOUT over TCP: exit $rc after $ms ms"; cat "$work/totcp.out"
	tar --zstd -xOf "$work/totcp.repro" trace.txt | grep -E 'writev|read\(' | head
	fail=1
fi
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$stage/resolv.conf"

# 6. replay (docs/replay.md): a recorded NXDOMAIN imposed again while the name resolves
cat >"$stage/later.py" <<'PY'
import socket, sys
try:
    print(socket.gethostbyname("later.repro.test"))
except socket.gaierror as e:
    sys.exit("cannot resolve later.repro.test: %s" % e.strerror)
PY
chmod a+r "$stage/later.py"
(cd "$work" && as_variant "$stage/repro" record -o "$work/later.repro" -- /usr/bin/python3 "$stage/later.py" \
	>"$work/later.rec.out" 2>&1)
rec=$?
touch "$stage/later.on"
now=$(/usr/bin/python3 "$stage/later.py" 2>&1)
(cd "$work" && as_variant "$stage/repro" replay --yes --net host "$work/later.repro" >"$work/later.out" 2>&1)
rc=$?
rm -f "$stage/later.on"
if [ $rec = 1 ] && [ "$now" = 127.0.0.1 ] && [ $rc = 1 ] &&
	grep -q '^cannot resolve later.repro.test: Name or service not known' "$work/later.out" &&
	grep -q '^repro: replay: imposing dns later.repro.test NXDOMAIN' "$work/later.out" &&
	grep -q '^repro: replay: reproduced: exit 1 as recorded' "$work/later.out"; then
	echo "ok: replay: the recorded NXDOMAIN of later.repro.test again, while it resolves to $now here"
else
	echo "FAIL: replay of an NXDOMAIN: recorded exit $rec, resolves now to '$now', replayed exit $rc"
	cat "$work/later.rec.out" "$work/later.out"
	fail=1
fi
exit $fail
