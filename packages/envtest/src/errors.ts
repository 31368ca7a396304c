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
  constructor(message: string) {
    super('InvalidOptions', message);
  }
}
