# shellcheck shell=bash disable=SC2154,SC2034 # variables of corpus.sh
# The scenarios of corpus.tsv, sourced by corpus.sh.  sc_NAME builds the
# broken setup under $work and records it with rec into $work/b.repro (diff
# scenarios: a working run into a.repro first).  sc_NAME_root, when there is
# one, makes what needs root; the root variant runs it from sc_NAME
# (root_part), the user variant before it drops to the test user.  The
# true cause of each is asserted in checks/corpus.py.

root_part() {
	if [ "$inner" = 0 ] && declare -F "sc_${name}_root" >/dev/null; then
		"sc_${name}_root"
	fi
}

# ---- PostgreSQL from Debian's package, started as root stepping down ----------

# pg_init: a cluster made by initdb as postgres in $work/pg/data, a socket dir
pg_init() {
	need_root
	need "$PG_BIN/postgres"
	mkdir -p "$work/pg/sock"
	chown -R postgres: "$work/pg"
	runuser -u postgres -- "$PG_BIN/initdb" -D "$work/pg/data" -A trust -U postgres --no-sync \
		>"$work/initdb.log" 2>&1 || die "initdb failed: $(tail -3 "$work/initdb.log")"
}

# pg_start [ARGS]: postgres in the foreground as a unit file or an entrypoint
# starts it, on a unix socket only
pg_start() {
	rec b -- runuser -u postgres -- "$PG_BIN/postgres" -D "$work/pg/data" -k "$work/pg/sock" \
		-p "$PORT" -c listen_addresses= "$@"
}

# the data directory copied by root (cp -a as root, or a volume made by root)
sc_pg_data_owner() {
	pg_init
	chown -R root:root "$work/pg/data"
	pg_start
}

# the data directory on a read-only mount (a read-only volume)
sc_pg_data_readonly() {
	pg_init
	unshare --mount --propagation private -- mount --bind -o ro "$work/pg/data" "$work/pg/data" ||
		skip "no read-only bind mount here"
	# shellcheck disable=SC2016 # expanded by the inner shell
	WRAP=(unshare --mount --propagation private -- /bin/sh -c
		'mount --bind -o ro "$0" "$0" && exec "$@"' "$work/pg/data")
	pg_start
	WRAP=()
}

# a config_file setting that names a file that is not there
sc_pg_config_missing() {
	pg_init
	pg_start -c config_file=/etc/postgresql/repro-corpus/main/postgresql.conf
}

# ---- redis-server --------------------------------------------------------------

# redis_conf DIR PORT: a config as /etc/redis/redis.conf would have it, with
# the append-only file on (so the dir is written at startup)
redis_conf() {
	need redis-server
	cat >"$work/redis.conf" <<CONF
bind 127.0.0.1
port $2
daemonize no
supervised no
logfile ""
save ""
appendonly yes
dir $1
CONF
	chmod 0644 "$work/redis.conf"
}

sc_redis_dir_unwritable_root() {
	mkdir -p "$work/redis-data"
	chown root:root "$work/redis-data"
	chmod 0755 "$work/redis-data"
}

# the data dir left owned by root (0755); redis runs as its own user
sc_redis_dir_unwritable() {
	root_part
	redis_conf "$work/redis-data" "$PORT"
	# shellcheck disable=SC2046 # as_app prints words
	rec b -- $(as_app) /usr/bin/redis-server "$work/redis.conf"
}

# another server already listens on the port
sc_redis_port_taken() {
	mkdir -p "$work/redis-data"
	redis_conf "$work/redis-data" "$PORT"
	hold_port "$PORT"
	rec b -- /usr/bin/redis-server "$work/redis.conf"
}

# ---- nginx ---------------------------------------------------------------------

# nginx_conf PORT SERVER-EXTRA: a site config as a deployment writes it
nginx_conf() {
	need /usr/sbin/nginx
	mkdir -p "$work/ngx/logs" "$work/ngx/html" "$work/ngx/certs"
	echo hello >"$work/ngx/html/index.html"
	cat >"$work/ngx/nginx.conf" <<CONF
worker_processes 1;
error_log $work/ngx/logs/error.log;
pid $work/ngx/nginx.pid;
events { worker_connections 64; }
http {
	access_log $work/ngx/logs/access.log;
	client_body_temp_path $work/ngx/body;
	proxy_temp_path $work/ngx/proxy;
	fastcgi_temp_path $work/ngx/fastcgi;
	uwsgi_temp_path $work/ngx/uwsgi;
	scgi_temp_path $work/ngx/scgi;
	server { $2 root $work/ngx/html; }
}
CONF
	chmod -R a+rX "$work/ngx"
}

nginx_start() {
	rec b -- /usr/sbin/nginx -p "$work/ngx" -c "$work/ngx/nginx.conf" -g "daemon off;"
}

