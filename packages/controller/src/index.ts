/**
 * @rxinformer/controller — controllers over rxinformer's informers.
 *
 * @module @rxinformer/controller
 */
export * from './builder/index.ts';
