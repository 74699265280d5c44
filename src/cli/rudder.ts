/**
 * `tend rudder <subcommand>`: the Rudder front end. Each subcommand is its
 * own module, loaded only when asked for.
 */
import { type CliIo, type Command, EXIT_FAILURE, EXIT_OK } from "./io.js";

interface Subcommand {
  readonly summary: string;
  readonly load: () => Promise<Command>;
}

/** Subcommands by name; add one here with its summary and its module. */
const subcommands: Readonly<Record<string, Subcommand>> = {
  generate: {
    summary: "generate a node's policy from a configuration directory, as Rudder does",
    load: () => import("./rudder-generate.js"),
  },
  technique: {
    summary: "check or compile a technique written in rudderc's YAML (technique compile FILE.yml)",
    load: () => import("./rudder-technique.js"),
  },
  compliance: {
    summary: "a node's compliance from its generated policy and one run's output",
    load: () => import("./rudder-compliance.js"),
  },
};

export function rudderUsage(): string {
  const names = Object.keys(subcommands);
  const width = Math.max(...names.map((n) => n.length));
  const list = names.map((n) => `  ${n.padEnd(width)}  ${subcommands[n]?.summary ?? ""}`).join("\n");
  return `Usage: tend rudder <subcommand> [options]

Rudder's model: techniques, directives, rules and groups turned into each
node's CFEngine policy, and its reports into compliance.

Subcommands:
${list}

Run \`tend rudder <subcommand> --help\` for its options.
`;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "-h" || name === "--help") {
    (name === undefined ? io.stderr : io.stdout)(rudderUsage());
    return name === undefined ? EXIT_FAILURE : EXIT_OK;
  }
  const sub = Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
  if (!sub) {
    io.stderr(`tend rudder: unknown subcommand '${name}'\n${rudderUsage()}`);
    return EXIT_FAILURE;
  }
  return (await sub.load()).run(rest, io);
}
