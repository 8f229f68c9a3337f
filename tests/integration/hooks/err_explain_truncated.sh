# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# A real bundle cut in half.
case_begin() {
	local size
	"$repro" record -o "$TMP/full.repro" -- /bin/true </dev/null >/dev/null || return 1
	size=$(stat -c %s "$TMP/full.repro")
	head -c $((size / 2)) "$TMP/full.repro" >"$TMP/truncated.repro"
}
