import { AuthenticationError } from "../../../errors/provider-error.js";
import { processEnv } from "../../../platform/node-builtin.js";
import type { ProviderSettings } from "../../provider-settings.js";
import { registerProviderSecrets } from "./connection.js";

/** Where Gemini API requests go and how they authenticate. */
export interface GeminiEndpoint {
  /** Without a trailing slash. */
  readonly baseURL: string;
  /** `x-goog-api-key` and the settings' extra headers. */
  readonly headers: Record<string, string>;
}

const DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";

/**
 * The Gemini API endpoint of a request: `GEMINI_API_KEY` (or `GOOGLE_API_KEY`) and `GEMINI_BASE_URL`
 * from `settings.env ?? process.env`, explicit settings winning. Read when a request is made, so a
 * model can be built offline; a missing key is an `AuthenticationError`. The key and the extra
 * header values are registered as secrets.
 *
 * @example
 * const { baseURL, headers } = geminiEndpoint({ apiKey: "…" });
 */
export function geminiEndpoint(settings: ProviderSettings): GeminiEndpoint {
  const env = settings.env ?? processEnv();
  const apiKey = settings.apiKey ?? (env.GEMINI_API_KEY || env.GOOGLE_API_KEY);
  if (apiKey === undefined || apiKey === "") {
    throw new AuthenticationError({
      provider: "gemini",
      message: "no API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) or pass { apiKey } in the provider settings",
    });
  }
  registerProviderSecrets(apiKey, settings.headers);
  return {
    baseURL: (settings.baseURL ?? env.GEMINI_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, ""),
    headers: { "x-goog-api-key": apiKey, ...settings.headers },
  };
}

/** A model's resource name: "gemini-2.5-flash" and "models/gemini-2.5-flash" name the same model; "tunedModels/x" is kept. */
export function geminiModelResource(modelId: string): string {
  return modelId.includes("/") ? modelId : `models/${modelId}`;
}
