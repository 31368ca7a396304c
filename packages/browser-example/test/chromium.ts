/**
 * Debian's Chromium driven by playwright-core, the way every browser test of the repository starts
 * it: headless, a fresh temporary profile per launch, no background network (the machine's closed
 * network would refuse it), and a clear failure in CI when Chromium is missing.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); .ci/run installs it when missing. */
export const CHROMIUM = '/usr/bin/chromium';

/** The flags every launch gets. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** True when Chromium is installed. */
export const haveChromium = existsSync(CHROMIUM);

/**
 * Whether browser tests run: when Chromium is installed, and always under `CI=true` (where a
 * missing Chromium must fail, not skip). Prints why when they are skipped.
 */
export function browserTestsRun(what: string): boolean {
  const run = haveChromium || process.env.CI === 'true';
  if (!run) console.warn(`SKIPPED: ${what} needs Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  return run;
}

/**
 * Launches Chromium with `CHROMIUM_ARGS` and `extraArgs` (e.g. `--ignore-certificate-errors-spki-list=…`
 * for a page served with a development certificate); throws a clear error when it is missing.
 */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!haveChromium) throw new Error(`Chromium is missing at ${CHROMIUM}: .ci/run installs Debian's chromium before npm test`);
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/**
 * The flag that makes Chromium accept the one certificate whose public key hashes to `spki` (see
 * `spkiHash`), and no other certificate error: the browser tests' way to open a page served with a
 * development certificate without trusting its authority.
 */
export function acceptCertificate(spki: string): string {
  return `--ignore-certificate-errors-spki-list=${spki}`;
}
