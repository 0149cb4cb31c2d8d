// server.mjs: the built site (public/) for the browser tests, on a free
// loopback port: a minimal static file server (.wasm as application/wasm),
// or ci/serve.sh's own server where its headers matter.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { ROOT } from '../helpers.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
};

/** @returns {Promise<{url: string, close: () => Promise<void>}>} */
export async function serveSite(dir = join(ROOT, 'public')) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path.endsWith('/') ? path + 'index.html' : path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The site as ci/serve.sh serves it (Vite's preview server, with its own
 * headers: Cache-Control no-cache, Vary Origin, gzip), public/ as built.
 * @returns {Promise<{url: string, close: () => Promise<void>}>} */
export async function serveLikeServeSh() {
  const port = await new Promise((resolve) => {
    const probe = createNetServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
  // its own process group, so that close() ends npx and the server it starts
  const child = spawn(join(ROOT, 'ci', 'serve.sh'), ['--no-build'], {
    env: { ...process.env, PORT: String(port) }, detached: true, stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/`;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let tries = 0; ; tries++) {
    try {
      if ((await fetch(url)).ok) break;
    } catch {
      if (tries > 300 || child.exitCode !== null) throw new Error(`ci/serve.sh did not answer on ${url}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    close: async () => {
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
}
