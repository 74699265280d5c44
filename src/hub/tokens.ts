/**
 * Read tokens for the hub's API: `tend_<id>_<secret>`, where the id names
 * the token in lists and the secret is 32 random bytes. The store keeps
 * only the SHA-256 of the whole token; the token itself is shown once,
 * when it is made.
 */
import { createHash, randomBytes } from "node:crypto";
import type { HubStore, TokenRow } from "./store/store.js";

export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Makes and stores a token named `name`; returns it (the only time it is seen) and its id. */
export async function createToken(store: HubStore, name: string): Promise<{ id: string; token: string }> {
  const id = randomBytes(6).toString("hex");
  const token = `tend_${id}_${randomBytes(32).toString("base64url")}`;
  await store.addToken(id, name, tokenHash(token), new Date());
  return { id, token };
}

export function listTokens(store: HubStore): Promise<TokenRow[]> {
  return store.tokens();
}

/** Revokes the token `id`; false when there is no such live token. */
export function revokeToken(store: HubStore, id: string): Promise<boolean> {
  return store.revokeToken(id, new Date());
}
