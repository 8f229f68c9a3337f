# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# nginx as a deployment starts it: as root, on a port below 1024, workers
# stepping down to www-data.  Sourced by the nginx_* hooks.
CASE_NEEDS_ROOT=1

# nginx_setup PORT: a config and a start script in $TMP
nginx_setup() {
	local port=$1
	mkdir -p "$TMP/ngx/logs" "$TMP/ngx/html"
	echo "hello from nginx" >"$TMP/ngx/html/index.html"
	cat >"$TMP/ngx/nginx.conf" <<CONF
worker_processes 1;
error_log $TMP/ngx/logs/error.log;
pid $TMP/ngx/nginx.pid;
events { worker_connections 64; }
http {
	access_log $TMP/ngx/logs/access.log;
	client_body_temp_path $TMP/ngx/body;
	proxy_temp_path $TMP/ngx/proxy;
	fastcgi_temp_path $TMP/ngx/fastcgi;
	uwsgi_temp_path $TMP/ngx/uwsgi;
	scgi_temp_path $TMP/ngx/scgi;
	server { listen 127.0.0.1:$port; root $TMP/ngx/html; }
}
CONF
	# start nginx in the foreground, fetch a page, stop it.  No timing in
	# what the script does: the strace comparison wants the same failures
	# in every run, so it waits for the pid file (written once the port is
	# bound) with builtins, after one look that always fails.
	cat >"$TMP/run.sh" <<SCRIPT
test -e $TMP/ngx/nginx.pid
/usr/sbin/nginx -p $TMP/ngx -c $TMP/ngx/nginx.conf -g 'daemon off;' &
pid=\$!
while [ ! -s $TMP/ngx/nginx.pid ] && kill -0 \$pid 2>/dev/null; do :; done
curl -sS http://127.0.0.1:$port/index.html
kill \$pid 2>/dev/null
wait \$pid
echo "nginx exited \$?"
SCRIPT
	# the workers (www-data) read the pages: every directory on the way searchable
	chmod 0755 "$TMP" "$TMP/.." "$TMP/ngx" "$TMP/ngx/html"
	chmod 0644 "$TMP/ngx/html/index.html"
}

case_reset() {
	rm -rf "$TMP/ngx/logs"/* "$TMP/ngx/nginx.pid"
}
