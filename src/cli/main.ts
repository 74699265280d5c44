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
    process.stderr.write(`tend: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = EXIT_FAILURE;
  },
);
