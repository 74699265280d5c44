/**
 * cfnet's framing (3.21 libcfnet/net.c): every message is an 8-byte header,
 * `"<status> <length>"` NUL-padded, status `t` (this is the last frame) or
 * `m` (more follow), length 1..4088, then that many payload bytes. The
 * version dialog before it is plain newline-terminated lines, and a GET
 * reply is the file's raw bytes, unframed: FrameReader reads all three from
 * the same stream.
 *
 * 3.21 reads the header and then the payload each with one SSL_read, so a
 * frame must reach TLS as one record: encodeFrame gives header and payload
 * as one buffer, to be written with one `socket.write`.
 */
import type { Duplex } from "node:stream";
import { NetError } from "./errors.js";

export const HEADER_SIZE = 8;
/** CF_BUFSIZE (4096) less the header. */
export const MAX_FRAME_PAYLOAD = 4088;
/** What 3.21 puts at the end of a multi-frame listing (OPENDIR, EXEC). */
export const CFD_TERMINATOR = "---cfXen/gine/cfXen/gine---";
export const CFD_TRUE = "CFD_TRUE";
export const CFD_FALSE = "CFD_FALSE";
/** 3.21's CF_FAILEDSTR: every refusal. */
export const CF_FAILEDSTR = "BAD: Unspecified server refusal (see verbose server output)";

export interface Frame {
  /** Status `m`: more frames of this reply follow. */
  readonly more: boolean;
  readonly payload: Buffer;
}

/** One frame: header and payload in one buffer. Throws RangeError on an empty or oversized payload. */
export function encodeFrame(payload: Buffer | string, more = false): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload, "latin1") : payload;
  if (body.length < 1 || body.length > MAX_FRAME_PAYLOAD)
    throw new RangeError(`frame payload of ${body.length} bytes (1..${MAX_FRAME_PAYLOAD} allowed)`);
  const header = Buffer.alloc(HEADER_SIZE);
  header.write(`${more ? "m" : "t"} ${body.length}`, "latin1");
  return Buffer.concat([header, body]);
}

/**
 * Writes the 8-byte header of a frame at `offset`: the status, a blank,
 * the length in decimal (at most 4 digits), NULs to the end.
 */
function writeHeader(out: Buffer, offset: number, more: boolean, length: number): void {
  out[offset] = more ? 0x6d : 0x74;
  out[offset + 1] = 0x20;
  let i = offset + 2;
  if (length >= 1000) out[i++] = 0x30 + Math.floor(length / 1000);
  if (length >= 100) out[i++] = 0x30 + (Math.floor(length / 100) % 10);
  if (length >= 10) out[i++] = 0x30 + (Math.floor(length / 10) % 10);
  out[i++] = 0x30 + (length % 10);
  while (i < offset + HEADER_SIZE) out[i++] = 0;
}

/**
 * One frame as the server sends it (a reply of one frame is most of
 * them): the payload (a string as UTF-8) cut to MAX_FRAME_PAYLOAD bytes,
 * marked `m` when `more`. Throws RangeError on an empty payload.
 */
export function serverFrame(payload: string | Buffer, more = false): Buffer {
  if (typeof payload !== "string") {
    const length = Math.min(payload.length, MAX_FRAME_PAYLOAD);
    if (length < 1) throw new RangeError("frame payload of 0 bytes (1..4088 allowed)");
    const out = Buffer.allocUnsafe(HEADER_SIZE + length);
    payload.copy(out, HEADER_SIZE, 0, length);
    writeHeader(out, 0, more, length);
    return out;
  }
  const room = Math.min(Buffer.byteLength(payload), MAX_FRAME_PAYLOAD);
  const out = Buffer.allocUnsafe(HEADER_SIZE + room);
  // A string cut short loses whole characters only, so it may come out shorter than counted.
  const length = out.write(payload, HEADER_SIZE, room, "utf8");
  if (length < 1) throw new RangeError("frame payload of 0 bytes (1..4088 allowed)");
  writeHeader(out, 0, more, length);
  return length === room ? out : out.subarray(0, HEADER_SIZE + length);
}

/**
 * Frames as the server sends them, in one buffer (one allocation, one
 * write): each payload (a string as UTF-8) cut to MAX_FRAME_PAYLOAD bytes,
 * each frame marked done (`t`) except the last when `more` is set. Throws
 * RangeError on an empty payload.
 */
