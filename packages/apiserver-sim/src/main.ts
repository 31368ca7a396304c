#!/usr/bin/env node
/** The `rxinformer-apiserver` command: see `command.ts` and `--help`. */
import { runApiServerCommand } from './command.ts';

runApiServerCommand(process.argv.slice(2)).catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
