/**
 * Exec credential plugins (a kubeconfig user's `exec:`, `client.authentication.k8s.io/v1`), run by
 * the transport itself rather than by client-node, which waits for a plugin without limit (a
 * hanging one stalled every request and outlived the process), starts one per concurrent request,
 * and put the start of a plugin's output that is not JSON into its error message (a token, for a
 * plugin that prints one bare). Here a run is bounded in time and output, one run serves every
 * request waiting for it, and no error shows what the plugin printed on stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { RxInformerError } from '@rxinformer/core';
import { checkScheduler } from '@rxinformer/core/http';
import { checkDuration, scheduleAfter } from '@rxinformer/core/time';
import { asyncScheduler, type SchedulerLike } from 'rxjs';

/** The default time limit of one run of a plugin, 60 s. */
export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
/** The most a plugin may print on stdout (1 MiB): an ExecCredential is a few KiB at most. */
const MAX_STDOUT_BYTES = 1024 * 1024;
/** The most of a plugin's stderr kept for its error (4 KiB). */
const MAX_STDERR_BYTES = 4096;

/** Why a plugin gave no credential: the `reason` of an `ExecPluginError`. */
export type ExecPluginFailure = 'ExecPluginNotStarted' | 'ExecPluginTimeout' | 'ExecPluginExited' | 'ExecPluginOutput';

/**
 * An exec credential plugin gave no credential: it could not start, ran past its time limit (it
 * was killed), exited with an error (its first line of stderr is in the message), or printed no
 * valid `ExecCredential` (what it printed is never shown: it may hold a credential). The
 * `CredentialError` on `status$` carries it as `cause`.
 */
export class ExecPluginError extends RxInformerError {
  /** Always `ExecPluginError`: set as a string, so it survives minification. */
  override readonly name: string = 'ExecPluginError';
  /** The plugin's command. */
  readonly command: string;
  /** Its exit code, when it exited with one. */
  readonly exitCode?: number;

  constructor(reason: ExecPluginFailure, command: string, detail: string, options?: { cause?: unknown; exitCode?: number }) {
    super(reason, `exec plugin ${command} ${detail}`, options);
    this.command = command;
    if (options?.exitCode !== undefined) this.exitCode = options.exitCode;
  }
}

/** What a plugin's `ExecCredential` gives a request. */
export interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

/** The `exec` section of a kubeconfig user. */
interface ExecConfig {
  apiVersion?: string;
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
}

/** `name`, a plugin's time limit, checked: a finite number of ms > 0 of any length. */
export function checkExecTimeout(name: string, ms: number | undefined): number {
  return checkDuration(name, ms, DEFAULT_EXEC_TIMEOUT_MS, { exclusive: true });
}

