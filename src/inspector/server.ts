/**
 * `startInspector`: the session inspector web page and its JSON API, served by Hono on Node.
 * Loopback by default; on every address it requires a token (generated when not given, printed in
 * `url`; `token: false` opts out on loopback only), checked on the page and every API request:
 * `?token=` (then kept in a cookie), the `x-nous-token` header, or `Authorization: Bearer`.
 *
 * @example
 * const inspector = await startInspector({ store, resume: (id) => agent.resume(id, { store }).then(() => {}) });
 * console.log(`Inspector at ${inspector.url}`);
 * await inspector.close();
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { SessionStore } from "../index.js";
import { type InspectorApiOptions, inspectorApi } from "./api.js";
import { guard, resolveToken } from "./auth.js";
import { hono } from "./hono.js";
import { PAGE_CSS } from "./page-css.js";
import { pageHtml } from "./page-html.js";
import { PAGE_SCRIPT } from "./page-script.js";

export interface InspectorOptions {
  readonly store: SessionStore;
  /** Default "127.0.0.1". Any non-loopback address requires a token. */
  readonly host?: string;
  /** Default 4317; 0 picks a free port. */
  readonly port?: number;
  /**
   * The token every request must carry (at least 32 characters; generated when not given, and put
   * in `url`). `false` serves without one, allowed on loopback only.
   */
  readonly token?: string | false;
  /** Continues a session once none of its approvals is pending (e.g. `agent.resume(id, { store })`). */
  readonly resume?: (sessionId: string) => Promise<void>;
  /** The agent whose tools' schemas check edited approval arguments (an invalid edit is refused, 400). */
  readonly agent?: InspectorApiOptions["agent"];
}

export interface RunningInspector {
  /** The page's address, with `?token=` when a token is required. */
  readonly url: string;
  readonly token: string | undefined;
  /** Ends live streams and stops the server. */
  close(): Promise<void>;
}

/**
 * Starts the inspector. Resolves once it listens; rejects when the address cannot be bound.
 */
export async function startInspector(options: InspectorOptions): Promise<RunningInspector> {
  const host = options.host ?? "127.0.0.1";
  const token = resolveToken(host, options.token);
  const shutdown = new AbortController();
  let port = options.port ?? 4317;
  const cookieName = () => `nous_inspector_${port}`;

  const app = new hono.Hono();
  app.use(
    "*",
    guard(host, token, cookieName, () => port),
  );
  app.use("*", async (c, next) => {
    await next();
    c.header("x-content-type-options", "nosniff");
    c.header("referrer-policy", "no-referrer");
  });
  app.get("/", (c) => {
    if (c.req.query("token") !== undefined) return c.redirect("/", 302);
    c.header("content-security-policy", "default-src 'self'; style-src 'self'; img-src 'self' data:");
    return c.html(pageHtml());
  });
  app.get("/favicon.ico", (c) => c.body(null, 204));
  app.get("/assets/inspector.css", (c) => c.body(PAGE_CSS, 200, { "content-type": "text/css; charset=utf-8" }));
  app.get("/assets/inspector.js", (c) =>
    c.body(PAGE_SCRIPT, 200, { "content-type": "text/javascript; charset=utf-8" }),
  );
  app.route(
    "/api",
    inspectorApi({ store: options.store, resume: options.resume, agent: options.agent, signal: shutdown.signal }),
  );

  const server = hono.createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const base = `http://${shownHost}:${port}/`;
  let closing: Promise<void> | undefined;
  return {
    url: token === undefined ? base : `${base}?token=${encodeURIComponent(token)}`,
    token,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        shutdown.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 500).unref();
      });
      return closing;
    },
  };
}
