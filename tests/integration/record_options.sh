#!/bin/bash
# record_options.sh REPRO PROGRAMS: what each `repro record` option promises
# (README, `repro record --help`), on the real binary: --wait=main,
# --no-sandbox, --trace, --hash-max, --hash-secrets, --redact-hostname, --ptrace-only (and
# the same without a seccomp listener to be had); and one-line errors
# (exit 2, no bundle) for bad values.  PROGRAMS: tests/programs' build dir.
set -u
. "$(dirname "$0")/lib.sh"
repro=$1
programs=$2
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-opts.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
member() { tar --zstd -xOf "$1" "$2"; }
py() { /usr/bin/python3 -c "$1"; }
echo "some content" > data.txt

# --wait=main: stop when the command ends, kill what it left running
start=$(date +%s)
nap=20.$$ # a duration no other run uses, to find this sleep again
"$repro" record --wait=main -o wait.repro -- sh -c "(setsid sleep $nap &); exit 3"
rc=$?
check "--wait=main: repro exits with the command's status (3, got $rc)" test "$rc" = 3
check "--wait=main: it did not wait for the 20 s sleep" test $(($(date +%s) - start)) -lt 15
check "--wait=main: the sleep is recorded as left running" \
	sh -c "tar --zstd -xOf wait.repro processes.jsonl | grep -q '\"left_running\":true'"
check "--wait=main: the manifest warns about it" \
	sh -c "tar --zstd -xOf wait.repro manifest.json | grep -q 'still running when the recording stopped'"
check "--wait=main: the sleep is gone" sh -c "! pgrep -f '^sleep $nap\$' >/dev/null"

# --no-sandbox: no namespaces, the same program
out=$("$repro" record --no-sandbox -o nosb.repro -- cat data.txt)
check "--no-sandbox: the program's output is unchanged" test "$out" = "some content"
check "--no-sandbox: the manifest says sandbox none" \
	test "$(member nosb.repro manifest.json | py 'import json,sys; print(json.load(sys.stdin)["options"]["sandbox"])')" = none

# --trace=network: no file events, processes still known
"$repro" record --trace=network -o net.repro -- cat data.txt >/dev/null
check "--trace=network: no openat events" sh -c "! tar --zstd -xOf net.repro events.jsonl | grep -q '\"syscall\":\"openat\"'"
check "--trace=network: the exec of cat is in processes.jsonl" \
	sh -c "tar --zstd -xOf net.repro processes.jsonl | grep -q '\"argv\":\\[\"cat\",\"data.txt\"\\]'"

