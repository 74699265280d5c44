/**
 * The Puppet 7 language's syntax tree, shaped for evaluation: one node kind
 * per construct of Puppet's own model (pops/model/ast.pp), literal values
 * decoded (numbers, escapes, heredoc margins), double-quoted strings and
 * heredocs split into literal and interpolated segments, and statement calls
 * (`include a, b`) already turned into calls. Every node carries `offset`
 * and `length` in UTF-16 code units of its source; the file, line and column
 * come from the `Locator` of the `Program` the node belongs to
 * (`locator.position(node.offset)`), computed only when asked for.
 */
import type { Locator } from "./locator.js";

export interface NodeBase {
  /** Start of the node in its source (UTF-16 code units). */
  offset: number;
  /** Length of the node's text in its source. */
  length: number;
}

export type ArithmeticOperator = "+" | "-" | "*" | "/" | "%" | "<<" | ">>";
export type ComparisonOperator = "==" | "!=" | "<" | "<=" | ">" | ">=";
export type RelationshipOperator = "->" | "~>" | "<-" | "<~";
export type AssignmentOperator = "=" | "+=" | "-=";
export type ResourceForm = "regular" | "virtual" | "exported";

export interface Program extends NodeBase {
  kind: "Program";
  body: Expression;
  /** Classes, defined types, functions, nodes and type aliases/definitions, in source order. */
  definitions: Definition[];
  locator: Locator;
}

