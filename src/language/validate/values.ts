/**
 * Value checks for attributes: scalar versus list, numbers and their
 * ranges, option words, regular-expression ranges, and the return type of a
 * function written directly as the value. Values holding variables are left
 * alone where 3.21 leaves them alone, since they are only known at run time.
 */
import type { Rval, Span } from "../ast.js";
import type { DiagnosticCode } from "../diagnostics.js";
import { getFunction, listFunctions } from "../syntax/index.js";
import type { AttributeSyntax, DataType } from "../syntax/types.js";
import { hasVariable, isNakedVariable, listChoices } from "./context.js";
import { parseBounds, parseInteger, parseReal } from "./numbers.js";
import { formatSuggestion } from "./suggest.js";

/** One problem with a value. */
export interface ValueIssue {
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly span: Span;
}

const LIST_TYPES: ReadonlySet<DataType> = new Set(["slist", "ilist", "rlist", "olist", "clist"]);

/** Attributes whose function-like values name bundles, not functions. */
const BUNDLE_CALL_ATTRIBUTES: ReadonlySet<string> = new Set([
  "bundlesequence",
  "edit_line",
  "edit_xml",
  "usebundle",
  "service_bundle",
  "home_bundle",
]);

/** Whether a value is written as a single scalar (string, bare word or variable). */
export function isScalar(value: Rval): boolean {
  return value.kind === "string" || value.kind === "symbol" || value.kind === "nakedvar";
}

/** The text of a scalar value. */
export function getScalarText(value: Rval): string {
  if (value.kind === "string") return value.value;
  if (value.kind === "symbol") return value.name;
  if (value.kind === "nakedvar") return value.text;
  return "";
}

export function isListType(type: DataType): boolean {
  return LIST_TYPES.has(type);
}

/**
 * Whether the value has the right shape for the attribute: lists only where
 * lists are allowed, and a single name where a body or bundle is expected.
 * Function calls always pass, since their result is known at run time.
 */
export function checkValueShape(attribute: AttributeSyntax, value: Rval): ValueIssue | null {
  if (value.kind !== "list" || isListType(attribute.type)) return null;
  const what =
    attribute.type === "body" || attribute.type === "bundle"
      ? `a ${attribute.type} name`
      : `a single ${describeType(attribute.type)}`;
  return issue("type-mismatch", `${labelOf(attribute)} takes ${what}, not a list`, value.span);
}

/**
 * Checks a value against the attribute's type and allowed range, the way
 * 3.21 does while parsing. Returns the first problem found.
 */
export function checkValue(attribute: AttributeSyntax, value: Rval): ValueIssue | null {
  if (attribute.type === "body" || attribute.type === "bundle") return null;
  return checkValueAt(attribute, value, true);
}

function checkValueAt(attribute: AttributeSyntax, value: Rval, topLevel: boolean): ValueIssue | null {
  const { name, type } = attribute;
  if (value.kind === "list") {
    if (!isListType(type)) return checkValueShape(attribute, value);
    for (const item of value.items) {
      const found = checkValueAt(attribute, item, false);
      if (found) return found;
    }
    return null;
  }
  if (value.kind === "call") {
    return BUNDLE_CALL_ATTRIBUTES.has(name)
      ? null
      : checkFunctionResult(value.name, type, name, value.nameSpan);
  }
  if (topLevel && isListType(type)) {
    return issue(
      "type-mismatch",
      `attribute '${name}' takes a list; write the value inside { }, e.g. { ${quoteValue(value)} }`,
      value.span,
    );
  }
  if (type === "data") return null;
  return checkScalar(attribute, getScalarText(value), value.span);
}

function quoteValue(value: Rval): string {
  return value.kind === "string" ? `"${value.value}"` : getScalarText(value);
}

/** What a value is checked against: an attribute, or a function parameter with its own label. */
export interface ValueSlot extends AttributeSyntax {
  /** How messages name the slot; `attribute 'NAME'` when absent. */
  readonly label?: string;
}

