# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# The bare run returns before the daemon's grandchild has created its file:
# wait for it, so that the next run starts clean.

case_reset() {
	rm -f "$TMP/daemon.flag"
}

case_after_bare() {
	for _ in $(seq 100); do
		[ -e "$TMP/daemon.flag" ] && return 0
		sleep 0.05
	done
	echo "hook: the bare daemon never created $TMP/daemon.flag" >&2
	return 1
}
