/**
 * The lines of a watch stream committed in one tick, written together as one chunk: each line is
 * UTF-8 encoded straight into one buffer (no joined string: a multi-megabyte string per tick is a
 * large-object allocation the GC pays for, and would be encoded again by the socket).
 */

/** Lines (without newline) waiting to be written as one chunk. */
export class LineBatch {
  #lines: string[] = [];
  #chars = 0;

  /** Characters waiting, newlines included. */
  get chars(): number {
    return this.#chars;
  }

  /** Queues a line; true when it is the first of a new batch (the caller schedules the write). */
  push(line: string): boolean {
    this.#lines.push(line);
    this.#chars += line.length + 1;
    return this.#lines.length === 1;
  }

  /** Takes the waiting lines, leaving the batch empty. */
  take(): string[] {
    const lines = this.#lines;
    this.#lines = [];
    this.#chars = 0;
    return lines;
  }
}

/** `lines` as one buffer of UTF-8, each line followed by a newline. */
export function encodeLines(lines: readonly string[]): Buffer {
  let size = 0;
  for (const line of lines) size += Buffer.byteLength(line) + 1;
  const buf = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const line of lines) {
    at += buf.write(line, at);
    buf[at++] = 10;
  }
  return buf;
}
