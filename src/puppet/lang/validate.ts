/**
 * Puppet 7's validation of a parsed program (the checks `puppet parser
 * validate`, `puppet parser dump` and the compiler run after parsing, before
 * anything is evaluated): assignments to what cannot be assigned, `+=`/`-=`,
 * expressions that have no effect, definitions outside the top level,
 * illegal names, reserved words and parameters, duplicate parameters,
 * `default`s and keys, unsupported operators in their context, node
 * inheritance, illegal host names, virtual defaults and overrides, integers
 * outside 64 bits, and values taken from what produces none.
 *
 * The tree is visited in Puppet's order (a node, then its parts in the
 * order of Puppet's model), so that diagnostics come out in the order
 * Puppet reports them; messages, issue codes and severities are Puppet's
 * (pops/issues.rb, validator_factory_4_0.rb), positions are the nodes'.
 * Not checked: definitions in module files outside their namespace (needs
 * the environment's module path) and the syntax of static heredoc text
 * tagged `:json` (Ruby's JSON parser's message).
 */
import type {
  Expression,
  Lambda,
  LiteralInteger,
  Node,
  Operation,
  Parameter,
  Program,
  QualifiedName,
} from "./ast.js";
import type { Locator } from "./locator.js";

export type ValidationSeverity = "error" | "warning" | "deprecation";

export interface ValidationDiagnostic {
  severity: ValidationSeverity;
  /** Puppet's issue code (`IDEM_EXPRESSION_NOT_LAST`, ...). */
  code: string;
  message: string;
  /** Where, in the program's source (UTF-16 code units). */
  offset: number;
}

const MAX_INTEGER = 0x7fffffffffffffffn;
const MIN_INTEGER = -0x8000000000000000n;

const CLASSREF_EXT = /^((::)?[A-Z]\w*)+$/;
const CLASSREF_EXT_DECL = /^[A-Z]\w*(?:::[A-Z]\w*)*$/;
const CLASSREF_DECL = /^[a-z]\w*(?:::[a-z]\w*)*$/;
const VAR_NAME = /^(?:::)?(?:[a-z]\w*::)*[a-z_]\w*$/;
const PARAM_NAME = /^[a-z_]\w*$/;
const NUMERIC_VAR_NAME = /^(?:0|(?:[1-9][0-9]*))$/;
const ILLEGAL_HOSTNAME_CHARS = /[^-\w.]/;

const RESERVED_TYPE_NAMES = new Set([
  "type",
  "any",
  "unit",
  "scalar",
  "boolean",
  "numeric",
  "integer",
  "float",
  "collection",
  "array",
  "hash",
  "tuple",
  "struct",
  "variant",
  "optional",
  "enum",
  "regexp",
  "pattern",
  "runtime",
  "init",
  "object",
  "sensitive",
  "semver",
  "semverrange",
  "string",
  "timestamp",
  "timespan",
  "typeset",
]);
const FUTURE_RESERVED_WORDS = new Set(["plan"]);
const RESERVED_PARAMETERS = new Set(["name", "title"]);

/** Puppet's label of a node (model_label_provider.rb). */
export function label(n: Node | undefined): string {
  if (n === undefined) return "Undef Value";
  switch (n.kind) {
    case "Block":
      return "Block Expression";
    case "Nop":
      return "Nop Expression";
    case "LiteralString":
      return "String";
    case "LiteralInteger":
      return "Literal Integer";
    case "LiteralFloat":
      return "Literal Float";
    case "LiteralBoolean":
      return "Boolean";
    case "LiteralUndef":
      return "'undef' expression";
    case "LiteralDefault":
      return "'default' expression";
    case "LiteralRegex":
      return "Regular Expression";
    case "LiteralList":
      return "Array Expression";
    case "LiteralHash":
      return "Hash Expression";
    case "KeyedEntry":
      return "Hash Entry";
    case "QualifiedName":
      return "Name";
    case "QualifiedReference":
      return "Type-Name";
    case "Variable":
      return "Variable";
    case "ConcatenatedString":
      return "Double Quoted String";
    case "TextExpression":
      return "Expression in Interpolated String";
    case "Heredoc":
      return `'@(${n.syntax})' expression`;
    case "Not":
      return "'not' expression";
    case "UnaryMinus":
      return "Unary Minus";
    case "Unfold":
      return "Unfold";
    case "Paren":
      return "Parenthesized Expression";
    case "Arithmetic":
    case "Comparison":
    case "Match":
    case "Assignment":
    case "Relationship":
    case "AttributeOperation":
      return `'${n.operator}' expression`;
    case "And":
      return "'and' expression";
    case "Or":
      return "'or' expression";
    case "In":
      return "'in' expression";
    case "Access":
      return "'[]' expression";
    case "NamedAccess":
      return "'.' expression";
    case "CallNamedFunction":
      return "Function Call";
    case "CallMethod":
      return "Method call";
    case "Lambda":
      return "Lambda";
    case "If":
      return "'if' statement";
    case "Unless":
      return "'unless' Statement";
    case "Case":
      return "'case' statement";
    case "CaseOption":
      return "Case Option";
    case "Selector":
      return "Selector Expression";
    case "SelectorEntry":
      return "Selector Option";
    case "ResourceBody":
      return "Resource Instance Definition";
    case "Resource":
      return "Resource Statement";
    case "ResourceDefaults":
      return "Resource Defaults Expression";
    case "ResourceOverride":
      return "Resource Override";
    case "Collect":
      return label(n.query);
    case "VirtualQuery":
      return "Virtual Query";
    case "ExportedQuery":
      return "Exported Query";
    case "HostClass":
      return "Host Class Definition";
    case "DefinedType":
      return "'define' expression";
    case "FunctionDefinition":
      return "Function Definition";
    case "NodeDefinition":
      return "Node Definition";
    case "TypeAlias":
      return "Type Alias";
    case "TypeMapping":
      return "Type Mapping";
    case "TypeDefinition":
      return "Type Definition";
    case "ReservedWord":
      return `Reserved Word '${n.word}'`;
    case "Epp":
      return "Epp Template";
    case "RenderString":
      return "Epp Text";
    case "Render":
      return "Epp Interpolated Expression";
    case "Parameter":
      return "Parameter Definition";
    default:
      return "Object";
  }
}

