/** The inspector's browser script: views first, then the wiring that uses them. One module, no build step. */
import { CORE_SCRIPT } from "./page-script-core.js";
import { VIEWS_SCRIPT } from "./page-script-views.js";

export const PAGE_SCRIPT = `${VIEWS_SCRIPT}\n${CORE_SCRIPT}`;
