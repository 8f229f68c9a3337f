# shellcheck shell=bash disable=SC2154 # variables of run_case.sh
# A start script whose cat fails silently (its stderr to /dev/null) and
# which then prints its own error as its last stderr line: explain quotes
# the script beside cat's failure.

case_begin() {
	printf '%s\n' '#!/bin/sh' \
		'echo "starting the service" >&2' \
		'if ! cat conf/app.ini >/dev/null 2>&1; then' \
		'	echo "error: cannot read conf/app.ini" >&2' \
		'	echo "" >&2' \
		'	exit 3' \
		'fi' >"$TMP/start.sh"
}
