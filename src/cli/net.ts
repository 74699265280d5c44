/**
 * `tend net`: cf-net 3.21's command line, a client for testing a
 * cf-serverd (real or `tend serverd`): `connect`, `stat`, `get`,
 * `opendir`, `multi`, `multitls` and `help`, on each host of `-H` (else
 * the policy server of `policy_server.dat`). Its output and exit codes are
 * cf-net's: results and log lines on stdout, exit 1 only for a bad command
 * line, and 0 whatever the servers answered. As cf-net, it trusts a
 * server's key the first time it sees it.
 *
 * Where cf-net misbehaves tend does better: `stat` without a path is a
 * usage error (cf-net asks the server for "(null)"), `get` of a directory
 * fails at once (cf-net waits 30 s for data that never comes), `get -o -`
 * writes to stdout (cf-net says it is not implemented), a file is written
 * through a temporary file renamed into place, and `multi` ends when a
 * connection fails (cf-net loops forever).
 */
import type { RemoteStat } from "../net/client.js";
import { isNetError } from "../net/errors.js";
import { readPolicyServer } from "../eval/policy-server.js";
import type { LogLevel, Logger } from "../system/logger.js";
import { getopt, type OptionSpec } from "./getopt.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK } from "./io.js";
import {
  connectTo,
  invalidCommand,
  type NetSession,
  remoteStat,
  runMulti,
  runMultiTls,
  serverName,
} from "./net-connect.js";
import { getFiles } from "./net-get.js";
import { errorText, networkDirectories, parseLogLevel, stdoutLogger } from "./remote.js";

const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { short: "h", long: "help", argument: "none" },
  { short: "M", long: "manpage", argument: "none" },
  { short: "H", long: "host", argument: "required" },
  { short: "d", long: "debug", argument: "none" },
  { short: "v", long: "verbose", argument: "none" },
  { short: "g", long: "log-level", argument: "required" },
  { short: "I", long: "inform", argument: "none" },
  { short: "t", long: "tls-version", argument: "required" },
  { short: "c", long: "ciphers", argument: "required" },
  { short: "w", long: "workdir", argument: "required" },
  { short: "P", long: "protocol-version", argument: "required" },
  { short: "e", long: "encrypt", argument: "none" },
];

interface Topic {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly more?: string;
}

const TOPICS: readonly Topic[] = [
  {
    name: "help",
    summary: "Show the general help, or the help of one command",
    usage: "tend net help [command]",
    more: "The commands are connect, stat, get, opendir, multi and multitls.",
  },
  {
    name: "connect",
    summary: "Connect to each host and authenticate, then disconnect",
    usage: "tend net -H 192.168.50.50,192.168.50.51 connect",
  },
  {
    name: "stat",
    summary: "Show the type of a file on the server",
    usage: "tend net stat masterfiles/update.cf",
    more:
      "A server refuses without saying why: 'Could not stat' may mean the path is wrong,\n" +
      "the file does not exist, access is denied, or something else (see the server's log).",
  },
  {
    name: "get",
    summary: "Copy a file from the server",
    usage:
      "tend net get masterfiles/update.cf -o download.cf [-jJOBS]\n" +
      "\t\t\t(with -j, %d in the remote or the output path is replaced by the job's number)",
    more:
      "get asks the server for the file's size (STAT), then for its content (GET). The file\n" +
      "is saved under its own name in the current directory, or where -o says (-o - for stdout).",
  },
  {
    name: "opendir",
    summary: "List the names in a directory on the server",
    usage: "tend net opendir masterfiles",
  },
];

const COMMANDS = ["CONNECT", "STAT", "GET", "OPENDIR", "MULTI", "MULTITLS", "HELP"] as const;
type CommandName = (typeof COMMANDS)[number];

export function netUsage(): string {
  const topics = TOPICS.map(
    (t) => `  ${t.name.padEnd(12)} ${t.summary}.\n${" ".repeat(15)}Usage: ${t.usage}`,
  );
  return `Usage: tend net [OPTIONS] COMMAND [ARGUMENTS]

Talks to cf-serverd (or tend serverd) as cf-net 3.21 does: a client for testing a server.

Options:
  -h, --help              show this help
  -M, --manpage           show this help as a manual page
  -H, --host HOST[:PORT],...  the servers (default: the policy server of policy_server.dat)
  -d, --debug             log everything
  -v, --verbose           log what is done
  -g, --log-level LEVEL   error, warning, notice, info, verbose or debug
  -I, --inform            log more than errors and warnings
  -t, --tls-version VER   the lowest TLS version to accept (1.0 ... 1.3)
  -c, --ciphers LIST      the TLS ciphers to offer (OpenSSL's names, comma-separated)
  -w, --workdir DIR       the work directory holding ppkeys/ (tend's; not in cf-net)
  -P, --protocol-version V  as copy_from's protocol_version: classic (1), tls (2),
                          cookie (3) or latest (tend's; cf-net speaks only the latest)
  -e, --encrypt           with classic: the encrypted commands (SGET, SSYNCH...; tend's)

Commands:
${topics.join("\n")}
  multi        Open connections without a handshake until the server refuses one.
  multitls     Connect and authenticate over and over until the server refuses, then multi.

The key pair is the work directory's (ppkeys/localhost.priv); a server's key is
trusted and saved the first time it is seen, as cf-net does.
`;
}

