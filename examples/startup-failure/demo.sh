#!/bin/bash
# demo.sh REPRO_BIN - record the startup-failure example with repro, show and explain it.
#
# The example is staged into a fresh temp dir; cache_hub/ belongs to root
# (mode 0755) and the recording runs as an unprivileged user, so the cache
# write fails the way it does on a real deployment.  The recording always
# uses --net=none: the "CDN" connect stays on this machine.
# Then a copy that works (weights present, cache_hub/ writable) is
# recorded as it is (working.repro), compared with the broken one (repro
# diff working.repro broken.repro), and recorded once more with a fault
# rule that denies reading cache_hub/: repro explain then names the
# injected cause.  Last, repro report writes broken.html and
# working-vs-broken.html, pages to open in a browser.
# Exit 0 when the recordings produced bundles and the recorded program
# exited 1 (missing weights), 126 (script without its run bit), 0 (the
# working copy) and 1 (the injected EACCES), and diff found the difference.
set -euo pipefail

DEMO_USER=repro-demo
SAFE_PATH=/usr/local/bin:/usr/bin:/bin

usage() {
	echo "usage: $0 REPRO_BIN" >&2
	exit 2
}

say() {
	printf '%s\n' "$*"
}

header() {
	printf '\n==== %s ====\n' "$*"
}

# stage DIR: copy the example into DIR/app with the modes the story needs.
stage() {
	local dir=$1 src
	src=$(cd "$(dirname "$0")" && pwd)
	mkdir -p "$dir/app" "$dir/bin"
	cp "$src/start_app.sh" "$src/start_app_noexec.sh" "$src/launch_ui.sh" \
		"$src/webui.py" "$dir/app/"
	chmod 0644 "$dir/app/"*
	# git keeps launch_ui.sh at 0644; force it in case the checkout differs.
	chmod 0644 "$dir/app/launch_ui.sh"
	mkdir "$dir/app/cache_hub"
	chmod 0755 "$dir/app" "$dir/app/cache_hub"
	# A copy the unprivileged user can execute even if the build tree is
	# under /root.
	cp "$REPRO_BIN" "$dir/bin/repro"
	chmod 0755 "$dir/bin" "$dir/bin/repro"
}

# stage_working DIR: a copy of the app in DIR/ok that starts: its weights in
# place and cache_hub/ writable by whoever runs it.
stage_working() {
	local dir=$1
	cp -r "$dir/app" "$dir/ok"
	rm -rf "$dir/ok/cache_hub"
	mkdir "$dir/ok/cache_hub"
	head -c 4096 /dev/zero >"$dir/ok/cache_hub/model.pth"
	chmod 0777 "$dir/ok/cache_hub"
	chmod 0644 "$dir/ok/cache_hub/model.pth"
}

ensure_demo_user() {
	if ! id -u "$DEMO_USER" >/dev/null 2>&1; then
		say "creating system user '$DEMO_USER' to run the recording unprivileged"
		useradd --system --no-create-home --shell /usr/sbin/nologin "$DEMO_USER"
	fi
}

# as_user CMD...: run CMD as the demo user (root) or as ourselves, with a
# small clean environment so the Debian python3 is the one found.
as_user() {
	local envv=(env -i "PATH=$SAFE_PATH" HOME=/tmp LANG=C.UTF-8)
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$DEMO_USER" -- "${envv[@]}" "$@"
	else
		"${envv[@]}" "$@"
	fi
}

# record NAME SCRIPT EXPECTED [OPTION...]: record `bash SCRIPT` (in
# $app, default $dir/app) into $dir/NAME.repro with the options, and show
# and explain it; return non-zero when the bundle is missing or the status
# differs.
record() {
	local name=$1 script=$2 expected=$3 status=0
	local bundle="$dir/$name.repro" where=${app:-$dir/app}
	shift 3

	header "recording: bash $script"
	say "\$ repro record --net=none $* -o $bundle -- bash $script"
	say "  (in $where, as $run_as)"
	(cd "$where" && as_user "$dir/bin/repro" record --net=none "$@" -o "$bundle" \
		-- bash "$script") || status=$?
	if [ ! -f "$bundle" ]; then
		say "demo: repro failed (status $status) and wrote no bundle; its message is above" >&2
		return 1
	fi
	say "repro exited with status $status (the program's status; expected $expected)"
	header "repro show $bundle"
	"$dir/bin/repro" show "$bundle" || {
		say "demo: repro show failed" >&2
		return 1
	}
	header "repro explain $bundle"
	"$dir/bin/repro" explain "$bundle" || {
		say "demo: repro explain failed" >&2
		return 1
	}
	[ "$status" -eq "$expected" ] || {
		say "demo: expected status $expected, got $status" >&2
		return 1
	}
}

