/**
 * The `tend` command line: finds the subcommand and loads it lazily, so that
 * `tend --version` starts about as fast as Node itself does.
 */
import { readFileSync } from "node:fs";
import { type CliIo, type Command, EXIT_FAILURE, EXIT_OK } from "./io.js";

interface CommandEntry {
  readonly summary: string;
  readonly load: () => Promise<Command>;
}

/** Subcommands by name; add one here with its summary and its module. */
const commands: Readonly<Record<string, CommandEntry>> = {
  agent: {
    summary: "run a policy and converge the machine, as cf-agent does (accepts its options)",
    load: () => import("./agent.js"),
  },
  check: {
    summary: "validate a policy, as cf-promises does (accepts its options)",
    load: () => import("./check.js"),
  },
  converge: {
    summary: "run TypeScript cookbooks with Chef's model, as chef-client --local-mode does",
    load: () => import("./converge.js"),
  },
  puppet: {
    summary: "compile and apply Puppet 7 code, as puppet apply and puppet catalog compile do",
    load: () => import("./puppet.js"),
  },
  serverd: {
    summary:
      "serve files and cf-runagent requests to CFEngine agents, as cf-serverd does (accepts its options)",
    load: () => import("./serverd.js"),
  },
  monitord: {
    summary: "measure the host for the agents' mon.* variables and classes, as cf-monitord does",
    load: () => import("./monitord.js"),
  },
  execd: {
    summary: "run the agent on a schedule and keep its output, as cf-execd does (accepts its options)",
    load: () => import("./execd.js"),
  },
  net: {
    summary: "talk to a cf-serverd for testing, as cf-net does (connect, stat, get, opendir)",
    load: () => import("./net.js"),
  },
  runagent: {
    summary: "ask remote servers to run their agent now, as cf-runagent does",
    load: () => import("./runagent.js"),
  },
  hub: {
    summary: "receive and keep the nodes' run reports (SQLite or PostgreSQL); a read API with tokens",
    load: () => import("./hub.js"),
  },
  key: {
    summary: "make and manage the host's key pair and trusted keys, as cf-key does",
    load: () => import("./key.js"),
  },
  rudder: {
    summary: "Rudder's model: generate a node's policy from techniques, directives and rules",
    load: () => import("./rudder.js"),
  },
  parse: {
    summary: "print the syntax tree of one policy file",
    load: () => import("./parse.js"),
  },
};

/** Set by the bundler (scripts/bundle.js); absent when running the compiled modules. */
declare const __TEND_VERSION__: string | undefined;

/** The version from package.json. */
export function getVersion(): string {
  if (typeof __TEND_VERSION__ === "string") return __TEND_VERSION__;
  const text = readFileSync(new URL("../../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
}

export function getUsage(): string {
  const names = Object.keys(commands);
  const width = Math.max(...names.map((n) => n.length));
  const list = names.map((n) => `  ${n.padEnd(width)}  ${commands[n].summary}`).join("\n");
  return `Usage: tend <command> [options]

A configuration-management engine compatible with CFEngine 3.21 policy.

Commands:
${list}

Options:
  -h, --help     show this help (or \`tend <command> --help\`)
  -V, --version  print the version

`;
}

/** Runs the command line `args` (without node and script) and returns the exit code. */
export async function main(args: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = args;
  if (first === "-V" || first === "--version") {
    io.stdout(`tend ${getVersion()}\n`);
    return EXIT_OK;
  }
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    (first === undefined ? io.stderr : io.stdout)(getUsage());
    return first === undefined ? EXIT_FAILURE : EXIT_OK;
  }
  const entry = Object.hasOwn(commands, first) ? commands[first] : undefined;
  if (!entry) {
    io.stderr(`tend: unknown command '${first}'\n\n${getUsage()}`);
    return EXIT_FAILURE;
  }
  const command = await entry.load();
  return command.run(rest, io);
}
