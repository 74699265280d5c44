/**
 * Roles and environments of a Chef repository, from JSON files in Chef's
 * shapes (or their Ruby forms, `<name>.rb`, read when there is no JSON
 * file, as chef-client prefers JSON; see repository-rb.ts): roles/<name>.json (`run_list`, `env_run_lists`,
 * `default_attributes`, `override_attributes`) and
 * environments/<name>.json (`default_attributes`, `override_attributes`,
 * `cookbook_versions`). Each file is read once per run.
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { attributeTreeAt, isObject, type JsonDocument, readJsonDocument, runListAt } from "./json-file.js";
import type { AttributeTree } from "./model.js";
import { readEnvironmentRb, readRoleRb } from "./repository-rb.js";
import { isConstraint } from "./versions.js";

export interface Role {
  readonly name: string;
  readonly file: string;
  readonly doc: JsonDocument;
  readonly runList: readonly string[];
  /** Per environment run lists; `run_list` applies where none is given. */
  readonly envRunLists: Readonly<Record<string, readonly string[]>>;
  readonly defaultAttributes: AttributeTree;
  readonly overrideAttributes: AttributeTree;
}

export interface Environment {
  readonly name: string;
  readonly file?: string;
  readonly doc?: JsonDocument;
  readonly defaultAttributes: AttributeTree;
  readonly overrideAttributes: AttributeTree;
  /** Cookbook name -> version constraint. */
  readonly cookbookVersions: Readonly<Record<string, string>>;
}

/** The `_default` environment: always there, empty. */
export const DEFAULT_ENVIRONMENT: Environment = {
  name: "_default",
  defaultAttributes: {},
  overrideAttributes: {},
  cookbookVersions: {},
};

/** Reads roles/<name>.json; undefined when there is no such file. Bad content is a RecipesError. */
export function readRole(rolePath: string, name: string): Role | undefined {
  const file = fileOf(rolePath, name);
  if (!file) return undefined;
  const doc: JsonDocument = file.endsWith(".rb") ? readRoleRb(file) : readJsonDocument(file);
  const role = doc.value;
  if (!isObject(role)) return doc.fail("invalid-role", "a role file must hold an object");
  if (role.name !== undefined && role.name !== name)
    doc.fail("invalid-role", `the role in ${basename(file)} must be named '${name}'`, "name");
  const envRunLists: Record<string, readonly string[]> = {};
  const perEnv = role.env_run_lists ?? {};
  if (!isObject(perEnv)) doc.fail("invalid-role", "'env_run_lists' must be an object", "env_run_lists");
  for (const env of Object.keys(perEnv))
    envRunLists[env] = runListAt(doc, perEnv, env, "invalid-role", "env_run_lists.") ?? [];
  return {
    name,
    file,
    doc,
    runList: runListAt(doc, role, "run_list", "invalid-role") ?? [],
    envRunLists,
    defaultAttributes: attributeTreeAt(doc, role, "default_attributes", "invalid-role"),
    overrideAttributes: attributeTreeAt(doc, role, "override_attributes", "invalid-role"),
  };
}

/**
 * Reads environments/<name>.json (`_default` needs no file). Undefined when
 * missing; bad content is a RecipesError.
 */
export function readEnvironment(environmentPath: string, name: string): Environment | undefined {
  const file = fileOf(environmentPath, name);
  if (!file) return name === "_default" ? DEFAULT_ENVIRONMENT : undefined;
  const doc: JsonDocument = file.endsWith(".rb") ? readEnvironmentRb(file) : readJsonDocument(file);
  const env = doc.value;
  if (!isObject(env)) return doc.fail("invalid-environment", "an environment file must hold an object");
  const versions = env.cookbook_versions ?? {};
  if (!isObject(versions))
    doc.fail("invalid-environment", "'cookbook_versions' must be an object", "cookbook_versions");
  for (const [cookbook, constraint] of Object.entries(versions))
    if (typeof constraint !== "string" || !isConstraint(constraint))
      doc.fail(
        "invalid-environment",
        `the constraint on '${cookbook}' must be a version constraint like "= 1.0.0"`,
        `cookbook_versions.${cookbook}`,
      );
  return {
    name,
    file,
    doc,
    defaultAttributes: attributeTreeAt(doc, env, "default_attributes", "invalid-environment"),
    overrideAttributes: attributeTreeAt(doc, env, "override_attributes", "invalid-environment"),
    cookbookVersions: versions as Record<string, string>,
  };
}

/** `<dir>/<name>.json`, else `<dir>/<name>.rb`, else undefined. */
function fileOf(dir: string, name: string): string | undefined {
  for (const ext of [".json", ".rb"]) {
    const file = join(dir, `${name}${ext}`);
    if (existsSync(file)) return file;
  }
  return undefined;
}
