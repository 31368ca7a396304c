/**
 * Starts the benchmark's simulator (`simChild.ts`) in a child process and drives it: seed pods,
 * apply updates, read its revision. The child is killed by `close()`, and also when this process
 * exits for any reason, so a failed benchmark never leaves a server behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A command the parent sends to the simulator child. */
export type SimCommand =
  | { cmd: 'seed'; count: number }
  | { cmd: 'update'; count: number }
  | { cmd: 'state' }
  | { cmd: 'configmaps'; count: number }
  | { cmd: 'touchConfigMaps'; count: number }
  | { cmd: 'compact' };

/** What every command answers: the pod count, the store's revision after it, and the watches open on the server. */
export interface SimState {
  pods: number;
  resourceVersion: string;
  watches: number;
}

/** Options of `startSimProcess`. */
export interface SimProcessOptions {
  /** Watch events the simulator keeps for replay. Default 100,000. */
  historyEvents?: number;
  /** V8 old-space limit of the child in MiB (100k realistic pods need ~2 GiB). Default 8192. */
  maxOldSpaceMiB?: number;
  /** Seed pods as unalike as a real cluster's (`createLoadGenerator`'s `unalike`). Default false. */
  unalike?: boolean;
  /** Namespaces the pods spread over (`team-0`…). Default 10. */
  namespaces?: number;
}

/** A running simulator child. */
export interface SimProcess {
  /** The kubeconfig YAML pointing at it. */
  readonly kubeconfig: string;
  /** Its process id. */
  readonly pid: number;
  /** Sends a command; resolves with the simulator's state after it. */
  send(command: SimCommand): Promise<SimState>;
  /** Kills the child; resolves once it has exited. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the simulator child and waits until it listens.
 *
 * @example
 * const sim = await startSimProcess();
 * await sim.send({ cmd: 'seed', count: 10_000 });
 * // … clients use sim.kubeconfig …
 * await sim.close();
 *
 * Caveat: commands run one at a time in the child; a command blocks the server while it runs.
 */
export async function startSimProcess(options: SimProcessOptions = {}): Promise<SimProcess> {
  const script = fileURLToPath(new URL('./simChild.ts', import.meta.url));
  const child: ChildProcess = spawn(
    process.execPath,
    [
      `--max-old-space-size=${options.maxOldSpaceMiB ?? 8192}`,
      script,
      String(options.historyEvents ?? 100_000),
      options.unalike ? 'unalike' : 'template',
      String(options.namespaces ?? 10),
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pending = new Map<number, { resolve: (s: SimState) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let ready: (message: { kubeconfig: string }) => void;
  let failed: (e: Error) => void;
  const started = new Promise<{ kubeconfig: string }>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });

  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    const message = JSON.parse(line) as { ready?: boolean; kubeconfig: string; id: number; ok: boolean; result: SimState; error: string };
    if (message.ready) {
      ready(message);
      return;
    }
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) waiter?.resolve(message.result);
    else waiter?.reject(new Error(`simulator: ${message.error}`));
  });
  let gone: Error | undefined;
  child.stdin!.on('error', () => {}); // a write after the child died: `gone` answers it
  void exited.then(() => {
    process.off('exit', killOnExit);
    gone = new Error(`the simulator process exited (code ${child.exitCode}, signal ${child.signalCode})`);
    failed(gone);
    for (const waiter of pending.values()) waiter.reject(gone);
    pending.clear();
  });

  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  let kubeconfig: string;
  try {
    ({ kubeconfig } = await started);
  } catch (e) {
    await close();
    throw e;
  }
  return {
    kubeconfig,
    pid: child.pid!,
    send(command) {
      const id = nextId++;
      return new Promise<SimState>((resolve, reject) => {
        if (gone) {
          reject(gone);
          return;
        }
        pending.set(id, { resolve, reject });
        child.stdin!.write(`${JSON.stringify({ id, ...command })}\n`);
      });
    },
    close,
  };
}
