/**
 * What the compiler knows by name: classes, defined types, nodes, Puppet
 * functions and type aliases, each with the program (file) it came from.
 */
import type * as A from "../lang/ast.js";
import type { Locator } from "../lang/locator.js";

interface DefinitionBase {
  /** Lower-case full name (`ntp::config`); "" for main, the node's name for nodes. */
  readonly name: string;
  readonly locator: Locator;
  /** The module the file belongs to, when in a module. */
  readonly moduleName?: string;
}

export interface ClassDefinition extends DefinitionBase {
  readonly kind: "class";
  /** The class's syntax; once its body is evaluated (once per compile), without the body. */
  ast?: A.HostClass;
  /** Lower-case name of the parent class (`inherits`). */
  readonly parent?: string;
}
export interface DefineDefinition extends DefinitionBase {
  readonly kind: "define";
  readonly ast: A.DefinedType;
}
export interface NodeDef extends DefinitionBase {
  readonly kind: "node";
  readonly ast: A.NodeDefinition;
  /** The match that selected it: a name, a regex, or default. */
  readonly match: string | RegExp | "default";
  readonly parent?: string;
}
export interface FunctionDef extends DefinitionBase {
  readonly kind: "function";
  readonly ast: A.FunctionDefinition;
}
export interface MainDefinition extends DefinitionBase {
  readonly kind: "main";
}

export type Definition = ClassDefinition | DefineDefinition | NodeDef | FunctionDef | MainDefinition;
