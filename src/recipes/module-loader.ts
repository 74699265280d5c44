/**
 * Loads users' TypeScript and JavaScript files with no build step: each
 * file is transpiled by esbuild to a CommonJS function body and run with a
 * `require` of our own, which hands out the modules tend provides
 * (`hostModules`, e.g. `tend/recipes`, the very instances the converge
 * half uses), Node's built-ins, the user's other files (loaded the same
 * way, once per run) and packages installed beside the cookbooks.
 *
 * Why not ES modules from temporary files: the `tend` command runs as a
 * CommonJS bundle compiled by node:vm, where `import()` of a file is refused
 * on Node 20; and a second copy of tend's DSL loaded from disk would not be
 * the one the run uses. Why the async transform: esbuild's service starts
 * in ~25 ms where the first `transformSync` took 80-160 ms here.
 *
 * All of a file's imports are transpiled before it runs (in parallel), so
 * running stays synchronous and in order, as `import` is. Positions in
 * errors are mapped back to the user's file through esbuild's source map.
 */
import { readFileSync, statSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import { dirname, extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { compileFunction } from "node:vm";
import { lineColumn } from "../catalog/json-locate.js";
import type { RecipesDiagnostic, SourcePosition } from "./model.js";
import { RecipesError } from "./model.js";
import { decodeMappings, originalPosition } from "./source-map.js";
import { readCachedTranspile, writeCachedTranspile } from "./transpile-cache.js";

/** Modules tend lends to user code by specifier (`tend/recipes`). */
export type HostModules = Readonly<Record<string, unknown>>;

interface Transpiled {
  readonly path: string;
  readonly code: string;
  readonly map: string;
  /** Relative specifiers -> the user file each names. */
  readonly files: ReadonlyMap<string, string>;
  mappings?: ReturnType<typeof decodeMappings>;
}

interface UserModule {
  exports: Record<string, unknown>;
}

const PARAMETERS = ["exports", "require", "module", "__filename", "__dirname", "__tendImportMeta"];
const REQUIRE = /\brequire\("((?:[^"\\]|\\.)*)"\)/g;
const CANDIDATES = ["", ".ts", ".mts", ".js", ".mjs", ".json", "/index.ts", "/index.js"];

type Esbuild = typeof import("esbuild");
let esbuildModule: Promise<Esbuild> | undefined;

/** One run's user modules: each file transpiled and run at most once. */
export class ModuleLoader {
  private readonly pending = new Map<string, Promise<Transpiled>>();
  private readonly transpiled = new Map<string, Transpiled>();
  private readonly modules = new Map<string, UserModule>();

  /** `cacheDirectory`: where transpiled files are kept across runs (none: transpile every run). */
  constructor(
    private readonly hostModules: HostModules = {},
    private readonly cacheDirectory?: string,
  ) {}

  /**
   * The exports of the user file at `path` (absolute), running it and what
   * it imports the first time. A syntax error or an import that names no
   * file is a RecipesError; what the code throws while running is thrown
   * as is (see `locate` to place it).
   */
  async load(path: string): Promise<Record<string, unknown>> {
    await this.prepare(path);
    return this.run(path);
  }

