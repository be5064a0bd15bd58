/**
 * A module loaded on first use and kept: `loaded` is it once the first `load()` settled, so a hot
 * path pays no `import()` (a loader round trip on every call, costly under loader hooks) per call.
 *
 * @example
 * const wire = lazyModule(() => import("./openai-chat-wire.js"));
 * const code = wire.loaded ?? (await wire.load());
 */
export function lazyModule<M>(importer: () => Promise<M>): { readonly loaded: M | undefined; load(): Promise<M> } {
  let loaded: M | undefined;
  let loading: Promise<M> | undefined;
  return {
    get loaded() {
      return loaded;
    },
    load() {
      loading ??= importer().then(
        (module) => {
          loaded = module;
          return module;
        },
        (error: unknown) => {
          loading = undefined; // a failed load may be retried
          throw error;
        },
      );
      return loading;
    },
  };
}
