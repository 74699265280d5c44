/**
 * The promise module protocol (version 1) as cf-agent 3.21 speaks it, as
 * pure functions: no I/O here. Every message in either direction ends with
 * an empty line.
 *
 * - The agent opens with `cf-agent 3.21.0 v1`; the module answers
 *   `NAME VERSION v1 FLAGS...` (flags: `json_based` or `line_based`, and
 *   `action_policy`).
 * - A JSON module gets one compact JSON object per request (keys sorted, as
 *   cf-agent writes them) and answers with one JSON object on one line.
 * - A line-based module gets `key=value` lines (`attribute_NAME=value` for
 *   attributes) and answers the same way (`result_classes` comma-separated).
 * - Either form may send `log_LEVEL=message` lines before its answer; a JSON
 *   answer may also carry a `log` array of `{level, message}`.
 *
 * tend is stricter than cf-agent in what it accepts back: anything it cannot
 * read with certainty is rejected as a whole (the caller restarts the
 * module), so that no reply is ever read as the answer to another request.
 */
/** The cf-agent version tend is compatible with, as modules are told it (eval/sys-vars' `sys.cf_version`). */
export const AGENT_VERSION = "3.21.0";

/**
 * A value an attribute can carry: JSON, where a number may be boxed (an
 * object with `toJSON`, as the CFEngine evaluator keeps `1.0`).
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | { toJSON(): unknown }
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** An array or object to recurse into (a boxed number is neither). */
function isJsonContainer(
  value: JsonValue | undefined,
): value is readonly JsonValue[] | { readonly [key: string]: JsonValue } {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { toJSON?: unknown }).toJSON !== "function"
  );
}

/** The protocol version tend speaks and offers. */
export const PROTOCOL_VERSION = 1;

export type ProtocolForm = "json" | "line";

/** The agent's side of the header exchange. */
export function agentHeader(): string {
  // Modules check this (CFEngine's Python library asserts a 3.x version), so
  // tend introduces itself as the cf-agent it is compatible with.
  return `cf-agent ${AGENT_VERSION} v${PROTOCOL_VERSION}\n\n`;
}

export interface ModuleHeader {
  readonly name: string;
  readonly version: string;
  readonly protocolVersion: number;
  readonly form: ProtocolForm;
  /** The module honours `action_policy => "warn"` (and so dry runs). */
  readonly actionPolicy: boolean;
  /** Things to warn about that do not stop the module from being used. */
  readonly warnings: readonly string[];
}

export type Decoded<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: string };

/** Reads the module's header: its frame is the header line (the empty line ended it). */
export function parseHeader(frame: readonly string[]): Decoded<ModuleHeader> {
  if (frame.length === 0) return { ok: false, error: "an empty line instead of a header" };
  if (frame.length > 1) {
    return { ok: false, error: `no empty line after the header '${frame[0]}' (got '${frame[1]}')` };
  }
  const fields = frame[0].split(" ");
  const [name, version, protocol, ...flags] = fields;
  const match = /^v(\d+)$/.exec(protocol ?? "");
  if (!name || !version || !match) {
    return { ok: false, error: `an invalid header '${frame[0]}' (expected 'NAME VERSION v1 FLAGS...')` };
  }
  const protocolVersion = Number(match[1]);
  if (protocolVersion > PROTOCOL_VERSION) {
    return {
      ok: false,
      error: `protocol version v${protocolVersion} in its header, higher than the v${PROTOCOL_VERSION} offered`,
    };
  }
  if (protocolVersion < 1) return { ok: false, error: `an unknown protocol version v${protocolVersion}` };
  return { ok: true, value: headerFlags(name, version, protocolVersion, flags) };
}

function headerFlags(name: string, version: string, protocolVersion: number, flags: readonly string[]) {
  const forms = flags.filter((f) => f === "json_based" || f === "line_based");
  const warnings: string[] = [];
  if (forms.length > 1) warnings.push("an ambiguous protocol specification (both json_based and line_based)");
  if (forms.length === 0) warnings.push("no protocol specification; using 'line_based' as the default");
  // As in cf-agent, the last form named wins.
  const form: ProtocolForm = forms.at(-1) === "json_based" ? "json" : "line";
  return { name, version, protocolVersion, form, actionPolicy: flags.includes("action_policy"), warnings };
}

