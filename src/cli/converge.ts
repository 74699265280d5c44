/**
 * `tend converge`: runs a run list of TypeScript cookbooks in local mode
 * with chef-client's habits (Chef's model: load, compile, converge,
 * cleanup; see src/recipes/). Output is chef-client's: each resource's
 * action with what changed (`- create new file /x`), `(up to date)`,
 * `(skipped due to only_if)`, the handlers, and `N/M resources updated`.
 * Exit codes are chef-client's (RFC 062): 0 success, 1 failure (a bad
 * option, a cookbook that does not load or compile, a failed resource).
 */
import { formatRecipeDiagnostic, type RecipeDiagnostic } from "../recipes/collection.js";
import { prepareHostFacts } from "../eval/host.js";
import type { ConvergeEvent, RunStatus } from "../recipes/converge.js";
import { formatRecipesDiagnostic } from "../recipes/model.js";
import { parseCommandLine } from "./args.js";
import { makeStyler, shouldColor } from "./color.js";
import { ConsoleLines } from "./console-lines.js";
import { Logger } from "../system/logger.js";
import { finishFrontEndReporting, startReporting } from "./agent-report.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";
import type { Styler } from "./render.js";

export const convergeUsage = `Usage: tend converge --cookbook-path DIR [-o RUN_LIST] [options]

Runs TypeScript cookbooks with Chef's model, as chef-client --local-mode does:
cookbooks loaded in order, the run list's recipes compiled into a resource
collection (nothing changes while compiling), then converged in order with
guards, lazy values and notifications, then report or exception handlers.

Options:
      --cookbook-path DIR   where cookbooks are (repeat, or separate with :)
  -o, --override-runlist LIST  the run list, comma separated: recipe[cb::name],
                            cb::name, cb or role[name]
  -j, --json-attributes FILE   node attributes (and run_list) from a JSON file
  -N, --node-name NAME      the node's name (default: the host's FQDN)
  -E, --environment ENV     the environment (environments/ENV.json)
      --node-path DIR       where the node is saved as JSON, and read back
                            (default: nodes/ beside the first cookbook path)
      --role-path DIR       where roles are (default: roles/ beside it)
  -c, --config FILE         tend's client.rb: a TypeScript file whose default export
                            gives reportHandlers and exceptionHandlers
  -W, --why-run             change nothing; say what each resource would do
      --compile-only        print the resource collection as a catalog (JSON) and stop
      --json                print the run status as JSON on stdout
      --promise-module NAME=PATH  a promise module serving resources of type NAME
                            (r.resource("NAME", promiser, attributes); repeatable)
  -w, --workdir DIR         the work directory of reporting: its key pair (ppkeys/),
                            reporting.json and the report spool (default: tend
                            agent's, /var/lib/tend as root)
      --hub HOST[:PORT]     send the run's report to this hub (default: what
                            <workdir>/reporting.json says; none without it)
  -l, --log_level LEVEL     warn (default), info or debug: messages of the log
                            resource and of commands shown from this level
      --color WHEN          always, auto or never
  -h, --help                show this help

Exit status: 0 when the run succeeded, 1 when it failed.
`;

