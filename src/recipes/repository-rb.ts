/**
 * Roles and environments written in Ruby (roles/web.rb,
 * environments/production.rb), read without Ruby into the shapes of their
 * JSON forms: `run_list 'recipe[a]', 'role[b]'` (or an array),
 * `env_run_lists 'production' => [...]`, `default_attributes 'a' => {...}`,
 * `override_attributes(...)`, `cookbook_versions 'a' => '= 1.0.0'` and
 * `cookbook 'a', '= 1.0.0'`. A later call of the same method replaces the
 * earlier value, as Chef's setters do. repository.ts validates the result.
 */
import type { JsonDocument } from "./json-file.js";
import { argsOf, type DslHandler, readRubyDocument, single, stringOf } from "./ruby-file.js";
import type { RubyNode } from "./ruby-literal.js";

/** A method taking one hash (`default_attributes 'a' => 1` or `({ ... })`). */
function hash(key: string): DslHandler {
  return (call, target) => {
    const [node] = argsOf(call, target, 1) as [RubyNode];
    if (node.type !== "hash") target.fail(node.offset, `'${call.name}' takes a hash: 'key' => value, ...`);
    target.set(node, key);
  };
}

/**
 * `run_list 'a', 'b'`, `run_list ['a', 'b']` or `run_list()`: arguments
 * flattened, as Chef's. Chef's run list is the `_default` entry of the
 * per-environment lists, so the later of `run_list` and `env_run_lists`
 * decides it: this one drops an earlier `_default`.
 */
const runList: DslHandler = (call, target) => {
  const items = call.args.flatMap((a) => (a.type === "array" ? a.items : [a]));
  const node: RubyNode = { type: "array", items, offset: call.args[0]?.offset ?? call.offset };
  target.set(node, "run_list");
  const perEnv = target.value.env_run_lists as Record<string, unknown> | undefined;
  if (perEnv) delete perEnv._default;
};

/** `env_run_lists '_default' => [...], 'prod' => [...]`: Chef requires the `_default` entry. */
const envRunLists: DslHandler = (call, target) => {
  hash("env_run_lists")(call, target);
  const lists = target.value.env_run_lists as Record<string, unknown>;
  if (!Object.hasOwn(lists, "_default"))
    target.fail(
      call.offset,
      "env_run_lists needs a '_default' entry (the role's run list), as Chef requires",
    );
};

const COMMON: Readonly<Record<string, DslHandler>> = {
  name: single("name"),
  description: single("description"),
  default_attributes: hash("default_attributes"),
  override_attributes: hash("override_attributes"),
};

const ROLE: Readonly<Record<string, DslHandler>> = {
  ...COMMON,
  run_list: runList,
  env_run_lists: envRunLists,
};

const ENVIRONMENT: Readonly<Record<string, DslHandler>> = {
  ...COMMON,
  cookbook_versions: hash("cookbook_versions"),
  cookbook: (call, target) => {
    const [name, constraint] = argsOf(call, target, 2) as [RubyNode, RubyNode];
    const n = stringOf(name, target, "a cookbook's name");
    target.set(constraint, "cookbook_versions", n);
  },
};

/** Reads roles/<name>.rb; Ruby code or a bad argument is a RecipesError at its place. */
export function readRoleRb(file: string): JsonDocument {
  return readRubyDocument(file, "invalid-role", ROLE);
}

/** Reads environments/<name>.rb; Ruby code or a bad argument is a RecipesError at its place. */
export function readEnvironmentRb(file: string): JsonDocument {
  return readRubyDocument(file, "invalid-environment", ENVIRONMENT);
}
