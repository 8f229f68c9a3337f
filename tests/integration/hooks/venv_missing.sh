# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# A Python made with `python3 -m venv` and a copy of python3 in a prefix of
# its own (as pyenv, conda or /opt installs are): their loader, module and
# site searches happen under prefixes no list knows, and the true failure
# is a missing configuration file.
case_begin() {
	/usr/bin/python3 -m venv --without-pip "$TMP/venv"
	mkdir -p "$TMP/opt/x/bin"
	cp /usr/bin/python3 "$TMP/opt/x/bin/python3"
}
