/**
 * The process entry point (bin/tend.js imports this module): runs the command
 * line and sets the exit code. Everything testable lives in `app.ts`.
 */
import { main } from "./app.js";
import { EXIT_FAILURE, outputFlushed, processIo } from "./io.js";

const args = process.argv.slice(2);

/**
 * Commands that leave nothing running once they return: the process ends
 * at once, without Node's orderly teardown (freeing the heap a page at a
 * time, ~10 ms of CPU after `tend puppet apply` of a thousand files, more
 * after `tend puppet catalog compile` of ten thousand resources).
 * Exit handlers still run (bin/tend.js keeps its code cache in one).
 */
function endsAtOnce(command: readonly string[]): boolean {
  return command[0] === "puppet" && (command[1] === "apply" || command[1] === "catalog");
}

main(args, processIo()).then(
  (code) => {
    process.exitCode = code;
    // Output still queued (a slow pipe) is left to Node's own exit, which waits for it.
    if (endsAtOnce(args) && outputFlushed()) process.exit(code);
  },
  (error: unknown) => {
    // A bug of tend's own: one line for users, the stack when asked for it
    // (TEND_DEBUG=1), to put in a bug report.
    const detail = process.env.TEND_DEBUG === "1" && error instanceof Error ? error.stack : undefined;
    const message = error instanceof Error ? error.message : String(error);
    const hint = detail ? `\n${detail}` : " (TEND_DEBUG=1 shows where)";
    process.stderr.write(`tend: internal error: ${message}${hint}\n`);
    process.exitCode = EXIT_FAILURE;
  },
);