const OPTIONS = {
  "cookbook-path": { type: "string", multiple: true },
  "override-runlist": { type: "string", short: "o" },
  "json-attributes": { type: "string", short: "j" },
  "node-name": { type: "string", short: "N" },
  environment: { type: "string", short: "E" },
  "node-path": { type: "string" },
  "role-path": { type: "string" },
  config: { type: "string", short: "c" },
  "why-run": { type: "boolean", short: "W" },
  "compile-only": { type: "boolean" },
  json: { type: "boolean" },
  "promise-module": { type: "string", multiple: true },
  workdir: { type: "string", short: "w" },
  hub: { type: "string" },
  log_level: { type: "string", short: "l" },
  color: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const LEVELS = ["debug", "info", "warn", "error"] as const;

/** A run list as chef-client's -o takes it: comma separated. */
export function splitRunList(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  // The host's names, through DNS if need be, without blocking this thread.
  await prepareHostFacts();
  let values: Values;
  try {
    const parsed = parseCommandLine(args, OPTIONS);
    values = parsed.values;
    if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument '${parsed.positionals[0]}'`);
    if (!values["cookbook-path"]?.length) throw new UsageError("--cookbook-path is required");
    for (const option of values["promise-module"] ?? [])
      if (!/^[A-Za-z][\w:]*=./.test(option))
        throw new UsageError(`--promise-module takes NAME=PATH, not '${option}'`);
    if (values.log_level !== undefined && !LEVELS.includes(values.log_level as (typeof LEVELS)[number]))
      throw new UsageError(`--log_level must be debug, info, warn or error, not '${values.log_level}'`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend converge: ${error.message}\n\n${convergeUsage}`);
    return EXIT_FAILURE;
  }
  if (values.help) {
    io.stdout(convergeUsage);
    return EXIT_OK;
  }
  // A line per resource, held while the output is a pipe or a file (one
  // write per 64 KiB rather than four per resource), in order across streams.
  const lines = new ConsoleLines(
    (stderr) => (stderr ? io.stderr : io.stdout),
    (stderr) => (stderr ? io.stderrIsTTY : io.stdoutIsTTY),
  );
  try {
    return await converge(values, heldIo(io, lines), () => lines.flush());
  } finally {
    lines.flush();
  }
}

type Values = ReturnType<typeof parseCommandLine<typeof OPTIONS>>["values"];

/** `io` with its text output through the held lines. */
function heldIo(io: CliIo, lines: ConsoleLines): CliIo {
  return {
    stdout: (text) => lines.write(false, text),
    stderr: (text) => lines.write(true, text),
    get stdoutIsTTY() {
      return io.stdoutIsTTY;
    },
    get stderrIsTTY() {
      return io.stderrIsTTY;
    },
    env: io.env,
    cwd: io.cwd,
  };
}