  /** Where in a user file `error` was thrown: the first stack frame in one, mapped to the source. */
  locate(error: unknown): SourcePosition | undefined {
    const stack = error instanceof Error ? (error.stack ?? "") : "";
    for (const frame of stack.split("\n").slice(1)) {
      const match = /\(?([^\s()]+):(\d+):(\d+)\)?$/.exec(frame.trim());
      if (!match) continue;
      const file = (match[1] as string).replace(/^file:\/\//, "");
      const position = this.original(file, Number(match[2]), Number(match[3]));
      if (position) return { file, ...position };
    }
    return undefined;
  }

  /**
   * A position in the code Node runs (a stack frame's `file:line:col`) as
   * the user's line and column; a file this loader did not load is
   * returned as is.
   */
  mapPosition(position: { file: string; line: number; column?: number }): SourcePosition {
    const mapped = this.original(position.file, position.line, position.column ?? 1);
    return mapped ? { file: position.file, ...mapped } : { column: 1, ...position };
  }

  /** A generated position of a loaded file mapped to the user's line and column. */
  private original(file: string, line: number, column: number): { line: number; column: number } | undefined {
    const t = this.transpiled.get(file);
    if (!t) return undefined;
    t.mappings ??= decodeMappings((JSON.parse(t.map) as { mappings: string }).mappings);
    return originalPosition(t.mappings, line, column) ?? { line: 1, column: 1 };
  }

  /** Transpiles `root` and every user file it reaches, in parallel. */
  private async prepare(root: string): Promise<void> {
    const seen = new Set<string>();
    const visit = async (path: string): Promise<void> => {
      if (seen.has(path) || this.modules.has(path)) return;
      seen.add(path);
      const t = await this.transpile(path);
      await Promise.all([...t.files.values()].map(visit));
    };
    await visit(root);
  }

  private transpile(path: string): Promise<Transpiled> {
    let p = this.pending.get(path);
    if (!p) {
      p = transpileFile(path, this.cacheDirectory).then((t) => {
        this.transpiled.set(path, t);
        return t;
      });
      this.pending.set(path, p);
    }
    return p;
  }

  private run(path: string): Record<string, unknown> {
    const cached = this.modules.get(path);
    if (cached) return cached.exports;
    const t = this.transpiled.get(path) as Transpiled;
    const module: UserModule = { exports: {} };
    this.modules.set(path, module);
    if (extname(path) === ".json") {
      module.exports = JSON.parse(t.code) as Record<string, unknown>;
      return module.exports;
    }
    const fn = compileFunction(t.code, PARAMETERS, { filename: path });
    const meta = { url: pathToFileURL(path).href, filename: path, dirname: dirname(path) };
    fn.call(module.exports, module.exports, this.requireFor(t), module, path, dirname(path), meta);
    return module.exports;
  }

  private requireFor(t: Transpiled): (specifier: string) => unknown {
    let nodeRequire: NodeJS.Require | undefined;
    return (specifier) => {
      if (Object.hasOwn(this.hostModules, specifier)) return this.hostModules[specifier];
      const file = t.files.get(specifier);
      if (file) return this.run(file);
      if (isBuiltin(specifier)) return createRequire(t.path)(specifier);
      if (specifier === "tend" || specifier.startsWith("tend/")) {
        const known = Object.keys(this.hostModules).join(", ") || "none";
        throw new Error(`'${specifier}' is not a module tend provides to cookbooks (provided: ${known})`);
      }
      nodeRequire ??= createRequire(t.path);
      return nodeRequire(specifier);
    };
  }
}

/** Reads and transpiles one file; a syntax error or an unresolvable relative import is a RecipesError. */
async function transpileFile(path: string, cacheDirectory: string | undefined): Promise<Transpiled> {
  const text = readFileSync(path, "utf8");
  if (extname(path) === ".json") return { path, code: text, map: '{"mappings":""}', files: new Map() };
  const cached = cacheDirectory === undefined ? undefined : readCachedTranspile(cacheDirectory, path, text);
  const result = cached ?? (await transform(path, text));
  if (!cached && cacheDirectory !== undefined) writeCachedTranspile(cacheDirectory, path, text, result);
  return { path, code: result.code, map: result.map, files: resolveImports(path, text, result.code) };
}

/** esbuild's transform of one file to a CommonJS body with an external source map. */
async function transform(path: string, text: string): Promise<{ code: string; map: string }> {
  // require, not import(): the CLI bundle runs under node:vm, where import() is refused.
  esbuildModule ??= Promise.resolve(createRequire(import.meta.url)("esbuild") as Esbuild);
  const esbuild = await esbuildModule;
  let result: { code: string; map: string };
  try {
    result = await esbuild.transform(text, {
      loader: /\.m?ts$/.test(path) ? "ts" : "js",
      format: "cjs",
      target: "node20",
      platform: "node",
      sourcemap: "external",
      sourcefile: path,
      logLevel: "silent",
      define: {
        "import.meta.url": "__tendImportMeta.url",
        "import.meta.filename": "__tendImportMeta.filename",
        "import.meta.dirname": "__tendImportMeta.dirname",
      },
    });
  } catch (error) {
    throw new RecipesError(esbuildDiagnostics(path, error));
  }
  return { code: result.code, map: result.map };
}

/** esbuild's errors as diagnostics (its columns are 0-based). */
function esbuildDiagnostics(path: string, error: unknown): RecipesDiagnostic[] {
  type Message = { text: string; location: { file: string; line: number; column: number } | null };
  const messages = (error as { errors?: Message[] }).errors ?? [];
  if (messages.length === 0)
    return [
      { code: "syntax-error", severity: "error", message: String(error), file: path, line: 1, column: 1 },
    ];
  return messages.map((m) => ({
    code: "syntax-error",
    severity: "error",
    message: m.text,
    file: path,
    line: m.location?.line ?? 1,
    column: (m.location?.column ?? 0) + 1,
  }));
}

/** The user files a transpiled module requires, by specifier; a relative one naming no file is an error. */
function resolveImports(path: string, text: string, code: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const match of code.matchAll(REQUIRE)) {
    const specifier = JSON.parse(`"${match[1]}"`) as string;
    if (!specifier.startsWith("./") && !specifier.startsWith("../") && !specifier.startsWith("/")) continue;
    const file = resolveFile(resolve(dirname(path), specifier));
    if (!file) {
      const offset = Math.max(0, text.indexOf(specifier));
      const { line, column } = lineColumn(text, offset);
      const message = `cannot find '${specifier}': no such file (tried .ts, .mts, .js, .mjs, .json and index files)`;
      throw new RecipesError([{ code: "load-error", severity: "error", message, file: path, line, column }]);
    }
    files.set(specifier, file);
  }
  return files;
}

/** The file an import names: as written, `.ts` for `.js` (TypeScript's convention), then with extensions. */
function resolveFile(base: string): string | undefined {
  const swapped = /\.m?js$/.test(base) ? [base.replace(/js$/, "ts")] : [];
  for (const candidate of [base, ...swapped, ...CANDIDATES.slice(1).map((ext) => base + ext)]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not this one.
    }
  }
  return undefined;
}