# --hash-max: default hashes what was read, 0 hashes nothing; --hash-secrets
# also hashes a file under 256 bytes, whose hash is withheld by default
seq 1000 >big.txt
"$repro" record -o h1.repro -- cat data.txt big.txt >/dev/null
"$repro" record --hash-max=0 -o h0.repro -- cat data.txt big.txt >/dev/null
"$repro" record --hash-secrets -o hs.repro -- cat data.txt big.txt >/dev/null
meta_of() { member "$1" files.jsonl | py "import json,sys
for l in sys.stdin:
    o = json.loads(l)
    if o['path'] == '$work/$2': print((o.get('meta') or {}).get('$3'))"; }
check "default: big.txt has an xxh3 hash" sh -c "test \"\$(echo $(meta_of h1.repro big.txt hash) | cut -c1-5)\" = xxh3:"
check "default: data.txt (13 bytes) has no hash, withheld as small" \
	test "$(meta_of h1.repro data.txt hash) $(meta_of h1.repro data.txt hash_withheld)" = "None small"
check "--hash-secrets: data.txt has an xxh3 hash" \
	sh -c "test \"\$(echo $(meta_of hs.repro data.txt hash) | cut -c1-5)\" = xxh3:"
check "--hash-max=0: big.txt has none" test "$(meta_of h0.repro big.txt hash)" = None
check "--hash-max=0: nothing is said withheld" test "$(meta_of h0.repro data.txt hash_withheld)" = None

# --redact-hostname: the name and \$HOSTNAME
HOSTNAME=my-secret-host "$repro" record --redact-hostname -o host.repro -- true
check "--redact-hostname: hostname and \$HOSTNAME are redacted" \
	sh -c "! tar --zstd -xOf host.repro host.json | grep -q 'my-secret-host' && tar --zstd -xOf host.repro host.json | grep -q '\"hostname\": \"<redacted>\"'"
# and the names of this machine in the /etc/hosts entries the run read
# (in a network namespace of its own: the lookup cannot reach a resolver)
unshare --net "$repro" record --redact-hostname -o hosts.repro -- getent hosts localhost >/dev/null
own=$(uname -n)
check "--redact-hostname: /etc/hosts entries do not name the machine ($own)" \
	sh -c "tar --zstd -xOf hosts.repro host.json | jq -e '.hosts_file' >/dev/null && ! tar --zstd -xOf hosts.repro host.json | jq -r '.hosts_file[].names[]' | grep -qix -e '$own' -e '$own\..*'"

# path-only calls: answered by repro (seccomp user notification), or with
# --ptrace-only, or when a supervisor's listener is already in place
# (EBUSY), by ptrace stops: the same output and results either way
unseen() { tar --zstd -xOf "$1" events.jsonl | grep -c '"result_unseen":true'; }
stat_of() { tar --zstd -xOf "$1" events.jsonl | grep '"path":"/etc/hostname"' | grep -o '"ret":[-0-9a-z]*' | head -1; }
a=$("$repro" record -o notify.repro -- stat -L -c %s /dev/stdin /etc/hostname </dev/null)
b=$("$repro" record --ptrace-only -o ptrace.repro -- stat -L -c %s /dev/stdin /etc/hostname </dev/null)
c=$("$programs/with_listener" "$repro" record -o busy.repro -- stat -L -c %s /dev/stdin /etc/hostname </dev/null)
check "notification, --ptrace-only and a busy listener print the same" test "$a" = "$b" -a "$a" = "$c"
check "notification: /dev/stdin (a magic link) is left to the kernel" test "$(unseen notify.repro)" = 1
check "--ptrace-only: every result is seen" test "$(unseen ptrace.repro)" = 0
check "busy listener: every result is seen (ptrace stops)" test "$(unseen busy.repro)" = 0
check "the stat of /etc/hostname has its result in all three" \
	test "$(stat_of notify.repro)" = '"ret":0' -a "$(stat_of ptrace.repro)" = '"ret":0' -a "$(stat_of busy.repro)" = '"ret":0'

# a set-user-ID program run by root acts with another uid: repro must not
# answer its path calls with root's credentials (launcher/taint.h)
suid_dir=$(mktemp -d /var/tmp/repro-suid.XXXXXX)
cp "$programs/eaccess" "$suid_dir/" && chown 65534 "$suid_dir/eaccess" && chmod 4755 "$suid_dir/eaccess"
chmod 0755 "$suid_dir"
bare=$("$suid_dir/eaccess" /etc/shadow)
case $bare in
"euid 65534 "*)
	rec=$("$repro" record -o suid.repro -- "$suid_dir/eaccess" /etc/shadow)
	check "set-user-ID program: the same answer as without repro ($bare)" test "$rec" = "$bare"
	;;
*) echo "skip: set-user-ID programs do not run set-user-ID here ($bare)" ;;
esac
rm -rf "$suid_dir"

# --wait=all (the default) says after a second what it is waiting for
"$repro" record -o waitall.repro -- sh -c "(sleep 2 &); exit 0" 2>waitall.err
rc=$?
check "--wait=all: repro exits with the command's status (0, got $rc)" test "$rc" = 0
check "--wait=all: it says which process it waits for, and how not to" \
	grep -Eq '^repro: sh has ended; still recording 1 process it left running \(pid [0-9]+\): --wait=main' waitall.err
"$repro" record -o waitquick.repro -- sh -c "(sleep 0.3 &); exit 0" 2>waitquick.err
check "--wait=all: no word when the rest ends within the second" test ! -s waitquick.err

# -v: where the bundle went, and where the run's own time went, phase by phase
"$repro" record -v -o verbose.repro -- true 2>verbose.err
check "-v: the bundle and the time of each phase are named" \
	sh -c "grep -q \"^repro: recorded [0-9]* events into 'verbose.repro'\" verbose.err &&
		grep -Eq '^repro: time: setup [0-9.]+ ms, spawn [0-9.]+ ms, program [0-9.]+ ms, after [0-9.]+ ms, pack [0-9.]+ ms$' verbose.err"

# bad values: one line, exit 2, nothing written
for bad in --hash-max=-1 --hash-max=1Q --io-uring=maybe --net=foo --trace=bogus --wait=x --redact='(' --sandbox=maybe '--net=none --no-sandbox'; do
	"$repro" record $bad -o bad.repro -- true >out.txt 2>err.txt
	rc=$?
	check "record $bad: exit 2, one 'repro:' line, no bundle" \
		sh -c "test $rc = 2 && test \$(wc -l <err.txt) = 1 && grep -q '^repro: ' err.txt && test ! -s out.txt && test ! -e bad.repro"
done
# -o without a value
"$repro" record -o >out.txt 2>err.txt
rc=$?
check "record -o (no value): exit 2, one 'repro:' line" \
	sh -c "test $rc = 2 && test \$(wc -l <err.txt) = 1 && grep -q '^repro: ' err.txt && test ! -s out.txt"
exit $fail
