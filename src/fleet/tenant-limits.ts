import { TenantBudgetExceededError } from "../errors/fleet-errors.js";
import type { RedisClient } from "./fleet-peers.js";

/** Limits of one tenant's runs across the whole fleet. */
export interface TenantLimits {
  /** Runs of the tenant at once, over every worker (default: no limit). */
  readonly concurrency?: number;
  /** Tokens (input + output) the tenant's runs may use in all; past it runs are refused (default: no budget). */
  readonly budgetTokens?: number;
}

/** Limits for every tenant, with overrides for some. */
export interface TenantSettings extends TenantLimits {
  readonly byTenant?: Readonly<Record<string, TenantLimits>>;
}

// Takes a slot of the tenant's active set for `member` (a run id) until `expiry`, dropping the
// slots of workers that died without leaving (their expiry passed). 1: taken or renewed; 0: full.
const ENTER = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 1
end
return 0`;

/** A held slot of a tenant's concurrency: renewed while the run goes, given back when it ends. */
export interface TenantSlot {
  leave(): Promise<void>;
}

/** Per-tenant concurrency and budgets, kept in Redis so that every worker and submitter sees them. */
export class TenantLimiter {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #settings: TenantSettings;

  constructor(redis: RedisClient, prefix: string, settings: TenantSettings | undefined) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#settings = settings ?? {};
  }

  limitsOf(tenant: string): TenantLimits {
    const own = this.#settings.byTenant?.[tenant];
    return {
      concurrency: own?.concurrency ?? this.#settings.concurrency,
      budgetTokens: own?.budgetTokens ?? this.#settings.budgetTokens,
    };
  }

  /** Tokens the tenant has used, and its budget, when it has one. */
  async budget(tenant: string): Promise<{ used: number; budget: number } | undefined> {
    const budget = this.limitsOf(tenant).budgetTokens;
    if (budget === undefined) return undefined;
    const used = Number((await this.#redis.get(this.#key(tenant, "tokens"))) ?? 0);
    return { used, budget };
  }

  /** Throws `TenantBudgetExceededError` when the tenant has spent its budget. */
  async assertWithinBudget(tenant: string): Promise<void> {
    const budget = await this.budget(tenant);
    if (budget !== undefined && budget.used >= budget.budget)
      throw new TenantBudgetExceededError({ tenant, ...budget });
  }

  /** Adds a finished run's tokens to the tenant's total. */
  async spend(tenant: string, tokens: number): Promise<void> {
    if (tokens > 0) await this.#redis.incrby(this.#key(tenant, "tokens"), Math.round(tokens));
  }

  /** Sets the tenant's used tokens back to 0 (a new billing period). */
  async resetUsage(tenant: string): Promise<void> {
    await this.#redis.del(this.#key(tenant, "tokens"));
  }

  /**
   * A slot for run `runId` of the tenant, or undefined while the tenant has `concurrency` runs going.
   * A slot lasts `ttlMs` past its last renewal, so a killed worker's slot frees itself.
   */
  async enter(tenant: string, runId: string, ttlMs: number): Promise<TenantSlot | undefined> {
    const limit = this.limitsOf(tenant).concurrency;
    if (limit === undefined) return { leave: async () => undefined };
    const key = this.#key(tenant, "active");
    const take = () => {
      const now = Date.now();
      return this.#redis.eval(ENTER, 1, key, runId, now, now + ttlMs, limit, ttlMs * 4) as Promise<number>;
    };
    if ((await take()) !== 1) return undefined;
    const timer = setInterval(() => void take().catch(() => undefined), Math.max(10, Math.floor(ttlMs / 3)));
    timer.unref?.();
    return {
      leave: async () => {
        clearInterval(timer);
        await this.#redis.zrem(key, runId).catch(() => undefined);
      },
    };
  }

  #key(tenant: string, what: "tokens" | "active"): string {
    return `${this.#prefix}:tenant:${tenant}:${what}`;
  }
}
