#!/bin/sh
# Fails when a C file outside the syscall table (common/sysent.c) and the
# decoders (recorder/sys/) decides by a syscall's name: a comparison of a
# call's name with a quoted syscall name, or a list of quoted syscall names.
# What a call means is a column of the table (docs/architecture.md, "The
# syscall table"); code reads the column, so that a new call is one row.
cd "$(dirname "$0")/.." || exit 2
names=$(sed -n 's/^\tROW(\([a-z0-9_]*\),.*/\1/p' common/sysent.c | sort -u)
[ "$(echo "$names" | wc -l)" -gt 200 ] || { echo "cannot read the table's names"; exit 2; }
alt=$(echo "$names" | paste -sd'|')
files=$(find common launcher recorder bundles session replayer cli -name '*.[ch]' |
	grep -v '^common/sysent\.c$\|^recorder/sys/' | sort)
# a call's name compared with a syscall name: strcmp(sc, "connect"), is(f->syscall, "rmdir") …
cmp="(strn?cmp|[^a-z_]is|[^a-z_]has)[[:space:]]*\\([^,;]*(sc|syscall|call|name)[^,;]*,[[:space:]]*\"($alt)\""
# a prefix or a part of a call's name: strncmp(sc, "exec", 4), has(f->syscall, "xattr") …
part="(strncmp|[^a-z_]has|strstr)[[:space:]]*\\([^,;]*[^a-z_](sc|syscall)\\b[^,;]*,[[:space:]]*\""
# two syscall names side by side in a list: { "read", "write" …
list="\"($alt)\",[[:space:]]*\"($alt)\""
# a syscall name given where a call's name is stored: .syscall = "openat", new("io_uring_setup" …
store="(\\.syscall[[:space:]]*=[^;]*|_new\\()\"($alt)\""
# comments are left out: /* … */ on one line, and the lines of a block comment
bad=$(for f in $files; do
	sed 's,/\*.*\*/,,; s,^[[:space:]]*/\*.*,,; s,^[[:space:]]*\*.*,,' "$f" |
		grep -nE "$cmp|$part|$list|$store" | sed "s,^,$f:,"
done)
if [ -n "$bad" ]; then
	echo "$bad"
	echo "decides by a syscall's name: use a column of common/sysent.c instead"
	exit 1
fi
echo "syscall names ok ($(echo "$files" | wc -l) files)"
