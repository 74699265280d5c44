/**
 * `tend key`: cf-key 3.21's command line, for tend's work directory.
 *
 *   tend key                 make the host's pair in <workdir>/ppkeys
 *   tend key -p [FILE]       print a public key's digest ("MD5=…")
 *   tend key -t [[USER@]IP:]FILE   trust a public key
 *   tend key -r DIGEST|IP [-x] forget a host: lastseen entries, trusted key files
 *   tend key -s [-N] [-n]    show the lastseen database
 *   tend key -f BASE         write BASE.priv / BASE.pub instead
 *   tend key -T BITS         key size (2048)
 *
 * The lastseen database (src/net/lastseen.ts) is 3.21's, kept as JSON:
 * `-s` lists it, `-r` removes a key or an address from it and then the
 * trusted key files of both (cf-key's messages and exit codes: 252/253
 * when the database does not know it, 254 when it is incoherent; a known
 * entry without key files still exits 0), `-x -r` removes as 3.21 forces
 * (prefix matches, always exit 0), and `-t ADDRESS:FILE` records the
 * address. What differs: no randseed file is written.
 */
import { lookupService } from "node:dns/promises";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { formatLogLine, type LogLevel } from "../system/logger.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK } from "./io.js";

export const keyUsage = `Usage: tend key [OPTIONS]

Makes and manages the host's key pair and trusted keys, as cf-key does
(accepts its options), in tend's work directory.

Options:
  -h, --help                 show this help
  -I, --inform               print basic information about key generation
  -d, --debug                debug output
  -v, --verbose              verbose output
  -V, --version              print the version
  -g, --log-level LEVEL      error, warning, notice, info, verbose or debug
  -f, --output-file BASE     write BASE.priv and BASE.pub instead of ppkeys/localhost.*
  -T, --key-type BITS        RSA key size in bits (default 2048)
  -s, --show-hosts           show the hosts seen (the lastseen database)
  -N, --no-truncate          don't truncate -s output (tab-separated)
  -r, --remove-keys ID       remove a key (MD5=…/SHA=…) or a host's address from
                             the lastseen database, and the trusted key files
  -x, --force-removal        with -r: remove even what the database does not know
  -l, --install-license FILE refused: Enterprise only
  -p, --print-digest [FILE]  print the digest of a public key (default: ours)
  -t, --trust-key [[USER@]IPADDR:]FILE
                             trust a public key (saved as <USER>-MD5=….pub)
  -C, --color[=WHEN]         accepted (always, auto, never)
      --timestamp            prefix log lines with the time
  -n, --numeric              don't look host names up
  -w, --workdir DIR          the work directory (default as tend agent:
                             CFENGINE_TEST_OVERRIDE_WORKDIR, else /var/lib/tend
                             for root, ~/.tend otherwise)
`;

interface KeyOptions {
  help?: boolean;
  version?: boolean;
  level: LogLevel;
  outputFile?: string;
  bits: number;
  showHosts?: boolean;
  noTruncate?: boolean;
  remove?: string;
  force?: boolean;
  license?: string;
  printDigest?: string | true;
  trust?: string;
  numeric?: boolean;
  timestamp?: boolean;
  workdir?: string;
}

const LEVELS: readonly LogLevel[] = ["error", "warning", "notice", "info", "verbose", "debug"];

/** Options taking a value: short letter → long name. */
const WITH_VALUE: Readonly<Record<string, string>> = {
  g: "log-level",
  f: "output-file",
  T: "key-type",
  r: "remove-keys",
  l: "install-license",
  t: "trust-key",
  w: "workdir",
};
const FLAGS: Readonly<Record<string, string>> = {
  h: "help",
  I: "inform",
  d: "debug",
  v: "verbose",
  V: "version",
  s: "show-hosts",
  N: "no-truncate",
  x: "force-removal",
  n: "numeric",
  M: "manpage",
};
/** Optional values: -p takes the next word unless it is an option (as cf-key); -C only attached. */
const OPTIONAL: Readonly<Record<string, string>> = { p: "print-digest", C: "color" };

class KeyUsageError extends Error {}

