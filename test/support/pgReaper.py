"""Runs one PostgreSQL server (argv[2:], a postgres command line) as the postgres user, for pgCluster.ts.

The machine's PID 1 never reaps, and pid_max is 32768: a postmaster started by pg_ctl (adopted by
PID 1 once pg_ctl exits) stays a zombie when it stops, and so does every backend of a postmaster
killed with SIGKILL. This parent is a child subreaper (prctl PR_SET_CHILD_SUBREAPER): the server's
orphans are adopted by it, and it reaps the postmaster and each of them. It exits once none is
left, so its own exit tells its parent that every process of the server is gone.

The postmaster's pid is the first line on stdout. stdin is the leash: "stop" then end of input is
a planned stop (immediate shutdown, SIGQUIT); end of input without "stop" means the test process
died, and then, once the server is gone, the cluster's directory (argv[1]) is removed too.
"""

import ctypes
import os
import pwd
import shutil
import signal
import sys
import threading

PR_SET_CHILD_SUBREAPER = 36

libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("prctl(PR_SET_CHILD_SUBREAPER): " + os.strerror(ctypes.get_errno()))

cluster_dir = sys.argv[1]
command = sys.argv[2:]
user = pwd.getpwnam("postgres")

child = os.fork()
if child == 0:
    try:
        # Its output goes where the reaper's stderr goes (the server's log), not into the pid pipe,
        # and the leash is the reaper's alone.
        os.dup2(2, 1)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.initgroups(user.pw_name, user.pw_gid)
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)
        # Ctrl-C reaches the server from the terminal, as a fast shutdown; the reaper ignores it.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.execv(command[0], command)
    finally:
        os._exit(127)

signal.signal(signal.SIGINT, signal.SIG_IGN)
print(child, flush=True)
orphaned = threading.Event()


def leash():
    planned = sys.stdin.read().strip() == "stop"
    if not planned:
        orphaned.set()
    try:
        os.kill(child, signal.SIGQUIT)
    except ProcessLookupError:
        pass


threading.Thread(target=leash, daemon=True).start()

status = 0
while True:
    try:
        pid, code = os.waitpid(-1, 0)
    except ChildProcessError:
        break
    if pid == child:
        status = os.waitstatus_to_exitcode(code)

if orphaned.is_set():
    shutil.rmtree(cluster_dir, ignore_errors=True)
sys.exit(status if status >= 0 else 128 - status)
