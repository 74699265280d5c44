/**
 * Worker thread of the conformance harness: compiles each CompileSpec it is
 * sent with tend's `compileCatalog` and answers with the outcome. Anything
 * that is not a PuppetCompileError is a crash (reported, never thrown).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parentPort } from "node:worker_threads";
import type { Autoloader, PuppetEnvironment, PuppetModule } from "../../../src/puppet/env/environment.js";
import type { CompileInput, CompileResult } from "../../../src/puppet/eval/compile-api.js";
import type { FunctionTable } from "../../../src/puppet/eval/functions/registry.js";
import type { CompileSpec, Outcome, TendMessage } from "./harness.js";

type Compile = (input: CompileInput) => CompileResult | Promise<CompileResult>;

/** Where the compiler may export `compileCatalog` (the contract names compile-api.ts). */
const candidates = [
  "../../../src/puppet/eval/compile-api.js",
  "../../../src/puppet/eval/compile.js",
  "../../../src/puppet/eval/compiler.js",
  "../../../src/puppet/eval/index.js",
];

async function findCompiler(): Promise<Compile | string> {
  for (const c of candidates) {
    try {
      const mod = (await import(c)) as { compileCatalog?: unknown };
      if (typeof mod.compileCatalog === "function") return mod.compileCatalog as Compile;
    } catch {
      // not there yet
    }
  }
  return "compileCatalog is not implemented yet (src/puppet/eval)";
}