function article(text: string): string {
  let c = text.charAt(0);
  if (c === '"' || c === "'") c = text.charAt(1);
  return "aeiouy".includes(c.toLowerCase()) ? "an" : "a";
}

function aAn(n: Node | undefined): string {
  const text = label(n);
  return `${article(text)} ${text}`;
}

function aAnUc(n: Node | undefined): string {
  const a = aAn(n);
  return a.charAt(0).toUpperCase() + a.slice(1);
}

/**
 * Calls `f` with the contained parts of a node (undefined where a part is
 * absent), in the order of Puppet's model; no array is made per node.
 */
function forEachChild(n: Node, f: (child: Node | undefined) => void): void {
  switch (n.kind) {
    case "Program":
      f(n.body);
      return;
    case "Block":
      each(n.statements, f);
      return;
    case "LiteralList":
      each(n.values, f);
      return;
    case "LiteralHash":
      each(n.entries, f);
      return;
    case "KeyedEntry":
      f(n.key);
      f(n.value);
      return;
    case "Variable":
      f(n.expr);
      return;
    case "ConcatenatedString":
      each(n.segments, f);
      return;
    case "TextExpression":
    case "Not":
    case "UnaryMinus":
    case "Unfold":
    case "Paren":
    case "Render":
      f(n.expr);
      return;
    case "Heredoc":
      f(n.text);
      return;
    case "Arithmetic":
    case "Comparison":
    case "Match":
    case "In":
    case "And":
    case "Or":
    case "Assignment":
    case "Relationship":
    case "NamedAccess":
      f(n.left);
      f(n.right);
      return;
    case "Access":
      f(n.left);
      each(n.keys, f);
      return;
    case "CallNamedFunction":
    case "CallMethod":
      f(n.functor);
      each(n.args, f);
      f(n.lambda);
      return;
    case "Parameter":
      f(n.value);
      f(n.typeExpr);
      return;
    case "Lambda":
      each(n.parameters, f);
      f(n.body);
      f(n.returnType);
      return;
    case "If":
    case "Unless":
      f(n.test);
      f(n.thenExpr);
      f(n.elseExpr);
      return;
    case "Case":
      f(n.test);
      each(n.options, f);
      return;
    case "CaseOption":
      each(n.values, f);
      f(n.thenExpr);
      return;
    case "Selector":
      f(n.left);
      each(n.entries, f);
      return;
    case "SelectorEntry":
      f(n.match);
      f(n.value);
      return;
    case "AttributeOperation":
      f(n.value);
      return;
    case "AttributesOperation":
      f(n.expr);
      return;
    case "ResourceBody":
      f(n.title);
      each(n.operations, f);
      return;
    case "Resource":
      f(n.typeName);
      each(n.bodies, f);
      return;
    case "ResourceDefaults":
      f(n.typeRef);
      each(n.operations, f);
      return;
    case "ResourceOverride":
      f(n.resources);
      each(n.operations, f);
      return;
    case "VirtualQuery":
    case "ExportedQuery":
      f(n.expr);
      return;
    case "Collect":
      f(n.typeExpr);
      f(n.query);
      each(n.operations, f);
      return;
    case "HostClass":
    case "DefinedType":
      each(n.parameters, f);
      f(n.body);
      return;
    case "FunctionDefinition":
      each(n.parameters, f);
      f(n.body);
      f(n.returnType);
      return;
    case "NodeDefinition":
      f(n.parent);
      each(n.hostMatches, f);
      f(n.body);
      return;
    case "TypeAlias":
      f(n.typeExpr);
      return;
    case "TypeMapping":
      f(n.typeExpr);
      f(n.mappingExpr);
      return;
    case "TypeDefinition":
      f(n.body);
      return;
    case "Epp":
      f(n.body);
      return;
    default:
      return;
  }
}

