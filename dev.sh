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
#   ./dev.sh accuracy  build, then the corpus of real failures (ctest -L
#                    corpus): per case the rank of the true cause in
#                    explain and diff's verdict, then #1 %, top-3 %, diff %
#                    (docs/explain.md "The corpus")
#   ./dev.sh fuzz [TARGET] [SECONDS]
#                    deps; a clang libFuzzer build in build-fuzz/, then fuzz
#                    TARGET (reader, show, explain, diff; default all, one
#                    after another) for SECONDS each (default 300) from
#                    tests/fuzz/corpus/TARGET/; new inputs go to
#                    build-fuzz/corpus/TARGET/, crashes to
#                    build-fuzz/crashes/TARGET/ (docs/fuzzing.md)
set -euo pipefail

cd "$(dirname "$0")"

PACKAGES=(
	build-essential cmake pkg-config
	libseccomp-dev libcap-dev libarchive-dev libzstd-dev liburing-dev
	libjansson-dev libcmocka-dev libxxhash-dev nettle-dev
	strace curl python3 git jq zstd clang-format clang libclang-rt-dev
	passwd util-linux iproute2 procps file nginx-light iputils-ping
	postgresql redis-server sqlite3 python3-venv scdoc man-db zsh
	openssh-server dnsmasq-base
	chromium
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

# run_ctest DIR: ctest's own output is what CI shows; tests run side by side
# (each has its own names, ports and folders; those that cannot share the
# machine hold a RESOURCE_LOCK).
run_ctest() {
	ctest --test-dir "$1" --output-on-failure -j"$(nproc)"
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

# The corpus, measured: every scenario of tests/integration/corpus.tsv in
# each of its variants appends a line to a results file
# (checks/corpus.py), which bench/accuracy.py turns into the table.
cmd_accuracy() {
	local out status=0
	cmd_build
	out=$(mktemp -d /tmp/repro-accuracy.XXXXXX)
	chmod 755 "$out"
	touch "$out/results.jsonl" && chmod 666 "$out/results.jsonl"
	REPRO_ACCURACY_OUT=$out/results.jsonl ctest --test-dir build -L '^corpus$' \
		-j"$(nproc)" --output-on-failure >"$out/ctest.log" 2>&1 || status=$?
	/usr/bin/python3 bench/accuracy.py tests/integration/corpus.tsv "$out/results.jsonl"
	log "ctest's log: $out/ctest.log (status $status)"
}

FUZZ_TARGETS=(reader show explain diff)

# fuzz_one TARGET SECONDS: one libFuzzer run, its findings kept out of the
# tree; FUZZ_FLAGS adds libFuzzer options (e.g. '-jobs=2 -workers=2')
fuzz_one() {
	local target=$1 seconds=$2 new=build-fuzz/corpus/$1 crashes=build-fuzz/crashes/$1/
	mkdir -p "$new" "$crashes"
	log "fuzzing $target for ${seconds} s: new inputs in $new/, crashes in $crashes"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		nice build-fuzz/tests/fuzz/fuzz_"$target" -max_total_time="$seconds" \
		-timeout=30 -rss_limit_mb=4096 -max_len=262144 -print_final_stats=1 \
		-dict=tests/fuzz/bundle.dict -artifact_prefix="$crashes" ${FUZZ_FLAGS:-} \
		"$new" tests/fuzz/corpus/"$target"
}

cmd_fuzz() {
	local targets=("${FUZZ_TARGETS[@]}") seconds=${2:-300} target status=0
	if [ $# -ge 1 ] && [ "$1" != all ]; then
		[[ " ${FUZZ_TARGETS[*]} " == *" $1 "* ]] || {
			log "unknown fuzz target '$1' (${FUZZ_TARGETS[*]})"
			exit 2
		}
		targets=("$1")
	fi
	[[ $seconds =~ ^[0-9]+$ ]] || usage
	cmd_deps
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DREPRO_FUZZ=ON -DREPRO_WERROR=ON
	cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"
	for target in "${targets[@]}"; do
		fuzz_one "$target" "$seconds" || status=1
	done
	if [ "$status" -ne 0 ]; then
		log "fuzzing found a crash: see build-fuzz/crashes/ (docs/fuzzing.md)"
	fi
	return "$status"
}

usage() {
	sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

main() {
	[ $# -ge 1 ] || usage
	if [ "$1" = fuzz ]; then
		[ $# -le 3 ] || usage
		shift
		cmd_fuzz "$@"
		return
	fi
	[ $# -eq 1 ] || usage
	case $1 in
	deps) cmd_deps ;;
	build) cmd_build ;;
	demo) cmd_demo ;;
	test) cmd_test ;;
	bench) cmd_bench ;;
	accuracy) cmd_accuracy ;;
	-h | --help | help) usage ;;
	*) usage ;;
	esac
}

main "$@"
