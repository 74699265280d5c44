/**
 * The attributes of a package_method promise, as 3.21 reads them: the
 * promise's own (`package_policy`, `package_version`,
 * `package_architectures`, `package_select`) and those of its
 * `package_method` body — or, when it names none, of a body called
 * `generic`. Commands keep `$(name)`, `$(version)`, `$(arch)` and
 * `$(firstrepo)` for the scheduler to fill in.
 */
import type { BodyInstance } from "../bodies.js";
import { expandRval } from "../../eval/expand.js";
import { parseCfInt } from "../../eval/numbers.js";
import type { Value } from "../../eval/values.js";
import { writes } from "./promise-attributes.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { asBoolean, asStrings, asText } from "../values.js";

export type MethodPolicy = "add" | "delete" | "reinstall" | "update" | "addupdate" | "patch" | "verify";
export type VersionSelect = "==" | "!=" | "<" | ">" | ">=" | "<=";

const POLICIES: ReadonlySet<string> = new Set([
  "add",
  "delete",
  "reinstall",
  "update",
  "addupdate",
  "patch",
  "verify",
]);
const SELECTS: ReadonlySet<string> = new Set(["==", "!=", "<", ">", ">=", "<="]);

/** The body's string attributes this implementation uses. */
const TEXT_ATTRIBUTES = [
  "package_add_command",
  "package_arch_regex",
  "package_default_arch_command",
  "package_delete_command",
  "package_delete_convention",
  "package_installed_regex",
  "package_list_arch_regex",
  "package_list_command",
  "package_list_name_regex",
  "package_list_update_command",
  "package_list_version_regex",
  "package_multiline_start",
  "package_name_convention",
  "package_name_regex",
  "package_noverify_regex",
  "package_patch_arch_regex",
  "package_patch_command",
  "package_patch_installed_regex",
  "package_patch_list_command",
  "package_patch_name_regex",
  "package_patch_version_regex",
  "package_update_command",
  "package_verify_command",
  "package_version_equal_command",
  "package_version_less_command",
  "package_version_regex",
] as const;

export type MethodText = (typeof TEXT_ATTRIBUTES)[number];

export interface MethodAttributes {
  readonly policy: MethodPolicy;
  readonly version: string | undefined;
  readonly architectures: readonly string[];
  /** Undefined when not given (3.21 compares as `==` then). */
  readonly select: VersionSelect | undefined;
  /** `package_changes`; 3.21 runs nothing it scheduled when it is not set. */
  readonly changes: "individual" | "bulk" | "none";
  readonly useShell: boolean;
  readonly fileRepositories: readonly string[];
  readonly listUpdateIfelapsed: number | undefined;
  readonly noverifyReturncode: number | undefined;
  readonly text: Readonly<Partial<Record<MethodText, string>>>;
}

/** Reads one attribute of the promise's package_method (or of the `generic` body). */
function methodReader(promise: ActivePromise, env: PromiseEnvironment): (name: string) => Value | undefined {
  if (writes(promise, "package_method")) return (name) => promise.bodyValue("package_method", name);
  const generic: BodyInstance | undefined = env.findBody?.("package_method", "generic");
  return (name) => {
    const rval = generic?.attributes.get(name)?.value;
    return rval ? expandRval(env.ctx, rval, promise.options) : undefined;
  };
}

function changesOf(text: string | undefined): MethodAttributes["changes"] {
  return text === "individual" || text === "bulk" ? text : "none";
}

function integer(value: Value | undefined): number | undefined {
  const text = asText(value);
  return text === undefined ? undefined : parseCfInt(text);
}

export function readMethodAttributes(promise: ActivePromise, env: PromiseEnvironment): MethodAttributes {
  const read = methodReader(promise, env);
  const text: Partial<Record<MethodText, string>> = {};
  for (const name of TEXT_ATTRIBUTES) {
    const value = asText(read(name));
    if (value !== undefined) text[name] = value;
  }
  const policy = promise.text("package_policy") ?? "";
  const select = promise.text("package_select") ?? "";
  return {
    policy: POLICIES.has(policy) ? (policy as MethodPolicy) : "add",
    version: promise.text("package_version"),
    architectures: asStrings(promise.value("package_architectures")),
    select: SELECTS.has(select) ? (select as VersionSelect) : undefined,
    changes: changesOf(asText(read("package_changes"))),
    useShell: asBoolean(read("package_commands_useshell"), true),
    fileRepositories: asStrings(read("package_file_repositories")),
    listUpdateIfelapsed: integer(read("package_list_update_ifelapsed")),
    noverifyReturncode: integer(read("package_noverify_returncode")),
    text,
  };
}
