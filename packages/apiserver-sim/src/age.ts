/**
 * Ages as kubectl prints them (`45s`, `3m12s`, `17m`, `5h4m`, `20h`, `3d5h`, `30d`, `2y10d`), for
 * tables of cached objects in a terminal or a page: core's (`@rxinformer/core/projection`),
 * re-exported here for the pages and tools that import them from the simulator. Browser-safe.
 *
 * @module @rxinformer/apiserver-sim/age
 */
export { formatAge, humanDuration } from '@rxinformer/core/projection';
