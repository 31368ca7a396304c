import { describe, expect, it } from '@jest/globals';
import { LiveOptionsError, parseLiveOptions } from './liveOptions.ts';

describe('parseLiveOptions', () => {
  it('should default to pods in all namespaces from the simulator, until stopped', () => {
    expect(parseLiveOptions([])).toEqual({
      source: { kind: 'simulator', seed: 1, pods: 60, ratePerSecond: 20, faults: true, faultEveryMs: 5000 },
      resource: 'pods',
      namespace: undefined,
      labelSelector: undefined,
      fieldSelector: undefined,
      durationSeconds: undefined,
      intervalSeconds: 1,
      help: false,
    });
  });

  it('should read the scope, selectors, duration and simulator options', () => {
    const o = parseLiveOptions([
      '--resource',
      'apps/v1/deployments',
      '-n',
      'team-a',
      '-l',
      'app=web',
      '--field-selector',
      'metadata.name=x',
      '--duration',
      '2.5',
      '--seed',
      '7',
      '--pods',
      '10',
      '--rate',
      '0',
      '--no-faults',
      '--fault-every',
      '0.5',
    ]);
    expect(o).toMatchObject({
      source: { kind: 'simulator', seed: 7, pods: 10, ratePerSecond: 0, faults: false, faultEveryMs: 500 },
      resource: 'apps/v1/deployments',
      namespace: 'team-a',
      labelSelector: 'app=web',
      fieldSelector: 'metadata.name=x',
      durationSeconds: 2.5,
    });
  });

  it('should read --metrics-port, a port number, and refuse anything else', () => {
    expect(parseLiveOptions(['--metrics-port', '9090']).metricsPort).toBe(9090);
    expect(parseLiveOptions(['--metrics-port', '0']).metricsPort).toBe(0);
    expect(parseLiveOptions([]).metricsPort).toBeUndefined();
    for (const bad of ['70000', '-1', 'x', '1.5']) expect(() => parseLiveOptions(['--metrics-port', bad])).toThrow(LiveOptionsError);
  });

  it('should watch a cluster with --kubeconfig, --context or KUBECONFIG', () => {
    expect(parseLiveOptions(['--kubeconfig', '/tmp/k', '--context', 'prod']).source).toEqual({
      kind: 'cluster',
      kubeconfig: '/tmp/k',
      context: 'prod',
    });
    expect(parseLiveOptions(['--context', 'prod']).source).toEqual({ kind: 'cluster', kubeconfig: undefined, context: 'prod' });
    expect(parseLiveOptions([], { KUBECONFIG: '/a:/b' }).source).toEqual({ kind: 'cluster', kubeconfig: undefined, context: undefined });
    expect(parseLiveOptions([], { KUBECONFIG: '' }).source.kind).toBe('simulator');
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['extra'], /positional/],
    [['--duration', 'soon'], /--duration must be a number of at least 0.1, got "soon"/],
    [['--duration', '0'], /--duration must be a number/],
    [['--pods', '1.5'], /--pods must be an integer/],
    [['--resource', 'Pods!'], /--resource must be a plural name/],
    [['--namespace', ''], /--namespace must not be empty/],
    [['--kubeconfig', '/k', '--rate', '5'], /--rate only applies to the embedded simulator/],
    [['--fault-every', '0'], /--fault-every must be a number of at least 0.1/],
    [['--fault-every', '99999'], /--fault-every must be at most 3600 seconds/],
    [['--resource'], /argument missing/],
  ])('should reject %j with a clear LiveOptionsError', (argv, message) => {
    let error: unknown;
    try {
      parseLiveOptions(argv as string[]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LiveOptionsError);
    expect((error as LiveOptionsError).reason).toBe('InvalidOption');
    expect((error as Error).message).toMatch(message);
  });
});
