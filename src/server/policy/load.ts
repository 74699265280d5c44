/**
 * Loading the server's policy (placeholder until the evaluation lands; the
 * signature is the contract).
 */
import { makeDiagnostic } from "../../language/diagnostics.js";
import type { LoadedServerPolicy, LoadServerPolicyOptions, ServerControl } from "./model.js";

/** `body server control` when the policy has none: cf-serverd 3.21's defaults. */
export function defaultServerControl(): ServerControl {
  return {
    port: 5308,
    allowConnects: [],
    denyConnects: [],
    allowAllConnects: [],
    trustKeysFrom: [],
    allowUsers: [],
    maxConnections: 30,
    allowLegacyConnects: [],
    denyBadClocks: true,
    logAllConnections: false,
    logEncryptedTransfers: false,
    listen: true,
    hostnameKeys: false,
    auditing: false,
    callCollectInterval: 0,
    collectWindow: 0,
    dynamicAddresses: [],
    serverFacility: "LOG_USER",
  };
}

export async function loadServerPolicy(options: LoadServerPolicyOptions): Promise<LoadedServerPolicy> {
  return {
    ok: false,
    diagnostics: [
      makeDiagnostic(
        options.file,
        [0, 0],
        "error",
        "not-implemented",
        "the server policy loader is not written yet",
      ),
    ],
  };
}
