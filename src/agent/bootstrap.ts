/**
 * Bootstrapping (`tend agent -B HOST[:PORT]`), as cf-agent 3.21's
 * `--bootstrap` prepares and checks it (cf-agent.c ConfigureBootstrap,
 * generic_agent.c GenericAgentDiscoverContext, bootstrap.c, VerifyBootstrap):
 *
 * - before the run: the input directory emptied and the built-in failsafe
 *   policy written there; the role decided (a policy server when HOST is
 *   one of this host's own addresses: `$(sys.statedir)/am_policy_hub`,
 *   classes `am_policy_hub` and `policy_server`, which needs
 *   `$(sys.masterdir)/promises.cf`; otherwise a client that trusts the
 *   server's key on first use unless `--trust-server=no`);
 *   `policy_server.dat` (HOST as given) and `bootstrap_id.dat` written;
 * - the failsafe policy then runs with `bootstrap_mode` defined and fetches
 *   the policy (see failsafe.ts);
 * - after the run: success when `$(sys.inputdir)/promises.cf` arrived;
 *   otherwise the bootstrap is undone (policy_server.dat and the hub
 *   marker removed) and the exit code is 1.
 *
 * Differences from 3.21, on purpose: a missing key pair is made (cf-agent
 * stops, telling to run cf-key); success does not require a running
 * cf-execd (tend has no scheduler daemon); a non-root user may bootstrap
 * its own work directory.
 */
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, rmSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { generateKeyPair, readKeyPair, writeKeyPair } from "../net/keys.js";
import {
  AM_POLICY_HUB_FILE,
  BOOTSTRAP_ID_FILE,
  POLICY_SERVER_FILE,
  readPolicyServer,
} from "../eval/policy-server.js";
import { getHostFacts } from "../eval/host.js";
import { writeFileAtomically } from "../system/atomic.js";
import type { Logger } from "../system/logger.js";
import { makeDirectoriesSync } from "../system/make-directories.js";
import { writeFailsafePolicy } from "./failsafe.js";

export interface BootstrapRequest {
  /** `-B`'s argument as given: `host`, `host:port`, `[v6]:port`. */
  readonly argument: string;
  /** The address `host` resolved to. */
  readonly address: string;
  /** `--trust-server` (yes by default). */
  readonly trustServer: boolean;
  /** False with `--skip-bootstrap-policy-run`. */
  readonly triggerPolicy: boolean;
}

export interface BootstrapDirectories {
  readonly workdir: string;
  readonly inputdir: string;
  readonly statedir: string;
  readonly masterdir: string;
}

export interface PreparedBootstrap {
  /** The policy to run: the failsafe in the input directory. */
  readonly file: string;
  /** Classes the run starts with (`bootstrap_mode`, `trust_server`, `skip_policy_on_bootstrap`). */
  readonly defines: readonly string[];
  readonly amPolicyHub: boolean;
}

/** The masterfiles directory of a work directory (`sys.masterdir`). */
export function masterDirectory(workdir: string): string {
  return join(workdir, "masterfiles");
}

/** Whether `address` is one of this host's own (which makes the bootstrap a policy server's). */
export function isOwnAddress(address: string): boolean {
  const plain = address.replace(/^::ffff:/, "");
  return getHostFacts().interfaces.some((i) => i.address === plain);
}

/** Whether `host` is the loopback (3.21 warns that other hosts cannot use it). */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Everything before the failsafe run; undefined (after logging why) when
 * the bootstrap cannot go on, which is exit code 1.
 */
