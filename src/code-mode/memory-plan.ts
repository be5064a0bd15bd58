/**
 * How the sandbox's WebAssembly memory is sized from `memoryBytes`.
 *
 * QuickJS's own allocation limit cannot bound the heap in this build: without `malloc_usable_size`
 * it counts 8 bytes per live block (plus the size of the request at hand), so a program holding
 * 64 MiB in small objects shows about 24 MiB on its counter. The heap is therefore bounded where it
 * lives: the memory starts with the module's static data and C stack, then `memoryBytes` of heap,
 * and may not grow while the program runs, so an allocation past it fails and the sandbox knows the
 * program needed more than `memoryBytes`. Pages the program never touches cost no physical memory.
 * Above that, up to the WebAssembly maximum, the host keeps a headroom for reading the program's
 * result or error out afterwards.
 */
import type { ResolvedLimits } from "./limits.js";

/** WebAssembly's page: memory grows in these steps. */
export const wasmPageBytes = 65_536;

/**
 * The layout of the QuickJS build in use (`@jitl/quickjs-wasmfile-release-sync` 0.32.0): the
 * memory it imports starts at 256 pages (16 MiB, its minimum), and its heap begins after 5.09 MB
 * of static data and C stack (the initial `__stack_pointer`). A test reads both from the module.
 */
export const quickjsLayout = Object.freeze({ minimumPages: 256, heapBase: 5_333_088 });

/** The largest memory the build's growth code asks for (2 GiB). */
const maxPages = 32_768;

export interface MemoryPlan {
  /** Pages the WebAssembly memory starts with: static data, C stack and `memoryBytes` of heap. */
  readonly initialPages: number;
  /** The WebAssembly maximum: the initial pages plus the host's headroom for reading results out. */
  readonly maximumPages: number;
}

/**
 * The memory plan for a program's limits: a heap of `memoryBytes` (the runtime's own few hundred
 * KiB included), and a headroom of 1 MiB plus six times `maxOutputBytes` (a result or error text
 * read out as UTF-8) above it.
 *
 * @example
 * memoryPlan(defaultLimits); // initial 69.1 MiB (1106 pages), maximum 71.6 MiB (1146 pages)
 */
export function memoryPlan(limits: ResolvedLimits, layout = quickjsLayout): MemoryPlan {
  const pages = (bytes: number) => Math.ceil(bytes / wasmPageBytes);
  const initialPages = Math.max(layout.minimumPages, pages(layout.heapBase + limits.memoryBytes));
  const headroomPages = pages(1024 * 1024 + 6 * limits.maxOutputBytes);
  return { initialPages, maximumPages: Math.min(maxPages, initialPages + headroomPages) };
}
