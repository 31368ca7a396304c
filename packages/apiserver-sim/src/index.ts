/**
 * @rxinformer/apiserver-sim: an in-process Kubernetes API server simulator over real HTTP, with
 * deterministic fault injection and a load generator.
 *
 * @example
 * const sim = await startApiServer({ port: 0, seed: 1 });
 * sim.storage.create('pods', { metadata: { name: 'a' } }, 'default');
 * sim.faults.dropWatches();
 * await sim.close();
 *
 * @module @rxinformer/apiserver-sim
 */

// server
export { startApiServer } from './server.ts';
export type { ApiServer, ApiServerOptions, TlsOptions } from './server.ts';

// storage and objects
export { Storage, CompactedError, objectKey } from './storage.ts';
export type { ChangeType, HistoryOptions, StoredEvent, Snapshot, ChangeListener } from './storage.ts';
export { ObjectStore } from './objects.ts';
export { timestamp } from './objectMeta.ts';
export type { ObjectInput, ObjectStoreOptions, ResourceRef } from './objects.ts';
export type { DeleteOptions, WriteOptions } from './writeContext.ts';
export { ResourceRegistry, BUILTIN_RESOURCES, gvrKey, groupVersion, resourcesOfCrd } from './resources.ts';
export type { ResourceInfo } from './resources.ts';

// faults
export { Faults } from './faults.ts';
export { FAULT_ENDPOINTS } from './control.ts';
export type { AuthOptions, FailOptions, PendingFaults, RequestClass, RequestFilter, SimTokenUser } from './faults.ts';
export type { SimUser } from './rbac.ts';
export { LeaseHistory } from './leaseHistory.ts';
export type { LeaseTerm } from './leaseHistory.ts';
export { withShardSelector, shardInfo } from './shardSelector.ts';
export type { ShardInfo, WithShardInfo } from './shardSelector.ts';
export type { WatchTarget } from './watchHub.ts';

// protocol helpers
export { ApiStatusError } from './status.ts';
export { kubeconfigYaml, writeKubeconfigFile } from './kubeconfig.ts';
export type { KubeconfigOptions } from './kubeconfig.ts';
export { replacePrivateFile, writePrivateFile, UnsafePathError } from './privateFile.ts';
export type { PrivateFile, PrivateFileOptions } from './privateFile.ts';
export { seededRandom } from './random.ts';
export type { Random } from './random.ts';

// the rxinformer-apiserver command
export { APISERVER_USAGE, runApiServerCommand } from './command.ts';

// load generation
export { createLoadGenerator, objectStoreTarget } from './loadGenerator.ts';
export type { ChurnHandle, ChurnMix, ChurnTarget, LoadCounters, LoadGeneratorOptions } from './loadGenerator.ts';
export { httpChurnTarget, HttpTargetError } from './httpChurnTarget.ts';
export type { HttpChurnTarget, HttpChurnTargetOptions } from './httpChurnTarget.ts';
export { realisticPod } from './realisticPod.ts';

// pure protocol modules
export { applyJsonPatch, applyMergePatch, PatchError } from './jsonPatch.ts';
export { applyStrategicMergePatch, mergeAppliedConfiguration } from './strategicMerge.ts';
export { LIST_TYPES, PATCH_MERGE_KEYS, listTypeAt, patchMergeKeyAt, mergeKeysAt } from './listMergeStrategies.ts';
export type { ListType } from './listMergeStrategies.ts';
export type { JsonPatchOp } from './jsonPatch.ts';
export { parseFieldSelector, matchesFields, fieldsForResource, fieldValue, FieldSelectorError } from './fieldSelector.ts';
export { toTable, humanAge } from './table.ts';
export { formatAge, humanDuration } from './age.ts';
export { decodeProtobufObject, readEnvelope, PROTOBUF_MEDIA_TYPE, PROTOBUF_MAGIC } from './protobuf.ts';
export type { ProtobufEnvelope } from './protobuf.ts';
export { MESSAGE_SCHEMAS, PROTOBUF_KINDS } from './protobufSchemas.ts';
export type { FieldSchema, FieldType, MessageSchema } from './protobufSchemas.ts';
export { WireFormatError } from './protobufWire.ts';
export { validateObjectName, generateNameSuffix } from './validation.ts';