/** Options of `execCredentials`. */
export interface ExecCredentialOptions {
  /**
   * Time limit of one run, in ms; past it the plugin is killed. A finite number > 0 of any length
   * (past a JavaScript timer's 24.8 days too); 0, NaN, Infinity and negative values throw
   * `InvalidOptionsError`. Default `DEFAULT_EXEC_TIMEOUT_MS`.
   */
  timeoutMs?: number;
  /** Where the time limit runs, and the clock an `expirationTimestamp` is read against. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** The credentials of one plugin: cached until they expire or the server refuses them. */
export interface ExecCredentials {
  /** The current credential: the cached one while valid, else one run of the plugin (shared by every caller meanwhile). */
  read(): Promise<ExecCredentialStatus>;
  /** Forgets the cached credential (the server answered 401): the next `read` runs the plugin. */
  invalidate(): void;
  /** Kills a run in progress (its callers get its error). */
  close(): void;
}

/**
 * The credentials of the plugin `exec` (a kubeconfig user's `exec:` section).
 *
 * @example
 * const creds = execCredentials(kc.getCurrentUser()!.exec, { timeoutMs: 30_000 });
 * const { token } = await creds.read();
 */
export function execCredentials(exec: ExecConfig, options: ExecCredentialOptions = {}): ExecCredentials {
  checkScheduler(options.scheduler);
  const scheduler = options.scheduler ?? asyncScheduler;
  const timeoutMs = checkExecTimeout('timeoutMs', options.timeoutMs);
  let cached: ExecCredentialStatus | undefined;
  let running: Run | undefined;
  const fresh = (c: ExecCredentialStatus) => c.expirationTimestamp === undefined || Date.parse(c.expirationTimestamp) > scheduler.now();
  return {
    read() {
      if (cached && fresh(cached)) return Promise.resolve(cached);
      if (running) return running.result;
      const run: Run = {} as Run;
      run.result = runPlugin(exec, timeoutMs, scheduler, (child) => (run.child = child)).then(
        (status) => {
          if (running === run) running = undefined;
          return (cached = status);
        },
        (error: unknown) => {
          if (running === run) running = undefined;
          throw error;
        },
      );
      running = run;
      return run.result;
    },
    invalidate() {
      cached = undefined;
    },
    close() {
      running?.child?.kill('SIGKILL');
    },
  };
}

/** A run in progress: its result, shared by every caller, and its process. */
interface Run {
  result: Promise<ExecCredentialStatus>;
  child?: ChildProcess;
}

/** One run of the plugin: its ExecCredential's status, or an `ExecPluginError`. */
function runPlugin(
  exec: ExecConfig,
  timeoutMs: number,
  scheduler: SchedulerLike,
  started: (child: ChildProcess) => void,
): Promise<ExecCredentialStatus> {
  const { command } = exec;
  return new Promise((resolve, reject) => {
    const info = { apiVersion: exec.apiVersion, kind: 'ExecCredential', spec: { interactive: false } };
    const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
    for (const { name, value } of exec.env ?? []) env[name] = value;
    const child = spawn(command, exec.args ?? [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    started(child);
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: ExecPluginError | undefined;
    const stop = (error: ExecPluginError) => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const timer = scheduleAfter(scheduler, timeoutMs, () =>
      stop(new ExecPluginError('ExecPluginTimeout', command, `gave no answer within ${timeoutMs} ms; killed`)),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_STDOUT_BYTES)
        stop(new ExecPluginError('ExecPluginOutput', command, `printed more than ${MAX_STDOUT_BYTES} bytes; killed`));
      else stdout.push(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      if (stderr.length < MAX_STDERR_BYTES) stderr += text.slice(0, MAX_STDERR_BYTES - stderr.length);
    });
    child.on('error', (cause) => {
      failure ??= new ExecPluginError('ExecPluginNotStarted', command, `could not start: ${cause.message}`, { cause });
    });
    child.on('close', (code) => {
      timer.unsubscribe();
      if (failure) return reject(failure);
      if (code !== 0) {
        const said = stderr.trim().split('\n')[0]?.slice(0, 200);
        return reject(
          new ExecPluginError('ExecPluginExited', command, `exited with code ${code}${said ? `: ${said}` : ''}`, {
            exitCode: code ?? undefined,
          }),
        );
      }
      try {
        resolve(credentialOf(Buffer.concat(stdout).toString('utf8'), exec));
      } catch (e) {
        reject(e as Error);
      }
    });
  });
}

/** The status of the ExecCredential a plugin printed; throws an `ExecPluginError` that never quotes it. */
function credentialOf(text: string, exec: ExecConfig): ExecCredentialStatus {
  const bad = (what: string) =>
    new ExecPluginError('ExecPluginOutput', exec.command, `${what} (${text.length} characters, not shown: they may hold a credential)`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bad('printed no JSON');
  }
  const { kind, apiVersion, status } = (value ?? {}) as { kind?: unknown; apiVersion?: unknown; status?: ExecCredentialStatus };
  if (kind !== 'ExecCredential') throw bad('printed no ExecCredential');
  if (exec.apiVersion !== undefined && apiVersion !== exec.apiVersion)
    throw bad(`printed an ExecCredential of another apiVersion than ${exec.apiVersion}`);
  const given = (v: unknown) => typeof v === 'string' && v !== '';
  if (
    !status ||
    typeof status !== 'object' ||
    !(given(status.token) || (given(status.clientCertificateData) && given(status.clientKeyData)))
  )
    throw bad('printed an ExecCredential with neither status.token nor status.clientCertificateData and clientKeyData');
  return status;
}
