/**
 * Where things are in a JSON text, for diagnostics only. `JSON.parse` reads
 * the catalog (fast); when it refuses, or when the parsed value has the
 * wrong shape, this small scanner walks the text again to find the first
 * syntax error with what was expected there, and the offsets of the
 * values a diagnostic points at (`resources[3].title`). It never throws.
 */

export interface JsonSyntaxError {
  readonly offset: number;
  /** `expected ',' or '}' after a member, found ']'` */
  readonly message: string;
}

export interface JsonScan {
  readonly error?: JsonSyntaxError;
  /** Offset of each value by its path (`resources`, `resources.3`, `resources.3.title`), to `depth`. */
  readonly offsets: ReadonlyMap<string, number>;
}

const MAX_NESTING = 1000;

class ScanError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** Scans `text`, recording the offsets of values up to `depth` levels deep. */
export function scanJson(text: string, depth = 3): JsonScan {
  const offsets = new Map<string, number>();
  let pos = 0;

  const describe = (at: number): string =>
    at >= text.length ? "end of input" : `'${String.fromCodePoint(text.codePointAt(at) ?? 0)}'`;
  const fail = (expected: string): never => {
    throw new ScanError(pos, `expected ${expected}, found ${describe(pos)}`);
  };
  const skipSpace = (): void => {
    while (pos < text.length && " \t\n\r".includes(text[pos] as string)) pos++;
  };
  const expectChar = (char: string, what: string): void => {
    skipSpace();
    if (text[pos] !== char) fail(what);
    pos++;
  };

  const scanString = (): void => {
    pos++;
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 34) {
        pos++;
        return;
      }
      if (c < 32)
        throw new ScanError(pos, "control character in string: write it escaped (\\n, \\t, \\u00XX)");
      if (c === 92) {
        const next = text[pos + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6)))
            throw new ScanError(pos, "expected four hex digits after \\u");
          pos += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next))
          throw new ScanError(pos, `invalid escape '\\${next ?? ""}' in string`);
        pos += 2;
        continue;
      }
      pos++;
    }
    throw new ScanError(pos, "unterminated string: expected '\"'");
  };

  const scanNumber = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(pos, pos + 400));
    if (!match || match[0] === "" || match[0] === "-")
      fail("a value (object, array, string, number, true, false, null)");
    pos += (match as RegExpExecArray)[0].length;
  };

  const scanValue = (path: string, level: number): void => {
    skipSpace();
    if (level > MAX_NESTING) throw new ScanError(pos, `values nested more than ${MAX_NESTING} deep`);
    if (level <= depth && path !== "") offsets.set(path, pos);
    const c = text[pos];
    const child = (key: string): string => (path === "" ? key : `${path}.${key}`);
    if (c === "{") {
      pos++;
      skipSpace();
      if (text[pos] === "}") {
        pos++;
        return;
      }
      for (;;) {
        skipSpace();
        if (text[pos] !== '"') fail("a member name in double quotes");
        const start = pos;
        scanString();
        const key = safeKey(text.slice(start, pos));
        expectChar(":", "':' after a member name");
        scanValue(child(key), level + 1);
        skipSpace();
        if (text[pos] === ",") {
          pos++;
          continue;
        }
        if (text[pos] === "}") {
          pos++;
          return;
        }
        fail("',' or '}' after a member");
      }
    }
    if (c === "[") {
      pos++;
      skipSpace();
      if (text[pos] === "]") {
        pos++;
        return;
      }
      for (let i = 0; ; i++) {
        scanValue(child(String(i)), level + 1);
        skipSpace();
        if (text[pos] === ",") {
          pos++;
          continue;
        }
        if (text[pos] === "]") {
          pos++;
          return;
        }
        fail("',' or ']' after an element");
      }
    }
    if (c === '"') {
      scanString();
      return;
    }
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return;
      }
    }
    scanNumber();
  };

  try {
    scanValue("", 0);
    skipSpace();
    if (pos < text.length) fail("end of input after the value");
    return { offsets };
  } catch (error) {
    if (error instanceof ScanError)
      return { error: { offset: error.offset, message: error.message }, offsets };
    throw error;
  }
}

function safeKey(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}

/** 1-based line and column of an offset (columns in UTF-16 units, as editors count). */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  return lineMap(text)(offset);
}

/** A line-start table of `text`, searched in O(log n) per offset. */
export function lineMap(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (starts[low] as number) + 1 };
  };
}
