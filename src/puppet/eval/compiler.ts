/**
 * The catalog compiler (Puppet's Parser::Compiler): loads the manifests and
 * autoloads definitions, builds the top scope, evaluates main, the node and
 * the ENC's classes, then the evaluation queue (defined types, collectors)
 * until nothing is left, then relationships, overrides and tags; the
 * catalog JSON comes from catalog.ts.
 */
import { isArr } from "./arr.js";
import { readFileSync } from "node:fs";
import type * as A from "../lang/ast.js";
import type { Locator } from "../lang/locator.js";
import { parsePuppet } from "../lang/parser.js";
import { validatePuppet } from "../lang/validate.js";
import { formatPuppetDiagnostic } from "../lang/diagnostics.js";
import { compilerFunctions, fallbackFunctions } from "./builtin-functions.js";
import { Catalog } from "./catalog.js";
import type { CompileInput, CompileMessage, HieraProvider } from "./compile-api.js";
import { NOT_FOUND, PuppetCompileError } from "./compile-api.js";
import type {
  ClassDefinition,
  DefineDefinition,
  Definition,
  FunctionDef,
  MainDefinition,
  NodeDef,
} from "./definitions.js";
import { BreakSignal, PuppetEvalError, NextSignal, ReturnSignal, evalError } from "./errors.js";
import { Evaluator, interpolate, isTrue, makeRegexp, typeLabel } from "./evaluator.js";
import { coreFunctions } from "./functions/core/index.js";
import {
  type CallContext,
  type CatalogResourceView,
  type CompileView,
  FunctionArgumentError,
  FunctionError,
} from "./functions/registry.js";
import { isValidAttribute, namevarsFromTitle, resourceTypeInfo } from "./resource-types.js";
import { internName, ParamTable } from "./param-table.js";
import { CResource, type ParamEntry, type ResourceKind, type TagMergeMemo } from "./resource.js";
import { rubyInspect } from "./functions/core/ruby-text.js";
import { Scope, type ScopeHost } from "./scope.js";
import {
  ResourceRef,
  asResourceRef,
  capitalizeTypeName,
  describeMismatch,
  isInstance,
  typeByName,
} from "./typing.js";
import {
  DEFERRED_TYPE,
  describeParameterMismatch,
  PIntegerType,
  PResourceType,
  type PType,
  PTypeAliasType,
  PTypeReferenceType,
  TypeSystemError,
} from "./types.js";
import {
  createObjectType,
  isTypeSetExpression,
  nameDefinedType,
  objectTypeExpression,
  typeNameError,
  typeSetMember,
} from "./types/user-objects.js";
import { DEFAULT, type PCallable, PDeferred, PHash, PSensitive, type PValue, isType } from "./values.js";

/** Puppet's warnings for exported resources and their collectors without storeconfigs (tend has none). */
const NO_STORECONFIGS_EXPORT =
  "You cannot collect exported resources without storeconfigs being set; the export is ignored";
const NO_STORECONFIGS_COLLECT =
  "You cannot collect exported resources without storeconfigs being set; the collection will be ignored";
/** Puppet's built-in resource types (those Debian's puppet and its -core modules ship). */
export const BUILTIN_TYPES = new Set([
  "augeas",
  "component",
  "cron",
  "exec",
  "file",
  "filebucket",
  "group",
  "host",
  "mailalias",
  "maillist",
  "mount",
  "notify",
  "package",
  "resources",
  "router",
  "schedule",
  "scheduled_task",
  "selboolean",
  "selmodule",
  "service",
  "ssh_authorized_key",
  "sshkey",
  "stage",
  "tidy",
  "user",
  "whit",
  "yumrepo",
  "zfs",
  "zone",
  "zpool",
  "k5login",
  "macauthorization",
  "mcx",
  "computer",
  "interface",
  "vlan",
]);

/** Functions that iterate over their first argument (an Integer range among them). */
const ITERATING = new Set([
  "each",
  "map",
  "filter",
  "reduce",
  "reverse_each",
  "step",
  "slice",
  "any",
  "all",
  "with_index",
  "flatten",
  "unique",
]);

const METAPARAMS = new Set([
  "alias",
  "audit",
  "before",
  "loglevel",
  "noop",
  "notify",
  "require",
  "schedule",
  "stage",
  "subscribe",
  "tag",
]);
const INHERITED_METAPARAMS = ["alias", "audit", "loglevel", "noop", "schedule", "tag"];

interface Collector {
  readonly typeName: string;
  readonly scope: Scope;
  readonly query: ((r: CResource) => boolean) | undefined;
  readonly overrides: ParamEntry[] | undefined;
  readonly exported: boolean;
  readonly collected: Map<string, CResource>;
  /** realize(): the references it must find. */
  readonly fixed?: ResourceRef[];
}

interface Relationship {
  readonly source: PValue | Collector;
  readonly target: PValue | Collector;
  readonly param: "before" | "notify";
  readonly node: A.NodeBase;
  readonly locator: Locator | undefined;
}

interface Override {
  readonly ref: string;
  readonly params: ParamEntry[];
  readonly source: Definition | undefined;
  readonly fromCollector: boolean;
  readonly file?: string;
  readonly line?: number;
}

const MAIN: MainDefinition = { kind: "main", name: "", locator: undefined as unknown as Locator };

export class Compiler implements ScopeHost {
  readonly qualifiedVariables = new Map<string, PValue>();
  readonly classScopes = new Map<string, Scope>();
  readonly messages: CompileMessage[] = [];
  readonly ev: Evaluator = new Evaluator(this);
  readonly catalog: Catalog;
  readonly topScope: Scope;
  readonly nodeName: string;
  readonly classes = new Map<string, ClassDefinition>();
  readonly defines = new Map<string, DefineDefinition>();
  readonly functions = new Map<string, FunctionDef>();
  readonly nodes: NodeDef[] = [];
  readonly typeAliases = new Map<string, { ast: A.TypeAlias; locator: Locator; type?: PType }>();
  /** Inside a TypeSet's definition, unknown names are references to its own types. */
  private typeSetDepth = 0;
  get inTypeSetDefinition(): boolean {
    return this.typeSetDepth > 0;
  }
  readonly programs: A.Program[] = [];
  private readonly loadedFiles = new Set<string>();
  readonly collectors: Collector[] = [];
  readonly relationships: Relationship[] = [];
  readonly pendingOverrides = new Map<string, Override[]>();
  readonly eppStack: unknown[][] = [];
  nodeScope: Scope | undefined;
  private readonly warnedVariables = new Set<string>();
  /** Keys of the warnings given once per compile (CallContext.warnOnce). */
  private readonly warnedOnce = new Set<string>();
  /** `File`, `Package`...: the type values of built-in resource types, by lower-case name. */
  private readonly builtinTypeRefs = new Map<string, PValue>();
  /** The names of all files parsed, one string each (ParseOptions.names). */
  private readonly names = new Map<string, string>();

  constructor(readonly input: CompileInput) {
    this.nodeName = input.node.name.toLowerCase();
    this.catalog = new Catalog(input.node.name, input.environment.name, input.environment.configVersion);
    this.topScope = new Scope(this, undefined, MAIN, undefined, undefined);
  }

  get hiera(): HieraProvider | undefined {
    return this.input.hiera;
  }

  // --- loading ----------------------------------------------------------------------

  /** Parses `text` as `file` and registers its definitions; syntax errors are compile errors. */
  loadProgram(text: string, file: string, moduleName?: string): A.Program {
    const result = parsePuppet(text, { file, names: this.names });
    if (!result.ok) {
      const d = result.error;
      const pos = d.offset === undefined ? undefined : result.locator.position(d.offset);
      throw new PuppetEvalError(
        `Could not parse for environment ${this.input.environment.name}: ${d.message}`,
        file === "" ? undefined : file,
        pos?.line,
        pos?.column,
      );
    }
    const program = result.program;
    for (const d of validatePuppet(program)) {
      if (d.severity !== "error") continue;
      const pos = result.locator.position(d.offset);
      throw new PuppetEvalError(
        `Could not parse for environment ${this.input.environment.name}: ${d.message}`,
        file === "" ? undefined : file,
        pos.line,
        pos.column,
      );
    }
    for (const d of program.definitions) this.register(d, program.locator, moduleName);
    return program;
  }

