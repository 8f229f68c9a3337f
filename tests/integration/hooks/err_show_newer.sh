# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# A bundle of a newer major version than this repro reads.
case_begin() {
	mkdir -p "$TMP/newer"
	cat >"$TMP/newer/manifest.json" <<'JSON'
{"format":"repro-bundle","version":99,"tool":"repro 99.0.0","argv":["true"],"cwd":"/",
 "started_at":"2030-01-01T00:00:00Z","duration_ns":1,"exit":{"code":0},"options":{},
 "counts":{"events":0,"failed":0,"processes":0},"warnings":[]}
JSON
	: >"$TMP/newer/processes.jsonl"
	: >"$TMP/newer/events.jsonl"
	: >"$TMP/newer/trace.txt"
	tar --zstd -cf "$TMP/newer.repro" -C "$TMP/newer" \
		manifest.json processes.jsonl events.jsonl trace.txt
}