async function findStdlib(): Promise<FunctionTable | undefined> {
  try {
    const mod = (await import("../../../src/puppet/eval/functions/stdlib/index.js")) as {
      stdlibFunctions?: FunctionTable;
    };
    return mod.stdlibFunctions;
  } catch {
    return undefined;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Modules on the module path: the first of each name wins. */
function modulesOf(modulePath: readonly string[]): Map<string, PuppetModule> {
  const modules = new Map<string, PuppetModule>();
  for (const dir of modulePath) {
    if (!isDir(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      if (!/^[a-z][a-z0-9_]*$/.test(name) || modules.has(name)) continue;
      const path = join(dir, name);
      if (isDir(path)) modules.set(name, { name, dir: path });
    }
  }
  return modules;
}

/**
 * A minimal Autoloader (the contract's rules) until src/puppet/env's real
 * one lands: existing files only.
 */
export function localAutoloader(modules: ReadonlyMap<string, PuppetModule>): Autoloader {
  const existing = (paths: string[]): string[] => paths.filter((p) => existsSync(p));
  return {
    definitionFiles(name) {
      const segs = name.toLowerCase().replace(/^::/, "").split("::");
      const mod = modules.get(segs[0] ?? "");
      if (mod === undefined) return [];
      const files: string[] = [];
      for (let n = segs.length - 1; n >= 1; n--)
        files.push(`${join(mod.dir, "manifests", ...segs.slice(1, n + 1))}.pp`);
      files.push(join(mod.dir, "manifests", "init.pp"));
      return existing(files);
    },
    functionFiles(name) {
      const segs = name.toLowerCase().replace(/^::/, "").split("::");
      const mod = modules.get(segs[0] ?? "");
      if (mod === undefined || segs.length < 2) return [];
      return existing([`${join(mod.dir, "functions", ...segs.slice(1))}.pp`]);
    },
    typeAliasFiles(name) {
      const segs = name.toLowerCase().replace(/^::/, "").split("::");
      const mod = modules.get(segs[0] ?? "");
      if (mod === undefined || segs.length < 2) return [];
      return existing([`${join(mod.dir, "types", ...segs.slice(1))}.pp`]);
    },
    rubyFunctionFile(name) {
      const segs = name.toLowerCase().replace(/^::/, "").split("::");
      for (const mod of modules.values()) {
        const f4 = `${join(mod.dir, "lib", "puppet", "functions", ...segs)}.rb`;
        if (existsSync(f4)) return f4;
        if (segs.length === 1) {
          const f3 = join(mod.dir, "lib", "puppet", "parser", "functions", `${segs[0]}.rb`);
          if (existsSync(f3)) return f3;
        }
      }
      return undefined;
    },
    rubyTypeFile(name) {
      for (const mod of modules.values()) {
        const f = join(mod.dir, "lib", "puppet", "type", `${name.toLowerCase()}.rb`);
        if (existsSync(f)) return f;
      }
      return undefined;
    },
    moduleFile(kind, reference) {
      const slash = reference.indexOf("/");
      if (slash < 0) return undefined;
      const mod = modules.get(reference.slice(0, slash));
      if (mod === undefined) return undefined;
      const f = join(mod.dir, kind, reference.slice(slash + 1));
      return existsSync(f) ? f : undefined;
    },
  };
}

function buildInput(spec: CompileSpec, stdlib: FunctionTable | undefined): CompileInput {
  const modules = modulesOf(spec.modulePath);
  const environment: PuppetEnvironment = {
    name: spec.environment,
    ...(spec.envDir !== undefined ? { dir: spec.envDir } : {}),
    manifests: spec.manifests,
    ...(spec.code !== undefined ? { code: spec.code } : {}),
    modulePath: spec.modulePath,
    modules,
  };
  return {
    environment,
    autoloader: localAutoloader(modules),
    node: {
      name: spec.nodeName,
      facts: spec.facts,
      trusted: spec.trusted,
      serverFacts: spec.serverFacts,
      parameters: {},
      classes: [],
      fromEnc: false,
    },
    ...(spec.stdlib && stdlib ? { functions: stdlib } : {}),
  };
}

function messagesOf(result: { messages?: readonly { level: string; message: string }[] }): TendMessage[] {
  return (result.messages ?? []).map((m) => ({ level: m.level, message: m.message }));
}

interface EnvCompile {
  compileNodeCatalog(request: {
    node: string;
    settings: unknown;
    factsDir: string;
    warn?: (message: string) => void;
  }): Promise<{ result: CompileResult }>;
}
interface Settings {
  resolveCompileSettings(given: Record<string, string>, cwd: string): { serverDatadir: string };
}

/** A compile through src/puppet/env, as `tend puppet catalog compile` makes it. */
async function compileByRequest(spec: CompileSpec & { confdir: string }): Promise<Outcome> {
  const env = (await import("../../../src/puppet/env/compile.js")) as unknown as EnvCompile;
  const settingsMod = (await import("../../../src/puppet/settings.js")) as unknown as Settings;
  const warnings: TendMessage[] = [];
  try {
    const settings = settingsMod.resolveCompileSettings(
      { confdir: spec.confdir, environment: spec.environment, facts_terminus: "json" },
      process.cwd(),
    );
    const { result } = await env.compileNodeCatalog({
      node: spec.nodeName,
      settings,
      factsDir: settings.serverDatadir,
      warn: (message) => warnings.push({ level: "warning", message }),
    });
    return {
      kind: "catalog",
      catalog: JSON.parse(JSON.stringify(result.catalog)) as Record<string, unknown>,
      messages: [...warnings, ...messagesOf(result)],
    };
  } catch (e) {
    const err = e as Error;
    if (/not in tend yet/.test(err?.message ?? "")) return { kind: "crash", message: err.message };
    if (err?.name === "PuppetCompileError" || err?.name === "CompileSetupError")
      return { kind: "error", message: err.message, messages: warnings };
    return { kind: "crash", message: `${err?.name ?? "Error"}: ${err?.message ?? String(e)}` };
  }
}

const compilerP = findCompiler();
const stdlibP = findStdlib();

parentPort?.on("message", (spec: CompileSpec) => {
  void (async (): Promise<Outcome> => {
    if (spec.confdir !== undefined) return compileByRequest({ ...spec, confdir: spec.confdir });
    const compile = await compilerP;
    if (typeof compile === "string") return { kind: "crash", message: compile };
    const stdlib = await stdlibP;
    try {
      const result = await compile(buildInput(spec, stdlib));
      return {
        kind: "catalog",
        catalog: JSON.parse(JSON.stringify(result.catalog)) as Record<string, unknown>,
        messages: messagesOf(result),
      };
    } catch (e) {
      const err = e as Error & {
        messages?: readonly { level: string; message: string }[];
        line?: number;
        column?: number;
      };
      if (err?.name === "PuppetCompileError")
        return {
          kind: "error",
          message: err.message,
          messages: messagesOf(err),
          ...(err.line !== undefined ? { line: err.line } : {}),
          ...(err.column !== undefined ? { column: err.column } : {}),
        };
      return { kind: "crash", message: `${err?.name ?? "Error"}: ${err?.message ?? String(e)}` };
    }
  })().then((outcome) => parentPort?.postMessage({ id: spec.id, outcome }));
});