export function serverFrames(payloads: readonly (string | Buffer)[], more = false): Buffer {
  if (payloads.length === 1) return serverFrame(payloads[0] as string | Buffer, more);
  let total = 0;
  for (const p of payloads)
    total +=
      HEADER_SIZE + Math.min(typeof p === "string" ? Buffer.byteLength(p) : p.length, MAX_FRAME_PAYLOAD);
  const out = Buffer.allocUnsafe(total);
  let offset = 0;
  for (let i = 0; i < payloads.length; i++) {
    const start = offset + HEADER_SIZE;
    const payload = payloads[i] as string | Buffer;
    const room = Math.min(
      typeof payload === "string" ? Buffer.byteLength(payload) : payload.length,
      MAX_FRAME_PAYLOAD,
    );
    const length =
      typeof payload === "string"
        ? out.write(payload, start, room, "utf8")
        : payload.copy(out, start, 0, room);
    if (length < 1) throw new RangeError("frame payload of 0 bytes (1..4088 allowed)");
    writeHeader(out, offset, more && i === payloads.length - 1, length);
    offset = start + length;
  }
  return offset === total ? out : out.subarray(0, offset);
}

/**
 * Parses a header as 3.21 accepts it. Returns the status and length, or a
 * message saying what is wrong.
 */
export function parseHeader(header: Buffer): { more: boolean; length: number } | string {
  // /^([tm]) +(\d{1,10})[\0 ]*$/, byte by byte: it is read for every frame.
  const status = header[0];
  let i = 1;
  while (header[i] === 0x20) i++;
  const digitsStart = i;
  let length = 0;
  for (let c = header[i]; c !== undefined && c >= 0x30 && c <= 0x39; c = header[++i])
    length = length * 10 + (c - 0x30);
  const digits = i - digitsStart;
  while (header[i] === 0 || header[i] === 0x20) i++;
  if (
    (status !== 0x74 && status !== 0x6d) ||
    digitsStart === 1 ||
    digits < 1 ||
    digits > 10 ||
    i !== header.length
  )
    return `bogus header '${printable(header.toString("latin1"))}'`;
  if (length > MAX_FRAME_PAYLOAD) return `packet too long (len=${length})`;
  if (length <= 0) return `packet too short (len=${length})`;
  return { more: status === 0x6d, length };
}