/** `f` on each item (indexed: no iterator made, even in V8's interpreter). */
function each(list: readonly (Node | undefined)[], f: (child: Node | undefined) => void): void {
  for (let i = 0; i < list.length; i++) f(list[i]);
}

function isAbstractResource(n: Node | undefined): boolean {
  return n?.kind === "Resource" || n?.kind === "ResourceDefaults" || n?.kind === "ResourceOverride";
}

/** True when evaluating the expression is known to change nothing (Puppet's `idem`). */
function idem(n: Node | undefined): boolean {
  if (n === undefined) return true;
  switch (n.kind) {
    case "Nop":
    case "LiteralString":
    case "LiteralInteger":
    case "LiteralFloat":
    case "LiteralBoolean":
    case "LiteralUndef":
    case "LiteralDefault":
    case "LiteralRegex":
    case "QualifiedName":
    case "QualifiedReference":
    case "ReservedWord":
    case "LiteralList":
    case "LiteralHash":
    case "Access":
    case "Arithmetic":
    case "Comparison":
    case "In":
    case "And":
    case "Or":
    case "NamedAccess":
    case "Not":
    case "UnaryMinus":
    case "Unfold":
    case "TextExpression":
    case "Variable":
    case "ConcatenatedString":
    case "Heredoc":
    case "Selector":
      return true;
    case "Paren":
      return idem(n.expr);
    case "Block":
      return n.statements.every(idem);
    case "If":
    case "Unless":
      return idem(n.test) && idem(n.thenExpr) && idem(n.elseExpr);
    case "Case":
      return idem(n.test) && n.options.every(idem);
    case "CaseOption":
      return n.values.every(idem) && idem(n.thenExpr);
    default:
      return false;
  }
}

function resourceWithoutTitle(n: Node | undefined): boolean {
  return (
    n?.kind === "Block" &&
    n.statements.length === 2 &&
    n.statements[0]?.kind === "QualifiedName" &&
    n.statements[1]?.kind === "LiteralHash"
  );
}

function endsWithIdem(n: Expression | undefined): Expression | undefined {
  if (n?.kind === "Block") {
    const last = n.statements[n.statements.length - 1];
    return idem(last) ? last : undefined;
  }
  return n !== undefined && idem(n) ? n : undefined;
}

function integerValue(n: LiteralInteger): bigint {
  return typeof n.value === "bigint" ? n.value : BigInt(n.value);
}

/** Ruby's `"%#+x" % v`. */
function rubyHex(v: bigint): string {
  return v < 0n ? `-0x${(-v).toString(16)}` : `+0x${v.toString(16)}`;
}

/** The literal value of a hash key as Puppet compares them, or undefined when not literal. */
function literalKey(n: Node | undefined): string | undefined {
  switch (n?.kind) {
    case "LiteralString":
    case "QualifiedName":
      return `s${n.value}`;
    case "LiteralInteger":
      return `i${integerValue(n)}`;
    case "LiteralFloat":
      return `f${n.value}`;
    case "LiteralBoolean":
      return `b${n.value}`;
    case "LiteralUndef":
      return "u";
    case "LiteralDefault":
      return "d";
    case "ConcatenatedString": {
      const only = n.segments.length === 1 ? n.segments[0] : undefined;
      return only?.kind === "LiteralString" ? `s${only.value}` : undefined;
    }
    default:
      return undefined;
  }
}

function keyText(n: Node): string {
  switch (n.kind) {
    case "LiteralString":
    case "QualifiedName":
      return n.value;
    case "LiteralInteger":
      return String(integerValue(n));
    case "LiteralFloat":
    case "LiteralBoolean":
      return String(n.value);
    case "LiteralUndef":
      return "";
    case "LiteralDefault":
      return "default";
    case "ConcatenatedString": {
      const only = n.segments[0];
      return only?.kind === "LiteralString" ? only.value : "";
    }
    default:
      return "";
  }
}

class Checker {
  readonly diagnostics: ValidationDiagnostic[] = [];
  private path: Node[] = [];

  private accept(code: string, at: Node, message: string, severity: ValidationSeverity = "error"): void {
    this.diagnostics.push({ severity, code, message, offset: at.offset });
  }

  private container(index = -1): Node | undefined {
    return this.path[this.path.length + index];
  }

  private readonly walkChild = (c: Node | undefined): void => {
    if (c !== undefined) this.walk(c);
  };

