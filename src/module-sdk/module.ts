/**
 * Runs a custom promise type as a promise module: speaks the agent's
 * protocol (JSON-based, with action_policy) on standard input and output,
 * checks attributes as declared, and calls the module's `validate` and
 * `evaluate` for each promise. An exception never ends the module: it is
 * logged and the promise's result is `error`.
 */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import {
  type AttributeSpecs,
  type AttributeValues,
  type Json,
  ValidationError,
  checkAttributes,
} from "./attributes.js";

export type ModuleLogLevel = "critical" | "error" | "warning" | "notice" | "info" | "verbose" | "debug";

const RANK: Readonly<Record<ModuleLogLevel, number>> = {
  critical: 0,
  error: 1,
  warning: 2,
  notice: 3,
  info: 4,
  verbose: 5,
  debug: 6,
};

/** Log messages for the agent, shown at their level as part of the promise's output. */
export interface ModuleLog {
  critical(message: string): void;
  error(message: string): void;
  warning(message: string): void;
  notice(message: string): void;
  /** Every change a module makes must be told at this level (the agent audits it). */
  info(message: string): void;
  verbose(message: string): void;
  debug(message: string): void;
}

/** One promise, as `validate` and `evaluate` see it. */
export interface PromiseRequest<A> {
  readonly promiser: string;
  /** The attributes, checked and converted as declared (defaults filled in). */
  readonly attributes: A;
  /** The attributes as the agent sent them. */
  readonly raw: Readonly<Record<string, Json>>;
  readonly promiseType: string;
  readonly filename?: string;
  readonly lineNumber?: number;
  /**
   * Changes are not allowed (a dry run, or `action_policy => "warn"`):
   * log a warning about what would change and return `not_kept`.
   */
  readonly warnOnly: boolean;
  readonly log: ModuleLog;
}

export type Outcome = "kept" | "repaired" | "not_kept";

/** What `evaluate` returns: the outcome, and classes to define in the promise's bundle. */
export type Evaluation = Outcome | { readonly result: Outcome; readonly classes?: readonly string[] };

export interface PromiseModuleDefinition<S extends AttributeSpecs> {
  /** The module's name and version, for the protocol header (no spaces). */
  readonly name: string;
  readonly version: string;
  /** The attributes the promise type takes (see `string()`, `int()`, `boolean()`...). */
  readonly attributes: S;
  /** Checks beyond the attributes' own; throw a ValidationError to refuse the promise. */
  validate?(promise: PromiseRequest<AttributeValues<S>>): void | Promise<void>;
  /** Inspects the system and, unless `warnOnly`, repairs it. */
  evaluate(promise: PromiseRequest<AttributeValues<S>>): Evaluation | Promise<Evaluation>;
  /** Called once at the end of the agent's run. */
  terminate?(): void | Promise<void>;
}

export interface ModuleStreams {
  readonly input: Readable;
  readonly output: Writable;
}

interface LogEntry {
  level: ModuleLogLevel;
  message: string;
}

type Reply = Record<string, Json>;

/** Collects the messages of one request, as the agent's requested level lets through. */
function makeLog(requested: ModuleLogLevel, entries: LogEntry[]): ModuleLog {
  // Messages at info and above always go: the agent counts them (errors
  // for failures, info for changes) even when it does not show them.
  const limit = Math.max(RANK.info, RANK[requested]);
  const add = (level: ModuleLogLevel) => (message: string) => {
    if (RANK[level] <= limit) entries.push({ level, message: String(message) });
  };
  return {
    critical: add("critical"),
    error: add("error"),
    warning: add("warning"),
    notice: add("notice"),
    info: add("info"),
    verbose: add("verbose"),
    debug: add("debug"),
  };
}

function requestedLevel(value: Json | undefined): ModuleLogLevel {
  return typeof value === "string" && Object.hasOwn(RANK, value) ? (value as ModuleLogLevel) : "info";
}

function asAttributes(value: Json | undefined): Record<string, Json> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
}

/** Runs the module until the agent says `terminate` or closes its input. */
export async function runPromiseModule<S extends AttributeSpecs>(
  definition: PromiseModuleDefinition<S>,
  streams: ModuleStreams = { input: process.stdin, output: process.stdout },
): Promise<void> {
  const lines = createInterface({ input: streams.input, crlfDelay: Number.POSITIVE_INFINITY });
  const iterator = lines[Symbol.asyncIterator]();
  const readFrame = async (): Promise<string[] | undefined> => {
    const frame: string[] = [];
    for (;;) {
      const next = await iterator.next();
      if (next.done) return frame.length > 0 ? frame : undefined;
      if (next.value === "") {
        if (frame.length > 0) return frame;
        continue;
      }
      frame.push(next.value);
    }
  };
  const write = (text: string) => streams.output.write(text);
  try {
    if ((await readFrame()) === undefined) return;
    write(`${definition.name} ${definition.version} v1 json_based action_policy\n\n`);
    for (let frame = await readFrame(); frame; frame = await readFrame()) {
      const reply = await handleRequest(definition, frame[0]);
      write(`${JSON.stringify(reply)}\n\n`);
      if (reply.operation === "terminate") return;
    }
  } finally {
    lines.close();
    streams.input.pause();
  }
}

