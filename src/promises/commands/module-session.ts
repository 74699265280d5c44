/**
 * One run of a module: its protocol lines applied in order. The context
 * (the scope variables go to) starts as the command's canonified base
 * name; `^context`, `^meta` and `^persistence` hold for the lines after
 * them in the same run only. Commands promises (`module => "true"`),
 * usemodule() and read_module_protocol() apply modules through a host.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { canonify, canonifyClassName } from "../../eval/class-expression.js";
import { commandArg0 } from "../../eval/functions/exec.js";
import { parseJsonText, unstorableNumberIn } from "../../eval/functions/json-text.js";
import { type Value, data, list, scalar } from "../../eval/values.js";
import { parseVarRef } from "../../eval/var-ref.js";
import type { LogLevel } from "../../system/logger.js";
import type { EvalContext, EntryMeta } from "../../eval/context.js";
import type { PromiseEnvironment } from "../contract.js";
import { type ModuleDirective, decodeModuleLine } from "./module-protocol.js";

/** What a module's directives act on. */
export interface ModuleHost {
  readonly ctx: EvalContext;
  log(level: LogLevel, message: string): void;
  /** Defines a class in its namespace; with minutes, also keeps it that long. */
  defineClass(name: string, persistMinutes: number | undefined, meta: EntryMeta): void;
  /** An error the run cannot go on after. */
  fatal(message: string): void;
}

/** A commands promise's environment as a module host. */
export function promiseModuleHost(env: PromiseEnvironment): ModuleHost {
  return {
    ctx: env.ctx,
    log: (level, message) => env.log.log(level, message),
    defineClass: (name, minutes, meta) => env.defineClass(name, "namespace", minutes, meta),
    fatal: (message) => env.fatal(message),
  };
}

/** Which lines outside the protocol are shown as `M '<command>': line`. */
export type ModuleEcho = "all" | "non-blank" | "none";

export class ModuleSession {
  private context: string;
  private tags: readonly string[] = [];
  private persistence = 0;
  /** Set by a line that stops cf-agent: the lines after it are not read. */
  private stopped = false;

  constructor(
    private readonly host: ModuleHost,
    /** The command (or file) the lines come from; its base name is the first context. */
    private readonly source: string,
    private readonly echo: ModuleEcho,
  ) {
    this.context = canonify(basename(commandArg0(source)));
    host.log("verbose", `Module context '${this.context}'`);
  }

  /** Applies one output line of the module. */
  accept(line: string): void {
    if (!this.stopped) this.apply(decodeModuleLine(line));
  }

  private apply(directive: ModuleDirective): void {
    const log = {
      verbose: (message: string) => this.host.log("verbose", message),
      info: (message: string) => this.host.log("info", message),
    };
    switch (directive.kind) {
      case "context":
        log.verbose(`Module changed variable context from '${this.context}' to '${directive.name}'`);
        this.context = directive.name;
        return;
      case "meta":
        log.verbose(`Module set meta tags to '${directive.tags.slice(0, -1).join(",")}'`);
        this.tags = directive.tags;
        return;
      case "persistence":
        log.verbose(`Module set persistence to ${directive.minutes} minutes`);
        this.persistence = directive.minutes;
        return;
      case "define":
        this.defineClass(directive.name);
        return;
      case "undefine":
        this.undefineClasses(directive.names);
        return;
      case "string":
        this.setVariable(directive.name, scalar(directive.value));
        return;
      case "list":
        this.setVariable(directive.name, list(directive.items));
        return;
      case "data":
        this.setVariable(directive.name, data(directive.json));
        return;
      case "file":
        this.readFile(directive.name, directive.path);
        return;
      case "text":
        if (this.echo === "all" || (this.echo === "non-blank" && directive.line.trim() !== "")) {
          log.info(`M '${this.source}': ${directive.line}`);
        }
        return;
      case "problem":
        for (const message of directive.messages) this.host.log(directive.level, message);
        return;
      case "none":
        return;
      case "fatal":
        this.stopped = true;
        this.host.fatal(directive.message);
        return;
    }
  }

  private defineClass(name: string): void {
    const canonical = canonifyClassName(name);
    this.host.log("verbose", `Activating classes from module protocol: '${name}'`);
    const persist = this.persistence > 0 ? this.persistence : undefined;
    if (persist !== undefined) {
      this.host.log("verbose", `Module set persistent class '${name}' for ${persist} minutes`);
    }
    // As 3.21: no tags until a `^meta` line, then its tags and `source=module`.
    this.host.defineClass(canonical, persist, { tags: this.tags });
  }

  private undefineClasses(names: readonly string[]): void {
    const ctx = this.host.ctx;
    this.host.log("verbose", `Deactivating classes from module protocol: '${names.join(",")}'`);
    for (const name of names) {
      if (ctx.isHardClass(name)) {
        this.host.fatal(`Cannot negate the reserved class '${name}'`);
        return;
      }
      ctx.undefineClass(name);
    }
  }

  private setVariable(name: string, value: Value): void {
    const parsed = parseVarRef(name);
    const ref = { ...parsed, ns: parsed.ns ?? "default", scope: parsed.scope ?? this.context };
    this.host.log("verbose", `Defined variable '${name}' in context '${this.context}'`);
    // Before any ^meta, a module's variables have no tag set at all (as in 3.21).
    this.host.ctx.setVariable(ref, value, { tags: this.tags.length > 0 ? this.tags : null });
  }

  /** `&name=path`: a JSON file read into a data container. */
  private readFile(name: string, path: string): void {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      this.host.log("error", `could not load module file '${path}'`);
      return;
    }
    const json = parseJsonText(text);
    if (json === undefined) {
      this.host.log("error", `Module file '${path}' does not hold valid JSON`);
      return;
    }
    const unstorable = unstorableNumberIn(text);
    if (unstorable) {
      this.apply({ kind: "fatal", message: unstorable });
      return;
    }
    this.setVariable(name, data(json));
  }
}
