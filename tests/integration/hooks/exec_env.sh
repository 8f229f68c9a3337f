# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# run.sh plants a secret and a plain variable in the environment of the
# programs it starts, so that they travel through execve and never through
# the recorded command line (which the manifest must show as given).

case_begin() {
	printf '%s\n' '#!/bin/sh' \
		"exec env API_TOKEN=s3cr3t-value FOO=bar sh -c 'exec env'" >"$TMP/run.sh"
}