export function prepareBootstrap(
  request: BootstrapRequest,
  dirs: BootstrapDirectories,
  log: Logger,
): PreparedBootstrap | undefined {
  const defines = ["bootstrap_mode"];
  if (!request.triggerPolicy) defines.push("skip_policy_on_bootstrap");
  if (!ensureKeyPair(join(dirs.workdir, "ppkeys"), log)) return undefined;
  if (!removeInputs(dirs.inputdir, log)) {
    log.error("Error removing existing input files prior to bootstrap");
    return undefined;
  }
  const file = writeFailsafePolicy(dirs.inputdir, log);
  if (!file) {
    log.error("Error writing builtin failsafe to inputs prior to bootstrap");
    return undefined;
  }
  const amPolicyHub = isOwnAddress(request.address);
  if (amPolicyHub) {
    log.info(`Assuming role as policy server, with policy distribution point at: ${dirs.masterdir}`);
    if (!existsSync(join(dirs.masterdir, "promises.cf"))) {
      log.error(
        `In order to bootstrap as a policy server, the file '${dirs.masterdir}/promises.cf' must exist.`,
      );
      return undefined;
    }
  } else {
    log.info(`Assuming role as regular client, bootstrapping to policy server: ${request.argument}`);
    if (request.trustServer) {
      defines.push("trust_server");
      log.notice(
        "Bootstrap mode: implicitly trusting server, use --trust-server=no if server trust is already established",
      );
    }
  }
  if (!writeBootstrapFiles(request.argument, amPolicyHub, dirs, log)) return undefined;
  return { file, defines, amPolicyHub };
}

/** A key pair in `ppkeys`, made now when there is none. */
function ensureKeyPair(ppkeys: string, log: Logger): boolean {
  try {
    if (readKeyPair(ppkeys)) return true;
    writeKeyPair(ppkeys, generateKeyPair());
    log.notice(`No key pair in '${ppkeys}': made one, as 'tend key' would`);
    return true;
  } catch (error) {
    log.error(`Cannot read or make the key pair in '${ppkeys}': ${(error as Error).message}`);
    return false;
  }
}

/** Empties the input directory, as 3.21 does before writing the failsafe policy there. */
function removeInputs(inputdir: string, log: Logger): boolean {
  log.info(`Removing all files in '${inputdir}'`);
  const found = lstatSync(inputdir, { throwIfNoEntry: false });
  if (!found) return true;
  if (!found.isDirectory()) {
    log.error(`Inputs path exists at '${inputdir}', but it is not a directory`);
    return false;
  }
  try {
    rmSync(inputdir, { recursive: true, force: true });
    return true;
  } catch (error) {
    log.error(`Could not remove '${inputdir}': ${(error as Error).message}`);
    return false;
  }
}

/** The hub marker, policy_server.dat and bootstrap_id.dat, each written atomically. */
function writeBootstrapFiles(
  argument: string,
  amPolicyHub: boolean,
  dirs: BootstrapDirectories,
  log: Logger,
): boolean {
  const marker = join(dirs.statedir, AM_POLICY_HUB_FILE);
  try {
    makeDirectoriesSync(dirs.statedir, 0o700);
    if (amPolicyHub) {
      if (!existsSync(marker)) writeFileAtomically(marker, "", 0o600);
    } else if (existsSync(marker)) unlinkSync(marker);
  } catch {
    log.error(`Error ${amPolicyHub ? "writing" : "removing"} marker file '${marker}'`);
    return false;
  }
  const file = join(dirs.workdir, POLICY_SERVER_FILE);
  try {
    writeFileAtomically(file, `${argument}\n`, 0o600);
  } catch (error) {
    log.error(`Unable to write policy server file '${file}' (${(error as Error).message})`);
    return false;
  }
  const idFile = join(dirs.workdir, BOOTSTRAP_ID_FILE);
  try {
    writeFileAtomically(idFile, `${randomBytes(30).toString("base64")}\n`, 0o600);
  } catch (error) {
    log.error(`Unable to write bootstrap id file '${idFile}' (${(error as Error).message})`);
  }
  return true;
}

/**
 * After the failsafe run: whether the bootstrap worked (logged as 3.21
 * logs it). A failed one is undone: no policy server, no hub marker.
 */
export function verifyBootstrap(dirs: BootstrapDirectories, log: Logger): boolean {
  const server = readPolicyServer(dirs.workdir);
  let failure: string | undefined;
  if (!server) failure = "Bootstrapping failed, no policy server is specified";
  else if (!existsSync(join(dirs.inputdir, "promises.cf")))
    failure = `Bootstrapping failed, no input file at '${join(dirs.inputdir, "promises.cf")}' after bootstrap`;
  if (failure === undefined) {
    log.notice(`Bootstrap to '${server}' completed successfully!`);
    return true;
  }
  log.error(failure);
  rmSync(join(dirs.workdir, POLICY_SERVER_FILE), { force: true });
  rmSync(join(dirs.statedir, AM_POLICY_HUB_FILE), { force: true });
  return false;
}
