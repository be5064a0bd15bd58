/**
 * Hono and its Node adapter (`hono`, `@hono/node-server`, optional peers), loaded when
 * `nous/inspector` loads: without them, importing `nous/inspector` fails with one
 * `OptionalPeerMissingError` naming the install command instead of Node's ERR_MODULE_NOT_FOUND. The
 * rest of src/inspector imports Hono's types only.
 */
import type * as NodeServer from "@hono/node-server";
import type * as Core from "hono";
import type * as Cookie from "hono/cookie";
import type * as Streaming from "hono/streaming";
import { loadPeers } from "../peers/optional-peers.js";

/** What the inspector uses of Hono. */
export interface HonoPeer {
  readonly Hono: typeof Core.Hono;
  readonly streamSSE: typeof Streaming.streamSSE;
  readonly getCookie: typeof Cookie.getCookie;
  readonly setCookie: typeof Cookie.setCookie;
  readonly createAdaptorServer: typeof NodeServer.createAdaptorServer;
}

export const hono: HonoPeer = await loadPeers("nous/inspector", async () => {
  const [core, streaming, cookie, nodeServer] = await Promise.all([
    import("hono"),
    import("hono/streaming"),
    import("hono/cookie"),
    import("@hono/node-server"),
  ]);
  return {
    Hono: core.Hono,
    streamSSE: streaming.streamSSE,
    getCookie: cookie.getCookie,
    setCookie: cookie.setCookie,
    createAdaptorServer: nodeServer.createAdaptorServer,
  };
});
