# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# hold_port PORT: a loopback listener on PORT for the whole case (stopped by
# release_port), so that the program meets a port already taken.  Sourced
# by the hooks that need one.

hold_port() {
	/usr/bin/python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
open(sys.argv[2], "w").close()
time.sleep(600)
' "$1" "$work/listener.ready" </dev/null >/dev/null 2>"$work/listener.err" &
	echo $! >"$work/listener.pid"
	for _ in $(seq 100); do
		[ -e "$work/listener.ready" ] && return 0
		sleep 0.05
	done
	echo "hook: the listener on port $1 did not start: $(tail -1 "$work/listener.err")" >&2
	return 1
}

release_port() {
	[ -f "$work/listener.pid" ] && kill "$(cat "$work/listener.pid")" 2>/dev/null
	rm -f "$work/listener.pid"
}
