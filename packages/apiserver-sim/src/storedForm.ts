/**
 * What kube-apiserver's round trip through its Go types does to a written object, for the kinds the
 * simulator has schemas of (`protobufSchemas.ts`): `encoding/json` leaves out the zero scalars
 * (`false`, `0`, `""`) and the empty maps of `omitempty` fields, so they are neither stored nor
 * served; and a pod's `status.podIP` and `status.podIPs` (and `hostIP`, `hostIPs`) are kept in
 * step by the v1 conversion. kubectl shows the first: an applier sending `readOnly: false` again
 * conflicts with the manager that sent it first, the stored object having none.
 */
import { isJsonObject } from './json.ts';
import { MESSAGE_SCHEMAS, PROTOBUF_KINDS } from './protobufSchemas.ts';

type Node = Record<string, unknown>;
/** A field of a message by its JSON name: its type and flags (inline fields joined to the parent's). */
type FieldIndex = ReadonlyMap<string, { type: string; flags: readonly string[] }>;

const SCALARS = new Set(['string', 'bytes', 'int32', 'int64', 'bool', 'double']);
const indexes = new Map<string, FieldIndex>();

function indexOf(message: string): FieldIndex {
  let index = indexes.get(message);
  if (index === undefined) {
    const fields = new Map<string, { type: string; flags: readonly string[] }>();
    for (const [json, type, flagText = ''] of Object.values(MESSAGE_SCHEMAS[message] ?? {})) {
      const flags = flagText.split(' ');
      if (flags.includes('inline')) for (const [k, v] of indexOf(type)) fields.set(k, v);
      else fields.set(json, { type, flags });
    }
    indexes.set(message, (index = fields));
  }
  return index;
}

/** Drops the omitempty zero scalars and empty maps of `node`, a value of `message`, in place; fields it does not know stay. */
function dropZeros(node: Node, message: string): void {
  const index = indexOf(message);
  for (const [k, v] of Object.entries(node)) {
    const field = index.get(k);
    if (field === undefined) continue;
    const { type, flags } = field;
    if (flags.includes('map')) {
      if (isJsonObject(v) && Object.keys(v).length === 0) delete node[k];
      else if (isJsonObject(v) && MESSAGE_SCHEMAS[type]) for (const item of Object.values(v)) if (isJsonObject(item)) dropZeros(item, type);
    } else if (SCALARS.has(type)) {
      if (!flags.includes('keep') && (v === '' || v === 0 || v === false)) delete node[k];
    } else if (MESSAGE_SCHEMAS[type]) {
      if (Array.isArray(v)) for (const item of v) if (isJsonObject(item)) dropZeros(item, type);
      if (isJsonObject(v)) dropZeros(v, type);
    }
  }
}

/** `status.<one>` and `status.<many>[0].ip` made to agree as the v1 conversion does: the single one wins when both are set and differ. */
function syncIps(status: Node, one: 'podIP' | 'hostIP', many: 'podIPs' | 'hostIPs'): void {
  const single = typeof status[one] === 'string' ? (status[one] as string) : '';
  const list = Array.isArray(status[many]) ? (status[many] as { ip?: unknown }[]) : [];
  if (single !== '' && (list.length === 0 || list[0]?.ip !== single)) status[many] = [{ ip: single }];
  else if (single === '' && typeof list[0]?.ip === 'string' && list[0].ip !== '') status[one] = list[0].ip;
}

/**
 * Puts a written object (a create's, an update's or a patch's result) in the form kube-apiserver
 * stores and serves, in place. Objects of kinds without a schema are left as they are.
 *
 * @example
 * toStoredForm({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: {} }, immutable: false, data: {} });
 * // → { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, immutable: false } (immutable is a pointer: kept)
 */
export function toStoredForm(obj: Node, apiVersion: string, kind: string): void {
  const message = PROTOBUF_KINDS[`${apiVersion}/${kind}`];
  if (message === undefined || message === 'DeleteOptions') return;
  dropZeros(obj, message);
  if (message === 'Pod' && isJsonObject(obj.status)) {
    syncIps(obj.status, 'podIP', 'podIPs');
    syncIps(obj.status, 'hostIP', 'hostIPs');
  }
}
