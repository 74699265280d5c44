/**
 * Small policies with the diagnostic tend must give (or null where the
 * policy is valid). `rejected` says whether cf-promises -c rejects it; the
 * differential test checks that against the installed cf-promises.
 */
export interface Case {
  readonly name: string;
  readonly policy: string;
  /** The expected error code, or null when tend reports no error. */
  readonly code: string | null;
  /** A fragment of the expected message. */
  readonly message?: string;
  /** A warning expected in addition (policies that pass cf-promises). */
  readonly warning?: string;
}

const main = (body: string) => `bundle agent main\n{\n${body}\n}\n`;

export const CASES: readonly Case[] = [
  { name: "valid reports", policy: main('reports:\n  "hello";'), code: null },
  {
    name: "unknown bundle type",
    policy: `bundle agnet x\n{\n}\n${main('reports: "x";')}`,
    code: "unknown-bundle-type",
    message: "Did you mean 'agent'?",
  },
  {
    name: "methods not allowed in common",
    policy: `bundle common c\n{\nmethods:\n  "x" usebundle => main;\n}\n${main('reports: "x";')}`,
    code: "unknown-promise-type",
    message: "not allowed in a common bundle",
  },
  {
    name: "undeclared custom promise type is a warning",
    policy: main('frobs:\n  "x" a => "b";'),
    code: null,
    warning: "undefined-promise-type",
  },
  {
    name: "unknown attribute with suggestion",
    policy: main('vars:\n  "x" strng => "a";'),
    code: "unknown-attribute",
    message: "Did you mean 'string'?",
  },
  {
    name: "unknown body attribute",
    policy: `${main('files:\n  "/tmp/x" perms => p;')}body perms p\n{\n  mdoe => "644";\n}\n`,
    code: "unknown-attribute",
    message: "Did you mean 'mode'?",
  },
  {
    name: "list given to a string",
    policy: main('vars:\n  "x" string => { "a" };'),
    code: "type-mismatch",
    message: "not a list",
  },
  {
    name: "scalar given to a list",
    policy: main('vars:\n  "x" slist => "a";'),
    code: "type-mismatch",
    message: "takes a list",
  },
  {
    name: "naked list variable given to slist",
    policy: main('vars:\n  "x" slist => @(y);'),
    code: "type-mismatch",
  },
  {
    name: "bad integer",
    policy: main('vars:\n  "x" int => "1.5";'),
    code: "type-mismatch",
    message: "takes an integer",
  },
  { name: "integer with unit", policy: main('vars:\n  "x" int => "10k";'), code: null },
  { name: "inf is not real", policy: main('vars:\n  "x" real => "inf";'), code: "type-mismatch" },
  {
    name: "bad option",
    policy: main('files:\n  "/tmp/x" create => "maybe";'),
    code: "invalid-option",
    message: "expected one of",
  },
  { name: "option from a variable", policy: main('files:\n  "/tmp/x" create => "$(c)";'), code: null },
  {
    name: "quoted body reference",
    policy: `${main('files:\n  "/tmp/x" perms => "p";')}body perms p\n{\n  mode => "644";\n}\n`,
    code: "quoted-body-reference",
  },
  {
    name: "undefined body",
    policy: main('files:\n  "/tmp/x" perms => nope;'),
    code: "undefined-body",
    message: "Undefined body nope with type perms",
  },
  {
    name: "undefined bundle is a warning",
    policy: main('methods:\n  "x" usebundle => nope;'),
    code: null,
    warning: "undefined-bundle",
  },
  {
    name: "bundle argument count",
    policy: `${main('methods:\n  "x" usebundle => b("a");')}bundle agent b\n{\nreports:\n  "b";\n}\n`,
    code: "wrong-argument-count",
    message: "takes 0 arguments",
  },
  {
    name: "duplicate bundle",
    policy: `${main('reports: "a";')}${main('reports: "b";')}`,
    code: "duplicate-definition",
  },
  {
    name: "same name, other bundle type",
    policy: `${main('reports: "a";')}bundle common main\n{\n}\n`,
    code: null,
  },
  {
    name: "duplicate body",
    policy: `${main('reports: "a";')}body perms p\n{\n  mode => "1";\n}\nbody perms p\n{\n  mode => "2";\n}\n`,
    code: "duplicate-definition",
  },
  {
    name: "duplicate handle",
    policy: main('reports:\n  "a" handle => "h";\n  "b" handle => "h";'),
    code: "duplicate-handle",
  },
  {
    name: "same handle under other guards",
    policy: main('reports:\n linux::\n  "a" handle => "h";\n !linux::\n  "b" handle => "h";'),
    code: null,
  },
  {
    name: "unknown function",
    policy: main('vars:\n  "x" string => nosuchfn("a");'),
    code: "unknown-function",
  },
  {
    name: "function returning a list for a string",
    policy: main('vars:\n  "x" string => getindices("a");'),
    code: "type-mismatch",
    message: "returns a list of strings",
  },
  {
    name: "wrong arity in evaluated vars",
    policy: main('vars:\n  "x" string => canonify("a", "b");'),
    code: "wrong-function-arity",
  },
  {
    name: "wrong arity in a condition is a warning",
    policy: main('reports:\n  "x" if => canonify("a", "b");'),
    code: null,
    warning: "wrong-function-arity",
  },
  {
    name: "whitespace-free bad guard",
    policy: main('reports:\n  a..b::\n    "x";'),
    code: "invalid-class-expression",
  },
  {
    name: "unbalanced guard",
    policy: main('reports:\n  (a|b::\n    "x";'),
    code: "invalid-class-expression",
  },
  { name: "valid complex guard", policy: main('reports:\n  !a.(b|c)&d::\n    "x";'), code: null },
  {
    name: "bad if expression",
    policy: main('reports:\n  "x" if => "a|||b";'),
    code: "invalid-class-expression",
  },
  {
    name: "two value types in vars",
    policy: main('vars:\n  "x" string => "a", slist => { "b" };'),
    code: "invalid-promise",
    message: "exactly one",
  },
  { name: "numeric variable name", policy: main('vars:\n  "123" string => "x";'), code: "invalid-promise" },
  { name: "reserved variable name", policy: main('vars:\n  "this" string => "x";'), code: "invalid-promise" },
  {
    name: "numeric class name",
    policy: main('classes:\n  "123" expression => "any";'),
    code: "invalid-promise",
  },
  { name: "empty variable promiser", policy: main('reports:\n  "$()";'), code: "invalid-promise" },
  {
    name: "reserved bundle name",
    policy: `bundle agent sys\n{\n}\n${main('reports: "x";')}`,
    code: "invalid-promise",
    message: "reserved",
  },
  {
    name: "control body with parameters",
    policy: `body agent control(a)\n{\n  ifelapsed => "1";\n}\n${main('reports: "x";')}`,
    code: "wrong-argument-count",
  },
  {
    name: "action body log without log_string",
    policy: `${main('files:\n  "/tmp/x" action => a;')}body action a\n{\n  log_kept => "/tmp/log";\n}\n`,
    code: "invalid-promise",
    message: "log_string",
  },
  {
    name: "promise block for a non-agent",
    policy: `promise server x\n{\n  path => "/x";\n}\n${main('reports: "x";')}`,
    code: "custom-promise-not-agent",
  },
  {
    name: "promise block redefining vars",
    policy: `promise agent vars\n{\n  path => "/x";\n}\n${main('reports: "x";')}`,
    code: "builtin-promise-redefined",
  },
  {
    name: "custom promise with ifvarclass",
    policy: `promise agent x\n{\n  path => "/x";\n}\n${main('x:\n  "y" ifvarclass => "any";')}`,
    code: "unknown-attribute",
    message: "use 'if'",
  },
  {
    name: "custom promise accepts any attribute",
    policy: `promise agent x\n{\n  path => "/x";\n}\n${main('x:\n  "y" whatever => "any";')}`,
    code: null,
  },
  {
    name: "bad inline JSON is a warning",
    policy: main('vars:\n  "x" data => "{bad";'),
    code: null,
    warning: "invalid-json",
  },
  {
    name: "missing main with a full check",
    policy: 'bundle agent x\n{\nreports:\n  "x";\n}\n',
    code: "undefined-bundle",
  },
  {
    name: "custom body type accepts anything",
    policy: `body foo bar\n{\n  x => "y";\n}\n${main('reports: "x";')}`,
    code: null,
  },
  {
    name: "body meta must be a list",
    policy: `${main('files:\n  "/tmp/x" perms => p;')}body perms p\n{\n  meta => "a";\n}\n`,
    code: "type-mismatch",
  },
  {
    name: "irange with brackets",
    policy: `${main('processes:\n  "x" process_select => s;')}body process_select s\n{\n  pid => "[1,2]";\n  process_result => "pid";\n}\n`,
    code: "type-mismatch",
  },
  {
    name: "literal function argument out of range",
    policy: main('vars:\n  "x" string => accumulated(0, 0, 0, 0, 1001, 0);'),
    code: "out-of-range",
    message: "argument 5 of accumulated()",
  },
  {
    name: "__main__ is main in the entry file",
    policy: 'bundle agent __main__\n{\nreports:\n  "x";\n}\n',
    code: null,
  },
  {
    name: "__main__ and main collide",
    policy: `${main('reports: "a";')}bundle agent __main__\n{\n}\n`,
    code: "duplicate-definition",
  },
  {
    name: "unset variable in bundlesequence",
    policy: `body common control\n{\n  bundlesequence => { main, @(def.nope) };\n}\n${main('reports: "x";')}`,
    code: "undefined-bundle",
  },
  {
    name: "body call as a value is not a function",
    policy: `${main('files:\n  "/tmp/x" perms => m("600");')}body perms m(x)\n{\n  mode => "$(x)";\n}\n`,
    code: null,
  },
];
