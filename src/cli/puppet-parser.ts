/**
 * `tend puppet parser dump|validate`: Puppet's `puppet parser` face on tend's
 * Puppet 7 parser. `dump` prints the syntax tree in Puppet's PN form (JSON,
 * as `--format json` prints it, or PN text); `validate` checks the syntax of
 * each file. Syntax errors are printed `file:line:col: message` with
 * Puppet's message, and the exit code is 1 (Puppet's `dump` exits 0 on
 * errors; tend does not). Files ending in `.epp` are parsed as EPP templates
 * (Puppet's `dump` parses every file as a manifest). `validate` (and `dump
 * --validate`, as in Puppet: `dump` does not validate by default) then runs
 * Puppet's validation checks (src/puppet/lang/validate.ts) and prints every
 * diagnostic, errors as `file:line:col: message`, warnings and deprecations
 * with ` (warning)`/` (deprecation)` after them; a file with an error is not
 * dumped and the exit code is 1.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  formatDiagnosticLine,
  formatValidationLine,
  type ParseResult,
  parsePuppet,
  renderPnJson,
  renderPnText,
  TOO_DEEP,
  toPn,
  validatePuppet,
} from "../puppet/lang/index.js";
import { parseCommandLine } from "./args.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK } from "./io.js";

export const parserUsage = `Usage: tend puppet parser <dump|validate> [options]

  dump [--format json|pn] [--validate] [-e CODE | FILE...]
                 print the syntax tree as puppet parser dump does (JSON by default);
                 with --validate, only of files that pass Puppet's validation
  validate FILE...
                 check the syntax of each file and validate it as Puppet does
                 (stdin when no file is given)

Errors are printed as file:line:col: message (exit 1); warnings and
deprecations are followed by (warning) or (deprecation).
`;

interface Source {
  name: string;
  text: string;
}

function readSources(files: readonly string[], io: CliIo): { sources: Source[]; failed: boolean } {
  const sources: Source[] = [];
  let failed = false;
  for (const file of files) {
    try {
      const text = file === "-" ? readFileSync(0, "utf8") : readFileSync(resolve(io.cwd, file), "utf8");
      sources.push({ name: file === "-" ? "stdin" : file, text });
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
      io.stderr(`${file}: cannot read: ${reason}\n`);
      failed = true;
    }
  }
  return { sources, failed };
}

function parseSource(source: Source, file: string): ParseResult {
  return parsePuppet(source.text, { file, epp: source.name.endsWith(".epp") });
}

function report(result: ParseResult, io: CliIo): void {
  for (const w of result.warnings) io.stderr(`${formatDiagnosticLine(w, result.locator)} (warning)\n`);
  if (!result.ok) io.stderr(`${formatDiagnosticLine(result.error, result.locator)}\n`);
}

/** Runs Puppet's validation on a parsed program, prints what it finds; false when there is an error. */
function validate(result: ParseResult & { ok: true }, io: CliIo): boolean {
  let valid = true;
  let diagnostics: ReturnType<typeof validatePuppet>;
  try {
    diagnostics = validatePuppet(result.program);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    io.stderr(
      `${result.locator.file === "" ? "<command line>" : result.locator.file}: ${TOO_DEEP} (validation)\n`,
    );
    return false;
  }
  for (const d of diagnostics) {
    io.stderr(`${formatValidationLine(d, result.locator)}\n`);
    if (d.severity === "error") valid = false;
  }
  return valid;
}

export async function runParser(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "-h" || sub === "--help" || sub === "help") {
    (sub === undefined ? io.stderr : io.stdout)(parserUsage);
    return sub === undefined ? EXIT_FAILURE : EXIT_OK;
  }
  if (sub === "dump") return runDump(rest, io);
  if (sub === "validate") return runValidate(rest, io);
  io.stderr(`tend puppet parser: unknown action '${sub}'\n\n${parserUsage}`);
  return EXIT_FAILURE;
}

async function runDump(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(args, {
    execute: { type: "string", short: "e" },
    format: { type: "string" },
    pretty: { type: "boolean" },
    validate: { type: "boolean" },
    "no-validate": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.stdout(parserUsage);
    return EXIT_OK;
  }
  const format = values.format ?? "json";
  if (format !== "json" && format !== "pn") {
    io.stderr(
      `tend puppet parser dump: unknown format '${format}' (json or pn; Puppet's deprecated 'old' is not offered)\n`,
    );
    return EXIT_FAILURE;
  }
  const render = format === "json" ? renderPnJson : renderPnText;
  const shouldValidate = values.validate === true && values["no-validate"] !== true;
  let sources: Source[];
  let failed = false;
  if (values.execute !== undefined) sources = [{ name: "", text: values.execute }];
  else ({ sources, failed } = readSources(positionals.length > 0 ? positionals : ["-"], io));
  for (const source of sources) {
    const result = parseSource(source, source.name === "" ? "" : source.name);
    report(result, io);
    if (!result.ok || (shouldValidate && !validate(result, io))) {
      failed = true;
      continue;
    }
    try {
      io.stdout(`${render(toPn(result.program))}\n`);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      io.stderr(`${source.name === "" ? "<command line>" : source.name}: ${TOO_DEEP} (dump)\n`);
      failed = true;
    }
  }
  return failed ? EXIT_FAILURE : EXIT_OK;
}

async function runValidate(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(args, { help: { type: "boolean", short: "h" } });
  if (values.help) {
    io.stdout(parserUsage);
    return EXIT_OK;
  }
  const { sources, failed: unreadable } = readSources(positionals.length > 0 ? positionals : ["-"], io);
  let failed = unreadable;
  for (const source of sources) {
    const result = parseSource(source, source.name);
    report(result, io);
    if (!result.ok || !validate(result, io)) failed = true;
  }
  return failed ? EXIT_FAILURE : EXIT_OK;
}
