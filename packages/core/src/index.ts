// @rxinformer/core — the public API. Grouped exports; types exported separately.
export * from './errors.ts';
export { INITIAL_EVENTS_END_ANNOTATION } from './types.ts';
export type * from './types.ts';
