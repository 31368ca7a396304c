/**
 * The Angular example built as a user builds it: the core, angular and simulator packages packed,
 * the template installed with them into a directory outside the repository, and `ng build` run
 * there. `npm run example:angular` and `npm run bench:angular` keep that directory between runs
 * (`tmpdir()/rxinformer-example-angular`), so a second run installs in seconds.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConsumer, type Consumer } from './consumer.ts';
import { buildAndPack } from './pack.ts';

/** Where the runner and the benchmark keep the installed app. */
export const ANGULAR_APP_DIR = join(tmpdir(), 'rxinformer-example-angular');

/** An installed and built Angular example. */
export interface AngularApp {
  readonly consumer: Consumer;
  /** The built example app (`dist/live-pods/browser`): serve it with the page server. */
  readonly liveRoot: string;
  /** The package README's first program, built (`dist/first-program/browser`). */
  readonly firstRoot: string;
}

/** Packs, installs into `dir` and builds both projects, telling `log` what it does. */
export async function buildAngularApp(dir = ANGULAR_APP_DIR, log: (line: string) => void = () => {}): Promise<AngularApp> {
  const packed = join(dir, '..', `${dir.split('/').pop()}-packed`);
  mkdirSync(packed, { recursive: true });
  log('building and packing @rxinformer/core, @rxinformer/angular and @rxinformer/apiserver-sim…');
  const packages = buildAndPack(packed, ['core', 'angular', 'apiserver-sim']);
  log(`installing the app and the tarballs in ${dir} (the first time takes a minute)…`);
  const consumer = await createConsumer('angular', packages, { dir });
  log('ng build…');
  await consumer.run('npm', ['run', 'build']);
  return { consumer, liveRoot: join(dir, 'dist/live-pods/browser'), firstRoot: join(dir, 'dist/first-program/browser') };
}