function labelOf(slot: ValueSlot): string {
  return slot.label ?? `attribute '${slot.name}'`;
}

/** Checks a literal scalar against the attribute's type and range. */
export function checkScalar(attribute: ValueSlot, text: string, span: Span): ValueIssue | null {
  switch (attribute.type) {
    case "string":
    case "slist":
      return checkString(attribute, text, span);
    case "int":
    case "ilist":
      return checkInteger(attribute, text, span);
    case "real":
    case "rlist":
      return checkReal(attribute, text, span);
    case "option":
    case "olist":
      return checkOption(attribute, text, span);
    case "context":
    case "clist":
      return checkContext(attribute, text, span);
    case "irange":
    case "rrange":
      return checkRange(attribute, text, span);
    default:
      return null;
  }
}

function checkString(attribute: ValueSlot, text: string, span: Span): ValueIssue | null {
  const range = attribute.range ?? "";
  if (range === "" || isNakedVariable(text)) return null;
  if (range === text || matchesFully(range, text) || hasVariable(text)) return null;

  if (text === "")
    return issue(
      "out-of-range",
      `${labelOf(attribute)} cannot be empty; expected a value matching /${range}/`,
      span,
    );
  if (range === '"?(/.*)')
    return issue("out-of-range", `${labelOf(attribute)} needs an absolute path, got "${text}"`, span);
  return issue(
    "out-of-range",
    `value "${text}" of ${labelOf(attribute)} does not match the allowed pattern /${range}/`,
    span,
  );
}

function checkInteger(attribute: ValueSlot, text: string, span: Span): ValueIssue | null {
  if (hasVariable(text)) return null;
  const value = parseInteger(text);

  if (value === null)
    return issue("type-mismatch", `${labelOf(attribute)} takes an integer, got "${text}"`, span);
  return checkBounds(attribute, value, text, span);
}

function checkReal(attribute: ValueSlot, text: string, span: Span): ValueIssue | null {
  if (text === "inf")
    return issue(
      "type-mismatch",
      `${labelOf(attribute)} takes a real number; 'inf' is only accepted for integers`,
      span,
    );
  if (hasVariable(text)) return null;
  const value = parseReal(text);
  if (value === null)
    return issue("type-mismatch", `${labelOf(attribute)} takes a real number, got "${text}"`, span);
  return checkBounds(attribute, value, text, span);
}

function checkBounds(attribute: ValueSlot, value: number, text: string, span: Span): ValueIssue | null {
  const bounds = parseBounds(attribute.range);
  if (!bounds || (value >= bounds.min && value <= bounds.max)) return null;
  return issue(
    "out-of-range",
    `value ${text} of ${labelOf(attribute)} is outside the allowed range ${bounds.min} to ${bounds.max}`,
    span,
  );
}

function checkOption(attribute: ValueSlot, text: string, span: Span): ValueIssue | null {
  if (isNakedVariable(text)) return null;
  const options = getOptions(attribute);
  if (options.length === 0 || options.includes(text)) return null;
  const hint = formatSuggestion(text, options);
  return issue(
    "invalid-option",
    `"${text}" is not a valid value for ${labelOf(attribute)}; expected one of: ${listChoices(options)}.${hint}`,
    span,
  );
}

function checkContext(attribute: ValueSlot, text: string, span: Span): ValueIssue | null {
  const range = attribute.range ?? "";
  if (range === "" || range === text || matchesFully(range, text)) return null;
  return issue(
    "invalid-class-expression",
    `"${text}" is not a valid class expression for ${labelOf(attribute)}`,
    span,
  );
}

