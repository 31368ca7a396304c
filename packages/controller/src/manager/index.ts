/** The manager: informers, controllers, servers and a leader election, started and stopped in order. */
export { createManager } from './manager.ts';
export type { Manager, ManagerElectionOptions, ManagerOptions, ManagerPhase, ManagerRecorderOptions, SignalSource } from './manager.ts';
export { ManagerError } from './runnable.ts';
export type { ManagerErrorReason, Runnable, RunningWork } from './runnable.ts';
