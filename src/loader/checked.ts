/**
 * How CFEngine's daemons (cf-serverd, cf-monitord, cf-execd) take their
 * policy: read and pre-evaluated with the agent's load steps (body common
 * control, inputs, augments, common bundles) as their own program, then
 * checked as cf-promises checks it. The load's messages and what
 * functions say go to the daemon's logger; an invalid policy comes back as
 * diagnostics, never as an exception.
 */
import { type Diagnostic, hasErrors } from "../language/diagnostics.js";
import { validatePolicy } from "../language/validate/index.js";
import type { Logger } from "../system/logger.js";
import { type LoadedPolicy, resolvePolicies } from "./control.js";
import { type LoadOptions, type LoadResult, loadPolicy, resolveEntryPath } from "./load.js";

export interface CheckedLoadOptions {
  /** The entry file (`-f`); a bare name is taken in the input directory. */
  readonly file: string;
  readonly inputDir: string;
  readonly workdir: string;
  readonly program: NonNullable<LoadOptions["agentType"]>;
  readonly logger: Logger;
  readonly defines?: readonly string[];
  readonly negates?: readonly string[];
  readonly ignoreMissingInputs?: boolean;
}

export type CheckedLoad =
  | {
      readonly ok: true;
      /** The entry file, resolved. */
      readonly entry: string;
      readonly loaded: LoadResult;
      /** The policy's files, resolved (body control attributes). */
      readonly files: readonly LoadedPolicy[];
      /** Warnings. */
      readonly diagnostics: readonly Diagnostic[];
    }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/** Loads and checks a daemon's policy. */
export function loadCheckedPolicy(options: CheckedLoadOptions): CheckedLoad {
  const { logger } = options;
  const entry = resolveEntryPath(options.file, options.inputDir);
  const loaded = loadPolicy(entry, {
    defines: [...(options.defines ?? [])],
    negates: [...(options.negates ?? [])],
    agentType: options.program,
    inputDir: options.inputDir,
    workDir: options.workdir,
    ignoreMissingInputs: options.ignoreMissingInputs,
    messages: {
      note: (level, message) => logger.log(level, message),
      fromFunction: (m) => {
        const level =
          m.level === "fatal"
            ? "error"
            : m.level === "output" || m.level === "output-info"
              ? "info"
              : m.level;
        logger.log(level, `${m.fn}: ${m.message}`);
      },
    },
  });
  for (const m of loaded.messages) logger.log(m.level, m.text);
  const diagnostics = [...loaded.diagnostics];
  if (hasErrors(diagnostics)) return { ok: false, diagnostics };
  const files = loaded.set.files.map((f) => ({
    path: f.source.path,
    policy: f.policy,
    lineOf: (o: number) => f.source.positionAt(o).line,
  }));
  resolvePolicies(loaded.context, files);
  diagnostics.push(...validatePolicy(loaded.set));
  if (hasErrors(diagnostics)) return { ok: false, diagnostics };
  return { ok: true, entry, loaded, files, diagnostics };
}
