// Paths and settings for the end-to-end tests.
//
// Environment variables:
//   SATORI_DIST      built app directory (default <repo>/dist); must contain index.html
//   SATORI_CHROMIUM  Chromium executable (default /usr/bin/chromium)
//   SATORI_CACHE     tool cache of scripts/setup.sh (default ~/.cache/satori); holds venv/ for llama.cpp
//   SATORI_E2E_ARTIFACTS  where failure screenshots/logs go (default tests/e2e/artifacts, gitignored)
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const supportDir = path.dirname(fileURLToPath(import.meta.url));

/** A TCP port on 127.0.0.1 that was free a moment ago (for servers the tests start). */
export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
export const e2eDir = path.resolve(supportDir, '..');
export const repoRoot = path.resolve(e2eDir, '..', '..');

export function distDir() {
  return process.env.SATORI_DIST ? path.resolve(process.env.SATORI_DIST) : path.join(repoRoot, 'dist');
}

/** The built app directory; throws a clear error if the app has not been built. */
export function requireDist() {
  const dir = distDir();
  const index = path.join(dir, 'index.html');
  if (!fs.existsSync(index)) {
    throw new Error(
      `${index} not found: build the app first (scripts/build.sh)` +
        (process.env.SATORI_DIST ? ' — or fix SATORI_DIST' : ' — or point SATORI_DIST at a build'),
    );
  }
  return dir;
}

export function chromiumPath() {
  return process.env.SATORI_CHROMIUM || '/usr/bin/chromium';
}

export function cacheDir() {
  return process.env.SATORI_CACHE || path.join(os.homedir(), '.cache', 'satori');
}

export function venvPython() {
  return path.join(cacheDir(), 'venv', 'bin', 'python');
}

export function artifactsDir() {
  return process.env.SATORI_E2E_ARTIFACTS
    ? path.resolve(process.env.SATORI_E2E_ARTIFACTS)
    : path.join(e2eDir, 'artifacts');
}
