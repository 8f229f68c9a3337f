#!/bin/bash
# A startup script that names the cause of every failure it meets: its
# config (app.conf), its cache (cache/), its health check (curl, to the
# address in app.conf).  tests/integration/sweep.sh expects a sweep of it
# to be clean throughout.
set -u
conf=$(cat app.conf) || { echo "clean.sh: cannot read app.conf" >&2; exit 1; }
url=${conf#url=}
mkdir -p cache || { echo "clean.sh: cannot create cache/" >&2; exit 1; }
if ! printf '%s\n' "$url" >cache/last_url; then
	echo "clean.sh: cannot write cache/last_url" >&2
	exit 1
fi
if ! curl -sS --connect-timeout 2 --max-time 4 -o cache/health "$url"; then
	echo "clean.sh: health check of $url failed" >&2
	exit 1
fi
echo "started"
