/** The Redis server the fleet tests use (127.0.0.1:6379, or REDIS_URL). */
import { Redis } from "ioredis";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * Whether Redis answers. Under CI an unreachable server fails the suite; on a developer machine the
 * suite is skipped with one line saying how to run it.
 */
export async function redisReachable(suite: string): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // Kept for the message (connect() only says "Connection is closed"); handled, so ioredis does not print it.
  let cause: unknown;
  client.on("error", (error) => {
    cause = error;
  });
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch (error) {
    if (process.env.CI) throw new Error(`Redis at ${REDIS_URL} is unreachable under CI: ${String(cause ?? error)}`);
    console.warn(`${suite} skipped: no Redis at ${REDIS_URL}; start one (redis-server) or set REDIS_URL to run it`);
    return false;
  } finally {
    client.disconnect();
  }
}
