/**
 * Reads a technique's YAML into raw items, checking it as rudderc 8.3 does
 * with serde and its JSON schema (src/technique.schema.json): required and
 * allowed fields, types, id and name patterns, parameter types and
 * constraints, reporting modes, policy modes and conditions. Every problem is
 * a diagnostic at the offending text; reading goes on to find the others.
 */
import { createHash } from "node:crypto";
import { parseCondition } from "./condition.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { compileRustRegex } from "./methods.js";
import {
  type BlockReportingMode,
  type Condition,
  PARAMETER_TYPES,
  PASSWORD_HASHES,
  type ParameterConstraints,
  type ParameterType,
  type PasswordHash,
  type PolicyMode,
  type TechniqueParameter,
} from "./model.js";
import { type YMap, type YNode, type YScalar, describeNode, entry } from "./yaml-tree.js";

/** An item as written, before loops are resolved and methods are looked up. */
export interface RawItem {
  readonly offset: number;
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly documentation?: string;
  readonly condition: Condition;
  readonly items: readonly RawItem[];
  readonly method?: string;
  readonly methodOffset: number;
  /** Parameter values by name, with the offset of each value. */
  readonly params: ReadonlyMap<string, { readonly value: string; readonly offset: number }>;
  readonly reporting: { readonly mode: BlockReportingMode; readonly id?: string; readonly offset: number };
  readonly policyModeOverride?: PolicyMode;
  readonly foreachName?: string;
  readonly foreach?: readonly ReadonlyMap<string, string>[];
}

export interface RawTechnique {
  readonly format: number;
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly documentation?: string;
  readonly category?: string;
  readonly policyTypes: readonly string[];
  readonly params: readonly TechniqueParameter[];
  readonly items: readonly RawItem[];
  /** Offsets of parameter entries, for later checks. */
  readonly paramOffsets: readonly number[];
}

const TECHNIQUE_KEYS = [
  "format",
  "id",
  "name",
  "version",
  "description",
  "documentation",
  "policy_types",
  "tags",
  "params",
  "category",
  "items",
];
const COMMON_ITEM_KEYS = [
  "name",
  "description",
  "documentation",
  "id",
  "tags",
  "policy_mode_override",
  "condition",
  "reporting",
  "foreach_name",
  "foreach",
];
const METHOD_KEYS = [...COMMON_ITEM_KEYS, "method", "params"];
const BLOCK_KEYS = [...COMMON_ITEM_KEYS, "items"];
const PARAMETER_KEYS = ["id", "name", "description", "documentation", "type", "default", "constraints"];
const CONSTRAINT_KEYS = ["allow_empty", "password_hashes", "regex", "select"];
const BLOCK_MODES = [
  "worst-case-weighted-one",
  "worst-case-weighted-sum",
  "focus-worst",
  "focus",
  "disabled",
  "enabled",
  "weighted",
];

const NAME_PATTERN = /^[a-zA-Z0-9_]+$/;
const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const VERSION_PATTERN = /^[0-9]+\.[0-9]+$/;

/** Reads the document root; undefined when it is not even a mapping. */
export function readTechnique(root: YNode, sink: DiagnosticSink): RawTechnique | undefined {
  if (root.kind !== "map") {
    sink.error("wrong-type", root.offset, `a technique must be a mapping, found ${describeNode(root)}`);
    return undefined;
  }
  return new Reader(sink).technique(root);
}

class Reader {
  private techniqueId = "";

  constructor(private readonly sink: DiagnosticSink) {}

