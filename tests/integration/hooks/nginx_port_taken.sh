# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# Another listener holds port 81: nginx retries bind five times, then exits 1.
. "$source/tests/integration/hooks/nginx_common.sh"
. "$source/tests/integration/hooks/listener.sh"

case_begin() {
	nginx_setup 81
	hold_port 81
}
case_end() { release_port; }
