#!/bin/bash
# Starts the web UI.  Kept WITHOUT its run bit on purpose (mode 0644): see
# start_app_noexec.sh.
exec python3 webui.py "$@"