async function converge(values: Values, io: CliIo, flush: () => void): Promise<number> {
  const color = shouldColor(
    values.color === "always" || values.color === "never" ? values.color : "auto",
    { isTTY: io.stdoutIsTTY },
    io.env,
  );
  const style = makeStyler(color);
  const human = values.json !== true && values["compile-only"] !== true;
  const printer = new ChefPrinter(
    io,
    flush,
    style,
    LEVELS.indexOf((values.log_level ?? "warn") as (typeof LEVELS)[number]),
  );
  const whyRun = values["why-run"] === true;
  if (human) io.stdout("Starting tend converge (Chef's model, local mode)\n");
  const { agentDirectories } = await import("../agent/workdir.js");
  const workdir = agentDirectories({ workdir: values.workdir }, io.env).workdir;
  const reporting =
    values["compile-only"] === true
      ? undefined
      : await startReporting(workdir, values.hub, (text) => io.stderr(`tend converge: warning: ${text}\n`));
  const { runRecipes } = await import("../recipes/run.js");
  const result = await runRecipes({
    cookbookPaths: (values["cookbook-path"] ?? [])
      .flatMap((p) => p.split(":"))
      .map((p) => resolvePath(io.cwd, p)),
    runList: values["override-runlist"] === undefined ? undefined : splitRunList(values["override-runlist"]),
    jsonAttributes:
      values["json-attributes"] === undefined ? undefined : resolvePath(io.cwd, values["json-attributes"]),
    nodeName: values["node-name"],
    environment: values.environment,
    nodePath: values["node-path"] === undefined ? undefined : resolvePath(io.cwd, values["node-path"]),
    rolePath: values["role-path"] === undefined ? undefined : resolvePath(io.cwd, values["role-path"]),
    configFile: values.config === undefined ? undefined : resolvePath(io.cwd, values.config),
    whyRun,
    compileOnly: values["compile-only"],
    promiseModules: new Map(
      (values["promise-module"] ?? []).map((option) => {
        const at = option.indexOf("=");
        return [option.slice(0, at).toLowerCase(), { path: resolvePath(io.cwd, option.slice(at + 1)) }];
      }),
    ),
    onEvent: human ? (event) => printer.event(event) : undefined,
    onCompiled: (collection, loaded) => {
      printWarnings(io, collection.warnings);
      if (!human) return;
      io.stdout(`resolving cookbooks for run list: ${JSON.stringify(loaded.runList.recipes)}\n`);
      io.stdout(`Compiling cookbooks...\nConverging ${collection.declarations.length} resources\n`);
    },
  });
  switch (result.step) {
    case "load":
      for (const d of result.diagnostics) io.stderr(`${formatRecipesDiagnostic(d)}\n`);
      if (human) io.stdout("tend converge failed: the cookbooks did not load\n");
      return EXIT_FAILURE;
    case "compile":
      printWarnings(io, result.warnings);
      for (const d of result.diagnostics) io.stderr(`${withSeverity(d, "error")}\n`);
      if (human) io.stdout("tend converge failed: the recipes did not compile\n");
      return EXIT_FAILURE;
    case "compiled":
      printWarnings(io, result.warnings);
      io.stdout(`${JSON.stringify(result.catalog, null, 2)}\n`);
      return EXIT_OK;
    case "converged": {
      if (values.json) io.stdout(`${JSON.stringify(statusJson(result.status, result.warnings), null, 2)}\n`);
      else printer.finish(result.status);
      const exitCode = result.status.success ? EXIT_OK : EXIT_FAILURE;
      if (reporting) {
        const { catalogRunReport } = await import("./catalog-run-report.js");
        const run = catalogRunReport(
          result.status.report,
          (values["cookbook-path"] ?? []).join(":"),
          exitCode,
        );
        const logger = new Logger(
          (record) => io.stderr(`tend converge: ${record.level}: ${record.message}\n`),
          "warning",
        );
        await finishFrontEndReporting(reporting, workdir, "recipes", run, null, logger);
      }
      return exitCode;
    }
  }
}

function resolvePath(cwd: string, path: string): string {
  return path.startsWith("/") ? path : `${cwd}/${path}`;
}

function withSeverity(d: RecipeDiagnostic, severity: string): string {
  const text = formatRecipeDiagnostic(d);
  if (!d.location) return `${severity}: ${text}`;
  const at = text.indexOf(": ", d.location.file.length);
  return `${text.slice(0, at)}: ${severity}: ${text.slice(at + 2)}`;
}

function printWarnings(io: CliIo, warnings: readonly RecipeDiagnostic[]): void {
  for (const w of warnings) io.stderr(`${withSeverity(w, "warning")}\n`);
}

/** The run status for machines: chef-client's run status fields in JSON. */
function statusJson(status: RunStatus, warnings: readonly RecipeDiagnostic[]) {
  return {
    success: status.success,
    whyRun: status.whyRun,
    startTime: status.startTime.toISOString(),
    endTime: status.endTime.toISOString(),
    elapsedMs: Math.round(status.elapsedMs),
    exception: status.exception ?? null,
    resources: status.allResources,
    updatedResources: status.updatedResources.map((r) => r.ref),
    handlerErrors: status.handlerErrors,
    warnings: warnings.map((w) => formatRecipeDiagnostic(w)),
  };
}

/** Renders the run as chef-client's doc formatter does. */
class ChefPrinter {
  private recipe: string | undefined;

  constructor(
    private readonly io: CliIo,
    /** Writes what is held: user code (a block, a custom action) may print on its own. */
    private readonly flush: () => void,
    private readonly style: Styler,
    private readonly minimumLevel: number,
  ) {}

