/**
 * Puppet's 3.x-API core functions: md5, sha1, sha256, digest, fqdn_rand,
 * generate, shellquote, sprintf. They check only their argument count
 * ("md5(): Wrong number of arguments given (0 for 1)"), receive a top-level
 * undef as '' (Puppet's 3.x argument conversion), and fail with Ruby's own
 * messages on values of the wrong kind.
 */
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { spawnSync } from "node:child_process";
import { type CallContext, FunctionError, type PuppetFunction } from "../registry.js";
import { PHash, PRegexp, type PValue } from "../../values.js";
import { rubyRandInt } from "./ruby-random.js";
import { rubyInspect, rubyToS } from "./ruby-text.js";
import { rubyFormat } from "./sprintf.js";
import { makeShellquote, rubyJoin } from "./strings.js";

/** A 3.x function: arity n (exact) or -(n+1) (at least n), arguments converted as Puppet does for 3.x. */
function legacy(
  name: string,
  arity: number,
  body: (ctx: CallContext, args: PValue[]) => PValue,
): PuppetFunction {
  return (ctx, args) => {
    const n = args.length;
    if (arity >= 0 && n !== arity)
      throw new FunctionError(`${name}(): Wrong number of arguments given (${n} for ${arity})`);
    if (arity < 0 && n < -arity - 1)
      throw new FunctionError(`${name}(): Wrong number of arguments given (${n} for minimum ${-arity - 1})`);
    return body(
      ctx,
      args.map((a) => (a === undefined ? "" : convert3x(a))),
    );
  };
}

/** Puppet's conversion of 3.x function arguments: regexps become `/source/` strings, also inside collections. */
function convert3x(v: PValue): PValue {
  if (v instanceof PRegexp) return `/${v.source}/`;
  if (Array.isArray(v)) return v.map(convert3x);
  if (v instanceof PHash) return PHash.from([...v].map(([k, x]) => [convert3x(k), convert3x(x)] as const));
  return v;
}

function rubyClassOf(v: PValue): string {
  if (v === undefined) return "nil";
  if (typeof v === "boolean") return v ? "TrueClass" : "FalseClass";
  if (typeof v === "bigint") return "Integer";
  if (typeof v === "number") return "Float";
  if (Array.isArray(v)) return "Array";
  if (v instanceof PHash) return "Hash";
  return "Object";
}

/** Ruby's implicit String conversion (`to_str`): only strings pass. */
function implicitString(v: PValue): string {
  if (typeof v === "string") return v;
  const what = v === undefined ? "nil" : typeof v === "boolean" ? String(v) : rubyClassOf(v);
  throw new FunctionError(`no implicit conversion of ${what} into String`);
}

const hexDigest =
  (algo: string) =>
  (_ctx: CallContext, [s]: PValue[]) =>
    createHash(algo).update(implicitString(s), "utf8").digest("hex");

/** Ruby's String#to_i: leading whitespace, sign, digits with single underscores; 0 when none. */
function rubyToI(s: string): bigint {
  const m = /^\s*([-+]?\d+(?:_\d+)*)/.exec(s);
  return m ? BigInt((m[1] as string).replace(/_/g, "")) : 0n;
}

function toI(v: PValue): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return BigInt(Math.trunc(v));
  if (typeof v === "string") return rubyToI(v);
  const hint = typeof v === "boolean" ? "\nDid you mean?  to_s" : "";
  throw new FunctionError(`undefined method \`to_i' for ${rubyInspect(v)}:${rubyClassOf(v)}${hint}`);
}

function factFqdn(ctx: CallContext): PValue {
  const facts = ctx.lookupVariable("facts");
  const net = facts instanceof PHash ? facts.get("networking") : undefined;
  return net instanceof PHash ? net.get("fqdn") : undefined;
}

function fqdnRand(ctx: CallContext, args: PValue[]): PValue {
  const max = toI(args[0]);
  const seed = args[1];
  const downcase = args[2] !== undefined && args[2] !== false;
  let fqdn = factFqdn(ctx);
  if (downcase && typeof fqdn === "string") fqdn = fqdn.toLowerCase();
  const text = rubyJoin([fqdn, max, seed], ":", rubyToS);
  const hex = createHash("md5").update(text, "utf8").digest("hex");
  if (max <= 0n) throw new FunctionError(`invalid argument - ${max}`);
  return rubyRandInt(BigInt(`0x${hex}`), max);
}

/** Runs the command with stdout and stderr merged, as Puppet's execute does. */
function runGenerator(args: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "tend-generate-"));
  try {
    const outFile = join(dir, "out");
    const fd = openSync(outFile, "w");
    let status: number | null;
    let error: Error | undefined;
    try {
      const r = spawnSync(args[0] as string, args.slice(1), {
        cwd: dirname(args[0] as string),
        stdio: ["ignore", fd, fd],
      });
      status = r.status;
      error = r.error;
    } finally {
      closeSync(fd);
    }
    const output = readFileSync(outFile, "utf8");
    const cmd = args.join(" ");
    if (error)
      throw new FunctionError(
        `Failed to execute generator ${args[0]}: Could not execute '${cmd}': ${error.message}`,
      );
    if (status !== 0)
      throw new FunctionError(
        `Failed to execute generator ${args[0]}: Execution of '${cmd}' returned ${status ?? "a signal"}: ${output}`,
      );
    return output;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function generate(_ctx: CallContext, args: PValue[]): PValue {
  const cmd = rubyToS(args[0]);
  if (!isAbsolute(cmd)) throw new FunctionError("Generators must be fully qualified");
  if (!/^[-/\w.+]+$/m.test(cmd))
    throw new FunctionError("Generators can only contain alphanumerics, file separators, and dashes");
  if (cmd.includes("..")) throw new FunctionError("Can not use generators with '..' in them.");
  if (!existsSync(dirname(cmd)))
    throw new FunctionError(`No such file or directory @ dir_chdir - ${dirname(cmd)}`);
  return runGenerator(args.map(rubyToS));
}

/** shellquote's words: Ruby calls String methods on them. */
function wordOf(v: PValue): string {
  if (typeof v === "string") return v;
  throw new FunctionError(`undefined method \`length' for ${rubyInspect(v)}:${rubyClassOf(v)}`);
}

export const legacyFunctions: Record<string, PuppetFunction> = {
  md5: legacy("md5", 1, hexDigest("md5")),
  sha1: legacy("sha1", 1, hexDigest("sha1")),
  sha256: legacy("sha256", 1, hexDigest("sha256")),
  digest: legacy("digest", 1, hexDigest("sha256")),
  fqdn_rand: legacy("fqdn_rand", -2, fqdnRand),
  generate: legacy("generate", -2, generate),
  shellquote: legacy("shellquote", -1, (ctx, args) => makeShellquote(wordOf)(ctx, args, undefined)),
  sprintf: legacy("sprintf", -2, (_ctx, [fmt, ...rest]) => rubyFormat(implicitString(fmt), rest)),
};