export interface Block extends NodeBase {
  kind: "Block";
  statements: Expression[];
}
export interface Nop extends NodeBase {
  kind: "Nop";
}
export interface LiteralString extends NodeBase {
  kind: "LiteralString";
  value: string;
}
export interface LiteralInteger extends NodeBase {
  kind: "LiteralInteger";
  /** A bigint when the value does not fit a double exactly. */
  value: number | bigint;
  radix: 8 | 10 | 16;
}
export interface LiteralFloat extends NodeBase {
  kind: "LiteralFloat";
  value: number;
}
export interface LiteralBoolean extends NodeBase {
  kind: "LiteralBoolean";
  value: boolean;
}
export interface LiteralUndef extends NodeBase {
  kind: "LiteralUndef";
}
export interface LiteralDefault extends NodeBase {
  kind: "LiteralDefault";
}
export interface LiteralRegex extends NodeBase {
  kind: "LiteralRegex";
  /** The pattern between the slashes, `\/` decoded to `/` (Ruby regexp syntax). */
  pattern: string;
}
export interface LiteralList extends NodeBase {
  kind: "LiteralList";
  values: Expression[];
}
export interface LiteralHash extends NodeBase {
  kind: "LiteralHash";
  entries: KeyedEntry[];
  /** A hash written without braces (`f(a => 1)`, `T[a => 1]`). */
  unfolded: boolean;
}
export interface KeyedEntry extends NodeBase {
  kind: "KeyedEntry";
  key: Expression;
  value: Expression;
}
export interface QualifiedName extends NodeBase {
  kind: "QualifiedName";
  value: string;
}
export interface QualifiedReference extends NodeBase {
  kind: "QualifiedReference";
  /** Lower case, as Puppet compares type names. */
  value: string;
  cased: string;
}
export interface Variable extends NodeBase {
  kind: "Variable";
  /**
   * The name without `$` (`::x` keeps its colons); a number for `${1[0]}`-style
   * rewrites, a boolean for `${true}` (Puppet's quirk).
   */
  expr: QualifiedName | LiteralInteger | LiteralBoolean;
}
export interface ConcatenatedString extends NodeBase {
  kind: "ConcatenatedString";
  /** Literal text and `TextExpression`s, empty literals left out. */
  segments: Expression[];
}
export interface TextExpression extends NodeBase {
  kind: "TextExpression";
  expr: Expression;
}
export interface Heredoc extends NodeBase {
  kind: "Heredoc";
  /** The syntax tag after `:` (`json`, `epp`...), or "". */
  syntax: string;
  text: LiteralString | ConcatenatedString;
}
export interface UnaryExpression extends NodeBase {
  kind: "Not" | "UnaryMinus" | "Unfold" | "Paren";
  expr: Expression;
}
export interface BinaryBase extends NodeBase {
  left: Expression;
  right: Expression;
}
export interface Arithmetic extends BinaryBase {
  kind: "Arithmetic";
  operator: ArithmeticOperator;
}
export interface Comparison extends BinaryBase {
  kind: "Comparison";
  operator: ComparisonOperator;
}
export interface Match extends BinaryBase {
  kind: "Match";
  operator: "=~" | "!~";
}
export interface LogicalOrIn extends BinaryBase {
  kind: "In" | "And" | "Or";
}
export interface Assignment extends BinaryBase {
  kind: "Assignment";
  operator: AssignmentOperator;
}
export interface Relationship extends BinaryBase {
  kind: "Relationship";
  operator: RelationshipOperator;
}
export interface Access extends NodeBase {
  kind: "Access";
  left: Expression;
  keys: Expression[];
}
export interface NamedAccess extends BinaryBase {
  kind: "NamedAccess";
  right: QualifiedName;
}
export interface CallNamedFunction extends NodeBase {
  kind: "CallNamedFunction";
  functor: Expression;
  args: Expression[];
  lambda?: Lambda;
  /** False for a call used as a statement (Puppet's `invoke`). */
  rvalRequired: boolean;
}
export interface CallMethod extends NodeBase {
  kind: "CallMethod";
  functor: NamedAccess;
  args: Expression[];
  lambda?: Lambda;
  rvalRequired: boolean;
}
export interface Parameter extends NodeBase {
  kind: "Parameter";
  name: string;
  typeExpr?: Expression;
  value?: Expression;
  capturesRest: boolean;
}
export interface Lambda extends NodeBase {
  kind: "Lambda";
  parameters: Parameter[];
  body?: Expression;
  returnType?: Expression;
}
export interface IfExpression extends NodeBase {
  kind: "If" | "Unless";
  test: Expression;
  thenExpr?: Expression;
  elseExpr?: Expression;
}
export interface CaseExpression extends NodeBase {
  kind: "Case";
  test: Expression;
  options: CaseOption[];
}
export interface CaseOption extends NodeBase {
  kind: "CaseOption";
  values: Expression[];
  thenExpr?: Expression;
}
export interface Selector extends NodeBase {
  kind: "Selector";
  left: Expression;
  entries: SelectorEntry[];
}
export interface SelectorEntry extends NodeBase {
  kind: "SelectorEntry";
  match: Expression;
  value: Expression;
}
export interface AttributeOperation extends NodeBase {
  kind: "AttributeOperation";
  name: string;
  operator: "=>" | "+>";
  value: Expression;
}
export interface AttributesOperation extends NodeBase {
  kind: "AttributesOperation";
  expr: Expression;
}
export type Operation = AttributeOperation | AttributesOperation;
export interface ResourceBody extends NodeBase {
  kind: "ResourceBody";
  title: Expression;
  operations: Operation[];
}
export interface Resource extends NodeBase {
  kind: "Resource";
  typeName: Expression;
  bodies: ResourceBody[];
  form: ResourceForm;
}
export interface ResourceDefaults extends NodeBase {
  kind: "ResourceDefaults";
  typeRef: Expression;
  operations: Operation[];
  form: ResourceForm;
}
export interface ResourceOverride extends NodeBase {
  kind: "ResourceOverride";
  resources: Expression;
  operations: Operation[];
  form: ResourceForm;
}
export interface Query extends NodeBase {
  kind: "VirtualQuery" | "ExportedQuery";
  expr?: Expression;
}
export interface Collect extends NodeBase {
  kind: "Collect";
  typeExpr: Expression;
  query: Query;
  operations: Operation[];
}
export interface HostClass extends NodeBase {
  kind: "HostClass";
  name: string;
  parameters: Parameter[];
  parent?: string;
  body?: Expression;
}
export interface DefinedType extends NodeBase {
  kind: "DefinedType";
  name: string;
  parameters: Parameter[];
  body?: Expression;
}
export interface FunctionDefinition extends NodeBase {
  kind: "FunctionDefinition";
  name: string;
  parameters: Parameter[];
  body?: Expression;
  returnType?: Expression;
}
export interface NodeDefinition extends NodeBase {
  kind: "NodeDefinition";
  hostMatches: Expression[];
  parent?: Expression;
  body?: Expression;
}
export interface TypeAlias extends NodeBase {
  kind: "TypeAlias";
  name: string;
  typeExpr: Expression;
}
export interface TypeMapping extends NodeBase {
  kind: "TypeMapping";
  typeExpr: Expression;
  mappingExpr: Expression;
}
export interface TypeDefinition extends NodeBase {
  kind: "TypeDefinition";
  name: string;
  parent?: string;
  body?: Expression;
}
export interface ReservedWord extends NodeBase {
  kind: "ReservedWord";
  word: string;
}
export interface EppExpression extends NodeBase {
  kind: "Epp";
  parametersSpecified: boolean;
  body?: Expression;
}
export interface RenderString extends NodeBase {
  kind: "RenderString";
  value: string;
}
export interface Render extends NodeBase {
  kind: "Render";
  expr: Expression;
}

export type Definition =
  | HostClass
  | DefinedType
  | FunctionDefinition
  | NodeDefinition
  | TypeAlias
  | TypeMapping
  | TypeDefinition;

export type Expression =
  | Block
  | Nop
  | LiteralString
  | LiteralInteger
  | LiteralFloat
  | LiteralBoolean
  | LiteralUndef
  | LiteralDefault
  | LiteralRegex
  | LiteralList
  | LiteralHash
  | KeyedEntry
  | QualifiedName
  | QualifiedReference
  | Variable
  | ConcatenatedString
  | TextExpression
  | Heredoc
  | UnaryExpression
  | Arithmetic
  | Comparison
  | Match
  | LogicalOrIn
  | Assignment
  | Relationship
  | Access
  | NamedAccess
  | CallNamedFunction
  | CallMethod
  | Lambda
  | IfExpression
  | CaseExpression
  | Selector
  | Resource
  | ResourceDefaults
  | ResourceOverride
  | Collect
  | Definition
  | ReservedWord
  | EppExpression
  | RenderString
  | Render;

export type Node =
  | Program
  | Expression
  | Parameter
  | CaseOption
  | SelectorEntry
  | ResourceBody
  | Operation
  | Query;
