# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# Sourced by the exec_* hooks.
# repro starts a program that cannot be run: the exit status is a shell's
# (127 missing, 126 not executable), the failed execve is in the bundle.
# Who reports it differs (env(1) in the bare run, repro under repro): both
# lines are masked to one.
CASE_MASK_SED='s/^(env|repro): .*(No such file or directory|Permission denied|command not found).*$/CANNOT-EXECUTE/'

case_begin() {
	printf '#!/bin/sh\necho "tool ran"\n' >"$TMP/tool.sh"
	chmod 0644 "$TMP/tool.sh"
	# no #! line: the kernel says ENOEXEC, and execvp(3) runs it with /bin/sh
	printf 'echo "plain ran with $# argument(s)"\n' >"$TMP/plain.sh"
	chmod 0755 "$TMP/plain.sh"
}