# the site's certificate was never copied in
sc_nginx_cert_missing() {
	nginx_conf "$PORT" "listen 127.0.0.1:$PORT ssl;
		ssl_certificate $work/ngx/certs/site.crt;
		ssl_certificate_key $work/ngx/certs/site.key;"
	nginx_start
}

# another server holds the port
sc_nginx_port_taken() {
	nginx_conf "$PORT" "listen 127.0.0.1:$PORT;"
	hold_port "$PORT"
	nginx_start
}

# ---- git -----------------------------------------------------------------------

# a clone of an https URL where nothing leaves the machine
sc_git_clone_netnone() {
	need git
	rec b --net=none -- git clone https://git.example.com/team/app.git "$work/run/app"
}

sc_git_clone_unreadable_root() {
	need git
	git init -q --bare "$work/repo.git"
	chown -R root:root "$work/repo.git"
	chmod 0700 "$work/repo.git"
}

# a shared repository that root made, mode 0700: the user may not enter it
sc_git_clone_unreadable() {
	root_part
	# shellcheck disable=SC2046
	rec b -- $(as_app) git clone "file://$work/repo.git" "$work/run/app"
}

# ---- pip in a venv, apt-get ----------------------------------------------------

sc_pip_install_netnone() {
	need /usr/bin/python3
	/usr/bin/python3 -m venv "$work/venv" >"$work/venv.log" 2>&1 ||
		skip "python3 -m venv failed (python3-venv): $(tail -1 "$work/venv.log")"
	RUN_EXTRA_ENV=(PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1)
	rec b --net=none -- "$work/venv/bin/pip" install --retries 0 --timeout 5 requests
	RUN_EXTRA_ENV=()
}

# apt-get update by a user who is not root
sc_apt_update_user() {
	need apt-get
	# shellcheck disable=SC2046
	rec b -- $(as_app) apt-get update
}

# ---- sqlite3 -------------------------------------------------------------------

sc_sqlite_readonly_dir_root() {
	mkdir -p "$work/db"
	chown root:root "$work/db"
	chmod 0755 "$work/db"
}

sc_sqlite_readonly_dir() {
	need sqlite3
	root_part
	# shellcheck disable=SC2046
	rec b -- $(as_app) sqlite3 "$work/db/app.db" "create table jobs(id integer primary key, name text);"
}

# ---- Python applications -------------------------------------------------------

# python_app DIR: a small application that reads its settings, as many do
python_app() {
	mkdir -p "$1"
	cat >"$1/app.py" <<'PY'
import json, logging, os, sys

here = os.path.dirname(os.path.abspath(__file__))
settings = os.path.join(here, "config", "settings.json")
logging.basicConfig(level=logging.INFO)
with open(settings) as f:
    conf = json.load(f)
print("listening on", conf["port"])
PY
	chmod -R a+rX "$1"
}

# pyenv-style: a shim script finds the interpreter of the application's
# venv, made from a python installed under its own prefix (as pyenv builds
# one in ~/.pyenv/versions/3.11.2; here the Debian interpreter and its
# standard library copied under $work/opt), and the app's config is missing
sc_python_shim_venv() {
	local py
	py=$(readlink -f /usr/bin/python3)
	need "$py"
	local base=$work/opt/pyenv/versions/${py##*/python}
	mkdir -p "$base/bin" "$base/lib"
	cp "$py" "$base/bin/" && ln -s "${py##*/}" "$base/bin/python3"
	tar -C /usr/lib --exclude="${py##*/}/test" -cf - "${py##*/}" | tar -C "$base/lib" -xf - ||
		die "cannot copy the standard library of $py"
	"$base/bin/python3" -m venv --without-pip "$work/app/.venv" >"$work/venv.log" 2>&1 ||
		skip "a venv from $base failed: $(tail -1 "$work/venv.log")"
	mkdir -p "$work/shims"
	cat >"$work/shims/python3" <<SH
#!/bin/sh
# pyenv-style shim: the application's venv when there is one, else the base
if [ -x "\$PWD/.venv/bin/python3" ]; then
	exec "\$PWD/.venv/bin/python3" "\$@"
fi
exec "$base/bin/python3" "\$@"
SH
	chmod 0755 "$work/shims/python3"
	python_app "$work/app"
	cat >"$work/app/start.sh" <<SH
#!/bin/sh
export PATH=$work/shims:\$PATH
cd $work/app
exec python3 app.py
SH
	rec b -- /bin/sh "$work/app/start.sh"
}

# a download whose server accepts, says nothing for 3 s, then closes
sc_download_stall_close() {
	need /usr/bin/python3
	cat >"$work/server.py" <<'PY'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
s.settimeout(120)  # gone by itself when the test is
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    c.recv(65536)
    time.sleep(3)
    c.close()
PY
	cat >"$work/run/fetch.py" <<'PY'
import sys, urllib.request
url = sys.argv[1]
with urllib.request.urlopen(url, timeout=30) as r, open("model.bin", "wb") as out:
    out.write(r.read())
PY
	/usr/bin/python3 "$work/server.py" "$PORT" "$work/server.ready" </dev/null >/dev/null 2>&1 &
	at_exit "kill $!"
	wait_for "$work/server.ready" || die "the stalling server did not start"
	rec b -- /usr/bin/python3 fetch.py "http://127.0.0.1:$PORT/model.bin"
}

# Ctrl-C after 2 s while curl waits in a connect that is never answered:
# in a network namespace of the test's own, a listener that never accepts
# has its queue full, so the kernel drops every further SYN
sc_connect_interrupted() {
	need_root
	need curl ip setsid
	cat >"$work/netns.sh" <<'SH'
#!/bin/sh
ip link set lo up || exit 1
/usr/bin/python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 8080))
s.listen(0)
held = []
for _ in range(2):
    c = socket.socket()
    c.setblocking(False)
    c.connect_ex(("127.0.0.1", 8080))
    held.append(c)
