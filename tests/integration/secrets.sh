#!/bin/bash
# secrets.sh REPRO: secrets planted in the environment, argv, a URL, a
# header, program-specific password options and in files whose content
# hash would give them away never reach any member of the bundle (issue
# "Secrets stay home"; README).  The program really uses them (curl sends the header to a closed
# loopback port), so they pass through execve (argv and environment), events
# and trace.txt.
set -u
. "$(dirname "$0")/lib.sh"
repro=$1
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-secrets.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0 planted=0 leaked=0
# absent_from DIR SECRET...: no member extracted in DIR holds any SECRET
absent_from() {
	local dir=$1 s
	shift
	for s in "$@"; do
		planted=$((planted + 1))
		if grep -rl -- "$s" "$dir" >/dev/null; then
			echo "FAIL: $s found in: $(grep -rl -- "$s" "$dir" | xargs -n1 basename | tr '\n' ' ')"
			fail=1 leaked=$((leaked + 1))
		else
			echo "ok: $s appears in no member"
		fi
	done
}
# check WHAT CMD...: CMD succeeds
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

# a quoted two-word value in a command string, curl's -u glued, a URL
# password holding an '@', token shapes glued after other characters; the
# user of -u and of the URL, ordinary words with "sk-" and ssh -p 22 stay
glued=(Qv1aQuoted Qv2bSecond Qv3GluedPass Qv4UserEq Qv5UserNext Qv6UrlOne Qv7UrlTwo
	Zs1a2b3c4d5e6f7g8h9i0jKLMNOPQRSTUV Qv8JwtBody Qv9SkGlued0123456789abcdefghijklmn)
"$repro" record -o "$work/g.repro" -- bash -c "
/bin/true --password 'Qv1aQuoted Qv2bSecond' ssh -p 22 desk-top task-1
curl -s --max-time 5 -ubob:Qv3GluedPass --user=bob:Qv4UserEq -u bob:Qv5UserNext \
	http://bob:Qv6UrlOne@Qv7UrlTwo@127.0.0.1:1/
/bin/true xghp_Zs1a2b3c4d5e6f7g8h9i0jKLMNOPQRSTUV xeyJhbGciOiJIUzI1NiJ9.eyQv8JwtBody.c2ln
sh -c '/bin/true xsk-Qv9SkGlued0123456789abcdefghijklmn'
exit 0" >/dev/null 2>&1
mkdir g && tar --zstd -xf g.repro -C g || { echo "FAIL: cannot extract g.repro"; exit 1; }
absent_from g "${glued[@]}"
gexecs=$(jq -c 'select(.syscall=="execve" and .ret==0) | .argv' g/events.jsonl)
check "curl keeps the users: -ubob:, --user=bob:, bob:, http://bob:" grep -qF -- \
	'"-ubob:<redacted>","--user=bob:<redacted>","-u","bob:<redacted>","http://bob:<redacted>@127.0.0.1:1/"' <<<"$gexecs"
check "the quoted value goes whole; ssh -p 22, desk-top, task-1 stay" grep -qF -- \
	'["/bin/true","--password","<redacted>","ssh","-p","22","desk-top","task-1"]' <<<"$gexecs"
check "the bash -c string keeps the words after the quoted value" \
	grep -qF -- '/bin/true --password <redacted> ssh -p 22 desk-top task-1' g/manifest.json

# program-specific secret options (docs/bundle-format.md, "Redaction of
# arguments"), with default options.  The rules key on the program's name:
# stand-ins named mysql, sshpass, docker … come first on PATH (sshpass and
# sudo run the command after their options, as the real ones do); ssh,
# psql and redis-cli are the real ones where installed, and their -p (a
# port) must stay visible.
bin=$work/bin
mkdir "$bin"
standin() { printf '#!/bin/sh\nexit 0\n' >"$bin/$1" && chmod +x "$bin/$1"; }
for p in mysql mysqldump mysqladmin mariadb mariadb-dump docker podman nerdctl; do standin "$p"; done
for p in ssh psql redis-cli; do command -v "$p" >/dev/null || standin "$p"; done
cat >"$bin/sshpass" <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -p|-f|-d|-P) shift 2 ;; -*) shift ;; *) break ;; esac; done
exec "$@"
SH
cat >"$bin/sudo" <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -u|-g) shift 2 ;; -*) shift ;; *) break ;; esac; done
exec "$@"
SH
chmod +x "$bin/sshpass" "$bin/sudo"
progs=(MyS3cretP1 MyS3cretP2 MyS3cretP3 MyS3cretP4 MyS3cretP5 MyS3cretP6 MyS3cretP7 MyS3cretP8
	MyS3cretP9 MyS3cretPa MyS3cretPb MyS3cretPc MyS3cretPd MyS3cretPe MyS3cretPf MyS3cretPg
	MyS3cretPh MyS3cretPi)
