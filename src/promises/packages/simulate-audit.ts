/**
 * The package part of `--simulate`'s report at the end of the run, as
 * 3.21 words it: the operations package module promises recorded in the
 * changes chroot (simulate-record.ts) folded into what would be installed
 * and removed (`diff`), or what would be present and absent (`manifest`),
 * one "Package 'name-arch [version]' would be ..." paragraph each.
 * cf-agent lists them in its hash tables' order; tend in the order seen.
 */
import { readFileSync } from "node:fs";
import type { Logger } from "../../system/logger.js";
import { parseCsvLine } from "../../eval/functions/system-tables.js";
import { operationsFile } from "./simulate-record.js";

interface Operation {
  readonly code: string;
  readonly name: string;
  readonly version: string;
  readonly arch: string;
}

interface Note {
  readonly message: string;
  readonly version: string;
}

function message(state: string, op: Operation): string {
  const arch = op.arch ? `-${op.arch}` : "";
  const version = op.version ? ` [${op.version}]` : "";
  return `Package '${op.name}${arch}${version}' would be ${state}\n`;
}

/** 3.21 takes "latest" as the greatest version and compares the others as strings. */
function greater(a: string, b: string): boolean {
  return a === "latest" || a > b;
}

function readOperations(root: string, log: Logger): Operation[] | undefined {
  let text: string;
  try {
    text = readFileSync(operationsFile(root), "utf8");
  } catch {
    return undefined;
  }
  const ops: Operation[] = [];
  for (const line of text.split("\n")) {
    const record = line.replace(/\r$/, "");
    if (record === "") continue;
    const fields = parseCsvLine(record);
    const [code = "", name = "", version = "", arch = ""] = fields;
    if (fields.length !== 4) log.error(`Invalid package operation record: '${record}'`);
    else ops.push({ code, name, version, arch });
  }
  return ops;
}

const keyOf = (op: Operation) => `${op.name}-_-${op.arch}`;

/** What would be installed and removed (`--simulate=diff`). */
function diffOperations(ops: readonly Operation[]): Note[] {
  const installed = new Map<string, Note>();
  const removed = new Map<string, Note>();
  for (const op of ops) {
    const key = keyOf(op);
    if (op.code === "p") removed.delete(key);
    else if (op.code === "a") {
      if (!op.version || installed.get(key)?.version === op.version) installed.delete(key);
    } else if (op.code === "i") {
      const previous = installed.get(key);
      // As 3.21, a removal is forgotten only when no new installation note was made.
      if (!previous || greater(op.version, previous.version))
        installed.set(key, { message: message("installed", op), version: op.version });
      else removed.delete(key);
    } else {
      const previous = removed.get(key);
      let note = !previous?.version;
      if (!op.version) installed.delete(key);
      else if (installed.get(key)?.version === op.version) installed.delete(key);
      else note = false;
      if (note) removed.set(key, { message: message("removed", op), version: op.version });
    }
  }
  return [...installed.values(), ...removed.values()];
}

/** What would be present and absent (`--simulate=manifest`). */
function manifestOperations(ops: readonly Operation[]): Note[] {
  const present = new Map<string, Note>();
  const absent = new Map<string, Note>();
  for (const op of ops) {
    const key = keyOf(op);
    if (op.code === "i" || op.code === "p") {
      const previous = present.get(key);
      const better =
        !previous ||
        (!previous.version && op.version !== "") ||
        (op.version !== "" && previous.version !== "" && greater(op.version, previous.version));
      if (better) present.set(key, { message: message("present", op), version: op.version });
      else absent.delete(key);
      continue;
    }
    const previous = present.get(key);
    if (previous?.version && op.version && previous.version !== op.version) continue;
    present.delete(key);
    const earlier = absent.get(key);
    if (!earlier || (earlier.version && !op.version))
      absent.set(key, { message: message("absent", op), version: op.version });
  }
  return [...present.values(), ...absent.values()];
}

/** Logs and writes the package part of the report for a chroot. */
export function auditPackageOperations(
  root: string,
  mode: "diff" | "manifest",
  log: Logger,
  write: (text: string) => void,
): void {
  const ops = readOperations(root, log);
  if (ops === undefined) {
    log.info("No package operations done by the agent run");
    return;
  }
  const notes = mode === "diff" ? diffOperations(ops) : manifestOperations(ops);
  if (notes.length === 0 && mode === "diff") {
    log.info("No differences in installed packages to report");
    return;
  }
  log.info(
    mode === "diff" ? "Showing differences in installed packages" : "Manifesting present and absent packages",
  );
  // puts() adds a newline to a message that already ends in one.
  for (const note of notes) write(`${note.message}\n`);
}
