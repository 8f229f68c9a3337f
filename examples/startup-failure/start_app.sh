#!/bin/bash
# One-command startup of the web UI, as a deployment would ship it.
cd "$(dirname "$0")" || exit 1
if ! python3 webui.py "$@"; then
	echo "startup failed" >&2
	exit 1
fi
