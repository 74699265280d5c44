/**
 * `tend parse FILE [--json]`: prints the syntax tree of one file, as JSON or
 * as an indented outline. Diagnostics go to stderr; exit 1 if any is an error.
 */
import { hasErrors } from "../language/diagnostics.js";
import { makeStyler, shouldColor } from "./color.js";
import { parseCommandLine } from "./args.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";
import { renderDiagnostics } from "./render.js";

const usage = `Usage: tend parse [--json] FILE

Prints the syntax tree of FILE (spans are [start,end) offsets into the text):
an indented outline, or with --json the tree as JSON.
`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  let values: { json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseCommandLine(args, {
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    }));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend parse: ${error.message}\n${usage}`);
    return EXIT_FAILURE;
  }
  if (values.help || positionals.length !== 1) {
    (values.help ? io.stdout : io.stderr)(usage);
    return values.help ? EXIT_OK : EXIT_FAILURE;
  }
  const [{ readSource }, { parse }] = await Promise.all([
    import("../check/check.js"),
    import("../language/parser.js"),
  ]);
  const color = makeStyler(shouldColor("auto", { isTTY: io.stderrIsTTY }, io.env));
  const problems: Parameters<typeof readSource>[1] = [];
  const source = readSource(positionals[0], problems);
  if (!source) {
    io.stderr(renderDiagnostics(problems, () => undefined, { style: color }));
    return EXIT_FAILURE;
  }
  const { policy, diagnostics } = parse(source);
  if (values.json) io.stdout(JSON.stringify(policy, null, 2) + "\n");
  else io.stdout((await import("./outline.js")).outlinePolicy(policy));
  io.stderr(renderDiagnostics(diagnostics, () => source, { style: color }));
  return hasErrors(diagnostics) ? EXIT_FAILURE : EXIT_OK;
}
