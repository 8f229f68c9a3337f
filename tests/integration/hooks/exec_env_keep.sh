# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
. "$source/tests/integration/hooks/exec_env.sh"
