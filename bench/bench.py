#!/usr/bin/python3
"""bench.py - repro against strace on the same workloads, in one run.

Each workload runs natively, under `strace -f -qq --seccomp-bpf -e
trace=file,network,process -o FILE`, under the same strace without
--seccomp-bpf, under `repro record -o FILE` and under `repro record
--ptrace-only -o FILE` (every call a ptrace stop), interleaved (every tool
once per repetition, in a rotating order), and the report gives per
workload the median wall and CPU time as ratios to native, repro's
overhead (time - native) as a fraction of strace --seccomp-bpf's, the
tracer's peak RSS and the size of what each wrote, then a line per workload
with the target it is judged against and whether this run met it.

Workloads: python-imports-40 (python3 importing 40 stdlib modules),
bash-300-forks, make-j2-40-files, find-stat-20000, cpu-python (CPU-bound,
few calls, about 2 s), tcp-1000-refused-300-echo (connects to closed loopback ports,
then round trips to a local listener, each on its own connection) and
fixed-cost-true (/bin/true: the fixed cost of a run; 20 runs of each tool
per repetition, medians over all of them).  Targets: repro's overhead at
most 0.7 of strace --seccomp-bpf's, 1.0 on fixed-cost-true; cpu-python also
repro's wall time at most 1.02x native.

Then a scale run: a program making 1,000,000 traced calls (peak RSS, bundle
vs strace log size) and `repro diff` of two such bundles (time and peak RSS).

    bench/bench.py [--repro PATH] [--reps N] [--only NAME,...] [--no-scale]
                   [--json FILE]

Everything runs offline in a temporary directory.  docs/performance.md
says how to read the table and holds the latest results.
"""
import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = "trace=file,network,process"

# 40 modules of Debian 12's python3.11 (libpython3.11-minimal and -stdlib), each
# loading something that none before it did.
PY_MODULES = ("json", "csv", "email", "http.client", "urllib.request", "xml.dom.minidom",
              "sqlite3", "decimal", "argparse", "logging", "asyncio", "unittest",
              "tarfile", "zipfile", "gzip", "multiprocessing", "http.server",
              "xml.etree.ElementTree", "html.parser", "configparser", "fractions",
              "statistics", "uuid", "smtplib", "mailbox", "zoneinfo", "tomllib", "doctest",
              "shelve", "optparse", "ctypes", "plistlib", "imaplib", "ftplib",
              "xmlrpc.client", "wsgiref.simple_server", "pydoc", "logging.handlers",
              "xml.sax", "cProfile")
PY_IMPORTS = "import " + ", ".join(PY_MODULES)

FORK_SCRIPT = r"""
set -e
d=$(mktemp -d "$1/forks.XXXXXX")
for i in $(seq 1 43); do
	mkdir "$d/$i"
	echo "line $i" > "$d/$i/a"
	cp "$d/$i/a" "$d/$i/b"
	grep -q line "$d/$i/b"
	sed -e s/line/LINE/ "$d/$i/b" > "$d/$i/c"
	test -s "$d/$i/c"
	cat "$d/$i/c" > /dev/null
done
rm -r "$d"
"""

NET_REFUSED = 1000
NET_ECHO = 300

# argv: N, M.  N connects to closed loopback ports, then M round trips to a
# local listener, each on a connection of its own.
NET_SCRIPT = r"""
import socket, sys, threading
n_refused, n_echo = int(sys.argv[1]), int(sys.argv[2])
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(64)
port = srv.getsockname()[1]
def serve():
    for _ in range(n_echo):
        c, _ = srv.accept()
        with c:
            c.sendall(c.recv(64))
t = threading.Thread(target=serve); t.start()
closed = []
for _ in range(n_refused):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); closed.append(s.getsockname()[1]); s.close()
refused = 0
for p in closed:
    c = socket.socket()
    try:
        c.connect(("127.0.0.1", p))
    except ConnectionRefusedError:
        refused += 1
    c.close()
for i in range(n_echo):
    with socket.create_connection(("127.0.0.1", port)) as c:
        c.sendall(b"ping %d" % i)
        c.recv(64)
t.join()
print(refused, "refused")
"""