/** One request to a module. Attribute order is kept for line-based modules. */
export interface ModuleRequest {
  readonly operation: "validate_promise" | "evaluate_promise" | "terminate";
  readonly log_level?: string;
  readonly promise_type?: string;
  readonly promiser?: string;
  readonly line_number?: number;
  readonly filename?: string;
  readonly attributes?: ReadonlyMap<string, JsonValue>;
}

const REQUEST_FIELDS = [
  "operation",
  "log_level",
  "promise_type",
  "promiser",
  "line_number",
  "filename",
] as const;

/**
 * The request as the module reads it, with its closing empty line. Values
 * of a line-based request must be strings without newlines: the caller
 * checks that first (see `lineBasedProblem`).
 */
export function encodeRequest(request: ModuleRequest, form: ProtocolForm): string {
  if (form === "json") return `${encodeJson(request)}\n\n`;
  const lines: string[] = [];
  for (const field of REQUEST_FIELDS) {
    const value = request[field];
    if (value !== undefined) lines.push(`${field}=${value}`);
  }
  for (const [name, value] of request.attributes ?? []) lines.push(`attribute_${name}=${String(value)}`);
  return `${lines.join("\n")}\n\n`;
}

/** The fields of a JSON request in cf-agent's (sorted) order; `attributes` sorts first. */
const SORTED_FIELDS = [...REQUEST_FIELDS].sort();

/**
 * Compact JSON with every object's keys sorted, as cf-agent writes it.
 * Written out directly: this runs twice per promise.
 */
function encodeJson(request: ModuleRequest): string {
  let out = "{";
  let empty = true;
  if (request.attributes && request.attributes.size > 0) {
    out += encodedAttributes(request.attributes);
    empty = false;
  }
  for (const field of SORTED_FIELDS) {
    const value = request[field];
    if (value === undefined) continue;
    out += `${empty ? "" : ","}"${field}":${typeof value === "number" && Number.isFinite(value) ? String(value) : JSON.stringify(value)}`;
    empty = false;
  }
  return `${out}}`;
}

/** Attributes encoded already: a promise's validate and evaluate requests carry the same. */
const encoded = new WeakMap<ReadonlyMap<string, JsonValue>, string>();

function encodedAttributes(attributes: ReadonlyMap<string, JsonValue>): string {
  let text = encoded.get(attributes);
  if (text === undefined) {
    const names = [...attributes.keys()].sort();
    const members = names.map((n) => `${JSON.stringify(n)}:${encodeValue(attributes.get(n)!)}`);
    text = `"attributes":{${members.join(",")}}`;
    encoded.set(attributes, text);
  }
  return text;
}

function encodeValue(value: JsonValue): string {
  if (!isJsonContainer(value) || Array.isArray(value)) {
    return Array.isArray(value) && value.some((v) => isJsonContainer(v))
      ? JSON.stringify(sortKeys(value))
      : JSON.stringify(value);
  }
  return JSON.stringify(sortKeys(value));
}

/** cf-agent writes JSON objects with their keys in order. */
function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isJsonContainer(value)) return value;
  const object = value as { readonly [key: string]: JsonValue };
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(object).sort()) out[key] = sortKeys(object[key] as JsonValue);
  return out;
}

/** Why a value cannot go to a line-based module; undefined when it can. */
export function lineBasedProblem(value: JsonValue): string | undefined {
  if (typeof value !== "string") return "it is a list or data container, which only JSON modules take";
  if (value.includes("\n")) return "its value contains a newline, which the line-based protocol cannot carry";
  return undefined;
}

/** A log message as the module sent it; `level` is not yet checked. */
export interface ModuleLogMessage {
  readonly level: string;
  readonly message: string;
  /**
   * A line the agent could not read, which 3.21 reports as an error and
   * skips: `message` is the line (a `log_` line without `=`, or in the
   * line-based protocol a line that is not `key=value`).
   */
  readonly invalid?: "log line" | "line";
}

export interface ModuleReply {
  readonly result?: string;
  readonly resultClasses: readonly string[];
  readonly log: readonly ModuleLogMessage[];
  /** The `operation` and `promiser` the module echoed, if it did. */
  readonly operation?: string;
  readonly promiser?: string;
}

/** Log lines of a frame, for showing what a module said before it failed. */
export function logLines(frame: readonly string[]): ModuleLogMessage[] {
  return frame.flatMap((line) => {
    const log = parseLogLine(line);
    return log ? [log] : [];
  });
}

