"""threads_stat: 80 threads making path calls at once, then a fork.  The
program checks its own answers (run_case: the same output bare and
recorded); here every thread is a task of the bundle and every stat of
/etc/passwd is recorded with its result."""
import bundlecheck as bc

b = bc.Bundle()
print("threads_stat: path calls from 80 threads at once")
bc.expect_exit(b, code=0)
tids = {ev.get("tid") for ev in b.find(syscall="newfstatat", path="/etc/passwd")}
bc.expect(len(tids) >= 81, "stat(/etc/passwd) recorded from every thread", len(tids))
bad = [ev for ev in b.find(syscall="newfstatat", path="/etc/passwd") if ev.get("ret") != 0]
bc.expect(not bad, "each with its result (0)", bad[:3])
bc.done()