# compare A B: repro diff A B, which must find the difference (exit 1) and name
# the weights or cache_hub/ in its first line of cause.
compare() {
	local status=0 out
	header "repro diff $1 $2"
	say "\$ repro diff $1 $2"
	out=$("$dir/bin/repro" diff "$1" "$2") || status=$?
	printf '%s\n' "$out"
	if [ "$status" -ne 1 ]; then
		say "demo: repro diff exited $status, expected 1 (the runs differ)" >&2
		return 1
	fi
	grep -q '^Most likely cause: .*\(cache_hub\|model\.pth\)' <<<"$out" || {
		say "demo: repro diff did not put the weights or cache_hub/ first" >&2
		return 1
	}
}

main() {
	local failed=0
	[ $# -eq 1 ] || usage
	REPRO_BIN=$(realpath -e "$1") || usage
	[ -x "$REPRO_BIN" ] || {
		echo "demo: '$1' is not executable" >&2
		exit 2
	}
	if ! unshare -U -n true 2>/dev/null; then
		echo "demo: this machine does not let programs create user and network namespaces" >&2
		echo "      (a chroot, or a container that forbids them); the demo needs them for --net=none" >&2
		exit 2
	fi
	dir=$(mktemp -d /tmp/repro-demo.XXXXXX)
	chmod 0755 "$dir"
	stage "$dir"
	if [ "$(id -u)" -eq 0 ]; then
		ensure_demo_user
		chown "$DEMO_USER:" "$dir" # the bundles are written here
		run_as="user $DEMO_USER; cache_hub/ is root's, mode 0755"
	else
		chmod 0555 "$dir/app/cache_hub"
		run_as="$(id -un), not root: cache_hub/ made read-only (0555) instead of root-owned"
	fi
	say "demo: staged examples/startup-failure in $dir/app"
	say "demo: the app looks for cache_hub/model.pth, 'downloads' it from 198.51.100.7:443"
	say "      (no network: --net=none) and tries to save it into cache_hub/"
	record broken start_app.sh 1 || failed=1
	record noexec start_app_noexec.sh 126 || failed=1
	stage_working "$dir"
	say "demo: a copy that works is in $dir/ok (weights present, cache_hub/ writable)"
	run_as=${run_as%%;*}"; cache_hub/ writable, model.pth present"
	app=$dir/ok record working start_app.sh 0 || failed=1
	compare "$dir/working.repro" "$dir/broken.repro" || failed=1
	say "demo: a fault rule makes reading cache_hub/ of the working copy fail as it fails"
	say "      on the broken machine"
	app=$dir/ok record injected start_app.sh 1 --inject 'openat:error=EACCES:path=*/cache_hub/*' ||
		failed=1
	"$dir/bin/repro" explain "$dir/injected.repro" 2>&1 | grep -q '^1\. .*injected by rule 1' || {
		say "demo: explain did not name the injected cause first" >&2
		failed=1
	}
	header "repro report"
	say "\$ repro report -o broken.html broken.repro && repro report working.repro broken.repro"
	(cd "$dir" && "$dir/bin/repro" report -o broken.html broken.repro &&
		"$dir/bin/repro" report working.repro broken.repro) || {
		say "demo: repro report failed" >&2
		failed=1
	}
	header "done"
	if [ "$failed" -ne 0 ]; then
		say "demo: FAILED" >&2
		exit 1
	fi
	say "bundles: $dir/broken.repro $dir/noexec.repro $dir/working.repro $dir/injected.repro"
	say "  (tar --zstd -tf lists a bundle's members; tar -xf unpacks them into the current folder)"
	say "reports: $dir/broken.html $dir/working-vs-broken.html (open them in a browser)"
	say "the README's examples run on them (repro is $REPRO_BIN, or on PATH after cmake --install build):"
	say "  cd $dir && repro explain broken.repro && repro diff working.repro broken.repro"
	say "  cd $dir/app && repro record -o /tmp/mine.repro -- bash start_app.sh"
	say "demo: OK"
}

main "$@"
