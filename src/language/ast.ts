/**
 * The syntax tree of a CFEngine policy file.
 *
 * Every node carries `span`: byte-independent UTF-16 offsets `[start, end)`
 * into the source text. Line and column are computed only when a position is
 * rendered (see `source.ts`), so the tree stays cheap to build.
 *
 * The tree keeps what the author wrote (class guards as written, the quote
 * style of each string, trailing commas) so that the formatter can print it
 * back and a re-parse yields the same tree.
 */

/** `[start, end)` offsets into the source text. */
export type Span = readonly [start: number, end: number];

/** A bare word as written: a type, a name, an attribute, `ns:name`. */
export interface Name {
  readonly kind: "name";
  readonly text: string;
  readonly span: Span;
}

/** The quote a string was written with. */
export type QuoteStyle = '"' | "'" | "`";

/** A quoted string; `value` is the text after 3.21's de-escaping. */
export interface StringLiteral {
  readonly kind: "string";
  readonly value: string;
  readonly quote: QuoteStyle;
  readonly span: Span;
}

/** An unquoted identifier used as a value: a body or bundle name, `ns:name`. */
export interface SymbolRef {
  readonly kind: "symbol";
  readonly name: string;
  readonly span: Span;
}

/** An unquoted variable reference used as a value: `$(x)`, `@{list}`. */
export interface NakedVar {
  readonly kind: "nakedvar";
  /** The reference as written, sigil and brackets included. */
  readonly text: string;
  readonly span: Span;
}

/** A list `{ a, "b", f(x) }`; lists do not nest in 3.21. */
export interface ListValue {
  readonly kind: "list";
  readonly items: readonly Rval[];
  /** Whether a comma follows the last item (3.21 accepts it in lists). */
  readonly trailingComma: boolean;
  readonly span: Span;
}

/** A function call `name(arg, ...)`; the name may be a variable reference. */
export interface FunctionCall {
  readonly kind: "call";
  readonly name: string;
  readonly nameSpan: Span;
  readonly args: readonly Rval[];
  readonly span: Span;
}

/** Any right-hand value. */
export type Rval = StringLiteral | SymbolRef | NakedVar | ListValue | FunctionCall;

/**
 * A class guard `expr::`. `quoted` guards (`"$(x)"::`) hold a string whose
 * variables are expanded at run time before it is read as a class expression.
 */
export interface ClassGuard {
  readonly kind: "guard";
  /** The expression without the trailing `::` (and without quotes if quoted). */
  readonly expression: string;
  readonly quoted: boolean;
  readonly span: Span;
}

/** `lval => rval`. */
export interface Attribute {
  readonly kind: "attribute";
  readonly name: Name;
  readonly value: Rval;
  readonly span: Span;
}

/** `"promiser" -> promisee  attr => value, ...;` */
export interface Promise {
  readonly kind: "promise";
  readonly promiser: StringLiteral;
  readonly promisee: Rval | null;
  readonly attributes: readonly Attribute[];
  readonly span: Span;
}

/** Promises under one class guard; `guard` is null before the first guard. */
export interface PromiseGroup {
  readonly kind: "promise-group";
  readonly guard: ClassGuard | null;
  readonly promises: readonly Promise[];
  readonly span: Span;
}

/** `vars:` and everything up to the next promise type. */
export interface PromiseSection {
  readonly kind: "section";
  readonly type: Name;
  readonly groups: readonly PromiseGroup[];
  readonly span: Span;
}

/** Attributes under one class guard in a body or a promise block. */
export interface AttributeGroup {
  readonly kind: "attribute-group";
  readonly guard: ClassGuard | null;
  readonly attributes: readonly Attribute[];
  readonly span: Span;
}

interface BlockBase {
  /** The keyword-following type word: `agent`, `edit_line`, `classes`, `control`... */
  readonly type: Name;
  readonly name: Name;
  /** Parameter names; null when written without parentheses. */
  readonly params: readonly Name[] | null;
  /** The namespace in force where the block was written (`default` unless set). */
  readonly namespace: string;
  readonly span: Span;
}

/** `bundle TYPE NAME(params) { sections }` */
export interface Bundle extends BlockBase {
  readonly kind: "bundle";
  readonly sections: readonly PromiseSection[];
}

/** `body TYPE NAME(params) { attributes }` */
export interface Body extends BlockBase {
  readonly kind: "body";
  readonly groups: readonly AttributeGroup[];
}

/** `promise agent NAME { path => ...; interpreter => ...; }` */
export interface CustomPromiseBlock extends BlockBase {
  readonly kind: "promise-block";
  readonly groups: readonly AttributeGroup[];
}

export type Block = Bundle | Body | CustomPromiseBlock;

/** One parsed file. */
export interface PolicyFile {
  readonly kind: "policy";
  readonly path: string;
  readonly blocks: readonly Block[];
  readonly span: Span;
}

export type Node =
  | PolicyFile
  | Block
  | PromiseSection
  | PromiseGroup
  | AttributeGroup
  | Promise
  | Attribute
  | ClassGuard
  | Name
  | Rval;
