# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# Another listener holds a port below 1024 (the first free one of
# 1001..1023): nginx retries bind five times, then exits 1.
. "$source/tests/integration/hooks/nginx_common.sh"
. "$source/tests/integration/hooks/listener.sh"

case_begin() {
	local port
	port=$(/usr/bin/python3 -c '
import socket
for p in range(1001, 1024):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    print(p)
    break
')
	[ -n "$port" ] || { echo "hook: no free port below 1024" >&2; return 1; }
	nginx_setup "$port"
	hold_port "$port"
}
case_end() { release_port; }
