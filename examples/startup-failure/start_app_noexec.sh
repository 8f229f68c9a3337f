#!/bin/bash
# Variant: the UI is started through a helper script that was committed
# without its run bit, so bash cannot execute it (execve -> EACCES, exit 126).
cd "$(dirname "$0")" || exit 1
./launch_ui.sh "$@"
