# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# ping as root gets its raw socket under repro as without it.  As a user,
# ping's file capability (cap_net_raw) is not granted to a traced program,
# under repro as under strace (ptrace(2): an unprivileged tracer keeps
# execve from gaining privileges), so the case is root's.
CASE_NEEDS_ROOT=1
CASE_MASK_SED='s/time[=< ][0-9.]+ ?ms/time=T ms/g; s/= [0-9.]+\/[0-9.]+\/[0-9.]+\/[0-9.]+ ms/= T ms/'
