#!/bin/bash
# A startup script that hides every cause behind one line: a sweep finds its
# faults on model.bin vague.
if ! python3 -c 'open("model.bin", "rb").read()' 2>/dev/null; then
	echo "startup failed" >&2
	exit 1
fi
echo "model loaded"
