/**
 * Regular expressions of the catastrophic kinds (nested quantifiers, overlapping
 * alternatives, back references and lookarounds around them, huge
 * alternations and counted repeats) against subjects that make a
 * backtracking engine try every way, and a policy that runs each through
 * the functions and edit_line promises that take a pattern. cf-agent 3.21
 * finishes every one (PCRE stops at its match limit: no match); so must tend.
 * Shared by the tests and the benchmark.
 */

const a = (n: number) => "a".repeat(n);
const alternation = Array.from({ length: 5000 }, (_, i) => `a${i}`).join("|");

export interface RegexCase {
  readonly pattern: string;
  readonly subject: string;
}

export const REGEX_CASES: readonly RegexCase[] = [
  { pattern: "(a+)+$", subject: `${a(40)}!` },
  { pattern: "(a|aa)+$", subject: `${a(40)}!` },
  { pattern: "(a|a)*$", subject: `${a(40)}!` },
  { pattern: "(a*)*b", subject: a(40) },
  { pattern: "(a+)*b", subject: a(40) },
  { pattern: "(\\w+\\s?)+$", subject: `${"word ".repeat(20)}!` },
  { pattern: "^(\\d+)*$", subject: `${"1".repeat(40)}x` },
  { pattern: "(x+x+)+y", subject: "x".repeat(40) },
  { pattern: "([a-z]+)*=", subject: `${a(40)}!` },
  { pattern: "(.*a){20}", subject: `${a(40)}!` },
  { pattern: "^(a|b|ab)*c$", subject: `${"ab".repeat(30)}!` },
  { pattern: "(.*)*x", subject: a(40) },
  {
    pattern:
      "^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
    subject: `${a(40)}!`,
  },
  { pattern: "(?:(a)+)+\\1$", subject: `${a(40)}!` },
  { pattern: "^(?=a)(a*)*$", subject: `${a(40)}!` },
  { pattern: "(?<=a)(a+)+$", subject: `${a(40)}!` },
  { pattern: `(${alternation})*$`, subject: "x".repeat(3000) },
  { pattern: "(ab|a)*c", subject: "ab".repeat(30) },
  { pattern: "^(([a-z])+.)+[A-Z]([a-z])+$", subject: `${a(40)}!` },
  { pattern: "(.*){1,32000}[bc]", subject: a(40) },
  { pattern: "^(a?){30}a{30}$", subject: a(30) },
  { pattern: "(?i)(A+)+$", subject: `${a(40)}!` },
  { pattern: "(?m)^(a+)+$", subject: `${a(40)}!\n${a(40)}!` },
  { pattern: "(?>a+)*b", subject: a(40) },
  { pattern: "(a++)*b", subject: a(40) },
  { pattern: "(\\d+|\\d+\\.\\d+)*$", subject: `${"1.1".repeat(20)}x` },
  { pattern: "(\\s*,\\s*)*x", subject: " , ".repeat(30) },
  { pattern: "(a|ab|abc)*$", subject: `${"abc".repeat(20)}!` },
];

/** The line a case reports: `case N <function> yes|no`. */
export function caseLine(n: number, fn: string, matched: boolean): string {
  return `R: case ${n} ${fn} ${matched ? "yes" : "no"}`;
}

/**
 * A policy putting every case through regcmp(), regextract(), grep(),
 * classmatch() and, on a file of the case's subject, edit_line's
 * delete_lines and replace_patterns (`file` names the case's file, N its
 * number); each function reports `case N fn yes|no`.
 */
export function regexPolicy(cases: readonly RegexCase[], file: (n: number) => string): string {
  const vars: string[] = [];
  const classes: string[] = [];
  const files: string[] = [];
  const reports: string[] = [];
  cases.forEach((c, n) => {
    vars.push(`    "p${n}" string => '${c.pattern}';`, `    "s${n}" string => '${c.subject}';`);
    vars.push(
      `    "g${n}" slist => grep("$(p${n})", "list${n}");`,
      `    "list${n}" slist => { "$(s${n})" };`,
    );
    classes.push(
      `    "regcmp${n}" expression => regcmp("$(p${n})", "$(s${n})");`,
      `    "regextract${n}" expression => regextract("$(p${n})", "$(s${n})", "m${n}");`,
      `    "grep${n}" expression => some(".*", "g${n}");`,
    );
    files.push(
      `    "${file(n)}" edit_line => hostile_delete("$(p${n})");`,
      `    "${file(n)}" edit_line => hostile_replace("$(p${n})");`,
    );
    for (const fn of ["regcmp", "regextract", "grep"]) {
      reports.push(`    ${fn}${n}:: "case ${n} ${fn} yes";`, `    !${fn}${n}:: "case ${n} ${fn} no";`);
    }
  });
  return `body common control { bundlesequence => { "main" }; }
bundle agent main
{
  vars:
${vars.join("\n")}
  classes:
${classes.join("\n")}
  files:
${files.join("\n")}
  reports:
${reports.join("\n")}
}
bundle edit_line hostile_delete(p)
{
  delete_lines:
    "$(p)";
}
bundle edit_line hostile_replace(p)
{
  replace_patterns:
    "$(p)" replace_with => hostile_value("X");
}
body replace_with hostile_value(v)
{
  replace_value => "$(v)";
  occurrences => "all";
}
`;
}
