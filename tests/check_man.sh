#!/bin/bash
# check_man.sh REPRO MANDIR BUILDDIR - the man pages (docs/man/):
#  1. every page built into MANDIR renders with man(1) without a warning
#     (groff's warnings on), and has NAME, SYNOPSIS, DESCRIPTION, and for
#     repro(1) and each command's page EXIT STATUS and EXAMPLES;
#  2. each command's page lists in OPTIONS exactly the options its --help
#     prints, and the other way round;
#  3. `cmake --install BUILDDIR` puts the binary, every page and the shell
#     completions in place;
#  4. help's conventions: repro help help, a full standard output (exit 2),
#     an option without its value named as such.
set -u
repro=$1 mandir=$2 build=$3
command -v man >/dev/null && command -v scdoc >/dev/null ||
	{ echo "no man or scdoc: skip"; exit 77; }
fail=0
pages=("$mandir"/*.[15])
[ -e "${pages[0]}" ] || { echo "FAIL: no man pages in $mandir"; exit 1; }
render() { LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$1"; }
for p in "${pages[@]}"; do
	name=$(basename "$p")
	warn=$(render "$p" 2>&1 >/dev/null)
	if [ -n "$warn" ]; then
		echo "FAIL: $name renders with warnings: $warn"
		fail=1
	fi
	want=(NAME SYNOPSIS DESCRIPTION)
	case $name in repro.1 | repro-*.1) want+=("EXIT STATUS" EXAMPLES) ;; esac
	for s in "${want[@]}"; do
		render "$p" 2>/dev/null | grep -qx "$s" || { echo "FAIL: $name has no $s section"; fail=1; }
	done
	echo "ok: $name renders ($(render "$p" 2>/dev/null | wc -l) lines)"
done
for cmd in record show explain diff pack sweep replay report export; do
	page=$mandir/repro-$cmd.1
	if [ ! -f "$page" ]; then
		echo "FAIL: no page repro-$cmd.1"
		fail=1
		continue
	fi
	help=$("$repro" "$cmd" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z-]*' |
		grep -oE -- '--[a-z][a-z-]*' | sort -u)
	man=$(render "$page" 2>/dev/null | sed -n '/^OPTIONS$/,/^[A-Z]/p' |
		grep -E '^ {7}-' | grep -oE -- '--[a-z][a-z-]*' | sort -u)
	only_help=$(comm -23 <(echo "$help") <(echo "$man") | tr '\n' ' ')
	only_man=$(comm -13 <(echo "$help") <(echo "$man") | tr '\n' ' ')
	if [ -n "$only_help$only_man" ]; then
		echo "FAIL: repro-$cmd.1 and 'repro $cmd --help' disagree: only in --help: ${only_help:-none}; only in the page: ${only_man:-none}"
		fail=1
	else
		echo "ok: repro-$cmd.1 lists the $(echo "$help" | wc -l) options of --help"
	fi
	"$repro" "$cmd" --help | tail -1 | grep -q "repro-$cmd(1)" ||
		{ echo "FAIL: 'repro $cmd --help' does not end with its man page"; fail=1; }
done
# the conventions around help
"$repro" help help | head -1 | grep -q '^usage: repro ' ||
	{ echo "FAIL: repro help help is not the usage"; fail=1; }
"$repro" help record show >/dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: repro help with two commands is not exit 2"; fail=1; }
for args in "--help" "help" "help record" "--version"; do
	# shellcheck disable=SC2086
	"$repro" $args >/dev/full 2>/dev/null
	[ $? = 2 ] || { echo "FAIL: repro $args on a full stdout does not exit 2"; fail=1; }
done
"$repro" export -o 2>&1 >/dev/null | grep -q "option '-o' needs a value" ||
	{ echo "FAIL: repro export -o without a value is not named as such"; fail=1; }
echo "ok: help help, help with two commands, a full stdout, an option without its value"
prefix=$(mktemp -d /tmp/repro-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
if cmake --install "$build" --prefix "$prefix" >/dev/null; then
	[ -x "$prefix/bin/repro" ] || { echo "FAIL: cmake --install: no bin/repro"; fail=1; }
	for p in "${pages[@]}"; do
		name=$(basename "$p")
		[ -f "$prefix/share/man/man${name##*.}/$name" ] ||
			{ echo "FAIL: cmake --install: no share/man/man${name##*.}/$name"; fail=1; }
	done
	for c in share/bash-completion/completions/repro share/zsh/vendor-completions/_repro; do
		[ -f "$prefix/$c" ] || { echo "FAIL: cmake --install: no $c"; fail=1; }
	done
	echo "ok: cmake --install puts bin/repro, ${#pages[@]} pages and the completions under the prefix"
else
	echo "FAIL: cmake --install $build failed"
	fail=1
fi
exit $fail