  /**
   * Checks `n`, then its parts. The most frequent kinds come first, checked
   * here as `check` would (one switch, its first cases: a switch on strings is
   * a row of comparisons until V8 optimizes it); the others go through
   * `check` and `forEachChild`.
   */
  walk(n: Node): void {
    const path = this.path;
    switch (n.kind) {
      case "LiteralString":
      case "QualifiedName":
      case "Nop":
      case "LiteralFloat":
      case "LiteralBoolean":
      case "LiteralUndef":
      case "LiteralDefault":
      case "LiteralRegex":
      case "RenderString":
        return; // nothing to check, no parts
      case "Variable": {
        const name = n.expr;
        this.checkVariable(name, n);
        if (name.kind === "QualifiedName") return;
        break;
      }
      case "AttributeOperation":
        if (n.operator === "+>") break;
        this.rvalue(n.value);
        path.push(n);
        this.walk(n.value);
        path.pop();
        return;
      case "QualifiedReference":
        if (!CLASSREF_EXT.test(n.cased)) break;
        return;
      case "ConcatenatedString": {
        const segments = n.segments;
        path.push(n);
        for (let i = 0; i < segments.length; i++) this.walk(segments[i] as Expression);
        path.pop();
        return;
      }
      case "TextExpression":
        this.rvalue(n.expr);
        path.push(n);
        this.walk(n.expr);
        path.pop();
        return;
      case "Access": {
        const keys = n.keys;
        if (keys.length < 1) break;
        path.push(n);
        this.walk(n.left);
        for (let i = 0; i < keys.length; i++) this.walk(keys[i] as Expression);
        path.pop();
        return;
      }
      case "ResourceBody": {
        const operations = n.operations;
        let unfolds = 0;
        for (let i = 0; i < operations.length; i++) {
          if ((operations[i] as Node).kind === "AttributesOperation") unfolds++;
        }
        if (unfolds > 1) break;
        path.push(n);
        this.walk(n.title);
        for (let i = 0; i < operations.length; i++) this.walk(operations[i] as Node);
        path.pop();
        return;
      }
      case "Resource": {
        if (n.form !== "regular") break;
        const bodies = n.bodies;
        path.push(n);
        this.walk(n.typeName);
        for (let i = 0; i < bodies.length; i++) this.walk(bodies[i] as Node);
        path.pop();
        return;
      }
    }
    this.check(n);
    path.push(n);
    forEachChild(n, this.walkChild);
    path.pop();
  }

