/**
 * Where Puppet 7 looks for a named thing on the module path (the modus
 * operandi's "Auto Loading"): a name's segments in lower case become path
 * segments, the first segment names the module, and only names whose every
 * segment is a letter then letters, digits or `_` are loadable.
 * - Classes and defined types (the 3.x type loader): the module's
 *   `init.pp` (always loaded with the module), then the most specific file,
 *   then files dropping the most specific segment (`a::b::c` →
 *   `a/manifests/init.pp`, `a/manifests/b/c.pp`, `a/manifests/b.pp`).
 * - Functions and type aliases (the 4.x loaders): only the exact path in the
 *   module the first segment names (`a::b::c` → `a/functions/b/c.pp`,
 *   `A::B` → `a/types/b.pp`); `environment::x` is the environment's own
 *   `functions/x.pp` / `types/x.pp`.
 * - Ruby functions and types that tend cannot run, found so that the
 *   compiler's error can name them.
 * - Templates and files: `mod/x.erb` → `<mod>/templates/x.erb`.
 * Each answer is only of files that exist; lookups are cached per loader.
 */
import { statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Autoloader, PuppetEnvironment } from "./environment.js";

const SEGMENT = /^[a-z][a-z0-9_]*$/;

/** The lower-case segments of a loadable name (`::a::B` → `[a, b]`), or undefined when a segment is not loadable. */
export function nameSegments(name: string): string[] | undefined {
  const segments = name.replace(/^::/, "").toLowerCase().split("::");
  return segments.every((s) => SEGMENT.test(s)) ? segments : undefined;
}

/** Whether a file name (`c.pp`, `init.pp`) could be loaded by name: a loadable segment then the extension. */
export function isEligibleFileName(fileName: string, extension = ".pp"): boolean {
  return fileName.endsWith(extension) && SEGMENT.test(fileName.slice(0, -extension.length));
}

export class ModuleAutoloader implements Autoloader {
  /** Whether a path is a file, by path: stat once per loader. */
  private readonly files = new Map<string, boolean>();

  constructor(private readonly environment: PuppetEnvironment) {}

  definitionFiles(name: string): readonly string[] {
    const segments = nameSegments(name);
    if (!segments) return [];
    const module = this.environment.modules.get(segments[0]);
    if (!module) return [];
    const manifests = join(module.dir, "manifests");
    const found: string[] = [];
    const add = (path: string): void => {
      if (!found.includes(path) && this.isFile(path)) found.push(path);
    };
    add(join(manifests, "init.pp"));
    for (let end = segments.length; end > 1; end--) add(`${join(manifests, ...segments.slice(1, end))}.pp`);
    return found;
  }

  functionFiles(name: string): readonly string[] {
    return this.exactPath(name, "functions");
  }

  typeAliasFiles(name: string): readonly string[] {
    return this.exactPath(name, "types");
  }

  rubyFunctionFile(name: string): string | undefined {
    const segments = nameSegments(name);
    if (!segments) return undefined;
    if (segments.length > 1) {
      const module = this.environment.modules.get(segments[0]);
      if (!module) return undefined;
      const path = `${join(module.dir, "lib/puppet/functions", ...segments)}.rb`;
      return this.isFile(path) ? path : undefined;
    }
    for (const module of this.environment.modules.values()) {
      for (const dir of ["lib/puppet/functions", "lib/puppet/parser/functions"]) {
        const path = join(module.dir, dir, `${segments[0]}.rb`);
        if (this.isFile(path)) return path;
      }
    }
    return undefined;
  }

  rubyTypeFile(name: string): string | undefined {
    const segments = nameSegments(name);
    const only = segments?.length === 1 ? segments[0] : undefined;
    if (only === undefined) return undefined;
    for (const module of this.environment.modules.values()) {
      const path = join(module.dir, "lib/puppet/type", `${only}.rb`);
      if (this.isFile(path)) return path;
    }
    return undefined;
  }

  moduleFile(kind: "templates" | "files", reference: string): string | undefined {
    if (reference === "") return undefined;
    if (isAbsolute(reference)) return reference;
    const slash = reference.indexOf("/");
    if (slash <= 0 || slash === reference.length - 1) return undefined;
    const module = this.environment.modules.get(reference.slice(0, slash));
    if (!module) return undefined;
    const path = join(module.dir, kind, reference.slice(slash + 1));
    return this.isFile(path) ? path : undefined;
  }

  /** The 4.x search: `a::b::c` → `<a>/<kind>/b/c.pp` only (`environment::x` → `<env>/<kind>/x.pp`). */
  private exactPath(name: string, kind: "functions" | "types"): readonly string[] {
    const segments = nameSegments(name);
    if (!segments || segments.length < 2) return [];
    const root =
      segments[0] === "environment" ? this.environment.dir : this.environment.modules.get(segments[0])?.dir;
    if (root === undefined) return [];
    const path = `${join(root, kind, ...segments.slice(1))}.pp`;
    return this.isFile(path) ? [path] : [];
  }

  private isFile(path: string): boolean {
    let known = this.files.get(path);
    if (known === undefined) {
      try {
        known = statSync(path, { throwIfNoEntry: false })?.isFile() === true;
      } catch {
        known = false;
      }
      this.files.set(path, known);
    }
    return known;
  }
}