  technique(map: YMap): RawTechnique {
    this.keys(map, TECHNIQUE_KEYS, ["id", "name", "version", "items"], "technique");
    const id = this.optString(map, "id") ?? "";
    this.techniqueId = id;
    this.pattern(
      map,
      "id",
      NAME_PATTERN,
      "a technique id made of letters, digits and underscores (^[a-zA-Z0-9_]+$)",
    );
    const version = this.optString(map, "version") ?? "";
    this.pattern(map, "version", VERSION_PATTERN, "a version in the 'X.Y' format, quoted (\"1.0\")");
    const format = this.format(map);
    const paramsNode = entry(map, "params")?.value;
    const params = paramsNode ? this.list(paramsNode, "params") : [];
    const itemsNode = entry(map, "items");
    const items = itemsNode ? this.list(itemsNode.value, "items") : [];
    if (itemsNode && itemsNode.value.kind === "seq" && items.length === 0) {
      this.sink.error(
        "invalid-value",
        itemsNode.value.offset,
        "items must not be empty, expected at least one block or method call",
      );
    }
    this.tags(map);
    const policyTypes = this.policyTypes(map);
    return {
      format,
      id,
      name: this.optString(map, "name") ?? "",
      version,
      ...this.optional(map, "description"),
      ...this.optional(map, "documentation"),
      ...this.optional(map, "category"),
      policyTypes,
      params: params.map((p, i) => this.parameter(p, i)).filter((p) => p !== undefined),
      paramOffsets: params.map((p) => p.offset),
      items: items.map((node, i) => this.item(node, [i])).filter((item) => item !== undefined),
    };
  }

  private format(map: YMap): number {
    const node = entry(map, "format")?.value;
    if (!node) return 1;
    if (node.kind !== "scalar" || typeof node.value !== "number") {
      this.sink.error("wrong-type", node.offset, `format must be a number, found ${describeNode(node)}`);
      return 1;
    }
    if (node.value !== 1)
      this.sink.error(
        "invalid-value",
        node.offset,
        `unknown technique format version ${node.text}, expected 1`,
      );
    return node.value;
  }

  private tags(map: YMap): void {
    const node = entry(map, "tags")?.value;
    if (node && node.kind !== "map")
      this.sink.error("wrong-type", node.offset, `tags must be a mapping, found ${describeNode(node)}`);
  }

  private policyTypes(map: YMap): string[] {
    const node = entry(map, "policy_types")?.value;
    if (!node) return [];
    return this.list(node, "policy_types")
      .map((n) => this.string(n, "a policy type"))
      .filter((s) => s !== undefined);
  }

  // --- parameters

  private parameter(node: YNode, index: number): TechniqueParameter | undefined {
    if (node.kind !== "map") {
      this.sink.error(
        "wrong-type",
        node.offset,
        `a technique parameter must be a mapping, found ${describeNode(node)}`,
      );
      return undefined;
    }
    this.keys(node, PARAMETER_KEYS, ["name"], "technique parameter");
    const name = this.optString(node, "name") ?? "";
    this.pattern(node, "name", NAME_PATTERN, "a canonified name (^[a-zA-Z0-9_]+$)");
    const type = this.parameterType(node);
    const constraints = this.constraints(node, type);
    const defaultValue = this.defaultValue(node);
    return {
      id: this.id(node, ["param", String(index)]),
      name,
      ...this.optional(node, "description"),
      ...this.optional(node, "documentation"),
      type,
      constraints,
      ...(defaultValue !== undefined ? { default: defaultValue } : {}),
    };
  }

  private parameterType(map: YMap): ParameterType {
    const node = entry(map, "type")?.value;
    if (!node || (node.kind === "scalar" && node.value === null)) return "multiline-string";
    const text = this.string(node, "a parameter type");
    if (text === undefined) return "multiline-string";
    if ((PARAMETER_TYPES as readonly string[]).includes(text)) return text as ParameterType;
    this.sink.error(
      "invalid-value",
      node.offset,
      `unknown parameter type '${text}', expected one of ${PARAMETER_TYPES.join(", ")}`,
    );
    return "multiline-string";
  }

  private defaultValue(map: YMap): string | undefined {
    const node = entry(map, "default")?.value;
    if (!node) return undefined;
    if (node.kind !== "scalar" || node.value === null) {
      this.sink.error(
        "wrong-type",
        node.offset,
        `default must be a string, a boolean or a number, found ${describeNode(node)}`,
      );
      return undefined;
    }
    return node.text;
  }