  private loadFile(file: string, moduleName?: string): void {
    if (this.loadedFiles.has(file)) return;
    this.loadedFiles.add(file);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return;
    }
    this.loadProgram(text, file, moduleName);
  }

  private moduleOf(file: string): string | undefined {
    for (const m of this.input.environment.modules.values()) {
      if (file.startsWith(`${m.dir}/`)) return m.name;
    }
    return undefined;
  }

  private register(d: A.Definition, locator: Locator, moduleName: string | undefined): void {
    const mod = moduleName ?? (locator.file ? this.moduleOf(locator.file) : undefined);
    const base = { locator, ...(mod ? { moduleName: mod } : {}) };
    switch (d.kind) {
      case "HostClass": {
        const name = d.name.toLowerCase();
        if (this.classes.has(name) || this.defines.has(name)) this.redefinition("Class", name, d, locator);
        const parent = d.parent?.toLowerCase().replace(/^::/, "");
        this.classes.set(name, { kind: "class", name, ast: d, ...base, ...(parent ? { parent } : {}) });
        break;
      }
      case "DefinedType": {
        const name = d.name.toLowerCase();
        if (this.defines.has(name) || this.classes.has(name))
          this.redefinition("Definition", name, d, locator);
        this.defines.set(name, { kind: "define", name, ast: d, ...base });
        break;
      }
      case "FunctionDefinition":
        this.functions.set(d.name.toLowerCase(), {
          kind: "function",
          name: d.name.toLowerCase(),
          ast: d,
          ...base,
        });
        break;
      case "NodeDefinition":
        this.registerNode(d, locator, base);
        break;
      case "TypeAlias":
        this.typeAliases.set(d.name.toLowerCase(), { ast: d, locator });
        break;
      default:
        break;
    }
  }

  /** Puppet's wording for a class or define declared twice: where the first one is, where this one is. */
  private redefinition(kind: "Class" | "Definition", name: string, d: A.NodeBase, locator: Locator): never {
    const firstClass = this.classes.get(name);
    const first = firstClass ?? this.defines.get(name);
    const where = first?.ast ? whereText(first.locator, first.ast.offset) : "";
    const message =
      kind === "Class"
        ? firstClass
          ? `Class '${name}' is already defined${where}; cannot redefine`
          : `Definition '${name}' is already defined${where}; cannot be redefined as a class`
        : firstClass
          ? `'${name}' is already defined${where} as a class; cannot redefine as a definition`
          : `Definition '${name}' is already defined${where}; cannot be redefined`;
    const line = locator.position(d.offset).line;
    throw new PuppetEvalError(`${message}${whereText(locator, d.offset)}`, locator.file || undefined, line);
  }

  private registerNode(
    d: A.NodeDefinition,
    locator: Locator,
    base: { locator: Locator; moduleName?: string },
  ): void {
    const parent = d.parent?.kind === "LiteralString" ? d.parent.value.toLowerCase() : undefined;
    for (const m of d.hostMatches) {
      let match: NodeDef["match"];
      let name: string;
      if (m.kind === "LiteralDefault") {
        match = "default";
        name = "default";
      } else if (m.kind === "LiteralRegex") {
        match = makeRegexp(m.pattern).re;
        name = `__node_regexp__${m.pattern
          .toLowerCase()
          .replace(/[^-\w:.]/g, "")
          .replace(/^\.+/, "")}`;
      } else if (m.kind === "LiteralString") {
        match = m.value.toLowerCase();
        name = match;
      } else continue;
      const dupe = this.nodes.find((n) => n.name === name);
      if (dupe) {
        const first = whereText(dupe.locator, dupe.ast.offset);
        const line = locator.position(d.offset).line;
        throw new PuppetEvalError(
          `Node '${name}' is already defined${first}; cannot redefine${whereText(locator, d.offset)}`,
          locator.file || undefined,
          line,
        );
      }
      this.nodes.push({ kind: "node", name, ast: d, match, ...base, ...(parent ? { parent } : {}) });
    }
  }

  findClass(name: string): ClassDefinition | undefined {
    const n = name.toLowerCase().replace(/^::/, "");
    const found = this.classes.get(n);
    if (found) return found;
    for (const f of this.input.autoloader.definitionFiles(n)) {
      this.loadFile(f);
      const c = this.classes.get(n);
      if (c) return c;
    }
    return undefined;
  }

  findDefine(name: string): DefineDefinition | undefined {
    const n = name.toLowerCase().replace(/^::/, "");
    const found = this.defines.get(n);
    if (found) return found;
    if (BUILTIN_TYPES.has(n)) return undefined;
    for (const f of this.input.autoloader.definitionFiles(n)) {
      this.loadFile(f);
      const c = this.defines.get(n);
      if (c) return c;
    }
    return undefined;
  }

  findFunction(name: string): FunctionDef | undefined {
    const n = name.toLowerCase();
    const found = this.functions.get(n);
    if (found) return found;
    if (!n.includes("::")) return undefined;
    for (const f of this.input.autoloader.functionFiles(n)) {
      this.loadFile(f);
      const fn = this.functions.get(n);
      if (fn) return fn;
    }
    return undefined;
  }

  private findTypeAlias(name: string): PType | undefined {
    let a = this.typeAliases.get(name);
    if (!a && name.includes("::")) {
      // `MyTS::Car`: a type of the TypeSet alias `MyTS`.
      const cut = name.lastIndexOf("::");
      if (this.typeAliases.has(name.slice(0, cut)) && !this.input.autoloader.typeAliasFiles(name).length) {
        const set = this.findTypeAlias(name.slice(0, cut));
        if (set) return typeSetMember(set, name.slice(cut + 2));
      }
    }
    if (!a && name.includes("::")) {
      for (const f of this.input.autoloader.typeAliasFiles(name)) {
        this.loadFile(f);
        a = this.typeAliases.get(name);
        if (a) break;
      }
    }
    if (!a) return undefined;
    if (!a.type) {
      const entry = a;
      a.type = new PTypeAliasType(entry.ast.name, () => {
        const scope = this.topScope;
        const saved = scope.locator;
        scope.locator = entry.locator;
        const typeSet = isTypeSetExpression(entry.ast.typeExpr);
        if (typeSet) this.typeSetDepth++;
        try {
          const t = objectTypeExpression(entry.ast.typeExpr)
            ? this.evaluateObjectAlias(entry.ast.typeExpr, entry.ast.name, scope)
            : this.ev.evaluate(entry.ast.typeExpr, scope);
          if (!isType(t))
            throw new PuppetEvalError(`The type alias ${entry.ast.name} does not resolve to a type`);
          nameDefinedType(t, entry.ast.name);
          return t;
        } finally {
          scope.locator = saved;
          if (typeSet) this.typeSetDepth--;
        }
      });
    }
    return a.type;
  }

  /**
   * `type X = Object[{...}]`: the Object type made from its evaluated hash,
   * with errors in the definition reported as Puppet does, naming X.
   */
  private evaluateObjectAlias(e: A.Expression, name: string, scope: Scope): PValue {
    const keys = (e as A.Access).keys;
    const init = keys.length === 1 ? this.ev.evaluate(keys[0], scope) : undefined;
    if (init === undefined) return this.ev.evaluate(e, scope);
    try {
      const t = createObjectType(init);
      nameDefinedType(t, name);
      return t;
    } catch (error) {
      // Unpositioned: the reference that resolves the alias places it.
      const message = typeNameError(error, name);
      throw message === undefined ? error : new TypeSystemError(message);
    }
  }

  /** Whether `name` (lower case) is a resource type: built in, a module's Ruby type, or a define. */
  resourceTypeKind(name: string): ResourceKind | undefined {
    if (BUILTIN_TYPES.has(name) || resourceTypeInfo(name)) return "compilable_type";
    if (this.findDefine(name)) return "defined_type";
    if (!name.includes("::") && this.input.autoloader.rubyTypeFile(name)) return "compilable_type";
    return undefined;
  }

  /** The type `e` names; an unknown name fails, or with `lenient` is a TypeReference (as in `Class[Foo]`). */
  resolveTypeReference(e: A.QualifiedReference, scope: Scope, lenient = false): PValue {
    const name = e.value.replace(/^::/, "");
    const builtin = typeByName(e.cased);
    if (builtin) return builtin;
    const alias = this.findTypeAlias(name);
    if (alias) {
      // Puppet resolves an alias where it is named (an error in the definition
      // is reported there), except from within its own definition.
      if (alias instanceof PTypeAliasType && !alias.resolving) alias.resolvedType();
      return alias;
    }
    const known = this.builtinTypeRefs.get(name);
    if (known !== undefined) return known;
    if (this.resourceTypeKind(name)) {
      const t = new ResourceRef(capitalizeTypeName(name)).toType();
      // A built-in type's reference is the same value each time (types are immutable).
      if (BUILTIN_TYPES.has(name) || resourceTypeInfo(name)) this.builtinTypeRefs.set(name, t);
      return t;
    }
    if (name === "node") return new ResourceRef("Node").toType();
    if (this.typeSetDepth > 0 || lenient) return new PTypeReferenceType(e.cased);
    return this.ev.fail(`Resource type not found: ${capitalizeTypeName(e.cased)}`, e, scope);
  }

  // --- messages -------------------------------------------------------------------

  log(level: CompileMessage["level"], message: string, source?: string, file?: string, line?: number): void {
    this.messages.push({
      level,
      message,
      ...(source ? { source } : {}),
      ...(file ? { file } : {}),
      ...(line ? { line } : {}),
    });
    const logger = this.input.logger as unknown as
      | Record<string, ((m: string) => void) | undefined>
      | undefined;
    const f = logger?.[level === "err" ? "error" : level === "notice" ? "info" : level];
    if (typeof f === "function") f.call(logger, message);
  }

  /** Puppet's `strict` setting: off, warning (the default) or error. */
  private get strict(): string {
    const v = this.input.settings?.strict;
    return typeof v === "string" && v !== "" ? v : "warning";
  }

  private get strictVariables(): boolean {
    const v = this.input.settings?.strict_variables;
    return v === true || v === "true";
  }

  unknownVariable(name: string, node: A.NodeBase, scope: Scope): void {
    // As Puppet: an error with strict_variables or strict=error, nothing with strict=off.
    if (this.strictVariables || this.strict === "error")
      throw evalError(`Unknown variable: '${name}'.`, node, scope.locator);
    if (this.strict === "off") return;
    if (this.warnedVariables.has(name)) return;
    this.warnedVariables.add(name);
    const pos = scope.locator?.position(node.offset);
    const file = scope.locator?.file || undefined;
    this.log("warning", `Unknown variable: '${name}'.`, undefined, file, pos?.line);
  }

  // --- functions ------------------------------------------------------------------

  callFunction(
    name: string,
    args: PValue[],
    block: PCallable | undefined,
    node: A.NodeBase,
    scope: Scope,
  ): PValue {
    const fn = this.findFunction(name);
    if (fn) return this.callPuppetFunction(fn, args, block, node, scope);
    const first = args[0];
    if (
      first instanceof PIntegerType &&
      ITERATING.has(name) &&
      first.from !== undefined &&
      first.to !== undefined
    ) {
      // Integer[a, b] iterates over a..b (Puppet's Iterable types).
      const values: PValue[] = [];
      for (let i = first.from; i <= first.to && values.length < 1_000_000; i++) values.push(i);
      args[0] = values;
    }
    if (name === "new" && args[0] === DEFERRED_TYPE) return newDeferred(args.slice(1));
    if (name === "call" && args[0] instanceof PDeferred) {
      try {
        return this.resolveDeferred(args[0], node, scope);
      } catch (err) {
        throw this.functionError(err, node, scope);
      }
    }
    try {
      const cf = compilerFunctions.get(name);
      if (cf) return cf(this, scope, args, block, node);
      const ctx = this.callContext(name, node, scope);
      const f = coreFunctions.get(name) ?? this.input.functions?.get(name) ?? fallbackFunctions.get(name);
      if (f) return f(ctx, args, block);
    } catch (err) {
      throw this.functionError(err, node, scope);
    }
    const ruby = this.input.autoloader.rubyFunctionFile(name);
    const file = scope.locator?.file;
    if (ruby) {
      this.ev.fail(
        `Function '${name}' is written in Ruby (${ruby}) and cannot be run by tend; called from ${file || "the command line"}`,
        node,
        scope,
      );
    }
    return this.ev.fail(`Unknown function: '${name}'.`, node, scope);
  }

  /** A call made by a function (`call()`, stdlib helpers): an unknown name is that function's error. */
  callIndirect(
    name: string,
    args: PValue[],
    block: PCallable | undefined,
    node: A.NodeBase,
    scope: Scope,
  ): PValue {
    try {
      return this.callFunction(name, args, block, node, scope);
    } catch (err) {
      if (err instanceof PuppetEvalError && err.message === `Unknown function: '${name}'.`) {
        throw new Error(`Unknown function '${name}'`);
      }
      throw err;
    }
  }

  /** A Deferred called on the compiling side: its function with its (resolved) arguments. */
  resolveDeferred(d: PDeferred, node: A.NodeBase, scope: Scope): PValue {
    // Deferred values nested in arrays, hashes and Sensitive values are resolved first, as Puppet does.
    const resolve = (v: PValue): PValue => {
      if (v instanceof PDeferred) return this.resolveDeferred(v, node, scope);
      if (isArr(v)) return v.map(resolve);
      if (v instanceof PHash) {
        const h = new PHash();
        for (const [k, x] of v) h.set(k, resolve(x));
        return h;
      }
      if (v instanceof PSensitive) return new PSensitive(resolve(v.value));
      return v;
    };
    const args = d.args.map(resolve);
    if (d.name.startsWith("$")) {
      let v = scope.lookup(d.name.slice(1)).value;
      for (const k of args)
        v = v instanceof PHash ? v.get(k) : isArr(v) && typeof k === "bigint" ? v[Number(k)] : undefined;
      return v;
    }
    return this.callIndirect(d.name, args, undefined, node, scope);
  }

  private functionError(err: unknown, node: A.NodeBase, scope: Scope): unknown {
    if (
      err instanceof PuppetCompileError ||
      (err instanceof PuppetEvalError && err.evaluation) ||
      err instanceof ReturnSignal ||
      err instanceof NextSignal ||
      err instanceof BreakSignal
    )
      return err;
    if (err instanceof FunctionArgumentError || err instanceof FunctionError || err instanceof Error) {
      const prefix = node && (node as A.Expression).kind === "CallMethod" ? "Method call" : "Function Call";
      return evalError(`Error while evaluating a ${prefix}, ${err.message}`, node, scope.locator);
    }
    return err;
  }

  callContext(name: string, node: A.NodeBase | undefined, scope: Scope): CallContext {
    const pos = node && scope.locator ? scope.locator.position(node.offset) : undefined;
    return {
      name,
      ...(scope.locator?.file ? { file: scope.locator.file } : {}),
      ...(pos ? { line: pos.line } : {}),
      lookupVariable: (n: string) => scope.lookup(n).value,
      // Puppet's deprecation warnings end with where the call is.
      warn: (m: string) =>
        this.log(
          "warning",
          `${m}\n   (file: ${scope.locator?.file || "unknown"}${pos ? `, line: ${pos.line}` : ""})`,
        ),
      callFunction: (n: string, a: readonly PValue[], b?: PCallable) =>
        this.callIndirect(n, [...a], b, node ?? { offset: 0, length: 0 }, scope),
      warnOnce: (key: string, m: string) => {
        if (this.warnedOnce.has(key)) return;
        this.warnedOnce.add(key);
        this.log("warning", m);
      },
      compile: this.compileView(scope),
    };
  }

  /** The catalog and environment as functions see them from `scope` (CallContext.compile). */
  private compileView(scope: Scope): CompileView {
    const catalog = this.catalog;
    const current = scope.resource;
    return {
      findResource: (type: string, title: string) => {
        const t = type.toLowerCase().replace(/^::/, "");
        const r =
          t === "class"
            ? catalog.find("Class", capitalizeTypeName(title.replace(/^::/, "")))
            : catalog.find(capitalizeTypeName(t), title);
        return r ? resourceView(r) : undefined;
      },
      resourcesOfType: (type: string) => {
        const t = capitalizeTypeName(type.toLowerCase().replace(/^::/, ""));
        return catalog
          .resourceList()
          .filter((r) => r.type === t)
          .map(resourceView);
      },
      get currentResource() {
        return current ? resourceView(current) : undefined;
      },
      hasFunction: (name: string) => {
        const n = name.toLowerCase().replace(/^::/, "");
        return (
          compilerFunctions.has(n) ||
          coreFunctions.has(n) ||
          this.input.functions?.has(n) === true ||
          fallbackFunctions.has(n) ||
          this.findFunction(n) !== undefined
        );
      },
      modulePath: (name: string) => this.input.environment.modules.get(name)?.dir,
    };
  }

  private callPuppetFunction(
    fn: FunctionDef,
    args: PValue[],
    block: PCallable | undefined,
    node: A.NodeBase,
    caller: Scope,
  ): PValue {
    const scope = this.topScope.newScope(fn, this.topScope.resource, fn.locator);
    const params = fn.ast.parameters;
    const all = block ? [...args, block] : args;
    const required = params.filter((p) => !p.value && !p.capturesRest).length;
    if (all.length < required || (!params.some((p) => p.capturesRest) && all.length > params.length)) {
      const range = required === params.length ? `${required}` : `between ${required} and ${params.length}`;
      this.ev.fail(
        `Error while evaluating a Function Call, '${fn.ast.name}' expects ${range} arguments, got ${all.length}`,
        node,
        caller,
      );
    }
    const vars = this.ev.bindParameters(params, all, scope, fn.ast, `'${fn.ast.name}'`);
    for (const [k, v] of vars) scope.setVar(k, v);
    let result: PValue;
    try {
      result = this.ev.evaluate(fn.ast.body, scope);
    } catch (err) {
      if (err instanceof ReturnSignal || err instanceof NextSignal) result = err.value;
      else throw err;
    }
    if (fn.ast.returnType) {
      const t = this.ev.evaluate(fn.ast.returnType, scope);
      if (isType(t) && !isInstance(t, result)) {
        this.ev.fail(
          describeMismatch(`function '${fn.ast.name}' returned`, t, result).replace(
            "returned expects",
            "returned",
          ),
          node,
          caller,
        );
      }
    }
    return result;
  }

  // --- top scope, main, node ----------------------------------------------------------

  compile(): void {
    // Puppet lists the ENC's classes first, when the compiler starts.
    for (const c of this.input.node.classes) this.catalog.addClass(c.name);
    this.setNodeParameters();
    this.createSettingsScope();
    this.evaluateMain();
    this.evaluateNode();
    this.evaluateNodeClasses();
    this.evaluateGenerators();
    this.finish();
  }

  private setNodeParameters(): void {
    const n = this.input.node;
    const top = this.topScope;
    const set = (k: string, v: PValue) => {
      top.symtable.vars.set(k, v);
      this.qualifiedVariables.set(k, v);
    };
    for (const [k, v] of Object.entries(n.facts)) set(k, fromJson(v));
    for (const [k, v] of Object.entries(n.parameters)) if (k !== "environment") set(k, fromJson(v));
    set("environment", this.input.environment.name);
    set("trusted", fromJson(n.trusted));
    set("server_facts", fromJson(n.serverFacts));
    set("facts", fromJson(n.facts));
  }

  private createSettingsScope(): void {
    const def: ClassDefinition = {
      kind: "class",
      name: "settings",
      locator: undefined as unknown as Locator,
    };
    const r = new CResource("Class", "Settings", this.topScope, undefined, "unknown", undefined, undefined);
    this.catalog.add(r);
    this.catalog.addClass("settings");
    this.catalog.addEdge(this.catalog.stage, r);
    r.evaluated = true;
    const scope = this.topScope.newScope(def, r);
    r.bodyScope = scope;
    this.classScopes.set("settings", scope);
    // The settings manifests test most; values as Puppet's settings scope holds them.
    const given = this.input.settings ?? {};
    const settings: [string, PValue][] = [
      ["environment", this.input.environment.name],
      ["strict", this.strict],
      ["strict_variables", this.strictVariables],
      ["storeconfigs", given.storeconfigs === true || given.storeconfigs === "true"],
      ["certname", this.input.node.name],
    ];
    const shown = new Set(settings.map(([k]) => k));
    for (const [k, v] of Object.entries(given)) if (!shown.has(k) && v !== undefined) settings.push([k, v]);
    for (const [k, v] of settings) scope.setVar(k, v);
    scope.setVar("all_local", PHash.from(settings));
  }

  private evaluateMain(): void {
    const top = this.topScope;
    const main = new CResource("Class", "main", top, MAIN, "unknown", undefined, undefined);
    main.set({ name: "name", value: "main", source: MAIN });
    top.resource = main;
    this.catalog.add(main);
    this.catalog.addClass("");
    this.catalog.main = main;
    main.evaluated = true;
    main.bodyScope = top;
    top.setVar("title", "main");
    top.setVar("name", "main");
    this.classScopes.set("", top);
    this.catalog.addEdge(this.catalog.stage, main);
    const env = this.input.environment;
    const sources: [string, string][] =
      env.code !== undefined ? [[env.code, ""]] : env.manifests.map((f) => [readFileSync(f, "utf8"), f]);
    for (const [text, file] of sources) {
      this.loadedFiles.add(file);
      this.programs.push(this.loadProgram(text, file));
    }
    for (const p of this.programs) {
      top.locator = p.locator;
      this.ev.evaluate(p.body, top);
    }
  }

  private selectNode(): NodeDef | undefined {
    if (this.nodes.length === 0) return undefined;
    const find = (n: string): NodeDef | undefined => {
      const exact = this.nodes.find((d) => d.name === n);
      if (exact) return exact;
      for (const d of this.nodes) {
        if (!(d.match instanceof RegExp)) continue;
        const m = d.match.exec(n);
        if (m) {
          this.nodeMatch = [...m];
          return d;
        }
      }
      return undefined;
    };
    const found = find(this.nodeName) ?? find("default");
    if (found) return found;
    throw new PuppetEvalError(`Could not find node statement with name 'default' or '${this.nodeName}'`);
  }

  private nodeMatch: (string | undefined)[] | undefined;

  private evaluateNode(): void {
    const node = this.selectNode();
    if (!node) return;
    const r = this.ensureNodeResource(node);
    this.evaluateResource(r);
    this.nodeScope = r.bodyScope;
  }

  private ensureNodeResource(node: NodeDef): CResource {
    const existing = this.catalog.find("Node", node.name);
    if (existing) return existing;
    if (node.parent) {
      const parent = this.nodes.find((n) => n.name === node.parent);
      if (parent) this.ensureNodeResource(parent);
    }
    const r = new CResource("Node", node.name, this.topScope, MAIN, "unknown", undefined, undefined);
    r.definition = node;
    this.catalog.mergeTags(r.tags);
    this.addResource(this.topScope, r);
    return r;
  }

  private evaluateNodeClasses(): void {
    const scope = this.nodeScope ?? this.topScope;
    const classes = this.input.node.classes;
    const withParams = classes.filter((c) => Object.keys(c.parameters).length > 0);
    const without = classes.filter((c) => Object.keys(c.parameters).length === 0);
    for (const c of withParams) {
      const params = Object.entries(c.parameters).map(
        ([k, v]): ParamEntry => ({ name: k, value: fromJson(v), source: undefined }),
      );
      this.declareClass(c.name, scope, params, undefined, true);
    }
    for (const c of without) this.declareClass(c.name, scope, undefined, undefined, true);
  }

  // --- classes and defines -----------------------------------------------------------

  /**
   * include/require/contain (params undefined) or a resource-like
   * declaration (params given): the class's resource, evaluated unless lazy.
   */
  declareClass(
    name: string,
    scope: Scope,
    params: ParamEntry[] | undefined,
    node: A.NodeBase | undefined,
    lazy = false,
  ): CResource {
    const n = name.toLowerCase().replace(/^::/, "");
    const def = this.findClass(n);
    if (!def) {
      const msg = `Could not find class ::${n} for ${this.nodeName}`;
      throw new PuppetEvalError(msg);
    }
    const title = capitalizeTypeName(n);
    const existing = this.catalog.find("Class", title);
    if (existing && params === undefined) return existing;
    if (existing) {
      const at = existing.file !== undefined ? ` (file: ${existing.file}, line: ${existing.line})` : "";
      const msg = `Duplicate declaration: Class[${title}] is already declared${at ? ` at${at}` : ""}; cannot redeclare`;
      throw new PuppetEvalError(msg);
    }
    if (def.parent) {
      const parent = this.findClass(def.parent);
      if (!parent) {
        const msg = `Could not find parent resource type '${def.parent}' of type hostclass in ${this.input.environment.name}`;
        throw new PuppetEvalError(msg);
      }
      if (!this.catalog.find("Class", capitalizeTypeName(parent.name)))
        this.declareClass(parent.name, scope, undefined, node, true);
    }
    const pos = node && params ? scope.locator?.position(node.offset) : undefined;
    const file = pos ? scope.locator?.file || undefined : undefined;
    const r = new CResource("Class", title, scope, scope.source, "unknown", file, pos?.line);
    r.definition = def;
    for (const p of params ?? []) r.set(p);
    this.catalog.mergeTags(r.tags);
    this.addResource(scope, r);
    if (!lazy) this.evaluateResource(r);
    return r;
  }

  /** Evaluates a class, node or define resource's body (once). */
  evaluateResource(r: CResource): void {
    if (r.evaluated) return;
    r.evaluated = true;
    const def = r.definition;
    if (!def) return;
    if (def.kind === "class") this.evaluateClass(r, def);
    else if (def.kind === "define") this.evaluateDefine(r, def);
    else if (def.kind === "node") this.evaluateNodeBody(r, def);
  }

  private evaluateClass(r: CResource, def: ClassDefinition): void {
    let parentScope = r.scope;
    if (def.parent) {
      const pr = this.catalog.find("Class", capitalizeTypeName(def.parent));
      if (pr) {
        this.evaluateResource(pr);
        if (pr.bodyScope) parentScope = pr.bodyScope;
      }
    }
    const scope = parentScope.newScope(def, r, def.locator);
    r.bodyScope = scope;
    this.catalog.addClass(def.name);
    this.setModuleVariables(scope, def, r);
    scope.setVar("title", def.name);
    scope.setVar("name", def.name);
    this.classScopes.set(def.name, scope);
    this.bindResourceParameters(r, scope, def.ast?.parameters ?? [], true, def);
    this.addEdgeToStage(r);
    const ast = def.ast;
    if (ast?.body) {
      // A class is evaluated once per compile: its body is not needed
      // again, and the definition keeping it would keep the whole syntax
      // tree alive (and copied by each garbage collection) to the end.
      def.ast = { ...ast, body: undefined };
      this.ev.evaluateBody(ast.body, scope);
    }
  }

  private setModuleVariables(scope: Scope, def: Definition, r: CResource): void {
    if (def.moduleName) scope.setVar("module_name", def.moduleName);
    const caller = r.scope.source?.moduleName;
    if (caller) scope.setVar("caller_module_name", caller);
  }

  private addEdgeToStage(r: CResource): void {
    const stageName = r.get("stage");
    const stageTitle = typeof stageName === "string" ? stageName : "main";
    const stage = this.catalog.find("Stage", stageTitle);
    if (!stage) throw new PuppetEvalError(`Could not find stage ${stageTitle} specified by ${r.ref}`);
    this.catalog.addEdge(stage, r);
  }

  private evaluateDefine(r: CResource, def: DefineDefinition): void {
    const scope = r.scope.newScope(def, r, def.locator);
    r.bodyScope = scope;
    this.setModuleVariables(scope, def, r);
    scope.setVar("title", r.title);
    const nameParam = r.params.get("name");
    scope.setVar("name", nameParam ? nameParam.value : r.title);
    this.bindResourceParameters(r, scope, def.ast.parameters, false, def);
    try {
      if (def.ast.body) this.ev.evaluateBody(def.ast.body, scope);
    } catch (err) {
      // Puppet reports a break() out of a defined type's body as an error of the resource it evaluates.
      if (!(err instanceof BreakSignal)) throw err;
      throw new PuppetEvalError(
        "Error while evaluating an Object, break() from context where this is illegal",
        err.file ?? "unknown",
        err.line,
        undefined,
        true,
      );
    }
  }

  private evaluateNodeBody(r: CResource, def: NodeDef): void {
    let parentScope = this.topScope;
    if (def.parent) {
      const pr = this.catalog.find("Node", def.parent);
      if (pr) {
        this.evaluateResource(pr);
        if (pr.bodyScope) parentScope = pr.bodyScope;
      }
    }
    const scope = parentScope.newScope(def, r, def.locator);
    r.bodyScope = scope;
    this.catalog.addClass(def.name);
    scope.setVar("title", def.name);
    scope.setVar("name", def.name);
    if (def.match instanceof RegExp && this.nodeMatch) scope.pushMatch(this.nodeMatch);
    if (def.ast.body) this.ev.evaluateBody(def.ast.body, scope);
  }

  /** Parameters of a class or define: given values, Hiera (classes), defaults; checked. */
  private bindResourceParameters(
    r: CResource,
    scope: Scope,
    params: readonly A.Parameter[],
    isClass: boolean,
    def: ClassDefinition | DefineDefinition,
  ): void {
    const names = new Set(params.map((p) => p.name));
    for (const k of r.params.keys()) {
      if (k === "name" || METAPARAMS.has(k)) continue;
      if (!names.has(k)) throw new PuppetEvalError(`${r.ref}: has no parameter named '${k}'`, r.file, r.line);
    }
    for (const p of params) {
      const given = r.params.get(p.name);
      let value: PValue = given?.value;
      let have = given !== undefined && given.value !== undefined;
      if (!have && isClass && this.hiera) {
        const found = this.lookupParameter(`${def.name}::${p.name}`, scope, def.moduleName, this.hiera);
        if (found !== NOT_FOUND && !(found === undefined && p.value)) {
          value = found;
          have = true;
          r.set({ name: p.name, value, source: def });
        }
      }
      if (!have && p.value) {
        value = this.ev.evaluate(p.value, scope);
        r.set({ name: p.name, value, source: def });
        have = true;
      }
      if (!have && given === undefined) {
        throw new PuppetEvalError(`${r.ref}: expects a value for parameter '${p.name}'`, r.file, r.line);
      }
      if (p.typeExpr) {
        const t = this.ev.evaluate(p.typeExpr, scope);
        if (isType(t) && !isInstance(t, value)) {
          throw new PuppetEvalError(describeParameterMismatch(r.ref, p.name, t, value), r.file, r.line);
        }
      }
      scope.setVar(p.name, value);
    }
  }

  /**
   * Automatic parameter lookup. Its failures are Puppet's preformatted
   * LookupErrors: reported as they are, not as an error of the statement.
   */
  private lookupParameter(
    key: string,
    scope: Scope,
    moduleName: string | undefined,
    hiera: HieraProvider,
  ): PValue | typeof NOT_FOUND {
    try {
      return hiera.lookup(
        key,
        { lookupVariable: (n) => scope.lookup(n).value },
        moduleName ? { moduleName } : {},
      );
    } catch (err) {
      if (err instanceof Error && !(err instanceof PuppetEvalError))
        throw new PuppetCompileError(err.message);
      throw err;
    }
  }

  // --- resources --------------------------------------------------------------------

  /** Adds a resource to the catalog, contained by `scope`'s resource (classes: by a stage). */
  addResource(scope: Scope, r: CResource): void {
    const existing = this.catalog.find(r.type, r.title);
    if (existing) {
      const at =
        existing.file !== undefined
          ? ` at (file: ${existing.file}, line: ${existing.line})`
          : existing.line !== undefined
            ? ` at (line: ${existing.line})`
            : "";
      throw new PuppetEvalError(
        `Duplicate declaration: ${r.ref} is already declared${at}; cannot redeclare`,
        r.file,
        r.line,
      );
    }
    if (!r.isClass && r.get("stage") !== undefined) {
      throw new PuppetEvalError(
        `Only classes can set 'stage'; normal resources like ${r.ref} cannot change run stage`,
      );
    }
    this.catalog.add(r);
    const alias = r.get("alias");
    if (alias !== undefined) {
      for (const a of [alias].flat(2)) if (typeof a === "string") this.catalog.alias(r, a);
    }
    if (r.isStage) return;
    // Overrides pending for it are merged at finish, as Puppet does.
    if (!r.isClass && scope.resource) this.catalog.addEdge(scope.resource, r);
  }

  /** Declares the resources of `e`; their references are its value, made when `wanted`. */
  resourceExpression(e: A.Resource, scope: Scope, wanted = true): PValue {
    const ev = this.ev;
    // tend has no storeconfigs (PuppetDB): Puppet's warning without them.
    if (e.form === "exported") this.log("warning", NO_STORECONFIGS_EXPORT);
    let typeName: string;
    if (e.typeName.kind === "QualifiedName") typeName = e.typeName.value.toLowerCase();
    else {
      const t = ev.evaluate(e.typeName, scope);
      const ref = asResourceRef(t);
      if (!ref || ref.title !== undefined) {
        return ev.fail(
          `Illegal Resource Type expression, expected result to be a type name, or untitled Resource, got ${typeLabel(t)}`,
          e.typeName,
          scope,
        );
      }
      typeName = ref.typeName.toLowerCase();
    }
    if (typeName.startsWith("::")) typeName = typeName.slice(2);
    // The titles used so far, to find one used twice: made at the second
    // title (most resource statements have one title and one body).
    let firstTitle: string | undefined;
    let titlesUsed: Set<string> | undefined;
    const bodies: { body: A.ResourceBody; titles: string[]; params: ParamTable }[] = [];
    let defaults: ParamTable | undefined;
    // Indexed loops: for-of makes an iterator result per step in code not
    // yet optimized, and this runs for every resource.
    for (let bi = 0; bi < e.bodies.length; bi++) {
      const body = e.bodies[bi] as A.ResourceBody;
      const tv = ev.evaluate(body.title, scope);
      // One body titled by one string (most statements): the resource made
      // at once, without the lists of titles and bodies below (four lists
      // and an object per resource, three of them grown by push).
      if (typeof tv === "string" && tv !== "" && e.bodies.length === 1) {
        const params = this.evaluateOperations(body.operations, scope, e);
        return this.createResource(e, body, scope, typeName, tv, params, wanted);
      }
      if (tv === undefined)
        ev.fail("Missing title. The title expression resulted in undef", body.title, scope);
      const titles = typeof tv === "string" ? [tv] : ([tv].flat(Number.POSITIVE_INFINITY as 1) as PValue[]);
      const strings: string[] = [];
      let isDefault = false;
      for (let i = 0; i < titles.length; i++) {
        const t = titles[i];
        if (t === undefined)
          ev.fail(`Missing title at index ${i}. The title expression resulted in undef`, body.title, scope);
        if (t === DEFAULT) {
          isDefault = true;
          continue;
        }
        if (typeof t !== "string")
          ev.fail(
            `Illegal title type at index ${i}. Expected String, got ${typeLabel(t)}`,
            body.title,
            scope,
          );
        if (t === "")
          ev.fail(
            `Empty string title at ${i}. Title strings must have a length greater than zero.`,
            body.title,
            scope,
          );
        if (firstTitle === undefined) firstTitle = t as string;
        else {
          titlesUsed ??= new Set([firstTitle]);
          if (titlesUsed.has(t as string))
            ev.fail(`The title '${t}' has already been used in this resource expression`, e, scope);
          titlesUsed.add(t as string);
        }
        strings.push(t as string);
      }
      const params = this.evaluateOperations(body.operations, scope, e);
      if (isDefault) defaults = params;
      bodies.push({ body, titles: strings, params });
    }
    // One body of one title, no defaults (most statements): the resource
    // takes the map of its parameters as it is, no copy made.
    if (bodies.length === 1 && defaults === undefined) {
      const b = bodies[0] as (typeof bodies)[number];
      if (b.titles.length === 1)
        return this.createResource(e, b.body, scope, typeName, b.titles[0] as string, b.params, wanted);
    }
    const refs: PValue[] = [];
    for (let bi = 0; bi < bodies.length; bi++) {
      const b = bodies[bi] as (typeof bodies)[number];
      let params: ReadonlyMap<string, ParamEntry> = b.params;
      if (defaults !== undefined && defaults !== params) {
        const merged = new Map(defaults);
        for (const [k, v] of b.params) merged.set(k, v);
        params = merged;
      }
      const list = [...params.values()];
      for (let t = 0; t < b.titles.length; t++) {
        const title = b.titles[t] as string;
        const ref = this.createResource(e, b.body, scope, typeName, title, list, wanted);
        if (wanted) refs.push(ref);
      }
    }
    return refs.length === 1 ? refs[0] : refs;
  }

  evaluateOperations(ops: readonly A.Operation[], scope: Scope, owner: A.NodeBase): ParamTable {
    // A list of the exact size when every operation sets one attribute (an
    // array grown by push starts with room for 17).
    let n = 0;
    for (let i = 0; i < ops.length; i++) if ((ops[i] as A.Operation).kind === "AttributeOperation") n++;
    const list: ParamEntry[] = n === ops.length ? new Array<ParamEntry>(n) : [];
    const source = scope.source;
    let at = 0;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i] as A.Operation;
      if (op.kind === "AttributeOperation") {
        // The common entry made in one literal, in one shape for all.
        const name = internName(op.name);
        const value = this.ev.evaluate(op.value, scope);
        if (indexOfParam(list, at, name) !== -1)
          this.ev.fail(`The attribute '${name}' has already been set`, owner, scope);
        list[at++] = { name, value, add: op.operator === "+>", source, at: op.offset };
      } else {
        const h = this.ev.evaluate(op.expr, scope);
        if (!(h instanceof PHash))
          this.ev.fail(`Expected value of type Hash, got ${typeLabel(h)}`, op.expr, scope);
        const entries: [string, PValue][] = [];
        for (const [k, v] of h) entries.push([String(k), v]);
        for (const [name, value] of entries) {
          if (indexOfParam(list, at, name) !== -1)
            this.ev.fail(`The attribute '${name}' has already been set`, owner, scope);
          list[at++] = { name, value, source, at: op.offset };
        }
      }
    }
    return new ParamTable(list);
  }

  createResourceFromFunction(
    e: A.Resource,
    body: A.ResourceBody,
    scope: Scope,
    typeName: string,
    title: string,
    params: ParamEntry[],
  ): PValue {
    return this.createResource(e, body, scope, typeName, title, params);
  }

  private createResource(
    e: A.Resource,
    _body: A.ResourceBody,
    scope: Scope,
    typeName: string,
    title: string,
    /** A table is the resource's own from then on (resourceExpression made it for it alone). */
    params: ParamEntry[] | ParamTable,
    wanted = true,
  ): PValue {
    const line = scope.locator?.line(e.offset);
    const file = scope.locator?.file;
    try {
      if (typeName === "class") {
        const cls = this.findClass(title);
        const name = cls ? cls.name : title.toLowerCase();
        if (e.form !== "regular") this.ev.fail("Classes cannot be virtual or exported", e, scope);
        const list = Array.isArray(params) ? params : [...params.values()];
        const r = this.declareClassResourceLike(name, scope, list, e, file, line);
        return r.toRef().toType();
      }
      const kind = this.resourceTypeKind(typeName);
      if (!kind) throw new Error(`Unknown resource type: '${typeName}'`);
      const type = capitalizeTypeName(typeName);
      const r = new CResource(
        type,
        title,
        scope,
        scope.source,
        kind,
        file,
        line,
        e.form === "regular" ? undefined : { virtual: true, exported: e.form === "exported" },
        Array.isArray(params) ? undefined : params,
      );
      if (kind === "defined_type") r.definition = this.findDefine(typeName);
      const info = kind === "compilable_type" ? resourceTypeInfo(typeName) : undefined;
      if (Array.isArray(params)) {
        for (let i = 0; i < params.length; i++) {
          const p = params[i] as ParamEntry;
          if (info && !isValidAttribute(info, p.name)) throw new Error(`no parameter named '${p.name}'`);
          r.set(p);
        }
      } else {
        // Taken as it is: what set() does besides storing, done here.
        params.forEach((p) => {
          if (info && !isValidAttribute(info, p.name)) throw new Error(`no parameter named '${p.name}'`);
          if (p.name === "tag") r.tagWith(p.value);
        });
      }
      const defaults = scope.lookupDefaults(type);
      if (defaults.size > 0) for (const [k, d] of defaults) if (!r.params.has(k)) r.set(d);
      this.addResource(scope, r);
      if (info && info.namevars.length === 1) this.aliasByNamevar(r, info);
      return wanted ? r.toRef().toType() : undefined;
    } catch (err) {
      if (err instanceof PuppetCompileError) throw err;
      if (err instanceof PuppetEvalError && err.line === undefined)
        throw evalError(err.message, e, scope.locator);
      if (err instanceof PuppetEvalError) {
        throw evalError(`Error while evaluating a Resource Statement, ${err.message}`, e, scope.locator);
      }
      if (err instanceof Error)
        throw evalError(`Error while evaluating a Resource Statement, ${err.message}`, e, scope.locator);
      throw err;
    }
  }

  /** A resource whose namevar differs from its title is findable by it too (Puppet's uniqueness key). */
  private aliasByNamevar(r: CResource, info: NonNullable<ReturnType<typeof resourceTypeInfo>>): void {
    const nv = info.namevars[0] as string;
    const given = r.get(nv) ?? r.get("name");
    // The title is the namevar's value (no alias) for a type without title
    // patterns, and for a file whose title has no trailing slash.
    if (
      typeof given !== "string" &&
      (info.titlePatterns === undefined || (info.name === "file" && !r.title.endsWith("/")))
    )
      return;
    const key = typeof given === "string" ? given : namevarsFromTitle(info, r.title)[nv];
    if (key !== undefined && key !== r.title) this.catalog.alias(r, key);
  }

  private declareClassResourceLike(
    name: string,
    scope: Scope,
    params: ParamEntry[],
    e: A.NodeBase,
    file?: string,
    line?: number,
  ): CResource {
    const def = this.findClass(name);
    if (!def) this.ev.fail(`Could not find declared class ${name}`, e, scope);
    const title = capitalizeTypeName(def.name);
    const existing = this.catalog.find("Class", title);
    if (existing) {
      const at = existing.file !== undefined ? ` at (file: ${existing.file}, line: ${existing.line})` : "";
      this.ev.fail(
        `Duplicate declaration: Class[${title}] is already declared${at}; cannot redeclare`,
        e,
        scope,
      );
    }
    if (def.parent && !this.catalog.find("Class", capitalizeTypeName(def.parent)))
      this.declareClass(def.parent, scope, undefined, e, true);
    const r = new CResource("Class", title, scope, scope.source, "class", file, line);
    r.definition = def;
    for (const p of params) r.set(p);
    this.catalog.mergeTags(r.tags);
    this.addResource(scope, r);
    this.evaluateResource(r);
    return r;
  }

  defaultsExpression(e: A.ResourceDefaults, scope: Scope): PValue {
    const t = this.ev.evaluate(e.typeRef, scope);
    const ref = asResourceRef(t);
    if (!ref || ref.title !== undefined)
      this.ev.fail(
        `Illegal Resource Type expression, expected result to be a type name, or untitled Resource, got ${typeLabel(t)}`,
        e.typeRef,
        scope,
      );
    const params = this.evaluateOperations(e.operations, scope, e);
    let table = scope.defaults.get(ref.typeName);
    if (!table) {
      table = new Map();
      scope.defaults.set(ref.typeName, table);
    }
    for (const [k, p] of params) {
      if (table.has(k))
        this.ev.fail(`Default already defined for ${ref.typeName} { ${k} }; cannot redefine`, e, scope);
      table.set(k, p);
    }
    return t;
  }

  overrideExpression(e: A.ResourceOverride, scope: Scope): PValue {
    const value = this.ev.evaluate(e.resources, scope);
    const params = [...this.evaluateOperations(e.operations, scope, e).values()];
    const list = [value].flat(Number.POSITIVE_INFINITY as 1) as PValue[];
    const pos = scope.locator?.position(e.offset);
    for (const v of list) {
      if (isCollector(v)) {
        continue;
      }
      const ref = asResourceRef(v);
      if (!ref || ref.typeName === "Class")
        this.ev.fail(`Resource Override can only operate on resources, got: ${overriddenLabel(v)}`, e, scope);
      if (ref.title === undefined) {
        this.ev.fail(
          `Illegal Resource Type expression, expected result to be a type name, or untitled Resource, got ${typeLabel(v)}`,
          e,
          scope,
        );
      }
      this.addOverride({
        ref: ref.refString(),
        params,
        source: scope.source,
        fromCollector: false,
        ...(scope.locator?.file ? { file: scope.locator.file } : {}),
        ...(pos ? { line: pos.line } : {}),
      });
    }
    return value;
  }

  addOverride(o: Override): void {
    const r = this.catalog.findRef(o.ref);
    if (r) this.mergeOverride(r, o);
    else {
      let list = this.pendingOverrides.get(o.ref);
      if (!list) {
        list = [];
        this.pendingOverrides.set(o.ref, list);
      }
      list.push(o);
    }
  }

  private mergeOverride(r: CResource, o: Override): void {
    if (!o.fromCollector && !(o.source === r.source || isChildOf(o.source, r.source, this))) {
      throw new PuppetEvalError("Only subclasses can override parameters", o.file, o.line);
    }
    for (const p of o.params) {
      const current = r.params.get(p.name);
      if (current && p.add) {
        r.set({ ...p, value: [current.value, p.value].flat() as PValue[] });
      } else r.set(p);
    }
  }

  resourceParameter(ref: ResourceRef, name: string, node: A.NodeBase, scope: Scope): PValue {
    const r = this.catalog.findRef(ref.refString());
    if (!r) this.ev.fail(`Resource not found: ${ref.refString()}`, node, scope);
    const p = r.params.get(name);
    if (p) return p.value;
    const d = r.scope.lookupDefaults(r.type).get(name);
    if (d) return d.value;
    if (name === "title") return r.title;
    return undefined;
  }

  // --- collectors and relationships ------------------------------------------------

  collectExpression(e: A.Collect, scope: Scope): PValue {
    if (e.query.kind === "ExportedQuery") this.log("warning", NO_STORECONFIGS_COLLECT);
    const t = e.typeExpr;
    const name = t.kind === "QualifiedReference" ? t.value.replace(/^::/, "") : "";
    if (name !== "class" && !this.resourceTypeKind(name))
      this.ev.fail(`Error while evaluating a Virtual Query, Resource type ${name} doesn't exist`, e, scope);
    if (name === "class")
      this.ev.fail("Error while evaluating a Virtual Query, Classes cannot be collected", e, scope);
    const typeName = capitalizeTypeName(name);
    const query = e.query.expr ? this.compileQuery(e.query.expr, scope) : undefined;
    const ops =
      e.operations.length > 0 ? [...this.evaluateOperations(e.operations, scope, e).values()] : undefined;
    const c: Collector = {
      typeName,
      scope,
      query,
      overrides: ops,
      exported: e.query.kind === "ExportedQuery",
      collected: new Map(),
    };
    this.collectors.push(c);
    return c as unknown as PValue;
  }

  private compileQuery(q: A.Expression, scope: Scope): (r: CResource) => boolean {
    const ev = this.ev;
    switch (q.kind) {
      case "Paren":
        return this.compileQuery((q as A.UnaryExpression).expr, scope);
      case "And": {
        const l = this.compileQuery(q.left, scope);
        const r = this.compileQuery(q.right, scope);
        return (x) => l(x) && r(x);
      }
      case "Or": {
        const l = this.compileQuery(q.left, scope);
        const r = this.compileQuery(q.right, scope);
        return (x) => l(x) || r(x);
      }
      case "Comparison": {
        const attr = q.left.kind === "QualifiedName" ? q.left.value : interpolate(ev.evaluate(q.left, scope));
        const value = ev.evaluate(q.right, scope);
        const eq = (r: CResource) => {
          if (attr === "tag") return typeof value === "string" && r.tags.has(value.toLowerCase());
          const v = attr === "title" ? r.title : r.get(attr);
          if (isArr(v)) return v.some((x) => queryEquals(x, value));
          return queryEquals(v, value);
        };
        if (q.operator === "==") return eq;
        if (q.operator === "!=") return (r) => !eq(r);
        return ev.fail(`The operator '${q.operator}' in a Collector query is not supported`, q, scope);
      }
      default:
        return ev.fail("Illegal query expression", q, scope);
    }
  }

  private evaluateCollector(c: Collector): boolean {
    if (c.exported) return false;
    const found: CResource[] = [];
    if (c.fixed) {
      for (const ref of c.fixed) {
        const r = this.catalog.findRef(ref.refString());
        if (r) found.push(r);
      }
    } else {
      for (const r of this.catalog.resourceList()) {
        if (r.type === c.typeName && (!c.query || c.query(r))) found.push(r);
      }
    }
    for (const r of found) {
      r.virtual = false;
    }
    if (found.length === 0) return false;
    if (c.overrides) {
      for (const r of found) {
        if (!c.collected.has(r.ref)) {
          this.addOverride({ ref: r.ref, params: c.overrides, source: c.scope.source, fromCollector: true });
        }
      }
    }
    const fresh = found.filter((r) => !c.collected.has(r.ref));
    for (const r of fresh) c.collected.set(r.ref, r);
    return fresh.length > 0;
  }

  /** `realize(refs)`: a fixed-set collector. */
  realize(refs: ResourceRef[], scope: Scope): void {
    const c: Collector = {
      typeName: "",
      scope,
      query: undefined,
      overrides: undefined,
      exported: false,
      collected: new Map(),
      fixed: refs,
    };
    this.collectors.push(c);
  }

  relationship(e: A.Relationship, left: PValue, right: PValue, scope: Scope): PValue {
    const flatten = (v: PValue): (PValue | Collector)[] => {
      const out: (PValue | Collector)[] = [];
      for (const x of [v].flat(Number.POSITIVE_INFINITY as 1) as PValue[]) {
        if (isCollector(x)) out.push(x as unknown as Collector);
        else if (typeof x === "string") out.push(this.parseRefString(x, e, scope).toType());
        else if (asResourceRef(x)) out.push(x);
        else
          this.ev.fail(
            `Illegal relationship operand, can not form a relationship with ${article(typeLabel(x))}. A Catalog type is required.`,
            e,
            scope,
          );
      }
      return out;
    };
    const l = flatten(left);
    const r = flatten(right);
    const reverse = e.operator === "<-" || e.operator === "<~";
    const param = e.operator === "->" || e.operator === "<-" ? "before" : "notify";
    const [sources, targets] = reverse ? [r, l] : [l, r];
    for (const s of sources) {
      for (const t of targets)
        this.relationships.push({ source: s, target: t, param, node: e, locator: scope.locator });
    }
    return right;
  }

  private parseRefString(s: string, e: A.NodeBase, scope: Scope): ResourceRef {
    const m = /^([\w:]+)\[(.*)\]$/s.exec(s);
    if (!m)
      return this.ev.fail(
        `Illegal relationship operand, can not form a relationship with a String. A Catalog type is required.`,
        e,
        scope,
      );
    const type = capitalizeTypeName((m[1] as string).toLowerCase());
    return new ResourceRef(type, type === "Class" ? (m[2] as string).toLowerCase() : (m[2] as string));
  }

  private evaluateRelationships(): void {
    for (const rel of this.relationships) {
      const sources = this.relTargets(rel.source, true);
      const targets = this.relTargets(rel.target, false);
      for (const s of sources) {
        for (const t of targets) this.makeRelationship(s, t, rel);
      }
    }
  }

  private relTargets(v: PValue | Collector, _left: boolean): ResourceRef[] {
    if (isCollector(v as PValue)) return [...(v as Collector).collected.values()].map((r) => r.toRef());
    const ref = asResourceRef(v as PValue);
    return ref ? [ref] : [];
  }

  private makeRelationship(s: ResourceRef, t: ResourceRef, rel: Relationship): void {
    const source = this.catalog.findRef(s.refString());
    const fail = (m: string) => {
      throw new PuppetEvalError(m);
    };
    if (!source) fail(`Could not find resource '${s.refString()}' for relationship on '${t.refString()}'`);
    if (!this.catalog.findRef(t.refString()))
      fail(`Could not find resource '${t.refString()}' for relationship from '${s.refString()}'`);
    const src = source as CResource;
    const current = src.params.get(rel.param);
    const list: PValue[] =
      current === undefined
        ? []
        : isArr(current.value)
          ? [...current.value]
          : current.value === undefined
            ? []
            : [current.value];
    list.push(t.refString());
    src.set({ name: rel.param, value: list, source: current?.source });
  }

  // --- the evaluation queue and the finish ----------------------------------------------

  private evaluateGenerators(): void {
    for (let count = 0; ; count++) {
      let done = true;
      for (const c of [...this.collectors]) if (this.evaluateCollector(c)) done = false;
      const pending = this.catalog
        .resourceList()
        .filter((r) => !r.evaluated && !r.virtual && (r.isDefine || r.isClass));
      for (const r of pending) {
        try {
          this.evaluateResource(r);
        } catch (err) {
          if (err instanceof PuppetEvalError && !err.evaluation) {
            throw new PuppetEvalError(
              `Error while evaluating a Resource Statement, ${err.message}`,
              r.file || undefined,
              r.line,
              undefined,
              true,
            );
          }
          throw err;
        }
      }
      if (pending.length > 0) done = false;
      if (done) break;
      if (count > 1000)
        throw new PuppetEvalError("Somehow looped more than 1000 times while evaluating host catalog");
    }
  }

  // The finish runs each of its passes once over every resource, cold: its
  // loops are indexed (for-of makes an iterator result per step in code not
  // yet optimized).
  private finish(): void {
    this.evaluateRelationships();
    const resources = this.catalog.resourceList();
    // The resources of a class have the same tags once merged with the
    // class's: one list for them all, not one made for each.
    const tagMerge: TagMergeMemo = {};
    for (let i = 0; i < resources.length; i++) {
      const r = resources[i] as CResource;
      const overs = this.pendingOverrides.size > 0 ? this.pendingOverrides.get(r.ref) : undefined;
      if (overs) {
        for (const o of overs) this.mergeOverride(r, o);
        this.pendingOverrides.delete(r.ref);
      }
      const sr = r.scope?.resource;
      if (sr && sr !== r) r.tags.mergeRemembered(sr.tags, tagMerge);
    }
    this.addResourceMetaparams();
    const remaining = [...this.pendingOverrides.keys()];
    if (remaining.length > 0)
      throw new PuppetEvalError(`Could not find resource(s) ${remaining.join(", ")} for overriding`);
    const unresolved: string[] = [];
    for (const c of this.collectors) {
      if (!c.fixed) continue;
      for (const ref of c.fixed) if (!this.catalog.findRef(ref.refString())) unresolved.push(ref.refString());
    }
    if (unresolved.length > 0)
      throw new PuppetEvalError(`Failed to realize virtual resources ${unresolved.join(", ")}`);
    this.validateRelationshipParameters();
  }

  /** Every before/require/notify/subscribe names a resource in the catalog (Puppet's RelationshipValidator). */
  private validateRelationshipParameters(): void {
    const resources = this.catalog.resourceList();
    for (let i = 0; i < resources.length; i++) {
      const r = resources[i] as CResource;
      if (r.virtual) continue;
      for (let j = 0; j < RELATIONSHIP_PARAMS.length; j++) {
        const param = RELATIONSHIP_PARAMS[j] as string;
        const p = r.params.get(param);
        if (!p || p.value === undefined) continue;
        const value: PValue = p.value;
        // One reference (the usual case) is checked without a list made for it.
        if (!isArr(value)) {
          this.checkRelationshipTarget(r, p, value);
          continue;
        }
        for (const v of value.flat(Number.POSITIVE_INFINITY as 1) as PValue[])
          this.checkRelationshipTarget(r, p, v);
      }
    }
  }

  private checkRelationshipTarget(r: CResource, p: ParamEntry, v: PValue): void {
    if (v === undefined) return;
    if (this.foundByType(v)) return;
    const ref = asResourceRef(v);
    // Puppet makes a resource of a string not shaped `Type[title]`: it has no title.
    if (!ref && typeof v === "string" && !/^[^[\]]+\[.+\]$/s.test(v))
      throw new PuppetEvalError(
        `No title provided and ${rubyInspect(v)} is not a valid resource reference (${this.paramWhere(r, p)})`,
      );
    const text = ref ? ref.refString() : typeof v === "string" ? v : interpolate(v);
    const found = ref ? this.catalog.findRef(text) : this.findRefString(text);
    if (!found)
      throw new PuppetEvalError(
        `Could not find resource '${text}' in parameter '${p.name}' (${this.paramWhere(r, p)})`,
      );
  }

  /**
   * Where a parameter was set, as Puppet places a relationship's error: the
   * attribute's file and line, found from its offset only now. An attribute
   * of the main manifests is looked for in the resource's manifest (an
   * override from another main manifest would be misplaced); one set
   * without an offset (by a function) is at the resource's position.
   */
  private paramWhere(r: CResource, p: ParamEntry): string {
    let file = r.file;
    let line = r.line;
    if (p.at !== undefined) {
      let locator: Locator | undefined = p.source?.locator;
      if (locator === undefined && (r.source === undefined || r.source.kind === "main"))
        locator = this.programs.find((prog) => prog.locator.file === (r.file ?? ""))?.locator;
      if (locator !== undefined) {
        file = locator.file;
        line = locator.line(p.at);
      }
    }
    return file !== undefined && file !== "" ? `file: ${file}, line: ${line}` : `line: ${line}`;
  }

  /** A reference with a title (`File['/x']`) found as it is, without making its text. */
  private foundByType(v: PValue): boolean {
    if (!(v instanceof PResourceType) || v.typeName === undefined || v.title === undefined) return false;
    return this.catalog.find(capitalizeTypeName(v.typeName), v.title) !== undefined;
  }

  private findRefString(text: string): CResource | undefined {
    const m = /^([\w:]+)\[(.*)\]$/s.exec(text);
    if (!m) return undefined;
    const type = capitalizeTypeName((m[1] as string).toLowerCase());
    const title =
      type === "Class"
        ? capitalizeTypeName((m[2] as string).toLowerCase().replace(/^::/, ""))
        : (m[2] as string);
    return this.catalog.find(type, title);
  }

  private addResourceMetaparams(): void {
    const main = this.catalog.main;
    if (!main) return;
    const data = new Map<CResource, Map<string, PValue>>();
    // The files of a class all merge the class's tags into the same list.
    const tagMerge: TagMergeMemo = {};
    const metas = (r: CResource) => {
      let m: Map<string, PValue> | undefined;
      for (let i = 0; i < INHERITED_METAPARAMS.length; i++) {
        const n = INHERITED_METAPARAMS[i] as string;
        const v = r.get(n);
        if (v !== undefined) {
          if (!m) m = new Map();
          m.set(n, v);
        }
      }
      return m;
    };
    this.catalog.walk(main, (source, target) => {
      const sd = data.get(source) ?? metas(source);
      if (sd) {
        data.set(source, sd);
        for (const [k, v] of sd)
          if (target.get(k) === undefined) target.set({ name: k, value: v, source: undefined });
        const td = new Map(sd);
        const own = metas(target);
        if (own) for (const [k, v] of own) td.set(k, v);
        data.set(target, td);
      }
      target.tags.mergeRemembered(source.tags, tagMerge);
    });
  }

  // --- EPP --------------------------------------------------------------------------

  eppOutput(scope: Scope): unknown[] {
    const out = this.eppStack[this.eppStack.length - 1];
    if (!out) return this.ev.fail("EPP output outside of a template", undefined, scope);
    return out;
  }

  eppBody(e: A.EppExpression, scope: Scope): PValue {
    this.eppStack.push([]);
    try {
      this.ev.evaluateBody(e.body, scope);
      const parts = this.eppStack[this.eppStack.length - 1] as unknown[];
      const sensitive = parts.some((p) => p instanceof PSensitive);
      const text = parts
        .map((p) => (typeof p === "string" ? p : interpolate((p as PSensitive).value)))
        .join("");
      return sensitive ? new PSensitive(text) : text;
    } finally {
      this.eppStack.pop();
    }
  }
}

