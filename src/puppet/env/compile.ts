/**
 * What `puppet catalog compile NODE` does around the compiler: the node
 * (facts, classifier), the environment (the classifier's when it names one,
 * else the `environment` setting), the autoloader, Hiera and the functions,
 * then the compile and its catalog. Library code: it returns the catalog
 * and the messages, or a CompileSetupError / PuppetCompileError whose
 * message is Puppet's; the command line prints them.
 */
import type { Logger } from "../../system/logger.js";
import { type CompileInput, type CompileResult, PuppetCompileError } from "../eval/compile-api.js";
import type { FunctionTable, PuppetFunction } from "../eval/functions/registry.js";
import { stdlibFunctions } from "../eval/functions/stdlib/index.js";
import { type HieraLookup, hieraFunctions, openHiera } from "../hiera/index.js";
import type { PuppetCompileSettings } from "../settings.js";
import { ModuleAutoloader } from "./autoloader.js";
import type { NodeRequest, PuppetEnvironment } from "./environment.js";
import {
  EnvironmentError,
  environmentNotFound,
  findEnvironmentDir,
  loadEnvironment,
} from "./environments.js";
import {
  type Classification,
  type EncRunner,
  NodeError,
  SERVER_FACTS,
  classifyNode,
  nodeRequest,
  readFactsJson,
} from "./node.js";

/**
 * A compile that could not start. `stage` says where, which decides how
 * Puppet words it: `node` errors come from finding the node ("Failed when
 * searching for node N: ..."), `environment` from the environment named on
 * the command line, `compile` from what the compile was given.
 */
export class CompileSetupError extends Error {
  override readonly name = "CompileSetupError";
  constructor(
    message: string,
    readonly stage: "node" | "environment" | "compile",
  ) {
    super(message);
  }
}

export interface CatalogRequest {
  /** The node's name (`puppet catalog compile NODE`, or `certname` for apply). */
  readonly node: string;
  readonly settings: PuppetCompileSettings;
  /** Where the json facts terminus reads: `<server_datadir>` for a compile, `<vardir>/client_data` for apply. */
  readonly factsDir: string;
  /**
   * `puppet apply` compiles with the node as it found it: no server facts
   * (`$server_facts` holds only `environment`, `$servername` & co are unset).
   */
  readonly forApply?: boolean;
  readonly logger?: Logger;
  /** Non-fatal messages Puppet prints as `Warning:` (environment.conf, the node's parameters). */
  readonly warn?: (message: string) => void;
  readonly runEnc?: EncRunner;
  readonly cwd?: string;
}

/** Everything the compiler is given, and what was decided on the way. */
export interface PreparedCompile {
  readonly input: CompileInput;
  readonly classification?: Classification;
}

/** Finds the node, its environment and the code: the compiler's input. */
export async function prepareCompile(request: CatalogRequest): Promise<PreparedCompile> {
  const { settings, node } = request;
  // Puppet finds the configured environment when it starts, before the node.
  if (findEnvironmentDir(settings, settings.environment) === undefined)
    throw new CompileSetupError(environmentNotFound(settings, settings.environment).message, "environment");
  let facts: ReturnType<typeof readFactsJson>;
  let classification: Classification | undefined;
  try {
    classification = classifyNode(settings, node, request.runEnc);
    if (settings.nodeTerminus === "exec" && classification === undefined)
      throw new CompileSetupError(`Could not find node '${node}'; cannot compile`, "compile");
    if (settings.factsTerminus === "json") {
      try {
        facts = readFactsJson(request.factsDir, node);
      } catch (error) {
        if (!(error instanceof NodeError)) throw error;
        throw new NodeError(`Could not retrieve facts for ${node}: ${error.message}`);
      }
    } else {
      request.warn?.(
        `tend does not run facter (facts_terminus ${settings.factsTerminus}): the node has no facts; use --facts_terminus json`,
      );
    }
    if (
      classification?.environment !== undefined &&
      findEnvironmentDir(settings, classification.environment) === undefined
    )
      throw environmentNotFound(settings, classification.environment);
  } catch (error) {
    if (error instanceof NodeError || error instanceof EnvironmentError)
      throw new CompileSetupError(`Failed when searching for node ${node}: ${error.message}`, "node");
    throw error;
  }
  const environmentName = classification?.environment ?? settings.environment;
  let environment: PuppetEnvironment;
  try {
    environment = loadEnvironment(settings, environmentName, {
      warn: request.warn,
      debug: debugOf(request.logger),
      cwd: request.cwd,
    });
  } catch (error) {
    if (!(error instanceof EnvironmentError)) throw error;
    throw new CompileSetupError(
      error.message,
      classification?.environment !== undefined ? "compile" : "environment",
    );
  }
  const nodeReq: NodeRequest = nodeRequest(
    node,
    facts,
    classification,
    environment.name,
    request.warn,
    request.forApply ? {} : SERVER_FACTS,
  );
  const autoloader = new ModuleAutoloader(environment);
  const hiera = openHiera({
    environment,
    confdir: settings.confdir,
    codedir: settings.codedir,
    hieraConfig: settings.hieraConfig,
    logger: request.logger,
    warn: request.warn,
  });
  const functions = functionTable(hiera);
  return {
    // The compile's own messages come back in its result (printed by the
    // caller, in order); the logger is for the loading done here.
    input: {
      environment,
      autoloader,
      node: nodeReq,
      hiera,
      functions,
      settings: {
        strict: settings.strict,
        strict_variables: settings.strictVariables,
        confdir: settings.confdir,
        codedir: settings.codedir,
        vardir: settings.vardir,
        environmentpath: settings.environmentpath,
        basemodulepath: settings.basemodulepath,
        node_terminus: settings.nodeTerminus,
        external_nodes: settings.externalNodes,
        facts_terminus: settings.factsTerminus,
      },
    },
    classification,
  };
}

