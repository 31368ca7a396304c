/**
 * `@rxinformer/envtest`: a real etcd and kube-apiserver for tests — built from Go modules or found
 * through `KUBEBUILDER_ASSETS` — started and removed by one call, and a fault proxy to put in front.
 */
export { startTestEnvironment } from './testEnvironment.ts';
export type { RestartOptions, TestEnvironment, TestEnvironmentOptions } from './testEnvironment.ts';
export { startFaultProxy } from './faultProxy.ts';
export type { FaultProxy, FaultProxyOptions, InjectedFailure, StreamFilter } from './faultProxy.ts';
export { buildBinaries, builtDir, findBinaries, moduleVersions, GO_MODULE_DIR } from './binaries.ts';
export type { BinaryOptions, BuildResult, EnvtestBinaries } from './binaries.ts';
export {
  BinaryNotFoundError,
  BuildError,
  EnvtestError,
  InvalidOptionsError,
  PortInUseError,
  ProcessExitedError,
  StartTimeoutError,
} from './errors.ts';
