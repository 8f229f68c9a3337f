# bash completion for repro(1): subcommands, options, their values (trace
# classes, network and sandbox modes, fault kinds and classes), fault rules
# of --inject (syscall names, then keys, errno and signal names, from
# `repro __complete`), bundles (*.repro) for the commands that read them,
# and the program after `--`.  Installed as
# share/bash-completion/completions/repro.

_repro_opts_record='-o --output --trace --net --sandbox --no-sandbox --ptrace-only --wait --keep-env --redact --redact-hostname --hash-max --hash-secrets --io-uring --inject --seed --overlay --keep-overlay -v --verbose -h --help'
_repro_opts_show='--json --trace --files --net --host --all --max-read --max-memory --color -h --help'
_repro_opts_explain='--json --all --max-read --max-memory --color -h --help'
_repro_opts_diff='--json --map --max-read --max-memory --color -h --help'
_repro_opts_pack='-o --output -h --help'
_repro_opts_export='--format -o --output --max-read --max-memory -h --help'
_repro_opts_report='-o --output --max-read --max-memory -h --help'
_repro_opts_sweep='--from --only --include-system --faults --timeout --jobs --shard --net --overlay --json --junit --keep --fail-on --merge -h --help'
_repro_opts_replay='-y --yes --trust --net -o --output --cwd --map --fast --only --inject --no-impose --no-overlay --keep-overlay --strict -q --quiet --minimize --simulate --probe-network --include-system --json -h --help'
# options that take a value (the next word, or --opt=VALUE)
_repro_valued=' -o --output --trace --net --sandbox --wait --keep-env --redact --hash-max --io-uring --inject -e --seed --keep-overlay --max-read --max-memory --color --format --map --from --only --faults --timeout --jobs --shard --junit --keep --fail-on --cwd --trust '
_repro_rule_keys='error= retval= when= delay_enter= delay_exit= delay= signal= path= addr= port= type= host= exe= prob= after= blackhole'

# _repro_add KEEP FULL WORD...: each WORD that starts with FULL, less KEEP
# (what the line keeps before readline's word: up to the last
# COMP_WORDBREAKS character), into COMPREPLY.
_repro_add() {
	local keep=$1 full=$2 w
	shift 2
	for w in "$@"; do
		[[ $w == "$full"* ]] && COMPREPLY+=("${w#"$keep"}")
	done
}

# _repro_list KEEP FULL PREFIX WORD...: the last element of a comma list.
_repro_list() {
	local keep=$1 full=$2 pre=$3 head w
	shift 3
	head=${full%"${full##*,}"} # "file," of "file,ne"
	local words=()
	for w in "$@"; do words+=("$pre$head$w"); done
	_repro_add "$keep" "$full" "${words[@]}"
}

# _repro_rule KEEP FULL PREFIX: a fault rule (docs/faults.md) being typed.
_repro_rule() {
	local keep=$1 full=$2 pre=$3 rule=${2#"$3"} seg w words=()
	if [[ $rule != *:* ]]; then
		local set_head=${rule%"${rule##*[,!]}"}
		for w in $("$_repro_cmd" __complete syscalls 2>/dev/null) %file %network %process \
			%net %desc dns; do
			words+=("$pre$set_head$w:")
		done
		_repro_add "$keep" "$full" "${words[@]}"
		return
	fi
	seg=${rule##*:}
	local head=$pre${rule%"$seg"}
	case $seg in
	error=*)
		for w in $("$_repro_cmd" __complete errnos 2>/dev/null) NXDOMAIN SERVFAIL TIMEOUT; do
			words+=("${head}error=$w")
		done
		;;
	signal=*)
		for w in $("$_repro_cmd" __complete signals 2>/dev/null); do
			words+=("${head}signal=$w")
		done
		;;
	type=*) words=("${head}type=stream" "${head}type=dgram") ;;
	*=*) return ;;
	*) for w in $_repro_rule_keys; do words+=("$head$w"); done ;;
	esac
	_repro_add "$keep" "$full" "${words[@]}"
}

