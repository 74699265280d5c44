/**
 * A small, long-lived perl process that starts programs for the spawn
 * worker. Starting a program from Node forks the whole agent (tens of
 * megabytes of memory to map); forking this process costs a fraction of
 * that, which is most of the cost of a `commands` promise running a short
 * program. Without /usr/bin/perl the worker starts programs itself.
 *
 * Requests go to the spawner's standard input as `<length>\n<fields>`,
 * the fields separated by NUL: id, umask (octal), directory, uid, gid
 * ("" for unchanged), whether to make a new process group (1/0), the
 * output path (a FIFO whose read end the worker holds), then the program
 * and its arguments. It answers one line per event on its standard output:
 * `S <id> <pid>` once the program runs, `E <id> <errno text>` when it could
 * not start (chdir, setgid, setuid or exec failed), `X <id> <status>
 * <signal>` when it ended (the status empty when a signal killed it).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";

const PERL = "/usr/bin/perl";

const SCRIPT = String.raw`
use strict; use POSIX ();
$| = 1;
my %ids;
sub reap {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $id = delete $ids{$pid}; next unless defined $id;
    if (POSIX::WIFEXITED($?)) { print "X $id ", POSIX::WEXITSTATUS($?), " 0\n" }
    else { print "X $id  ", POSIX::WTERMSIG($?), "\n" }
  }
}
$SIG{CHLD} = \&reap;
my $chld = POSIX::SigSet->new(POSIX::SIGCHLD());
sub start {
  my ($id, $umask, $dir, $uid, $gid, $group, $out, @argv) = @_;
  pipe(my $er, my $ew) or do { print "E $id pipe: $!\n"; return };
  # SIGCHLD waits until the pid is known, so that its end is reported.
  POSIX::sigprocmask(POSIX::SIG_BLOCK(), $chld);
  my $pid = fork();
  if (!defined $pid) { POSIX::sigprocmask(POSIX::SIG_UNBLOCK(), $chld); print "E $id fork: $!\n"; return }
  if ($pid == 0) {
    close $er;
    $SIG{CHLD} = 'DEFAULT'; $SIG{PIPE} = 'DEFAULT';
    POSIX::sigprocmask(POSIX::SIG_UNBLOCK(), $chld);
    my $fail = sub { syswrite $ew, "$_[0]: $!"; POSIX::_exit(127) };
    POSIX::setpgid(0, 0) if $group;
    umask(oct $umask);
    open(STDIN, '<', '/dev/null') or $fail->('stdin');
    open(STDOUT, '>', $out) or $fail->('stdout');
    open(STDERR, '>&', \*STDOUT) or $fail->('stderr');
    if ($dir ne '') { chdir($dir) or $fail->('chdir') }
    if ($gid ne '') { $) = "$gid $gid"; POSIX::setgid($gid) or $fail->('setgid') }
    if ($uid ne '') { POSIX::setuid($uid) or $fail->('setuid') }
    { no warnings; exec { $argv[0] } @argv; }
    $fail->('exec');
  }
  close $ew;
  my $err = ''; 1 while sysread($er, $err, 4096, length $err);
  close $er;
  if ($err ne '') { waitpid($pid, 0); print "E $id $err\n" }
  else { $ids{$pid} = $id; print "S $id $pid\n" }
  POSIX::sigprocmask(POSIX::SIG_UNBLOCK(), $chld);
}
my $buf = '';
for (;;) {
  # SIGCHLD usually wakes select; one that comes just before it is
  # caught by the timeout, which applies while programs run.
  reap();
  my $rin = ''; vec($rin, fileno(STDIN), 1) = 1;
  my $ready = select($rin, undef, undef, %ids ? 0.05 : undef);
  next if $ready <= 0;
  my $n = sysread(STDIN, $buf, 65536, length $buf);
  if (!defined $n) { next if $!{EINTR}; last }
  last if $n == 0;
  while ($buf =~ /^(\d+)\n/) {
    my $len = $1; my $head = length($len) + 1;
    last if length($buf) < $head + $len;
    my $record = substr($buf, $head, $len);
    substr($buf, 0, $head + $len) = '';
    start(split /\0/, $record, -1);
  }
}
`;

export interface SpawnerOrder {
  readonly argv: readonly string[];
  readonly umask: number;
  readonly cwd?: string;
  readonly uid?: number;
  readonly gid?: number;
  readonly group: boolean;
  /** Where the program's standard output and standard error go. */
  readonly output: string;
}

export interface SpawnerEvents {
  started(pid: number): void;
  failed(message: string): void;
  exited(code: number | null, signal: string | null): void;
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

export class PerlSpawner {
  private readonly process: ChildProcess;
  private readonly waiting = new Map<number, SpawnerEvents>();
  private pending = "";
  private nextId = 0;
  /** Set when the spawner died: its programs are failed, and no more are sent to it. */
  dead = false;

  private constructor() {
    this.process = spawn(PERL, ["-e", SCRIPT], { stdio: ["pipe", "pipe", "inherit"] });
    this.process.stdout!.setEncoding("utf8");
    this.process.stdout!.on("data", (text: string) => this.read(text));
    this.process.on("exit", () => this.die("the perl spawner ended"));
    this.process.on("error", (error) => this.die(`the perl spawner failed: ${error.message}`));
    this.process.stdin!.on("error", () => this.die("the perl spawner stopped reading"));
    this.process.unref();
  }

  /** A spawner, or undefined when perl is not installed. */
  static create(): PerlSpawner | undefined {
    return existsSync(PERL) ? new PerlSpawner() : undefined;
  }

  start(order: SpawnerOrder, events: SpawnerEvents): void {
    const id = ++this.nextId;
    this.waiting.set(id, events);
    const id32 = (value: number | undefined) => (value === undefined ? "" : String(value >>> 0));
    const fields = [
      String(id),
      order.umask.toString(8),
      order.cwd ?? "",
      id32(order.uid),
      id32(order.gid),
      order.group ? "1" : "0",
      order.output,
      ...order.argv,
    ];
    const record = Buffer.from(fields.join("\0"));
    this.process.stdin!.write(Buffer.concat([Buffer.from(`${record.length}\n`), record]));
  }

  private read(text: string): void {
    this.pending += text;
    for (let end = this.pending.indexOf("\n"); end !== -1; end = this.pending.indexOf("\n")) {
      const line = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 1);
      this.handle(line);
    }
  }

  private handle(line: string): void {
    const [kind, idText, ...rest] = line.split(" ");
    const id = Number(idText);
    const events = this.waiting.get(id);
    if (!events) return;
    if (kind === "S") events.started(Number(rest[0]));
    else if (kind === "E") {
      this.waiting.delete(id);
      events.failed(rest.join(" "));
    } else if (kind === "X") {
      this.waiting.delete(id);
      const [code, signal] = rest;
      const name = signal === "0" ? null : (SIGNAL_NAMES.get(Number(signal)) ?? `signal ${signal}`);
      events.exited(code === "" ? null : Number(code), name);
    }
  }

  private die(message: string): void {
    if (this.dead) return;
    this.dead = true;
    for (const events of this.waiting.values()) events.failed(message);
    this.waiting.clear();
  }
}
