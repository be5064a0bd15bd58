import type * as BullMq from "bullmq";
import type { Redis as IoRedis } from "ioredis";
import { loadPeers } from "../peers/optional-peers.js";

/** BullMQ, the queue engine of `nous/fleet` (an optional peer). */
export const bullmq: typeof BullMq = await loadPeers("nous/fleet", () => import("bullmq"));

/** ioredis, the Redis client BullMQ and the fleet's own keys use (an optional peer). */
export const Redis: typeof IoRedis = await loadPeers("nous/fleet", async () => (await import("ioredis")).Redis);

/** An ioredis client. */
export type RedisClient = IoRedis;
