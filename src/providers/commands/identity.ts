/**
 * Who a command runs as: a user or group given by name or number, resolved
 * to an id. `*` (CFEngine's "unchanged") and absence leave the id as the
 * agent's; a number is taken as it stands; a name is looked up through
 * the system's databases (NSS, see user-lookup.ts). An unknown name is
 * noted and resolves to -2 as a 32-bit id (3.21's CF_UNKNOWN_OWNER and
 * CF_UNKNOWN_GROUP); front ends that refuse unknown names check `unknown`.
 */
import { findGroup, findUser } from "./user-lookup.js";

/** -2 as a 32-bit id: what an unknown owner or group resolves to. */
export const UNKNOWN_ID = 0xfffffffe;

export interface Identity {
  /** Undefined: leave it as the agent's. */
  readonly id?: number;
  /** The name that could not be found, when `id` is UNKNOWN_ID for that reason. */
  readonly unknown?: string;
}

export function readOwner(text: string | undefined): Identity {
  return readIdentity(text, (name) => findUser(name)?.uid);
}

export function readGroup(text: string | undefined): Identity {
  return readIdentity(text, (name) => findGroup(name)?.gid);
}

function readIdentity(text: string | undefined, lookUp: (name: string) => number | undefined): Identity {
  if (text === undefined || text === "*") return {};
  if (/^\d+$/.test(text)) return { id: Number(text) % 2 ** 32 };
  const id = lookUp(text);
  return id === undefined ? { id: UNKNOWN_ID, unknown: text } : { id };
}
