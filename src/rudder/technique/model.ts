/**
 * A technique as rudderc 8.3 models it once read: parameters, and items that
 * are blocks (with a reporting mode) or method calls, each with a condition
 * and an optional policy-mode override. Loops (`foreach`) are already
 * resolved here; `foreachState` remembers which copy was the first.
 */
import type { MethodInfo } from "./methods.js";

/**
 * A condition: `true` (always, rudderc's "Defined"), `false` (never), or a
 * class expression evaluated by the agent (spaces removed, as rudderc does).
 */
export type Condition = boolean | string;

export type PolicyMode = "enforce" | "audit";

export type ParameterType =
  | "boolean"
  | "string"
  | "multiline-string"
  | "json"
  | "yaml"
  | "mail"
  | "ip"
  | "ipv4"
  | "ipv6"
  | "integer"
  | "size-b"
  | "size-kb"
  | "size-mb"
  | "size-gb"
  | "size-tb"
  | "permissions"
  | "shared-file"
  | "password";

export const PARAMETER_TYPES: readonly ParameterType[] = [
  "boolean",
  "string",
  "multiline-string",
  "json",
  "yaml",
  "mail",
  "ip",
  "ipv4",
  "ipv6",
  "integer",
  "size-b",
  "size-kb",
  "size-mb",
  "size-gb",
  "size-tb",
  "permissions",
  "shared-file",
  "password",
];

export type PasswordHash =
  | "pre-hashed"
  | "plain"
  | "md5"
  | "sha1"
  | "sha256"
  | "sha512"
  | "md5-crypt"
  | "sha256-crypt"
  | "sha512-crypt"
  | "unix-crypt-des";

export const PASSWORD_HASHES: readonly PasswordHash[] = [
  "pre-hashed",
  "plain",
  "md5",
  "sha1",
  "sha256",
  "sha512",
  "md5-crypt",
  "sha256-crypt",
  "sha512-crypt",
  "unix-crypt-des",
];

export interface ParameterConstraints {
  readonly allowEmpty: boolean;
  readonly regex?: { readonly value: string; readonly errorMessage?: string };
  readonly select?: readonly { readonly name?: string; readonly value: string }[];
  readonly passwordHashes?: readonly PasswordHash[];
}

export interface TechniqueParameter {
  /** The id (a UUID): the directive's variable name in metadata.xml. */
  readonly id: string;
  /** The name: the bundle parameter. */
  readonly name: string;
  readonly description?: string;
  readonly documentation?: string;
  readonly type: ParameterType;
  readonly constraints: ParameterConstraints;
  readonly default?: string;
}

export type BlockReportingMode =
  | "weighted"
  | "worst-case-weighted-one"
  | "worst-case-weighted-sum"
  | "focus"
  | "focus-worst"
  | "disabled";

export interface BlockReporting {
  readonly mode: BlockReportingMode;
  readonly id?: string;
}

export type ForeachState = "main" | "virtual";

interface ItemBase {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly documentation?: string;
  readonly condition: Condition;
  readonly policyModeOverride?: PolicyMode;
  readonly foreachState?: ForeachState;
  /** Offset of the item in the YAML source, for diagnostics. */
  readonly offset: number;
}

export interface Block extends ItemBase {
  readonly kind: "block";
  readonly reporting: BlockReporting;
  readonly items: readonly Item[];
}

export interface MethodCall extends ItemBase {
  readonly kind: "method";
  /** The method (ncf bundle) name. */
  readonly method: string;
  /** Values by method parameter name; missing optional ones filled with "". */
  readonly params: ReadonlyMap<string, string>;
  readonly reporting: "enabled" | "disabled";
  /** Set once checked against the method library. */
  readonly info?: MethodInfo;
}

export type Item = Block | MethodCall;

export interface Technique {
  readonly format: number;
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly documentation?: string;
  readonly category?: string;
  readonly policyTypes: readonly string[];
  readonly params: readonly TechniqueParameter[];
  readonly items: readonly Item[];
}
