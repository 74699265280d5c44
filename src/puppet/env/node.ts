/**
 * The node a catalog is compiled for, as `puppet catalog compile NODE`
 * finds it: its facts from the json facts terminus
 * (`<server_datadir>/facts/<node>.json`, Puppet's `{"name", "values"}`),
 * its classification by an External Node Classifier (`node_terminus =
 * exec`: the command run with the node's name, YAML with `classes`,
 * `parameters`, `environment`), `$trusted` as a local compile makes it
 * (authenticated `local`, the certname from the `clientcert` fact), and
 * `$server_facts`.
 *
 * `$server_facts` on Puppet carry the compiling machine's name and
 * addresses (facter's fqdn, ipaddress, ipaddress6). tend never reads the
 * machine for them: they are fixed (`servername` "puppet", Puppet's default
 * `server`; `serverip` 127.0.0.1; `serverip6` ::1), so a catalog does not
 * depend on where it was compiled.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import type { PuppetCompileSettings } from "../settings.js";
import type { NodeRequest } from "./environment.js";

/** The Puppet version tend's compiler stands for (`$serverversion`). */
export const SERVER_VERSION = "7.23.0";

/** The fixed `$server_facts` (without `environment`, added per compile). */
export const SERVER_FACTS: Readonly<Record<string, string>> = {
  serverversion: SERVER_VERSION,
  servername: "puppet",
  serverip: "127.0.0.1",
  serverip6: "::1",
};

