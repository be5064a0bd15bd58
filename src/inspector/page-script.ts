/** The inspector's browser script: views first, then the wiring that uses them. One module, no build step. */
import { CORE_SCRIPT } from "./page-script-core.js";
import { DETAIL_SCRIPT } from "./page-script-detail.js";
import { TIMELINE_SCRIPT } from "./page-script-timeline.js";
import { VIEWS_SCRIPT } from "./page-script-views.js";

export const PAGE_SCRIPT = `${VIEWS_SCRIPT}\n${TIMELINE_SCRIPT}\n${DETAIL_SCRIPT}\n${CORE_SCRIPT}`;