# _repro_files KEEP FULL PREFIX [GLOB|-d]: paths, only directories, or files matching GLOB.
_repro_files() {
	local keep=$1 full=$2 pre=$3 kind=${4:-} f words=()
	local path=${full#"$pre"}
	if [ "$kind" = -d ]; then
		while IFS= read -r f; do words+=("$pre$f/"); done < <(compgen -d -- "$path")
	else
		while IFS= read -r f; do
			if [ -d "$f" ]; then
				words+=("$pre$f/")
			elif [ -z "$kind" ] || [[ $f == $kind ]]; then
				words+=("$pre$f")
			fi
		done < <(compgen -f -- "$path")
	fi
	_repro_add "$keep" "$full" "${words[@]}"
	# file names: bash quotes what the shell would take apart (spaces, $, quotes)
	compopt -o filenames -o nospace 2>/dev/null
}

# _repro_value CMD OPT KEEP FULL PREFIX: the value of option OPT.
_repro_value() {
	local cmd=$1 opt=$2 keep=$3 full=$4 pre=$5
	case $cmd:$opt in
	record:--trace | show:--trace) _repro_list "$keep" "$full" "$pre" file network process ;;
	*:--net) _repro_add "$keep" "$full" "${pre}host" "${pre}none" ;;
	*:--sandbox) _repro_add "$keep" "$full" "${pre}auto" "${pre}require" "${pre}none" ;;
	*:--wait) _repro_add "$keep" "$full" "${pre}all" "${pre}main" ;;
	*:--io-uring) _repro_add "$keep" "$full" "${pre}allow" "${pre}deny" ;;
	*:--color) _repro_add "$keep" "$full" "${pre}auto" "${pre}always" "${pre}never" ;;
	*:--format) _repro_add "$keep" "$full" "${pre}chrome-trace" ;;
	*:--keep-env)
		local v words=()
		for v in $(compgen -e); do words+=("$pre$v"); done
		_repro_add "$keep" "$full" "${words[@]}"
		;;
	*:--inject | *:-e)
		_repro_rule "$keep" "$full" "$pre"
		compopt -o nospace 2>/dev/null
		;;
	*:--only) _repro_list "$keep" "$full" "$pre" file exec network dns ;;
	*:--faults)
		_repro_list "$keep" "$full" "$pre" ENOENT EACCES EIO ENOSPC EROFS ENOSPC-after-4KiB \
			ECONNREFUSED ETIMEDOUT blackhole reset-after-1KiB EADDRINUSE NXDOMAIN TIMEOUT
		;;
	*:--fail-on)
		_repro_list "$keep" "$full" "$pre" clean vague silent crashed hung carried-on \
			not-reached error
		;;
	*:--from) _repro_files "$keep" "$full" "$pre" '*.repro' ;;
	*:--cwd | *:--keep | *:--keep-overlay | *:--overlay | *:--map) _repro_files "$keep" "$full" "$pre" -d ;;
	*:-o | *:--output | *:--junit) _repro_files "$keep" "$full" "$pre" ;;
	esac
}

_repro() {
	local line=${COMP_LINE:0:COMP_POINT}
	local full=${line##*[[:space:]]}
	local wb=${COMP_WORDBREAKS//[[:space:]]/}
	local keep=${full%"${full##*[$wb]}"}
	local before=${line%"$full"} cmd='' prev='' dashdash=0 nwords=0 w
	_repro_cmd=${COMP_WORDS[0]}
	COMPREPLY=()
	read -ra words_before <<<"$before"
	for w in "${words_before[@]:1}"; do
		if [ $dashdash -gt 0 ]; then
			dashdash=$((dashdash + 1))
		elif [ "$w" = -- ] && [ -n "$cmd" ]; then
			dashdash=1
		elif [ -z "$cmd" ] && [[ $w != -* ]]; then
			cmd=$w
		fi
		prev=$w
		nwords=$((nwords + 1))
	done
	if [ $dashdash -eq 1 ]; then # the program
		local c words=()
		while IFS= read -r c; do words+=("$c"); done < <(compgen -c -- "$full")
		_repro_add "$keep" "$full" "${words[@]}"
		return
	elif [ $dashdash -gt 1 ]; then
		_repro_files "$keep" "$full" ""
		return
	fi
	if [ -z "$cmd" ]; then
		_repro_add "$keep" "$full" record show explain diff sweep replay report export pack help --help --version
		return
	fi
	if [ "$cmd" = help ]; then
		[ -z "${words_before[2]:-}" ] &&
			_repro_add "$keep" "$full" record show explain diff sweep replay report export pack
		return
	fi
	if [[ $full == --*=* ]]; then
		_repro_value "$cmd" "${full%%=*}" "$keep" "$full" "${full%%=*}="
		return
	fi
	if [[ $_repro_valued == *" $prev "* ]] && [[ $prev == -* ]]; then
		_repro_value "$cmd" "$prev" "$keep" "$full" ""
		return
	fi
	if [[ $full == -* ]]; then
		local v="_repro_opts_$cmd"
		# shellcheck disable=SC2086
		_repro_add "$keep" "$full" ${!v}
		return
	fi
	case $cmd in
	show | explain | diff | replay | report | export) _repro_files "$keep" "$full" "" '*.repro' ;;
	pack) _repro_files "$keep" "$full" "" -d ;;
	esac
}
complete -F _repro repro
