// The browser checks' web server: files of a built site under a base path,
// text compressed when the browser asks, as GitHub Pages serves it.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { join, extname, resolve } from "node:path";
import { gzipSync } from "node:zlib";

const TYPES = { ".html": "text/html; charset=utf-8", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml",
  ".json": "application/json", ".csv": "text/csv", ".pdf": "application/pdf", ".png": "image/png", ".jpg": "image/jpeg",
  ".xml": "application/atom+xml" };

// Serve the folder `dir` at `base` (ending in "/") on a port of its own;
// `seen` is told every path asked for. Returns the server and its origin.
export async function serve(dir, base = "/", seen = () => {}) {
  const root = resolve(dir);
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    seen(path);
    const inside = path.startsWith(base) ? resolve(root, "." + path.slice(base.length - 1)) : null;
    try {
      if (!inside || !inside.startsWith(root)) throw new Error("outside");
      const file = (await stat(inside)).isDirectory() ? join(inside, "index.html") : inside;
      const body = await readFile(file);
      const type = TYPES[extname(file)] ?? "application/octet-stream";
      const gzip = /\bgzip\b/.test(req.headers["accept-encoding"] ?? "") && /html|css|javascript|svg|json|csv|xml/.test(type);
      res.writeHead(200, { "content-type": type, ...(gzip ? { "content-encoding": "gzip" } : {}) });
      res.end(gzip ? gzipSync(body) : body);
    } catch {
      res.writeHead(404);
      res.end("not found");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}
