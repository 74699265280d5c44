/**
 * The tokens of the Puppet 7 lexer, named as Puppet's grammar names them
 * (pops/parser/egrammar.ra) so the parser reads like the grammar.
 */
export type TokenKind =
  | "STRING"
  | "DQPRE"
  | "DQMID"
  | "DQPOST"
  | "WORD"
  | "NAME"
  | "CLASSREF"
  | "VARIABLE"
  | "NUMBER"
  | "BOOLEAN"
  | "REGEX"
  | "HEREDOC"
  | "LBRACK"
  | "LISTSTART"
  | "RBRACK"
  | "LBRACE"
  | "SELBRACE"
  | "RBRACE"
  | "LPAREN"
  | "WSLPAREN"
  | "RPAREN"
  | "EQUALS"
  | "APPENDS"
  | "DELETES"
  | "ISEQUAL"
  | "NOTEQUAL"
  | "MATCH"
  | "NOMATCH"
  | "GREATEREQUAL"
  | "GREATERTHAN"
  | "LESSEQUAL"
  | "LESSTHAN"
  | "FARROW"
  | "PARROW"
  | "LSHIFT"
  | "LLCOLLECT"
  | "LCOLLECT"
  | "RSHIFT"
  | "RRCOLLECT"
  | "RCOLLECT"
  | "PLUS"
  | "MINUS"
  | "DIV"
  | "TIMES"
  | "MODULO"
  | "NOT"
  | "DOT"
  | "PIPE"
  | "AT"
  | "ATAT"
  | "COLON"
  | "COMMA"
  | "SEMIC"
  | "QMARK"
  | "TILDE"
  | "IN_EDGE"
  | "IN_EDGE_SUB"
  | "OUT_EDGE"
  | "OUT_EDGE_SUB"
  | "CASE"
  | "CLASS"
  | "DEFAULT"
  | "DEFINE"
  | "IF"
  | "ELSIF"
  | "ELSE"
  | "INHERITS"
  | "NODE"
  | "AND"
  | "OR"
  | "UNDEF"
  | "IN"
  | "UNLESS"
  | "FUNCTION"
  | "TYPE"
  | "ATTR"
  | "PRIVATE"
  | "EPP_START"
  | "EPP_END"
  | "EPP_END_TRIM"
  | "RENDER_STRING"
  | "RENDER_EXPR"
  | "OTHER"
  | "EOF";

/**
 * One token. `value` is the decoded text (strings with escapes applied,
 * a variable's name without `$`, a regex's pattern, a heredoc's syntax tag),
 * the source text of punctuation and numbers, or a boolean.
 */
export interface Token {
  kind: TokenKind;
  value: string;
  offset: number;
  length: number;
  /**
   * A `${true}`/`${false}` variable: its name is the boolean itself. Set on
   * those alone (rare): a field on every token would make each one 8 bytes
   * larger, and a manifest of ten thousand resources lexes 430,000.
   */
  boolean?: true;
}

/** A token (made here only, so that every token has one shape). */
export function token(kind: TokenKind, value: string, offset: number, length: number): Token {
  return { kind, value, offset, length };
}

/** Keywords: a NAME with one of these spellings is lexed as the keyword. */
export const KEYWORDS: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  ["case", "CASE"],
  ["class", "CLASS"],
  ["default", "DEFAULT"],
  ["define", "DEFINE"],
  ["if", "IF"],
  ["elsif", "ELSIF"],
  ["else", "ELSE"],
  ["inherits", "INHERITS"],
  ["node", "NODE"],
  ["and", "AND"],
  ["or", "OR"],
  ["undef", "UNDEF"],
  ["false", "BOOLEAN"],
  ["true", "BOOLEAN"],
  ["in", "IN"],
  ["unless", "UNLESS"],
  ["function", "FUNCTION"],
  ["type", "TYPE"],
  ["attr", "ATTR"],
  ["private", "PRIVATE"],
]);

/** Keyword token kinds (they may name attributes, and become variables inside `${}`). */
export const KEYWORD_KINDS: ReadonlySet<TokenKind> = new Set(
  [...KEYWORDS.values()].filter((k) => k !== "BOOLEAN"),
);
