import { describe, expect, it } from '@jest/globals';
import { tmpdir } from 'node:os';
import { startProcess } from './consumer.ts';
import { cleanEnv } from './pack.ts';

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startProcess', () => {
  it('should stop what the command started under a shell too, as npx starts a bin', async () => {
    // sh waits for node (no exec): stopping sh alone would leave node running with the output pipe.
    const script =
      'node -e "console.log(process.pid); process.on(\'SIGINT\', () => process.exit(0)); setInterval(() => {}, 1000)"; echo after';
    const running = startProcess('sh', ['-c', script], tmpdir(), cleanEnv());
    const [, pid] = await running.waitFor(/^(\d+)$/m);
    expect(alive(Number(pid))).toBe(true);
    await running.stop();
    expect(alive(Number(pid))).toBe(false);
  }, 20_000);
});
