/**
 * The TLS version and cipher settings as 3.21 reads them (libcfnet
 * tls_generic.c `TLSSetDefaultOptions`, `TLSSetCipherList`), for both
 * sides: the server's `allowtlsversion`/`allowciphers` and the client's
 * `tls_min_version`/`tls_ciphers` (body common control).
 *
 * - A minimum version is one of "1.0", "1.1", "1.2", "1.3" exactly; none
 *   given is 1.1; "1.0" is taken with a warning (below the recommended
 *   1.1); anything else is warned about and TLS 1.0 is used, as 3.21 does.
 * - A cipher list is OpenSSL's, with TLS 1.3 suites ("TLS_…") among the
 *   older ciphers; the two parts are set apart. Without a TLS 1.3 suite,
 *   TLS 1.3 is off (with 3.21's warning); without an older cipher, the
 *   older versions keep OpenSSL's default list. A part OpenSSL matches
 *   nothing in is an error.
 *
 * One difference from 3.21 is spoken: with OpenSSL 3 at its default
 * security level, a TLS 1.0 or 1.1 handshake finds no signature algorithm
 * and fails, whatever the minimum says (3.21 fails the same way, silently,
 * "no suitable signature algorithm" in its verbose log). When a minimum
 * below 1.2 is asked for explicitly and the cipher list does not lower the
 * security level (`@SECLEVEL=0`, which 3.21 and tend both honour), an
 * info line says so (shown with -I or -v: 3.21 prints nothing there, and
 * the acceptance suite runs its servers at the default level).
 */
import tls from "node:tls";

export interface TlsMessage {
  readonly level: "error" | "warning" | "info" | "verbose";
  readonly text: string;
}

const VERSIONS = ["1.0", "1.1", "1.2", "1.3"] as const;
const NODE_NAMES: Readonly<Record<(typeof VERSIONS)[number], tls.SecureVersion>> = {
  "1.0": "TLSv1",
  "1.1": "TLSv1.1",
  "1.2": "TLSv1.2",
  "1.3": "TLSv1.3",
};

/** The lowest version 3.21 recommends, and its default. */
const RECOMMENDED = "1.1";

export interface TlsSettings {
  /** Node's options for a secure context: minVersion, maxVersion, ciphers. */
  readonly options: Pick<tls.SecureContextOptions, "minVersion" | "maxVersion" | "ciphers">;
  /** What 3.21 logs setting them (verbose lines, warnings), in order. */
  readonly messages: readonly TlsMessage[];
  /** Set when the cipher list matches nothing: 3.21's error line (the server does not start). */
  readonly error?: string;
}

/** The minimum version as 3.21 reads `allowtlsversion`/`tls_min_version`. */
export function minimumTlsVersion(setting: string | undefined): {
  readonly version: (typeof VERSIONS)[number];
  readonly messages: readonly TlsMessage[];
} {
  const messages: TlsMessage[] = [];
  let version: (typeof VERSIONS)[number] = RECOMMENDED;
  if (setting !== undefined && setting !== "") {
    const found = VERSIONS.find((v) => v === setting);
    if (found === undefined) {
      messages.push({
        level: "warning",
        text: `Unrecognized requested minimum TLS version '${setting}', using the minimum required version 1.0.`,
      });
      version = "1.0";
    } else {
      if (found === "1.0")
        messages.push({
          level: "warning",
          text: `Minimum requested TLS version is ${setting}, but minimum version recommended by CFEngine is ${RECOMMENDED}.`,
        });
      version = found;
    }
  }
  messages.push({ level: "verbose", text: `Setting minimum acceptable TLS version: ${version}` });
  return { version, messages };
}

/** Whether OpenSSL takes `ciphers` (a list of TLS 1.2-and-older ciphers, or of TLS 1.3 suites). */
function opensslTakes(ciphers: string): boolean {
  try {
    tls.createSecureContext({ ciphers });
    return true;
  } catch {
    return false;
  }
}

