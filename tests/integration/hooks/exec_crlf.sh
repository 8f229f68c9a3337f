# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# A script saved with Windows line endings: its #! line asks for "/bin/sh\r".
. "$source/tests/integration/hooks/exec_common.sh"

case_begin() {
	printf '#!/bin/sh\r\necho "crlf ran"\r\n' >"$TMP/crlf.sh"
	chmod 0755 "$TMP/crlf.sh"
}
