# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# An entrypoint started as root steps down to a service user, then looks
# for its configuration: every call after the switch keeps its result.
CASE_NEEDS_ROOT=1