/** `text` with control bytes escaped, NULs dropped at the end, for messages. */
export function printable(text: string): string {
  return text
    .replace(/\0+$/, "")
    .replace(/[\0-\x1f\x7f-\xff]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

export interface FrameReaderOptions {
  /** Default bound on each read, ms (default 30 s). */
  readonly timeoutMs?: number;
  /** Bytes held unread before the stream is paused (default 64 KiB). */
  readonly highWater?: number;
}

interface Pending {
  /** Tries to satisfy the read from the buffer; true when done. */
  readonly attempt: () => boolean;
  readonly fail: (error: NetError) => void;
  /** Whether new bytes restart the timer (streamed raw reads). */
  readonly idle: boolean;
  readonly timeoutMs: number;
}

/**
 * A buffered reader over a stream (a TLS socket): frames, lines and raw
 * byte counts, one read at a time, each bounded in time. A malformed header
 * is a NetError "protocol"; the stream ending is "closed"; a read taking
 * longer than its bound is "timeout". After any error the connection is in
 * an unknown state and should be closed.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private pending: Pending | undefined;
  private ended: NetError | undefined;
  private readonly timeoutMs: number;
  private readonly highWater: number;
  private paused = false;
  /**
   * The bound of the pending read: one timer per reader, restarted for
   * each read (a server reads a frame per request; a new timer each time
   * cost more than the frame). Unreferenced while no read is pending.
   */
  private timer: NodeJS.Timeout | undefined;
  private timerMs = 0;

  constructor(
    private readonly stream: Duplex,
    options: FrameReaderOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.highWater = options.highWater ?? 64 * 1024;
    stream.on("data", (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      if (this.buffered > this.highWater && !this.paused) {
        this.paused = true;
        stream.pause();
      }
      this.pump(true);
    });
    stream.on("end", () => this.finish(new NetError("closed", "connection closed by peer")));
    stream.on("close", () => this.finish(new NetError("closed", "connection closed")));
    stream.on("error", (error: Error) =>
      this.finish(new NetError("closed", `connection error: ${error.message}`, { cause: error })),
    );
  }

  /** Bytes received and not read yet. */
  get available(): number {
    return this.buffered;
  }

  /** The next frame. */
  next(timeoutMs = this.timeoutMs): Promise<Frame> {
    let header: { more: boolean; length: number } | undefined;
    return this.read(timeoutMs, false, (resolve, reject) => {
      if (header === undefined) {
        if (this.buffered < HEADER_SIZE) return false;
        const parsed = parseHeader(this.take(HEADER_SIZE));
        if (typeof parsed === "string") {
          reject(new NetError("protocol", parsed));
          return true;
        }
        header = parsed;
      }
      if (this.buffered < header.length) return false;
      resolve({ more: header.more, payload: this.take(header.length) });
      return true;
    });
  }

  /** Exactly `n` raw bytes. */
  raw(n: number, timeoutMs = this.timeoutMs): Promise<Buffer> {
    return this.read(timeoutMs, true, (resolve) => {
      if (this.buffered < n) return false;
      resolve(this.take(n));
      return true;
    });
  }

  /**
   * Exactly `n` raw bytes given to `onChunk` as they arrive (nothing held);
   * the bound is on the time without progress.
   */
  rawStream(n: number, onChunk: (chunk: Buffer) => void, timeoutMs = this.timeoutMs): Promise<void> {
    let left = n;
    return this.read(timeoutMs, true, (resolve) => {
      while (left > 0 && this.buffered > 0) {
        const chunk = this.take(Math.min(left, this.chunks[0]?.length ?? 0));
        left -= chunk.length;
        onChunk(chunk);
      }
      if (left > 0) return false;
      resolve(undefined);
      return true;
    });
  }

  /** Between 1 and `max` raw bytes: whatever has arrived, waiting for the first. */
  some(max: number, timeoutMs = this.timeoutMs): Promise<Buffer> {
    return this.read(timeoutMs, false, (resolve) => {
      if (this.buffered === 0) return false;
      resolve(this.take(Math.min(max, this.buffered)));
      return true;
    });
  }

  /**
   * A line ending in "\n" (returned without it, nor a "\r" before it), at
   * most `maxLength` bytes; a longer one is a NetError "protocol".
   */
  line(maxLength = 4096, timeoutMs = this.timeoutMs): Promise<string> {
    return this.read(timeoutMs, false, (resolve, reject) => {
      const index = this.indexOfNewline(maxLength + 1);
      if (index < 0) {
        if (this.buffered > maxLength) {
          reject(new NetError("protocol", `line longer than ${maxLength} bytes`));
          return true;
        }
        return false;
      }
      const line = this.take(index + 1).toString("latin1");
      resolve(line.replace(/\r?\n$/, ""));
      return true;
    });
  }

  /** The first `n` bytes without consuming them (fewer if the stream ends first). */
  peek(n: number, timeoutMs = this.timeoutMs): Promise<Buffer> {
    return this.read(
      timeoutMs,
      false,
      (resolve) => {
        if (this.buffered < n) return false;
        resolve(Buffer.concat(this.chunks).subarray(0, n));
        return true;
      },
      () => Buffer.concat(this.chunks).subarray(0, n),
    );
  }

  private read<T>(
    timeoutMs: number,
    idle: boolean,
    step: (resolve: (value: T) => void, reject: (error: NetError) => void) => boolean,
    onEnd?: () => T,
  ): Promise<T> {
    if (this.pending) return Promise.reject(new Error("FrameReader: one read at a time"));
    return new Promise<T>((resolve, reject) => {
      const done = (): void => {
        this.timer?.unref();
        this.pending = undefined;
      };
      const pending: Pending = {
        attempt: () => {
          let settled = false;
          const finished = step(
            (value) => {
              settled = true;
              done();
              resolve(value);
            },
            (error) => {
              settled = true;
              done();
              reject(error);
            },
          );
          return finished || settled;
        },
        fail: (error) => {
          done();
          if (onEnd && error.kind === "closed") resolve(onEnd());
          else reject(error);
        },
        idle,
        timeoutMs,
      };
      this.pending = pending;
      this.arm(pending);
      this.pump(false);
    });
  }

  private arm(pending: Pending): void {
    if (this.timer && this.timerMs === pending.timeoutMs) {
      this.timer.refresh();
      this.timer.ref();
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timerMs = pending.timeoutMs;
    this.timer = setTimeout(() => {
      const current = this.pending;
      if (current) current.fail(new NetError("timeout", `no reply within ${current.timeoutMs} ms`));
    }, pending.timeoutMs);
  }

  private pump(fresh: boolean): void {
    const pending = this.pending;
    if (!pending) return;
    if (pending.attempt()) return;
    if (fresh && pending.idle) this.arm(pending);
    if (this.paused) {
      this.paused = false;
      this.stream.resume();
    }
    if (this.ended) pending.fail(this.ended);
  }

  private finish(error: NetError): void {
    this.ended ??= error;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const pending = this.pending;
    if (pending && !pending.attempt()) pending.fail(this.ended);
  }

  private indexOfNewline(limit: number): number {
    let offset = 0;
    for (const chunk of this.chunks) {
      const index = chunk.indexOf(0x0a);
      if (index >= 0) return offset + index < limit ? offset + index : -1;
      offset += chunk.length;
      if (offset >= limit) return -1;
    }
    return -1;
  }

  private take(n: number): Buffer {
    const first = this.chunks[0];
    let out: Buffer;
    if (first && first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      const all = Buffer.concat(this.chunks);
      out = all.subarray(0, n);
      this.chunks = all.length > n ? [all.subarray(n)] : [];
    }
    this.buffered -= n;
    if (this.paused && this.buffered <= this.highWater) {
      this.paused = false;
      this.stream.resume();
    }
    return out;
  }
}
