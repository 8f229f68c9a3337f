#!/bin/bash
# check_completion.sh REPRO SOURCE_ROOT - the bash completion
# (completions/repro.bash), sourced and called as bash calls it (COMP_WORDS,
# COMP_CWORD, COMP_LINE, COMP_POINT set): subcommands, options, option
# values, fault rules word by word, bundles, the program after `--`; and
# each command's options are exactly those its --help prints.  The zsh
# completion (completions/_repro) is checked for syntax when zsh is here.
set -u
repro=$(readlink -f "$1")
src=$(readlink -f "$2")
fail=0
# shellcheck source=/dev/null
source "$src/completions/repro.bash"
work=$(mktemp -d /tmp/repro-completion.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
touch run.repro other.repro notes.txt
mkdir spooldir

# comp LINE: COMPREPLY for the cursor at the end of LINE, one per line
comp() {
	local line=$1
	COMP_LINE=$line
	COMP_POINT=${#line}
	# as bash splits: at blanks and at the characters of COMP_WORDBREAKS, which are words too
	read -ra COMP_WORDS <<<"$(sed -E 's/([=:])/ \1 /g' <<<"$line")"
	COMP_WORDS[0]=$repro
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_repro 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}"
}
has() { # what LINE WORD...: each WORD is offered
	local what=$1 line=$2 out w
	shift 2
	out=$(comp "$line")
	for w in "$@"; do
		if ! grep -qxF -- "$w" <<<"$out"; then
			echo "FAIL: $what: '$line' does not offer '$w' (offers: $(head -c 300 <<<"$out" | tr '\n' ' '))"
			fail=1
			return
		fi
	done
	echo "ok: $what"
}
hasnt() { # what LINE WORD: WORD is not offered
	if comp "$2" | grep -qxF -- "$3"; then
		echo "FAIL: $1: '$2' offers '$3'"
		fail=1
	else
		echo "ok: $1"
	fi
}

has "subcommands" "repro " record show explain diff sweep replay report export pack help
hasnt "the hidden word helper is not offered" "repro " __complete
has "a subcommand by its start" "repro rep" replay
has "help takes a subcommand" "repro help re" record replay
has "options of record" "repro record --tr" --trace
has "--trace=VALUE (after '=')" "repro record --trace=fi" file
has "a comma list's next element" "repro record --trace file,ne" file,network
has "--net modes" "repro record --net " host none
has "--sandbox modes" "repro record --sandbox=" auto require none
has "a fault rule's syscall" "repro record --inject open" openat: openat2:
has "a fault rule's class" "repro record --inject %f" %file:
has "a fault rule's key (after ':')" "repro record --inject openat:err" error=
has "a fault rule's errno (after '=')" "repro record --inject openat:error=EAC" EACCES
has "a DNS rule's errors" "repro record --inject dns:error=NX" NXDOMAIN
has "a fault rule's signal" "repro record --inject openat:error=EIO:signal=SIGK" SIGKILL
has "strace's -e inject= spelling" "repro record -e openat:error=ENO" ENOENT ENOSPC
has "bundles for readers" "repro show " run.repro other.repro spooldir/
hasnt "not other files" "repro explain " notes.txt
has "two bundles for diff" "repro diff run.repro o" other.repro
has "a spool directory for pack" "repro pack " spooldir/
has "the program after --" "repro record -o x.repro -- bas" bash
has "files for the program's arguments" "repro record -- bash n" notes.txt
has "sweep's --fail-on classes" "repro sweep --fail-on crashed,h" crashed,hung
has "sweep's faults" "repro sweep --faults ECONN" ECONNREFUSED
has "replay's --only kinds" "repro replay --only=d" dns
has "--color for the readers" "repro show --color=" auto always never
has "export's format" "repro export --format=" chrome-trace
has "a bundle for export" "repro export " run.repro
has "a bundle for report" "repro report " run.repro

for cmd in record show explain diff pack sweep replay report export; do
	help=$("$repro" "$cmd" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z-]*' |
		grep -oE -- '-{1,2}[a-z][a-z-]*' | sort -u)
	v="_repro_opts_$cmd"
	mine=$(tr ' ' '\n' <<<"${!v}" | sort -u)
	if [ "$help" != "$mine" ]; then
		echo "FAIL: completion of $cmd and its --help disagree: $(diff <(echo "$help") <(echo "$mine") | grep '^[<>]' | tr '\n' ' ')"
		fail=1
	else
		echo "ok: completion of $cmd offers the $(wc -l <<<"$help") options of --help"
	fi
done
# in a real interactive bash, a file name the shell would take apart is quoted when inserted
mkdir odd && touch 'odd/a b.repro' 'odd/$(touch PWNED).repro'
/usr/bin/python3 - "$src/completions/repro.bash" <<'PY'
import os, pty, select, sys, time
def run(line):
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir("odd")
        os.environ.update(PS1="$ ", INPUTRC="/dev/null")
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
    def rd(t):
        out, end = b"", time.time() + t
        while time.time() < end:
            if select.select([fd], [], [], 0.05)[0]:
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    break
        return out
    rd(0.5)
    os.write(fd, b"source %s; repro() { printf '<%%s>' \"$@\"; echo; }\n" % sys.argv[1].encode())
    rd(0.5)
    os.write(fd, line.encode() + b"\t")
    rd(1.0)
    os.write(fd, b"\n")
    out = rd(1.0)
    os.write(fd, b"exit\n")
    rd(0.3)
    return out.decode(errors="replace")
a = run("repro show a")
b = run("repro show $")
ok = "<show><a b.repro>" in a and "<show><$(touch PWNED).repro>" in b and not os.path.exists("odd/PWNED")
print("ok: a name with a space or $(...) is inserted quoted, nothing runs" if ok else
      "FAIL: file names inserted unquoted: %r %r" % (a[-80:], b[-80:]))
sys.exit(0 if ok else 1)
PY
[ $? = 0 ] || fail=1
if command -v zsh >/dev/null; then
	if zsh -n "$src/completions/_repro"; then echo "ok: _repro is valid zsh"; else
		echo "FAIL: _repro: zsh syntax"
		fail=1
	fi
fi
exit $fail
