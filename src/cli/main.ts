/**
 * The process entry point (bin/tend.js imports this module): runs the command
 * line and sets the exit code. Everything testable lives in `app.ts`.
 */
import { main } from "./app.js";
import { EXIT_FAILURE, processIo } from "./io.js";

main(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
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
