#!/bin/bash
# replay.sh REPRO SOURCE_ROOT [root|user]: `repro replay` (docs/replay.md)
# reproduces recorded failures on a machine where they no longer happen:
#  1. curl's recorded ECONNREFUSED while the port is open now: exit 7 again;
#  2. python3's missing config, the config now present: the same traceback;
#     and from another directory (--cwd), the path mapped there; as root,
#     a bundle another user recorded in another directory (--map): the
#     environment block names both differences and it still reproduces; a file
#     the recording read and is missing here: the divergence is named as it
#     happens and the summary says "another way"; --strict stops there with
#     the last calls of both runs; a process only the recording had and one
#     only the replay has are named; a failed open of a path with ':' is
#     imposed (its ':' escaped in the rule), and --inject names one so;
#  3. git's EACCES under a directory it could not write (as root: started
#     as root and stepping down with runuser, as entrypoints do), the
#     directory now writable: git fails the same way;
#  4. the demo recorded broken (weights missing, CDN unreachable under
#     --net=none) replayed where the weights are present: "model load
#     failed", exit 1, as recorded; the replay's bundle names each imposed
#     failure's recorded event (manifest injections "origin"), and explain
#     reads it;
#  5. --no-impose with --inject: the recorded command with only that fault;
#  6. a nonexistent, a garbage and a truncated bundle, one of a newer format
#     version, one without a working directory, a command that is not
#     here, bad options: one line, exit 2; a hostile exit signal not printed
#     raw; rule keys in a bundle's syscall and errno: never imposed, each
#     such failure said in one line;
#  7. --simulate: on the setup it was recorded in, exit 0; after a file is
#     removed, another's mode changed and the server stopped, exactly
#     those three differences (with --probe-network), exit 1; --json; a
#     recording made with --hash-secrets: an owner-only file's hash here
#     is withheld, with why, a regular file's is printed; as root, a
#     bundle another user recorded: the directory that user cannot
#     search here is named;
#  8. a received bundle (docs/replay.md, "Replaying a bundle you received"):
#     without a terminal and without --yes nothing runs (exit 2, one line);
#     --trust of another SHA-256 runs nothing, of the bundle's it runs; on a
#     terminal, "n" runs nothing and "y" runs it; what will run is shown
#     whole (a word with an escape and one of 5,000 spaces and a tail,
#     byte for byte);
#     the run's writes outside the overlays fail (EROFS) and those the
#     recording made land in overlays, not here; the network is loopback
#     only unless --net host.
# "user" runs it as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(readlink -f "$1")
src=$(readlink -f "$2")
variant=${3:-root}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user --src "$src" || exit 77
	run_staged --clean-env bash "$stage/src/tests/integration/replay.sh" "$stage/repro" \
		"$stage/src" user
	exit $?
