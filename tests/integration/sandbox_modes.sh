#!/bin/bash
# sandbox_modes.sh REPRO PROGRAMS VARIANT: repro records where deployments
# run, as root or as repro-test (VARIANT), with the same output and status
# as the bare run:
#   - inside `unshare -Ur` (root of a user namespace that maps one id) and
#     `unshare -Urm` (the same with its own mount namespace): the caller
#     holds CAP_SYS_ADMIN there, so repro makes a mount namespace only;
#   - inside `unshare --user --map-user=U --map-group=G` with the caller's
#     own ids only (a container user): a user namespace of its own;
#   - under a seccomp profile that fails unshare(2) with EPERM (a container
#     runtime's default): --sandbox=auto says so in one line and records
#     without namespaces; --sandbox=require refuses (exit 2); --net=none
#     cannot be honoured without namespaces and refuses too.
# PROGRAMS: tests/programs' build dir (try_syscall, deny_unshare).
set -u
. "$(dirname "$0")/lib.sh"
repro=$1
programs=$2
variant=${3:-root}
[ "$(id -u)" = 0 ] || { echo "needs root to stage the user variant: skip"; exit 77; }
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }

stage=$(mktemp -d /tmp/repro-sandbox.XXXXXX)
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"
cp "$repro" "$programs/try_syscall" "$programs/deny_unshare" "$stage/"
mkdir "$stage/work"
if [ "$variant" = user ]; then
	ensure_test_user || exit 77
	chown repro-test: "$stage/work"
fi
chmod -R a+rX "$stage"
work=$stage/work
cd "$work" || exit 1
as_variant() {
	if [ "$variant" = user ]; then
		runuser -u repro-test -- env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
			${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"} \
			${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} "$@"
	else
		env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
			${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"} \
			${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} "$@"
	fi
}
fail=0
sandbox_of() { tar --zstd -xOf "$1" manifest.json | jq -r .options.sandbox; }

# same NAME WRAPPER... -- CMD...: bare and recorded under WRAPPER print and exit the same
same() {
	local name=$1 wrap=() rc_bare rc_rec
	shift
	while [ "$1" != -- ]; do wrap+=("$1"); shift; done
	shift
	as_variant "${wrap[@]}" "$@" >"$name.bare" 2>&1
	rc_bare=$?
	as_variant "${wrap[@]}" "$stage/repro" record -o "$work/$name.repro" -- "$@" >"$name.rec" 2>"$name.err"
	rc_rec=$?
	grep -v '^repro: ' "$name.err" >>"$name.rec" # repro's own lines go to its stderr
	check "$name: the same output and status ($rc_bare) with and without repro" \
		sh -c "test $rc_bare = $rc_rec && diff -u $name.bare $name.rec"
	check "$name: a bundle was written" test -s "$name.repro"
}

# a command that shows what the program may do: its ids, a mount namespace of its own, a port
probe=(sh -c 'id -u; id -g; "$0" unshare; "$0" bind-low' "$stage/try_syscall")

same plain -- "${probe[@]}"
check "plain: sandbox $( [ "$variant" = root ] && echo mntns || echo userns+mntns)" \
	test "$(sandbox_of plain.repro)" = "$( [ "$variant" = root ] && echo mntns || echo userns+mntns)"
same unshare_r unshare -Ur -- "${probe[@]}"
check "unshare_r: a mount namespace only (root of the user namespace)" \
	test "$(sandbox_of unshare_r.repro)" = mntns
same unshare_rm unshare -Urm -- "${probe[@]}"
check "unshare_rm: a mount namespace only" test "$(sandbox_of unshare_rm.repro)" = mntns
if [ "$variant" = user ]; then
	u=$(id -u repro-test) g=$(id -g repro-test)
	same own_ids unshare --user --map-user="$u" --map-group="$g" -- "${probe[@]}"
	check "own_ids: a user namespace of its own" test "$(sandbox_of own_ids.repro)" = userns+mntns
fi

# a set-user-ID program: root's recording lets it gain its privileges; a
# user's cannot (as under strace), and says so in one line and a warning
as_variant "$stage/repro" record -o "$work/setid.repro" -- passwd -S >setid.out 2>setid.err
if [ "$variant" = user ]; then
	check "setid: one 'repro:' line names the set-user-ID program" \
		sh -c "test \$(grep -c '^repro: /usr/bin/passwd is set-user-ID' setid.err) = 1"
	check "setid: the manifest warns" \
		sh -c "tar --zstd -xOf setid.repro manifest.json | grep -q 'ran without its privileges'"
else
	check "setid: no warning as root" sh -c "! grep -q 'set-user-ID' setid.err"
fi

# a profile that refuses namespaces: auto falls back, says so once, records all the same
same denied "$stage/deny_unshare" -- sh -c 'id -u; echo ran'
check "denied: one 'repro:' line says it records without the sandbox" \
	sh -c "test \$(grep -c '^repro: .*recording without the sandbox' denied.err) = 1 && test \$(wc -l <denied.err) = 1"
check "denied: the manifest says sandbox none" test "$(sandbox_of denied.repro)" = none
check "denied: the manifest warns why" \
	sh -c "tar --zstd -xOf denied.repro manifest.json | grep -q 'recording without the sandbox'"
check "denied: the program's run is recorded" \
	sh -c "tar --zstd -xOf denied.repro events.jsonl | grep -q '\"syscall\":\"execve\"'"
for opt in --sandbox=require --net=none; do
	as_variant "$stage/deny_unshare" "$stage/repro" record $opt -o "$work/req.repro" -- true >req.out 2>req.err
	rc=$?
	check "denied $opt: exit 2 and one 'repro:' line" \
		sh -c "test $rc = 2 && test \$(wc -l <req.err) = 1 && grep -q '^repro: ' req.err && test ! -s req.out"
done
exit $fail
