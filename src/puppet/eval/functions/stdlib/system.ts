/**
 * stdlib functions that reach outside the compile: `pw_hash` (crypt(3)),
 * `glob` (Ruby's Dir.glob on the compiling machine) and `validate_cmd`
 * (runs a checking command on a temporary file), as stdlib 9.7.0 does.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FunctionArgumentError, type PuppetFunction } from "../registry.js";
import { inferType } from "../../types.js";
import { PSensitive, type PValue } from "../../values.js";
import { HoconError, parseHocon } from "../../../../text/hocon.js";
import { hoconToPuppet } from "../../hocon.js";
import { md5Crypt, shaCrypt } from "./crypt.js";
import { fail, legacy } from "./support.js";

const HASHES: Record<string, "1" | "5" | "6" | "bcrypt"> = {
  md5: "1",
  "sha-256": "5",
  "sha-512": "6",
  bcrypt: "bcrypt",
  "bcrypt-a": "bcrypt",
  "bcrypt-x": "bcrypt",
  "bcrypt-y": "bcrypt",
};

export const pw_hash: PuppetFunction = (ctx, args, block) =>
  legacy((_c, raw) => {
    if (raw.length !== 3) fail(`pw_hash(): Wrong number of arguments given (${raw.length} for 3)`);
    const a = raw.map((v) => (v instanceof PSensitive ? v.value : v));
    const [password, type, salt] = a;
    if (typeof password !== "string" && password !== undefined)
      fail("pw_hash(): first argument must be a string");
    if (typeof type !== "string") fail("pw_hash(): second argument must be a string");
    const kind = HASHES[type.toLowerCase()];
    if (kind === undefined) fail(`pw_hash(): ${type} is not a valid hash type`);
    if (typeof salt !== "string") fail("pw_hash(): third argument must be a string");
    if (salt === "") fail("pw_hash(): third argument must not be empty");
    if (kind === "bcrypt") {
      if (!/^(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{22}/.test(salt))
        fail(
          "pw_hash(): characters in salt must match (?-mix:^(0[4-9]|[12][0-9]|3[01])\\$[.\\/A-Za-z0-9]{22})",
        );
      fail("pw_hash(): bcrypt hashes are not supported by tend");
    }
    if (!/^[a-zA-Z0-9./]+$/.test(salt))
      fail("pw_hash(): characters in salt must be in the set [a-zA-Z0-9./]");
    if (password === undefined || password === "") return undefined;
    return kind === "1" ? md5Crypt(password, salt) : shaCrypt(password, salt, kind === "5" ? 256 : 512);
  })(ctx, args, block);

/* ------------------------------------------------------------------ glob */

/** `{a,b}` alternatives expanded, as Dir.glob does before matching. */
function braces(pattern: string): string[] {
  let depth = 0;
  let start = -1;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === "{") {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === "}" && depth > 0) {
      depth--;
      if (depth === 0) {
        const inner = pattern.slice(start + 1, i);
        const alts: string[] = [];
        let d = 0;
        let from = 0;
        for (let j = 0; j < inner.length; j++) {
          const c = inner[j];
          if (c === "\\") j++;
          else if (c === "{") d++;
          else if (c === "}") d--;
          else if (c === "," && d === 0) {
            alts.push(inner.slice(from, j));
            from = j + 1;
          }
        }
        alts.push(inner.slice(from));
        const head = pattern.slice(0, start);
        const tail = pattern.slice(i + 1);
        return alts.flatMap((alt) => braces(`${head}${alt}${tail}`));
      }
    }
  }
  return [pattern];
}

