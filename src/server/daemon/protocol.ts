/**
 * The requests of cf-serverd 3.21's TLS protocol and the fixed strings of
 * its replies, with no I/O: a request frame in, a typed request out (the
 * way server_tls.c `BusyWithNewProtocol` reads each command with sscanf).
 */

/** Every refusal (CF_FAILEDSTR). */
export const FAILED = "BAD: Unspecified server refusal (see verbose server output)";
/** The reply to an illegal request, after which the connection is closed. */
export const REQUEST_DENIED = "BAD: Request denied";
/** Sent when a file's size changes during GET (CF_CHANGEDSTR1 + CF_CHANGEDSTR2). */
export const CHANGED = "BAD: File changed while copying";
/** Ends OPENDIR listings and EXEC output (CFD_TERMINATOR). */
export const TERMINATOR = "---cfXen/gine/cfXen/gine---";
/** MD5: the file differs (copy needed). */
export const CFD_TRUE = "CFD_TRUE";
/** MD5: the file is the same. */
export const CFD_FALSE = "CFD_FALSE";
/** `denybadclocks` refuses STAT from clients further off than this (seconds). */
export const CLOCK_DRIFT = 3600;
/** The largest request or reply payload (CF_BUFSIZE - 1 readable as a C string). */
export const BUFSIZE = 4096;
/** GET sends files in blocks this big (3.21 one TLS record each; tend whole blocks per record). */
export const GET_BLOCK = 2048;

export type Request =
  | { readonly kind: "exec"; readonly args: string }
  | { readonly kind: "version" }
  | { readonly kind: "get"; readonly bufSize: number; readonly path: string }
  | { readonly kind: "opendir"; readonly path: string }
  | { readonly kind: "synch"; readonly clientTime: number; readonly path: string }
  | { readonly kind: "md5"; readonly path: string; readonly digest: Buffer }
  | { readonly kind: "var"; readonly name: string }
  | { readonly kind: "context"; readonly regex: string }
  | { readonly kind: "query"; readonly query: string; readonly name: string }
  | { readonly kind: "cookie" }
  | { readonly kind: "call-me-back" }
  /** An empty frame (a C string of length 0): logged and ignored. */
  | { readonly kind: "empty" }
  /** A known command whose arguments do not parse: "BAD: Request denied" and close. */
  | { readonly kind: "malformed"; readonly text: string }
  /** Anything else: logged as unexpected, then as malformed. */
  | { readonly kind: "unknown"; readonly text: string };

const COMMANDS = [
  "EXEC",
  "GET",
  "OPENDIR",
  "SYNCH",
  "MD5",
  "VERSION",
  "VAR",
  "CONTEXT",
  "QUERY",
  "CALL_ME_BACK",
  "COOKIE",
] as const;

type Command = (typeof COMMANDS)[number];

/** Where the request's C string ends: its first NUL, else the payload's end. */
function stringEnd(payload: Buffer): number {
  const nul = payload.indexOf(0);
  return nul < 0 ? payload.length : nul;
}

/**
 * The request text as the C code sees it: the payload up to its first NUL,
 * read as UTF-8 (paths are compared with the policy's strings; names that
 * are not UTF-8 cannot be served).
 */
export function requestText(payload: Buffer): string {
  return payload.toString("utf8", 0, stringEnd(payload));
}

/** The command a request starts with: the word, then a blank or the end (GetCommandNew). */
function commandOf(text: string): Command | undefined {
  return COMMANDS.find((c) => text.startsWith(c) && (text.length === c.length || text[c.length] === " "));
}

/** isspace() in the C locale: blank, \t, \n, \v, \f, \r. */
function isBlank(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

/** Where the blanks from `from` end. */
function skipBlanks(text: string, from: number): number {
  let i = from;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  return i;
}

/** sscanf's `%[^\n]` after blanks: the rest up to a newline, blanks skipped first; undefined when empty. */
function restOfLine(text: string, from: number, max = Number.POSITIVE_INFINITY): string | undefined {
  const start = skipBlanks(text, from);
  if (start >= text.length) return undefined;
  // Not empty: the first character is no blank, so no newline either.
  let end = text.indexOf("\n", start);
  if (end < 0) end = text.length;
  return text.slice(start, Math.min(end, start + max));
}

/** sscanf's `%d`/`%ld`: blanks, a sign, digits; the value and where it ends. */
function integerAt(text: string, from: number): { value: number; end: number } | undefined {
  const start = skipBlanks(text, from);
  let i = start;
  const sign = text.charCodeAt(i);
  if (sign === 0x2b || sign === 0x2d) i++;
  const digits = i;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) break;
    i++;
  }
  if (i === digits) return undefined;
  return { value: Number(text.slice(start, i)), end: i };
}

/** Parses one request frame as 3.21 does. */
export function parseRequest(payload: Buffer): Request {
  const text = requestText(payload);
  if (text.length === 0) return { kind: "empty" };
  const command = commandOf(text);
  const malformed = { kind: "malformed", text } as const;
  switch (command) {
    case "EXEC":
      return { kind: "exec", args: text.slice(4).replace(/^[ \t]+/, "") };
    case "VERSION":
      return { kind: "version" };
    case "GET":
      return parseGet(text) ?? malformed;
    case "OPENDIR": {
      const path = restOfLine(text, 7);
      return path === undefined ? malformed : { kind: "opendir", path };
    }
    case "SYNCH":
      return parseSynch(text) ?? malformed;
    case "MD5": {
      const path = restOfLine(text, 3);
      if (path === undefined) return malformed;
      // The client puts the digest two bytes after the string's NUL; missing bytes are zeros.
      const end = stringEnd(payload);
      let digest = payload.subarray(end + 2, end + 18);
      if (digest.length < 16) {
        digest = Buffer.alloc(16);
        payload.copy(digest, 0, Math.min(end + 2, payload.length), Math.min(end + 18, payload.length));
      }
      return { kind: "md5", path, digest };
    }
    case "VAR": {
      const name = restOfLine(text, 3, 255);
      return name === undefined ? malformed : { kind: "var", name };
    }
    case "CONTEXT": {
      const regex = restOfLine(text, 7, 255);
      return regex === undefined ? malformed : { kind: "context", regex };
    }
    case "QUERY": {
      const query = restOfLine(text, 5, 255);
      const name = query?.split(/[ \t\n\r\f\v]/, 1)[0]?.slice(0, 127);
      return query === undefined || !name ? malformed : { kind: "query", query, name };
    }
    case "COOKIE":
      return { kind: "cookie" };
    case "CALL_ME_BACK":
      return { kind: "call-me-back" };
    default:
      return { kind: "unknown", text };
  }
}

/** `GET <bufsize> <path>`: bufsize 1..4096. */
function parseGet(text: string): Request | undefined {
  const size = integerAt(text, 3);
  if (!size || size.value <= 0 || size.value > BUFSIZE) return undefined;
  const path = restOfLine(text, size.end);
  return path === undefined ? undefined : { kind: "get", bufSize: size.value, path };
}

/** `SYNCH <client time> STAT <path>`. */
function parseSynch(text: string): Request | undefined {
  const time = integerAt(text, 5);
  if (!time) return undefined;
  const stat = skipBlanks(text, time.end);
  if (!text.startsWith("STAT", stat)) return undefined;
  const path = restOfLine(text, stat + 4);
  return path === undefined ? undefined : { kind: "synch", clientTime: time.value, path };
}
