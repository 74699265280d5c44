/**
 * The Python side of the command runner (script-runner.ts), preferred to the
 * perl one (perl-runner-script.ts) because it starts programs with
 * posix_spawn, which vforks: nothing of the runner is copied, where a
 * fork copies each page either side writes before the exec. Programs that
 * change user or group are forked, as the perl runner does.
 *
 * It speaks the same protocol, described in perl-runner-script.ts: the
 * request `<length>\n<record>` (id, umask, directory, uid, gid, time limit,
 * bytes kept, stop text, standard input, environment, argv, separated by NUL) and the reply
 * `<id> <status> <signal> <timed out> <output length> <error length>\n`
 * with the output and the error text.
 *
 * The first argument holds the agent's LC_CTYPE ("=" and its value, or
 * "-" when unset): Python may set it at start (PEP 538), and programs get
 * the agent's environment.
 */
export const PYTHON_RUNNER_SCRIPT = String.raw`
import os, select, signal, sys, time
if sys.version_info < (3, 8): sys.exit(3)
base_env = dict(os.environb)
base_env.pop(b'LC_CTYPE', None)
if sys.argv[1] != '-': base_env[b'LC_CTYPE'] = os.fsencode(sys.argv[1][1:])
KILL_GRACE, DRAIN_GRACE = 1.0, 2.0
IN, OUT = 0, 1
jobs, by_pid = {}, {}
inbuf, outq = b'', b''
os.set_blocking(OUT, False)
wake_r, wake_w = os.pipe()
os.set_blocking(wake_r, False); os.set_blocking(wake_w, False)
# A program's end writes to wake_w, so select sees it without a race.
signal.set_wakeup_fd(wake_w)
signal.signal(signal.SIGCHLD, lambda *_: None)
null = os.open('/dev/null', os.O_RDONLY)
# Python ignores SIGPIPE and SIGXFSZ, and catches SIGCHLD here: programs get them as the agent has them.
DEFAULT_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD)
home = os.open('.', os.O_RDONLY)
os.write(OUT, b'tend-runner\n')

class Job:
    def __init__(self, id, max, stop):
        self.id, self.max, self.stop = id, max, stop
        self.out, self.kept, self.tail, self.err = [], 0, b'', b''
        self.error = None; self.timed = 0; self.stage = 0; self.due = None
        self.pid = None; self.r = self.w = self.er = None; self.exited = self.gaveup = False
        self.code, self.sig = b'', 0

def fail(job, text):
    job.error = text.encode('utf-8', 'surrogateescape'); job.gaveup = True

def child(job, umask, dir, uid, gid, group, argv, w, ew, stdin, env):
    # A forked child (changing user or group): each step as 3.21's child, then exec.
    step = 'setpgid'
    try:
        for sig in DEFAULT_SIGNALS: signal.signal(sig, signal.SIG_DFL)
        if group: os.setpgid(0, 0)
        os.umask(umask)
        step = 'stdin'; os.dup2(os.open(stdin, os.O_RDONLY) if stdin else null, 0)
        step = 'stdout'; os.dup2(w, 1)
        step = 'stderr'; os.dup2(w, 2)
        if dir: step = 'chdir'; os.chdir(dir)
        if gid is not None: step = 'setgid'; os.setgroups([gid]); os.setgid(gid)
        if uid is not None: step = 'setuid'; os.setuid(uid)
        step = 'exec'; os.execve(argv[0], argv, env)
    except OSError as e:
        os.write(ew, ('%s: %s' % (step, os.strerror(e.errno or 0))).encode())
    finally:
        os._exit(127)

def stdio_actions(w, stdin):
    first = (os.POSIX_SPAWN_OPEN, 0, stdin, os.O_RDONLY, 0) if stdin else (os.POSIX_SPAWN_DUP2, null, 0)
    return [first, (os.POSIX_SPAWN_DUP2, w, 1), (os.POSIX_SPAWN_DUP2, w, 2)]

def spawn(job, umask, dir, argv, w, group, stdin, env):
    # posix_spawn: the umask and directory are lent by this process for the moment of the spawn.
    old = os.umask(umask)
    try:
        if dir:
            try: os.chdir(dir)
            except OSError as e: return 'chdir: ' + os.strerror(e.errno)
        try:
            job.pid = os.posix_spawn(argv[0], argv, env, file_actions=stdio_actions(w, stdin),
                setsigdef=DEFAULT_SIGNALS, **({'setpgroup': 0} if group else {}))
        except OSError as e: return 'exec: ' + os.strerror(e.errno)
        finally:
            if dir: os.fchdir(home)
    finally:
        os.umask(old)
    return None

def start(fields):
    job = Job(fields[0], int(fields[6]), fields[7])
    jobs[job.id] = job
    try:
        launch(job, fields)
    except Exception as e:
        fail(job, 'runner: %s' % e)

def launch(job, fields):
    umask, dir, uid, gid, limit = fields[1:6]
    stdin, count = fields[8], int(fields[9])
    env = base_env
    if count:
        env = dict(base_env)
        for entry in fields[10:10 + count]:
            name, set, value = entry.partition(b'=')
            if set: env[name] = value
            else: env.pop(name, None)
    argv = fields[10 + count:]
    group = limit != b''
    try:
        r, w = os.pipe()
    except OSError as e:
        return fail(job, 'pipe: ' + os.strerror(e.errno))
    umask = int(umask, 8)
    if uid == b'' and gid == b'':
        problem = spawn(job, umask, dir, argv, w, group, stdin, env)
        if problem is not None:
            os.close(r); os.close(w); return fail(job, problem)
    else:
        er, ew = os.pipe()
        job.pid = os.fork()
        if job.pid == 0:
            child(job, umask, dir, int(uid) if uid else None, int(gid) if gid else None, group, argv, w, ew, stdin, env)
        os.close(ew)
        job.er = er
    if group:
        try: os.setpgid(job.pid, job.pid)
        except OSError: pass
        job.due = time.monotonic() + int(limit) / 1000
    # The runner keeps a write end until the program ends: its output's end
    # then wakes nobody, and the program's end alone wakes the runner.
    os.set_blocking(r, False)
    job.r, job.w = r, w
    by_pid[job.pid] = job

def end_output(job):
    if job.r is not None: os.close(job.r); job.r = None
    if job.w is not None: os.close(job.w); job.w = None

def drain(job):
    """Reads what the output holds now (after the program ended: often all of it)."""
    while job.r is not None and read_output(job): pass

def read_output(job):
    """Reads once; whether more may be ready at once."""
    try: chunk = os.read(job.r, 65536)
    except (BlockingIOError, InterruptedError): return False
    except OSError: return end_output(job)
    if not chunk: return end_output(job)
    if job.kept < job.max: job.out.append(chunk[:job.max - job.kept])
    job.kept += len(chunk)
    if job.kept >= job.max: return end_output(job)
    if not job.stop: return True
    text = job.tail + chunk
    if job.stop in text: return end_output(job)
    line = text[text.rfind(b'\n') + 1:]
    job.tail = line[-len(job.stop):]
    return True

def read_error(job):
    chunk = os.read(job.er, 4096)
    if chunk: job.err += chunk; return
    os.close(job.er); job.er = None
    if job.err: job.error = job.err

def reap():
    while by_pid:
        try: pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError: return
        if pid == 0: return
        job = by_pid.pop(pid, None)
        if job is None: continue
        job.exited = True
        if os.WIFEXITED(status): job.code, job.sig = str(os.WEXITSTATUS(status)).encode(), 0
        else: job.code, job.sig = b'', os.WTERMSIG(status)
        # What the program started may still hold the output: it is read to its end.
        if job.w is not None: os.close(job.w); job.w = None
        drain(job)

def flush_replies():
    global outq
    while outq:
        try: n = os.write(OUT, outq)
        except BlockingIOError: return
        except InterruptedError: continue
        except OSError: sys.exit(0)
        outq = outq[n:]

def answer_finished():
    global outq
    for job in [j for j in jobs.values() if j.r is None and j.er is None and (j.exited or j.gaveup)]:
        del jobs[job.id]
        out = b''.join(job.out)
        error = job.error or b''
        code, sig = (b'', 0) if error else (job.code, job.sig)
        head = b' '.join([job.id, code, str(sig).encode(), str(job.timed).encode(), str(len(out)).encode(), str(len(error)).encode()])
        outq += head + b'\n' + out + error
    flush_replies()

def kill_group(pid, sig):
    try: os.killpg(pid, sig)
    except OSError: pass

def run_timers():
    now = time.monotonic()
    for job in list(jobs.values()):
        if job.due is None or now < job.due: continue
        job.stage += 1
        if job.stage == 1: job.timed = 1; kill_group(job.pid, signal.SIGTERM); job.due = now + KILL_GRACE
        elif job.stage == 2: kill_group(job.pid, signal.SIGKILL); job.due = now + DRAIN_GRACE
        else:
            # Something outside the group still holds the pipe: leave it behind.
            end_output(job)
            if job.er is not None: os.close(job.er); job.er = None
            if not job.exited and job.error is None: job.error = b'the program did not end after SIGKILL'
            job.gaveup = True; job.due = None
            by_pid.pop(job.pid, None)

def read_requests():
    global inbuf
    try: chunk = os.read(IN, 65536)
    except InterruptedError: return
    # The agent is gone: nobody is left to answer.
    if not chunk: sys.exit(0)
    inbuf += chunk
    while True:
        nl = inbuf.find(b'\n')
        if nl < 0: return
        end = nl + 1 + int(inbuf[:nl])
        if len(inbuf) < end: return
        record = inbuf[nl + 1:end]
        inbuf = inbuf[end:]
        start(record.split(b'\0'))

# poll, not select: descriptors past 1024 (many programs in the background) are fine.
READ, WRITE = select.POLLIN | select.POLLHUP | select.POLLERR, select.POLLOUT
while True:
    reap()
    run_timers()
    answer_finished()
    poller = select.poll()
    poller.register(IN, READ); poller.register(wake_r, READ)
    if outq: poller.register(OUT, WRITE)
    wait = None
    now = time.monotonic()
    for job in jobs.values():
        if job.r is not None: poller.register(job.r, READ)
        if job.er is not None: poller.register(job.er, READ)
        if job.due is not None and (wait is None or job.due - now < wait): wait = max(0.0, job.due - now)
    try: ready = dict(poller.poll(None if wait is None else wait * 1000))
    except InterruptedError: continue
    if ready.get(OUT, 0) & (WRITE | select.POLLERR | select.POLLHUP) and outq: flush_replies()
    if wake_r in ready:
        try: os.read(wake_r, 512)
        except BlockingIOError: pass
    for job in list(jobs.values()):
        if job.r is not None and job.r in ready: read_output(job)
        if job.er is not None and job.er in ready: read_error(job)
    if IN in ready: read_requests()
`;
