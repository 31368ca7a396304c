#!/usr/bin/env node
/**
 * `npm start`: the live view of a resource through rxinformer's informer factory. See `--help`
 * and packages/cli/README.md ("Live view").
 *
 *   npm start                                   # the embedded simulator with churn and faults
 *   npm start -- --kubeconfig ~/.kube/config -n default --resource deployments
 *   npm start -- --duration 10 | cat            # plain lines, exits 0 with a summary after 10 s
 *
 * Exit codes: 0 after --duration, Ctrl-C or SIGTERM; 2 for invalid options; 1 for anything else.
 */
import { LIVE_USAGE, LiveOptionsError, parseLiveOptions } from './live/liveOptions.ts';
import { summaryLines } from './live/liveRender.ts';
import { startLiveView, type LiveRun } from './live/liveView.ts';

/** After the summary the process must end on its own; if a handle keeps it alive, say which and exit 1. */
const EXIT_GRACE_MS = 5000;

function fail(code: number, message: string): void {
  process.stderr.write(`${message}\n`);
  process.exitCode = code;
}

async function main(): Promise<void> {
  let options;
  try {
    options = parseLiveOptions(process.argv.slice(2), process.env);
  } catch (e) {
    if (e instanceof LiveOptionsError) return fail(2, `error: ${e.message}\n\n${LIVE_USAGE}`);
    throw e;
  }
  if (options.help) {
    process.stdout.write(`${LIVE_USAGE}\n`);
    return;
  }
  const stdout = process.stdout;
  let run: LiveRun;
  try {
    run = await startLiveView(options, {
      write: (text) => stdout.write(text),
      isTTY: stdout.isTTY === true,
      size: () => ({ rows: stdout.rows || 24, columns: stdout.columns || 80 }),
    });
  } catch (e) {
    if (e instanceof LiveOptionsError) return fail(2, `error: ${e.message}`);
    throw e;
  }

  let cleanup = () => {};
  const reason = await new Promise<string>((resolve) => {
    const timer = options.durationSeconds !== undefined ? setTimeout(() => resolve(`${options.durationSeconds}s elapsed`), options.durationSeconds * 1000) : undefined;
    const onSignal = (signal: NodeJS.Signals) => resolve(signal);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    cleanup = () => { clearTimeout(timer); process.off('SIGINT', onSignal); process.off('SIGTERM', onSignal); };
  });
  cleanup();
  const summary = await run.stop();
  stdout.write(`stopped (${reason})\n${summaryLines(summary).map((l) => `${l}\n`).join('')}`);
  setTimeout(() => {
    process.stderr.write(`still running ${EXIT_GRACE_MS} ms after shutdown: ${process.getActiveResourcesInfo().join(', ')}\n`);
    process.exit(1);
  }, EXIT_GRACE_MS).unref();
}

main().catch((e: unknown) => {
  if (process.stdout.isTTY) process.stdout.write('\u001b[?25h\u001b[?1049l'); // never leave the terminal on the alternate screen
  process.stderr.write(`error: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exit(1);
});
