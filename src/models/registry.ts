import { UnknownModelError } from "../errors/user-errors.js";
import type { Model } from "./model.js";
import type { ModelFactory, ProviderSettings } from "./provider-settings.js";
import { builtinProviders } from "./providers/index.js";

export type { ModelFactory, ProviderSettings } from "./provider-settings.js";

const providers = new Map<string, ModelFactory>(Object.entries(builtinProviders));

/**
 * Registers a provider so that `"name:model"` strings resolve to it.
 *
 * @example
 * registerProvider("echo", (modelId) => new FunctionModel(() => ({ text: modelId })));
 * new Agent({ model: "echo:hello" });
 */
export function registerProvider(name: string, factory: ModelFactory): void {
  providers.set(name, factory);
}

/** The names of the registered providers. */
export function registeredProviders(): string[] {
  return [...providers.keys()].sort();
}

/**
 * A model instance from a `"provider:model"` string (or the instance itself). `"test"` is the
 * built-in `TestModel`.
 */
export function resolveModel(model: Model | string, settings?: ProviderSettings): Model {
  if (typeof model !== "string") return model;
  const colon = model.indexOf(":");
  const provider = colon === -1 ? model : model.slice(0, colon);
  const modelId = colon === -1 ? "" : model.slice(colon + 1);
  const factory = providers.get(provider);
  if (factory === undefined) throw new UnknownModelError({ model, known: registeredProviders() });
  return factory(modelId, settings);
}
