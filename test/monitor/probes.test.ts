/**
 * The built-in probes over a fake /proc (and /etc/passwd, /sys/class/block)
 * laid out in a temporary directory: each observable lands in 3.21's slot.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { slotNames, slotOf } from "../../src/monitor/observables.js";
import { ProbeState, rootsUnder, sample } from "../../src/monitor/probes.js";

function put(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

const status = (uid: number) => `Name:\tx\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\n`;

function fakeHost(t: { after: (f: () => void) => void }): string {
  const root = mkdtempSync(join(tmpdir(), "tend-monitor-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  put(
    root,
    "etc/passwd",
    "root:x:0:0::/root:/bin/sh\nwww-data:x:33:33::/var/www:/bin/false\nalice:x:1000:1000::/home/alice:/bin/sh\n",
  );
  put(root, "proc/1/status", status(0));
  put(root, "proc/2/status", status(0));
  put(root, "proc/30/status", status(33));
  put(root, "proc/31/status", status(1000));
  put(root, "proc/32/status", status(4242)); // no name: ps shows the number, 3.21 skips it
  put(root, "proc/self/status", status(0)); // not a pid
  put(root, "proc/loadavg", "0.52 0.40 0.30 1/200 999\n");
  put(
    root,
    "proc/stat",
    "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\ncpu1 50 0 50 400 0 0 0 0 0 0\nintr 1 2 3\n",
  );
  put(
    root,
    "proc/meminfo",
    "MemTotal:        2048000 kB\nMemFree:         1024000 kB\nCached:           512000 kB\nSwapTotal:        102400 kB\nSwapFree:          51200 kB\n",
  );
  put(
    root,
    "proc/diskstats",
    "   8       0 sda 100 0 2000 0 50 0 1000 0 0 0 0\n   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0\n",
  );
  const tcpHeader =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";
  put(
    root,
    "proc/net/tcp",
    tcpHeader +
      "   0: 0100007F:3B84 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1\n" +
      "   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2\n" +
      "   2: 0100007F:0016 0200007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 3\n" +
      "   3: 0100007F:D432 0300007F:14BC 01 00000000:00000000 00:00000000 00000000     0        0 4\n",
  );
  put(
    root,
    "proc/net/tcp6",
    tcpHeader +
      "   0: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5\n" +
      "   1: 00000000000000000000000001000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 6\n",
  );
  put(
    root,
    "proc/net/udp",
    "  sl  local_address rem_address   st\n   0: 00000000:0044 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 7\n",
  );
  return root;
}

test("the probes read users, processes, load, memory and connections into 3.21's slots", (t) => {
  const root = fakeHost(t);
  const s = sample(rootsUnder(root), new ProbeState(), 1000);
  const v = (name: string) => s.values[slotOf(name)];
  assert.equal(v("users"), 3);
  assert.equal(v("rootprocs"), 2);
  assert.equal(v("otherprocs"), 2);
  assert.equal(v("loadavg"), 0.52);
  assert.equal(v("mem_total"), 2000);
  assert.equal(v("mem_free"), 1000);
  assert.equal(v("mem_cached"), 500);
  assert.equal(v("mem_swap"), 100);
  assert.equal(v("mem_freeswap"), 50);
  // The first CPU sample is over the ticks since boot.
  assert.equal(v("cpu"), 20);
  assert.equal(v("cpu0"), 20);
  assert.equal(v("cpu2"), 0);
  // Listening sockets count as connections on their port too, as in 3.21.
  assert.equal(v("ssh_in"), 3);
  assert.equal(v("cfengine_out"), 1);
  assert.equal(v("www_in"), 1);
  assert.deepEqual(s.listening.all, ["80", "22", "15236"]);
  assert.deepEqual(s.listening.tcp4, [
    { port: "22", address: "0.0.0.0" },
    { port: "15236", address: "127.0.0.1" },
  ]);
  assert.deepEqual(s.listening.tcp6, [
    { port: "80", address: "::1" },
    { port: "22", address: "::" },
  ]);
  assert.deepEqual(s.listening.udp4, [], "UDP sockets are never in LISTEN state");
  assert.ok(v("diskfree") >= 0 && v("diskfree") <= 100);
  // I/O is a rate: nothing on the first sample.
  assert.equal(v("io_reads"), 0);
});

test("counters become rates and CPU a utilisation between two samples", (t) => {
  const root = fakeHost(t);
  const state = new ProbeState();
  sample(rootsUnder(root), state, 1000);
  put(root, "proc/stat", "cpu  150 0 150 900 0 0 0 0\ncpu0 100 0 50 400 0 0 0 0\n");
  put(root, "proc/diskstats", "   8       0 sda 200 0 4048 0 150 0 3048 0 0 0 0\n");
  const s = sample(rootsUnder(root), state, 1010);
  const v = (name: string) => s.values[slotOf(name)];
  assert.equal(v("cpu"), 50);
  assert.equal(v("cpu0"), 100);
  assert.equal(v("io_reads"), 10);
  assert.equal(v("io_writes"), 10);
  assert.equal(v("io_readdata"), (204 * 512) / 1024 / 1024);
  assert.equal(v("io_writtendata"), (204 * 512) / 1024 / 1024);
});

test("the slots are 3.21's: fixed names, I/O and memory, then weekly handles and spares", () => {
  const names = slotNames(["free_memory_watch"]);
  assert.equal(names.length, 100);
  assert.equal(names[0], "users");
  assert.equal(names[4], "loadavg");
  assert.equal(names[13], "cfengine_in");
  assert.equal(names[49], "cpu");
  assert.equal(names[71], "ipp_out");
  assert.deepEqual(names.slice(72, 82), [
    "io_reads",
    "io_writes",
    "io_readdata",
    "io_writtendata",
    "mem_total",
    "mem_free",
    "mem_cached",
    "mem_swap",
    "mem_freeswap",
    "free_memory_watch",
  ]);
  assert.equal(names[82], "spare");
});