function parse(args: readonly string[]): KeyOptions {
  const options: KeyOptions = { level: "notice", bits: 2048 };
  const longNames = new Map<string, string>();
  for (const table of [WITH_VALUE, FLAGS, OPTIONAL])
    for (const [s, l] of Object.entries(table)) longNames.set(l, s);
  longNames.set("timestamp", "timestamp");
  const apply = (short: string, value: string | undefined): void => {
    switch (short) {
      case "h":
        options.help = true;
        break;
      case "V":
        options.version = true;
        break;
      case "I":
        options.level = "info";
        break;
      case "v":
        options.level = "verbose";
        break;
      case "d":
        options.level = "debug";
        break;
      case "g": {
        const level = LEVELS.find((l) => l === value);
        if (!level) throw new KeyUsageError(`Invalid log level '${value}'`);
        options.level = level;
        break;
      }
      case "f":
        options.outputFile = value;
        break;
      case "T": {
        const bits = Number(value);
        if (!/^\d+$/.test(value ?? "") || bits < 1024 || bits > 16384)
          throw new KeyUsageError(`Invalid key size '${value}' (1024 to 16384 bits)`);
        options.bits = bits;
        break;
      }
      case "s":
        options.showHosts = true;
        break;
      case "N":
        options.noTruncate = true;
        break;
      case "r":
        options.remove = value;
        break;
      case "x":
        options.force = true;
        break;
      case "l":
        options.license = value;
        break;
      case "p":
        options.printDigest = value ?? true;
        break;
      case "t":
        options.trust = value;
        break;
      case "n":
        options.numeric = true;
        break;
      case "w":
        options.workdir = value;
        break;
      case "timestamp":
        options.timestamp = true;
        break;
      case "C":
        if (value !== undefined && !["always", "auto", "never"].includes(value))
          throw new KeyUsageError(`Unrecognized color mode '${value}' (always, auto or never)`);
        break;
      case "M":
        break;
    }
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      const short = longNames.get(name);
      if (!short) throw new KeyUsageError(`unknown option '${arg}'`);
      let value = eq < 0 ? undefined : arg.slice(eq + 1);
      if (short in WITH_VALUE && value === undefined) {
        value = args[++i];
        if (value === undefined) throw new KeyUsageError(`option '${arg}' needs a value`);
      } else if (
        short === "p" &&
        value === undefined &&
        args[i + 1] !== undefined &&
        !args[i + 1]?.startsWith("-")
      ) {
        value = args[++i];
      } else if ((short in FLAGS || short === "timestamp") && value !== undefined) {
        throw new KeyUsageError(`option '--${name}' takes no value`);
      }
      apply(short, value);
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") throw new KeyUsageError(`unexpected argument '${arg}'`);
    for (let j = 1; j < arg.length; j++) {
      const short = arg[j] as string;
      const rest = arg.slice(j + 1);
      if (short in WITH_VALUE) {
        const value = rest !== "" ? rest : args[++i];
        if (value === undefined) throw new KeyUsageError(`option '-${short}' needs a value`);
        apply(short, value);
        break;
      }
      if (short in OPTIONAL) {
        let value: string | undefined = rest !== "" ? rest : undefined;
        if (
          value === undefined &&
          short === "p" &&
          args[i + 1] !== undefined &&
          !args[i + 1]?.startsWith("-")
        )
          value = args[++i];
        apply(short, value);
        break;
      }
      if (!(short in FLAGS)) throw new KeyUsageError(`unknown option '-${short}'`);
      apply(short, undefined);
    }
  }
  return options;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  let options: KeyOptions;
  try {
    options = parse(args);
  } catch (error) {
    if (!(error instanceof KeyUsageError)) throw error;
    io.stderr(`tend key: ${error.message}\n${keyUsage}`);
    return EXIT_FAILURE;
  }
  if (options.help) {
    io.stdout(keyUsage);
    return EXIT_OK;
  }
  if (options.version) return (await import("./app.js")).main(["--version"], io);
  const rank = LEVELS.indexOf(options.level);
  const log = (level: LogLevel, message: string): void => {
    if (LEVELS.indexOf(level) > rank) return;
    const stamp = options.timestamp ? `${new Date().toISOString()} ` : "";
    io.stdout(`${stamp}${formatLogLine({ level, message })}\n`);
  };
  if (options.noTruncate && !options.showHosts) {
    io.stdout(keyUsage);
    log("error", "--no-truncate / -N option is only for --show-hosts / -s");
    return EXIT_FAILURE;
  }
  const { agentDirectories } = await import("../agent/workdir.js");
  const workdir = agentDirectories({ workdir: options.workdir }, io.env).workdir;
  const ppkeys = join(workdir, "ppkeys");
  const keys = await import("../net/keys.js");

  const loadPublic = (file: string): ReturnType<typeof keys.parsePublicKey> | undefined => {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      log("error", `Cannot open public key file '${file}' (fopen: ${describe(error)})`);
      return undefined;
    }
    try {
      return keys.parsePublicKey(text);
    } catch (error) {
      log(
        "error",
        `Error while reading public key '${file}' (PEM_read_RSAPublicKey: ${(error as Error).message})`,
      );
      return undefined;
    }
  };

  if (options.showHosts) {
    const format = options.noTruncate
      ? (cells: string[]) => `${cells.join("\t")}\n`
      : (cells: string[]) =>
          `${[cells[0]?.slice(0, 10).padEnd(10), cells[1]?.slice(0, 40).padEnd(40), cells[2]?.slice(0, 25).padEnd(25), cells[3]?.slice(0, 26).padEnd(26), cells[4]].join(" ")}\n`;
    let out = format(["Direction", "IP", "Name", "Last connection", "Key"]);
    let count = 0;
    const { readLastSeen } = await import("../net/lastseen.js");
    for (const seen of readLastSeen(join(workdir, "state"))) {
      const name = options.numeric ? seen.address : await hostName(seen.address);
      out += format([
        seen.direction === "incoming" ? "Incoming" : "Outgoing",
        seen.address,
        name,
        ctimeLocal(new Date(seen.lastseen * 1000)),
        seen.key,
      ]);
      count++;
    }
    io.stdout(`${out}Total Entries: ${count}\n`);
    return EXIT_OK;
  }

  if (options.printDigest !== undefined) {
    const file = options.printDigest === true ? join(ppkeys, keys.PUBLIC_KEY_FILE) : options.printDigest;
    const key = loadPublic(file);
    if (!key) return EXIT_FAILURE;
    io.stdout(`${keys.keyDigest(key)}\n`);
    return EXIT_OK;
  }

  if (options.remove !== undefined) {
    const lastseen = await import("../net/lastseen.js");
    const statedir = join(workdir, "state");
    const id = options.remove;
    const removeFiles = (which: string): number => {
      const result = keys.removeTrustedKeyFiles(ppkeys, which);
      if ("removed" in result) return result.removed;
      log("error", `Unable to remove key file '${result.failed}'. (unlink: ${describe(result.error)})`);
      return -1;
    };
    if (options.force) {
      // cf-key -x: whatever the database says, and whatever is missing from it, exit 0.
      const forced = lastseen.forceRemoveFromLastSeen(statedir, id);
      if (!forced.mainEntryFound)
        log(
          "error",
          lastseen.isKeyDigest(id)
            ? `Failed to read the main hash key entry '${id}'. Will continue to purge other entries related to it.`
            : `Failed to read the main ip address entry '${id}'. Will continue to purge other entries related to it.`,
        );
      for (const key of forced.keys) removeFiles(key);
      return EXIT_OK;
    }
    const problems = lastseen.lastSeenIncoherences(statedir);
    for (const problem of problems) log("warning", `lastseen db inconsistency, ${problem}`);
    log(
      "verbose",
      lastseen.isKeyDigest(id)
        ? `Removing digest '${id}' from lastseen database`
        : `Removing host '${id}' from lastseen database`,
    );
    const removal = lastseen.removeFromLastSeen(statedir, id, true);
    if (!removal.removed) {
      switch (removal.reason) {
        case "incoherent":
          log(
            "error",
            "Lastseen database is incoherent (there is not a 1-to-1 relationship between hosts and keys) and coherence check is enforced. Will not proceed to remove entries from it.",
          );
          return 254;
        case "digest":
          log("error", "Unable to remove digest from lastseen database.");
          return 252;
        case "host":
          log("error", "Unable to remove host from lastseen database.");
          return 253;
      }
    }
    // 3.21 says it twice (once removing, once after).
    log("info", "Removed corresponding entries from lastseen database.");
    log("info", "Removed corresponding entries from lastseen database.");
    const ofInput = removeFiles(id);
    const ofEquivalent = removeFiles(removal.equivalent);
    if (ofInput < 0 || ofEquivalent < 0) {
      log("error", `Last seen database: unable to remove keys for the entry '${id}'`);
      return 255;
    }
    if (ofInput + ofEquivalent === 0)
      log("error", `No key file(s) for entry '${id}' were found on the filesystem`);
    else log("info", `Removed ${ofInput + ofEquivalent} corresponding key file(s) from filesystem.`);
    // As cf-key: found in the database, the removal succeeded, key files or not.
    log("verbose", `Forced removal of entry '${id}' was successful`);
    return EXIT_OK;
  }

  if (options.license !== undefined) {
    log("error", "License installation only applies to CFEngine Enterprise");
    return EXIT_FAILURE;
  }

  if (options.trust !== undefined) {
    const { file, address, user } = parseKeyArgument(options.trust);
    if (address === undefined)
      log(
        "notice",
        "Establishing trust might be incomplete. For completeness, use --trust-key IPADDR:filename",
      );
    const key = loadPublic(file);
    if (!key) return EXIT_FAILURE;
    if (address !== undefined) {
      const digest = keys.keyDigest(key);
      log("verbose", `Adding a CONNECT entry in lastseen db: IP '${address}', key '${digest}'`);
      const { noteLastSeen } = await import("../net/lastseen.js");
      noteLastSeen(join(workdir, "state"), "outgoing", digest, address, (error) =>
        log("error", `Unable to open last seen db (${describe(error)})`),
      );
    }
    try {
      const saved = keys.trustKey(ppkeys, user, key);
      log("verbose", `Saving public key to file '${saved}'`);
    } catch (error) {
      log("error", `Unable to write a public key for '${file}'. (${describe(error)})`);
      return EXIT_FAILURE;
    }
    return EXIT_OK;
  }

  const pub = options.outputFile ? `${options.outputFile}.pub` : join(ppkeys, keys.PUBLIC_KEY_FILE);
  const priv = options.outputFile ? `${options.outputFile}.priv` : join(ppkeys, keys.PRIVATE_KEY_FILE);
  for (const file of [pub, priv]) {
    if (statSync(file, { throwIfNoEntry: false })) {
      log("error", `A key file already exists at ${file}`);
      return EXIT_FAILURE;
    }
  }
  log("info", "Making a key pair for CFEngine, please wait, this could take a minute...");
  const pair = keys.generateKeyPair(options.bits);
  try {
    if (!options.outputFile) keys.ensureKeyDirectory(ppkeys);
    const { writeFileAtomically } = await import("../system/atomic.js");
    log("verbose", `Writing private key to '${priv}'`);
    writeFileAtomically(priv, keys.privateKeyPem(pair), 0o600);
    log("verbose", `Writing public key to file '${pub}'`);
    writeFileAtomically(pub, keys.publicKeyPem(pair.publicKey), 0o600);
  } catch (error) {
    log("error", `Error while writing key file (${describe(error)})`);
    return EXIT_FAILURE;
  }
  return EXIT_OK;
}

