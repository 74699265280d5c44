/**
 * `tend rudder generate --config DIR --node ID -o OUTDIR [--json]`: loads a
 * Rudder configuration directory, generates the node's policy as Rudder
 * merges and orders it, and writes the node's policy directory at once
 * (rudder-directives.cf, rudder-directives.csv, the techniques' files,
 * expected-reports.json). Diagnostics go to stderr as file:line:col.
 */
import { join, resolve } from "node:path";
import { type TechniqueCompiler, loadConfiguration } from "../rudder/config/load.js";
import { formatDiagnostic, hasErrors } from "../rudder/config/diagnostics.js";
import { generateNode } from "../rudder/generate/index.js";
import { writePolicyDirectory } from "../rudder/generate/write.js";
import { compileTechnique, listResources, loadMethodLibrary } from "../rudder/technique/index.js";
import { parseCommandLine } from "./args.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";

export const generateUsage = `Usage: tend rudder generate --config DIR --node ID -o OUTDIR [options]

Generates the policy of one node from a Rudder configuration directory
(techniques/<id>/<version>/, directives/, rules/, groups/, nodes/,
parameters.json, settings.json), merged and ordered as Rudder does, and
writes it to OUTDIR (replaced at once): rudder-directives.cf with the bundle
sequence, rudder-directives.csv, one folder per technique and version, and
expected-reports.json.

Options:
  -c, --config DIR     the configuration directory
  -n, --node ID        the node (nodes/ID.json)
  -o, --output DIR     the node's policy directory to write
      --ncf DIR        ncf's generic methods, to compile YAML techniques
                       (default: /var/rudder/ncf/common/30_generic_methods)
      --json           print the result as JSON on stdout
  -h, --help           show this help
`;

const OPTIONS = {
  config: { type: "string", short: "c" },
  node: { type: "string", short: "n" },
  output: { type: "string", short: "o" },
  ncf: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function yamlCompiler(ncf: string): TechniqueCompiler {
  let methods: ReturnType<typeof loadMethodLibrary> | undefined;
  return (source, file, dir) => {
    methods ??= loadMethodLibrary([ncf]);
    if (methods.error) {
      return {
        ok: false,
        diagnostics: [
          { file, line: 1, column: 1, severity: "error", message: `${methods.error} (see --ncf)` },
        ],
      };
    }
    const r = compileTechnique(source, file, {
      methods: methods.methods,
      resources: listResources(join(dir, "resources")),
    });
    const diagnostics = r.diagnostics.map((d) => ({
      file: d.file,
      line: d.line,
      column: d.column,
      severity: d.severity,
      message: d.message,
    }));
    if (!r.ok) return { ok: false, diagnostics };
    return { ok: true, metadataXml: r.technique.files.get("metadata.xml") ?? "", files: r.technique.files };
  };
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  let values: ReturnType<typeof parseCommandLine<typeof OPTIONS>>["values"];
  try {
    values = parseCommandLine(args, OPTIONS).values;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend rudder generate: ${error.message}\n${generateUsage}`);
    return EXIT_FAILURE;
  }
  if (values.help) {
    io.stdout(generateUsage);
    return EXIT_OK;
  }
  if (!values.config || !values.node || !values.output) {
    io.stderr(`tend rudder generate: --config, --node and --output are needed\n${generateUsage}`);
    return EXIT_FAILURE;
  }
  const configDir = resolve(io.cwd, values.config);
  const ncf = values.ncf ? resolve(io.cwd, values.ncf) : "/var/rudder/ncf/common/30_generic_methods";
  const { config, diagnostics } = loadConfiguration(configDir, { compileTechnique: yamlCompiler(ncf) });
  for (const d of diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
  if (hasErrors(diagnostics)) return EXIT_FAILURE;
  const result = generateNode(config, values.node);
  for (const m of result.messages) io.stderr(`tend rudder generate: ${m.level}: ${m.message}\n`);
  if (!result.ok) return EXIT_FAILURE;
  const out = resolve(io.cwd, values.output);
  try {
    writePolicyDirectory(out, result.files);
  } catch (error) {
    io.stderr(`tend rudder generate: cannot write ${out}: ${(error as Error).message}\n`);
    return EXIT_FAILURE;
  }
  if (values.json) {
    const policies = result.policies.map((p) => ({
      ruleId: p.id.ruleId,
      directiveId: p.id.directiveId,
      rule: p.ruleName,
      directive: p.directiveName,
      technique: `${p.technique.id.name}/${p.technique.id.version}`,
      directives: p.vars.map((v) => ({ ruleId: v.id.ruleId, directiveId: v.id.directiveId })),
      overrides: p.overrides,
    }));
    io.stdout(
      `${JSON.stringify({ node: result.nodeId, nodeConfigId: result.nodeConfigId, output: out, policies, files: [...result.files.keys()].sort() }, null, 2)}\n`,
    );
  } else {
    io.stdout(
      `node ${result.nodeId}: ${result.policies.length} policies, configuration ${result.nodeConfigId}, written to ${out}\n`,
    );
    for (const p of result.policies)
      io.stdout(`  ${p.ruleName}/${p.directiveName} (${p.technique.id.name}/${p.technique.id.version})\n`);
  }
  return EXIT_OK;
}