# About 2 s natively: long enough that the interpreter's start (some 300
# traced calls, ~30 ms under either tracer) and repro's fixed cost are a
# small part of it, so that the ratio shows what tracing costs CPU-bound work
CPU_SCRIPT = "print(sum(i * i for i in range(40_000_000)))"

# fixed-cost-true runs this many times per repetition (a run of /bin/true is
# under a millisecond natively); its medians are over all of them.
FIXED_COST_RUNS = 20

# What each workload is judged against: repro's overhead as a fraction of
# strace --seccomp-bpf's, and for cpu-python also repro's wall time as a
# ratio to native.
OVERHEAD_TARGET = 0.7
TARGETS = {
    "cpu-python": {"overhead_fraction": OVERHEAD_TARGET, "repro_wall_ratio": 1.02},
    "fixed-cost-true": {"overhead_fraction": 1.0},
}


def make_project(root, files=40):
    src = os.path.join(root, "proj")
    os.makedirs(os.path.join(src, "include"), exist_ok=True)
    for i in range(files):
        with open(os.path.join(src, "include", "m%d.h" % i), "w") as f:
            f.write("#pragma once\nint m%d(int);\n" % i)
        with open(os.path.join(src, "m%d.c" % i), "w") as f:
            f.write("#include <stdio.h>\n#include <string.h>\n#include \"m%d.h\"\n"
                    "int m%d(int x) { char b[32]; snprintf(b, sizeof b, \"%%d\", x); "
                    "return (int)strlen(b) + x; }\n" % (i, i))
    with open(os.path.join(src, "main.c"), "w") as f:
        f.write("".join('#include "m%d.h"\n' % i for i in range(files)))
        f.write("int main(void) { int s = 0;\n")
        f.write("".join("s += m%d(%d);\n" % (i, i) for i in range(files)))
        f.write("return s == 0; }\n")
    objs = " ".join("m%d.o" % i for i in range(files))
    with open(os.path.join(src, "Makefile"), "w") as f:
        f.write("CFLAGS = -O0 -Iinclude\nOBJS = %s main.o\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n"
                "%%.o: %%.c\n\t$(CC) $(CFLAGS) -c -o $@ $<\nclean:\n\trm -f prog *.o\n" % objs)
    return src


