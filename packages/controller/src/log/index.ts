/** The controller's logger: structured, pino- and console-shaped. */
export type { LogFields, Logger, LogLevel } from './logger.ts';
