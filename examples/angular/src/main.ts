import { bootstrapApplication } from '@angular/platform-browser';
import { App } from './app/app';
import { appConfig } from './app/app.config';
import { renderStats } from './app/renderStats';

// For the page's Chromium test and the benchmark: what has been rendered so far.
Object.assign(globalThis, { rxinformerExample: { renders: renderStats } });

bootstrapApplication(App, appConfig).catch((e: unknown) => console.error(e));
