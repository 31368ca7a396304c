/**
 * A built site served from a directory (an Angular CLI build's `dist/<project>/browser`): its files
 * as they are, and `index.html` for `/` and for any path without a file extension (the app's own
 * client-side routes). Nothing outside the directory is ever served.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream';
import { writable, type PageRequest, type PageResponse } from './pageHttp.ts';

/** A directory of built files to serve at `/`. */
export interface StaticSite {
  /** The directory; `index.html` in it is the page. */
  readonly root: string;
}

/** Content types by file extension; anything else is `application/octet-stream`. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** The content type of `path`, by its extension. */
export function contentType(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file of `site` that `pathname` names: `index.html` for `/` and for extension-less paths
 * without a file; undefined for a file that is missing or would lie outside the directory.
 */
export async function siteFile(site: StaticSite, pathname: string): Promise<string | undefined> {
  const root = resolve(site.root);
  let relative: string;
  try {
    relative = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (relative.includes('\0')) return undefined;
  const file = resolve(join(root, relative));
  if (file !== root && !file.startsWith(root + sep)) return undefined;
  if (await isFile(file)) return file;
  const index = join(root, 'index.html');
  return extname(relative) === '' && (await isFile(index)) ? index : undefined;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Answers a GET or HEAD for `pathname` from `site`: the file, or 404. */
export async function serveSite(site: StaticSite, req: PageRequest, res: PageResponse, pathname: string): Promise<void> {
  const file = await siteFile(site, pathname);
  if (!file && pathname === '/favicon.ico') {
    res.writeHead(204, { 'Cache-Control': 'no-store' }); // a site without an icon: no error in the console
    res.end();
    return;
  }
  if (!file) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end('not found\n');
    return;
  }
  const { size } = await stat(file);
  res.writeHead(200, { 'Content-Type': contentType(file), 'Content-Length': size, 'Cache-Control': 'no-store' });
  if (req.method === 'HEAD') res.end();
  else pipeline(createReadStream(file), writable(res), () => undefined);
}
