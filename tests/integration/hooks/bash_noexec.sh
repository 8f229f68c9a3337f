# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# run.sh runs ./tool.sh, which lacks its run bit.

case_begin() {
	printf '#!/bin/bash\necho "run.sh: starting the tool"\n./tool.sh\n' >"$TMP/run.sh"
	printf '#!/bin/bash\necho "tool ran"\n' >"$TMP/tool.sh"
	chmod 0644 "$TMP/run.sh" "$TMP/tool.sh"
}
