/**
 * `exec_owner` and `exec_group` read as 3.21 reads them: `*` means
 * unchanged, a number is taken as it stands, a name is looked up; an
 * unknown name is noted, and the command still runs, as 3.21's unknown
 * owner (uid_t -2) or group (gid_t -2).
 */
import { findGroup, findUser } from "../../eval/functions/users.js";

/** 3.21's CF_UNKNOWN_OWNER and CF_UNKNOWN_GROUP: -2 as a 32-bit id. */
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
