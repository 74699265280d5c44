/**
 * cf-agent's `bindtointerface` on the client side: the local address an
 * outgoing connection to a server is made from. As 3.21's SocketConnect
 * does it:
 * - the value is looked up with getaddrinfo, so it may be an address or a
 *   name (/etc/hosts, nsswitch.conf); a name that does not resolve fails the
 *   connection, with getaddrinfo's words;
 * - an address that cannot be bound (not one of this host's) is logged as
 *   an error, and the connection is made from the kernel's choice instead.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Logger } from "../system/logger.js";
import { NetError } from "./errors.js";

/** gai_strerror's text for the codes Node gives a failed lookup. */
const GAI_TEXT: Readonly<Record<string, string>> = {
  ENOTFOUND: "Name or service not known",
  EAI_NONAME: "Name or service not known",
  EAI_AGAIN: "Temporary failure in name resolution",
  EAI_FAIL: "Non-recoverable failure in name resolution",
  ENODATA: "No address associated with hostname",
  EAI_NODATA: "No address associated with hostname",
};

/**
 * The address to bind before connecting to `host`: `bind` itself when it is
 * an address, else what getaddrinfo gives for it, of `host`'s family when
 * `host` is an address (3.21 tries each result in turn, and only those of
 * the socket's family can be bound).
 */
async function resolveBindAddress(bind: string, host: string): Promise<string> {
  if (isIP(bind) !== 0) return bind;
  let found: Array<{ address: string; family: number }>;
  try {
    found = await lookup(bind, { all: true, verbatim: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const text = GAI_TEXT[code] ?? (error instanceof Error ? error.message : String(error));
    throw new NetError("connect", `Unable to lookup interface '${bind}' to bind. (getaddrinfo: ${text})`, {
      cause: error,
    });
  }
  const family = isIP(host);
  const chosen = found.find((entry) => family === 0 || entry.family === family) ?? found[0];
  if (!chosen)
    throw new NetError(
      "connect",
      `Unable to lookup interface '${bind}' to bind. (getaddrinfo: No address associated with hostname)`,
    );
  return chosen.address;
}

/**
 * A connection made by `connect` from `bind` (an address or a name) when
 * given: from what it resolves to, or, when that address cannot be bound,
 * logged as 3.21 logs it and made again from the kernel's choice.
 */
export async function connectFrom<T>(
  bind: string | undefined,
  host: string,
  logger: Logger | undefined,
  connect: (localAddress: string | undefined) => Promise<T>,
): Promise<T> {
  if (!bind) return connect(undefined);
  const local = await resolveBindAddress(bind, host);
  try {
    return await connect(local);
  } catch (error) {
    const cause = error instanceof NetError ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
    if (!cause || !(cause.syscall === "bind" || cause.code === "EADDRNOTAVAIL")) throw error;
    const text = cause.code === "EADDRNOTAVAIL" ? "Cannot assign requested address" : cause.message;
    logger?.error(`Unable to bind to interface '${bind}'. (bind: ${text})`);
    return connect(undefined);
  }
}
