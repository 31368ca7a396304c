import { describe, expect, it } from '@jest/globals';
import { parseSoakArgs, SoakArgsError } from './soakArgs.ts';

describe('parseSoakArgs', () => {
  it('should read every flag', () => {
    expect(
      parseSoakArgs([
        '--runs',
        '3',
        '--json',
        '--objects',
        '500',
        '--seed',
        '9',
        '--chaos-seconds',
        '2.5',
        '--deadline-seconds',
        '30',
        '--rate',
        '50',
        '--only',
        'clientNode',
        '--server',
        'real',
      ]),
    ).toEqual({
      json: true,
      help: false,
      options: {
        runs: 3,
        objects: 500,
        seed: 9,
        chaosMs: 2500,
        convergeTimeoutMs: 30_000,
        churnPerSecond: 50,
        libraries: ['clientNode'],
        server: 'real',
      },
    });
  });

  it('should default to nothing set and a table', () => {
    expect(parseSoakArgs([])).toEqual({ json: false, help: false, options: {} });
    expect(parseSoakArgs(['--help']).help).toBe(true);
  });

  it.each([
    [['--runs', '0'], /--runs needs an integer >= 1, got "0"/],
    [['--runs'], /--runs needs an integer >= 1, got nothing/],
    [['--objects', '1.5'], /--objects needs an integer/],
    [['--seed', 'x'], /--seed needs an integer >= 0/],
    [['--only', 'kubectl'], /--only takes rxinformer or clientNode/],
    [['--server', 'kind'], /--server takes sim or real, got "kind"/],
    [['--fast'], /unknown argument "--fast"/],
  ])('should refuse %j with a SoakArgsError', (argv, message) => {
    expect(() => parseSoakArgs(argv)).toThrow(SoakArgsError);
    expect(() => parseSoakArgs(argv)).toThrow(message);
    try {
      parseSoakArgs(argv);
    } catch (e) {
      expect((e as SoakArgsError).reason).toBe('InvalidSoakArgs');
    }
  });
});
