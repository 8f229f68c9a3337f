#!/bin/bash
# overlay.sh REPRO [user]: record --overlay, a throwaway filesystem
# (docs/bundle-format.md "overlay.jsonl", docs/architecture.md "Sandbox").
#  1. bash, with the default paths (its cwd and $HOME): it deletes a file,
#     modifies one, creates one and a directory in each, and sees its own
#     writes; afterwards the host tree is byte-for-byte what it was (names,
#     modes, sizes and sha256 of every file), overlay.jsonl lists exactly
#     those eight changes, show has an Overlay section, no temporary
#     directory is left;
#  2. python3, the same with --overlay=PATH,PATH given;
#  3. --keep-overlay DIR: the upper layers are kept there (the created
#     file, the whiteout of the deleted one), said in one line;
#  4. a missing path: one line naming it, exit 2, nothing run;
#  4b. two paths whose kept layers would both be named a_b (a_b and a/b):
#     one line naming both, exit 2, nothing run;
#  5. --overlay with --sandbox=none: one line, exit 2.
# With "user" as root: the same as the unprivileged user repro-test (a user
# namespace; overlayfs there needs Linux >= 5.11 and the userxattr option).
set -u
. "$(dirname "$0")/lib.sh"
repro=$(readlink -f "$1")
variant=${2:-root}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user || exit 77
	run_staged bash "$stage/$(basename "$0")" "$stage/repro" user
	exit $?
fi
[ "$variant" = user ] && { unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }; }
py=/usr/bin/python3
[ -x $py ] || { echo "no python3: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-overlayt.XXXXXX)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir tmp out proj home
# temporary directories (spool, overlay layers) where the test can see them
export TMPDIR=$work/tmp
fail=0
jqe() { jq -e "$@" >/dev/null; }
same() { # file-a file-b
	cmp -s "$1" "$2" || { echo "--- diff $1 $2:"; diff "$1" "$2"; return 1; }
}

# the host tree: proj (the program's cwd) and home ($HOME)
setup() {
	rm -rf proj home && mkdir -p proj/sub home/.config
	echo "delete me" >proj/del.txt
	echo "modify me" >proj/mod.txt
	echo "leave me" >proj/sub/keep.txt
	echo "delete me" >home/.hdel
	echo "modify me" >home/hmod
	echo "leave me" >home/.config/app.conf
	chmod 640 proj/mod.txt
}
snapshot() { # out-file
	(
		find proj home -printf '%p %m %s\n' | sort
		find proj home -type f -print0 | sort -z | xargs -0 sha256sum
	) >"$1"
}
P=$(cd "$work" && pwd -P)/proj
H=$(cd "$work" && pwd -P)/home
expected() {
	sort <<EOF
created dir $P/newdir
created file $P/created.txt
deleted file $P/del.txt
modified file $P/mod.txt
created dir $H/hdir
created file $H/hcreated
deleted file $H/.hdel
modified file $H/hmod
EOF
}
changes() { # bundle
	tar -xOf "$1" overlay.jsonl | jq -r '"\(.change) \(.type) \(.path)"' | sort
}

# 1. bash, default paths
setup
snapshot before.txt
expected >expected.txt
script='rm del.txt && echo changed >>mod.txt && echo new >created.txt && mkdir newdir &&
rm "$HOME/.hdel" && echo changed >>"$HOME/hmod" && echo new >"$HOME/hcreated" && mkdir "$HOME/hdir" &&
cat mod.txt "$HOME/hmod" created.txt && ls'
(cd proj && HOME=$H "$repro" record -o ../out/bash.repro --overlay -- bash -c "$script") \
	>bash.out 2>bash.err
rc=$?
if [ "$variant" = user ] && [ $rc = 2 ] && grep -q "cannot mount an overlay" bash.err; then
	cat bash.err
	echo "overlayfs refused in a user namespace here: skip"
	exit 77
fi
check "bash ran (status 0, got $rc)" test $rc = 0
printf 'modify me\nchanged\nmodify me\nchanged\nnew\ncreated.txt\nmod.txt\nnewdir\nsub\n' >bash.want
check "bash saw its own writes" same bash.want bash.out
snapshot after.txt
check "the host tree is unchanged after bash" same before.txt after.txt
changes out/bash.repro >bash.changes
check "overlay.jsonl lists exactly bash's changes" same expected.txt bash.changes
check "created.txt is 4 bytes" test "$(tar -xOf out/bash.repro overlay.jsonl |
	jq -r "select(.path == \"$P/created.txt\") | .size")" = 4
