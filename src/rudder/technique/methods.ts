/**
 * The ncf method library: what rudderc knows of each generic method, read
 * from the `# @name`, `# @parameter`, `# @class_prefix`... annotations at the
 * head of ncf's `30_generic_methods/*.cf` files (the format rudder-commons
 * 8.3 parses) and from the signature of the file's first `bundle agent`.
 * Only the annotations are read; the policy itself is not parsed here.
 */

/** How a value is escaped on Windows; kept because annotations carry it. */
export type ParameterEscaping = "string" | "here-string" | "raw";

export type ParameterFormat = "json" | "yaml";

/** Constraints on a method parameter's value, with rudder-commons' defaults. */
export interface MethodConstraints {
  allowEmpty: boolean;
  allowWhitespace: boolean;
  select?: string[];
  regex?: string;
  notRegex?: string;
  maxLength: number;
  minLength: number;
  validFormat?: ParameterFormat;
}

export interface MethodParameter {
  readonly name: string;
  description: string;
  readonly constraints: MethodConstraints;
  escaping: ParameterEscaping;
}

export type MethodAgent = "cfengine-community" | "dsc";

export interface MethodInfo {
  /** Human name (`@name`), used in "Skipping method" messages. */
  readonly name: string;
  /** The ncf bundle, which is also the name techniques call the method by. */
  readonly bundleName: string;
  readonly bundleArgs: readonly string[];
  readonly description: string;
  readonly documentation?: string;
  readonly agentSupport: readonly MethodAgent[];
  readonly classPrefix: string;
  readonly classParameter: string;
  /** 1-based position of the class parameter among the bundle's arguments. */
  readonly classParameterId: number;
  readonly parameters: readonly MethodParameter[];
  readonly deprecated?: string;
  readonly rename?: string;
  readonly action?: string;
  /** The file the method was read from, when read from a file. */
  readonly source?: string;
}

/** Methods by bundle name. */
export type MethodLibrary = ReadonlyMap<string, MethodInfo>;

export const DEFAULT_MAX_PARAM_LENGTH = 16384;

export function defaultConstraints(): MethodConstraints {
  return { allowEmpty: false, allowWhitespace: false, maxLength: DEFAULT_MAX_PARAM_LENGTH, minLength: 0 };
}

export type MethodParseResult = { ok: true; method: MethodInfo } | { ok: false; reason: string };

interface Draft {
  name: string;
  description: string;
  documentation?: string;
  classPrefix: string;
  classParameter: string;
  deprecated?: string;
  rename?: string;
  action?: string;
  agentSupport: MethodAgent[];
  parameters: MethodParameter[];
}

type Multiline = "description" | "documentation" | "deprecated";

const PARAMETER_TAG = /^\s*#\s*@(parameter\w*)\s+([A-Za-z0-9_]+)(?:\s+(.*?))?\s*$/;
const TAG = /^\s*#\s*@(\w+)\s*(.*?)\s*$/;
const CONTINUATION = /^\s*# ?(.*)$/;
const BUNDLE_LINE = /^[^#]*bundle\s+agent/;
const SIGNATURE = /^[^#{]*bundle\s+agent\s+(\w+)\s*(?:\(([^)]*)\))?/m;

/** Reads one method file's annotations; a file that is not a method is a reason, not an exception. */
export function parseMethodFile(text: string, source?: string): MethodParseResult {
  const draft: Draft = {
    name: "",
    description: "",
    classPrefix: "",
    classParameter: "",
    agentSupport: [],
    parameters: [],
  };
  let multiline: Multiline | undefined;
  for (const line of text.split("\n")) {
    const parameterTag = PARAMETER_TAG.exec(line);
    if (parameterTag) {
      multiline = undefined;
      const problem = readParameterTag(
        draft,
        parameterTag[1] as string,
        parameterTag[2] as string,
        parameterTag[3] ?? "",
      );
      if (problem) return { ok: false, reason: problem };
      continue;
    }
    const tag = TAG.exec(line);
    if (tag) {
      multiline = readTag(draft, tag[1] as string, tag[2] as string);
      continue;
    }
    if (multiline) {
      const more = CONTINUATION.exec(line);
      if (more) appendLine(draft, multiline, more[1] as string);
      else multiline = undefined;
      continue;
    }
    if (BUNDLE_LINE.test(line)) break;
  }
  return finish(draft, text, source);
}

function readParameterTag(draft: Draft, tag: string, name: string, rest: string): string | undefined {
  if (tag === "parameter_rename") return undefined;
  let parameter = draft.parameters.find((p) => p.name === name);
  if (!parameter) {
    parameter = { name, description: "", constraints: defaultConstraints(), escaping: "string" };
    draft.parameters.push(parameter);
  }
  if (tag === "parameter") parameter.description = rest;
  else if (tag === "parameter_constraint") return applyConstraint(parameter.constraints, rest);
  else if (tag === "parameter_type") {
    const escaping = parseEscaping(rest);
    if (!escaping) return `unrecognized parameter type '${rest}' for ${name}`;
    parameter.escaping = escaping;
  }
  return undefined;
}

function parseEscaping(text: string): ParameterEscaping | undefined {
  const lower = text.toLowerCase();
  if (lower === "string") return "string";
  if (lower === "herestring" || lower === "here-string") return "here-string";
  if (lower === "raw" || lower === "none") return "raw";
  return undefined;
}

/** A constraint is written as the inside of a JSON object: `"allow_empty_string": true`. */
function applyConstraint(constraints: MethodConstraints, text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(`{ ${text.replaceAll("\\", "\\\\")} }`);
  } catch {
    return `invalid parameter constraint: ${text}`;
  }
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const problem = applyOneConstraint(constraints, key, value);
    if (problem) return problem;
  }
  return undefined;
}

