import assert from "node:assert/strict";
import { test } from "node:test";
import { type ProcessSelect, selectProcesses, startTimeSeconds } from "../../src/eval/process-select.js";
import {
  type ProcessTable,
  extractPid,
  readColumns,
  splitProcessLine,
  timeCounterSeconds,
} from "../../src/providers/processes/index.js";

// A table as `ps` prints it on Linux for 3.21's options; no process is touched.
const LEGEND =
  "USER                             PID  PPID  PGID %CPU %MEM    VSZ  NI       RSS TTY      NLWP STIME     ELAPSED     TIME COMMAND";
const LINES = [
  "root                               1     0     0  0.5  0.0  49580 -10     16924 ?          14 05:08    05:33:57 00:01:48 /sbin/init splash",
  "daemon                           812     1   812  0.0  0.1   8000   0      2000 ?           1 Nov20  1-02:03:04 00:00:07 /usr/sbin/atd -f",
  "root                            4242     1  4242  0.0  0.0   2500   5      1484 pts/0       3 10:42       00:10 00:00:00 marker_one 30",
  "root                            4243  4242  4242  0.0  0.0   2500   -      1484 ?           1 10:42       00:10 00:00:00 marker_two 30",
];
const table: ProcessTable = {
  legend: LEGEND,
  columns: readColumns(LEGEND),
  lines: LINES,
  time: 1_800_000_000,
};

const noLog = () => {};
const EMPTY: ProcessSelect = { owners: [] };

test("the header gives the columns 3.21 names", () => {
  assert.deepEqual(
    table.columns.map((c) => c.name),
    [
      "USER",
      "PID",
      "PPID",
      "PGID",
      "%CPU",
      "%MEM",
      "VSZ",
      "NI",
      "RSS",
      "TTY",
      "NLWP",
      "STIME",
      "ELAPSED",
      "TIME",
      "COMMAND",
    ],
  );
  assert.equal(table.columns[0].end, 3);
});

test("a line splits on white space, the command being the rest", () => {
  const fields = splitProcessLine(table, LINES[0], noLog);
  assert.equal(fields?.length, 15);
  assert.equal(fields?.[14], "/sbin/init splash");
  assert.equal(fields?.[11], "05:08");
});

test("a start time shown as a day becomes the table time less the elapsed time", () => {
  const fields = splitProcessLine(table, LINES[1], noLog);
  assert.equal(fields?.[11], String(1_800_000_000 - (((1 * 24 + 2) * 60 + 3) * 60 + 4)));
});

test("a start time may be a month and a day apart", () => {
  const legend = "USER PID STIME COMMAND";
  const t: ProcessTable = { legend, columns: readColumns(legend), lines: [], time: 0 };
  assert.deepEqual(splitProcessLine(t, "root 7 May  4 /bin/x y", noLog), ["root", "7", "May  4", "/bin/x y"]);
  const errors: string[] = [];
  assert.equal(
    splitProcessLine(t, "root 7", (_, m) => errors.push(m)),
    undefined,
  );
  assert.match(errors[0], /is shorter than its associated header/);
});

test("time counters read as 3.21 reads them (mm:ss as hours and minutes)", () => {
  assert.equal(timeCounterSeconds("00:01:48"), 108);
  assert.equal(timeCounterSeconds("1-02:03:04"), 93784);
  assert.equal(timeCounterSeconds("00:10"), 600);
  assert.equal(timeCounterSeconds("bad"), undefined);
});

test("the pid is read after the column before it", () => {
  assert.deepEqual(
    LINES.map((l) => extractPid(table, l)),
    [1, 812, 4242, 4243],
  );
});

test("the promiser is found anywhere in the command; matches come last line first", () => {
  const found = selectProcesses(table, "marker_", undefined, noLog);
  assert.deepEqual(
    found.map((p) => p.pid),
    [4243, 4242],
  );
  assert.deepEqual(selectProcesses(table, "^root", undefined, noLog), []);
});

test("process_select criteria add words that process_result combines", () => {
  const pids = (select: ProcessSelect) => selectProcesses(table, ".", select, noLog).map((p) => p.pid);
  assert.deepEqual(pids({ ...EMPTY, owners: [{ text: "daemon" }], result: "process_owner" }), [812]);
  assert.deepEqual(
    pids({ ...EMPTY, owners: [{ failedCall: "getuid" }, { text: "ro+t" }], result: "process_owner" }),
    [4243, 4242, 1],
  );
  assert.deepEqual(pids({ ...EMPTY, ppid: [4242, 4242], result: "ppid" }), [4243]);
  assert.deepEqual(pids({ ...EMPTY, threads: [2, 100], result: "threads" }), [4242, 1]);
  assert.deepEqual(pids({ ...EMPTY, priority: [0, 20], result: "priority" }), [4242, 812]);
  assert.deepEqual(pids({ ...EMPTY, tty: "pts/.*", result: "tty" }), [4242]);
  assert.deepEqual(pids({ ...EMPTY, command: "marker_one", result: "command" }), []);
  assert.deepEqual(pids({ ...EMPTY, command: "marker_one 30", result: "!command" }), [4243, 812, 1]);
  assert.deepEqual(pids({ ...EMPTY, ttime: [100, 200], result: "ttime" }), [1]);
  assert.deepEqual(
    pids({ ...EMPTY, vsize: [1, 9000], rsize: [1, 1500], result: "vsize.rsize" }),
    [4243, 4242],
  );
  // Without process_result, any criterion that holds selects.
  assert.deepEqual(pids({ ...EMPTY, pid: [812, 812], ppid: [4242, 4242] }), [4243, 812]);
});

test("start times: a clock time is today's, a year is the day before it begins", () => {
  const base = new Date(2026, 10, 21, 12, 0, 30);
  assert.equal(startTimeSeconds("10:42", base), new Date(2026, 10, 21, 10, 42, 0).getTime() / 1000);
  assert.equal(startTimeSeconds("Dec25", base), new Date(2025, 11, 25).getTime() / 1000);
  assert.equal(startTimeSeconds("2024", base), new Date(2024, 0, 0).getTime() / 1000);
  assert.equal(startTimeSeconds("1800000000", base), 1_800_000_000);
});
