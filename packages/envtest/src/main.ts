#!/usr/bin/env node
/** The `rxinformer-envtest` command: see `command.ts` and `--help`. */
import { runEnvtestCommand } from './command.ts';

runEnvtestCommand(process.argv.slice(2)).then(
  // Stopped by a signal, its files removed: now die of it, so a shell sees 130 (SIGINT) or 143 (SIGTERM).
  (signal) => signal && process.kill(process.pid, signal),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
