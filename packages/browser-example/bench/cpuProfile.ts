/**
 * A CPU profile of a bench page's main thread over its window (CDP `Profiler`), summed by
 * function: where the page's time goes, the functions with the most self time first.
 */
import type { CDPSession } from 'playwright-core';

/** One function's self time over the window. */
export interface SelfTime {
  /** `name file:line` (`(anonymous)` for a nameless function; the file's last path segment). */
  fn: string;
  /** Self time in ms. */
  ms: number;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Starts sampling every `intervalUs` µs; the result stops and returns the top `top` functions by self time. */
export async function startCpuProfile(cdp: CDPSession, intervalUs = 200): Promise<(top?: number) => Promise<SelfTime[]>> {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: intervalUs });
  await cdp.send('Profiler.start');
  return async (top = 20) => {
    const { profile } = (await cdp.send('Profiler.stop')) as { profile: Profile };
    await cdp.send('Profiler.disable');
    return selfTimes(profile).slice(0, top);
  };
}

/** `name file:line` of a call frame (`(anonymous)` for a nameless function; the file's last path segment). */
function frameName(f: ProfileNode['callFrame']): string {
  const file = f.url.split('/').at(-1) ?? '';
  return file ? `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}` : f.functionName;
}

/** Self time per function of `profile`, most first. */
export function selfTimes(profile: Profile): SelfTime[] {
  const nameOf = new Map<number, string>();
  for (const { id, callFrame } of profile.nodes) nameOf.set(id, frameName(callFrame));
  const ms = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const fn = nameOf.get(id) ?? '?';
    ms.set(fn, (ms.get(fn) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...ms].map(([fn, t]) => ({ fn, ms: t })).sort((a, b) => b.ms - a.ms);
}

interface AllocationNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocationNode[];
}

/**
 * Starts sampling the main thread's allocations (CDP `HeapProfiler.startSampling`, every
 * `intervalBytes` on average), counting objects the collector has freed since too: what a page
 * allocates, garbage included. The result stops and returns the top `top` functions by bytes
 * allocated (`ms` holds KiB).
 */
export async function startAllocationProfile(cdp: CDPSession, intervalBytes = 16_384): Promise<(top?: number) => Promise<SelfTime[]>> {
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.startSampling', {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return async (top = 20) => {
    const { profile } = (await cdp.send('HeapProfiler.stopSampling')) as unknown as { profile: { head: AllocationNode } };
    const bytes = new Map<string, number>();
    const walk = (n: AllocationNode) => {
      const fn = frameName(n.callFrame);
      bytes.set(fn, (bytes.get(fn) ?? 0) + n.selfSize);
      n.children.forEach(walk);
    };
    walk(profile.head);
    return [...bytes]
      .map(([fn, b]) => ({ fn, ms: b / 1024 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top);
  };
}