  private constraints(map: YMap, type: ParameterType): ParameterConstraints {
    const node = entry(map, "constraints")?.value;
    const hashes: PasswordHash[] | undefined =
      type === "password" ? ["pre-hashed", "sha256-crypt", "sha512-crypt"] : undefined;
    if (!node) return { allowEmpty: false, ...(hashes ? { passwordHashes: hashes } : {}) };
    if (node.kind !== "map") {
      this.sink.error(
        "wrong-type",
        node.offset,
        `constraints must be a mapping, found ${describeNode(node)}`,
      );
      return { allowEmpty: false };
    }
    this.keys(node, CONSTRAINT_KEYS, [], "parameter constraints");
    const allowEmpty = this.optBoolean(node, "allow_empty") ?? false;
    const regex = this.regexConstraint(node);
    const select = this.selectConstraint(node);
    const passwordHashes = this.passwordHashes(node) ?? hashes;
    return {
      allowEmpty,
      ...(regex ? { regex } : {}),
      ...(select ? { select } : {}),
      ...(passwordHashes ? { passwordHashes } : {}),
    };
  }

  private regexConstraint(map: YMap): ParameterConstraints["regex"] {
    const node = entry(map, "regex")?.value;
    if (!node) return undefined;
    if (node.kind !== "map") {
      this.sink.error(
        "wrong-type",
        node.offset,
        `a regex constraint must be a mapping with 'value', found ${describeNode(node)}`,
      );
      return undefined;
    }
    this.keys(node, undefined, ["value"], "regex constraint");
    const value = this.optString(node, "value");
    if (value === undefined) return undefined;
    if (!compileRustRegex(value)) {
      this.sink.error(
        "invalid-value",
        entry(node, "value")?.value.offset ?? node.offset,
        `invalid regex '${value}'`,
      );
    }
    const errorMessage = this.optString(node, "error_message");
    return { value, ...(errorMessage !== undefined ? { errorMessage } : {}) };
  }

  private selectConstraint(map: YMap): ParameterConstraints["select"] {
    const node = entry(map, "select")?.value;
    if (!node) return undefined;
    const out: { name?: string; value: string }[] = [];
    for (const choice of this.list(node, "select")) {
      if (choice.kind !== "map") {
        this.sink.error(
          "wrong-type",
          choice.offset,
          `a select choice must be a mapping with 'value', found ${describeNode(choice)}`,
        );
        continue;
      }
      this.keys(choice, undefined, ["value"], "select choice");
      const value = this.optString(choice, "value");
      const name = this.optString(choice, "name");
      if (value !== undefined) out.push({ value, ...(name !== undefined ? { name } : {}) });
    }
    return out;
  }

  private passwordHashes(map: YMap): PasswordHash[] | undefined {
    const node = entry(map, "password_hashes")?.value;
    if (!node) return undefined;
    const out: PasswordHash[] = [];
    for (const item of this.list(node, "password_hashes")) {
      const text = this.string(item, "a password hash");
      if (text === undefined) continue;
      if ((PASSWORD_HASHES as readonly string[]).includes(text)) out.push(text as PasswordHash);
      else
        this.sink.error(
          "invalid-value",
          item.offset,
          `unknown password hash '${text}', expected one of ${PASSWORD_HASHES.join(", ")}`,
        );
    }
    return out;
  }

  // --- items

  private item(node: YNode, path: readonly number[]): RawItem | undefined {
    if (node.kind !== "map") {
      this.sink.error(
        "wrong-type",
        node.offset,
        `an item must be a block or a method call (a mapping), found ${describeNode(node)}`,
      );
      return undefined;
    }
    const isMethod = entry(node, "method") !== undefined;
    if (entry(node, "module")) {
      this.sink.error(
        "unknown-field",
        entry(node, "module")?.keyOffset ?? node.offset,
        "modules are not supported, expected 'method' or 'items'",
      );
    }
    this.keys(
      node,
      isMethod ? METHOD_KEYS : BLOCK_KEYS,
      isMethod ? ["method", "params"] : ["items"],
      isMethod ? "method call" : "block",
    );
    if (isMethod && entry(node, "items")) {
      this.sink.error(
        "unknown-field",
        entry(node, "items")?.keyOffset ?? node.offset,
        "an item cannot have both 'items' and 'method', expected a block or a method call",
      );
    }
    const items = entry(node, "items");
    const children = items ? this.list(items.value, "items") : [];
    if (!isMethod && items && children.length === 0 && items.value.kind === "seq") {
      this.sink.error("invalid-value", items.value.offset, "a block requires items, expected at least one");
    }
    const name = this.optString(node, "name") ?? "";
    if (!isMethod && name === "" && items) {
      this.sink.error("missing-field", node.offset, "a block requires a 'name'");
    }
    const methodEntry = entry(node, "method");
    const method = this.optString(node, "method");
    const foreach = this.foreach(node);
    const foreachName = this.optString(node, "foreach_name");
    if (foreachName !== undefined && !/[a-zA-Z0-9_]+/.test(foreachName)) {
      this.sink.error(
        "invalid-value",
        entry(node, "foreach_name")?.value.offset ?? node.offset,
        "foreach_name must be a name of letters, digits and underscores",
      );
    }
    const policyModeOverride = this.policyMode(node);
    return {
      offset: node.offset,
      id: this.id(node, ["item", ...path.map(String)]),
      name,
      ...this.optional(node, "description"),
      ...this.optional(node, "documentation"),
      condition: this.condition(node),
      items: children.map((child, i) => this.item(child, [...path, i])).filter((c) => c !== undefined),
      ...(method !== undefined ? { method } : {}),
      methodOffset: methodEntry?.value.offset ?? node.offset,
      params: isMethod ? this.params(node) : new Map(),
      reporting: this.reporting(node, isMethod),
      ...(policyModeOverride ? { policyModeOverride } : {}),
      ...(foreachName !== undefined ? { foreachName } : {}),
      ...(foreach ? { foreach } : {}),
    };
  }

