# shellcheck shell=bash disable=SC2154 # variables of run_case.sh
# A Python program that looks for two optional files, then fails to open its
# model and says so itself, naming the file (relative, as written).

case_begin() {
	cat >"$TMP/app.py" <<'PY'
import os, sys
for p in ("/etc/said-app/extra.conf", "/usr/share/said-app/plugins.txt"):
    try:
        open(p).close()
    except OSError:
        pass
os.makedirs("cache_hub", exist_ok=True)
try:
    open("cache_hub/model.pth", "rb")
except OSError:
    print("loading model ...", file=sys.stderr)
    print("model load failed: cache_hub/model.pth", file=sys.stderr)
    sys.exit(1)
PY
}