const RELATIONSHIP_PARAMS = ["before", "require", "notify", "subscribe"] as const;

function newDeferred(args: PValue[]): PValue {
  const [first, second] = args;
  if (first instanceof PHash) {
    const a = first.get("arguments");
    return new PDeferred(String(first.get("name")), isArr(a) ? a : [], isArr(a));
  }
  return new PDeferred(String(first), isArr(second) ? second : [], isArr(second));
}

function isCollector(v: PValue): boolean {
  return (
    typeof v === "object" &&
    v !== null &&
    "collected" in (v as object) &&
    "typeName" in (v as object) &&
    !isType(v)
  );
}

function queryEquals(a: PValue, b: PValue): boolean {
  if (typeof a === "string" && typeof b === "string") return a === b;
  const ra = asResourceRef(a);
  if (ra && typeof b === "string") return ra.refString() === b;
  if (a === undefined) return b === undefined;
  return interpolate(a) === interpolate(b);
}

function isChildOf(child: Definition | undefined, parent: Definition | undefined, c: Compiler): boolean {
  let d = child;
  for (let i = 0; d && d.kind === "class" && d.parent && i < 100; i++) {
    const p = c.classes.get(d.parent);
    if (p === parent) return true;
    d = p;
  }
  return false;
}

function article(name: string): string {
  return /^[AEIOU]/.test(name) ? `an ${name}` : `a ${name}`;
}