function manPage(): string {
  const body = netUsage()
    .split("\n")
    .map((line) => (line.startsWith(".") ? `\\&${line}` : line))
    .join("\n");
  return `.TH TEND-NET 1 "" tend "tend manual"\n.SH NAME\ntend net \\- a cfnet client for testing servers\n.SH DESCRIPTION\n.nf\n${body}\n.fi\n`;
}

interface NetOptions {
  hosts?: string;
  level?: LogLevel;
  debug: boolean;
  verbose: boolean;
  inform: boolean;
  minTls?: string;
  ciphers?: string;
  workdir?: string;
  protocol?: string;
  encrypt: boolean;
  help: boolean;
  manpage: boolean;
}

/** The global options; a string is the message for stderr (exit 1). */
function parseGlobals(
  args: readonly string[],
  log: () => Logger,
): { options: NetOptions; rest: string[] } | string {
  const parsed = getopt(args, GLOBAL_OPTIONS, true);
  if (parsed.error) return `tend net: ${parsed.error}`;
  const options: NetOptions = {
    debug: false,
    verbose: false,
    inform: false,
    encrypt: false,
    help: false,
    manpage: false,
  };
  for (const { key, value } of parsed.options) {
    if (key === "help") options.help = true;
    else if (key === "manpage") options.manpage = true;
    else if (key === "host") {
      if (options.hosts !== undefined)
        log().info("Warning: multiple occurences of -H in command, only last one will be used.");
      options.hosts = value;
    } else if (key === "debug") options.debug = true;
    else if (key === "verbose") options.verbose = true;
    else if (key === "inform") options.inform = true;
    else if (key === "log-level") {
      const level = parseLogLevel(value ?? "");
      if (!level) return `Invalid log level: '${value}'`;
      options.level = level;
    } else if (key === "tls-version") options.minTls = value;
    else if (key === "ciphers") options.ciphers = value;
    else if (key === "workdir") options.workdir = value;
    else if (key === "protocol-version") options.protocol = value;
    else if (key === "encrypt") options.encrypt = true;
    if (options.help || options.manpage) break;
  }
  return { options, rest: [...parsed.operands] };
}

/** `-t 1.2` (or `TLSv1.2`) as tls_min_version writes it ("1.2"); undefined keeps 3.21's default (TLS 1.1). */
export function tlsVersionOption(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const match = /^(?:TLSv?)?1\.([0-3])$/i.exec(text.trim());
  return match ? `1.${match[1]}` : undefined;
}

/** `-P`: the protocol as copy_from's protocol_version names it; undefined for a name 3.21 does not know. */
export function protocolOption(text: string | undefined): "classic" | 2 | 3 | undefined {
  switch (text ?? "latest") {
    case "1":
    case "classic":
      return "classic";
    case "2":
    case "tls":
      return 2;
    case "0":
    case "3":
    case "cookie":
    case "latest":
      return 3;
    default:
      return undefined;
  }
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (args.length === 0) {
    io.stdout(netUsage());
    return EXIT_OK;
  }
  let logger: Logger | undefined;
  const log = () => {
    logger ??= stdoutLogger(io, "notice");
    return logger;
  };
  const parsed = parseGlobals(args, log);
  if (typeof parsed === "string") {
    io.stderr(`${parsed}\n`);
    return EXIT_FAILURE;
  }
  const { options, rest } = parsed;
  if (options.manpage) {
    io.stdout(manPage());
    return EXIT_OK;
  }
  if (options.help) {
    io.stdout(netUsage());
    return EXIT_OK;
  }
  log().setLevel(verbosity(options));
  if (options.debug) log().debug("Debug log level enabled");
  else if (options.verbose) log().verbose("Verbose log level enabled");
  else if (options.inform) log().info("Inform log level enabled");
  return runCommand(options, rest, io, log());
}

function verbosity(options: NetOptions): LogLevel {
  if (options.debug) return "debug";
  if (options.verbose) return "verbose";
  if (options.inform) return "info";
  return options.level ?? "notice";
}

