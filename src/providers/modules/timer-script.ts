/**
 * The timer process (see timer-process.ts), in perl: it starts in a few
 * milliseconds and, unlike a shell, sleeps and reads a clock below the
 * second. Its standard input is the state file, which the agent writes
 * with positional writes:
 *
 *   bytes 0-7   "tend-ok\n", written here once the timer watches
 *   bytes 8-    the watch: u32 sequence (0 = none), u32 unused, f64 wake
 *               time (CLOCK_MONOTONIC milliseconds), u32 length of the
 *               output FIFO's path, the path (padded to a multiple of 4
 *               bytes), and the sequence again (all in the machine's
 *               byte order)
 *
 * Every 20 ms it reads the watch; once one whose two sequences agree (not
 * torn by a write in progress) is past its wake time, it writes the wake
 * byte, one NUL, to that FIFO, once per sequence. It kills nothing: the
 * agent, woken, decides (see watchdog.ts). The timer ends when the agent
 * does (its parent changes).
 */
export const TIMER_SCRIPT = String.raw`
use strict;
use Fcntl qw(O_WRONLY O_NONBLOCK);
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);
my $parent = getppid();
open(my $state, '+<&=', 0) or exit 2;
binmode($state);
sysseek($state, 0, 0) or exit 2;
syswrite($state, "tend-ok\n") == 8 or exit 2;
sub watched {
  sysseek($state, 8, 0) or return;
  my $n = sysread($state, my $buf, 4120);
  return unless defined($n) && $n >= 24;
  my ($seq, $unused, $wake, $len) = unpack('L L d L', $buf);
  my $padded = ($len + 3) & ~3;
  return if $seq == 0 || $len > 4096 || $n < 24 + $padded;
  return if unpack('L', substr($buf, 20 + $padded, 4)) != $seq;
  return ($seq, $wake, substr($buf, 20, $len));
}
my $woken = 0;
for (;;) {
  select(undef, undef, undef, 0.02);
  exit 0 if getppid() != $parent;
  my ($seq, $wake, $path) = watched();
  next unless defined($seq) && $seq != $woken;
  next unless clock_gettime(CLOCK_MONOTONIC) * 1000 > $wake;
  $woken = $seq;
  if (sysopen(my $out, $path, O_WRONLY | O_NONBLOCK)) {
    syswrite($out, "\0");
    close($out);
  }
}
`;

/**
 * How the timer starts: a shell makes the FIFOs it is given first (its
 * arguments after the script; see module-pipes.ts), then becomes perl,
 * so that one process from the agent does both and the FIFOs are ready
 * before perl has started. They are made even where perl then cannot
 * run or watch.
 */
export const TIMER_LAUNCH = 'if [ $# -gt 0 ]; then mkfifo -m 600 -- "$@"; fi; exec /usr/bin/perl -e "$0"';
