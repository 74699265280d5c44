/**
 * A tiny DNS server for tests (node:dgram): it answers A queries from a
 * zone of A and CNAME records (following CNAMEs inside the zone, as a
 * recursive server would), NXDOMAIN for names it does not hold, and no
 * data for other types. `silent` leaves every query unanswered (a server
 * that is down but for its port); each query asked can be logged, one
 * `TYPE NAME` line each, so tests see which names a resolver tried.
 *
 * Run as a program (`node dns-server.js ZONE.json LOG ADDRESS`) it serves
 * on port 53 of ADDRESS, the way the namespaced host-name tests use it,
 * and prints `ready` once bound.
 */
import { createSocket } from "node:dgram";
import { appendFileSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** Records by lower-case owner name. */
export interface Zone {
  readonly records: Readonly<Record<string, { readonly a?: readonly string[]; readonly cname?: string }>>;
  readonly silent?: boolean;
}

export interface DnsServer {
  readonly port: number;
  close(): void;
}

function readName(message: Buffer, at: number): [string, number] {
  const labels: string[] = [];
  let position = at;
  for (;;) {
    const length = message[position] ?? 0;
    if (length === 0) return [labels.join("."), position + 1];
    labels.push(message.toString("latin1", position + 1, position + 1 + length));
    position += 1 + length;
  }
}

function encodeName(name: string): Buffer {
  const labels = name
    .split(".")
    .filter((l) => l !== "")
    .map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, "latin1")]));
  return Buffer.concat([...labels, Buffer.from([0])]);
}

function record(owner: string, type: number, data: Buffer): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(1, 2);
  fixed.writeUInt32BE(60, 4);
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([encodeName(owner), fixed, data]);
}

/** The answer to `query` from `zone` (the owner of the first record spelt as asked). */
export function answer(query: Buffer, zone: Zone): Buffer {
  const [qname, end] = readName(query, 12);
  const qtype = query.readUInt16BE(end);
  const records: Buffer[] = [];
  let rcode = 0;
  let owner = qname;
  for (let hops = 0; hops < 8; hops++) {
    const entry = zone.records[owner.toLowerCase()];
    if (entry === undefined) {
      if (hops === 0) rcode = 3;
      break;
    }
    if (entry.cname !== undefined) {
      records.push(record(owner, 5, encodeName(entry.cname)));
      owner = entry.cname;
      continue;
    }
    if (qtype === 1)
      for (const a of entry.a ?? []) records.push(record(owner, 1, Buffer.from(a.split(".").map(Number))));
    break;
  }
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  // QR, AA, RD as asked, RA, the rcode.
  header.writeUInt16BE(0x8000 | 0x0400 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, query.subarray(12, end + 4), ...records]);
}

/** Serves `zone` on UDP `address`:`port` (0: any free port). */
export function startDnsServer(zone: Zone, address: string, port = 0, log?: string): Promise<DnsServer> {
  const socket = createSocket(address.includes(":") ? "udp6" : "udp4");
  socket.on("message", (query, from) => {
    if (query.length < 17) return;
    if (log !== undefined) {
      const [qname, end] = readName(query, 12);
      appendFileSync(log, `${query.readUInt16BE(end)} ${qname}\n`);
    }
    if (!zone.silent) socket.send(answer(query, zone), from.port, from.address);
  });
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, address, () =>
      resolve({
        port: socket.address().port,
        close: () => socket.close(),
      }),
    );
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [zoneFile, log, address] = process.argv.slice(2);
  const zone = JSON.parse(readFileSync(zoneFile as string, "utf8")) as Zone;
  await startDnsServer(zone, address ?? "127.0.0.1", 53, log === "" ? undefined : log);
  process.stdout.write("ready\n");
}
