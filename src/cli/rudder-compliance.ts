/**
 * `tend rudder compliance --policy DIR --output RUN.log [--json]`: a node's
 * compliance from its generated policy (expected-reports.json in DIR) and
 * the output of one agent run (cf-agent's or tend's), computed as Rudder
 * computes it. Human text by default, JSON with --json; report lines that
 * do not parse are shown on stderr as RUN.log:LINE.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { styleText } from "node:util";
import {
  type ComponentJson,
  complianceOfRun,
  decodeExpectedReports,
  EXPECTED_REPORTS_FILE,
  type NodeComplianceJson,
  runComplianceJson,
  type ReportType,
} from "../rudder/compliance/index.js";
import { parseCommandLine } from "./args.js";
import { shouldColor } from "./color.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";

export const complianceUsage = `Usage: tend rudder compliance --policy DIR --output RUN.log [options]

Compares the reports of one agent run with what the node's policy expects
(DIR/${EXPECTED_REPORTS_FILE}, as tend rudder generate writes it) and prints
the node's compliance per rule, directive, component and value, as Rudder
computes it.

Options:
  -p, --policy DIR     the node's generated policy directory (or the
                       expected-reports JSON file itself)
  -o, --output FILE    the run's output (cf-agent or tend agent); - for stdin
      --now ISO        judge the run at this time (default: the run's start)
      --json           print the compliance as JSON on stdout
  -h, --help           show this help
`;

const OPTIONS = {
  policy: { type: "string", short: "p" },
  output: { type: "string", short: "o" },
  now: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type Paint = (type: ReportType | "bold", text: string) => string;

const GOOD = new Set<ReportType>([
  "EnforceSuccess",
  "EnforceRepaired",
  "EnforceNotApplicable",
  "AuditCompliant",
  "AuditNotApplicable",
]);
const PENDING = new Set<ReportType>(["Pending", "Disabled", "NoAnswer"]);

function painter(color: boolean): Paint {
  if (!color) return (_t, text) => text;
  return (type, text) => {
    const format = type === "bold" ? "bold" : GOOD.has(type) ? "green" : PENDING.has(type) ? "yellow" : "red";
    return styleText(format, text, { validateStream: false });
  };
}

/** Short names of statuses, as Rudder's interface labels them. */
const LABEL: Readonly<Record<ReportType, string>> = {
  EnforceSuccess: "success",
  EnforceRepaired: "repaired",
  EnforceError: "error",
  EnforceNotApplicable: "not applicable",
  AuditCompliant: "compliant",
  AuditNonCompliant: "non compliant",
  AuditError: "audit error",
  AuditNotApplicable: "not applicable (audit)",
  Unexpected: "unexpected",
  Missing: "missing",
  NoAnswer: "no report",
  Pending: "applying",
  Disabled: "reports disabled",
  BadPolicyMode: "bad policy mode",
};

function details(d: Record<string, number>): string {
  return Object.entries(d)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}

function renderComponent(c: ComponentJson, indent: string, paint: Paint, out: string[]): void {
  const head = `${indent}${c.kind === "block" ? `block ${c.name} (${c.reportingLogic})` : c.name}`;
  out.push(`${head}: ${paint(c.status, LABEL[c.status])} ${c.compliance}%`);
  if (c.kind === "block") {
    for (const sub of c.components) renderComponent(sub, `${indent}  `, paint, out);
    return;
  }
  for (const v of c.values) {
    const msg = v.messages.find((m) => m.message !== undefined)?.message;
    const text = msg === undefined ? "" : ` — ${msg.split("\n")[0]}`;
    out.push(`${indent}  ${v.value}: ${paint(v.status, LABEL[v.status])}${text}`);
  }
}

/** The compliance as text: the node, then each rule, directive, component and value. */
export function renderCompliance(json: NodeComplianceJson, paint: Paint): string {
  const a = json.runAnalysis;
  const out = [
    `${paint("bold", `node ${json.nodeId}`)}: ${json.compliance}% compliant (${details(json.complianceDetails)})`,
    `  run: ${a.kind}${a.lastRunDateTime ? ` at ${a.lastRunDateTime}` : ""}, config ${a.lastRunConfigId ?? "none"} (expected ${a.expectedConfigId ?? "none"})`,
  ];
  for (const p of json.problems) out.push(`  ${paint("EnforceError", p.kind)}: ${p.message}`);
  for (const rule of json.rules) {
    out.push(`${paint("bold", `rule ${rule.ruleId}`)}: ${rule.compliance}%`);
    for (const d of rule.directives) {
      const over = d.overriddenBy !== undefined ? ` (overridden by rule ${d.overriddenBy})` : "";
      out.push(`  directive ${d.directiveId}: ${d.compliance}%${over}`);
      for (const c of d.components) renderComponent(c, "    ", paint, out);
    }
  }
  return `${out.join("\n")}\n`;
}

function readInput(path: string, io: CliIo): string {
  return path === "-" ? readFileSync(0, "utf8") : readFileSync(resolve(io.cwd, path), "utf8");
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  let values: ReturnType<typeof parseCommandLine<typeof OPTIONS>>["values"];
  try {
    values = parseCommandLine(args, OPTIONS).values;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend rudder compliance: ${error.message}\n${complianceUsage}`);
    return EXIT_FAILURE;
  }
  if (values.help) {
    io.stdout(complianceUsage);
    return EXIT_OK;
  }
  if (!values.policy || !values.output) {
    io.stderr(`tend rudder compliance: --policy and --output are needed\n${complianceUsage}`);
    return EXIT_FAILURE;
  }
  const now = values.now === undefined ? undefined : Date.parse(values.now);
  if (now !== undefined && Number.isNaN(now)) {
    io.stderr(`tend rudder compliance: --now '${values.now}' is not an ISO 8601 date\n`);
    return EXIT_FAILURE;
  }
  const policy = resolve(io.cwd, values.policy);
  const file = policy.endsWith(".json") ? policy : join(policy, EXPECTED_REPORTS_FILE);
  let expectedText: string;
  let output: string;
  try {
    expectedText = readFileSync(file, "utf8");
    output = readInput(values.output, io);
  } catch (error) {
    io.stderr(`tend rudder compliance: ${(error as Error).message}\n`);
    return EXIT_FAILURE;
  }
  let json: unknown;
  try {
    json = JSON.parse(expectedText);
  } catch (error) {
    io.stderr(`${file}: not JSON: ${(error as Error).message}\n`);
    return EXIT_FAILURE;
  }
  const { expected, problems } = decodeExpectedReports(json);
  for (const p of problems) io.stderr(`${file}: ${p.path}: ${p.message}\n`);
  if (!expected) return EXIT_FAILURE;
  const result = complianceOfRun(expected, output, now === undefined ? {} : { now });
  const where = values.output === "-" ? "(stdin)" : values.output;
  for (const d of result.diagnostics)
    io.stderr(`${where}${d.line !== undefined ? `:${d.line}` : ""}: warning: ${d.message}\n`);
  const report = runComplianceJson(result);
  if (values.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout(renderCompliance(report, painter(shouldColor("auto", { isTTY: io.stdoutIsTTY }, io.env))));
  return EXIT_OK;
}