tar -xOf out/bash.repro manifest.json >bash.manifest
check "the manifest lists overlay.jsonl" jqe '.members | index("overlay.jsonl")' bash.manifest
check "the manifest's overlay says 8 changes, not truncated" \
	jqe ".overlay.changes == 8 and .overlay.truncated == false and
		.overlay.paths == [\"$P\", \"$H\"]" bash.manifest
want_sandbox=mntns
[ "$variant" = user ] && want_sandbox=userns+mntns
check "sandbox is $want_sandbox" jqe ".options.sandbox == \"$want_sandbox\"" bash.manifest
"$repro" show out/bash.repro >bash.show
check "show has an Overlay section" grep -q '^Overlay$' bash.show
check "show lists the deleted file" grep -qF "  deleted   $P/del.txt  (file, 10 bytes)" bash.show
check "no temporary directory is left" test -z "$(ls -A tmp)"

# 2. python3, paths given
setup
snapshot before.txt
cat >prog.py <<'PY'
import os
home = os.environ["HOME"]
os.unlink("del.txt")
with open("mod.txt", "a") as f: f.write("changed\n")
with open("created.txt", "w") as f: f.write("new\n")
os.mkdir("newdir")
os.unlink(os.path.join(home, ".hdel"))
with open(os.path.join(home, "hmod"), "a") as f: f.write("changed\n")
with open(os.path.join(home, "hcreated"), "w") as f: f.write("new\n")
os.mkdir(os.path.join(home, "hdir"))
print(sorted(os.listdir(".")), open("mod.txt").read().split())
PY
(cd proj && HOME=$H "$repro" record -o ../out/py.repro --overlay=.,"$H" -- $py ../prog.py) \
	>py.out 2>py.err
rc=$?
check "python3 ran (status 0, got $rc)" test $rc = 0
check "python3 saw its own writes" grep -qF \
	"['created.txt', 'mod.txt', 'newdir', 'sub'] ['modify', 'me', 'changed']" py.out
snapshot after.txt
check "the host tree is unchanged after python3" same before.txt after.txt
changes out/py.repro >py.changes
check "overlay.jsonl lists exactly python3's changes" same expected.txt py.changes
check "no temporary directory is left after python3" test -z "$(ls -A tmp)"

# 3. --keep-overlay
setup
snapshot before.txt
(cd proj && HOME=$H "$repro" record -o ../out/keep.repro --overlay --keep-overlay ../kept \
	-- bash -c "$script") >keep.out 2>keep.err
rc=$?
check "bash ran with --keep-overlay (status 0, got $rc)" test $rc = 0
snapshot after.txt
check "the host tree is unchanged with --keep-overlay" same before.txt after.txt
pk=kept/$(echo "$P" | sed 's|^/||; s|/|_|g')
hk=kept/$(echo "$H" | sed 's|^/||; s|/|_|g')
check "the kept layer has created.txt" test "$(cat "$pk/created.txt" 2>/dev/null)" = new
check "the kept layer has the whiteout of del.txt" test -c "$pk/del.txt"
check "the kept layer has the modified mod.txt" \
	test "$(cat "$pk/mod.txt" 2>/dev/null)" = "$(printf 'modify me\nchanged')"
check "the kept home layer has hdir" test -d "$hk/hdir"
check "one line says where the layers are kept" \
	test "$(grep -c "upper layers are kept in '../kept'" keep.err)" = 1
check "the manifest says where they were kept" \
	jqe '.overlay.kept == "../kept"' <(tar -xOf out/keep.repro manifest.json)
check "only the kept layers are left in kept/" test "$(ls -A kept | wc -l)" = 2
check "no temporary directory is left with --keep-overlay" test -z "$(ls -A tmp)"

# 4. a missing path
(cd proj && "$repro" record -o ../out/missing.repro --overlay="$work/missing" -- touch ran) \
	>missing.out 2>missing.err
rc=$?
check "a missing path exits 2 (got $rc)" test $rc = 2
check "a missing path is said in one line naming it" \
	test "$(wc -l <missing.err)" = 1 -a "$(grep -c "'$work/missing'" missing.err)" = 1
check "the program did not run" test ! -e proj/ran
check "no bundle for a missing path" test ! -e out/missing.repro

# 4b. two paths whose kept layers would have the same name (a_b and a/b)
mkdir -p "$work/nm/a_b" "$work/nm/a/b"
(cd proj && "$repro" record -o ../out/names.repro --overlay="$work/nm/a_b,$work/nm/a/b" \
	--keep-overlay ../kept2 -- touch ran) >names.out 2>names.err
rc=$?
check "kept layers of the same name exit 2 (got $rc)" test $rc = 2
check "kept layers of the same name are said in one line naming both" \
	test "$(wc -l <names.err)" = 1 -a "$(grep -c "'$work/nm/a_b' and '$work/nm/a/b'" names.err)" = 1
check "the program did not run with kept layers of the same name" test ! -e proj/ran
check "no bundle with kept layers of the same name" test ! -e out/names.repro

# 5. --sandbox=none
(cd proj && "$repro" record -o ../out/none.repro --overlay --sandbox=none -- touch ran) \
	>none.out 2>none.err
rc=$?
check "--overlay with --sandbox=none exits 2 (got $rc)" test $rc = 2
check "--overlay with --sandbox=none is one line" test "$(wc -l <none.err)" = 1
check "the program did not run with --sandbox=none" test ! -e proj/ran

# the comparison sees a change: the same program without --overlay
setup
snapshot before.txt
(cd proj && HOME=$H "$repro" record -o ../out/plain.repro -- bash -c "$script") >/dev/null 2>&1
snapshot after.txt
differ() { ! cmp -s "$1" "$2"; }
check "without --overlay the same program changes the host tree" differ before.txt after.txt
exit $fail
