/**
 * The verbose "ornaments" cf-agent 3.21 logs around its work: bundle
 * banners (`B:`), type banners (`V:`, `C:`), promise banners (`P:`), the
 * outcome of each promise and the accounting of each bundle (`A:`). Texts
 * are cf-agent's, so `tend agent -v` reads like `cf-agent -v`.
 */
import type { Rval } from "../language/ast.js";
import type { Value } from "../eval/values.js";
import { isList } from "../eval/values.js";
import type { Logger } from "../system/logger.js";
import { type Outcome, UNACCOUNTED_TYPES } from "./outcome.js";

const STARS = "*****************************************************************";
const DOTS = ".........................................................";
const SHORT_DOTS = "...................................................";

/**
 * cf-agent's rendering of a list of arguments (`RlistWrite`): ` {"a","b"}`,
 * with a leading space. Lists passed as `@(x)` show as written.
 */
export function formatArguments(items: readonly string[]): string {
  return ` {${items.join(",")}}`;
}

/** One argument as `formatArguments` wants it: a quoted scalar, or the `@(x)` written. */
export function quoteArgument(value: Value, written?: string): string {
  if (isList(value) || value.type === "data") return `"${written ?? ""}"`;
  return `"${value.value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** An rval as 3.21's RvalToString writes it: a string bare, a call `f("a","b")`, a list ` {"a","b"}`. */
export function rvalText(rval: Rval): string {
  const quoted = (item: Rval) => (item.kind === "call" ? rvalText(item) : `"${rvalText(item)}"`);
  switch (rval.kind) {
    case "string":
      return rval.value;
    case "nakedvar":
      return rval.text;
    case "symbol":
      return rval.name;
    case "call":
      return `${rval.name}(${rval.args.map(quoted).join(",")})`;
    case "list":
      return ` {${rval.items.map(quoted).join(",")}}`;
  }
}

export function bundleBanner(log: Logger, name: string, argsText?: string): void {
  if (!log.wouldLog("verbose")) return;
  log.verbose(`B: ${STARS}`);
  log.verbose(argsText === undefined ? `B: BEGIN bundle ${name}` : `B: BEGIN bundle ${name}(${argsText})`);
  log.verbose(`B: ${STARS}`);
}

export function endBundleBanner(log: Logger, name: string): void {
  if (!log.wouldLog("verbose")) return;
  log.verbose(`B: ${STARS}`);
  log.verbose(`B: END bundle ${name}`);
  log.verbose(`B: ${STARS}`);
}

/** The banner of the `vars` and `classes` sections in each pass (other types have none). */
export function typeBanner(log: Logger, type: string, pass: number): void {
  if (!log.wouldLog("verbose")) return;
  if (type === "classes") {
    log.verbose(`C: ${DOTS}`);
    log.verbose(`C: BEGIN classes / conditions (pass ${pass})`);
  } else if (type === "vars") {
    log.verbose(`V: ${DOTS}`);
    log.verbose(`V: BEGIN variables (pass ${pass})`);
  }
}

export interface PromiseBannerInfo {
  /** The handle as given, or 3.21's `promise_<file>_<line>`. */
  readonly handle: string;
  readonly type: string;
  readonly pass: number;
  readonly promiser: string;
  readonly bundle: string;
  /** The arguments of the bundle call being run (see `formatArguments`), if any. */
  readonly argsText: string | undefined;
  /** The class guard as written (`any` without one). */
  readonly guard: string;
  /** `if`/`ifvarclass` expanded, else `unless`, when given as strings. */
  readonly condition: { readonly name: "if" | "unless"; readonly value: string } | undefined;
  readonly stackPath: string;
  readonly comment: string | undefined;
}

/** The longest promiser a banner shows (3.21 keeps 2 * 19 + 3 bytes, less the terminator). */
const BANNER_PROMISER = 40;

/** A promiser as banners show it: a multi-line one as its first and last fragments. */
function abbreviate(promiser: string): string {
  const newline = promiser.indexOf("\n");
  if (newline === -1) return promiser.slice(0, BANNER_PROMISER);
  const head = promiser.slice(0, Math.min(newline, 19));
  const last = promiser.slice(promiser.lastIndexOf("\n") + 1);
  return `${head}...${last.slice(Math.max(0, last.length - 19))}`.slice(0, BANNER_PROMISER);
}

export function promiseBanner(log: Logger, info: PromiseBannerInfo): void {
  if (!log.wouldLog("verbose")) return;
  log.verbose(`P: ${DOTS}`);
  log.verbose(`P: BEGIN promise '${info.handle}' of type "${info.type}" (pass ${info.pass})`);
  log.verbose(`P:    Promiser/affected object: '${abbreviate(info.promiser)}'`);
  if (info.argsText !== undefined)
    log.verbose(`P:    From parameterized bundle: ${info.bundle}(${info.argsText})`);
  else log.verbose(`P:    Part of bundle: ${info.bundle}`);
  log.verbose(`P:    Base context class: ${info.guard}`);
  if (info.condition) log.verbose(`P:    "${info.condition.name}" class condition: ${info.condition.value}`);
  log.verbose(`P:    Stack path: ${info.stackPath}`);
  if (info.comment !== undefined) {
    log.verbose("P:");
    log.verbose(`P:    Comment:  ${info.comment}`);
  }
}

/** `A: Promise was KEPT` and `P: END <type> promise (<promiser>)` after a promise acted. */
export function bannerStatus(log: Logger, type: string, promiser: string, outcome: Outcome): void {
  if (!log.wouldLog("verbose") || type === "vars" || type === "classes") return;
  const status = STATUS_TEXT[outcome];
  if (!status) return;
  log.verbose(`A: ${status}`);
  const shown = promiser.length > 30 ? `${promiser.slice(0, 30)}...` : promiser;
  log.verbose(`P: END ${type} promise (${shown})`);
}

const STATUS_TEXT: Partial<Record<Outcome, string>> = {
  repaired: "Promise REPAIRED",
  timeout: "Promise TIMED-OUT",
  warn: "Promise NOT KEPT!",
  failed: "Promise NOT KEPT!",
  interrupted: "Promise NOT KEPT!",
  denied: "Promise NOT KEPT - denied",
  kept: "Promise was KEPT",
};

/** Promise outcomes counted for the accounting of bundles (global, as cf-agent's counters). */
export class PromiseCounters {
  kept = 0;
  repaired = 0;
  notKept = 0;

  note(outcome: Outcome, times = 1): void {
    if (outcome === "kept") this.kept += times;
    else if (outcome === "repaired") this.repaired += times;
    else if (outcome !== "skipped") this.notKept += times;
  }

  snapshot(): readonly [number, number, number] {
    return [this.kept, this.repaired, this.notKept];
  }
}

/** `A: Bundle Accounting Summary ...` for the promises counted since `before`. */
export function bundleAccounting(
  log: Logger,
  name: string,
  ns: string,
  counters: PromiseCounters,
  before: readonly [number, number, number],
): void {
  if (!log.wouldLog("verbose")) return;
  const kept = counters.kept - before[0];
  const repaired = counters.repaired - before[1];
  const notKept = counters.notKept - before[2];
  log.verbose(`A: ${SHORT_DOTS}`);
  log.verbose(`A: Bundle Accounting Summary for '${name}' in namespace ${ns}`);
  if (kept + repaired + notKept <= 0) {
    log.verbose(`A: Zero promises executed for bundle '${name}'`);
    log.verbose(`A: ${SHORT_DOTS}`);
    return;
  }
  log.verbose(`A: Promises kept in '${name}' = ${kept}`);
  log.verbose(`A: Promises not kept in '${name}' = ${notKept}`);
  log.verbose(`A: Promises repaired in '${name}' = ${repaired}`);
  const compliance = ((kept + repaired) / (kept + repaired + notKept)) * 100;
  log.verbose(
    `A: Aggregate compliance (promises kept/repaired) for bundle '${name}' = ${compliance.toFixed(1)}%`,
  );
  log.verbose(`A: ${SHORT_DOTS}`);
}

/** The opening lines of the end of a run, before locks are purged. */
export function waitingForBackground(log: Logger): void {
  log.verbose("Waiting for background processes");
  log.verbose("No more background processes to wait for");
}

/** The closing line of a verbose run: the compliance of the whole run. */
export function endOfRun(log: Logger, counters: PromiseCounters, version: string | undefined): void {
  if (!log.wouldLog("verbose")) return;
  const total = counters.kept + counters.repaired + counters.notKept;
  const shown = version ?? "(not specified)";
  if (total === 0) {
    log.verbose(`Outcome of version '${shown}', no checks were scheduled`);
    return;
  }
  const percent = (n: number) => ((n / total) * 100).toFixed(2);
  log.verbose(
    `Logging total compliance, total 'Outcome of version ${shown} (agent-0): Promises observed to be kept ${percent(counters.kept)}%, Promises repaired ${percent(counters.repaired)}%, Promises not repaired ${percent(counters.notKept)}%'`,
  );
}

/** Types whose handlers print a promise banner in agent bundles (edit bundles print one for all). */
const BANNERED = new Set([
  "commands",
  "databases",
  "files",
  "guest_environments",
  "methods",
  "packages",
  "processes",
  "reports",
  "services",
  "storage",
  "users",
]);

/**
 * What the verbose trail of a run needs to remember: the pass, the stack
 * path of the promise being evaluated, the arguments of the bundle call in
 * force, and the promise counters.
 */
export class RunTrail {
  pass = 0;
  /** The arguments of the last bundle call (cf-agent keeps one, not one per frame). */
  argsText: string | undefined;
  /** Per argument of that call: "s" for a string, "f" for a function call (as 3.21 logs them). */
  argKinds: readonly string[] | undefined;
  readonly counters = new PromiseCounters();
  private readonly bundlePaths: { path: string; caller: string | undefined }[] = [];
  private promisePath: string | undefined;

  constructor(readonly log: Logger) {}

  enterBundle(ns: string, name: string): void {
    this.bundlePaths.push({ path: `${this.promisePath ?? ""}/${ns}/${name}`, caller: this.promisePath });
  }

  leaveBundle(): void {
    this.promisePath = this.bundlePaths.pop()?.caller;
  }

  /** Sets the promise being evaluated; returns the stack path of its iteration. */
  enterPromise(type: string, promiser: string, iteration: number): string {
    this.promisePath = `${this.bundlePaths.at(-1)?.path ?? ""}/${type}/'${promiser}'`;
    return `${this.promisePath}[${iteration}]`;
  }

  leavePromise(): void {
    this.promisePath = undefined;
  }

  /** Whether a promise of this type gets a banner before it acts. */
  static bannered(type: string, editing: boolean): boolean {
    return editing || BANNERED.has(type);
  }

  /**
   * Counts an outcome for the accounting (a `meta` promise is evaluated
   * twice by 3.21; a `defaults` promise counts only when it sets a value,
   * which its type reports itself).
   */
  count(type: string, outcome: Outcome): void {
    if (UNACCOUNTED_TYPES.has(type) || type === "defaults" || outcome === "skipped") return;
    this.counters.note(outcome, type === "meta" ? 2 : 1);
  }
}