function checkRange(attribute: ValueSlot, text: string, span: Span): ValueIssue | null {
  const { type } = attribute;
  if (text.startsWith("[") || text.startsWith("(")) {
    return issue(
      "type-mismatch",
      `${labelOf(attribute)} takes a range written as 'min,max' without brackets, got "${text}"`,
      span,
    );
  }
  if (type === "rrange" && text === "inf")
    return issue(
      "type-mismatch",
      `${labelOf(attribute)} takes a real range; 'inf' is only accepted for integers`,
      span,
    );
  if (hasVariable(text)) return null;
  const parts = text.split(",");
  if (parts.length !== 2)
    return issue(
      "type-mismatch",
      `${labelOf(attribute)} takes a range written as 'min,max', got "${text}"`,
      span,
    );
  const bounds = parseBounds(attribute.range);
  for (const part of parts) {
    const value = type === "irange" ? (parseInteger(part) ?? -678) : parseReal(part);
    if (value === null)
      return issue(
        "type-mismatch",
        `${labelOf(attribute)} takes a range of real numbers, got "${text}"`,
        span,
      );
    if (bounds && (value < bounds.min || value > bounds.max)) {
      return issue(
        "out-of-range",
        `range "${text}" of ${labelOf(attribute)} goes outside ${bounds.min} to ${bounds.max}`,
        span,
      );
    }
  }
  return null;
}

/** The allowed words of an option attribute. */
export function getOptions(attribute: ValueSlot): readonly string[] {
  if (attribute.options && attribute.options.length > 0) return attribute.options;
  return attribute.range ? attribute.range.split(",") : [];
}

/**
 * Checks that a function written as a value exists and returns something
 * the attribute accepts.
 */
export function checkFunctionResult(
  functionName: string,
  expected: DataType,
  attributeName: string,
  span: Span,
): ValueIssue | null {
  const fn = getFunction(functionName);
  if (!fn) return unknownFunction(functionName, span);
  if (isReturnTypeAccepted(fn.returnType, expected)) return null;
  return issue(
    "type-mismatch",
    `function ${functionName}() returns ${describeType(fn.returnType)}, but attribute '${attributeName}' takes ${describeType(expected)}`,
    span,
  );
}

/** The diagnostic for a call of a function that does not exist. */
export function unknownFunction(functionName: string, span: Span): ValueIssue {
  if (hasVariable(functionName)) {
    return issue(
      "unknown-function",
      `function names cannot be variables here: '${functionName}' is not a known function`,
      span,
    );
  }
  return issue(
    "unknown-function",
    `unknown function '${functionName}'.${suggestFunction(functionName)}`,
    span,
  );
}

function suggestFunction(name: string): string {
  return formatSuggestion(name, listFunctionNames());
}

function listFunctionNames(): string[] {
  return listFunctions().map((f) => f.name);
}

/** Whether a function returning `actual` may be used where `expected` is wanted. */
export function isReturnTypeAccepted(actual: DataType, expected: DataType): boolean {
  if (actual === expected) return true;
  if (expected === "string")
    return actual === "int" || actual === "real" || actual === "option" || actual === "context";
  const listOf: Partial<Record<DataType, DataType>> = {
    string: "slist",
    int: "ilist",
    real: "rlist",
    option: "olist",
    context: "clist",
  };
  if (listOf[actual] === expected) return true;
  return actual === "string" && expected === "context";
}

/** A readable name for a value type. */
export function describeType(type: DataType): string {
  const names: Record<DataType, string> = {
    string: "a string",
    int: "an integer",
    real: "a real number",
    slist: "a list of strings",
    ilist: "a list of integers",
    rlist: "a list of real numbers",
    option: "one of a fixed set of words",
    olist: "a list of words from a fixed set",
    body: "a body",
    bundle: "a bundle",
    context: "a class expression",
    clist: "a list of class expressions",
    irange: "an integer range",
    rrange: "a real range",
    data: "a data container",
  };
  return names[type];
}

const regexCache = new Map<string, RegExp | null>();

/** Whether the whole of `text` matches the pattern (as PCRE would; unreadable patterns match). */
export function matchesFully(pattern: string, text: string): boolean {
  let regex = regexCache.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(`^(?:${pattern})$`, "s");
    } catch {
      regex = null;
    }
    regexCache.set(pattern, regex);
  }
  return regex === null || regex.test(text);
}

function issue(code: DiagnosticCode, message: string, span: Span): ValueIssue {
  return { code, message, span };
}
