/**
 * `body server control` as cf-serverd 3.21 reads it (KeepControlPromises):
 * from the `control_server` variables pre-evaluation defined, each
 * attribute taken when present, the defaults otherwise.
 */
import { DEFAULT_NAMESPACE, type EvalContext } from "../../eval/context.js";
import { parseCfInt } from "../../eval/numbers.js";
import { type Value, isList, isScalar } from "../../eval/values.js";
import type { ServerControl } from "./model.js";

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
    serverFacility: undefined,
  };
}

/** What reading the control body had to say (3.21 logs these and goes on). */
export interface ControlMessage {
  readonly level: "error" | "warning" | "verbose";
  readonly message: string;
}

/** cfruncommand is kept in a 1024-byte buffer (CF_MAXVARSIZE) in 3.21. */
const MAX_CFRUNCOMMAND = 1024;

/** BooleanFromString: "true", "yes", "on" (any case) are true; anything else false. */
function booleanOf(text: string): boolean {
  return ["true", "yes", "on"].includes(text.toLowerCase());
}

/** Reads the control body from the context after pre-evaluation. */
export function readServerControl(ctx: EvalContext, messages: ControlMessage[]): ServerControl {
  const get = (name: string): Value | undefined =>
    ctx.getVariable({ ns: DEFAULT_NAMESPACE, scope: "control_server", name, indices: [] });
  const text = (name: string): string | undefined => {
    const value = get(name);
    return value && isScalar(value) ? value.value : undefined;
  };
  const strings = (name: string): string[] => {
    const value = get(name);
    if (!value) return [];
    // A list is kept without repeats (IsItemIn before PrependItem).
    if (isList(value)) return [...new Set(value.value)];
    return isScalar(value) ? [value.value] : [];
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const value = text(name);
    return value === undefined ? fallback : booleanOf(value);
  };
  const int = (name: string, fallback: number): number => {
    const value = text(name);
    if (value === undefined) return fallback;
    return parseCfInt(value) ?? fallback;
  };

  const control = defaultServerControl();
  let port = control.port;
  const portText = text("port");
  if (portText !== undefined) {
    const parsed = /^\s*[+-]?\d+\s*$/.test(portText) ? Number(portText) : Number.NaN;
    if (Number.isNaN(parsed))
      messages.push({ level: "error", message: `Failed to parse port number '${portText}'` });
    else if (parsed > 65535 || parsed < 1)
      messages.push({ level: "error", message: "Invalid port number given, must be <= 65535" });
    else port = parsed;
  }
  let cfRunCommand = text("cfruncommand");
  if (cfRunCommand !== undefined && cfRunCommand.length >= MAX_CFRUNCOMMAND) {
    messages.push({ level: "error", message: `cfruncommand too long (>${MAX_CFRUNCOMMAND}), leaving empty` });
    cfRunCommand = undefined;
  }
  const bind = text("bindtointerface");
  const ciphers = text("allowciphers");
  const tls = text("allowtlsversion");
  return {
    ...control,
    port,
    ...(bind !== undefined ? { bindToInterface: bind } : {}),
    allowConnects: strings("allowconnects"),
    denyConnects: strings("denyconnects"),
    allowAllConnects: strings("allowallconnects"),
    trustKeysFrom: strings("trustkeysfrom"),
    allowUsers: strings("allowusers"),
    maxConnections: int("maxconnections", control.maxConnections),
    ...(ciphers !== undefined ? { allowCiphers: ciphers } : {}),
    ...(tls !== undefined ? { allowTlsVersion: tls } : {}),
    allowLegacyConnects: strings("allowlegacyconnects"),
    ...(cfRunCommand !== undefined && cfRunCommand !== "" ? { cfRunCommand } : {}),
    denyBadClocks: bool("denybadclocks", control.denyBadClocks),
    logAllConnections: bool("logallconnections", control.logAllConnections),
    logEncryptedTransfers: bool("logencryptedtransfers", control.logEncryptedTransfers),
    listen: bool("listen", control.listen),
    hostnameKeys: bool("hostnamekeys", control.hostnameKeys),
    auditing: bool("auditing", control.auditing),
    callCollectInterval: int("call_collect_interval", 0) * 60,
    collectWindow: int("collect_window", 0),
    dynamicAddresses: strings("dynamicaddresses"),
    serverFacility: text("serverfacility") ?? control.serverFacility,
  };
}