time.sleep(0.3)
open(sys.argv[1], "w").close()
time.sleep(300)
' "$0.ready" </dev/null >/dev/null 2>&1 &
while [ ! -e "$0.ready" ]; do sleep 0.05; done
exec "$@"
SH
	chmod 0755 "$work/netns.sh"
	WRAP=(setsid unshare --net -- "$work/netns.sh")
	rec b -- curl -sS --connect-timeout 60 -o "$work/run/model.bin" http://127.0.0.1:8080/model.bin &
	local pid=$! rpid='' pgid='' _
	for _ in $(seq 100); do
		rpid=$(pgrep -f -- "^$repro record -o $work/b.repro" | head -1)
		[ -n "$rpid" ] && break
		sleep 0.05
	done
	[ -n "$rpid" ] || die "repro record did not start"
	pgid=$(ps -o pgid= -p "$rpid" | tr -d ' ')
	at_exit "kill -KILL -- -$pgid"
	sleep 2
	# as the terminal sends Ctrl-C: to the whole foreground process group
	kill -INT -- "-$pgid"
	wait "$pid"
	WRAP=()
}

sc_program_said_file_root() {
	mkdir -p "$work/app/log"
	chown "$TEST_USER:" "$work/app"
	chown root:root "$work/app/log"
	chmod 0755 "$work/app/log"
}

# the app cannot write its log (it falls back to stderr, silently), then
# names the settings file it cannot read and exits
sc_program_said_file() {
	need /usr/bin/python3
	root_part
	mkdir -p "$work/app"
	cat >"$work/app/worker.py" <<'PY'
import json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
try:
    log = open(os.path.join(here, "log", "worker.log"), "a")
except OSError:
    log = sys.stderr
settings = os.path.join(here, "settings.json")
try:
    with open(settings) as f:
        conf = json.load(f)
except OSError as e:
    print("worker: cannot read settings from %s: %s" % (settings, e.strerror), file=sys.stderr)
    sys.exit(1)
print("queue", conf["queue"], file=log)
PY
	chmod -R a+rX "$work/app"
	# shellcheck disable=SC2046
	rec b -- $(as_app) /usr/bin/python3 "$work/app/worker.py"
}

# ---- diff: the same startup working (A) and broken (B) -------------------------

diff_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		chown "$TEST_USER:" "$@"
	fi
}

