# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# Same staging as the demo.
# shellcheck source=demo.sh
. "$source/tests/integration/hooks/demo.sh"
