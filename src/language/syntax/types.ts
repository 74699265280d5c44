/**
 * The shapes of tend's tables of CFEngine 3.21 syntax: which promise types
 * each bundle type allows, every attribute of every promise type and body
 * type with its value type and allowed values, and every built-in function.
 */

/** The value types of attributes, function parameters and return values. */
export type DataType =
  | "string"
  | "int"
  | "real"
  | "slist"
  | "ilist"
  | "rlist"
  | "option"
  | "olist"
  | "body"
  | "bundle"
  | "context"
  | "clist"
  | "irange"
  | "rrange"
  | "data";

/** `deprecated` still works but warns; `removed` is accepted and ignored. */
export type SyntaxStatus = "normal" | "deprecated" | "removed";

/** Where an attribute is accepted. */
export type AttributeVisibility = "global" | "promiseType" | "body" | "bundle";

export interface AttributeSyntax {
  readonly name: string;
  readonly type: DataType;
  /**
   * What values are allowed, as cf-promises states it: a regular expression
   * for strings and lists, `min,max` for numbers, comma-separated choices
   * for options. Empty or absent means anything.
   */
  readonly range?: string;
  /** For `option` and `olist`: the allowed words, split from `range`. */
  readonly options?: readonly string[];
  /** For `body` attributes: the body type a name must refer to. */
  readonly bodyType?: string;
  readonly status: SyntaxStatus;
  readonly visibility: AttributeVisibility;
}

export interface PromiseTypeSyntax {
  readonly name: string;
  /** Attributes by name, common (global) ones included. */
  readonly attributes: Readonly<Record<string, AttributeSyntax>>;
  readonly status: SyntaxStatus;
}

export interface BundleTypeSyntax {
  readonly name: string;
  /** Promise types this bundle type accepts, in 3.21's listing order. */
  readonly promiseTypes: readonly string[];
  /**
   * Promise types 3.21 no longer supports but still recognises here: it warns
   * and skips the whole section.
   */
  readonly removedPromiseTypes?: readonly string[];
  /**
   * True for bundle types 3.21 parses and checks but that no agent
   * evaluates (`hub`, `knowledge`...): they allow only the common promise types.
   */
  readonly parsedOnly?: boolean;
  readonly status: SyntaxStatus;
}

export interface BodyTypeSyntax {
  readonly name: string;
  readonly attributes: Readonly<Record<string, AttributeSyntax>>;
  /**
   * A control body type (`body agent control`): only the body named
   * `control` is read, it takes no parameters, and no promise attribute
   * refers to this type.
   */
  readonly control?: boolean;
  readonly status: SyntaxStatus;
}

export interface FunctionParameter {
  readonly type: DataType;
  /** Allowed values: a regular expression, `min,max`, or comma-separated options. */
  readonly range: string;
  /** For `option` parameters: the allowed words, split from `range`. */
  readonly options?: readonly string[];
  readonly description: string;
}

export type FunctionCategory = "communication" | "data" | "files" | "io" | "system" | "utils" | "internal";

export interface FunctionSyntax {
  readonly name: string;
  readonly returnType: DataType;
  readonly parameters: readonly FunctionParameter[];
  /** Accepts more arguments than `parameters` lists. */
  readonly variadic: boolean;
  /** Accepts a variable name, `@(var)` or inline JSON where a container is expected. */
  readonly collecting: boolean;
  /** Results are cached per run. */
  readonly cached: boolean;
  readonly category: FunctionCategory;
  /**
   * Arguments are passed unexpanded; the function expands them itself, once
   * per element (`maplist`, `mapdata`).
   */
  readonly delayedEvaluation?: boolean;
  /** Has side effects (runs commands): not called in simulate modes. */
  readonly unsafe?: boolean;
  readonly status: SyntaxStatus;
}
