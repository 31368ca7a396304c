/** The controller builder: `controllerFor(factory, primary, options).owns(…).watches(…).reconcile(fn)`. */
export { ControllerBuilder, controllerFor } from './controllerBuilder.ts';
export type { ControllerBuilderOptions, ControllerHost, MapToKeys, SourceOptions } from './controllerBuilder.ts';
export type { ControllerClient } from './writes.ts';
export { ControllerRunningError } from './controller.ts';
export type { Controller, RunningController, SourceInformer } from './controller.ts';
export { and, annotationsChanged, generationChanged, labelsChanged, not, or, resourceVersionChanged } from './predicates.ts';
export type { Predicate } from './predicates.ts';
export { InvalidSourceKeyError, LOW_PRIORITY, NORMAL_PRIORITY } from './sources.ts';
export type { SourceKeys } from './sources.ts';
export { newerResourceVersion, ReadYourWritesTimeoutError } from './readYourWrites.ts';
export type { ReadYourWritesStats, TrackedWrite } from './readYourWrites.ts';