  private check(n: Node): void {
    switch (n.kind) {
      case "Access":
        if (n.keys.length < 1) this.accept("MISSING_INDEX", n, "Missing an index");
        return;
      case "Assignment":
        if (n.operator === "=") {
          this.assign(n.left, false);
          this.rvalue(n.right);
        } else {
          this.accept(
            "APPENDS_DELETES_NO_LONGER_SUPPORTED",
            n,
            `The operator '${n.operator}' is no longer supported. See http://links.puppet.com/remove-plus-equals`,
          );
        }
        return;
      case "AttributeOperation": {
        if (n.operator === "+>") {
          const p = this.container();
          if (p?.kind !== "Collect" && p?.kind !== "ResourceOverride") {
            this.accept(
              "ILLEGAL_ATTRIBUTE_APPEND",
              n,
              `Illegal +> operation on attribute ${n.name}. This operator can not be used in ${aAn(p)}`,
            );
          }
        }
        this.rvalue(n.value);
        return;
      }
      case "AttributesOperation": {
        const p = this.container();
        if (!isAbstractResource(p) && p?.kind !== "Collect") {
          const parent2 = p === undefined ? n : this.container(-2);
          if (!isAbstractResource(parent2) && parent2 !== undefined) {
            this.accept(
              "UNSUPPORTED_OPERATOR_IN_CONTEXT",
              parent2,
              `The operator '* =>' in ${aAn(parent2)} is not supported.`,
            );
          }
        }
        this.rvalue(n.expr);
        return;
      }
      case "Arithmetic":
      case "Comparison":
      case "Match":
      case "In":
      case "And":
      case "Or":
        this.rvalue(n.left);
        this.rvalue(n.right);
        return;
      case "Relationship":
        this.relation(n.left);
        this.relation(n.right);
        return;
      case "NamedAccess":
        return; // the grammar only puts a name on the right
      case "Block":
        this.checkBlock(n.statements, n);
        return;
      case "CallNamedFunction": {
        const f = n.functor;
        if (f.kind === "QualifiedReference" || (f.kind === "Access" && f.left.kind === "QualifiedReference"))
          return;
        if (f.kind === "QualifiedName") return;
        if (f.kind === "RenderString") {
          this.accept(
            "ILLEGAL_EPP_PARAMETERS",
            n,
            "Ambiguous EPP parameter expression. Probably missing '<%-' before parameters to remove leading whitespace",
          );
          return;
        }
        this.illegalExpression(f, "function name", n);
        return;
      }
      case "Epp": {
        const p = this.container();
        if (p?.kind === "Lambda") {
          this.noCapture(p.parameters, n);
          this.uniqueParameters(p.parameters);
        }
        return;
      }
      case "Case": {
        this.rvalue(n.test);
        let foundDefault = false;
        for (const option of n.options) {
          for (const value of option.values) {
            if (value.kind === "LiteralDefault") {
              if (foundDefault) this.duplicateDefault(value, n);
              foundDefault = true;
            }
          }
        }
        return;
      }
      case "CaseOption":
        for (const v of n.values) this.rvalue(v);
        return;
      case "Collect":
        if (n.typeExpr.kind !== "QualifiedReference") this.illegalExpression(n.typeExpr, "type name", n);
        return;
      case "TypeAlias":
        this.top(n);
        if (!CLASSREF_EXT_DECL.test(n.name)) this.illegalDefinitionName(n, n.name);
        this.reservedTypeName(n, n.name);
        this.typeRef(n, n.typeExpr);
        return;
      case "TypeMapping":
        this.checkTypeMapping(n);
        return;
      case "TypeDefinition":
        this.top(n);
        this.reservedTypeName(n, n.name);
        this.accept(
          "UNSUPPORTED_EXPRESSION",
          n,
          `Expressions of type ${aAn(n)} are not supported in this version of Puppet`,
        );
        return;
      case "FunctionDefinition":
        this.namedDefinition(n, n.name);
        if (n.returnType !== undefined) this.typeRef(n, n.returnType);
        this.uniqueParameters(n.parameters);
        return;
      case "HostClass":
      case "DefinedType":
        this.namedDefinition(n, n.name);
        this.noCapture(n.parameters, n);
        this.uniqueParameters(n.parameters);
        for (const p of n.parameters) {
          if (RESERVED_PARAMETERS.has(p.name)) {
            this.accept(
              "RESERVED_PARAMETER",
              p,
              `The parameter $${p.name} redefines a built in parameter in the ${label(n)}`,
            );
          }
        }
        this.noIdemLast(n.body, n);
        return;
      case "If":
      case "Unless":
        this.rvalue(n.test);
        return;
      case "KeyedEntry":
        this.rvalue(n.key);
        this.rvalue(n.value);
        return;
      case "Lambda":
        this.captureLast(n);
        if (n.returnType !== undefined) this.typeRef(n, n.returnType);
        return;
      case "LiteralList":
        for (const v of n.values) this.rvalue(v);
        return;
      case "LiteralInteger": {
        const v = integerValue(n);
        if (v < MIN_INTEGER || v > MAX_INTEGER) {
          this.accept(
            "NUMERIC_OVERFLOW",
            n,
            `${aAnUc(n)} resulted in a value outside of Puppet Integer ${v > 0n ? "max" : "min"} range, got '${rubyHex(v)}'`,
          );
        }
        return;
      }
      case "LiteralHash": {
        const seen = new Set<string>();
        for (const entry of n.entries) {
          const key = literalKey(entry.key);
          if (key === undefined) continue;
          if (seen.has(key)) {
            this.accept(
              "DUPLICATE_KEY",
              entry,
              `The key '${keyText(entry.key)}' is declared more than once`,
              "warning",
            );
          } else seen.add(key);
        }
        return;
      }
      case "NodeDefinition": {
        for (const h of n.hostMatches) this.hostname(h, n);
        this.top(n);
        this.noIdemLast(n.body, n);
        if (n.parent !== undefined) {
          this.accept(
            "ILLEGAL_NODE_INHERITANCE",
            n.parent,
            "Node inheritance is not supported in Puppet >= 4.0.0. See http://links.puppet.com/puppet-node-inheritance-deprecation",
          );
        }
        return;
      }
      case "QualifiedReference":
        if (!CLASSREF_EXT.test(n.cased)) {
          this.accept(
            "ILLEGAL_CLASSREF",
            n,
            `Illegal type reference. The given name '${n.cased}' does not conform to the naming rule`,
          );
        }
        return;
      case "VirtualQuery":
      case "ExportedQuery":
        if (n.expr !== undefined) this.query(n.expr);
        return;
      case "Parameter":
        this.checkParameter(n);
        return;
      case "Resource":
        if (n.form !== "regular" && n.typeName.kind === "QualifiedName" && n.typeName.value === "class") {
          this.accept("CLASS_NOT_VIRTUALIZABLE", n, "Classes are not virtualizable");
        }
        return;
      case "ResourceBody": {
        let seenUnfolding = false;
        // Indexed: for-of makes an iterator result per step in code not yet optimized.
        const operations = n.operations;
        for (let i = 0; i < operations.length; i++) {
          const op = operations[i] as Operation;
          if (op.kind !== "AttributesOperation") continue;
          if (seenUnfolding) {
            this.accept(
              "MULTIPLE_ATTRIBUTES_UNFOLD",
              op,
              "Unfolding of attributes from Hash can only be used once per resource body",
            );
          } else seenUnfolding = true;
        }
        return;
      }
      case "ResourceDefaults":
      case "ResourceOverride":
        if (n.form !== "regular")
          this.accept("NOT_VIRTUALIZEABLE", n, "Resource Defaults are not virtualizable");
        return;
      case "ReservedWord":
        this.accept(
          "RESERVED_WORD",
          n,
          `Use of reserved word: ${n.word}, must be quoted if intended to be a String value`,
        );
        return;
      case "Selector": {
        this.rvalue(n.left);
        const defaults = n.entries.filter((e) => e.match.kind === "LiteralDefault");
        const second = defaults[1];
        if (second !== undefined) this.duplicateDefault(second.match, n);
        return;
      }
      case "SelectorEntry":
        this.rvalue(n.match);
        return;
      case "Not":
      case "UnaryMinus":
      case "Unfold":
      case "Paren":
      case "TextExpression":
      case "Render":
        this.rvalue(n.expr);
        return;
      case "Variable":
        this.checkVariable(n.expr, n);
        return;
      default:
        return;
    }
  }

