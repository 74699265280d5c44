/**
 * The perl side of the command runner (script-runner.ts), where Python 3.8
 * or later is missing (python-runner-script.ts): a small event
 * loop that starts programs, reads their output through real pipes, reaps
 * them, enforces time limits and answers the agent. Forking this small
 * process costs a fraction of forking the agent, and the agent waits for
 * one reply per program instead of relaying through a thread.
 *
 * Requests come on standard input as `<length>\n<record>`, the record's
 * fields separated by NUL: id, umask (octal), directory, uid, gid ("" for
 * unchanged), time limit in milliseconds ("" for none: otherwise the
 * program gets its own process group), bytes of output kept, the text at
 * which reading stops ("" for none), the file read as standard input (""
 * for /dev/null), the number of environment entries and each entry
 * (`NAME=value`, added to the runner's environment; `NAME` alone removes
 * it), then the program and
 * its arguments.
 *
 * Once ready, it writes the line \`tend-runner\`. Then each program gets one
 * reply on standard output, when it is over:
 * `<id> <status> <signal> <timed out> <output length> <error length>\n`,
 * then the output, then the error text. The status is empty when no exit
 * status is known (a signal, or the program never started); the signal is
 * 0 when none; the error says why the program did not start (chdir,
 * setgid, setuid or exec failed: `<step>: <errno text>`) or that it did
 * not end after SIGKILL.
 *
 * At the time limit the group gets SIGTERM, then SIGKILL a second later;
 * two more seconds on, the output is given up (something outside the group
 * may hold the pipe). Reading stops at the stop text: more output from the
 * program gets SIGPIPE, as when 3.21 closes its pipe.
 */
