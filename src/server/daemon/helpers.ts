/**
 * Serving on every core. cf-serverd 3.21 runs a thread per connection, so
 * its connections use all the machine's cores; one Node process uses one.
 * `tend serverd` therefore starts helper processes (copies of itself, one
 * per further core): the main process still listens, accepts and applies
 * every connection-level rule (allowconnects, denyconnects, one connection
 * per host, maxconnections) with its own counts, so these stay exact; it
 * then serves the connection itself or hands the socket to the helper with
 * the fewest connections, which tells it when the connection has ended.
 *
 * Each helper loads the same policy file with the same options, and loads it
 * again when the main process has (the main process alone watches the
 * files). A helper that dies takes its connections with it (they end as a
 * closed connection would); the main process serves on without it and
 * starts a new one.
 *
 * Messages (Node's IPC channel, JSON):
 *   main → helper  { t: "conn", id, ip } with the socket; { t: "reload" }
 *   helper → main  { t: "ready" }; { t: "done", id }; { t: "failed", messages }
 */
import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import type { Logger } from "../../system/logger.js";

/** What the main process needs to start helpers. */
export interface HelperOptions {
  /** How many helpers (0: the main process serves alone). */
  readonly count: number;
  /** Starts one helper: a copy of this server in helper mode with an IPC channel. */
  readonly spawn: () => ChildProcess;
}

type ToHelper = { t: "conn"; id: number; ip: string } | { t: "reload" };
type FromHelper = { t: "ready" } | { t: "done"; id: number } | { t: "failed"; messages: string[] };

interface Helper {
  readonly child: ChildProcess;
  ready: boolean;
  /** Connections it serves now, each with the callback that ends it. */
  readonly serving: Map<number, () => void>;
}

/** The main process's side: the helpers, and connections handed to them. */
export class HelperPool {
  private readonly helpers = new Set<Helper>();
  private nextId = 1;
  private closing = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: HelperOptions,
    private readonly log: Logger,
  ) {}

  /** Starts the helpers and waits (at most `timeoutMs`) until each has loaded its policy. */
  async start(timeoutMs = 60_000): Promise<void> {
    const started: Promise<void>[] = [];
    for (let i = 0; i < this.options.count; i++) started.push(this.startOne(timeoutMs));
    await Promise.all(started);
  }

  private startOne(timeoutMs: number): Promise<void> {
    let child: ChildProcess;
    try {
      child = this.options.spawn();
    } catch (error) {
      this.log.error(`Could not start a helper process (${error instanceof Error ? error.message : error})`);
      return Promise.resolve();
    }
    const helper: Helper = { child, ready: false, serving: new Map() };
    this.helpers.add(helper);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        if (!helper.ready) child.kill("SIGKILL");
        resolve();
      }, timeoutMs);
      timer.unref();
      child.on("message", (message: FromHelper) => {
        if (message.t === "ready") {
          helper.ready = true;
          this.log.verbose(`Helper process ${child.pid} is ready`);
          clearTimeout(timer);
          resolve();
        } else if (message.t === "done") {
          const end = helper.serving.get(message.id);
          helper.serving.delete(message.id);
          end?.();
        } else if (message.t === "failed") {
          for (const line of message.messages) this.log.error(line);
        }
      });
      child.on("error", () => {});
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        this.helpers.delete(helper);
        for (const end of helper.serving.values()) end();
        helper.serving.clear();
        resolve();
        if (this.closing) return;
        this.log.error(`A helper process ended (${signal ?? `exit ${code}`}); serving without it`);
        // One at a time, and not in a tight loop when helpers cannot start at all.
        if (helper.ready && !this.restartTimer)
          this.restartTimer = setTimeout(() => {
            this.restartTimer = undefined;
            if (!this.closing && this.helpers.size < this.options.count) void this.startOne(timeoutMs);
          }, 1000);
      });
    });
  }

  /**
   * Where the next connection goes: the helper with the fewest connections
   * when it has fewer than `local` (the main process's own), else undefined
   * (the main process serves it).
   */
  private pick(local: number): Helper | undefined {
    let best: Helper | undefined;
    for (const helper of this.helpers)
      if (helper.ready && helper.child.connected && (!best || helper.serving.size < best.serving.size))
        best = helper;
    return best && best.serving.size < local ? best : undefined;
  }

  /**
   * Hands `socket` to a helper when one is less busy than the main process
   * (serving `local` connections); resolves when the helper is done with it.
   * Undefined when the main process is to serve it.
   */
  hand(socket: Socket, ip: string, local: number): Promise<void> | undefined {
    const helper = this.pick(local);
    if (!helper) return undefined;
    const id = this.nextId++;
    return new Promise<void>((resolve) => {
      helper.serving.set(id, resolve);
      const message: ToHelper = { t: "conn", id, ip };
      try {
        helper.child.send(message, socket, { keepOpen: false }, (error) => {
          if (!error) return;
          // Not handed: the connection is dropped (the client sees it closed).
          helper.serving.delete(id);
          socket.destroy();
          resolve();
        });
      } catch {
        helper.serving.delete(id);
        socket.destroy();
        resolve();
      }
    });
  }

  /** Asks every helper to load the policy again (the main process has). */
  reload(): void {
    const message: ToHelper = { t: "reload" };
    for (const helper of this.helpers) if (helper.child.connected) helper.child.send(message, () => {});
  }

  /** Ends the helpers (their connections with them) and waits until they are gone. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restartTimer);
    await Promise.all(
      [...this.helpers].map(
        (helper) =>
          new Promise<void>((resolve) => {
            if (helper.child.exitCode !== null || helper.child.signalCode !== null) return resolve();
            helper.child.once("exit", () => resolve());
            helper.child.kill("SIGTERM");
            const timer = setTimeout(() => helper.child.kill("SIGKILL"), 5000);
            timer.unref();
          }),
      ),
    );
  }
}

/** What a helper does with each connection it is handed. */
export interface HelperServer {
  /** Serves one connection to its end; never rejects. */
  serve(socket: Socket, ip: string): Promise<void>;
  /** Loads the policy again. */
  reload(): Promise<unknown>;
  /** Ends every connection. */
  close(): Promise<void>;
}

/**
 * The helper's side: serves the connections the main process hands over,
 * reports each one's end, reloads when told, and exits when the main process
 * goes (its IPC channel closes) or on SIGTERM.
 */
export function serveForMain(server: HelperServer): Promise<void> {
  const send = (message: FromHelper): void => {
    if (process.connected) process.send?.(message, undefined, {}, () => {});
  };
  return new Promise<void>((resolve) => {
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      process.off("message", onMessage);
      void server.close().then(() => resolve());
    };
    const onMessage = (message: ToHelper, socket: unknown): void => {
      if (message.t === "reload") void server.reload();
      else if (message.t === "conn") {
        const s = socket as Socket | undefined;
        if (!s) send({ t: "done", id: message.id });
        else {
          s.on("error", () => {});
          void server.serve(s, message.ip).finally(() => send({ t: "done", id: message.id }));
        }
      }
    };
    process.on("message", onMessage);
    process.once("disconnect", end);
    process.once("SIGTERM", end);
    // Ctrl-C reaches the whole process group: the main process decides.
    process.on("SIGINT", () => {});
    send({ t: "ready" });
  });
}

/** Reports a helper's start-up failure to the main process. */
export function reportHelperFailure(messages: readonly string[]): void {
  if (process.connected) process.send?.({ t: "failed", messages: [...messages] });
}
