/**
 * `compileCatalog`: one node's catalog, or a PuppetCompileError with
 * Puppet's message and the file, line and column it is about.
 */
import type { CompileInput, CompileResult, PuppetCatalogJson } from "./compile-api.js";
import { PuppetCompileError } from "./compile-api.js";
import { Compiler } from "./compiler.js";
import { resourceTypeInfo } from "./resource-types.js";
import { toJsonData } from "./resource.js";
import { richDataWarnings } from "./types/rich-data.js";
import { PHash, type PValue } from "./values.js";
import { BreakSignal, PuppetEvalError, NextSignal, ReturnSignal } from "./errors.js";

export function compileCatalog(input: CompileInput): CompileResult {
  const c = new Compiler(input);
  try {
    c.compile();
  } catch (err) {
    throw toCompileError(err);
  }
  for (const w of richDataWarnings(c.catalog.resourceList(), (v) => String(toJsonData(v)), keyText))
    c.log("warning", w);
  const head = c.catalog.head();
  let catalog: PuppetCatalogJson | undefined;
  return {
    get catalog(): PuppetCatalogJson {
      catalog ??= c.catalog.toJson(namevarOf, head);
      return catalog;
    },
    writeCatalogJson(write: (bytes: Uint8Array) => void): void {
      c.catalog.writeJson(namevarOf, head, write);
    },
    messages: c.messages,
  };
}

/** The namevar of a resource type with one (`path` for File), as the catalog leaves it out. */
function namevarOf(type: string): string | undefined {
  const info = resourceTypeInfo(type);
  return info && info.namevars.length === 1 ? info.namevars[0] : undefined;
}

function toCompileError(err: unknown): PuppetCompileError {
  if (err instanceof PuppetCompileError) return err;
  if (err instanceof PuppetEvalError) {
    const msg =
      !err.evaluation || err.message.startsWith("Evaluation Error:")
        ? err.message
        : `Evaluation Error: ${err.message}`;
    return new PuppetCompileError(msg, err.file, err.line, err.column);
  }
  if (err instanceof BreakSignal)
    return new PuppetCompileError(
      "break() from context where this is illegal",
      err.file ?? "unknown",
      err.line,
    );
  if (err instanceof NextSignal)
    return new PuppetCompileError(
      "next() from context where this is illegal",
      err.file ?? "unknown",
      err.line,
    );
  if (err instanceof ReturnSignal)
    return new PuppetCompileError(
      "return() from context where this is illegal",
      err.file ?? "unknown",
      err.line,
    );
  if (err instanceof RangeError) return new PuppetCompileError(`Evaluation Error: ${err.message}`);
  if (err instanceof Error) return new PuppetCompileError(`Evaluation Error: ${err.message}`);
  return new PuppetCompileError(String(err));
}

/** A hash key that is not a String, as the rendered catalog writes it. */
function keyText(k: PValue): string {
  const h = new PHash();
  h.set(k, true);
  return Object.keys(toJsonData(h) as Record<string, unknown>)[0] ?? "";
}
