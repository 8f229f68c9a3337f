# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# root owns a file that anyone may write; repro-test may not chmod it.
CASE_NEEDS_ROOT=1

case_begin() {
	mkdir -p "$TMP/owned"
	echo data >"$TMP/owned/f"
	chmod 0666 "$TMP/owned/f"
	chmod 0755 "$TMP/owned" "$TMP"
	chmod a+x "$TMP/.." # the case directory: repro-test must reach the file
}