/** cf-key's `[[USER@]IPADDR:]FILENAME` (the rightmost colon splits, for IPv6). */
export function parseKeyArgument(arg: string): { file: string; address?: string; user: string } {
  const colon = arg.lastIndexOf(":");
  if (colon < 0) return { file: arg, user: "root" };
  const file = arg.slice(colon + 1);
  const head = arg.slice(0, colon);
  const at = head.indexOf("@");
  if (at < 0) return { file, address: head, user: "root" };
  const address = head.slice(at + 1);
  return { file, user: head.slice(0, at), ...(address === "" ? {} : { address }) };
}

/** A local time as ctime prints it ("Fri Nov 27 03:47:45 2026"). */
function ctimeLocal(date: Date): string {
  const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${days[date.getDay()]} ${months[date.getMonth()]} ${String(date.getDate()).padStart(2, " ")} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())} ${date.getFullYear()}`;
}

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === "ENOENT") return "No such file or directory";
  if (e.code === "EACCES") return "Permission denied";
  return e.message ?? String(error);
}

/** The name of `address` as getnameinfo gives it (cf-key's IPString2Hostname), "-" when it has none. */
async function hostName(address: string): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const found = await Promise.race([
      lookupService(address, 0).then((s) => s.hostname),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), 2000);
      }),
    ]);
    return found || "-";
  } catch {
    return "-";
  } finally {
    clearTimeout(timer);
  }
}
