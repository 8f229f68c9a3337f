/* Sentences about one waits.jsonl record, shared by `repro explain` and `repro show`. */
#include "replayer/readers/wait_text.h"
#include "bundles/json_util.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

static bool is(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

void rpl_wait_put_secs(FILE *f, int64_t ns)
{
	fprintf(f,
		ns >= 10000000000 ? "%.0f s"
		: ns >= 100000000 ? "%.1f s"
				  : "%.3f s",
		(double)ns / 1e9);
}

bool rpl_put_addr(FILE *f, json_t *a)
{
	const char *ip = bndl_json_str(a, "ip");

	if (ip != NULL) {
		bool v6 = is(bndl_json_str(a, "family"), "AF_INET6");

		fprintf(f, "%s%s%s:%" PRId64, v6 ? "[" : "", ip, v6 ? "]" : "",
			bndl_json_int(a, "port", 0));
		return true;
	}
	if (bndl_json_str(a, "path") != NULL) {
		fputs(bndl_json_str(a, "path"), f);
		return true;
	}
	if (bndl_json_str(a, "abstract") != NULL) {
		fprintf(f, "@%s", bndl_json_str(a, "abstract"));
		return true;
	}
	return false;
}

/* "HTTP over TCP", "TCP" … of a connect record c (network.jsonl); false when neither is known. */
static bool put_transport(FILE *f, json_t *c)
{
	static const char *const protos[][2] = { { "http", "HTTP" },
						 { "http2", "HTTP/2" },
						 { "tls", "TLS" },
						 { "ssh", "SSH" },
						 { "redis", "Redis" } };
	const char *proto = bndl_json_str(c, "proto"), *type = bndl_json_str(c, "type");
	const char *fam = bndl_json_str(c, "family"), *word = NULL, *over = NULL;

	for (size_t i = 0; proto != NULL && i < sizeof(protos) / sizeof(protos[0]); i++)
		if (strcmp(proto, protos[i][0]) == 0)
			word = protos[i][1];
	if (is(fam, "AF_INET") || is(fam, "AF_INET6"))
		over = is(type, "SOCK_STREAM") ? "TCP" : is(type, "SOCK_DGRAM") ? "UDP" : NULL;
	else if (is(fam, "AF_UNIX"))
		over = "a unix socket";
	if (word != NULL && over != NULL)
		fprintf(f, "%s over %s", word, over);
	else if (word != NULL || over != NULL)
		fputs(word != NULL ? word : over, f);
	return word != NULL || over != NULL;
}

/* Whether connect c was still in progress when the wait w began. */
static bool still_connecting(json_t *c, json_t *w)
{
	json_t *dur = json_object_get(c, "dur_ns");

	if (!json_is_true(json_object_get(c, "nonblocking")))
		return false;
	if (!is(bndl_json_str(c, "outcome"), "connected"))
		return true; /* it never connected */
	return json_is_integer(dur) &&
	       bndl_json_int(c, "t_ns", 0) + json_integer_value(dur) > bndl_json_int(w, "t_ns", 0);
}

/* " (HTTP over TCP, connected in 0.1 ms)" of the connect c a socket was on. */
static void put_conn_detail(FILE *f, json_t *c, const char *call)
{
	bool any;

	fputs(" (", f);
	any = put_transport(f, c);
	if (is(bndl_json_str(c, "outcome"), "connected") &&
	    json_is_integer(json_object_get(c, "dur_ns"))) {
		int64_t ns = bndl_json_int(c, "dur_ns", 0);

		fputs(any ? ", connected in " : "connected in ", f);
		if (ns < 10000000)
			fprintf(f, "%.1f ms", (double)ns / 1e6);
		else
			rpl_wait_put_secs(f, ns);
		any = true;
	}
	if (call != NULL)
		fprintf(f, "%s%s", any ? "; " : "", call);
	fputc(')', f);
}

/* "pid 12 (sleep 30)", or "pid 12" when names does not know it. */
static void put_holder(FILE *f, int64_t pid, const struct rpl_wait_names *names)
{
	const char *label = names != NULL && names->label != NULL ? names->label(names->ctx, pid)
								  : NULL;

	fprintf(f, "pid %" PRId64, pid);
	if (label != NULL && label[0] != '\0' && strncmp(label, "pid ", 4) != 0)
		fprintf(f, " (%s)", label);
}

/* How many holders in other_end are not the waiting process self. */
static size_t others(json_t *other, int64_t self)
{
	size_t n = 0, i;
	json_t *h;

	json_array_foreach (other, i, h)
		n += bndl_json_int(h, "pid", 0) != self;
	return n;
}

/* The holders in other_end but the waiting process self: "pid 1 (a), pid 2 (b) and pid 3 (c)". */
static void put_holders(FILE *f, json_t *other, int64_t self, bool more,
			const struct rpl_wait_names *names)
{
	size_t n = others(other, self), i, k = 0;
	json_t *h;

	json_array_foreach (other, i, h) {
		int64_t pid = bndl_json_int(h, "pid", 0);

		if (pid == self)
			continue;
		if (k > 0)
			fputs(k + 1 == n && !more ? " and " : ", ", f);
		put_holder(f, pid, names);
		k++;
	}
	if (more)
		fputs(" and others", f);
}

/*
 * A pipe fd record d with other_end, of a wait of process self: "data on a
 * pipe from pid 12 (sleep 30)", "room on a pipe read by …", "… nobody else
 * holds open (its own fd 4 is the write end)", "… whose writer is outside
 * the recording".
 */
static void put_pipe_end(FILE *f, json_t *d, int64_t self, const struct rpl_wait_names *names)
{
	bool write = is(bndl_json_str(d, "pipe_end"), "write");
	const char *cut = bndl_json_str(d, "other_end_cut");
	json_t *other = json_object_get(d, "other_end"), *own = json_array_get(other, 0);

	fputs(write ? "room on a pipe" : "data on a pipe", f);
	if (others(other, self) > 0) {
		fputs(write ? " read by " : " from ", f);
		put_holders(f, other, self, is(cut, "holders"), names);
		return;
	}
	if (own != NULL) { /* only the waiting process holds the other end */
		fprintf(f, " nobody else holds open (its own fd %" PRId64 " is the %s end)",
			bndl_json_int(own, "fd", 0), write ? "read" : "write");
		return;
	}
	if (is(cut, "fds"))
		fprintf(f, " whose %s was not found (a process had over 1024 fds)",
			write ? "reader" : "writer");
	else
		fprintf(f, " whose %s is outside the recording", write ? "reader" : "writer");
}

/*
 * What fd record d of wait w is: "a reply from PEER", "data on a pipe from
 * pid 12 (sleep 30)" … for a read-like wait; call (or NULL) goes in the
 * parenthesis; names labels a pipe's other end.
 */
static void put_fd_source(FILE *f, json_t *w, json_t *d, const char *call,
			  const struct rpl_wait_names *names)
{
	const char *kind = bndl_json_str(d, "kind");
	json_t *peer = json_object_get(d, "peer");
	json_t *c = d == json_array_get(json_object_get(w, "fds"), 0) ? json_object_get(w, "socket")
								      : NULL;

	if (is(kind, "socket") && c != NULL && still_connecting(c, w)) {
		fputs("the connection to ", f);
		if (!rpl_put_addr(f, c))
			fputs("an address", f);
		fputs(" to complete", f);
		put_conn_detail(f, c, call);
		return;
	}
	if (is(kind, "socket") && ((peer != NULL && bndl_json_str(peer, "ip") != NULL) ||
				   (c != NULL && bndl_json_str(c, "ip") != NULL))) {
		fputs("a reply from ", f);
		rpl_put_addr(f, peer != NULL && bndl_json_str(peer, "ip") != NULL ? peer : c);
		if (c != NULL)
			put_conn_detail(f, c, call);
		else if (call != NULL)
			fprintf(f, " (%s)", call);
		return;
	}
	if (is(kind, "socket")) {
		fputs("data on a socket", f);
		if (json_object_get(d, "local") != NULL && bndl_json_str(peer, "path") == NULL) {
			fputs(" (", f);
			if (!rpl_put_addr(f, json_object_get(d, "local")))
				fprintf(f, "fd %" PRId64, bndl_json_int(d, "fd", 0));
			fputc(')', f);
		}
	} else if (is(kind, "pipe") && json_is_array(json_object_get(d, "other_end"))) {
		put_pipe_end(f, d, bndl_json_int(w, "pid", 0), names);
	} else if (is(kind, "pipe")) {
		fprintf(f, "data on a pipe (fd %" PRId64 ", %s)", bndl_json_int(d, "fd", 0),
			bndl_json_str(d, "link") ? bndl_json_str(d, "link") : "?");
	} else if (is(kind, "tty")) {
		fprintf(f, "input from the terminal %s", bndl_json_str(d, "link"));
	} else {
		fprintf(f, "fd %" PRId64, bndl_json_int(d, "fd", 0));
		if (bndl_json_str(d, "link") != NULL)
			fprintf(f, " (%s)", bndl_json_str(d, "link"));
	}
	if (call != NULL)
		fprintf(f, " (%s)", call);
}

/* "in connect to X", "for a reply from X", "for its child pid N" … */
void rpl_wait_put_on(FILE *f, json_t *w, const struct rpl_wait_names *names)
{
	const char *what = bndl_json_str(w, "what"), *sc = bndl_json_str(w, "syscall");
	json_t *fd0 = json_array_get(json_object_get(w, "fds"), 0);
	int64_t child = bndl_json_int(w, "child", 0), nfds = bndl_json_int(w, "nfds", 0);

	if (is(what, "connect")) {
		fputs("in connect to ", f);
		if (!rpl_put_addr(f, json_object_get(w, "addr")))
			fputs("an address", f);
	} else if (is(what, "accept")) {
		fputs("in accept for a connection on ", f);
		if (fd0 == NULL || !rpl_put_addr(f, json_object_get(fd0, "local")))
			fputs("a socket", f);
	} else if (is(what, "read")) {
		fputs("for ", f);
		if (fd0 != NULL)
			put_fd_source(f, w, fd0, sc, names);
		else
			fprintf(f, "data (%s)", sc);
	} else if (is(what, "poll") && nfds == 1 && fd0 != NULL) {
		fputs("for ", f);
		put_fd_source(f, w, fd0, sc, names);
	} else if (is(what, "poll")) {
		fprintf(f, "in %s on %" PRId64 " fd%s", sc, nfds, nfds == 1 ? "" : "s");
		if (fd0 != NULL) {
			fputs(", first ", f);
			put_fd_source(f, w, fd0, NULL, names);
		}
	} else if (is(what, "child")) {
		if (child > 0)
			fprintf(f, "in %s for its child pid %" PRId64, sc, child);
		else
			fprintf(f, "in %s for a child to end", sc);
	} else if (is(what, "lock")) {
		fprintf(f, "in %s for a lock on ", sc);
		if (fd0 != NULL)
			put_fd_source(f, w, fd0, NULL, names);
	} else {
		fprintf(f, "in %s", sc);
	}
}

/*
 * How the connection of connect c ended, when it ended during wait w (from
 * its start to a second after its end): ", then the peer closed the
 * connection without sending anything" …; false when it did not.
 */
static bool put_conn_end(FILE *f, json_t *c, json_t *w)
{
	const char *end = bndl_json_str(c, "end");
	int64_t at = bndl_json_int(c, "end_ns", -1), t0 = bndl_json_int(w, "t_ns", 0);
	int64_t t1 = t0 + bndl_json_int(w, "dur_ns", 0);
	int64_t got = bndl_json_int(c, "received", -1);

	if (end == NULL || at < t0 || at > t1 + 1000000000)
		return false;
	if (is(end, "peer_closed") && got == 0)
		fputs(", then the peer closed the connection without sending anything", f);
	else if (is(end, "peer_closed") && got > 0)
		fprintf(f, ", then the peer closed the connection after sending %" PRId64 " bytes",
			got);
	else if (is(end, "reset"))
		fputs(", then the peer reset the connection", f);
	else if (is(end, "timed_out"))
		fputs(", then the connection timed out", f);
	else if (is(end, "closed") && got == 0)
		fputs(", then it closed the connection, having received nothing", f);
	else
		return false;
	return true;
}

/* How the wait ended: "then the peer closed the connection" … */
void rpl_wait_put_end(FILE *f, json_t *w)
{
	const char *end = bndl_json_str(w, "end"), *what = bndl_json_str(w, "what");
	const char *kind = bndl_json_str(json_array_get(json_object_get(w, "fds"), 0), "kind");
	json_t *ret = json_object_get(w, "ret"), *c = json_object_get(w, "socket");

	if (is(end, "signal")) {
		fprintf(f, ", then %s interrupted it", bndl_json_str(w, "signal"));
	} else if (is(end, "exited")) {
		fputs(", and the thread ended in it", f);
	} else if (is(end, "left_running")) {
		fputs(", and it was still waiting when the recording stopped", f);
	} else if (c != NULL && (is(what, "read") || is(what, "poll")) && put_conn_end(f, c, w)) {
		return;
	} else if (bndl_json_str(w, "errno") != NULL) {
		fprintf(f, ", then it failed with %s", bndl_json_str(w, "errno"));
	} else if (json_is_integer(ret) && is(what, "read") && json_integer_value(ret) == 0) {
		if (is(kind, "socket"))
			fprintf(f, ", then the peer closed the connection (%s returned 0)",
				bndl_json_str(w, "syscall"));
		else
			fputs(is(kind, "pipe") ? ", then the pipe's last writer closed it"
					       : ", then it read end of file",
			      f);
	} else if (json_is_integer(ret) && is(what, "read")) {
		fprintf(f, ", then it got %" JSON_INTEGER_FORMAT " bytes", json_integer_value(ret));
	} else if (json_is_integer(ret) && is(what, "connect")) {
		fputs(", then it connected", f);
	} else if (json_is_integer(ret) && is(what, "child")) {
		fprintf(f, ", then pid %" JSON_INTEGER_FORMAT " ended", json_integer_value(ret));
	}
}
