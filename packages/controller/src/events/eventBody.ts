/**
 * The bodies an event recorder writes: an events.k8s.io/v1 Event and its series update, or their
 * core/v1 equivalents for a server without events.k8s.io.
 */
import { type KubeObject } from '@rxinformer/core';
import { microTime } from '@rxinformer/core/leader-election';

/** `Normal` or `Warning`, the two types the API accepts. */
export type EventType = 'Normal' | 'Warning';

/** A reference to an object as an Event names it (`regarding`, `related`). */
export interface EventObjectReference {
  /** The object's `apiVersion`. */
  apiVersion?: string;
  /** The object's `kind`. */
  kind?: string;
  /** The object's namespace. */
  namespace?: string;
  /** The object's name. */
  name?: string;
  /** The object's uid. */
  uid?: string;
  /** The object's resourceVersion when the event happened. */
  resourceVersion?: string;
  /** A part of the object, e.g. `spec.containers{app}`. */
  fieldPath?: string;
}

/** One event to record. */
export interface EventInfo {
  /** `Normal`, or `Warning` for what a human should look at. */
  type: EventType;
  /** Why, in UpperCamelCase: `Synced`, `FailedCreate`. */
  reason: string;
  /** What the controller did or failed to do, in UpperCamelCase: `Create`, `Replicate`. */
  action: string;
  /** A human-readable description: cut to the API's limit, 1,024 bytes of UTF-8, on a character boundary. */
  note?: string;
  /** A second object involved, e.g. the copy a replicator wrote. */
  related?: KubeObject | EventObjectReference;
}

/** Who reports, and when: the fields every body carries. */
export interface EventSource {
  /** E.g. `example.com/replicator`. */
  reportingController: string;
  /** E.g. the pod's name. */
  reportingInstance: string;
}

/** A reference to `obj` (an object or a reference already). */
export function referenceTo(obj: KubeObject | EventObjectReference): EventObjectReference {
  if (!('metadata' in obj)) return obj as EventObjectReference;
  const m = obj.metadata ?? {};
  const ref: EventObjectReference = { apiVersion: obj.apiVersion, kind: obj.kind, namespace: m.namespace, name: m.name, uid: m.uid };
  if (m.resourceVersion) ref.resourceVersion = m.resourceVersion;
  return ref;
}

/** The events.k8s.io/v1 Event for the first occurrence. */
export function eventV1(
  meta: { namespace: string; name: string },
  src: EventSource,
  regarding: EventObjectReference,
  info: EventInfo,
  ms: number,
) {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: meta,
    eventTime: microTime(ms),
    reportingController: src.reportingController,
    reportingInstance: src.reportingInstance,
    action: info.action,
    reason: info.reason,
    type: info.type,
    note: info.note,
    regarding,
    related: info.related === undefined ? undefined : referenceTo(info.related),
  };
}

/** The merge patch of an events.k8s.io/v1 Event's series, on condition that the Event is still the one of `uid` (if known). */
export function seriesV1(uid: string, count: number, lastMs: number): object {
  return { ...uidPrecondition(uid), series: { count, lastObservedTime: microTime(lastMs) } };
}

/** The core/v1 Event for the first occurrence. */
export function eventCore(
  meta: { namespace: string; name: string },
  src: EventSource,
  regarding: EventObjectReference,
  info: EventInfo,
  ms: number,
) {
  const at = new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta,
    involvedObject: regarding,
    related: info.related === undefined ? undefined : referenceTo(info.related),
    reason: info.reason,
    action: info.action,
    message: info.note,
    type: info.type,
    source: { component: src.reportingController },
    reportingComponent: src.reportingController,
    reportingInstance: src.reportingInstance,
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  };
}

/** The merge patch of a core/v1 Event repeated `count` times, on condition that the Event is still the one of `uid` (if known). */
export function seriesCore(uid: string, count: number, lastMs: number): object {
  return { ...uidPrecondition(uid), count, lastTimestamp: new Date(lastMs).toISOString().replace(/\.\d+Z$/, 'Z') };
}

/** A merge patch's part that makes the server refuse it (422: uid is immutable) unless the object's uid is `uid`. */
function uidPrecondition(uid: string): object {
  return uid === '' ? {} : { metadata: { uid } };
}

/** What makes two events the same one (the same object, source, action, reason, type and note). */
export function eventKey(src: EventSource, regarding: EventObjectReference, info: EventInfo): string {
  const related = info.related === undefined ? undefined : referenceTo(info.related);
  return JSON.stringify([
    src.reportingController,
    refKey(regarding),
    related && refKey(related),
    info.action,
    info.reason,
    info.type,
    info.note,
  ]);
}

/** An object's identity for the spam filter: uid, else kind, namespace and name. */
export function refKey(ref: EventObjectReference): string {
  return ref.uid ?? `${ref.apiVersion ?? ''}/${ref.kind ?? ''}/${ref.namespace ?? ''}/${ref.name ?? ''}/${ref.fieldPath ?? ''}`;
}

/** The API's limit on a note, in bytes of UTF-8 (kube-apiserver counts Go string bytes). */
export const NOTE_LIMIT_BYTES = 1024;
const utf8 = new TextEncoder();

/**
 * `note` cut to `NOTE_LIMIT_BYTES` bytes of UTF-8 between two characters: a multi-byte character
 * or a surrogate pair that does not fit is left out whole. (A lone surrogate counts the 3 bytes of
 * the U+FFFD the server decodes it to.)
 */
export function cutNote(note: string | undefined): string | undefined {
  // a UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4)
  if (note === undefined || note.length * 3 <= NOTE_LIMIT_BYTES) return note;
  // encodeInto writes whole characters only, and says how many UTF-16 units it read
  const { read } = utf8.encodeInto(note, new Uint8Array(NOTE_LIMIT_BYTES));
  return note.slice(0, read);
}

/** The longest object name the API takes (a DNS subdomain). */
const MAX_NAME = 253;

/**
 * The name of a new Event: `objectName` made a DNS subdomain (lower case, other characters `-`) and
 * cut to fit, a dot, `ms` in hex, then `unique` (what sets this Event apart from every other one of
 * that millisecond: the recorder's random id and its counter). At most 253 characters.
 */
export function eventName(objectName: string | undefined, ms: number, unique: string): string {
  const suffix = `${Math.max(0, Math.trunc(ms)).toString(16)}-${unique}`;
  const base = subdomain(objectName ?? '')
    .slice(0, MAX_NAME - 1 - suffix.length)
    .replace(/[-.]+$/, '');
  return `${base || 'event'}.${suffix}`;
}

/** `name` as a DNS subdomain: labels of lower-case letters, digits and inner `-`, joined by dots. */
function subdomain(name: string): string {
  return name
    .toLowerCase()
    .split('.')
    .map((label) => label.replace(/[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, ''))
    .filter((label) => label !== '')
    .join('.');
}
