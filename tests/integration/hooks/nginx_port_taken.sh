# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# Another listener holds port 81: nginx retries bind five times, then exits 1.
. "$source/tests/integration/hooks/nginx_common.sh"

case_begin() {
	nginx_setup 81
	/usr/bin/python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 81))
s.listen()
open(sys.argv[1], "w").close()
time.sleep(600)
' "$work/listener.ready" </dev/null >/dev/null 2>&1 &
	echo $! >"$work/listener.pid"
	for _ in $(seq 100); do
		[ -e "$work/listener.ready" ] && return 0
		sleep 0.05
	done
	echo "hook: the listener on port 81 did not start" >&2
	return 1
}

case_end() {
	[ -f "$work/listener.pid" ] && kill "$(cat "$work/listener.pid")" 2>/dev/null
	rm -f "$work/listener.pid"
}