  private checkBlock(statements: Expression[], n: Node): void {
    if (resourceWithoutTitle(n)) {
      const name = statements[0] as QualifiedName;
      this.accept(
        "RESOURCE_WITHOUT_TITLE",
        n,
        `This expression is invalid. Did you try declaring a '${name.value}' resource without a title?`,
      );
      return;
    }
    for (const s of statements.slice(0, -1)) {
      if (idem(s)) {
        this.accept(
          "IDEM_EXPRESSION_NOT_LAST",
          s,
          `This ${label(s)} has no effect. A value was produced and then forgotten (one or more preceding expressions may have the wrong form)`,
        );
        break;
      }
    }
  }

  private checkVariable(name: Node, n: Node): void {
    if (name.kind === "LiteralInteger") return;
    if (name.kind !== "QualifiedName") return; // `${true}`: Puppet's checker fails on it
    const v = name.value;
    if (simpleVariableName(v)) return;
    const first = v.charCodeAt(0);
    if (first >= 48 && first <= 57) {
      if (!NUMERIC_VAR_NAME.test(v)) {
        this.accept(
          "ILLEGAL_NUMERIC_VAR_NAME",
          n,
          `Illegal numeric variable name, The given name '${v}' must be a decimal value if it starts with a digit 0-9`,
        );
      }
    } else if (!VAR_NAME.test(v)) {
      this.accept(
        "ILLEGAL_VAR_NAME",
        n,
        `Illegal variable name, The given name '${v}' does not conform to the naming rule /^((::)?[a-z]\\w*)*((::)?[a-z_]\\w*)$/`,
      );
    }
  }

  private checkParameter(p: Parameter): void {
    if (/^(?:0x)?[0-9]+$/.test(p.name)) {
      this.accept(
        "ILLEGAL_NUMERIC_PARAMETER",
        p,
        `The numeric parameter name '$${p.name}' cannot be used (clashes with numeric match result variables)`,
      );
    }
    if (!PARAM_NAME.test(p.name)) {
      this.accept(
        "ILLEGAL_PARAM_NAME",
        p,
        `Illegal parameter name. The given name '${p.name}' does not conform to the naming rule /^[a-z_]\\w*$/`,
      );
    }
    if (p.value !== undefined) this.illegalAssignmentIn(p.value);
  }

  private readonly assignmentChild = (c: Node | undefined): void => {
    if (c !== undefined) this.illegalAssignmentIn(c);
  };

  private illegalAssignmentIn(n: Node): void {
    if (n.kind === "Assignment") {
      this.accept("ILLEGAL_ASSIGNMENT_CONTEXT", n, "Assignment not allowed here");
      return;
    }
    if (n.kind === "Lambda") return;
    forEachChild(n, this.assignmentChild);
  }

  private checkTypeMapping(n: Extract<Node, { kind: "TypeMapping" }>): void {
    this.top(n);
    const lhs = n.typeExpr;
    let lhsType = 0;
    if (lhs.kind === "Access" && lhs.left.kind === "QualifiedReference" && lhs.left.cased === "Runtime") {
      lhsType = 1;
      if (lhs.keys.length === 2 && patternWithReplacement(lhs.keys[1])) lhsType = 2;
    }
    const single = `Illegal type mapping. Expected a Type on the left side, got ${aAnUc(n)}`;
    const regexp = `Illegal type mapping. Expected a Tuple[Regexp,String] on the left side, got ${aAnUc(n)}`;
    if (lhsType === 0) {
      this.accept(
        "UNSUPPORTED_EXPRESSION",
        n,
        `Expressions of type ${aAn(n)} are not supported in this version of Puppet`,
      );
      return;
    }
    const rhs = n.mappingExpr;
    if (patternWithReplacement(rhs)) {
      if (lhsType === 1) this.accept("ILLEGAL_TYPE_MAPPING", n, single);
    } else if (typeRef(rhs)) {
      if (lhsType === 2) this.accept("ILLEGAL_TYPE_MAPPING", n, regexp);
    } else {
      this.accept("ILLEGAL_TYPE_MAPPING", n, lhsType === 1 ? single : regexp);
    }
  }

  private illegalExpression(n: Node, feature: string, container: Node | undefined): void {
    this.accept(
      "ILLEGAL_EXPRESSION",
      n,
      `Illegal expression. ${aAnUc(n)} is unacceptable as ${feature} in ${aAn(container)}`,
    );
  }

  private duplicateDefault(value: Node, container: Node): void {
    this.accept(
      "DUPLICATE_DEFAULT",
      value,
      `This ${label(container)} already has a 'default' entry - this is a duplicate`,
    );
  }

  private illegalDefinitionName(n: Node, name: string): void {
    this.accept(
      "ILLEGAL_DEFINITION_NAME",
      n,
      `Unacceptable name. The name '${name}' is unacceptable as the name of ${aAn(n)}`,
    );
  }

