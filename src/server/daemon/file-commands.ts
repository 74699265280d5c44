/**
 * The file commands of cf-serverd 3.21 (server_common.c): STAT, GET,
 * OPENDIR and MD5, on a path already resolved and admitted by the ACL.
 * Replies are byte for byte 3.21's; where 3.21 would leave a client
 * waiting (a file shrinking or unreadable during GET), tend ends the
 * transfer with the refusal the client recognises.
 *
 * The file system is called synchronously, as 3.21's connection threads
 * call it: an agent's copy is one request after another on one
 * connection, and each trip of an asynchronous call through libuv's
 * thread pool (two thread switches and a wake-up of the event loop) cost
 * more than the call itself on files the page cache holds; it made a cold
 * copy of the MPF a third slower than 3.21's. The reads are bounded (one
 * GET chunk, one batch of directory entries), and the event loop turns
 * between chunks whenever TLS holds unsent bytes.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  fstatSync,
  lstatSync,
  type Dir,
  openSync,
  opendirSync,
  readFileSync,
  readlinkSync,
  readSync,
  type Stats,
  statSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { basename } from "node:path";
import { serverFrame } from "../../net/frame.js";
import { CFD_FALSE, CFD_TRUE, CHANGED, FAILED, GET_BLOCK, TERMINATOR } from "./protocol.js";
import type { Sent, Session } from "./channel.js";
import type { DigestCache } from "./digests.js";
import { errnoText } from "./request-path.js";

/** `next()` once `sent` is done (at once when it is). */
function andThen(sent: Sent, next: () => Sent): Sent {
  return sent ? sent.then(next) : next();
}

