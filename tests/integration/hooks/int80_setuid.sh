# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# A directory only root may search, for a program that steps down through
# the i386 ABI.
CASE_NEEDS_ROOT=1
case_begin() {
	mkdir -p "$TMP/rootonly"
	touch "$TMP/rootonly/f"
	chmod 0700 "$TMP/rootonly"
}
