#!/bin/bash
# secrets.sh REPRO: secrets planted in the environment, argv, a URL and a
# header never reach any member of the bundle (issue "Secrets stay home";
# README).  The program really uses them (curl sends the header to a closed
# loopback port), so they pass through execve (argv and environment), events
# and trace.txt.
set -u
repro=$1
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-secrets.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
# absent_from DIR SECRET...: no member extracted in DIR holds any SECRET
absent_from() {
	local dir=$1 s
	shift
	for s in "$@"; do
		if grep -rl -- "$s" "$dir" >/dev/null; then
			echo "FAIL: $s found in: $(grep -rl -- "$s" "$dir" | xargs -n1 basename | tr '\n' ' ')"
			fail=1
		else
			echo "ok: $s appears in no member"
		fi
	done
}
secrets=(s3cr3tA1 s3cr3tB2 s3cr3tC3 s3cr3tD4 s3cr3tE5 s3cr3tF6 s3cr3tG7 sk-s3cr3tH8 s3cr3tI9)
env AWS_SECRET_ACCESS_KEY=s3cr3tA1 GITHUB_TOKEN=s3cr3tB2 MY_PASSWORD=s3cr3tC3 KEEP_ME=visible \
	"$repro" record --keep-env KEEP_ME --redact 'sk-[A-Za-z0-9]+' -o "$work/s.repro" -- \
	sh -c 'curl -sS --max-time 5 -H "Authorization: Bearer s3cr3tD4" "http://bob:s3cr3tE5@127.0.0.1:1/x?q=1" "$1" "$2" "$3" >/dev/null 2>&1; echo "$4" >/dev/null; exit 0' \
	sh --password=s3cr3tF6 DB_TOKEN=s3cr3tG7 sk-s3cr3tH8 "Cookie: s=s3cr3tI9"
rc=$?
[ $rc = 0 ] || { echo "FAIL: repro record exited $rc"; exit 1; }
mkdir x && tar --zstd -xf s.repro -C x || { echo "FAIL: cannot extract"; exit 1; }
ls x
absent_from x "${secrets[@]}"
# what must still be there: the shape of the command, kept values, non-secret parts
grep -q '"KEEP_ME": "visible"' x/host.json && echo "ok: --keep-env kept KEEP_ME" || { echo "FAIL: KEEP_ME not kept"; fail=1; }
grep -q 'bob:<redacted>@127.0.0.1' x/events.jsonl && echo "ok: the URL keeps its user and host" || { echo "FAIL: URL shape lost"; fail=1; }
for m in events.jsonl processes.jsonl; do
	grep -q '"KEEP_ME=visible"' "x/$m" && grep -q '"GITHUB_TOKEN=<redacted>"' "x/$m" &&
		echo "ok: exec environments in $m keep KEEP_ME and redact GITHUB_TOKEN" ||
		{ echo "FAIL: exec environments in $m"; fail=1; }
done
grep -q '"GITHUB_TOKEN"' x/manifest.json && echo "ok: the manifest names what was redacted" || { echo "FAIL: no redacted list"; fail=1; }

# an environment secret expanded into a child's argv, well-known token
# shapes and presigned-URL signatures, with default options
shapes=(Zx9envTokenValue42 ghp_0123456789abcdefghijABCDEFGHIJ github_pat_11ABCDEFG0123456789abcdef
	glpat-abcdefghij0123456789 xoxb-1234567890-abcdefghij AKIAIOSFODNN7EXAMPLE
	sk-proj0123456789abcdefghijkl eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlaGVyZQ
	deadbeefcafe0123 AKIDEXAMPLEcred)
env DEPLOY_TOKEN=Zx9envTokenValue42 "$repro" record -o "$work/t.repro" -- \
	sh -c '/bin/true "$DEPLOY_TOKEN" "$@"' sh "${shapes[@]:1:7}" \
	"https://b.s3.amazonaws.com/k?X-Amz-Signature=deadbeefcafe0123&X-Amz-Credential=AKIDEXAMPLEcred" \
	>/dev/null 2>&1
mkdir t && tar --zstd -xf t.repro -C t || { echo "FAIL: cannot extract t.repro"; exit 1; }
absent_from t "${shapes[@]}"
grep -q 'X-Amz-Signature=<redacted>' t/events.jsonl && echo "ok: the URL keeps its shape" ||
	{ echo "FAIL: presigned URL shape lost"; fail=1; }
exit $fail
