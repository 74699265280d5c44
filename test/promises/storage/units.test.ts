/**
 * The storage promise type's readings of 3.21's formats: the host and
 * source it sees in a mount line, and numbers through IntFromString.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type LogRecord, Logger } from "../../../src/system/logger.js";
import { parseMountTable } from "../../../src/providers/mounts/index.js";
import { CF_NOINT, intFromString } from "../../../src/promises/storage/attributes.js";
import { agentMountView } from "../../../src/promises/storage/mount-view.js";

function view(line: string) {
  const entry = parseMountTable(line)[0];
  assert.ok(entry);
  const { host, source, tag } = agentMountView(entry);
  return { host, source, tag };
}

test("mount lines as 3.21 reads them", () => {
  assert.deepEqual(view("srv:/export /mnt/a nfs rw 0 0"), { host: "srv", source: "/export", tag: "nfs" });
  assert.deepEqual(view("srv:/export /mnt/a nfs4 rw 0 0"), {
    host: "srv",
    source: "/export",
    tag: undefined,
  });
  assert.deepEqual(view("/dev/vda / ext4 rw 0 0"), { host: "localhost", source: "", tag: undefined });
  assert.deepEqual(view("tmpfs /tmp tmpfs rw 0 0"), { host: "tmpfs", source: "", tag: undefined });
  assert.deepEqual(view("//srv/share /mnt/c cifs rw 0 0"), { host: "//srv", source: "/share", tag: "cifs" });
  assert.deepEqual(view("panfs://srv/vol /mnt/p panfs rw 0 0"), {
    host: "panfs://srv",
    source: "/vol",
    tag: "panfs",
  });
  // The word anywhere in the line tags it (a tmpfs named nfs is foreign to 3.21).
  assert.deepEqual(view("nfs /mnt/n tmpfs rw 0 0"), { host: "nfs", source: "", tag: "nfs" });
  // A cifs line whose name is not a share: no overrun, the host is the name.
  assert.deepEqual(view("cifs /mnt/c tmpfs rw 0 0"), { host: "cifs", source: "", tag: "cifs" });
});

test("numbers as 3.21's IntFromString reads them", () => {
  const records: LogRecord[] = [];
  const log = new Logger((r) => records.push(r), "debug");
  assert.equal(intFromString(undefined, log), CF_NOINT);
  assert.equal(intFromString("100", log), 100);
  assert.equal(intFromString("10k", log), 10000);
  assert.equal(intFromString("10K", log), 10240);
  assert.equal(intFromString("2M", log), 2 * 1024 * 1024);
  assert.equal(intFromString("1g", log), 1e9);
  assert.equal(intFromString("15%", log), -15);
  assert.equal(intFromString("0%", log), 0);
  assert.equal(intFromString("5b", log), 5);
  assert.equal(records.length, 1, "a bad quantifier is only noted");
  assert.equal(intFromString("101%", log), CF_NOINT);
  assert.equal(intFromString("abc", log), CF_NOINT);
  assert.equal(intFromString("10 k", log), CF_NOINT);
  assert.equal(intFromString("$(x)", log), CF_NOINT);
  assert.deepEqual(
    records.slice(1).map((r) => `${r.level}: ${r.message}`),
    [
      "error: Percentage out of range: 101",
      "error: Failed to parse integer number: abc",
      "error: Anomalous ending ' k' while parsing integer number: 10 k",
      "verbose: Ignoring failed to parse integer '$(x)' because of possibly unexpanded variable",
    ],
  );
});
