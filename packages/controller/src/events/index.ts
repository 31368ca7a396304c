/** The event recorder. */
// Events
export { createEventRecorder } from './eventRecorder.ts';
export type { EventRecorder, EventRecorderOptions } from './eventRecorder.ts';
export type { EventInfo, EventObjectReference, EventSource, EventType } from './eventBody.ts';
