# shellcheck shell=bash disable=SC2154 # variables of run_case.sh
# stdout and stderr to the same file (2>&1): both are kept, in order.

case_begin() {
	printf '%s\n' '#!/bin/sh' \
		'exec >"$1" 2>&1' \
		'echo "out line one"' \
		'echo "err line two" >&2' \
		'echo "out line three"' \
		'ls /said-missing-dir' \
		'exit 0' >"$TMP/both.sh"
}

case_reset() {
	rm -f "$TMP/both.log"
}
