# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# git init in a directory the user cannot write; root would just succeed.
CASE_NEEDS_NONROOT=1

case_begin() {
	mkdir -p "$TMP/ro"
	chmod 0555 "$TMP/ro"
}

case_end() {
	chmod 0755 "$TMP/ro" 2>/dev/null || true
}
