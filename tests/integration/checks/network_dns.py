#!/usr/bin/python3
"""network_dns.py WORK: the network.jsonl of each run of network.sh holds
the lookups, names and outcomes the programs met."""
import json, os, sys

work = sys.argv[1]
fail = 0

def load(name):
    with open(os.path.join(work, name + ".net")) as f:
        return [json.loads(line) for line in f]

def check(what, ok, got=None):
    global fail
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else "\n  got: %s" % json.dumps(got)))
    fail |= not ok

def lookups(recs, name, qtype="A"):
    return [r for r in recs if r.get("kind") == "dns" and r.get("name") == name and r.get("qtype") == qtype]

def first(lst):
    return lst[0] if lst else {}

net = load("resolve")
dns = [r for r in net if r.get("kind") == "dns"]
good = first(lookups(net, "good.repro.test"))
check("good.repro.test A answered 127.0.0.1 by 127.0.0.1:53 over udp",
      good.get("outcome") == "answered" and good.get("answers") == ["127.0.0.1"]
      and good.get("ip") == "127.0.0.1" and good.get("port") == 53 and good.get("transport") == "udp"
      and isinstance(good.get("dur_ns"), int), dns)
alias = first(lookups(net, "alias.repro.test"))
check("alias.repro.test: CNAME good.repro.test, 127.0.0.1",
      alias.get("cnames") == ["good.repro.test"] and alias.get("answers") == ["127.0.0.1"], alias)
check("bad.repro.test: nxdomain",
      first(lookups(net, "bad.repro.test")).get("outcome") == "nxdomain"
      and first(lookups(net, "bad.repro.test")).get("rcode") == "NXDOMAIN", dns)
check("broken.repro.test: servfail", first(lookups(net, "broken.repro.test")).get("outcome") == "servfail", dns)
silent = first(lookups(net, "silent.repro.test"))
check("silent.repro.test: timed out after about the resolver's 1 s",
      silent.get("outcome") == "timed_out" and isinstance(silent.get("dur_ns"), int)
      and 0.5e9 <= silent["dur_ns"] <= 10e9, silent)
tcp = first(lookups(net, "tcp.repro.test"))
check("tcp.repro.test: answered 127.0.0.2 over tcp",
      tcp.get("transport") == "tcp" and tcp.get("answers") == ["127.0.0.2"], tcp)
http = [r for r in net if r.get("kind") == "attempt" and r.get("syscall") == "connect" and r.get("port") == 8080]
check("the connect to port 8080 carries the name good.repro.test from DNS",
      bool(http) and all(r.get("name") == "good.repro.test" and r.get("name_source") == "dns"
                         and r.get("outcome") == "connected" for r in http), http)

net = load("curl")
check("curl: good.repro.test answered",
      first(lookups(net, "good.repro.test")).get("outcome") == "answered", net)
conn = [r for r in net if r.get("kind") == "attempt" and r.get("port") == 8080]
check("curl: connected to good.repro.test (127.0.0.1:8080), with a duration",
      bool(conn) and conn[-1].get("name") == "good.repro.test" and conn[-1].get("outcome") == "connected"
      and isinstance(conn[-1].get("dur_ns"), int), conn)

net = load("stalled")
att = [r for r in net if r.get("kind") == "attempt" and r.get("syscall") == "connect"]
ab = [r for r in att if r.get("outcome") == "abandoned"]
check("stalled: the non-blocking connect was abandoned after the program's 500 ms",
      len(ab) == 1 and isinstance(ab[0].get("dur_ns"), int) and 0.4e9 <= ab[0]["dur_ns"] <= 5e9
      and ab[0].get("nonblocking") is True, att)
to = [r for r in att if r.get("outcome") == "timed_out"]
check("stalled: the blocking connect timed out (ETIMEDOUT) after about 3 s",
      len(to) == 1 and to[0].get("errno") == "ETIMEDOUT" and 1e9 <= to[0]["dur_ns"] <= 30e9, att)

net = load("curl_stalled")
ab = [r for r in net if r.get("kind") == "attempt" and r.get("outcome") == "abandoned"]
check("curl --connect-timeout 1: the connect was abandoned after about 1 s",
      len(ab) >= 1 and isinstance(ab[0].get("dur_ns"), int) and 0.8e9 <= ab[0]["dur_ns"] <= 10e9, net)
def top(name):
    with open(os.path.join(work, name + ".explain")) as f:
        found = json.load(f).get("findings") or []
    return found[0] if found else {}

t = top("curl_nx")
check("explain curl_nx: #1 is the NXDOMAIN lookup of bad.repro.test",
      t.get("kind") == "dns" and t.get("outcome") == "nxdomain" and "bad.repro.test" in t.get("sentence", ""), t)
t = top("curl_stalled")
check("explain curl_stalled: #1 is the connect curl gave up on",
      t.get("kind") == "connect" and t.get("outcome") == "abandoned", t)
t = top("stalled")
check("explain stalled: #1 is a connect without answer",
      t.get("kind") == "connect" and t.get("outcome") in ("timed_out", "abandoned"), t)
sys.exit(fail)
