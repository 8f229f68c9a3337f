# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
. "$source/tests/integration/hooks/nginx_common.sh"
case_begin() { nginx_setup 80; }
