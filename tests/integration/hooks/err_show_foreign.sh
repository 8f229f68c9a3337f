# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# A zstd tar that is not a repro bundle: its manifest has another format.
case_begin() {
	mkdir -p "$TMP/foreign"
	echo '{"format":"something-else","version":1}' >"$TMP/foreign/manifest.json"
	echo 'hello' >"$TMP/foreign/notes.txt"
	tar --zstd -cf "$TMP/foreign.repro" -C "$TMP/foreign" manifest.json notes.txt
}
