#!/bin/sh
# Fails when a C file differs from what clang-format makes of it (.clang-format, STYLE.md "Form").
# Fix with: clang-format -i $(git ls-files '*.c' '*.h')
cd "$(dirname "$0")/.." || exit 2
command -v clang-format >/dev/null || { echo "clang-format not installed: skip"; exit 77; }
files=$(find common launcher recorder bundles session replayer cli tests -name '*.[ch]' | sort)
if clang-format --dry-run -Werror $files; then
	echo "format ok ($(echo "$files" | wc -l) files)"
else
	echo "format: run clang-format -i on the files above"
	exit 1
fi