function parseLogLine(line: string): ModuleLogMessage | undefined {
  if (!line.startsWith("log_")) return undefined;
  const equal = line.indexOf("=");
  if (equal < 0) return undefined;
  return { level: line.slice(4, equal), message: line.slice(equal + 1) };
}

/** Reads a reply frame (its lines, without the closing empty line). */
export function decodeReply(frame: readonly string[], form: ProtocolForm): Decoded<ModuleReply> {
  const log: ModuleLogMessage[] = [];
  const body: string[] = [];
  for (const line of frame) {
    if (line.startsWith("log_"))
      log.push(parseLogLine(line) ?? { level: "", message: line, invalid: "log line" });
    else if (form === "line" && !line.includes("=")) log.push({ level: "", message: line, invalid: "line" });
    else body.push(line);
  }
  return form === "json" ? decodeJsonReply(body, log) : decodeLineReply(body, log);
}

function decodeJsonReply(body: readonly string[], log: ModuleLogMessage[]): Decoded<ModuleReply> {
  if (body.length === 0) return { ok: false, error: "an incomplete reply (no JSON object)" };
  if (body.length > 1) {
    return {
      ok: false,
      error: `JSON over ${body.length} lines (a reply must be one line): '${clip(body[0])}'`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body[0]);
  } catch {
    return { ok: false, error: `invalid JSON '${clip(body[0])}'` };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { ok: false, error: `JSON that is not an object: '${clip(body[0])}'` };
  }
  const object = parsed as Record<string, unknown>;
  const inner = object.log;
  if (inner !== undefined && !Array.isArray(inner))
    return { ok: false, error: "a 'log' that is not an array" };
  for (const entry of (inner ?? []) as unknown[]) {
    const { level, message } = (entry ?? {}) as Record<string, unknown>;
    if (typeof level !== "string" || typeof message !== "string") {
      return { ok: false, error: "a 'log' entry without a string level and message" };
    }
    log.push({ level, message });
  }
  const classes = object.result_classes;
  return {
    ok: true,
    value: {
      result: stringOrUndefined(object.result),
      resultClasses: Array.isArray(classes) ? classes.filter((c): c is string => typeof c === "string") : [],
      log,
      operation: stringOrUndefined(object.operation),
      promiser: stringOrUndefined(object.promiser),
    },
  };
}

function decodeLineReply(body: readonly string[], log: ModuleLogMessage[]): Decoded<ModuleReply> {
  const fields = new Map<string, string>();
  for (const line of body) {
    const equal = line.indexOf("=");
    if (equal < 0) log.push({ level: "", message: line, invalid: "line" });
    else fields.set(line.slice(0, equal), line.slice(equal + 1));
  }
  const classes = fields.get("result_classes");
  return {
    ok: true,
    value: {
      result: fields.get("result"),
      resultClasses: classes === undefined ? [] : classes.split(","),
      log,
      operation: fields.get("operation"),
      promiser: fields.get("promiser"),
    },
  };
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Long or binary junk shortened for a message. */
export function clip(text: string, max = 120): string {
  const printable = text.replace(/[\u0000-\u001f\u007f]/g, "?");
  return printable.length > max ? `${printable.slice(0, max)}... (${text.length} characters)` : printable;
}

/** Module log levels, cf-agent's order (most severe first). */
export type ModuleLogLevel = "critical" | "error" | "warning" | "notice" | "info" | "verbose" | "debug";

const LEVEL_WORDS: readonly [string, ModuleLogLevel][] = [
  ["critical", "critical"],
  ["errors", "error"],
  ["warnings", "warning"],
  ["notices", "notice"],
  ["information", "info"],
  ["verbose", "verbose"],
  ["debug", "debug"],
];

/**
 * A module's log level word, read as cf-agent reads it: any non-empty,
 * case-insensitive prefix of `critical`, `errors`, `warnings`, `notices`,
 * `information`, `verbose` or `debug`. Undefined for anything else (where
 * cf-agent 3.21 aborts).
 */
export function parseModuleLogLevel(word: string): ModuleLogLevel | undefined {
  if (word.length === 0) return undefined;
  const lower = word.toLowerCase();
  return LEVEL_WORDS.find(([full]) => full.startsWith(lower))?.[1];
}