async function runCommand(options: NetOptions, args: string[], io: CliIo, log: Logger): Promise<number> {
  const given = args[0];
  if (given === undefined || given === "") {
    io.stdout("Error: Command missing, use tend net --help for more info.\n");
    return EXIT_FAILURE;
  }
  const name = given.toUpperCase();
  log.verbose(`Running command '${name}' with argument(s):`);
  for (const [i, arg] of args.entries()) if (i > 0) log.verbose(`argv[${i}]=${arg}`);
  const command = COMMANDS.find((c) => c === name);
  if (!command) {
    log.error(`'${name}' is not a valid tend net command`);
    return EXIT_FAILURE;
  }
  if (command === "HELP") {
    if (args[1] === undefined) io.stdout(netUsage());
    else io.stdout(helpTopic(args[1]));
    return EXIT_OK;
  }
  const dirs = networkDirectories(io, options.workdir);
  const hosts = options.hosts ?? readPolicyServer(dirs.workdir);
  if (hosts === undefined) {
    io.stdout("Error: no host name (and no policy_server.dat)\n");
    return EXIT_FAILURE;
  }
  const minTlsVersion = tlsVersionOption(options.minTls);
  if (options.minTls !== undefined && !minTlsVersion) {
    log.error(`Unrecognized TLS version '${options.minTls}'`);
    return EXIT_FAILURE;
  }
  const protocol = protocolOption(options.protocol);
  if (protocol === undefined) {
    log.error(`Unknown protocol_version '${options.protocol}'`);
    return EXIT_FAILURE;
  }
  const session: NetSession = {
    io,
    log,
    ppkeys: dirs.ppkeys,
    keys: undefined,
    keysLoaded: false,
    minTlsVersion,
    ciphers: options.ciphers?.replaceAll(",", ":"),
    protocol,
    encrypt: options.encrypt,
  };
  for (const host of hosts.split(",")) {
    if (host === "") continue;
    await dispatch(command, session, host, args);
  }
  return EXIT_OK;
}

async function dispatch(
  command: CommandName,
  session: NetSession,
  host: string,
  args: string[],
): Promise<void> {
  switch (command) {
    case "CONNECT":
      return commandConnect(session, host, args);
    case "STAT":
      return commandStat(session, host, args);
    case "GET":
      return getFiles(session, host, args);
    case "OPENDIR":
      return commandOpendir(session, host, args);
    case "MULTI":
      return runMulti(session, host);
    case "MULTITLS":
      return runMultiTls(session, host);
    case "HELP":
      return;
  }
}

function helpTopic(name: string): string {
  const topic = TOPICS.find((t) => t.name === name);
  if (!topic) return `Unknown help topic: '${name}'\n`;
  const more = topic.more ? `\n${topic.more}\n` : "";
  return `Command:     ${topic.name}\nUsage:       ${topic.usage}\nDescription: ${topic.summary}\n${more}`;
}

async function commandConnect(session: NetSession, host: string, args: string[]): Promise<void> {
  if (args.length > 1) {
    session.log.error("connect does not take any arguments\n(See tend net --help)");
    return;
  }
  const conn = await connectTo(session, host);
  if (!conn) return;
  session.io.stdout(`Connected & authenticated successfully to '${host}'\n`);
  conn.close();
}

const TYPE_WORDS: Readonly<Record<RemoteStat["type"], string>> = {
  dir: "a directory",
  file: "a regular file",
  socket: "a socket",
  char: "a character device file",
  block: "a block device file",
  fifo: "a named pipe (FIFO)",
  link: "a symbolic link",
};

/** The st_mode type bits of each remote file type. */
const TYPE_BITS: Readonly<Record<RemoteStat["type"], number>> = {
  file: 0o100000,
  link: 0o120000,
  dir: 0o040000,
  fifo: 0o010000,
  block: 0o060000,
  char: 0o020000,
  socket: 0o140000,
};

async function commandStat(session: NetSession, host: string, args: string[]): Promise<void> {
  const path = args[1];
  if (path === undefined) {
    invalidCommand(session, "stat");
    return;
  }
  const conn = await connectTo(session, host);
  if (!conn) return;
  try {
    const stat = await remoteStat(session, conn, serverName(host), path);
    if (!stat) {
      session.io.stdout(`Could not stat: '${path}'\n`);
      return;
    }
    session.log.info(
      "Detailed stat output:\n" +
        `mode  = ${(TYPE_BITS[stat.type] | stat.mode).toString(8)}, \tsize = ${stat.size},\n` +
        `uid   = ${stat.uid}, \tgid = ${stat.gid},\n` +
        `atime = ${stat.atime}, \tmtime = ${stat.mtime}`,
    );
    session.io.stdout(`${host}:'${path}' is ${TYPE_WORDS[stat.type]}\n`);
  } finally {
    conn.close();
  }
}

async function commandOpendir(session: NetSession, host: string, args: string[]): Promise<void> {
  const conn = await connectTo(session, host);
  if (!conn) return;
  try {
    const path = args[1];
    if (path === undefined) {
      invalidCommand(session, "opendir");
      return;
    }
    let names: string[];
    try {
      names = await conn.opendir(path);
    } catch (error) {
      if (isNetError(error, "refused")) session.log.error(`Protocol error: ${error.message}`);
      else session.log.verbose(`Listing '${path}' failed: ${errorText(error)}`);
      return;
    }
    session.io.stdout(names.map((n) => `${n}\n`).join(""));
  } finally {
    conn.close();
  }
}