def make_tree(root, n=20000):
    top = os.path.join(root, "tree")
    for i in range(n):
        d = os.path.join(top, "d%02d" % (i % 50), "e%02d" % (i // 50 % 8))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "f%05d" % i), "w") as f:
            f.write("x")
    return top


def workloads(tmp):
    proj = make_project(tmp) if shutil.which("make") and shutil.which("cc") else None
    tree = make_tree(tmp)
    py = "/usr/bin/python3"
    w = [
        ("python-imports-%d" % len(PY_MODULES), [py, "-c", PY_IMPORTS], None, 1),
        ("bash-300-forks", ["bash", "-c", FORK_SCRIPT, "bash", tmp], None, 1),
    ]
    if proj is not None:
        w.append(("make-j2-40-files", ["make", "-s", "-j2", "-C", proj],
                  ["make", "-s", "-C", proj, "clean"], 1))
    w += [
        ("find-stat-20000", ["find", tree, "-type", "f", "-printf", "%s %m\n"], None, 1),
        ("cpu-python", [py, "-c", CPU_SCRIPT], None, 1),
        # 20,000 writes of 4 KiB to a file: each stops at entry and exit in
        # repro (a failed write is recorded), none in strace's trace classes
        ("write-4k-20000", ["dd", "if=/dev/zero", "of=" + os.path.join(tmp, "dd.bin"),
                            "bs=4k", "count=20000", "status=none"], None, 1),
        ("tcp-%d-refused-%d-echo" % (NET_REFUSED, NET_ECHO),
         [py, "-c", NET_SCRIPT, str(NET_REFUSED), str(NET_ECHO)], None, 1),
        ("fixed-cost-true", ["/bin/true"], None, FIXED_COST_RUNS),
    ]
    return w


def tool_cmd(tool, cmd, out, repro):
    if tool == "native":
        return cmd
    if tool == "strace-seccomp":
        return ["strace", "-f", "-qq", "--seccomp-bpf", "-e", TRACE, "-o", out] + cmd
    if tool == "strace":
        return ["strace", "-f", "-qq", "-e", TRACE, "-o", out] + cmd
    if tool == "repro-ptrace":
        return [repro, "record", "--ptrace-only", "-o", out, "--"] + cmd
    return [repro, "record", "-o", out, "--"] + cmd


def vm_hwm_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_once(argv, out):
    """Wall and CPU seconds (the whole tree), the first process's peak RSS (KiB), bytes written.

    The peak RSS is the first process's own VmHWM, polled every 5 ms while it
    runs (wait4's ru_maxrss would be the largest of the tracer and its
    tracees); growth in its last 5 ms can be missed."""
    if out and os.path.exists(out):
        os.unlink(out)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL)
    peak = [0]
    done = threading.Event()

    def poll():
        while not done.is_set():
            peak[0] = max(peak[0], vm_hwm_kib(p.pid))
            done.wait(0.005)
    th = threading.Thread(target=poll)
    th.start()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    done.set()
    th.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    size = os.path.getsize(out) if out and os.path.exists(out) else 0
    return {"wall": wall, "cpu": cpu, "rss_kib": peak[0], "tree_maxrss_kib": ru.ru_maxrss,
            "bytes": size, "status": p.returncode}


def median(rows, key):
    return statistics.median(r[key] for r in rows)


def bench_workload(cmd, prep, runs, tools, reps, repro, tmp):
    """Every tool `runs` times per repetition, interleaved, in a rotating order."""
    results = {t: [] for t in tools}
    for k in range(reps * runs):
        order = tools[k % len(tools):] + tools[:k % len(tools)]
        for tool in order:
            if prep:
                subprocess.run(prep, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            out = None if tool == "native" else os.path.join(tmp, "out-%s" % tool)
            results[tool].append(run_once(tool_cmd(tool, cmd, out, repro), out))
    return results


def summarise(name, results, runs):
    nat_w, nat_c = median(results["native"], "wall"), median(results["native"], "cpu")
    row = {"workload": name, "runs_per_rep": runs, "native_ms": nat_w * 1000,
           "native_cpu_ms": nat_c * 1000}
    for tool, rows in results.items():
        if tool == "native":
            continue
        w, c = median(rows, "wall"), median(rows, "cpu")
        row[tool] = {"wall_ratio": w / nat_w, "cpu_ratio": c / nat_c if nat_c else None,
                     "rss_mib": median(rows, "rss_kib") / 1024, "out_kib": median(rows, "bytes") / 1024,
                     "wall_ms": w * 1000, "failed_runs": sum(1 for r in rows if r["status"] not in (0,))}
    if "repro" in row and "strace-seccomp" in row:
        so = row["strace-seccomp"]["wall_ms"] - row["native_ms"]
        ro = row["repro"]["wall_ms"] - row["native_ms"]
        row["repro_overhead_vs_strace_seccomp"] = ro / so if so > 0 else None
    row["targets"] = TARGETS.get(name, {"overhead_fraction": OVERHEAD_TARGET})
    row["targets_met"] = targets_met(row)
    return row


def targets_met(row):
    """Per target, whether this run met it (None: not measured)."""
    met = {}
    for key, limit in row["targets"].items():
        if key == "overhead_fraction":
            v = row.get("repro_overhead_vs_strace_seccomp")
        else:
            v = row["repro"]["wall_ratio"] if "repro" in row else None
        met[key] = v <= limit if v is not None else None
    return met


def print_targets(rows):
    words = {True: "met", False: "missed", None: "not measured"}
    print()
    print("Targets (overhead: repro's as a fraction of strace --seccomp-bpf's):")
    for r in rows:
        parts = []
        for key, limit in r["targets"].items():
            if key == "overhead_fraction":
                v = r.get("repro_overhead_vs_strace_seccomp")
                parts.append("overhead <= %.1f (%s, %s)" % (
                    limit, "%.2f" % v if v is not None else "-", words[r["targets_met"][key]]))
            else:
                v = r["repro"]["wall_ratio"] if "repro" in r else None
                parts.append("repro wall <= %.2fx native (%s, %s)" % (
                    limit, "%.2fx" % v if v is not None else "-", words[r["targets_met"][key]]))
        print("- %s: %s" % (r["workload"], "; ".join(parts)))


def print_table(rows, tools):
    heads = ["workload", "native ms"] + ["%s wall" % t for t in tools if t != "native"] + \
        ["%s cpu" % t for t in tools if t != "native"] + ["repro/strace-seccomp overhead"] + \
        ["%s RSS MiB" % t for t in tools if t != "native"] + ["%s out KiB" % t for t in tools if t != "native"]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    for r in rows:
        cells = [r["workload"], ("%.0f" if r["native_ms"] >= 10 else "%.1f") % r["native_ms"]]
        cells += ["%.2fx" % r[t]["wall_ratio"] for t in tools if t != "native"]
        cells += ["%.2fx" % r[t]["cpu_ratio"] if r[t]["cpu_ratio"] else "-" for t in tools if t != "native"]
        ov = r.get("repro_overhead_vs_strace_seccomp")
        cells.append("%.2f" % ov if ov is not None else "-")
        cells += ["%.1f" % r[t]["rss_mib"] for t in tools if t != "native"]
        cells += ["%.0f" % r[t]["out_kib"] for t in tools if t != "native"]
        print("| " + " | ".join(cells) + " |")


def scale_run(repro, tmp, calls):
    exe = os.path.join(tmp, "scale_calls")
    subprocess.run(["cc", "-O2", "-o", exe, os.path.join(HERE, "scale_calls.c")], check=True)
    cmd = [exe, str(calls)]
    res = {"calls": calls}
    s = run_once(tool_cmd("strace-seccomp", cmd, os.path.join(tmp, "scale.strace"), repro),
                 os.path.join(tmp, "scale.strace"))
    res["strace-seccomp"] = s
    for name in ("a", "b"):
        out = os.path.join(tmp, "scale-%s.repro" % name)
        res["repro-" + name] = run_once(tool_cmd("repro", cmd, out, repro), out)
    d = run_once([repro, "diff", os.path.join(tmp, "scale-a.repro"),
                  os.path.join(tmp, "scale-b.repro")], None)
    res["diff"] = d
    print()
    print("Scale: %d traced calls" % calls)
    print("| | wall s | peak RSS MiB | output MiB |")
    print("|---|---|---|---|")
    print("| strace --seccomp-bpf | %.1f | %.1f | %.1f |" % (s["wall"], s["rss_kib"] / 1024, s["bytes"] / 2**20))
    a = res["repro-a"]
    print("| repro record | %.1f | %.1f | %.1f |" % (a["wall"], a["rss_kib"] / 1024, a["bytes"] / 2**20))
    print("| repro diff (two such bundles) | %.1f | %.1f | - |" % (d["wall"], d["rss_kib"] / 1024))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repro", default=os.path.join(HERE, "..", "build", "cli", "repro"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--no-scale", action="store_true")
    ap.add_argument("--scale-calls", type=int, default=1000000)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    repro = os.path.abspath(args.repro)
    if not os.access(repro, os.X_OK):
        sys.exit("bench: no repro at %s (./dev.sh build, or --repro PATH)" % repro)
    tools = ["native", "strace-seccomp", "strace", "repro", "repro-ptrace"]
    if shutil.which("strace") is None:
        sys.exit("bench: strace is not installed (./dev.sh deps)")
    tmp = tempfile.mkdtemp(prefix="repro-bench.")
    try:
        rows = []
        ws = workloads(tmp)
        only = args.only.split(",") if args.only else []
        unknown = [n for n in only if n not in [w[0] for w in ws]]
        if unknown:
            sys.exit("bench: no workload %s (there are: %s)" % (
                ", ".join(unknown), ", ".join(w[0] for w in ws)))
        for name, cmd, prep, runs in ws:
            if only and name not in only:
                continue
            print("bench: %s ..." % name, file=sys.stderr, flush=True)
            rows.append(summarise(name, bench_workload(cmd, prep, runs, tools, args.reps, repro, tmp),
                                  runs))
        print("%d repetitions, medians; ratios to native; overhead = time - native" % args.reps)
        many = ["%s: %d runs per repetition" % (r["workload"], r["runs_per_rep"])
                for r in rows if r["runs_per_rep"] > 1]
        if many:
            print("(%s, medians over all of them)" % "; ".join(many))
        print()
        print_table(rows, tools)
        print_targets(rows)
        scale = None if args.no_scale else scale_run(repro, tmp, args.scale_calls)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"workloads": rows, "scale": scale, "reps": args.reps}, f, indent=2)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