# redis's dir writable in A, made read-only (0555) in B; A runs 3 s, then
# stops on SIGTERM as under systemd
sc_diff_redis_dir() {
	mkdir -p "$work/redis-data"
	diff_owner "$work/redis-data"
	redis_conf "$work/redis-data" "$PORT"
	# shellcheck disable=SC2046
	rec a -- $(as_app) timeout --preserve-status 3 /usr/bin/redis-server "$work/redis.conf"
	rm -rf "$work/redis-data"/*
	chmod 0555 "$work/redis-data"
	# shellcheck disable=SC2046
	rec b -- $(as_app) timeout --preserve-status 3 /usr/bin/redis-server "$work/redis.conf"
}

# an entrypoint that checks for the config and execs the app: B has no config
sc_diff_app_config() {
	need /usr/bin/python3
	python_app "$work/app"
	mkdir -p "$work/app/config"
	echo '{"port": 8080}' >"$work/app/config/settings.json"
	cat >"$work/app/entrypoint.sh" <<SH
#!/bin/sh
set -e
cd $work/app
if [ ! -f config/settings.json ]; then
	echo "entrypoint: config/settings.json not found" >&2
	exit 1
fi
exec /usr/bin/python3 app.py
SH
	chmod -R a+rX "$work/app"
	# shellcheck disable=SC2046
	rec a -- $(as_app) /bin/sh "$work/app/entrypoint.sh"
	rm "$work/app/config/settings.json"
	# shellcheck disable=SC2046
	rec b -- $(as_app) /bin/sh "$work/app/entrypoint.sh"
}

# sqlite3 creates its database in A; B's directory is read-only (0555)
sc_diff_sqlite_dir() {
	need sqlite3
	mkdir -p "$work/db"
	diff_owner "$work/db"
	local sql="create table jobs(id integer primary key, name text);"
	# shellcheck disable=SC2046
	rec a -- $(as_app) sqlite3 "$work/db/app.db" "$sql"
	rm -f "$work/db/app.db"
	chmod 0555 "$work/db"
	# shellcheck disable=SC2046
	rec b -- $(as_app) sqlite3 "$work/db/app.db" "$sql"
}

# ---- nothing fails, the program says why --------------------------------------

# sshd with a host key that is mode 0644 (copied with cp, unpacked from an
# archive): it reads the key, refuses it as "too open", and exits 1
sc_sshd_key_too_open() {
	need /usr/sbin/sshd /usr/bin/ssh-keygen
	mkdir -p "$work/ssh"
	ssh-keygen -q -t ed25519 -N '' -f "$work/ssh/ssh_host_ed25519_key" || die "ssh-keygen failed"
	chmod 0644 "$work/ssh/ssh_host_ed25519_key"
	[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd
	rec b -- /usr/sbin/sshd -D -e -p "$PORT" -h "$work/ssh/ssh_host_ed25519_key" \
		-o PidFile=none -o ListenAddress=127.0.0.1
}

# dnsmasq --test of a configuration with a bad value: the file opens, the
# check fails and names the file
sc_dnsmasq_bad_value() {
	need /usr/sbin/dnsmasq
	mkdir -p "$work/dnsmasq"
	printf '%s\n' 'port=5353' 'cache-size=lots' >"$work/dnsmasq/local.conf"
	rec b -- /usr/sbin/dnsmasq --test --conf-file="$work/dnsmasq/local.conf"
}

# an app start script whose weights file is there but empty (a download
# cut short earlier): it reads 0 bytes, says so, and exits 1
sc_weights_empty() {
	need /usr/bin/python3
	mkdir -p "$work/app/models"
	: >"$work/app/models/weights.bin"
	cat >"$work/app/serve.py" <<'PY'
import os, pickle, sys

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", "weights.bin")
try:
    with open(path, "rb") as f:
        weights = pickle.load(f)
except EOFError as e:
    print("model load failed: %s: %s" % (path, e), file=sys.stderr)
    sys.exit(1)
PY
	printf '%s\n' '#!/bin/sh' 'cd "$(dirname "$0")"' 'exec /usr/bin/python3 serve.py' \
		>"$work/app/start.sh"
	chmod -R a+rX "$work/app"
	# shellcheck disable=SC2046
	rec b -- $(as_app) /bin/sh "$work/app/start.sh"
}

# a full disk: the app writes its cache to a 64 KiB filesystem and fails
# with ENOSPC (root: the tmpfs is mounted in a mount namespace of its own)
sc_full_disk_cache() {
	need_root
	need /usr/bin/python3
	mkdir -p "$work/app/cache"
	cat >"$work/app/warm.py" <<'PY'
import os, sys

cache = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cache")
try:
    with open(os.path.join(cache, "embeddings.npy"), "wb") as f:
        f.write(b"\0" * 300000)
except OSError as e:
    print("warmup failed: %s" % e, file=sys.stderr)
    sys.exit(1)
PY
	# shellcheck disable=SC2016 # expanded by the inner shell
	WRAP=(unshare --mount --propagation private -- /bin/sh -c
		'mount -t tmpfs -o size=64k tmpfs "$0" && exec "$@"' "$work/app/cache")
	rec b -- /usr/bin/python3 "$work/app/warm.py"
	WRAP=()
}

# a start script that activates its venv and starts a module that is not
# installed in it (requirements never installed): python searches its path,
# finds nothing (every miss a probe) and says which module
sc_venv_module_missing() {
	need /usr/bin/python3
	mkdir -p "$work/app"
	/usr/bin/python3 -m venv --without-pip "$work/app/venv" || skip "python3 -m venv failed"
	printf '%s\n' '#!/bin/bash' 'cd "$(dirname "$0")"' '. venv/bin/activate' \
		'exec python -m webapp --port 8000' >"$work/app/start.sh"
	chmod -R a+rX "$work/app"
	# shellcheck disable=SC2046
	rec b -- $(as_app) /bin/bash "$work/app/start.sh"
}