/** stat_cache.h FileType. */
function fileType(stats: Stats): number | undefined {
  if (stats.isFile()) return 0;
  if (stats.isDirectory()) return 2;
  if (stats.isFIFO()) return 3;
  if (stats.isBlockDevice()) return 4;
  if (stats.isCharacterDevice()) return 5;
  if (stats.isSocket()) return 6;
  return undefined;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** The first STAT reply line, as StatFile prints it (`OK: type mode lmode uid gid size atime mtime ctime makeholes ino nlink dev`). */
export function statLine(own: Stats, target: Stats | undefined): string {
  const link = own.isSymbolicLink();
  // A link that resolves reports its target's size, mode, owner and times (not atime, ino, dev).
  const main = link && target ? target : own;
  const type = fileType(main) ?? 1;
  const makeholes = own.size > own.blocks * 512 ? 1 : 0;
  // cf_ino is a C int: the inode number's low 32 bits, signed (ToInt32, as BigInt.asIntN(32) would give).
  const ino = own.ino | 0;
  return `OK: ${type} ${main.mode & 0o7777} ${link ? own.mode & 0o7777 : 0} ${main.uid} ${main.gid} ${main.size} ${seconds(own.atimeMs)} ${seconds(main.mtimeMs)} ${seconds(main.ctimeMs)} ${makeholes} ${ino} ${own.nlink} ${own.dev}`;
}

/** SYNCH … STAT: two frames, the stat line and `OK:<link target>`. */
export function replyStat(session: Session, path: string, known?: Stats): Sent {
  const { channel, log } = session;
  // A UTF-16 unit is at most 3 bytes of UTF-8: a name of up to 85 cannot be too long.
  if (path.length - path.lastIndexOf("/") > 86 && Buffer.byteLength(basename(path)) > 256) {
    const text = `BAD: Filename suspiciously long [${path}]`;
    log.error(text);
    return channel.send(text);
  }
  let own: Stats;
  try {
    own = known ?? lstatSync(path);
  } catch (error) {
    const text = `BAD: unable to stat file ${path}`;
    log.verbose(`${text}. (lstat: ${errnoText(error)})`);
    return channel.send(text);
  }
  let target: Stats | undefined;
  let linkText = "";
  if (own.isSymbolicLink()) {
    try {
      linkText = readlinkSync(path);
    } catch (error) {
      log.error(`BAD: unable to read link. (readlink: ${errnoText(error)})`);
      return channel.send("BAD: unable to read link");
    }
    target = statSync(path, { throwIfNoEntry: false });
  }
  return channel.sendFrames([statLine(own, target), `OK:${linkText}`]);
}

/** Whether the claimed user may have the file (TransferRights). */
function transferRights(session: Session, stats: Stats, mapRoot: boolean): boolean {
  if (session.uid === 0 || mapRoot) return true;
  if (stats.uid === session.uid || stats.mode & 0o004) return true;
  session.log.info(
    `Remote user '${session.peer.user}' is not owner of the file, access denied, consider maproot or making file world-readable`,
  );
  return false;
}

/** `text` padded with NULs to `size` bytes, as 3.21 sends raw refusals. */
function padded(text: string, size: number): Buffer {
  const out = Buffer.alloc(Math.max(size, Buffer.byteLength(text)));
  out.write(text);
  return out;
}

/**
 * GET: the file's bytes, raw, as blocks of 2048 bytes would give them. The
 * size is checked again after each read (3.21 checks it every third
 * block): by fstat, and at the end by asking one byte more than is left;
 * a change ends the transfer with `BAD: File changed while copying:
 * <path>` in place of the next block.
 */
export function replyGet(session: Session, path: string, bufSize: number, mapRoot: boolean): Sent {
  const { channel, log } = session;
  const size = bufSize >= 4096 ? GET_BLOCK : bufSize;
  const stats = statOrNothing(path);
  if (stats && !transferRights(session, stats, mapRoot)) {
    log.info(`REFUSE access to file: ${path}`);
    return andThen(channel.send(FAILED), () => channel.sendRaw(padded(FAILED, size)));
  }
  let fd: number;
  try {
    if (!stats?.isFile()) throw Object.assign(new Error("not a regular file"), { code: "EISDIR" });
    fd = openSync(path, "r");
  } catch (error) {
    log.error(`Open error of file '${path}'. (open: ${errnoText(error)})`);
    return channel.sendRaw(padded(FAILED, size));
  }
  let sending: Sent;
  try {
    sending = sendBlocks(session, fd, path, stats.size, 0);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!sending) {
    closeSync(fd);
    return undefined;
  }
  return sending.finally(() => closeSync(fd));
}

/**
 * The most of a file read and handed to TLS at once: 32 blocks. A file up
 * to this size (most of a policy tree) is one read, one size check and one
 * write, whose records TLS cuts at 16 KiB, a multiple of the block: each
 * of 3.21's client reads (one SSL_read of a block) gets a whole block, as
 * from 3.21's one record per block. One write instead of one per three
 * blocks spared the event loop a turn per write (Node holds a write made
 * while another is in flight until that one is done).
 */
const GET_CHUNK = 32 * GET_BLOCK;

/** The file from `sent` on; a promise only when TLS made a chunk wait (then the rest follows it). */
function sendBlocks(session: Session, fd: number, path: string, expected: number, sent: number): Sent {
  while (sent < expected) {
    const want = Math.min(GET_CHUNK, expected - sent);
    const last = sent + want === expected;
    // The last read asks one byte more: a file that grew gives it (in place of an fstat).
    const chunk = Buffer.allocUnsafe(last ? want + 1 : want);
    let bytesRead: number;
    try {
      bytesRead = readSync(fd, chunk, 0, chunk.length, sent);
    } catch (error) {
      session.log.error(`Read failed in GetFile. (read: ${errnoText(error)})`);
      bytesRead = 0;
    }
    // The open file's size: a file replaced by a new one (renamed over it)
    // is still sent whole as it was opened; one growing or shrinking is not.
    if (bytesRead !== want || (!last && sizeOf(fd) !== expected)) {
      session.log.verbose("Aborting transfer of file due to source changes");
      return session.channel.sendRaw(padded(`${CHANGED}: ${path}`, GET_BLOCK));
    }
    const waiting = session.channel.sendData(last ? chunk.subarray(0, want) : chunk);
    sent += want;
    if (waiting) {
      const from = sent;
      return waiting.then(() => sendBlocks(session, fd, path, expected, from));
    }
  }
  return undefined;
}

function sizeOf(fd: number): number | undefined {
  try {
    return fstatSync(fd).size;
  } catch {
    return undefined;
  }
}

/** The longest a listing frame grows before it is sent (CF_BUFSIZE - CF_MAXLINKSIZE). */
const LISTING_LIMIT = 4096 - 256;

/**
 * OPENDIR: the names NUL-separated, `.` and `..` included, in frames
 * marked "more" when the listing goes on; the last ends with the
 * terminator. Names are sent as the file system has them (bytes, not
 * decoded) and in its order, as 3.21's readdir loop sends them (cf-agent
 * copies in that order; readdirSync would sort them).
 */
export function replyOpendir(session: Session, path: string): Sent {
  const { channel } = session;
  if (!path.startsWith("/")) return channel.send("BAD: request to access a non-absolute filename");
  // Stamped before the names are read: a change while they are read changes the stamp.
  const stats = session.digests ? statOrNothing(path) : undefined;
  const known = stats && session.digests?.listings.get(path, stats);
  if (known) return sendInTurn(session, known, 0);
  return listDirectory(session, path, stats);
}

/** Listing frames from `from` on, each its own write, the last one ending the reply. */
function sendInTurn(session: Session, frames: readonly Buffer[], from: number): Sent {
  for (let i = from; i < frames.length; i++) {
    const waiting = session.channel.send(frames[i] as Buffer, i < frames.length - 1);
    if (waiting) return waiting.then(() => sendInTurn(session, frames, i + 1));
  }
  return undefined;
}

/** OPENDIR of a directory whose listing is not kept: its names read, sent, and kept when they may be. */
async function listDirectory(session: Session, path: string, stats: Stats | undefined): Promise<void> {
  const { channel, log } = session;
  let dir: Dir;
  try {
    // Node reads names as bytes with encoding "buffer"; its types know only string encodings.
    dir = opendirSync(path, { encoding: "buffer" as BufferEncoding, bufferSize: 128 });
  } catch (error) {
    log.info(`Couldn't open directory '${path}' (DirOpen:${errnoText(error)})`);
    return channel.send(`BAD: cfengine, couldn't open dir ${path}`);
  }
  // The frames sent, kept for the cache while the listing is small.
  let frames: Buffer[] | undefined = stats ? [] : undefined;
  const send = async (payload: Buffer, more: boolean): Promise<void> => {
    if (frames && frames.length < LISTING_FRAMES_KEPT) frames.push(payload);
    else frames = undefined;
    await channel.send(payload, more);
  };
  const parts: Buffer[] = [DOT, NUL, DOTDOT, NUL];
  let length = 5;
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
      // Typed for string names; with encoding "buffer" they are Buffers.
      const name = entry.name as unknown as Buffer;
      const bytes = name.length > 255 ? name.subarray(0, 255) : name;
      if (bytes.length + 1 + length >= LISTING_LIMIT) {
        parts.push(NUL);
        await send(Buffer.concat(parts), true);
        parts.length = 0;
        length = 0;
      }
      parts.push(bytes, NUL);
      length += bytes.length + 1;
    }
  } catch (error) {
    log.error(`Error reading directory '${path}' (readdir: ${errnoText(error)})`);
    frames = undefined;
  } finally {
    dir.closeSync();
  }
  parts.push(TERMINATOR_BYTES);
  await send(Buffer.concat(parts), false);
  if (stats && frames) session.digests?.listings.set(path, stats, frames);
}

