/**
 * `rxinformer` (`npm start` in the repository): the live view of a resource through rxinformer's
 * informer factory. See `--help` and packages/cli/README.md ("Live view").
 *
 *   rxinformer                                  # the embedded simulator with churn and faults
 *   rxinformer --kubeconfig ~/.kube/config -n default --resource deployments
 *   rxinformer --duration 10 | cat              # plain lines, exits 0 with a summary after 10 s
 *
 * Exit codes: 0 after --duration, Ctrl-C, SIGTERM or the reader of stdout going away (`| head`);
 * 2 for invalid options or a resource that cannot be watched; 1 for anything else (an rxinformer
 * error, e.g. a discovery timeout, as a one-line message).
 */
import { RxInformerError } from '@rxinformer/core';
import { LIVE_USAGE, LiveOptionsError, parseLiveOptions } from './liveOptions.ts';
import { summaryLines } from './liveRender.ts';
import { startLiveView, type LiveRun } from './liveView.ts';

/** After the summary the process must end on its own; if a handle keeps it alive, say which and exit 1. */
const EXIT_GRACE_MS = 5000;

function fail(code: number, message: string): void {
  process.stderr.write(`${message}\n`);
  process.exitCode = code;
}

/** The stdout side of the view: writes stop for good once the reader has gone (EPIPE: `| head`). */
function stdoutWriter(onClosed: () => void): { write: (text: string) => void } {
  let closed = false;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
    closed = true;
    onClosed();
  });
  return {
    write: (text) => {
      if (!closed) process.stdout.write(text);
    },
  };
}

/** Runs the live view with the command line `argv` (without `node` and the script) until it is stopped. */
export async function runLiveCommand(argv: readonly string[]): Promise<void> {
  let options;
  try {
    options = parseLiveOptions(argv, process.env);
  } catch (e) {
    if (e instanceof LiveOptionsError) return fail(2, `error: ${e.message}\n\n${LIVE_USAGE}`);
    throw e;
  }
  if (options.help) {
    process.stdout.write(`${LIVE_USAGE}\n`);
    return;
  }
  const stops = armStops(options.durationSeconds);
  const out = stdoutWriter(() => stops.stop('output closed'));
  const stdout = process.stdout;

  let run: LiveRun | undefined;
  try {
    run = await startLiveView(options, {
      write: out.write,
      isTTY: stdout.isTTY === true,
      size: () => ({ rows: stdout.rows || 24, columns: stdout.columns || 80 }),
      signal: stops.signal,
    });
  } catch (e) {
    if (!stops.signal.aborted) {
      // once a stop is requested, a failed start is its doing
      stops.disarm();
      if (e instanceof LiveOptionsError) return fail(2, `error: ${e.message}`);
      if (e instanceof RxInformerError) return fail(1, `error: ${e.message}`);
      throw e;
    }
  }
  if (!stops.signal.aborted) await new Promise((resolve) => stops.signal.addEventListener('abort', resolve, { once: true }));
  stops.disarm();
  const reason = String(stops.signal.reason);
  if (run) {
    const summary = await run.stop();
    out.write(
      `stopped (${reason})\n${summaryLines(summary)
        .map((l) => `${l}\n`)
        .join('')}`,
    );
  } else {
    out.write(`stopped (${reason}) before the view had started\n`);
  }
  setTimeout(() => {
    process.stderr.write(`still running ${EXIT_GRACE_MS} ms after shutdown: ${process.getActiveResourcesInfo().join(', ')}\n`);
    process.exit(1);
  }, EXIT_GRACE_MS).unref();
}

/**
 * The ways to stop, armed before the start: after `durationSeconds` (counted from now), on SIGINT
 * or SIGTERM, or by `stop(reason)`; Ctrl-C while the simulator or discovery is starting still
 * closes everything (the temporary kubeconfig included). `signal` aborts with the first reason.
 */
function armStops(durationSeconds: number | undefined): { signal: AbortSignal; stop(reason: string): void; disarm(): void } {
  const stopRequested = new AbortController();
  const stop = (reason: string) => {
    if (!stopRequested.signal.aborted) stopRequested.abort(reason);
  };
  const timer = durationSeconds !== undefined ? setTimeout(() => stop(`${durationSeconds}s elapsed`), durationSeconds * 1000) : undefined;
  const onSignal = (signal: NodeJS.Signals) => stop(signal);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: stopRequested.signal,
    stop,
    disarm: () => {
      clearTimeout(timer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
