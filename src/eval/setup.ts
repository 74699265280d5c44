/**
 * A fresh evaluation context as 3.21 has it before reading policy: hard
 * classes, `sys.*`/`const.*`, then `-D`/`-N` classes from the command line.
 */
import { resolve } from "node:path";
import { canonifyClassName } from "./class-expression.js";
import { EvalContext } from "./context.js";
import { type AgentType, discoverHardClasses } from "./hard-classes.js";
import { installHostKey } from "./host-key.js";
import { installMonitoringEnvironment } from "./monitoring-environment.js";
import { installPolicyServer } from "./policy-server.js";
import { type HostFacts, getHostFacts } from "./host.js";
import {
  type AgentDirectories,
  installEntryVariables,
  installSystemVariables,
  resolveDirectories,
} from "./sys-vars.js";

export interface ContextOptions extends AgentDirectories {
  /** Classes defined from the command line (`-D`). */
  readonly defines?: readonly string[];
  /** Classes negated from the command line (`-N`). */
  readonly negates?: readonly string[];
  /** Persistent classes still in force, with their stored tags. */
  readonly persistentClasses?: readonly { readonly name: string; readonly tags: readonly string[] }[];
  /** The program: `agent` (cf-agent) or `common` (cf-promises, the default); names a hard class. */
  readonly agentType?: AgentType;
  /** The entry file, for `sys.policy_entry_*`. */
  readonly entry?: string;
  /** Host facts to use instead of detecting them (tests). */
  readonly facts?: HostFacts;
  /** The clock for time classes and `sys.date` (tests). */
  readonly now?: Date;
  /** Hard classes of the run's mode: `inform_mode`, `verbose_mode`... (see `logModeClasses`). */
  readonly modeClasses?: readonly string[];
}

/**
 * The hard classes 3.21 defines for the log level given on the command
 * line: `inform_mode` from -I up, `verbose_mode` from -v up, `debug_mode`
 * and `opt_debug` with -d.
 */
export function logModeClasses(level: string | undefined): string[] {
  const order = ["info", "verbose", "debug"];
  const rank = level === undefined ? -1 : order.indexOf(level);
  const out: string[] = [];
  if (rank >= 2) out.push("debug_mode", "opt_debug");
  if (rank >= 1) out.push("verbose_mode");
  if (rank >= 0) out.push("inform_mode");
  return out;
}

export function createEvalContext(options: ContextOptions = {}): EvalContext {
  const ctx = new EvalContext();
  ctx.agentType = options.agentType ?? "common";
  const facts = options.facts ?? getHostFacts();
  const now = options.now ?? new Date();
  for (const name of options.negates ?? []) ctx.negateClass(name);
  // `-N` wins over `-D`; policy may still define a negated class (3.21).
  const negated = new Set((options.negates ?? []).map(canonifyClassName));
  for (const name of options.defines ?? [])
    if (!negated.has(canonifyClassName(name))) ctx.defineClass(name, false, { tags: ["source=environment"] });
  for (const [name, tags] of discoverHardClasses(facts, now, options.agentType))
    ctx.defineHardClass(name, tags);
  for (const name of options.modeClasses ?? []) ctx.defineHardClass(name, ["cfe_internal", "source=agent"]);
  const dirs = resolveDirectories(facts, options);
  installSystemVariables(ctx, facts, dirs, now);
  ctx.resolvedAddress = facts.fqhostAddress ?? "";
  installHostKey(ctx, dirs.workdir);
  installMonitoringEnvironment(ctx, dirs.statedir, now);
  if (options.entry) installEntryVariables(ctx, resolve(options.entry));
  for (const { name, tags } of options.persistentClasses ?? []) {
    if (negated.has(canonifyClassName(name))) continue;
    ctx.defineClass(name, false, { tags });
    ctx.setClassTags(name, ["source=persistent"]);
  }
  installPolicyServer(ctx, dirs.workdir, dirs.statedir);
  return ctx;
}