function segmentRegExp(seg: string): RegExp {
  let re = "";
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i] as string;
    if (ch === "\\" && i + 1 < seg.length) re += `\\${seg[++i]}`;
    else if (ch === "*") re += "[^/]*";
    else if (ch === "?") re += "[^/]";
    else if (ch === "[") {
      const end = seg.indexOf("]", i + 2);
      if (end < 0) re += "\\[";
      else {
        let cls = seg.slice(i + 1, end);
        if (cls.startsWith("!") || cls.startsWith("^")) cls = `^${cls.slice(1)}`;
        re += `[${cls.replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else re += ch.replace(/[.+^${}()|\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

const hasMagic = (s: string): boolean => /[*?[]/.test(s);

function entries(dir: string): string[] {
  try {
    return readdirSync(dir === "" ? "." : dir).sort();
  } catch {
    return [];
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p === "" ? "." : p).isDirectory();
  } catch {
    return false;
  }
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

function joinPath(base: string, name: string): string {
  if (base === "") return name;
  return base.endsWith("/") ? `${base}${name}` : `${base}/${name}`;
}

function walk(base: string, segs: readonly string[], out: string[]): void {
  if (segs.length === 0) {
    if (base !== "" && exists(base)) out.push(base);
    return;
  }
  const [seg, ...rest] = segs as [string, ...string[]];
  if (seg === "**") {
    walk(base, rest, out);
    for (const e of entries(base)) {
      if (e.startsWith(".")) continue;
      const p = joinPath(base, e);
      if (isDir(p)) walk(p, segs, out);
    }
    return;
  }
  if (!hasMagic(seg)) {
    const p = joinPath(base, seg.replace(/\\(.)/g, "$1"));
    if (rest.length === 0 ? exists(p) : isDir(p)) walk(p, rest, out);
    return;
  }
  const re = segmentRegExp(seg);
  for (const e of entries(base)) {
    if (e.startsWith(".") && !seg.startsWith(".")) continue;
    if (!re.test(e)) continue;
    const p = joinPath(base, e);
    if (rest.length === 0 || isDir(p)) walk(p, rest, out);
  }
}

/** Ruby's `Dir.glob(pattern)` (sorted results, hidden names only when the pattern names them). */
export function rubyGlob(pattern: string): string[] {
  const out: string[] = [];
  for (const p of braces(pattern)) {
    if (p === "") continue;
    let found: string[] = [];
    // A trailing slash matches directories only, and keeps the slash.
    const dirsOnly = p.length > 1 && p.endsWith("/");
    const q = dirsOnly ? p.replace(/\/+$/, "") : p;
    const absolute = q.startsWith("/");
    const segs = q.split("/").filter((s, i) => s !== "" || i === 0);
    if (absolute) walk("/", segs.slice(1), found);
    else walk("", segs, found);
    if (dirsOnly) found = found.filter(isDir).map((f) => `${f}/`);
    // Each alternative's matches in byte order, as Ruby 3 sorts them.
    out.push(...[...new Set(found)].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  }
  return out;
}

export const glob: PuppetFunction = legacy((_c, args) => {
  if (args.length !== 1) fail(`glob(): Wrong number of arguments given (${args.length} for 1)`);
  const pattern = args[0];
  if (typeof pattern !== "string" && !Array.isArray(pattern))
    fail("glob(): Requires either array or string to work");
  const patterns = typeof pattern === "string" ? [pattern] : pattern.map(String);
  return patterns.flatMap(rubyGlob);
});

/* --------------------------------------------------------- validate_cmd */

export const validate_cmd: PuppetFunction = legacy((_c, args): PValue => {
  if (args.length < 2 || args.length > 3)
    fail(`validate_cmd(): wrong number of arguments (${args.length}; must be 2 or 3)`);
  const [content, check, message] = args;
  let msg =
    typeof message === "string" && message !== ""
      ? message
      : `validate_cmd(): failed to validate content with command ${JSON.stringify(String(check))}`;
  const dir = mkdtempSync(join(tmpdir(), "validate_cmd"));
  const file = join(dir, "content");
  try {
    writeFileSync(file, String(content ?? ""));
    const cmd = String(check);
    const line = /\s%(\s|$)/.test(cmd) ? cmd.replace(/%/g, file) : `${cmd} ${file}`;
    const r = spawnSync("/bin/sh", ["-c", line], { encoding: "utf8" });
    if (r.error) {
      msg += `\n${r.error.name} ${r.error.message}`;
      fail(msg);
    }
    if (r.status !== 0) {
      const output = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim();
      msg += `\nExecution of '${line}' returned ${r.status ?? 1}: ${output}`;
      fail(msg);
    }
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/* ------------------------------------------------------------ parsehocon */

/** `stdlib::parsehocon(String $hocon_string, Optional[Any] $default)`: the document as data, or the default when it does not parse. */
export const parsehocon: PuppetFunction = (_ctx, args) => {
  if (args.length < 1 || args.length > 2)
    throw new FunctionArgumentError(
      `'stdlib::parsehocon' expects between 1 and 2 arguments, got ${args.length}`,
    );
  const [text, ...rest] = args;
  if (typeof text !== "string")
    throw new FunctionArgumentError(
      `'stdlib::parsehocon' parameter 'hocon_string' expects a String value, got ${describeType(text)}`,
    );
  try {
    return hoconToPuppet(parseHocon(text));
  } catch (e) {
    if (e instanceof HoconError && rest.length > 0) return rest[0];
    if (e instanceof HoconError) fail(e.message);
    throw e;
  }
};

function describeType(v: PValue): string {
  return inferType(v).generalize().toString();
}