  private reservedTypeName(n: Node, name: string): void {
    if (RESERVED_TYPE_NAMES.has(name)) {
      this.accept(
        "RESERVED_TYPE_NAME",
        n,
        `The name: '${name}' is already defined by Puppet and can not be used as the name of ${aAn(n)}.`,
      );
    }
  }

  private futureReservedWord(n: Node, name: string): void {
    if (FUTURE_RESERVED_WORDS.has(name)) {
      this.accept("FUTURE_RESERVED_WORD", n, `Use of future reserved word: '${name}'`, "deprecation");
    }
  }

  private namedDefinition(n: Node, name: string): void {
    this.top(n);
    if (!CLASSREF_DECL.test(name)) this.illegalDefinitionName(n, name);
    this.reservedTypeName(n, name);
    this.futureReservedWord(n, name);
  }

  private typeRef(container: Node, r: Expression): void {
    // `type T = Parent {…}` and `type T = {…}` stand for `Object[{…}]` in Puppet's model.
    if (container.kind === "TypeAlias" && (r.kind === "KeyedEntry" || r.kind === "LiteralHash")) return;
    const n = r.kind === "Access" ? r.left : r;
    if (n.kind === "QualifiedReference") this.futureReservedWord(r, n.value);
    else this.illegalExpression(r, "a type reference", container);
  }

  private noIdemLast(body: Expression | undefined, container: Node): void {
    const violator = endsWithIdem(body);
    if (violator !== undefined && !resourceWithoutTitle(violator)) {
      this.accept(
        "IDEM_NOT_ALLOWED_LAST",
        violator,
        `This ${label(violator)} has no effect. ${aAnUc(container)} can not end with a value-producing expression without other effect`,
      );
    }
  }

  private captureLast(n: Lambda): void {
    const last = n.parameters.length - 1;
    n.parameters.forEach((p, i) => {
      if (p.capturesRest && i !== last) {
        this.accept("CAPTURES_REST_NOT_LAST", p, `Parameter $${p.name} is not last, and has 'captures rest'`);
      }
    });
  }

  private noCapture(parameters: Parameter[], container: Node): void {
    for (const p of parameters) {
      if (p.capturesRest) {
        this.accept(
          "CAPTURES_REST_NOT_SUPPORTED",
          p,
          `Parameter $${p.name} has 'captures rest' - not supported in ${aAn(container)}`,
        );
      }
    }
  }

  private uniqueParameters(parameters: Parameter[]): void {
    const seen = new Set<string>();
    for (const p of parameters) {
      if (seen.has(p.name)) {
        this.accept(
          "DUPLICATE_PARAMETER",
          p,
          `The parameter '${p.name}' is declared more than once in the parameter list`,
        );
      } else seen.add(p.name);
    }
  }

  /** Is the definition where definitions may be (Puppet's `top`)? */
  private top(definition: Node, index = -1): void {
    const o = this.container(index);
    if (o === undefined || o.kind === "HostClass" || o.kind === "Program") return;
    if (o.kind === "Block") {
      const c = this.container(index - 1);
      const absolute =
        definition.kind === "FunctionDefinition" ||
        definition.kind === "TypeAlias" ||
        definition.kind === "TypeDefinition";
      if (c?.kind !== "Program" && absolute) {
        this.accept("NOT_ABSOLUTE_TOP_LEVEL", definition, `${aAnUc(definition)} may only appear at toplevel`);
      } else this.top(definition, index - 1);
      return;
    }
    this.accept(
      "NOT_TOP_LEVEL",
      definition,
      "Classes, definitions, and nodes may only appear at toplevel or inside other classes",
    );
  }

  private assign(n: Expression, viaIndex: boolean): void {
    switch (n.kind) {
      case "Variable": {
        const name = n.expr.kind === "QualifiedName" ? n.expr.value : undefined;
        if (name === undefined) return;
        if (NUMERIC_VAR_NAME.test(name)) {
          this.accept(
            "ILLEGAL_NUMERIC_ASSIGNMENT",
            n,
            `Illegal attempt to assign to the numeric match result variable '$${name}'. Numeric variables are not assignable`,
          );
        }
        if (name.includes("::")) {
          this.accept(
            "CROSS_SCOPE_ASSIGNMENT",
            n,
            `Illegal attempt to assign to '${name}'. Cannot assign to variables in other namespaces`,
          );
        }
        return;
      }
      case "Access":
        this.accept(
          "ILLEGAL_INDEXED_ASSIGNMENT",
          n,
          "Illegal attempt to assign via [index/key]. Not an assignable reference",
        );
        return;
      case "LiteralList":
        for (const v of n.values) this.assign(v, false);
        return;
      default:
        if (viaIndex) {
          this.accept(
            "ILLEGAL_ASSIGNMENT_VIA_INDEX",
            n,
            `Illegal attempt to assign to ${aAn(n)} via [index/key]. Not an assignable reference`,
          );
        } else {
          this.accept(
            "ILLEGAL_ASSIGNMENT",
            n,
            `Illegal attempt to assign to '${aAn(n)}'. Not an assignable reference`,
          );
        }
    }
  }

