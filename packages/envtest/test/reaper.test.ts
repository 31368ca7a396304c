import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const REAPER = fileURLToPath(new URL('../src/reaper.ts', import.meta.url));
// A binary slow to stop: it logs SIGTERM and keeps running (the watchdog would SIGKILL it after 5 s).
const STUBBORN = "process.on('SIGTERM', () => console.log('SIGTERM ignored')); console.log('ready'); setInterval(() => undefined, 1000);";

describe('the watchdog', () => {
  it('should kill its binary and remove the folder when its parent goes away during a graceful stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'envtest-reaper-'));
    const log = join(dir, 'stubborn.log');
    try {
      const reaper = spawn(process.execPath, [REAPER, log, dir, '--', process.execPath, '-e', STUBBORN], {
        stdio: ['pipe', 'ignore', 'inherit'],
      });
      const exited = new Promise((resolve) => reaper.once('exit', (code, signal) => resolve({ code, signal })));
      const logged = async (line: string) => {
        while (!(existsSync(log) && readFileSync(log, 'utf8').includes(line))) await sleep(50);
      };
      await logged('ready');
      reaper.kill('SIGTERM'); // the parent's stop(): the binary takes its time
      await logged('SIGTERM ignored');
      reaper.stdin!.end(); // and now the parent is gone
      expect(await exited).toEqual({ code: 137, signal: null }); // the binary got SIGKILL
      expect(existsSync(dir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