function applyOneConstraint(c: MethodConstraints, key: string, value: unknown): string | undefined {
  if (key === "allow_empty_string" && typeof value === "boolean") c.allowEmpty = value;
  else if (key === "allow_whitespace_string" && typeof value === "boolean") c.allowWhitespace = value;
  else if (key === "select" && Array.isArray(value)) c.select = value.map(String);
  else if ((key === "regex" || key === "not_regex") && typeof value === "string") {
    if (!compileRustRegex(value)) return `invalid regex in constraint: ${value}`;
    if (key === "regex") c.regex = value;
    else c.notRegex = value;
  } else if (key === "max_length" && typeof value === "number") c.maxLength = value;
  else if (key === "min_length" && typeof value === "number") c.minLength = value;
  else if (key === "valid_format" && (value === "json" || value === "yaml")) c.validFormat = value;
  else return `unknown parameter constraint ${JSON.stringify(key)}`;
  return undefined;
}

/**
 * Compiles a regex written for Rust's fancy-regex as a JavaScript RegExp:
 * leading inline flags (`(?i)`) become RegExp flags; undefined when the
 * pattern is not valid.
 */
export function compileRustRegex(pattern: string): RegExp | undefined {
  let flags = "u";
  let body = pattern;
  const inline = /^\(\?([imsx]+)\)/.exec(body);
  if (inline) {
    for (const f of inline[1] as string) if ("ims".includes(f) && !flags.includes(f)) flags += f;
    body = body.slice(inline[0].length);
  }
  try {
    return new RegExp(body, flags);
  } catch {
    try {
      return new RegExp(body, flags.replace("u", ""));
    } catch {
      return undefined;
    }
  }
}

function readTag(draft: Draft, tag: string, rest: string): Multiline | undefined {
  switch (tag) {
    case "name":
      draft.name = rest;
      return undefined;
    case "description":
      draft.description = rest;
      return "description";
    case "documentation":
      draft.documentation = rest;
      return "documentation";
    case "deprecated":
      draft.deprecated = rest;
      return "deprecated";
    case "class_prefix":
      draft.classPrefix = rest;
      return undefined;
    case "class_parameter":
      draft.classParameter = rest;
      return undefined;
    case "rename":
      draft.rename = rest;
      return undefined;
    case "action":
      draft.action = rest;
      return undefined;
    case "agent_support":
      if (rest.includes('"cfengine-community"')) draft.agentSupport.push("cfengine-community");
      if (rest.includes('"dsc"')) draft.agentSupport.push("dsc");
      return undefined;
    default:
      return undefined;
  }
}

function appendLine(draft: Draft, field: Multiline, line: string): void {
  if (field === "description") draft.description += `\n${line}`;
  else if (field === "documentation" && draft.documentation !== undefined) draft.documentation += `\n${line}`;
  else if (field === "deprecated" && draft.deprecated !== undefined) draft.deprecated += `\n${line}`;
}

function finish(draft: Draft, text: string, source: string | undefined): MethodParseResult {
  const signature = SIGNATURE.exec(text);
  const bundleName = signature?.[1] ?? "";
  const args = signature?.[2];
  const bundleArgs = args === undefined ? [] : args.split(",").map((a) => a.trim());
  const name = draft.name.trim();
  const description = draft.description.trim();
  if (name === "") return { ok: false, reason: "Empty method name" };
  if (description === "") return { ok: false, reason: "Empty method description" };
  const position = bundleArgs.indexOf(draft.classParameter);
  if (position < 0) return { ok: false, reason: "Unknown class parameter" };
  const method: MethodInfo = {
    name,
    bundleName,
    bundleArgs,
    description,
    ...(draft.documentation !== undefined ? { documentation: draft.documentation.trim() } : {}),
    agentSupport: draft.agentSupport.length > 0 ? draft.agentSupport : ["cfengine-community"],
    classPrefix: draft.classPrefix,
    classParameter: draft.classParameter,
    classParameterId: position + 1,
    parameters: draft.parameters,
    ...(draft.deprecated !== undefined ? { deprecated: draft.deprecated.trim() } : {}),
    ...(draft.rename !== undefined ? { rename: draft.rename } : {}),
    ...(draft.action !== undefined ? { action: draft.action } : {}),
    ...(source !== undefined ? { source } : {}),
  };
  return { ok: true, method };
}
