/**
 * Node JSON files: the `-j` file given to chef-client (its `run_list` or
 * `recipes`, `chef_environment`, and every other key a normal attribute)
 * and the node chef-client saves in local mode at the end of a run
 * (nodes/<name>.json: name, chef_environment, normal, default, override,
 * automatic, run_list), read back at the start of the next one: its normal
 * attributes and run list persist, the other levels are recomputed.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../system/atomic.js";
import type { RunListEntry } from "./expand.js";
import { attributeTreeAt, isObject, type JsonDocument, readJsonDocument, runListAt } from "./json-file.js";
import type { AttributeTree, AttributeValue } from "./model.js";

export interface NodeData {
  readonly runList?: readonly RunListEntry[];
  readonly environment?: string;
  readonly normal: AttributeTree;
}

/** Keys of a `-j` file that are not attributes. */
const NOT_ATTRIBUTES = new Set(["run_list", "recipes", "chef_environment", "policy_name", "policy_group"]);

/** Reads a `-j` file; bad content is a RecipesError at its place. */
export function readJsonAttributes(file: string): NodeData {
  const doc: JsonDocument = readJsonDocument(file);
  const json = doc.value;
  if (!isObject(json)) return doc.fail("invalid-node", "a node JSON file must hold an object");
  const key = json.run_list !== undefined ? "run_list" : "recipes";
  const normal: { [key: string]: AttributeValue } = {};
  for (const [k, v] of Object.entries(json)) if (!NOT_ATTRIBUTES.has(k)) normal[k] = v as AttributeValue;
  return { runList: entries(doc, json, key), environment: environmentOf(doc, json), normal };
}

/** Reads the node saved by an earlier run, when there is one. */
export function readSavedNode(nodePath: string, name: string): NodeData | undefined {
  const file = join(nodePath, `${name}.json`);
  if (!existsSync(file)) return undefined;
  const doc: JsonDocument = readJsonDocument(file);
  const json = doc.value;
  if (!isObject(json)) return doc.fail("invalid-node", "a saved node file must hold an object");
  return {
    runList: entries(doc, json, "run_list"),
    environment: environmentOf(doc, json),
    normal: attributeTreeAt(doc, json, "normal", "invalid-node"),
  };
}

function entries(doc: JsonDocument, json: Record<string, unknown>, key: string): RunListEntry[] | undefined {
  const list = runListAt(doc, json, key, "invalid-node");
  return list?.map((text, i) => {
    const { file, line, column } = doc.diagnostic("invalid-node", "", `${key}.${i}`);
    return { text, at: { file, line, column } };
  });
}

function environmentOf(doc: JsonDocument, json: Record<string, unknown>): string | undefined {
  const env = json.chef_environment;
  if (env === undefined) return undefined;
  if (typeof env !== "string" || !/^[A-Za-z0-9_-]+$/.test(env))
    doc.fail("invalid-node", "'chef_environment' must be an environment name", "chef_environment");
  return env;
}

/** What chef-client saves for a node. */
export interface SavedNode {
  readonly name: string;
  readonly chef_environment: string;
  readonly json_class: "Chef::Node";
  readonly chef_type: "node";
  readonly automatic: AttributeTree;
  readonly normal: AttributeTree;
  readonly default: AttributeTree;
  readonly override: AttributeTree;
  readonly run_list: readonly string[];
}

/** Writes nodes/<name>.json atomically (mode 0600: the host's facts are in it). */
export function writeSavedNode(nodePath: string, node: SavedNode): string {
  mkdirSync(nodePath, { recursive: true, mode: 0o700 });
  const file = join(nodePath, `${node.name}.json`);
  writeFileAtomically(file, `${JSON.stringify(node, null, 2)}\n`, 0o600);
  return file;
}
