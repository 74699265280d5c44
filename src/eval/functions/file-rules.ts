/**
 * Functions that compare files as a build tool would: makerule(target,
 * sources) is true when the target is missing or older than a source,
 * hashmatch(file, algorithm, digest) when the file's digest is the given
 * one. As in 3.21, an unreadable file hashes to an all-zero digest.
 */
import { createHash } from "node:crypto";
import { type BigIntStats, lstatSync } from "node:fs";
import { type Value, isScalar } from "../values.js";
import { classResult, text } from "./args.js";
import { collectContainer, primitiveStrings } from "./containers.js";
import { fileDigest } from "./file-read.js";
import { emitFunctionMessage } from "./messages.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

function lstatOf(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

/** Modification time in whole seconds, as 3.21 compares them. */
function mtimeSeconds(stat: BigIntStats): bigint {
  return stat.mtimeNs / 1_000_000_000n;
}

function makeRule([targetArg, sources]: readonly Value[], fc: FunctionContext): Value | undefined {
  const target = text(targetArg);
  if (target === undefined || sources === undefined) return undefined;
  const targetStat = lstatOf(target);
  let stale = targetStat === undefined;
  if (targetStat && !targetStat.isFile()) {
    const message = `Function 'makerule' target-file '${target}' exists and is not a plain file`;
    emitFunctionMessage(fc.ctx, "warning", "makerule", message);
  }
  const targetTime = targetStat ? mtimeSeconds(targetStat) : 0n;
  // A source named directly (a file that exists) is compared alone.
  const direct = isScalar(sources) ? lstatOf(sources.value) : undefined;
  if (direct) return classResult(stale || mtimeSeconds(direct) > targetTime);
  const json = collectContainer(fc, sources);
  if (json === undefined) return undefined;
  for (const source of primitiveStrings(json)) {
    const stat = lstatOf(source);
    if (!stat) {
      const message = `Function 'makerule', source dependency ${source} was not (yet) readable`;
      emitFunctionMessage(fc.ctx, "verbose", "makerule", message);
      return classResult(false);
    }
    if (mtimeSeconds(stat) > targetTime) stale = true;
  }
  return classResult(stale);
}

const HASH_ALGORITHMS: Readonly<Record<string, string>> = {
  md5: "md5",
  sha1: "sha1",
  sha224: "sha224",
  sha256: "sha256",
  sha384: "sha384",
  sha512: "sha512",
};

function hashMatch(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const [file, type, expected] = args.map(text);
  if (file === undefined || type === undefined || expected === undefined) return undefined;
  const algorithm = HASH_ALGORITHMS[type];
  // crypt digests of files are not something 3.21 can compute either.
  if (algorithm === undefined) return classResult(false);
  const digest = fileDigest(file, createHash(algorithm));
  const prefix = type === "md5" ? "MD5=" : "SHA=";
  emitFunctionMessage(
    fc.ctx,
    "verbose",
    "hashmatch",
    `File '${file}' hashes to '${prefix}${digest}', compare to '${expected}'`,
  );
  return classResult(digest === expected);
}

export const fileRuleFunctions: readonly BuiltinFunction[] = [
  defineFunction("makerule", 2, 2, makeRule),
  defineFunction("hashmatch", 3, 3, hashMatch),
];