  event(event: ConvergeEvent): void {
    if (event.kind === "action-start") this.start(event);
    else if (event.kind === "action") this.action(event);
    else if (event.kind === "would-notify")
      this.io.stdout(`    - ${event.message.replace("Would have", "Would have")}\n`);
    else if (event.kind === "log") {
      if (LEVELS.indexOf(event.level) >= this.minimumLevel)
        this.io.stderr(`${event.level.toUpperCase()}: ${event.message}\n`);
    } else if (event.kind === "handlers" && event.phase === "start") this.io.stdout("\nRunning handlers:\n");
    else if (event.kind === "handlers") this.io.stdout("Running handlers complete\n");
  }

  /** Custom resources' headers come first: what their actions declare is printed under them. */
  private readonly started: string[] = [];

  private start(e: Extract<ConvergeEvent, { kind: "action-start" }>): void {
    this.recipeHeader(e);
    this.io.stdout(`${"  ".repeat(e.depth + 1)}* ${e.ref} action ${e.action}\n`);
    this.started.push(`${e.depth} ${e.ref} ${e.action}`);
    this.flush();
  }

  private recipeHeader(e: { readonly depth: number; readonly recipe: string }): void {
    if (e.depth !== 0 || e.recipe === this.recipe) return;
    this.recipe = e.recipe;
    this.io.stdout(`Recipe: ${e.recipe}\n`);
  }

  private action(e: Extract<ConvergeEvent, { kind: "action" }>): void {
    const pad = "  ".repeat(e.depth + 1);
    this.recipeHeader(e);
    const head = `${pad}* ${e.ref} action ${e.action}`;
    const key = `${e.depth} ${e.ref} ${e.action}`;
    if (this.started.at(-1) === key) {
      this.started.pop();
      if (e.status === "up-to-date") this.io.stdout(`${pad}  (up to date)\n`);
    } else if (e.status === "skipped") this.io.stdout(`${head} (skipped due to ${e.skippedBy})\n`);
    else if (e.status === "up-to-date") this.io.stdout(`${head} (up to date)\n`);
    else this.io.stdout(`${head}\n`);
    const would = e.whyRun ? "Would " : "";
    for (const line of e.assumptions ?? []) this.io.stdout(`${pad}  * ${line}\n`);
    for (const line of e.lines) this.io.stdout(`${pad}  - ${would}${line}\n`);
    if (e.status === "failed") this.failure(e, pad);
  }

  private failure(e: Extract<ConvergeEvent, { kind: "action" }>, pad: string): void {
    const rule = `${pad}  ${"=".repeat(80)}`;
    const title = this.style("error", `Error executing action \`${e.action}\` on resource '${e.ref}'`);
    this.io.stdout(`${rule}\n${pad}  ${title}\n${rule}\n\n`);
    for (const line of (e.error ?? "").split("\n")) this.io.stdout(`${pad}  ${line}\n`);
    if (e.ignored) this.io.stdout(`${pad}  * ${e.ref} action ${e.action} (ignore_failure set, continuing)\n`);
    this.io.stdout("\n");
  }

  finish(status: RunStatus): void {
    const seconds = String(Math.round(status.elapsedMs / 1000)).padStart(2, "0");
    const updated = status.updatedResources.length;
    const total = status.allResources.length;
    for (const failure of status.handlerErrors) this.io.stderr(`ERROR: handler failed: ${failure}\n`);
    if (status.success) {
      const verb = status.whyRun ? "would have been updated" : "updated";
      this.io.stdout(
        `\ntend converge finished, ${updated}/${total} resources ${verb} in ${seconds} seconds\n`,
      );
      return;
    }
    this.io.stdout(`\ntend converge failed. ${updated} resources updated in ${seconds} seconds\n`);
    const where = status.exception?.resource ? `${status.exception.resource} had an error: ` : "";
    const declared = status.allResources.find((r) => r.ref === status.exception?.resource);
    const at = declared?.file ? ` (declared at ${declared.file}:${declared.line})` : "";
    this.io.stderr(`${this.style("error", "FATAL:")} ${where}${firstLine(status.exception?.message)}${at}\n`);
  }
}

function firstLine(text: string | undefined): string {
  return (text ?? "").split("\n")[0] ?? "";
}