fi
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
py=/usr/bin/python3
[ -x $py ] && command -v curl >/dev/null && command -v git >/dev/null ||
	{ echo "no python3, curl or git: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-replayt.XXXXXX)
chmod 755 "$work"
trap 'kill $(jobs -p) 2>/dev/null; chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
export PATH=/usr/bin:/bin HOME=$work/home LANG=C.UTF-8
mkdir "$work/home"
fail=0

# 1. curl: refused then, listening now
port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cd "$work" || exit 1
"$repro" record -o curl.repro -- curl -sS "http://127.0.0.1:$port/" >/dev/null 2>&1
rec=$?
mkdir www && echo hello >www/index.html
$py -m http.server "$port" --bind 127.0.0.1 --directory www >/dev/null 2>&1 &
for _ in $(seq 100); do curl -s "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.05; done
check "curl: the port answers now" curl -sS -o /dev/null "http://127.0.0.1:$port/"
"$repro" replay --yes curl.repro >curl.out 2>curl.err
rc=$?
check "curl: recorded exit 7, replayed exit $rc" [ "$rec" = 7 ] && [ $rc = 7 ]
check "curl: the summary says reproduced" \
	grep -q "^repro: replay: reproduced: exit 7 as recorded, 1 of 1 failure imposed" curl.err
check "curl: curl says it could not connect" grep -q "Failed to connect to 127.0.0.1 port $port" curl.err
check "curl: the replay is recorded, the imposed connect names its recorded event" \
	$py -c 'import json, sys
inj = json.load(sys.stdin)["injections"]
assert [i["text"].split(":")[0] for i in inj] == ["connect"] and inj[0]["fired"] == 1
assert inj[0]["origin"] > 0' < <(tar --zstd -xOf curl.replay.repro manifest.json)

# 2. python3's missing config, present now; from another directory
mkdir app
cat >app/start.py <<'PY'
import json
cfg = json.load(open("app.json"))
print("port", cfg["port"])
PY
(cd app && "$repro" record -o ../py.repro -- $py start.py >/dev/null 2>&1)
rec=$?
echo '{"port": 80}' >app/app.json
(cd app && $py start.py >/dev/null) && echo "ok: python3: starts now"
"$repro" replay --yes py.repro >py.out 2>py.err
rc=$?
check "python3: recorded exit $rec, replayed exit $rc, FileNotFoundError again" \
	sh -c "[ $rec = 1 ] && [ $rc = 1 ] && grep -q \"FileNotFoundError: .*'app.json'\" py.err"
check "python3: reproduced, 1 of 1" grep -q "reproduced: exit 1 as recorded, 1 of 1" py.err
cp -r app moved
"$repro" replay --yes --cwd "$work/moved" -o moved.repro py.repro >mv.out 2>mv.err
rc=$?
check "--cwd: the environment block names both directories" \
	grep -q "^repro: replay: recorded in $work/app, replayed in $work/moved" mv.err
check "--cwd: reproduced in the other directory (exit $rc)" \
	sh -c "[ $rc = 1 ] && grep -q 'reproduced: exit 1 as recorded' mv.err"
check "--cwd: the imposed path is the one here" \
	sh -c "tar --zstd -xOf moved.repro events.jsonl | grep '\"injected\":true' | grep -q '\"path\":\"$work/moved/app.json\"'"

# 2a. as root: a bundle another user recorded in another directory, replayed here with --map
if [ "$(id -u)" = 0 ]; then
	mkdir -p other/srv/app here/app && cp "$repro" other/repro && chmod -R a+rwX other
	cp app/start.py other/srv/app/ && cp app/start.py here/app/ && echo '{"port": 80}' >here/app/app.json
	(cd other/srv/app && /usr/sbin/runuser -u repro-test -- "$work/other/repro" record \
		-o "$work/other/u.repro" -- $py start.py >/dev/null 2>&1)
	rm -rf other/srv
	"$repro" replay --yes --map "$work/other/srv/app=$work/here/app" other/u.repro >map.out 2>map.err
	rc=$?
	check "another uid and directory: the environment block names both, --map finds the app here" \
		sh -c "grep -q '^repro: replay: recorded as uid [0-9]*, replayed as uid 0' map.err &&
			grep -q '^repro: replay: recorded in $work/other/srv/app, replayed in $work/here/app' map.err"
	check "another uid and directory: reproduced (exit $rc), the config's ENOENT imposed here" \
		sh -c "[ $rc = 1 ] && grep -q 'reproduced: exit 1 as recorded, 1 of 1' map.err &&
			grep -q \"FileNotFoundError: .*'app.json'\" map.err"
fi

# 2b. another way: a file the recording read is missing here, so the program fails earlier
mkdir way && cd way || exit 1
printf 'import json\njson.load(open("lib.json"))\njson.load(open("app.json"))\n' >app.py
echo '{}' >lib.json
"$repro" record -o ../way.repro -- $py app.py >/dev/null 2>&1
rm lib.json && echo '{}' >app.json
cd "$work" || exit 1
"$repro" replay --yes way.repro >way.out 2>way.err
check "another way: the call that worked in the recording and fails here is named as it happens" \
	sh -c "grep -n '^repro: replay: diverged: openat $work/way/lib.json: worked in the recording, ENOENT here (pid [0-9]*, python3' way.err | grep -q . &&
		[ \$(grep -n '^repro: replay: diverged: openat' way.err | cut -d: -f1) -lt \$(grep -n '^FileNotFoundError' way.err | cut -d: -f1) ]"
check "another way: said once, not again after the run" \
	[ "$(grep -c "lib.json" way.err | head -1)" -ge 1 ] && [ "$(grep -c '^repro: replay: diverged' way.err)" = 1 ]
check "another way: the imposition that never came is named, and the summary says so" \
	sh -c "grep -q '^repro: replay: not imposed, the call never came here: openat $work/way/app.json ENOENT' way.err &&
		grep -q '^repro: replay: exit 1 as recorded, but another way, 0 of 1 failure imposed, 1 divergence$' way.err"
"$repro" replay --yes --strict way.repro >strict.out 2>strict.err
rc=$?
check "--strict: stopped at the divergence, before the program's own traceback (exit $rc)" \
	sh -c "grep -q '^repro: replay: --strict: stopped at the first divergence: openat $work/way/lib.json: worked in the recording, ENOENT here' strict.err &&
		! grep -q '^FileNotFoundError' strict.err && [ $rc = 137 ]"
check "--strict: the last calls here end with the divergent one, the recording's with the same call" \
	sh -c "grep -q '^    openat $work/way/lib.json = -1 ENOENT   <- diverged$' strict.err &&
		grep -q '^  in the recording, pid [0-9]*, up to the same call:$' strict.err &&
		grep -q '^    openat $work/way/lib.json = [0-9]' strict.err"
check "--strict: the summary says where it stopped" \
	grep -q '^repro: replay: stopped at the first divergence (--strict), 0 of 1 failure imposed, 1 divergence$' strict.err

# 2c. a process the recording had is not started here; one it did not have is
mkdir procs && cd procs || exit 1
printf '#!/bin/sh\n[ -e helper.on ] && /usr/bin/env true\n[ "$(cat mode)" = b ] && /usr/bin/id -u >/dev/null\nexit 3\n' >start.sh
touch helper.on && echo a >mode
"$repro" record -o ../procs.repro -- sh start.sh >/dev/null 2>&1
rm helper.on && echo b >mode
cd "$work" || exit 1
"$repro" replay --yes procs.repro >procs.out 2>procs.err
check "processes: the one only the recording had and the one only the replay has are named" \
	sh -c "grep -q '^repro: replay: diverged: true ran in A only (A: the recording, B: the replay)' procs.err &&
		grep -q '^repro: replay: diverged: id -u ran in B only' procs.err"
check "processes: exit 3 as recorded, but another way" \
	grep -q '^repro: replay: exit 3 as recorded, but another way' procs.err

# 2d. each imposed occurrence names its own recorded event
mkdir occ && cd occ || exit 1
printf 'for i in range(3):\n    try: open("m.txt")\n    except OSError: pass\nraise SystemExit(4)\n' >m.py
"$repro" record -o ../occ.repro -- $py m.py >/dev/null 2>&1
touch m.txt
cd "$work" || exit 1
"$repro" replay --yes occ.repro >occ.out 2>occ.err
check "occurrences: the three imposed opens name the three recorded ones, in order" \
	$py -c '
import json, subprocess, sys
def events(b):
    out = subprocess.run(["tar", "--zstd", "-xOf", b, "events.jsonl"], capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines()]
rec = [e["seq"] for e in events("occ.repro") if e.get("syscall") == "openat" and e.get("path", "").endswith("/m.txt")]
imp = [e["origin"] for e in events("occ.replay.repro") if e.get("imposed")]
assert len(rec) == 3 and imp == rec, (rec, imp)'

# 2e. a path with ':', the rule grammar's separator: imposed all the same, its ':' escaped
mkdir colon colon/x && cd colon || exit 1
"$repro" record -o ../colon.repro -- cat 'x/a:b' >/dev/null 2>&1
rec=$?
echo fine >'x/a:b'
cd "$work" || exit 1
"$repro" replay --yes colon.repro </dev/null >colon.out 2>colon.err
rc=$?
check "a path with ':': its ENOENT imposed, reproduced, 1 of 1 (exit $rec, then $rc)" \
	sh -c "[ $rec = 1 ] && [ $rc = 1 ] && grep -q \"^cat: 'x/a:b': No such file or directory\" colon.err &&
		grep -qx 'repro: replay: imposing openat $work/colon/x/a:b ENOENT' colon.err &&
		grep -qx 'repro: replay: reproduced: exit 1 as recorded, 1 of 1 failure imposed' colon.err" ||
	cat colon.err
check "a path with ':': the rule names it with '\\:'" \
	$py -c 'import json, sys
inj = json.load(sys.stdin)["injections"]
assert [i["text"] for i in inj] == ["openat:error=ENOENT:path=%s/colon/x/a\\:b:when=1" % sys.argv[1]], inj' \
	"$work" < <(tar --zstd -xOf colon.replay.repro manifest.json)
"$repro" replay --yes --no-impose --inject 'openat:error=EACCES:path=*/a\:b' -o colon2.repro colon.repro \
	</dev/null >colon2.out 2>colon2.err
check "--inject 'openat:error=EACCES:path=*/a\\:b' fires on x/a:b" \
	sh -c "grep -q \"^cat: 'x/a:b': Permission denied\" colon2.err" || cat colon2.err

# 3. git under a directory it could not write, writable now
mkdir ro && chmod 555 ro
if [ "$(id -u)" = 0 ]; then
	ensure_test_user
	chown repro-test: "$work/home"
	gitcmd=(/usr/sbin/runuser -u repro-test -- /usr/bin/git init -q "$work/ro/repo")
else
	gitcmd=(git init -q "$work/ro/repo")
fi
"$repro" record -o git.repro -- "${gitcmd[@]}" >/dev/null 2>git.rec.err
rec=$?
chmod 777 ro
"$repro" replay --yes git.repro >git.out 2>git.err
rc=$?
check "git: recorded exit $rec (EACCES), replayed exit $rc" sh -c "[ $rec != 0 ] && [ $rc = $rec ]"
check "git: the same complaint" grep -q "Permission denied" git.err
check "git: reproduced" grep -q "^repro: replay: reproduced: exit $rec as recorded" git.err
check "git: the directory is still empty (the failure was imposed, not real)" \
	sh -c "[ -z \"\$(ls -A ro)\" ]"

# 4. the demo: broken then, working now
mkdir demo
cp "$src"/examples/startup-failure/start_app.sh "$src"/examples/startup-failure/webui.py demo/
mkdir demo/cache_hub
(cd demo && "$repro" record --net=none -o ../demo.repro -- bash start_app.sh >/dev/null 2>&1)
rec=$?
rm -f demo/cache_hub/model.pth
head -c 4096 /dev/zero >demo/cache_hub/model.pth
(cd demo && bash start_app.sh >/dev/null 2>&1) && echo "ok: demo: starts now"
"$repro" replay --yes demo.repro >demo.out 2>demo.err
rc=$?
check "demo: recorded exit $rec, replayed exit $rc, 'model load failed'" \
	sh -c "[ $rec = 1 ] && [ $rc = 1 ] && grep -q '^model load failed' demo.err"
check "demo: reproduced" grep -q "^repro: replay: reproduced: exit 1 as recorded" demo.err
check "demo: the weights' ENOENT is imposed at its first open" \
	grep -q "^repro: replay: imposing openat $work/demo/cache_hub/model.pth ENOENT" demo.err
check "demo: explain reads the replay and names the imposed failure, with its recorded event" \
	sh -c "'$repro' explain demo.replay.repro | grep -q 'imposed again from the recording (its event [0-9]*) by rule'"
check "demo: the replay's imposed events are marked imposed, with their recorded event" \
	sh -c "tar --zstd -xOf demo.replay.repro events.jsonl | grep '\"injected\":true' | grep -q '\"imposed\":true,\"origin\":[0-9]'"
check "demo: the weights here are untouched (4096 bytes)" [ "$(stat -c %s demo/cache_hub/model.pth)" = 4096 ]

rm -f demo/cache_hub/model.pth && head -c 4096 /dev/zero >demo/cache_hub/model.pth
"$repro" replay --yes --minimize demo.repro >min.out 2>min.err
rc=$?
check "--minimize: the weights' ENOENT alone gives exit 1 (exit $rc)" \
	sh -c "[ $rc = 0 ] && grep -q '^repro: replay: minimize: 1 of 2 recorded failures give exit 1: openat $work/demo/cache_hub/model.pth ENOENT\$' min.err" ||
	cat min.err
check "--minimize: the weights here are untouched" [ "$(stat -c %s demo/cache_hub/model.pth)" = 4096 ]

# 5. --no-impose with --inject
"$repro" replay --yes --no-impose --inject "connect:error=ETIMEDOUT:port=$port:delay=1s" curl.repro >ni.out 2>ni.err
rc=$?
check "--no-impose --inject: curl times out instead (exit $rc), not reproduced" \
	sh -c "{ [ $rc = 7 ] || [ $rc = 28 ]; } && grep -q 'nothing recorded imposed' ni.err"

# 6. bad bundles and options
head -c 2000 demo.repro >trunc.repro
echo garbage >garbage.repro
# mutate SRC DST CODE: a copy of bundle SRC with each member's bytes `data` (name `name`) rewritten by CODE
mutate() {
	$py - "$1" "$2" "$3" <<'PY'
import io, json, sys, tarfile, subprocess
raw = subprocess.run(["zstd", "-dc", sys.argv[1]], capture_output=True).stdout
src = tarfile.open(fileobj=io.BytesIO(raw))
out = io.BytesIO()
dst = tarfile.open(fileobj=out, mode="w")
for m in src.getmembers():
    name, data = m.name, src.extractfile(m).read()
    exec(sys.argv[3])
    m.size = len(data)
    dst.addfile(m, io.BytesIO(data))
dst.close()
open(sys.argv[2], "wb").write(subprocess.run(["zstd", "-q", "-c"], input=out.getvalue(),
                                             capture_output=True).stdout)
PY
}
mutate demo.repro missing.repro '
if name == "manifest.json":
    doc = json.loads(data); doc["argv"] = ["/nonexistent/program-gone", "x"]
    data = json.dumps(doc).encode()'
mutate py.repro nocwd.repro '
if name == "manifest.json":
    doc = json.loads(data); del doc["cwd"]; data = json.dumps(doc).encode()'
mutate py.repro newer.repro '
if name == "manifest.json":
    doc = json.loads(data); doc["version"] = 99; data = json.dumps(doc).encode()'
mutate py.repro sigesc.repro '
if name == "manifest.json":
    doc = json.loads(data); doc["exit"] = {"signal": "SIG\x1b[31mKILL"}; data = json.dumps(doc).encode()'
# a rule's keys smuggled in through the bundle's words
mutate py.repro hostile.repro '
if name == "events.jsonl":
    data = data.replace(b"\"errno\":\"ENOENT\"", b"\"errno\":\"ENOENT:delay=1h\"")
    data = data.replace(b"\"syscall\":\"openat\"", b"\"syscall\":\"openat:signal=SIGKILL\"")'
start=$(date +%s)
"$repro" replay --yes -o hostile.replay.repro hostile.repro >hostile.out 2>hostile.err
rc=$?
took=$(($(date +%s) - start))
check "a bundle whose words hold rule keys: nothing smuggled in, no delay, no signal (exit $rc, ${took}s)" \
	sh -c "[ $took -lt 30 ] && ! grep -q '^repro: replay: imposing.*\(delay=\|signal=\)' hostile.err && [ $rc != 137 ] &&
		! tar --zstd -xOf hostile.replay.repro manifest.json | grep -q 'delay=\|signal='" || cat hostile.err
check "a bundle whose words hold rule keys: each such failure said in one line, not imposed, counted" \
	sh -c "grep -qx 'repro: replay: cannot impose openat:signal=SIGKILL $work/app/app.json ENOENT:delay=1h: its syscall or errno is not a name a fault rule takes' hostile.err &&
		grep -qx 'repro: replay: not imposed, its syscall or errno is not a name a fault rule takes: openat:signal=SIGKILL $work/app/app.json ENOENT:delay=1h' hostile.err &&
		grep -q ', 0 of [1-9][0-9]* failures\? imposed' hostile.err" || cat hostile.err

"$repro" replay --yes -q sigesc.repro >sig.out 2>sig.err
check "a recorded exit signal with a terminal escape: not printed raw" \
	sh -c "! grep -q \$(printf '\\033') sig.err && grep -q 'recorded: killed by a signal' sig.err"
for args in "/nonexistent.repro" "garbage.repro" "trunc.repro" "missing.repro" "nocwd.repro" "newer.repro" \
	"--only disk curl.repro" "--map nonsense curl.repro" "--no-impose curl.repro" \
	"--bogus curl.repro" "" "--cwd /nonexistent curl.repro"; do
	# shellcheck disable=SC2086
	"$repro" replay $args >bad.out 2>bad.err
	rc=$?
	check "replay $args: exit 2, one line ($(head -c 100 bad.err))" \
		sh -c "[ $rc = 2 ] && [ \$(wc -l <bad.err) = 1 ] && [ ! -s bad.out ]"
done

# 7. --simulate
mkdir sim && cd sim || exit 1
echo a >keep.txt && echo b >gone.txt && echo c >conf.txt && chmod 644 conf.txt
sport=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
$py -m http.server "$sport" --bind 127.0.0.1 --directory . >/dev/null 2>&1 &
spid=$!
for _ in $(seq 100); do curl -s "http://127.0.0.1:$sport/keep.txt" >/dev/null && break; sleep 0.05; done
"$repro" record -o ../sim.repro -- sh -c "cat keep.txt gone.txt conf.txt >/dev/null && curl -sS -o /dev/null http://127.0.0.1:$sport/keep.txt" >/dev/null 2>&1
cd "$work" || exit 1
"$repro" replay --simulate --probe-network sim.repro >sim0.out 2>&1
rc=$?
check "--simulate on the setup it came from: exit 0 ($rc)" [ $rc = 0 ]
rm sim/gone.txt && chmod 600 sim/conf.txt && kill $spid && wait $spid 2>/dev/null
"$repro" replay --simulate --probe-network sim.repro >sim1.out 2>&1
rc=$?
check "--simulate elsewhere: exit 1 ($rc)" [ $rc = 1 ]
check "--simulate: exactly the missing file, the mode and the closed port" \
	sh -c "grep -qx '  missing here: $work/sim/gone.txt (recorded: file; here: missing)' sim1.out &&
		grep -qx '  another mode: $work/sim/conf.txt (recorded: 0644; here: 0600)' sim1.out &&
		grep -qx '  answers otherwise: 127.0.0.1:$sport (recorded: connected; here: refused)' sim1.out &&
		[ \$(grep -c '^  ' sim1.out) = 3 ]" || cat sim1.out
"$repro" replay --simulate --json sim.repro >sim.json
check "--simulate --json: the differences as JSON" \
	$py -c 'import json,sys; d=json.load(open(sys.argv[1]))["differences"]; assert {x["what"] for x in d} == {"missing here", "another mode"}, d' sim.json
"$repro" replay --json sim.repro >bad.out 2>bad.err
rc=$?
check "--json without --simulate: exit 2, one line" sh -c "[ $rc = 2 ] && [ \$(wc -l <bad.err) = 1 ]"

# 7a. --simulate of a recording made with --hash-secrets: the hash of an owner-only
# file here is never computed or printed (the recorder's rule), a regular file's is
mkdir simkey && cd simkey || exit 1
head -c 30 /dev/urandom | od -An -tx1 | tr -d ' \n' >seed.bin && chmod 600 seed.bin
head -c 300 /dev/urandom | od -An -tx1 | tr -d ' \n' >data.txt && chmod 644 data.txt
"$repro" record --hash-secrets -o ../simkey.repro -- cat seed.bin data.txt >/dev/null 2>&1
head -c 30 /dev/urandom | od -An -tx1 | tr -d ' \n' >seed.bin
head -c 300 /dev/urandom | od -An -tx1 | tr -d ' \n' >data.txt
cd "$work" || exit 1
check "--hash-secrets: the bundle holds the owner-only file's hash" \
	sh -c "tar --zstd -xOf simkey.repro files.jsonl | grep '/simkey/seed\.bin\"' | grep -q '\"hash\":\"xxh3:'"
"$repro" replay --simulate simkey.repro >simkey.out 2>&1
rc=$?
check "--simulate: the regular file's two hashes, the owner-only one's withheld and why (exit $rc)" \
	sh -c "[ $rc = 1 ] &&
		grep -qx '  another content: $work/simkey/data.txt (recorded: xxh3:[0-9a-f]\{16\}; here: xxh3:[0-9a-f]\{16\})' simkey.out &&
		grep -qx '  content not compared: $work/simkey/seed.bin (recorded: hashed; here: hash withheld (owner-only))' simkey.out &&
		[ \$(grep -o 'xxh3:' simkey.out | wc -l) = 2 ] && [ \$(grep -c '^  ' simkey.out) = 2 ]" || cat simkey.out
"$repro" replay --simulate --json simkey.repro >simkey.json
check "--simulate --json: hash_withheld says why, no hash of it here" \
	$py -c 'import json, sys
d = [x for x in json.load(open(sys.argv[1]))["differences"] if x["target"].endswith("/seed.bin")]
assert d == [dict(d[0], what="content not compared", here="hash withheld (owner-only)", hash_withheld="owner-only")], d' simkey.json

# 7b. as root: a bundle another user recorded, a directory on the way that user cannot search here
if [ "$(id -u)" = 0 ]; then
	mkdir -p walk/app && echo x >walk/app/conf && cp "$repro" walk/repro && chmod -R a+rwX walk
	(cd walk/app && /usr/sbin/runuser -u repro-test -- "$work/walk/repro" record -o "$work/walk/w.repro" -- cat conf >/dev/null 2>&1)
	"$repro" replay --simulate walk/w.repro >walk0.out 2>&1
	rc0=$?
	chmod 0700 walk
	"$repro" replay --simulate walk/w.repro >walk1.out 2>&1
	rc1=$?
	chmod 0755 walk
	check "--simulate: the directory the recorded user cannot search here is named (exit $rc0, then $rc1)" \
		sh -c "[ $rc0 = 0 ] && [ $rc1 = 1 ] &&
			grep -q '^  not searchable by the recorded user: $work/walk (recorded: searchable; here: 0700 0:0, no search for uid [0-9]*)' walk1.out" ||
		cat walk0.out walk1.out
else
	# as the user: a file of the recording this user can no longer reach here
	mkdir -p reach/app/sub && echo x >reach/app/sub/conf.txt
	"$repro" record -o reach.repro -- cat "$work/reach/app/sub/conf.txt" >/dev/null 2>&1
	chmod 0600 reach/app
	"$repro" replay --simulate reach.repro >reach.out 2>&1
	rc=$?
	chmod 0755 reach/app
	check "--simulate: a file this user cannot reach is not called missing, its directory is named (exit $rc)" \
		sh -c "[ $rc = 1 ] && grep -q '^  not searchable by the recorded user: $work/reach/app ' reach.out &&
			! grep -q 'missing here' reach.out" || cat reach.out
fi
# 8. a received bundle: shown, asked, run safely
mkdir -p recv && cd recv || exit 1
spaces=$(printf '%5000s' '')
# what ran is known by its exit (4) and its bundle (mark.replay.repro): its own writes are overlaid
"$repro" record -o mark.repro -- sh -c 'exit 4' sh \
	"$(printf 'a\033[2Jb')" "$spaces; touch ~/pwned" >/dev/null 2>&1
rm -f mark.replay.repro
"$repro" replay mark.repro </dev/null >no.out 2>no.err
rc=$?
check "received: no terminal, no --yes: exit 2, one line, nothing ran" \
	sh -c "[ $rc = 2 ] && [ ! -e mark.replay.repro ] && [ \$(grep -c '^repro:' no.err) = 2 ] &&
		grep -q 'runs only when you say so: on a terminal, or with --yes or --trust [0-9a-f]\{64\}; nothing was run' no.err" ||
	cat no.err
printf '%s\n' "\$'a\\x1b[2Jb'" >want.esc
printf "'%s; touch ~/pwned'\n" "$spaces" >want.spaces
check "received: the command shown whole, every byte visible (the tail after 5,000 spaces too)" \
	sh -c "grep -qF -f want.esc no.err && grep -qF -f want.spaces no.err && ! grep -q \$(printf '\\033') no.err"
sum=$(sha256sum mark.repro | cut -d' ' -f1)
"$repro" replay --trust 0000000000000000000000000000000000000000000000000000000000000000 \
	mark.repro </dev/null >tr0.out 2>tr0.err
rc=$?
check "received: --trust of another SHA-256: exit 2, nothing ran" \
	sh -c "[ $rc = 2 ] && [ ! -e mark.replay.repro ] && grep -q \"this bundle's SHA-256 is $sum\" tr0.err"
"$repro" replay -q --trust "$sum" mark.repro </dev/null >tr1.out 2>tr1.err
rc=$?
check "received: --trust of its SHA-256: it runs (exit $rc)" \
	sh -c "[ $rc = 4 ] && grep -q 'reproduced: exit 4 as recorded' tr1.err" || cat tr1.err
# on a terminal: the answer decides
for answer in n y; do
	rm -f mark.replay.repro
	$py - "$repro" "$answer" >pty.$answer.out 2>&1 <<'PY'
import os, pty, sys
repro, answer = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(repro, [repro, "replay", "-q", "mark.repro"])
seen = b""
while b"Run it? [y/N] " not in seen:
    seen += os.read(fd, 4096)
os.write(fd, answer.encode() + b"\n")
try:
    while os.read(fd, 4096):
        pass
except OSError:
    pass
print("status", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
PY
	[ -e mark.replay.repro ] && echo "ran" >>pty.$answer.out
done
check "received: on a terminal, n runs nothing (exit 2), y runs it" \
	sh -c "grep -q '^status 2' pty.n.out && ! grep -q '^ran' pty.n.out &&
		grep -q '^status 4' pty.y.out && grep -q '^ran' pty.y.out"
# writes: where the recording wrote, into an overlay; elsewhere, read-only
if [ "$(id -u)" = 0 ]; then wdir=$(mktemp -d /var/lib/repro-replay-w.XXXXXX); else wdir=$work/recv/w-out; fi
mkdir -p "$wdir"
"$repro" record -o w.repro -- sh -c 'echo x >"$1"' sh "$wdir/f" >/dev/null 2>&1
rm -f "$wdir/f"
"$repro" replay -q --yes w.repro -- sh -c 'echo x >"$1" || exit 5; echo y >/usr/repro-replay-w && exit 6; exit 0' \
	sh "$wdir/f" >wr.out 2>wr.err
rc=$?
check "received: the recording's write lands in an overlay, a write elsewhere fails, nothing here (exit $rc)" \
	sh -c "[ $rc = 0 ] && [ ! -e '$wdir/f' ] && [ ! -e /usr/repro-replay-w ] && grep -q 'Read-only file system' wr.err" ||
	cat wr.err
[ "$(id -u)" = 0 ] && rm -rf "$wdir"
# the network: loopback only, unless --net host
nport=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
$py -m http.server "$nport" --bind 127.0.0.1 --directory "$work/www" >/dev/null 2>&1 &
for _ in $(seq 100); do curl -s "http://127.0.0.1:$nport/" >/dev/null && break; sleep 0.05; done
"$repro" replay -q --yes --no-impose --inject 'openat:error=ENOENT:path=/nonexistent-repro' mark.repro -- \
	curl -sS -o /dev/null "http://127.0.0.1:$nport/" >n0.out 2>n0.err
rc0=$?
"$repro" replay -q --yes --net host --no-impose --inject 'openat:error=ENOENT:path=/nonexistent-repro' \
	mark.repro -- curl -sS -o /dev/null "http://127.0.0.1:$nport/" >n1.out 2>n1.err
rc1=$?
check "received: loopback only by default (curl exit $rc0), this machine's with --net host (exit $rc1)" \
	sh -c "[ $rc0 = 7 ] && [ $rc1 = 0 ]" || cat n0.err n1.err
cd "$work" || exit 1
exit $fail
