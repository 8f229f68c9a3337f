# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
case_begin() {
	echo "this is not a bundle" >"$TMP/not-a-bundle.repro"
}
