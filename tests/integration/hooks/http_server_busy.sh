# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# Another listener holds @PORT@ for the whole case.
. "$source/tests/integration/hooks/listener.sh"

case_begin() { hold_port "$PORT"; }
case_end() { release_port; }
