# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# A directory given as the program.
. "$source/tests/integration/hooks/exec_common.sh"

case_begin() {
	mkdir -p "$TMP/app"
}
