/** The last lines of a log file, for an error message. */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** The last `lines` lines of `file` (reading at most its last 16 KiB); empty when it cannot be read. */
export function tailOf(file: string, lines = 15): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, 16 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