export const PERL_RUNNER_SCRIPT = String.raw`
use strict; use Fcntl; use Time::HiRes ();
# POSIX is loaded only where needed: a bigger process costs more at each fork.
my $WNOHANG = $^O eq 'linux' ? 1 : do { require POSIX; POSIX::WNOHANG() };
# A program's end writes to this pipe, which select watches.
pipe(my $wake_r, my $wake_w) or die "pipe: $!";
for my $fh ($wake_r, $wake_w) { fcntl($fh, F_SETFL, fcntl($fh, F_GETFL, 0) | O_NONBLOCK) }
$SIG{CHLD} = sub { syswrite $wake_w, 'x' };
my $KILL_GRACE = 1; my $DRAIN_GRACE = 2;
my (%jobs, %by_pid);
my $inbuf = ''; my $outq = '';
fcntl(STDOUT, F_SETFL, fcntl(STDOUT, F_GETFL, 0) | O_NONBLOCK);
open(my $null, '<', '/dev/null') or die "/dev/null: $!";
syswrite STDOUT, "tend-runner\n";

# In the child, between fork and exec: says which step failed and why, and ends.
sub fail_child {
  my ($ew, $step) = @_;
  syswrite $ew, "$step: $!";
  require POSIX; POSIX::_exit(127);
}

sub start {
  my ($id, $umask, $dir, $uid, $gid, $limit, $max, $stop, $stdin, $count, @rest) = @_;
  my @env = splice(@rest, 0, $count);
  my @argv = @rest;
  my $job = { id => $id, out => '', kept => 0, tail => '', max => $max, stop => $stop,
              err => '', timed => 0, stage => 0 };
  $jobs{$id} = $job;
  my ($r, $w, $er, $ew);
  if (!pipe($r, $w) || !pipe($er, $ew)) { $job->{error} = "pipe: $!"; $job->{gaveup} = 1; return }
  my $group = $limit ne '';
  my $pid = fork();
  if (!defined $pid) { $job->{error} = "fork: $!"; $job->{gaveup} = 1; return }
  if ($pid == 0) {
    # Kept short: each page the child writes is copied.
    setpgrp(0, 0) if $group;
    umask(oct $umask);
    if ($stdin ne '') { open(STDIN, '<', $stdin) or fail_child($ew, 'stdin') }
    else { open(STDIN, '<&', $null) or fail_child($ew, 'stdin') }
    for (@env) { my ($k, $v) = split /=/, $_, 2; if (defined $v) { $ENV{$k} = $v } else { delete $ENV{$k} } }
    open(STDOUT, '>&', $w) or fail_child($ew, 'stdout');
    open(STDERR, '>&', $w) or fail_child($ew, 'stderr');
    if ($dir ne '') { chdir($dir) or fail_child($ew, 'chdir') }
    if ($gid ne '') { require POSIX; $) = "$gid $gid"; POSIX::setgid($gid) or fail_child($ew, 'setgid') }
    if ($uid ne '') { require POSIX; POSIX::setuid($uid) or fail_child($ew, 'setuid') }
    { no warnings; exec { $argv[0] } @argv; }
    fail_child($ew, 'exec');
  }
  close $w; close $ew;
  # Both sides set the group, so that a kill never misses it.
  setpgrp($pid, $pid) if $group;
  @$job{qw(pid r er)} = ($pid, $r, $er);
  $job->{due} = Time::HiRes::time() + $limit / 1000 if $group;
  $by_pid{$pid} = $job;
}

sub end_output { my ($job) = @_; close $job->{r} if $job->{r}; $job->{r} = undef }

# Reads once; whether more may be ready at once.
sub read_output {
  my ($job) = @_;
  my $n = sysread($job->{r}, my $chunk, 65536);
  if (!defined $n) { end_output($job) unless $!{EINTR} || $!{EAGAIN}; return 0 }
  if ($n == 0) { end_output($job); return 0 }
  $job->{out} .= substr($chunk, 0, $job->{max} - $job->{kept}) if $job->{kept} < $job->{max};
  $job->{kept} += $n;
  if ($job->{kept} >= $job->{max}) { end_output($job); return 0 }
  my $stop = $job->{stop};
  return 1 if $stop eq '';
  my $text = $job->{tail} . $chunk;
  if (index($text, $stop) >= 0) { end_output($job); return 0 }
  my $line = substr($text, rindex($text, "\n") + 1);
  $job->{tail} = length($line) > length($stop) ? substr($line, -length($stop)) : $line;
  return 1;
}

sub read_error {
  my ($job) = @_;
  my $n = sysread($job->{er}, $job->{err}, 4096, length $job->{err});
  return if !defined $n && ($!{EINTR} || $!{EAGAIN});
  return if $n;
  close $job->{er}; $job->{er} = undef;
  $job->{error} = $job->{err} if $job->{err} ne '';
}

sub reap {
  while ((my $pid = waitpid(-1, $WNOHANG)) > 0) {
    my $job = delete $by_pid{$pid} or next;
    $job->{exited} = 1;
    if (($? & 127) == 0) { @$job{qw(code sig)} = ($? >> 8, 0) }
    else { @$job{qw(code sig)} = ('', $? & 127) }
  }
}

sub flush_replies {
  while ($outq ne '') {
    my $n = syswrite(STDOUT, $outq);
    # The agent is gone: nobody is left to answer.
    if (!defined $n) { return if $!{EAGAIN} || $!{EINTR}; exit 0 }
    substr($outq, 0, $n) = '';
  }
}

sub answer_finished {
  for my $job (values %jobs) {
    next if $job->{r} || $job->{er} || !($job->{exited} || $job->{gaveup});
    delete $jobs{$job->{id}};
    my $error = $job->{error} // '';
    my ($code, $sig) = $error ne '' ? ('', 0) : ($job->{code}, $job->{sig});
    $outq .= join(' ', $job->{id}, $code, $sig, $job->{timed}, length($job->{out}), length($error))
      . "\n" . $job->{out} . $error;
  }
  flush_replies();
}

sub run_timers {
  my $now = Time::HiRes::time();
  for my $job (values %jobs) {
    next unless defined $job->{due} && $now >= $job->{due};
    my $stage = $job->{stage}++;
    if ($stage == 0) { $job->{timed} = 1; kill 'TERM', -$job->{pid}; $job->{due} = $now + $KILL_GRACE }
    elsif ($stage == 1) { kill 'KILL', -$job->{pid}; $job->{due} = $now + $DRAIN_GRACE }
    else {
      # Something outside the group still holds the pipe: leave it behind.
      end_output($job);
      if ($job->{er}) { close $job->{er}; $job->{er} = undef }
      $job->{error} //= 'the program did not end after SIGKILL' unless $job->{exited};
      $job->{gaveup} = 1; $job->{due} = undef;
      delete $by_pid{$job->{pid}};
    }
  }
}

sub read_requests {
  my $n = sysread(STDIN, $inbuf, 65536, length $inbuf);
  if (!defined $n) { return if $!{EINTR} || $!{EAGAIN}; exit 0 }
  # The agent is gone: nobody is left to answer.
  exit 0 if $n == 0;
  while ($inbuf =~ /^(\d+)\n/) {
    my $len = $1; my $head = length($len) + 1;
    last if length($inbuf) < $head + $len;
    my $record = substr($inbuf, $head, $len);
    substr($inbuf, 0, $head + $len) = '';
    start(split /\0/, $record, -1);
  }
}

for (;;) {
  reap();
  run_timers();
  answer_finished();
  my ($rin, $win) = ('', '');
  vec($rin, fileno($_), 1) = 1 for (\*STDIN, $wake_r);
  # Perl runs its handler between its own steps: an end signalled just before
  # select waits for this look, every 50 ms while programs run. (So the
  # output's end, unlike in the Python runner, is what wakes the runner.)
  my $wait = %jobs ? 0.05 : undef;
  my $now = Time::HiRes::time();
  for my $job (values %jobs) {
    vec($rin, fileno($job->{r}), 1) = 1 if $job->{r};
    vec($rin, fileno($job->{er}), 1) = 1 if $job->{er};
    $wait = $job->{due} - $now if defined $job->{due} && $job->{due} - $now < $wait;
    # A program's end comes right after its output's: look again soon.
    $wait = 0.002 if !$job->{r} && !$job->{er} && $wait > 0.002;
  }
  $wait = 0 if defined $wait && $wait < 0;
  vec($win, fileno(STDOUT), 1) = 1 if $outq ne '';
  my $ready = select(my $rout = $rin, my $wout = $win, undef, $wait);
  next if $ready <= 0;
  flush_replies() if vec($wout, fileno(STDOUT), 1);
  1 while vec($rout, fileno($wake_r), 1) && sysread($wake_r, my $drop, 512);
  for my $job (values %jobs) {
    read_output($job) if $job->{r} && vec($rout, fileno($job->{r}), 1);
    read_error($job) if $job->{er} && vec($rout, fileno($job->{er}), 1);
  }
  read_requests() if vec($rout, fileno(STDIN), 1);
}
`;
