#!/usr/bin/env node
/** The `rxinformer-envtest` command: see `command.ts` and `--help`. */
import { runEnvtestCommand } from './command.ts';

runEnvtestCommand(process.argv.slice(2)).catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