PATH="$bin:$PATH" "$repro" record -o "$work/p.repro" -- bash -c '
mysql -uroot -pMyS3cretP1 app
mysqldump -pMyS3cretP2 app
mariadb --password=MyS3cretP3 app
mariadb-dump --pass=MyS3cretP4 app
mysqladmin -uroot -p"MyS3cretP5" status
sshpass -p MyS3cretP6 ssh -p 2222 -o BatchMode=yes -o ConnectTimeout=2 127.0.0.1 true
sshpass -pMyS3cretP7 true
docker login -u bob -p MyS3cretP8 registry.example
docker login --password MyS3cretP9 registry.example
podman login -pMyS3cretPa registry.example
nerdctl login --password=MyS3cretPb registry.example
env A=1 mysql -pMyS3cretPc
sudo -u root mysql -pMyS3cretPd
psql -h 127.0.0.1 -p 5433 -c "select 1"
redis-cli -p 6390 ping
exit 0' >/dev/null 2>&1
PATH="$bin:$PATH" "$repro" record -o "$work/p2.repro" -- sudo -u root env A=1 mysql -pMyS3cretPe app
PATH="$bin:$PATH" "$repro" record -o "$work/p3.repro" -- sshpass -p MyS3cretPf \
	sh -c 'docker login -u bob -p "$1" r' sh MyS3cretPg >/dev/null 2>&1
# --trace=network: processes.jsonl takes argv from /proc/PID/cmdline, which for
# the stand-ins (scripts) is the kernel's: /bin/sh, the script, its arguments
PATH="$bin:$PATH" "$repro" record --trace=network -o "$work/p4.repro" -- \
	sh -c 'mysql -pMyS3cretPh; docker login -u bob -p MyS3cretPi r' >/dev/null 2>&1
mkdir p && tar --zstd -xf p.repro -C p && for k in 2 3 4; do
	tar --zstd -xf p$k.repro -C p --transform "s/^/p$k-/" || exit 1
done || { echo "FAIL: cannot extract p*.repro"; exit 1; }
absent_from p "${progs[@]}"
execs=$(jq -c 'select(.syscall=="execve" and .ret==0) | .argv' p/events.jsonl)
has_exec() { grep -qF -- "$1" <<<"$execs"; }
check "mysql -pSECRET keeps -p: $(grep -F '"mysql","-uroot"' <<<"$execs")" has_exec '["mysql","-uroot","-p<redacted>","app"]'
check "sshpass -p SECRET keeps the command" has_exec '["sshpass","-p","<redacted>","ssh","-p","2222"'
check "docker login keeps its user" has_exec '["docker","login","-u","bob","-p","<redacted>","registry.example"]'
check "ssh -p 2222 stays (a port)" has_exec '["ssh","-p","2222",'
check "psql -p 5433 stays (a port)" has_exec '["psql","-h","127.0.0.1","-p","5433",'
check "redis-cli -p 6390 stays (a port)" has_exec '["redis-cli","-p","6390","ping"]'
check "the bash -c string keeps ssh -p 2222, psql -p 5433, redis-cli -p 6390" \
	grep -q 'ssh -p 2222 .*psql -h 127.0.0.1 -p 5433 .*redis-cli -p 6390' p/manifest.json
check "the bash -c string in trace.txt keeps its shape" grep -q 'mysql -uroot -p<redacted> app' p/trace.txt
check "the manifest argv behind sudo and env" \
	test "$(jq -c .argv p/p2-manifest.json)" = '["sudo","-u","root","env","A=1","mysql","-p<redacted>","app"]'