  private params(map: YMap): Map<string, { value: string; offset: number }> {
    const out = new Map<string, { value: string; offset: number }>();
    const node = entry(map, "params")?.value;
    if (!node) return out;
    if (node.kind !== "map") {
      this.sink.error(
        "wrong-type",
        node.offset,
        `params must be a mapping of parameter names to values, found ${describeNode(node)}`,
      );
      return out;
    }
    if (node.entries.length === 0)
      this.sink.error("missing-field", node.offset, "a method call requires params, expected at least one");
    for (const e of node.entries) {
      if (e.value.kind !== "scalar" || e.value.value === null) {
        this.sink.error(
          "wrong-type",
          e.value.offset,
          `parameter '${e.key}' must be a string, found ${describeNode(e.value)}`,
        );
        continue;
      }
      out.set(e.key, { value: e.value.text, offset: e.value.offset });
    }
    return out;
  }

  private foreach(map: YMap): ReadonlyMap<string, string>[] | undefined {
    const node = entry(map, "foreach")?.value;
    if (!node) return undefined;
    const out: Map<string, string>[] = [];
    for (const row of this.list(node, "foreach")) {
      if (row.kind !== "map" || row.entries.length === 0) {
        this.sink.error(
          "wrong-type",
          row.offset,
          `a foreach row must be a non-empty mapping of names to strings, found ${describeNode(row)}`,
        );
        continue;
      }
      const values = new Map<string, string>();
      for (const e of row.entries) {
        const text = this.string(e.value, `the value of '${e.key}'`);
        if (text !== undefined) values.set(e.key, text);
      }
      out.push(values);
    }
    return out;
  }

  private condition(map: YMap): Condition {
    const node = entry(map, "condition")?.value;
    if (!node) return true;
    if (node.kind === "scalar" && typeof node.value === "boolean") return node.value;
    if (node.kind !== "scalar" || typeof node.value !== "string") {
      this.sink.error(
        "wrong-type",
        node.offset,
        `condition must be a string or a boolean, found ${describeNode(node)}`,
      );
      return true;
    }
    const parsed = parseCondition(node.value);
    if (parsed === undefined) {
      this.sink.error(
        "invalid-condition",
        node.offset,
        `invalid condition expression '${node.value}', expected class names, variables (\${...}), spaces and the operators | & . ! ( )`,
      );
      return true;
    }
    return parsed;
  }

  private policyMode(map: YMap): PolicyMode | undefined {
    const node = entry(map, "policy_mode_override")?.value;
    if (!node) return undefined;
    const text = this.string(node, "a policy mode");
    if (text === "enforce" || text === "audit") return text;
    if (text === "none" || text === undefined) return undefined;
    this.sink.error(
      "invalid-value",
      node.offset,
      `unknown policy mode '${text}', expected audit, enforce or none`,
    );
    return undefined;
  }

