/**
 * The inspector's access rule: a token on every bind (generated when not given, at least 32
 * characters when given); only on loopback may a caller opt out (`token: false`). With a token,
 * every request must carry it: `?token=` (then kept in a cookie), the `x-nous-token` header,
 * `Authorization: Bearer`, or the cookie.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono/types";
import { DefinitionError } from "../index.js";
import { hono } from "./hono.js";

/** The shortest token the inspector accepts. */
export const MIN_TOKEN_LENGTH = 32;

const LOOPBACK_NAMES = new Set(["localhost", "::1", "[::1]"]);
const IPV4_LOOPBACK = /^(::ffff:)?127(\.\d{1,3}){3}$/i;

/** Whether a host name or address is the loopback interface. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || IPV4_LOOPBACK.test(host.replace(/^\[|\]$/g, ""));
}

function sameSecret(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const left = Buffer.from(given);
  const right = Buffer.from(token);
  return left.length === right.length && timingSafeEqual(left, right);
}

function hostnameOf(hostHeader: string | undefined): string {
  if (!hostHeader) return "";
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  return hostHeader.split(":")[0] ?? "";
}

/**
 * Whether a write's Origin is the inspector's own: `http:`, the host the request was addressed to
 * (its Host header) and the port the server listens on. A page on another port of the same host,
 * or served over https, is another origin.
 */
function isOwnOrigin(origin: string, hostHeader: string | undefined, port: number): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" || (url.port || "80") !== String(port)) return false;
  return url.hostname.toLowerCase() === hostnameOf(hostHeader).toLowerCase();
}

/**
 * The guard in front of everything: the token (when there is one), the Host header on an
 * unauthenticated loopback server (against DNS rebinding), and same-origin JSON for writes.
 */
export function guard(
  host: string,
  token: string | undefined,
  cookieName: () => string,
  ownPort: () => number,
): MiddlewareHandler {
  return async (c, next) => {
    if (token === undefined) {
      const name = hostnameOf(c.req.header("host"));
      if (!isLoopback(name) && name !== host) return c.json({ error: "Unexpected Host header" }, 403);
    } else {
      const bearer = c.req.header("authorization")?.match(/^Bearer\s+(.+)$/i)?.[1];
      const fromQuery = c.req.query("token");
      const candidates = [fromQuery, c.req.header("x-nous-token"), bearer, hono.getCookie(c, cookieName())];
      if (!candidates.some((candidate) => sameSecret(candidate, token))) {
        return c.json({ error: "A valid inspector token is required (open the URL printed with ?token=)" }, 401);
      }
      if (sameSecret(fromQuery, token)) {
        hono.setCookie(c, cookieName(), token, { httpOnly: true, sameSite: "Strict", path: "/" });
      }
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const origin = c.req.header("origin");
      if (origin !== undefined && !isOwnOrigin(origin, c.req.header("host"), ownPort())) {
        return c.json({ error: "Cross-origin request refused" }, 403);
      }
      if (!c.req.header("content-type")?.startsWith("application/json")) {
        return c.json({ error: "Writes must be JSON (content-type: application/json)" }, 415);
      }
    }
    await next();
  };
}

/**
 * The token a server on `host` uses: the given one (at least 32 characters), else a generated one;
 * none only when `given` is `false` and `host` is loopback. Other choices throw `DefinitionError`.
 */
export function resolveToken(host: string, given: string | false | undefined): string | undefined {
  if (given === false) {
    if (isLoopback(host)) return undefined;
    throw new DefinitionError({
      message: `The inspector may run without a token only on loopback, not on "${host}"`,
    });
  }
  if (given !== undefined && given.length < MIN_TOKEN_LENGTH) {
    throw new DefinitionError({
      message: `The inspector token must be at least ${MIN_TOKEN_LENGTH} characters (got ${given.length})`,
    });
  }
  return given ?? randomBytes(24).toString("base64url");
}