/** JSON facts and ENC data as Puppet values (integers as Integer). */
export function fromJson(v: unknown): PValue {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(fromJson);
  if (typeof v === "object") {
    const h = new PHash();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) h.set(k, fromJson(x));
    return h;
  }
  return undefined;
}

export { isTrue, formatPuppetDiagnostic };

/** " (file: F, line: N)", as Puppet places a definition in a message. */
function whereText(l: Locator, offset: number): string {
  const line = l.position(offset).line;
  return l.file ? ` (file: ${l.file}, line: ${line})` : ` (line: ${line})`;
}

/** A catalog resource as functions inspect it: lower-case type, a class's name in lower case, set parameters. */
function resourceView(r: CResource): CatalogResourceView {
  const parameters = new Map<string, PValue>();
  for (const [k, e] of r.params) if (e.value !== undefined) parameters.set(k, e.value);
  return { type: r.type.toLowerCase(), title: r.isClass ? r.title.toLowerCase() : r.title, parameters };
}

/** How Puppet names what a resource override cannot operate on (`Class[a]-Type`, `String`). */
function overriddenLabel(v: PValue): string {
  if (v instanceof PResourceType && v.title !== undefined) return `${v.toString()} Resource-Reference`;
  return isType(v) ? `${v.toString()}-Type` : typeLabel(v);
}

/** The index of the parameter `name` among the first `n` of `list`, or -1. */
function indexOfParam(list: readonly ParamEntry[], n: number, name: string): number {
  for (let i = 0; i < n; i++) if ((list[i] as ParamEntry).name === name) return i;
  return -1;
}