  private reporting(map: YMap, isMethod: boolean): RawItem["reporting"] {
    const node = entry(map, "reporting")?.value;
    if (!node) return { mode: "weighted", offset: map.offset };
    if (node.kind !== "map") {
      this.sink.error(
        "wrong-type",
        node.offset,
        `reporting must be a mapping with a 'mode', found ${describeNode(node)}`,
      );
      return { mode: "weighted", offset: node.offset };
    }
    this.keys(node, isMethod ? ["mode"] : ["mode", "id"], isMethod ? [] : ["mode"], "reporting");
    const modeNode = entry(node, "mode")?.value;
    const text = modeNode ? this.string(modeNode, "a reporting mode") : "weighted";
    const allowed = isMethod ? ["enabled", "disabled"] : BLOCK_MODES;
    if (text === undefined || !allowed.includes(text)) {
      if (text !== undefined) {
        this.sink.error(
          "invalid-value",
          modeNode?.offset ?? node.offset,
          `unknown reporting mode '${text}', expected one of ${allowed.join(", ")}`,
        );
      }
      return { mode: "weighted", offset: node.offset };
    }
    const mode = (text === "enabled" ? "weighted" : text) as BlockReportingMode;
    const id = this.optString(node, "id");
    return { mode, ...(id !== undefined ? { id } : {}), offset: node.offset };
  }

  private id(map: YMap, path: readonly string[]): string {
    const node = entry(map, "id")?.value;
    if (node) {
      const text = this.string(node, "an id");
      if (text !== undefined && ID_PATTERN.test(text)) return text;
      if (text !== undefined)
        this.sink.error(
          "invalid-value",
          node.offset,
          `invalid id '${text}', expected letters, digits, '-' and '_' (a UUID)`,
        );
      return text ?? "";
    }
    const generated = stableUuid([this.techniqueId, ...path].join("/"));
    this.sink.warning(
      "generated-id",
      map.offset,
      `no id: using ${generated}, derived from its place (reports refer to ids; give it one)`,
    );
    return generated;
  }

  // --- helpers

  private keys(
    map: YMap,
    allowed: readonly string[] | undefined,
    required: readonly string[],
    what: string,
  ): void {
    if (allowed) {
      for (const e of map.entries) {
        if (!allowed.includes(e.key) && e.key !== "module") {
          this.sink.error(
            "unknown-field",
            e.keyOffset,
            `unknown field '${e.key}' in ${what}, expected one of ${allowed.join(", ")}`,
          );
        }
      }
    }
    for (const key of required) {
      if (!entry(map, key)) this.sink.error("missing-field", map.offset, `missing field '${key}' in ${what}`);
    }
  }

  private list(node: YNode, what: string): YNode[] {
    if (node.kind === "seq") return [...node.items];
    this.sink.error("wrong-type", node.offset, `${what} must be a list, found ${describeNode(node)}`);
    return [];
  }

  private string(node: YNode, what: string): string | undefined {
    if (node.kind === "scalar" && typeof node.value === "string") return node.value;
    this.sink.error("wrong-type", node.offset, `expected ${what} as a string, found ${describeNode(node)}`);
    return undefined;
  }

  private optString(map: YMap, key: string): string | undefined {
    const node = entry(map, key)?.value;
    return node ? this.string(node, `'${key}'`) : undefined;
  }

  private optional(map: YMap, key: "description" | "documentation" | "category"): Record<string, string> {
    const value = this.optString(map, key);
    return value === undefined ? {} : { [key]: value };
  }

  private optBoolean(map: YMap, key: string): boolean | undefined {
    const node = entry(map, key)?.value;
    if (!node) return undefined;
    if (node.kind === "scalar" && typeof node.value === "boolean") return node.value;
    this.sink.error("wrong-type", node.offset, `'${key}' must be true or false, found ${describeNode(node)}`);
    return undefined;
  }

  private pattern(map: YMap, key: string, pattern: RegExp, expected: string): void {
    const node = entry(map, key)?.value as YScalar | undefined;
    if (node?.kind !== "scalar" || typeof node.value !== "string") return;
    if (!pattern.test(node.value))
      this.sink.error("invalid-value", node.offset, `invalid ${key} '${node.value}', expected ${expected}`);
  }
}

/** A UUID-shaped id derived from text, so that a technique compiles the same way twice. */
export function stableUuid(text: string): string {
  const hex = createHash("sha1").update(text).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}