/** The most frames of a listing kept in the cache (~60 KiB of names). */
const LISTING_FRAMES_KEPT = 16;

const NUL = Buffer.alloc(1);
const DOT = Buffer.from(".");
const DOTDOT = Buffer.from("..");
/** The terminator and two NULs: the listing's end. */
const TERMINATOR_BYTES = Buffer.concat([Buffer.from(TERMINATOR), Buffer.alloc(2)]);

/** MD5: CFD_FALSE when the file's digest is the client's, else CFD_TRUE. */
export function replyMd5(session: Session, path: string, digest: Buffer): Sent {
  let ours: Buffer | Promise<Buffer>;
  try {
    ours = fileMd5(path, session.digests);
  } catch (error) {
    ours = unhashable(session, path, error);
  }
  if (!(ours instanceof Promise)) return answerMd5(session, ours, digest);
  return ours
    .catch((error: unknown) => unhashable(session, path, error))
    .then((found) => answerMd5(session, found, digest));
}

function unhashable(session: Session, path: string, error: unknown): Buffer {
  session.log.error(`Cannot open file for hashing '${path}'. (fopen: ${errnoText(error)})`);
  return Buffer.alloc(16);
}

function answerMd5(session: Session, ours: Buffer, digest: Buffer): Sent {
  return session.channel.sendRaw(ours.equals(digest) ? SAME_FRAME : DIFFERS_FRAME);
}

/** MD5's two replies, framed once. */
const SAME_FRAME = serverFrame(CFD_FALSE);
const DIFFERS_FRAME = serverFrame(CFD_TRUE);

/** A file's stat, or undefined when it cannot be had. */
function statOrNothing(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Files up to this size are hashed in one read (no stream to set up). */
const SMALL_FILE = 1024 * 1024;

/** The file's digest: at once when it is known or small, a promise for a large file. */
function fileMd5(path: string, digests: DigestCache | undefined): Buffer | Promise<Buffer> {
  const stats = statSync(path);
  // A FIFO or device would block the server (and never end): hashed as nothing, so it "differs".
  if (!stats.isFile()) throw Object.assign(new Error("not a regular file"), { code: "EINVAL" });
  const known = digests?.get(path, stats);
  if (known) return known;
  if (stats.size > SMALL_FILE) return largeFileMd5(path, stats, digests);
  const digest = createHash("md5").update(readFileSync(path)).digest();
  digests?.set(path, stats, digest);
  return digest;
}

async function largeFileMd5(path: string, stats: Stats, digests: DigestCache | undefined): Promise<Buffer> {
  const file = await open(path, "r");
  let digest: Buffer;
  try {
    const hash = createHash("md5");
    for await (const chunk of file.createReadStream({ highWaterMark: 64 * 1024, autoClose: false })) {
      hash.update(chunk as Buffer);
    }
    digest = hash.digest();
  } finally {
    await file.close();
  }
  digests?.set(path, stats, digest);
  return digest;
}
