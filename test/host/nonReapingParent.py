"""Runs a command (argv[1:]) under a parent that does not reap, until stdin closes.

A container whose PID 1 never reaps: a process killed there stays a zombie. This parent is a
child subreaper (prctl PR_SET_CHILD_SUBREAPER), so the orphans of the command (an embedded
PostgreSQL whose host was killed, and that server's backends) are adopted by it rather than by
the machine's init, and it calls no wait while the test runs: whatever exits stays a zombie.

The command runs in a process group of its own (its pid), as a terminal gives a command. The
command's pid is the first line on stdout. When stdin closes (the test is done, or died), the
group is killed and every process this parent ever adopted is reaped before it exits.
"""

import ctypes
import os
import signal
import sys

PR_SET_CHILD_SUBREAPER = 36

libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("prctl(PR_SET_CHILD_SUBREAPER): " + os.strerror(ctypes.get_errno()))

child = os.fork()
if child == 0:
    try:
        os.setpgid(0, 0)
        os.execv(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
try:
    # Also here, so that the group exists whichever of the two runs first.
    os.setpgid(child, child)
except OSError:
    pass
print(child, flush=True)

sys.stdin.read()

try:
    os.killpg(child, signal.SIGKILL)
except ProcessLookupError:
    pass
# The backends of a killed postmaster are in sessions of their own: they exit by themselves once
# they see it gone, and this waits for each of them.
while True:
    try:
        os.waitpid(-1, 0)
    except ChildProcessError:
        break
