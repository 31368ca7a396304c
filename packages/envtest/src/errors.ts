/**
 * Named error classes of the test environment. Each carries a machine-readable `reason` and, where
 * there is one, an ES2022 `cause`; an error about a process names the log file to read.
 */

/** Base class of every error of `@rxinformer/envtest`; each sets its `name` as a string, which survives minification. */
export class EnvtestError extends Error {
  /** Always `EnvtestError`: set as a string, so it survives minification. */
  override readonly name: string = 'EnvtestError';
  /** A stable, machine-readable reason, e.g. `BinaryNotFound`, `ProcessExited`. */
  readonly reason: string;

  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/** A binary the environment needs (etcd, kube-apiserver) was found nowhere it looked. */
export class BinaryNotFoundError extends EnvtestError {
  /** Always `BinaryNotFoundError`: set as a string, so it survives minification. */
  override readonly name: string = 'BinaryNotFoundError';
  /** The binary's name. */
  readonly binary: string;
  /** The paths that were missing. */
  readonly searched: readonly string[];

  constructor(binary: string, searched: readonly string[], source: string) {
    super(
      'BinaryNotFound',
      `${binary} not found (looked at ${searched.join(', ')}, from ${source}): run \`npx rxinformer-envtest build\` ` +
        '(needs Go), or set KUBEBUILDER_ASSETS to a folder holding etcd and kube-apiserver (setup-envtest)',
    );
    this.binary = binary;
    this.searched = searched;
  }
}

/** `go build` of the binaries failed, or Go is not installed. */
export class BuildError extends EnvtestError {
  /** Always `BuildError`: set as a string, so it survives minification. */
  override readonly name: string = 'BuildError';
  /** The build's log. */
  readonly logFile: string;

  constructor(message: string, logFile: string, options?: { cause?: unknown }) {
    super('BuildFailed', `${message} (log: ${logFile})`, options);
    this.logFile = logFile;
  }
}

/** A process of the environment exited (or could not start) before it was asked to stop. */
export class ProcessExitedError extends EnvtestError {
  /** Always `ProcessExitedError`: set as a string, so it survives minification. */
  override readonly name: string = 'ProcessExitedError';
  /** `etcd` or `kube-apiserver`. */
  readonly process: string;
  /** Its exit code, or null when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it, if any. */
  readonly signal: string | null;
  /** Where its output went. */
  readonly logFile: string;

  constructor(process: string, code: number | null, signal: string | null, logFile: string, tail: string) {
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    super('ProcessExited', `${process} ${how}; its log is ${logFile}${tail ? `; it ends with:\n${tail}` : ''}`);
    this.process = process;
    this.code = code;
    this.signal = signal;
    this.logFile = logFile;
  }
}

/** A port the environment was told to use is taken by another process. */
export class PortInUseError extends EnvtestError {
  /** Always `PortInUseError`: set as a string, so it survives minification. */
  override readonly name: string = 'PortInUseError';
  /** The port. */
  readonly port: number;
  /** The log of the process that could not bind it. */
  readonly logFile: string;

  constructor(port: number, process: string, logFile: string) {
    super('PortInUse', `${process} could not listen on 127.0.0.1:${port}: the port is taken (log: ${logFile})`);
    this.port = port;
    this.logFile = logFile;
  }
}

/** A process did not become ready in time. */
export class StartTimeoutError extends EnvtestError {
  /** Always `StartTimeoutError`: set as a string, so it survives minification. */
  override readonly name: string = 'StartTimeoutError';
  /** `etcd` or `kube-apiserver`. */
  readonly process: string;
  /** Where its output went. */
  readonly logFile: string;

  constructor(process: string, waitedMs: number, logFile: string, lastProblem?: string) {
    super(
      'StartTimeout',
      `${process} was not ready after ${Math.round(waitedMs)} ms${lastProblem ? ` (last answer: ${lastProblem})` : ''}; its log is ${logFile}`,
    );
    this.process = process;
    this.logFile = logFile;
  }
}

/** Options that make no sense, thrown synchronously at the call that received them. */
export class InvalidOptionsError extends EnvtestError {
  /** Always `InvalidOptionsError`: set as a string, so it survives minification. */
  override readonly name: string = 'InvalidOptionsError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('InvalidOptions', message, options);
  }
}

/** The message of `error`, whatever was thrown. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `eventually`'s check did not pass in time. The last failure is the `cause`. */
export class EventuallyTimeoutError extends EnvtestError {
  /** Always `EventuallyTimeoutError`: set as a string, so it survives minification. */
  override readonly name: string = 'EventuallyTimeoutError';
  /** How many attempts finished (the one running at the deadline not counted). */
  readonly attempts: number;
  /** The time it had, in ms. */
  readonly timeoutMs: number;