/** A compile's outcome, timed as Puppet times it ("Compiled catalog for N in environment E in S seconds"). */
export interface CompiledCatalog {
  readonly result: CompileResult;
  readonly environment: string;
  readonly seconds: number;
}

/** Prepares and runs the compile. Throws CompileSetupError or PuppetCompileError. */
export async function compileNodeCatalog(request: CatalogRequest): Promise<CompiledCatalog> {
  const prepared = await prepareCompile(request);
  const api: Record<string, unknown> = await import("../eval/compile-api.js");
  const compileCatalog = api.compileCatalog as
    | ((input: CompileInput) => CompileResult | Promise<CompileResult>)
    | undefined;
  if (typeof compileCatalog !== "function")
    throw new PuppetCompileError("the Puppet compiler is not in tend yet (issue 16: compileCatalog)");
  // process.hrtime, not the global `performance`, whose first use loads
  // Node's perf_hooks modules (~0.7 ms of a start).
  const started = process.hrtime.bigint();
  const result = await compileCatalog(prepared.input);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { result, environment: prepared.input.environment.name, seconds };
}

/**
 * A compile error as Puppet prints it: the message, where (`(file: F,
 * line: L, column: C)`) and `on node N`, unless the message says them already.
 */
export function compileErrorText(error: PuppetCompileError, node: string): string {
  let text = error.message;
  if (!/\((file|line): [^)]*\)/.test(text)) {
    const where = errorLocation(error.file, error.line, error.column);
    if (where !== "") text += ` ${where}`;
  }
  if (!/ on node \S+$/.test(text)) text += ` on node ${node}`;
  return text;
}

/** Puppet's `(file: F, line: L, column: C)` with whichever parts are known. */
export function errorLocation(file?: string, line?: number, column?: number): string {
  const f = file === "" ? undefined : file;
  if (f !== undefined && line !== undefined && column !== undefined)
    return `(file: ${f}, line: ${line}, column: ${column})`;
  if (f !== undefined && line !== undefined) return `(file: ${f}, line: ${line})`;
  if (line !== undefined && column !== undefined) return `(line: ${line}, column: ${column})`;
  if (line !== undefined) return `(line: ${line})`;
  if (f !== undefined) return `(file: ${f})`;
  return "";
}

function debugOf(logger: Logger | undefined): ((message: string) => void) | undefined {
  return logger ? (message) => logger.log("debug", message) : undefined;
}

/** stdlib's functions, then `lookup` and the hiera_* functions over this compile's Hiera. */
function functionTable(hiera: HieraLookup): FunctionTable {
  const table = new Map<string, PuppetFunction>(stdlibFunctions);
  for (const [name, fn] of hieraFunctions(hiera)) table.set(name, fn);
  return table;
}

export { PuppetCompileError };
