#!/bin/bash
# dev.sh - set up, build, demo and test repro on Debian.
#
#   ./dev.sh deps    install the Debian packages the build, tests and demo need
#                    (only those missing; as root, or prints the command)
#   ./dev.sh build   deps, then configure and build into build/ (-Werror)
#   ./dev.sh demo    build, then record and show examples/startup-failure
#   ./dev.sh test    deps; build/ + ctest, then an ASan+UBSan build in
#                    build-san/ + ctest; fails if either fails
#   ./dev.sh bench   build, then bench/bench.py: repro against strace
#                    (docs/performance.md; takes several minutes)
set -euo pipefail

cd "$(dirname "$0")"

PACKAGES=(
	build-essential cmake pkg-config
	libseccomp-dev libcap-dev libarchive-dev libzstd-dev liburing-dev
	libjansson-dev libcmocka-dev libxxhash-dev
	strace curl python3 git jq zstd clang-format
	passwd util-linux iproute2 procps file nginx-light iputils-ping
	postgresql redis-server sqlite3 python3-venv
)
DEPS_DONE=0

log() {
	printf 'dev.sh: %s\n' "$*"
}

is_installed() {
	dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null | grep -qx installed
}

cmd_deps() {
	local missing=() pkg
	[ "$DEPS_DONE" -eq 0 ] || return 0
	command -v dpkg-query >/dev/null || {
		log "dpkg-query not found: this script supports Debian and derivatives"
		exit 2
	}
	for pkg in "${PACKAGES[@]}"; do
		is_installed "$pkg" || missing+=("$pkg")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		if [ "$(id -u)" -ne 0 ]; then
			log "missing packages: ${missing[*]}"
			log "install them as root with:"
			echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
			exit 2
		fi
		log "installing: ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update
		apt-get install -y --no-install-recommends "${missing[@]}"
	fi
	DEPS_DONE=1
}

# configure_build DIR CMAKE-ARGS...
configure_build() {
	local dir=$1
	shift
	cmake -S . -B "$dir" -DREPRO_WERROR=ON "$@"
	cmake --build "$dir" -j"$(nproc)"
}

cmd_build() {
	cmd_deps
	configure_build build
}

cmd_demo() {
	cmd_build
	bash examples/startup-failure/demo.sh build/cli/repro
}

# run_ctest DIR: ctest's own output is what CI shows.
run_ctest() {
	ctest --test-dir "$1" --output-on-failure
}

cmd_test() {
	local status=0
	cmd_deps
	log "build/: -DREPRO_WERROR=ON"
	configure_build build
	run_ctest build || status=1
	log "build-san/: -DREPRO_SANITIZE=ON -DREPRO_WERROR=ON (ASan + UBSan)"
	configure_build build-san -DREPRO_SANITIZE=ON
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		run_ctest build-san || status=1
	if [ "$status" -ne 0 ]; then
		log "tests FAILED"
	else
		log "all tests passed (normal and sanitizer builds)"
	fi
	return "$status"
}

cmd_bench() {
	cmd_build
	/usr/bin/python3 bench/bench.py --repro build/cli/repro
}

usage() {
	sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

main() {
	[ $# -eq 1 ] || usage
	case $1 in
	deps) cmd_deps ;;
	build) cmd_build ;;
	demo) cmd_demo ;;
	test) cmd_test ;;
	bench) cmd_bench ;;
	-h | --help | help) usage ;;
	*) usage ;;
	esac
}

main "$@"
