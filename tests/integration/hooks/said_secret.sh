# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# A secret of repro's environment that the program echoes to stderr is
# redacted in output.jsonl, as in argv.

CASE_ENV=("API_TOKEN=s3cr3t-said-value-4711")

case_begin() {
	printf '%s\n' '#!/bin/sh' \
		'echo "login refused for token $API_TOKEN" >&2' \
		'echo "retry with PASSWORD=hunter2-said" >&2' \
		'exit 1' >"$TMP/secret.sh"
}
