/** The one reconcile loop's vocabulary: what a reconcile is given and answers, what a controller reports and counts. */
export { ControllerStoppedError, ControllerSyncError, ReconcileTimeoutError } from './errors.ts';
export type { ControllerError, ControllerErrorStage } from './errors.ts';
export type { Reconcile, ReconcileRequest, RequestApi } from './request.ts';
export { InvalidReconcileResultError, TerminalError, terminal } from './result.ts';
export type { ReconcileResult } from './result.ts';
export type { ReconcileEvent, ReconcileResultLabel, ReconcileStats } from './stats.ts';