/** Finding the node failed; the message is Puppet's. */
export class NodeError extends Error {
  override readonly name = "NodeError";
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Names that could escape the facts directory, refused as Puppet refuses them. */
const BAD_NAME = /^\.\.|[\\/]|\0|^[a-zA-Z]:/;

/**
 * The node's facts from `<server_datadir>/facts/<node>.json`; undefined
 * when there is no such file (the compile then has no facts, as Puppet's).
 */
export function readFactsJson(serverDatadir: string, node: string): Record<string, Json> | undefined {
  if (BAD_NAME.test(node)) throw new NodeError("invalid key");
  const file = join(serverDatadir, "facts", `${node}.json`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new NodeError(`Could not read JSON data for facts ${node}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new NodeError(`Could not parse JSON data for facts ${node}: ${(error as Error).message}`);
  }
  const values = isObject(data) ? data.values : undefined;
  if (!isObject(values))
    throw new NodeError(`Could not parse JSON data for facts ${node}: no 'values' object in ${file}`);
  const facts: Record<string, Json> = { ...values };
  // Old YAML-born fact sets carry their timestamp among the values; Puppet drops it.
  delete facts._timestamp;
  return facts;
}

/** What an External Node Classifier said about the node. */
export interface Classification {
  readonly classes: readonly { readonly name: string; readonly parameters: Readonly<Record<string, Json>> }[];
  readonly parameters: Readonly<Record<string, Json>>;
  readonly environment?: string;
}

/** Runs the classifier: argv, then its exit status and standard output. */
export type EncRunner = (argv: readonly string[]) => { status: number | null; stdout: string };

const defaultRunner: EncRunner = (argv) => {
  const [program = "", ...args] = argv;
  const result = spawnSync(program, args, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    maxBuffer: 1 << 26,
  });
  // Puppet's child reports a program it cannot start as a failure with status 1.
  return { status: result.error ? 1 : result.status, stdout: result.stdout ?? "" };
};

/**
 * Asks the External Node Classifier about `node` when `node_terminus` is
 * `exec`; undefined when the node terminus is `plain` (no classifier) or
 * the classifier printed nothing. Throws a NodeError with Puppet's message
 * when the classifier is not set, not absolute, fails or prints bad YAML.
 */
export function classifyNode(
  settings: Pick<PuppetCompileSettings, "nodeTerminus" | "externalNodes">,
  node: string,
  run: EncRunner = defaultRunner,
): Classification | undefined {
  if (settings.nodeTerminus !== "exec") return undefined;
  const command = settings.externalNodes.split(/\s+/).filter((w) => w !== "");
  if (settings.externalNodes === "none" || command.length === 0)
    throw new NodeError("You must set the 'external_nodes' parameter to use the external node terminus");
  if (!command[0].startsWith("/"))
    throw new NodeError("You must set the exec parameter to a fully qualified command");
  const argv = [...command, node];
  const result = run(argv);
  if (result.status !== 0)
    throw new NodeError(
      `Failed to find ${node} via exec: Execution of '${argv.join(" ")}' returned ${result.status ?? 1}: ${result.stdout.trim()}`,
    );
  if (/^\s*$/.test(result.stdout)) return undefined;
  return parseClassification(node, result.stdout);
}

/** The classifier's YAML as a Classification; bad YAML is Puppet's "Could not load external node results" error. */
export function parseClassification(node: string, text: string): Classification {
  let data: unknown;
  try {
    data = parseYaml(text, { version: "1.1" });
  } catch (error) {
    throw new NodeError(
      `Could not load external node results for ${node}: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  if (data === null || data === undefined) return { classes: [], parameters: {} };
  if (!isObject(data))
    throw new NodeError(
      `Could not load external node results for ${node}: the output is not a mapping of classes, parameters and environment`,
    );
  const classes: { name: string; parameters: Record<string, Json> }[] = [];
  const given = data.classes;
  if (typeof given === "string") classes.push({ name: given, parameters: {} });
  else if (Array.isArray(given)) {
    for (const entry of given) classes.push({ name: String(entry), parameters: {} });
  } else if (isObject(given)) {
    // In the ENC's order (the catalog's `classes` lists them so); Puppet
    // evaluates those given parameters first (see NodeRequest.classes).
    for (const [name, params] of Object.entries(given))
      classes.push({ name, parameters: isObject(params) ? params : {} });
  }
  const parameters = isObject(data.parameters) ? data.parameters : {};
  const environment =
    typeof data.environment === "string" && data.environment !== "" ? data.environment : undefined;
  return { classes, parameters, environment };
}

/** `$trusted` of a local compile: authenticated `local`, the certname from the `clientcert` node parameter. */
export function localTrusted(clientcert: unknown): Record<string, Json> {
  const certname = typeof clientcert === "string" ? clientcert : null;
  const dot = certname === null ? -1 : certname.indexOf(".");
  const hostname = certname === null ? null : dot < 0 ? certname : certname.slice(0, dot);
  const domain = certname === null || dot < 0 ? null : certname.slice(dot + 1);
  return { authenticated: "local", certname, extensions: {}, hostname, domain, external: {} };
}

/**
 * The node request for the compiler, as Puppet builds its node: the
 * parameters (top-scope variables) are the classifier's, then each fact not
 * already set, then each server fact not already set (a clash warns as
 * Puppet warns); `environment` is never one of them (the compiler sets it
 * from the environment compiled).
 */
export function nodeRequest(
  name: string,
  facts: Readonly<Record<string, Json>> | undefined,
  classification: Classification | undefined,
  environment: string,
  warn?: (message: string) => void,
  serverFacts: Readonly<Record<string, string>> = SERVER_FACTS,
): NodeRequest {
  const parameters: Record<string, Json> = {};
  const merge = (values: Readonly<Record<string, Json>>, warnClash: boolean): void => {
    for (const [key, value] of Object.entries(values)) {
      if (!Object.hasOwn(parameters, key)) parameters[key] = value;
      else if (warnClash)
        warn?.(
          `The node parameter '${key}' for node '${name}' was already set to '${rubyText(parameters[key])}'. It could not be set to '${rubyText(value)}'`,
        );
    }
  };
  merge(classification?.parameters ?? {}, false);
  merge(facts ?? {}, true);
  merge(serverFacts, true);
  delete parameters.environment;
  return {
    name,
    facts: facts ?? {},
    trusted: localTrusted(parameters.clientcert),
    serverFacts: { ...serverFacts, environment },
    parameters,
    classes: classification?.classes ?? [],
    fromEnc: classification !== undefined,
  };
}

/** A value as Ruby's to_s writes the simple ones (for messages). */
function rubyText(value: Json): string {
  if (value === null) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
