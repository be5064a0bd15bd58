import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { RedisClient } from "./fleet-peers.js";
import { SessionWatch, subscriberOf } from "./session-watch.js";
import { REDIS_URL, redisReachable } from "./test-support/redis-server.js";

const reachable = await redisReachable("session watch test");

/**
 * Subscribes the moment the connection's socket is up, before ioredis's handshake is over, and
 * resolves with the first of: the connection ready (no error), or the error it reported.
 */
function subscribeOnConnect(client: RedisClient, channel: string): Promise<Error | "ready"> {
  return new Promise((resolve) => {
    client.on("error", (error: Error) => resolve(error));
    client.once("ready", () => resolve("ready"));
    client.once("connect", () => {
      client.subscribe(channel).catch((error: Error) => resolve(error));
    });
  });
}

describe.runIf(reachable)("SessionWatch connection", () => {
  const base = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const opened: RedisClient[] = [base];
  afterAll(() => {
    for (const client of opened) client.disconnect();
  });

  it("subscribes while the connection is still handshaking, gets ready, and wakes its waiter", async () => {
    const subscriber = subscriberOf(base);
    opened.push(subscriber);
    expect(await subscribeOnConnect(subscriber, "nous-test:watch:early")).toBe("ready");
    const watch = new SessionWatch(subscriber);
    const waiter = await watch.open("nous-test:watch:early", 10_000);
    const woken = waiter.next();
    await base.publish("nous-test:watch:early", "look again");
    await expect(woken).resolves.toBeUndefined();
    await waiter.close();
  });

  it("(control) a plain duplicate fails there: its handshake meets a subscribed connection", async () => {
    const plain = base.duplicate({ maxRetriesPerRequest: null });
    opened.push(plain);
    const outcome = await subscribeOnConnect(plain, "nous-test:watch:control");
    expect(outcome).toBeInstanceOf(Error);
    // Refused by ioredis itself (the SETINFO/INFO of the handshake on a subscribed connection) or by Redis.
    expect(String(outcome)).toMatch(/subscriber mode|can't execute 'info'/i);
  });
});