  constructor(what: string | undefined, timeoutMs: number, attempts: number, running: boolean, last: unknown) {
    const tried = `${attempts} attempt${attempts === 1 ? '' : 's'} failed${running ? ', one was still running' : ''}`;
    const lastly = attempts > 0 ? `; the last failed with: ${messageOf(last)}` : '';
    super('EventuallyTimedOut', `eventually: ${what ?? 'the check'} did not pass within ${timeoutMs} ms (${tried})${lastly}`, {
      cause: attempts > 0 ? last : undefined,
    });
    this.attempts = attempts;
    this.timeoutMs = timeoutMs;
  }
}

/** `consistently`'s check failed within its window. The failure is the `cause`. */
export class ConsistentlyFailedError extends EnvtestError {
  /** Always `ConsistentlyFailedError`: set as a string, so it survives minification. */
  override readonly name: string = 'ConsistentlyFailedError';
  /** Which check failed, from 1. */
  readonly attempt: number;

  constructor(what: string | undefined, durationMs: number, attempt: number, error: unknown) {
    super(
      'ConsistentlyFailed',
      `consistently: ${what ?? 'the check'} failed at check ${attempt} of a ${durationMs} ms window: ${messageOf(error)}`,
      {
        cause: error,
      },
    );
    this.attempt = attempt;
  }
}

/** A CRD file or folder could not be read: missing, not YAML or JSON, or holding no usable CustomResourceDefinition. */
export class CRDFileError extends EnvtestError {
  /** Always `CRDFileError`: set as a string, so it survives minification. */
  override readonly name: string = 'CRDFileError';
  /** The file or folder. */
  readonly path: string;

  constructor(reason: 'CRDPathMissing' | 'CRDFileInvalid', path: string, message: string, options?: { cause?: unknown }) {
    super(reason, `${path}: ${message}`, options);
    this.path = path;
  }
}

/** The server refused to store a CRD, or a CRD the environment installed would not go away. */
export class CRDInstallError extends EnvtestError {
  /** Always `CRDInstallError`: set as a string, so it survives minification. */
  override readonly name: string = 'CRDInstallError';
  /** The CRD's name, `<plural>.<group>`. */
  readonly crd: string;
  /** The HTTP status of the refusal, if there was one. */
  readonly code?: number;

  constructor(reason: 'CRDRejected' | 'CRDNotRemoved', crd: string, message: string, code?: number, options?: { cause?: unknown }) {
    super(reason, `CustomResourceDefinition ${crd}: ${message}`, options);
    this.crd = crd;
    this.code = code;
  }
}

/** A CRD was stored but not served in time: not Established, or its resource not in discovery. */
export class CRDNotServedError extends EnvtestError {
  /** Always `CRDNotServedError`: set as a string, so it survives minification. */
  override readonly name: string = 'CRDNotServedError';
  /** The CRD's name, `<plural>.<group>`. */
  readonly crd: string;
  /** What was still missing at the deadline. */
  readonly lastProblem: string;

  constructor(crd: string, waitedMs: number, lastProblem: string, options?: { cause?: unknown }) {
    super('CRDNotServed', `CustomResourceDefinition ${crd} was not served after ${waitedMs} ms: ${lastProblem}`, options);
    this.crd = crd;
    this.lastProblem = lastProblem;
  }
}

/** What only the environment's own processes have (etcd, logs, restarts), asked of an environment on an existing cluster. */
export class ExistingClusterError extends EnvtestError {
  /** Always `ExistingClusterError`: set as a string, so it survives minification. */
  override readonly name: string = 'ExistingClusterError';
  /** The member asked for, e.g. `restartApiServer`. */
  readonly member: string;

  constructor(member: string, why = 'the environment runs on an existing cluster, not on processes of its own') {
    super('ExistingCluster', `${member} is not available: ${why}`);
    this.member = member;
  }
}

/** The existing cluster's API server did not answer `/readyz` with 200 in time. */
export class ClusterUnreachableError extends EnvtestError {
  /** Always `ClusterUnreachableError`: set as a string, so it survives minification. */
  override readonly name: string = 'ClusterUnreachableError';
  /** The server's URL, from the kubeconfig. */
  readonly server: string;

  constructor(server: string, waitedMs: number, options?: { cause?: unknown }) {
    super(
      'ClusterUnreachable',
      `the existing cluster at ${server} was not ready after ${waitedMs} ms: ${messageOf(options?.cause)}`,
      options,
    );
    this.server = server;
  }
}
