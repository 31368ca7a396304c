/**
 * @rxinformer/envtest — a real etcd and kube-apiserver for tests (controller-runtime's envtest for
 * Node), built from Go modules or found through `KUBEBUILDER_ASSETS`, started and removed by one
 * call, or an existing cluster behind the same interface; CRDs from files installed and waited on
 * until served; `eventually` and `consistently` for any test framework; and a fault proxy to put
 * in front of any API server.
 *
 * @module @rxinformer/envtest
 */
export { startTestEnvironment } from './testEnvironment.ts';
export type { RestartOptions, ServingCertificate, TestEnvironment, TestEnvironmentOptions } from './testEnvironment.ts';
export type { ExistingClusterOptions } from './existingCluster.ts';
export { installCRDs, uninstallCRDs } from './crds.ts';
export type { CRDInstallOptions, InstalledCRD } from './crds.ts';
export { readCRDs } from './crdFiles.ts';
export type { CustomResourceDefinition } from './crdFiles.ts';
export { PROXY_LOG_SIZE, startFaultProxy } from './faultProxy.ts';
export { selfSignedCertificate } from './selfSigned.ts';
export type { FaultProxy, FaultProxyOptions, InjectedFailure, ProxyCounts, StreamFilter, WatchEnding } from './faultProxy.ts';
export { buildBinaries, builtDir, findBinaries, moduleVersions, GO_MODULE_DIR } from './binaries.ts';
export type { BinaryOptions, EnvtestBinaries, ModuleVersions } from './binaries.ts';
export { buildGoPrograms, goBuildCacheRoot, goBuildDir } from './goBuild.ts';
export type { BuildResult, GoBuildCacheOptions, GoProgramsBuild } from './goBuild.ts';
export { consistently, eventually } from './eventually.ts';
export type { Check, ConsistentlyOptions, EventuallyOptions } from './eventually.ts';
export {
  BinaryNotFoundError,
  BuildError,
  ClusterUnreachableError,
  ConsistentlyFailedError,
  CRDFileError,
  CRDInstallError,
  CRDNotServedError,
  EnvtestError,
  EventuallyTimeoutError,
  ExistingClusterError,
  InvalidOptionsError,
  PortInUseError,
  ProcessExitedError,
  StartTimeoutError,
} from './errors.ts';