async function handleRequest<S extends AttributeSpecs>(
  definition: PromiseModuleDefinition<S>,
  line: string,
): Promise<Reply> {
  let request: Record<string, Json>;
  try {
    request = asAttributes(JSON.parse(line) as Json);
  } catch {
    return {
      result: "error",
      log: [{ level: "critical", message: `${definition.name}: a request that is not JSON` }],
    };
  }
  const operation = request.operation;
  const entries: LogEntry[] = [];
  const log = makeLog(requestedLevel(request.log_level), entries);
  let reply: Reply;
  try {
    reply = await perform(definition, request, log);
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.critical(`${definition.name}: ${message} (a bug in the promise module)`);
    reply = { result: "error" };
  }
  if (typeof operation === "string") reply.operation = operation;
  if (entries.length > 0) reply.log = entries.map((e) => ({ level: e.level, message: e.message }));
  return reply;
}

async function perform<S extends AttributeSpecs>(
  definition: PromiseModuleDefinition<S>,
  request: Record<string, Json>,
  log: ModuleLog,
): Promise<Reply> {
  switch (request.operation) {
    case "validate_promise":
      return validate(definition, request, log);
    case "evaluate_promise":
      return evaluate(definition, request, log);
    case "terminate":
      await definition.terminate?.();
      return { result: "success" };
    default:
      log.error(`${definition.name}: unknown operation '${String(request.operation)}'`);
      return { result: "error" };
  }
}

function promiseRequest<S extends AttributeSpecs>(
  definition: PromiseModuleDefinition<S>,
  request: Record<string, Json>,
  log: ModuleLog,
): PromiseRequest<AttributeValues<S>> {
  const raw = asAttributes(request.attributes);
  const policy = raw.action_policy;
  return {
    promiser: String(request.promiser ?? ""),
    attributes: checkAttributes(definition.attributes, raw),
    raw,
    promiseType: String(request.promise_type ?? ""),
    filename: typeof request.filename === "string" ? request.filename : undefined,
    lineNumber: typeof request.line_number === "number" ? request.line_number : undefined,
    warnOnly: policy === "warn" || policy === "nop",
    log,
  };
}

/** Where the promise is, for messages: `type promise 'x' (file:line)`. */
function describePromise(request: Record<string, Json>): string {
  const place =
    typeof request.filename === "string"
      ? ` (${request.filename}:${String(request.line_number ?? "?")})`
      : "";
  return `${String(request.promise_type ?? "custom")} promise with promiser '${String(request.promiser)}'${place}`;
}

async function validate<S extends AttributeSpecs>(
  definition: PromiseModuleDefinition<S>,
  request: Record<string, Json>,
  log: ModuleLog,
): Promise<Reply> {
  try {
    const promise = promiseRequest(definition, request, log);
    await definition.validate?.(promise);
    return { result: "valid" };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    log.error(`${error.message} for ${describePromise(request)}`);
    return { result: "invalid" };
  }
}

async function evaluate<S extends AttributeSpecs>(
  definition: PromiseModuleDefinition<S>,
  request: Record<string, Json>,
  log: ModuleLog,
): Promise<Reply> {
  const counts = { info: 0, warning: 0, error: 0 };
  const counted = (key: keyof typeof counts, write: (message: string) => void) => (message: string) => {
    counts[key]++;
    write(message);
  };
  const counting: ModuleLog = {
    ...log,
    critical: counted("error", log.critical),
    error: counted("error", log.error),
    warning: counted("warning", log.warning),
    info: counted("info", log.info),
  };
  const promise = promiseRequest(definition, request, counting);
  const evaluation = await definition.evaluate(promise);
  const { result, classes } =
    typeof evaluation === "string" ? { result: evaluation, classes: [] } : evaluation;
  // The agent expects a message for every change and every failure; a
  // module that forgot one still gives the agent something to show.
  if (result === "repaired" && counts.info === 0) log.info(`Repaired ${describePromise(request)}`);
  if (result === "not_kept" && counts.error === 0 && (!promise.warnOnly || counts.warning === 0)) {
    (promise.warnOnly ? log.warning : log.error)(`Not kept: ${describePromise(request)}`);
  }
  const reply: Reply = { result };
  if (classes && classes.length > 0) reply.result_classes = [...classes];
  return reply;
}