/**
 * The settings for a context: the minimum version and the cipher list
 * (undefined: OpenSSL's defaults, the client's case when `tls_ciphers` is
 * not set).
 */
export function tlsSettings(minVersion: string | undefined, cipherList: string | undefined): TlsSettings {
  const minimum = minimumTlsVersion(minVersion);
  const messages: TlsMessage[] = [...minimum.messages];
  const options: { minVersion: tls.SecureVersion; maxVersion?: tls.SecureVersion; ciphers?: string } = {
    minVersion: NODE_NAMES[minimum.version],
  };
  if (cipherList === undefined) {
    messages.push({ level: "verbose", text: "Using the OpenSSL's default cipher list" });
  } else {
    messages.push({ level: "verbose", text: `Setting cipher list for TLS connections to: ${cipherList}` });
    const specs = cipherList.split(":").filter((s) => s !== "");
    const older = specs.filter((s) => !s.startsWith("TLS_")).join(":");
    const suites = specs.filter((s) => s.startsWith("TLS_")).join(":");
    if (older !== "") {
      messages.push({ level: "verbose", text: `Enabling ciphers '${older}' for TLS 1.2 and older` });
      if (!opensslTakes(older))
        return { options, messages, error: `No valid ciphers in the cipher list: ${cipherList}` };
    }
    if (suites !== "") {
      messages.push({ level: "verbose", text: `Enabling cipher suites '${suites}' for TLS 1.3 and newer` });
      if (!opensslTakes(suites))
        return { options, messages, error: `No valid cipher suites in the list: ${cipherList}` };
    } else {
      messages.push({
        level: "warning",
        text: `Disabling TLS 1.3 because no TLS 1.3 ciphersuites specified in allowed ciphers: '${cipherList}'`,
      });
      options.maxVersion = "TLSv1.2";
    }
    // Node turns the older versions off for a list of TLS 1.3 suites only; 3.21 keeps OpenSSL's default for them.
    options.ciphers = [older === "" ? "DEFAULT" : older, suites].filter((s) => s !== "").join(":");
  }
  if (
    minVersion !== undefined &&
    (minimum.version === "1.0" || minimum.version === "1.1") &&
    Number.parseInt(process.versions.openssl ?? "0", 10) >= 3 &&
    !/@SECLEVEL=0/i.test(cipherList ?? "")
  )
    messages.push(lowVersionNotice(minimum.version));
  return { options, messages };
}

function lowVersionNotice(version: string): TlsMessage {
  return {
    level: "info",
    text: `TLS ${version} is allowed, but OpenSSL ${process.versions.openssl ?? ""} completes no handshake below TLS 1.2 at its default security level (no signature algorithm it accepts): add '@SECLEVEL=0' to the cipher list to let such clients in`,
  };
}

/** cf-serverd 3.21's list when `allowciphers` is not given (server_tls.c). */
export const DEFAULT_ALLOWCIPHERS = "AES256-GCM-SHA384:AES256-SHA:TLS_AES_256_GCM_SHA384";

/**
 * The server's settings from `body server control`, logged as 3.21 logs
 * them (the settings read, then the context made); `error` set when the
 * cipher list matches nothing (3.21's server does not start).
 */
export function serverTlsSettings(
  control: { readonly allowTlsVersion?: string; readonly allowCiphers?: string },
  log: {
    verbose(text: string): void;
    info(text: string): void;
    warning(text: string): void;
    error(text: string): void;
  },
): TlsSettings {
  if (control.allowTlsVersion !== undefined)
    log.verbose(`Setting allowtlsversion to: ${control.allowTlsVersion}`);
  if (control.allowCiphers !== undefined) log.verbose(`Setting allowciphers to: ${control.allowCiphers}`);
  const settings = tlsSettings(control.allowTlsVersion, control.allowCiphers ?? DEFAULT_ALLOWCIPHERS);
  for (const message of settings.messages) log[message.level](message.text);
  return settings;
}
