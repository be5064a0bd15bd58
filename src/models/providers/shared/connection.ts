import { AuthenticationError, ProviderConfigurationError } from "../../../errors/provider-error.js";
import { processEnv } from "../../../platform/node-builtin.js";
import { registerSecret } from "../../../redaction/secret-registry.js";
import type { ProviderSettings } from "../../provider-settings.js";

/** Where a provider finds its endpoint and key: defaults and the environment variables it reads. */
export interface ConnectionSpec {
  /** The provider's name, as in "provider:model"; errors carry it. */
  provider: string;
  /** The base URL when neither settings nor the environment give one; none means one is required. */
  defaultBaseURL?: string;
  /** Environment variable holding the API key (for example `OPENAI_API_KEY`). */
  apiKeyEnv?: string;
  /** Environment variable overriding the base URL (for example `OPENAI_BASE_URL`). */
  baseURLEnv?: string;
  /** True when requests without a key must fail (hosted APIs); false for local servers. */
  requiresApiKey: boolean;
}

/** A resolved endpoint: the base URL is known at construction; the key is checked at request time. */
export interface Connection {
  readonly provider: string;
  readonly baseURL: string;
  readonly fetch: typeof fetch | undefined;
  /** Request headers with authentication; throws `AuthenticationError` when a required key is missing. */
  headers(): Record<string, string>;
}

/**
 * Resolves settings and environment into a connection. Settings win over the environment, which
 * wins over the defaults; a missing required key is reported when a request is made, so model
 * strings resolve offline. The key and the extra header values are registered as secrets (see
 * `registerProviderSecrets`).
 *
 * @example
 * const connection = resolveConnection(
 *   { provider: "groq", defaultBaseURL: "https://api.groq.com/openai/v1", apiKeyEnv: "GROQ_API_KEY", requiresApiKey: true },
 *   { env: { GROQ_API_KEY: "gsk_..." } },
 * );
 */
export function resolveConnection(spec: ConnectionSpec, settings: ProviderSettings = {}): Connection {
  const env = settings.env ?? processEnv();
  const fromEnv = (name: string | undefined) => (name === undefined ? undefined : nonEmpty(env[name]));
  const baseURL = nonEmpty(settings.baseURL) ?? fromEnv(spec.baseURLEnv) ?? spec.defaultBaseURL;
  if (baseURL === undefined) {
    throw new ProviderConfigurationError({
      provider: spec.provider,
      message: `no base URL: pass { baseURL }${spec.baseURLEnv === undefined ? "" : ` or set ${spec.baseURLEnv}`}`,
    });
  }
  const apiKey = nonEmpty(settings.apiKey) ?? fromEnv(spec.apiKeyEnv);
  const extra = settings.headers ?? {};
  registerProviderSecrets(apiKey, extra);
  return {
    provider: spec.provider,
    baseURL: baseURL.replace(/\/+$/, ""),
    fetch: settings.fetch,
    headers() {
      if (apiKey === undefined && spec.requiresApiKey) {
        throw new AuthenticationError({
          provider: spec.provider,
          message: `no API key: pass { apiKey }${spec.apiKeyEnv === undefined ? "" : ` or set ${spec.apiKeyEnv}`}`,
        });
      }
      return apiKey === undefined ? { ...extra } : { authorization: `Bearer ${apiKey}`, ...extra };
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/**
 * Registers a provider's credentials as secrets (see `registerSecret`): the API key and the value of
 * every extra header the settings add (they carry organization ids, proxy tokens and the like) but
 * the few that never hold one (`accept`, `content-type`, `user-agent`, `anthropic-version`,
 * `anthropic-beta`, `openai-beta`), so none reaches the session log, the stream, errors or the
 * logger, whatever echoes it.
 *
 * @example
 * registerProviderSecrets(process.env.OPENAI_API_KEY, { "openai-organization": "org-…" });
 */
export function registerProviderSecrets(
  apiKey: string | undefined,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (apiKey !== undefined) registerSecret(apiKey);
  for (const [name, value] of Object.entries(headers)) {
    if (!PUBLIC_HEADERS.has(name.toLowerCase())) registerSecret(value);
  }
}

/** Headers that name formats, versions and features, never credentials: their values stay readable. */
const PUBLIC_HEADERS = new Set([
  "accept",
  "content-type",
  "user-agent",
  "anthropic-version",
  "anthropic-beta",
  "openai-beta",
]);
