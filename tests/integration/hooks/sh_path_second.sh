# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# hello exists only in the second of two PATH entries.

case_begin() {
	mkdir -p "$TMP/bin1" "$TMP/bin2"
	printf '#!/bin/sh\necho hello from bin2\n' >"$TMP/bin2/hello"
	chmod 0755 "$TMP/bin2/hello"
}
