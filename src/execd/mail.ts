/**
 * Mailing a run's output as cf-execd 3.21's MailResult does: SMTP to
 * `smtpserver` port 25, `HELO <fqhost>`, `MAIL FROM`, `RCPT TO`, `DATA`
 * with 3.21's headers (Subject, X-CFEngine, Date, From, To), the output's
 * unfiltered lines up to `mailmaxlines`, then `.` and `QUIT`. Failures are
 * logged with 3.21's messages. tend dot-stuffs lines that start with `.`
 * (3.21 sends them as they are, so a line "." ends the mail early).
 */
import { lookup } from "node:dns/promises";
import { connect, type Socket } from "node:net";
import { hostKeyDigest } from "../eval/host-key.js";
import { readPolicyServer } from "../eval/policy-server.js";
import type { Logger } from "../system/logger.js";
import type { ExecutorControl } from "./control.js";

export interface MailOptions {
  readonly control: ExecutorControl;
  /** The output file (named in the truncation notice). */
  readonly file: string;
  /** Its lines. */
  readonly lines: readonly string[];
  readonly fqname: string;
  readonly ipAddress: string;
  readonly ipAddresses: string;
  readonly workdir: string;
  readonly logger: Logger;
  /** Whether a line is left out by mailfilter_include/exclude. */
  readonly filtered: (line: string) => boolean;
  /** The SMTP port (25; tests pick another). */
  readonly port?: number;
  readonly now?: Date;
}

const two = (n: number): string => String(n).padStart(2, "0");
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** strftime "%a, %d %b %Y %H:%M:%S %z" in local time. */
function rfc2822(d: Date): string {
  const offset = -d.getTimezoneOffset();
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  return `${DAYS[d.getDay()]}, ${two(d.getDate())} ${MONTHS[d.getMonth()]} ${d.getFullYear()} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${sign}${two(Math.floor(abs / 60))}${two(abs % 60)}`;
}

/** Reads one SMTP reply (multi-line replies: "250-..." until "250 ..."); true for 2xx and 3xx. */
class Replies {
  private buffer = "";
  private waiting: ((line: string | undefined) => void) | undefined;
  private closed = false;

  constructor(socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer += chunk.toString("latin1");
      this.wake();
    });
    const end = (): void => {
      this.closed = true;
      this.wake();
    };
    socket.on("end", end);
    socket.on("close", end);
    socket.on("error", end);
  }

  private wake(): void {
    const resolve = this.waiting;
    if (!resolve) return;
    const nl = this.buffer.indexOf("\n");
    if (nl >= 0) {
      this.waiting = undefined;
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      resolve(line);
    } else if (this.closed) {
      this.waiting = undefined;
      resolve(undefined);
    }
  }

  private line(): Promise<string | undefined> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.wake();
    });
  }

  async reply(): Promise<boolean> {
    let first: string | undefined;
    for (;;) {
      const line = await this.line();
      if (line === undefined) return first !== undefined && /^[23]/.test(first);
      first ??= line;
      if (line.charAt(3) !== "-") break;
    }
    return /^[23]/.test(first ?? "");
  }
}

/** Sends the mail; logs 3.21's errors and returns false when it could not. */
export async function mailResult(options: MailOptions): Promise<boolean> {
  const { control, logger } = options;
  let address: string;
  try {
    address = (await lookup(control.smtpServer, { family: 4 })).address;
  } catch {
    logger.error(
      `Mail report: unknown host '${control.smtpServer}' ('smtpserver' in body executor control). Make sure that fully qualified names can be looked up at your site.`,
    );
    return false;
  }
  logger.debug("Mail report: connecting...");
  const socket = connect({ host: address, port: options.port ?? 25 });
  const replies = new Replies(socket);
  const connected = await new Promise<string | undefined>((resolve) => {
    socket.once("connect", () => resolve(undefined));
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
  if (connected !== undefined) {
    const reason = connected === "ECONNREFUSED" ? "Connection refused" : connected;
    logger.error(`Mail report: couldn't connect to host '${control.smtpServer}'. (connect: ${reason})`);
    socket.destroy();
    return false;
  }
  const send = (text: string): void => {
    socket.write(text, "latin1");
  };
  const dialogue = async (text: string | undefined): Promise<boolean> => {
    if (text) send(text);
    return replies.reply();
  };
  const fail = (): boolean => {
    socket.destroy();
    logger.error(`Mail report: cannot mail to ${control.mailTo}.`);
    return false;
  };
  const from = control.mailFrom === "" ? `cfengine@${options.fqname}` : control.mailFrom;
  if (!(await dialogue(undefined))) return fail();
  if (!(await dialogue(`HELO ${options.fqname}\r\n`))) return fail();
  if (!(await dialogue(`MAIL FROM: <${from}>\r\n`))) return fail();
  if (!(await dialogue(`RCPT TO: <${control.mailTo}>\r\n`))) return fail();
  if (!(await dialogue("DATA\r\n"))) return fail();
  send(
    control.mailSubject === ""
      ? `Subject: [${options.fqname}/${options.ipAddress}]\r\n`
      : `Subject: ${control.mailSubject}\r\n`,
  );
  const hub = readPolicyServer(options.workdir) ?? "(none)";
  const digest = hostKeyDigest(options.workdir) ?? "";
  send(
    `X-CFEngine: vfqhost="${options.fqname}";ip-addresses="${options.ipAddresses}";policyhub="${hub}";pkhash="${digest}"\r\n`,
  );
  send(`Date: ${rfc2822(options.now ?? new Date())}\r\n`);
  send(`From: ${from}\r\n`);
  send(`To: ${control.mailTo}\r\n\r\n`);
  let count = 0;
  for (const line of options.lines) {
    if (options.filtered(line)) continue;
    send(`${line.startsWith(".") ? "." : ""}${line}\r\n`);
    count++;
    if (control.mailMaxLines !== -2 && count >= control.mailMaxLines) {
      send(`\r\n[Mail truncated by CFEngine. File is at ${options.file} on ${options.fqname}]\r\n`);
      break;
    }
  }
  if (!(await dialogue(".\r\n"))) return fail();
  await dialogue("QUIT\r\n");
  logger.debug("Mail report: done sending mail");
  socket.destroy();
  return true;
}