  private rvalue(n: Node): void {
    switch (n.kind) {
      case "LiteralString":
      case "QualifiedName":
      case "ConcatenatedString":
      case "Access":
        return; // the most frequent values, first
      case "Variable":
      case "Not":
      case "UnaryMinus":
      case "Unfold":
      case "Paren":
      case "TextExpression":
      case "Render":
        this.rvalue(n.expr);
        return;
      case "Collect":
      case "HostClass":
      case "DefinedType":
      case "FunctionDefinition":
      case "NodeDefinition":
      case "TypeAlias":
      case "TypeMapping":
      case "TypeDefinition":
        this.accept("NOT_RVALUE", n, `Invalid use of expression. ${aAnUc(n)} does not produce a value`);
        return;
      default:
        return;
    }
  }

  private relation(n: Node): void {
    if (n.kind === "Collect" || n.kind === "Relationship") return;
    this.rvalue(n);
  }

  private query(n: Node): void {
    switch (n.kind) {
      case "Comparison":
        if (n.operator !== "==" && n.operator !== "!=") this.illegalQuery(n);
        return;
      case "And":
      case "Or":
        this.query(n.left);
        this.query(n.right);
        return;
      case "Paren":
        this.query(n.expr);
        return;
      case "Variable":
      case "QualifiedName":
      case "LiteralInteger":
      case "LiteralFloat":
      case "LiteralString":
      case "LiteralBoolean":
        return;
      default:
        this.illegalQuery(n);
    }
  }

  private illegalQuery(n: Node): void {
    this.accept(
      "ILLEGAL_QUERY_EXPRESSION",
      n,
      `Illegal query expression. ${aAnUc(n)} cannot be used in a query`,
    );
  }

  private hostname(n: Node, semantic: Node): void {
    switch (n.kind) {
      case "LiteralString":
      case "QualifiedName":
      case "QualifiedReference":
        this.hostnameString(n.kind === "QualifiedReference" ? n.value : n.value, n);
        return;
      case "LiteralBoolean":
        this.hostnameString(String(n.value), n);
        return;
      case "ConcatenatedString": {
        const interpolated = n.segments.find((s) => s.kind === "TextExpression");
        if (interpolated?.kind === "TextExpression") {
          this.accept(
            "ILLEGAL_HOSTNAME_INTERPOLATION",
            interpolated.expr,
            "An interpolated expression is not allowed in a hostname of a node",
          );
        } else if (n.segments.length !== 1) {
          this.accept(
            "ILLEGAL_HOSTNAME_INTERPOLATION",
            n,
            "An interpolated expression is not allowed in a hostname of a node",
          );
        } else {
          const only = n.segments[0];
          if (only?.kind === "LiteralString") this.hostnameString(only.value, only);
        }
        return;
      }
      case "LiteralInteger":
      case "LiteralFloat":
      case "LiteralDefault":
      case "LiteralRegex":
        return;
      default:
        this.illegalExpression(n, "hostname", semantic);
    }
  }

  private hostnameString(name: string, at: Node): void {
    if (ILLEGAL_HOSTNAME_CHARS.test(name)) {
      this.accept(
        "ILLEGAL_HOSTNAME_CHARS",
        at,
        `The hostname '${name}' contains illegal characters (only letters, digits, '_', '-', and '.' are allowed)`,
      );
    }
  }
}

/** Whether `v` is `[a-z_]\w*` (a valid variable name, the usual kind: no regex needed). */
function simpleVariableName(v: string): boolean {
  const first = v.charCodeAt(0);
  if (!((first >= 97 && first <= 122) || first === 95)) return false;
  for (let i = 1; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95)) return false;
  }
  return true;
}

function patternWithReplacement(n: Node | undefined): boolean {
  return (
    n?.kind === "LiteralList" &&
    n.values.length === 2 &&
    n.values[0]?.kind === "LiteralRegex" &&
    n.values[1]?.kind === "LiteralString"
  );
}

function typeRef(n: Expression): boolean {
  const m = n.kind === "Access" ? n.left : n;
  return m.kind === "QualifiedReference";
}

/**
 * Puppet's validation of a parsed program: every diagnostic, in the order
 * Puppet reports them. The program is valid when none is an error.
 */
export function validatePuppet(program: Program): ValidationDiagnostic[] {
  const checker = new Checker();
  checker.walk(program);
  return checker.diagnostics;
}

/**
 * `file:line:col: message` for a validation diagnostic, as the CLI prints it
 * (` (warning)` or ` (deprecation)` after what is not an error).
 */
export function formatValidationLine(d: ValidationDiagnostic, locator: Locator): string {
  const where = locator.file === "" ? "<command line>" : locator.file;
  const { line, column } = locator.position(d.offset);
  const suffix = d.severity === "error" ? "" : ` (${d.severity})`;
  return `${where}:${line}:${column}: ${d.message}${suffix}`;
}
