/**
 * Where QuickJS is installed: `quickjs-emscripten-core` (the library) and
 * `@jitl/quickjs-wasmfile-release-sync` (the one WebAssembly build the sandbox runs), optional peers
 * resolved when `nous/code-mode` loads. Without them, importing `nous/code-mode` fails with one
 * `OptionalPeerMissingError` naming every missing package and the install command. The sandbox's
 * worker loads them from these paths.
 */
import { createRequire } from "node:module";
import { OptionalPeerMissingError } from "../errors/optional-peer-missing-error.js";
import { OPTIONAL_PEERS, peerError } from "../peers/optional-peers.js";

function resolveQuickjs(): { corePath: string; variantPath: string } {
  const require = createRequire(import.meta.url);
  const outcomes = ["quickjs-emscripten-core", "@jitl/quickjs-wasmfile-release-sync"].map((name) => {
    try {
      return { path: require.resolve(name) };
    } catch (error) {
      return { error };
    }
  });
  const failures = outcomes.flatMap((outcome) => ("error" in outcome ? [outcome.error] : []));
  if (failures.length > 0) {
    const typed = failures.map((error) => peerError("nous/code-mode", error));
    if (typed.some((error) => error === undefined)) throw failures[typed.indexOf(undefined)];
    throw new OptionalPeerMissingError({
      entry: "nous/code-mode",
      packages: OPTIONAL_PEERS["nous/code-mode"],
      missing: typed.flatMap((error) => error?.missing ?? []),
      cause: failures[0],
    });
  }
  const [core, variant] = outcomes as { path: string }[];
  return { corePath: core?.path ?? "", variantPath: variant?.path ?? "" };
}

export const quickjsPaths: { readonly corePath: string; readonly variantPath: string } = resolveQuickjs();