check "--trace=network: a script's argv from /proc, /bin/sh first" \
	grep -qF '"argv":["/bin/sh","'"$bin"'/docker","login","-u","bob","-p","<redacted>","r"]' p/p4-processes.jsonl
check "sh -c '… -p \"\$1\"' sh SECRET: the SECRET argument" \
	test "$(jq -c .argv p/p3-manifest.json)" = '["sshpass","-p","<redacted>","sh","-c","docker login -u bob -p \"<redacted>\" r","sh","<redacted>"]'

# content hashes a guess could be checked against (docs/bundle-format.md,
# "Content hashes"): a 5-byte PIN file, an owner-only file, a key-named
# file (both large) get no hash, a large public file keeps its own
mkdir h && cd h || exit 1
printf 48213 >pin.txt
seq 2000 >private.conf && chmod 600 private.conf
seq 3000 >id_rsa_deploy && chmod 644 id_rsa_deploy
seq 5000 >public.txt
cat >read.sh <<'SH'
#!/bin/sh
cat pin.txt private.conf id_rsa_deploy public.txt >/dev/null
SH
chmod 755 read.sh
"$repro" record -o "$work/h1.repro" -- ./read.sh
"$repro" record -o "$work/h2.repro" -- ./read.sh
"$repro" record --hash-secrets -o "$work/hs.repro" -- ./read.sh
cd "$work" || exit 1
files() { tar --zstd -xOf "$1" files.jsonl; }
# meta_of BUNDLE FILE KEY: files.jsonl's meta.KEY of h/FILE
meta_of() { files "$1" | jq -r --arg p "$work/h/$2" --arg k "$3" 'select(.path==$p) | .meta[$k]'; }
mkdir hx && tar --zstd -xf h1.repro -C hx
for fr in pin.txt:small private.conf:owner-only id_rsa_deploy:secret-name; do
	f=${fr%%:*} reason=${fr#*:}
	h=$(meta_of hs.repro "$f" hash)
	check "--hash-secrets: $f has a hash ($h)" test "${h:0:5}" = xxh3:
	check "$f: hash withheld ($reason)" test "$(meta_of h1.repro "$f" hash_withheld)" = "$reason"
	absent_from hx "$h"
done
check "public.txt keeps its hash" test "$(meta_of h1.repro public.txt hash)" = "$(meta_of hs.repro public.txt hash)"
out=$("$repro" diff h1.repro h2.repro)
check "the same PIN twice: no difference (exit 0)" test $? = 0
check "the same PIN twice: diff says pin.txt was not compared" \
	grep -q '^Content not compared.*<cwd>/pin.txt' <<<"$out"
printf 90317 >h/pin.txt && touch -d '+1 second' h/pin.txt
(cd h && "$repro" record -o "$work/h3.repro" -- ./read.sh)
out=$("$repro" diff h1.repro h3.repro)
check "another PIN, the same size: diff exits 1" test $? = 1
check "another PIN, the same size: content not compared, another modification time" \
	grep -q 'pin.txt: content not compared: hash withheld (small); the same size, another modification time' <<<"$out"
printf 903170 >h/pin.txt
(cd h && "$repro" record -o "$work/h4.repro" -- ./read.sh)
check "a longer PIN: another size, content not compared" \
	grep -q 'pin.txt: another size (5 bytes in A, 6 in B); content not compared: hash withheld (small)' \
	<<<"$("$repro" diff h1.repro h4.repro)"
# A secret stays home wherever it shows up (issue 26): what redaction
# removes from an argument is removed from every string of the bundle,
# paths included (git stats a URL as a local path; touch makes a file named
# after a token), and from every reader's output; values a script exports
# itself are learned from each exec's environment; general rules cover
# secret-named options and settings, URL users, connect strings, and each
# line of a script, nested ones too.
for p in vault az twine ssh-keygen htpasswd sqlplus aws openssl; do standin "$p"; done
ghp=ghp_Wq8ZtouchTok3n0123456789abcdefABCDEF
every=(TOKENVALUE8x8 "$ghp" Zq9innerTok3nValue NsDbPass9x8 NsPwEq9x8 NsAnsBecome9x8 NsDockerPw9x8
	NsSasSig9x8Zz a1b2c3d4e5f6g7h8i9j0k1 NsSqlPw9x8 NsOpenssl9x8 NsNestedCurl9x8 NsAwsKey9x8
	NsVault9x8 NsAzLogin9x8 NsTwine9x8 NsKeygen9x8 NsHtpass9x8 NsJsonOut9x8 NsProseKey9x8)
"$repro" record -o "$work/a.repro" -- git clone https://oauth2:TOKENVALUE8x8@127.0.0.1:1/x.git >/dev/null 2>&1
"$repro" record -o "$work/b.repro" -- touch "$ghp.txt" >/dev/null 2>&1
PATH="$bin:$PATH" "$repro" record -o "$work/c.repro" -- bash -c '
export INNER_TOKEN=$(printf "%s%s" Zq9inner Tok3nValue)
ls "$INNER_TOKEN" "/tmp/$INNER_TOKEN"
/bin/true --db-pass NsDbPass9x8 --pw=NsPwEq9x8 -e ansible_become_pass=NsAnsBecome9x8
docker run -e DBPASS=NsDockerPw9x8 img
curl -s --max-time 2 "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sig=NsSasSig9x8Zz" https://a1b2c3d4e5f6g7h8i9j0k1@127.0.0.1:1/ >/dev/null
sqlplus scott/NsSqlPw9x8@orcl @run.sql
openssl enc -aes256 -pass pass:NsOpenssl9x8 -in /dev/null
bash -c "curl -s --max-time 2 -u user:NsNestedCurl9x8 http://127.0.0.1:1/ >/dev/null"
aws configure set aws_secret_access_key NsAwsKey9x8
vault login NsVault9x8
az login -u bob -p NsAzLogin9x8
twine upload -p NsTwine9x8 dist/x.whl
ssh-keygen -N NsKeygen9x8 -f /tmp/k
htpasswd -b -c /tmp/ht bob NsHtpass9x8
echo "{\"password\": \"NsJsonOut9x8\"}" >&2
echo "using api key NsProseKey9x8" >&2
exit 0' >/dev/null 2>"$work/c.stderr" # not /dev/null: output.jsonl keeps what stderr got
mkdir all && for k in a b c; do
	tar --zstd -xf $k.repro -C all --transform "s/^/$k-/" || exit 1
done || { echo "FAIL: cannot extract a/b/c.repro"; exit 1; }
absent_from all "${every[@]}"
# every reader's output: what the bundle holds, nothing more
for k in a b c; do
	for view in "show" "show --trace" "show --files" "show --net" "show --host" "show --json" "explain" "export" "report"; do
		# shellcheck disable=SC2086
		"$repro" $view "$k.repro" >"all/out-$k-${view// /_}.txt" 2>&1
	done
done
planted_before=$planted
absent_from all "${every[@]}" >/dev/null
planted=$planted_before
for s in "${every[@]}"; do
	grep -rl -- "$s" all >/dev/null && { echo "FAIL: $s in a reader's output: $(grep -rl -- "$s" all | xargs -n1 basename | tr '\n' ' ')"; fail=1; }
done
check "readers (show, --trace, --files, --net, --host, --json, explain, export, report) print none" true
# what must survive: the shape around each secret, ordinary paths and words
check "git's URL keeps user and host" grep -qF 'https://oauth2:<redacted>@127.0.0.1:1/x.git' all/a-manifest.json
check "the stat of the URL as a path is redacted too" grep -qF 'oauth2:<redacted>@127.0.0.1:1/x.git' all/a-events.jsonl
check "touch's file keeps its suffix" grep -qF '<redacted>.txt' all/b-files.jsonl
check "ls's paths: /tmp/<redacted>" grep -qF '"/tmp/<redacted>"' all/c-events.jsonl
check "sqlplus keeps user and database" grep -qF 'sqlplus scott/<redacted>@orcl @run.sql' all/c-manifest.json
check "a SAS URL keeps sv= and its shape" grep -qF 'sv=2022-11-02&sig=<redacted>' all/c-manifest.json
check "output keeps the JSON and the sentence" grep -qF '{\"password\": \"<redacted>\"}\nusing api key <redacted>' all/c-output.jsonl
check "ordinary paths survive (/usr/bin/git, /etc/ld.so.cache)" grep -qF '"/etc/ld.so.cache"' all/a-files.jsonl
echo "secrets planted: $planted, leaked: $leaked"
exit $fail
