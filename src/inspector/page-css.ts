/** The inspector's style sheet. */
export const PAGE_CSS = `
:root { --surface: #1f6feb; --book: #8b949e; --bg: #f6f8fa; --panel: #fff; --line: #d0d7de; --text: #1f2328;
  --muted: #59636e; --add: #dafbe1; --add-line: #1a7f37; --chg: #fff8c5; --chg-line: #9a6700; --del: #ffebe9;
  --del-line: #cf222e; --sel: #ddf4ff; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 14px; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); }
a { color: #0969da; }
.top { display: flex; align-items: center; gap: 16px; padding: 8px 16px; background: #24292f; color: #fff; }
.top h1 { font-size: 16px; margin: 0; } .top h1 a { color: #fff; text-decoration: none; }
.live { font-size: 12px; color: #7ee787; } .notice { font-size: 12px; color: #f0f6fc; margin-left: auto; }
.layout { display: grid; grid-template-columns: 300px 1fr; min-height: calc(100vh - 40px); }
.sessions { border-right: 1px solid var(--line); background: var(--panel); padding: 8px; overflow: auto; }
#filters { display: grid; gap: 6px; margin-bottom: 8px; } #filters label { display: grid; gap: 2px; font-size: 12px; color: var(--muted); }
input, select, textarea { font: inherit; padding: 4px 6px; border: 1px solid var(--line); border-radius: 6px; }
.session-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 4px; }
.session-list a { display: block; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; text-decoration: none; color: inherit; }
.session-list a[aria-current="true"] { background: var(--sel); border-color: #54aeff; }
.session-list .id { font-weight: 600; word-break: break-all; } .meta { font-size: 12px; color: var(--muted); }
.status { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 10px; border: 1px solid currentColor; }
.status-completed { color: #1a7f37; } .status-failed { color: #cf222e; } .status-running { color: #0969da; }
.status-awaiting_approval { color: #9a6700; } .status-idle { color: var(--muted); } .status-interrupted { color: #bc4c00; }
main { padding: 12px 16px; overflow: auto; } .empty { color: var(--muted); }
.session-head h2 { margin: 0 0 4px; font-size: 18px; word-break: break-all; }
.totals { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0; }
.totals div { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; }
.totals b { display: block; font-size: 16px; }
section.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin: 8px 0; }
section.panel h3 { margin: 0 0 6px; font-size: 14px; }
.approvals { border-color: #d4a72c; background: #fff8c5; }
.approval { display: grid; gap: 6px; padding: 6px 0; border-top: 1px solid #eed888; } .approval:first-of-type { border-top: 0; }
.approval .actions { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
button { font: inherit; cursor: pointer; border: 1px solid var(--line); background: #f6f8fa; border-radius: 6px; padding: 4px 10px; }
button.primary { background: #1f883d; color: #fff; border-color: #1a7f37; } button.danger { color: #cf222e; }
button:focus-visible, a:focus-visible { outline: 2px solid #0969da; outline-offset: 1px; }
.chart svg { width: 100%; height: auto; max-height: 220px; display: block; } .legend { font-size: 12px; color: var(--muted); display: flex; gap: 12px; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: middle; }
.split { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 12px; align-items: start; }
.timeline, .timeline ol { list-style: none; margin: 0; padding: 0; }
.timeline ol.children { margin: 2px 0 4px 22px; padding-left: 8px; border-left: 2px dashed var(--line); }
.event { margin: 2px 0; }
.event > .row { display: flex; gap: 6px; align-items: baseline; }
.event .select { flex: 1; text-align: left; display: flex; gap: 8px; align-items: baseline; background: var(--panel);
  border-left: 4px solid var(--book); min-width: 0; }
.event.surface > .row .select { border-left-color: var(--surface); }
.event.bookkeeping > .row .select { background: #f6f8fa; color: #424a53; }
.event.selected > .row .select { background: var(--sel); border-color: #54aeff; }
.event.fresh > .row .select { box-shadow: 0 0 0 2px #7ee787; }
.seq { font-variant-numeric: tabular-nums; color: var(--muted); min-width: 34px; flex-shrink: 0; }
.kind, .etype, .time, .dur, .badge { flex-shrink: 0; } .event .select { overflow: hidden; } .windowed .seq { min-width: 48px; }
.kind { font-size: 10px; text-transform: uppercase; letter-spacing: .04em; padding: 0 4px; border-radius: 4px; color: #fff; }
.kind-surface { background: var(--surface); } .kind-bookkeeping { background: var(--book); }
.etype { font-weight: 600; font-family: ui-monospace, monospace; } .summary { color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.event details { margin: 0 0 2px 12px; } .event details summary { font-size: 12px; color: var(--muted); cursor: pointer; }
pre { margin: 4px 0; padding: 6px; background: #f6f8fa; border-radius: 6px; overflow: auto; font-size: 12px; max-height: 300px; }
.state { position: sticky; top: 0; }
.state-head { display: flex; justify-content: space-between; align-items: center; gap: 8px; }
.diff { list-style: none; margin: 4px 0; padding: 0; font-family: ui-monospace, monospace; font-size: 12px; }
.diff li { padding: 1px 6px; border-radius: 4px; margin: 1px 0; }
.diff .added, .tree .added { background: var(--add); border-left: 3px solid var(--add-line); }
.diff .changed, .tree .changed { background: var(--chg); border-left: 3px solid var(--chg-line); }
.diff .removed { background: var(--del); border-left: 3px solid var(--del-line); text-decoration: line-through; }
.tree { font-family: ui-monospace, monospace; font-size: 12px; margin: 4px 0; }
.tree .node { padding-left: 14px; } .tree .key { color: #8250df; } .tree .val { color: #0a3069; word-break: break-all; }
.messages { list-style: none; margin: 0; padding: 0; display: grid; gap: 4px; }
.messages li { border: 1px solid var(--line); border-radius: 6px; padding: 4px 8px; font-size: 12px; white-space: pre-wrap; word-break: break-word; }
.role { font-weight: 600; margin-right: 6px; text-transform: uppercase; font-size: 10px; }
.muted { color: var(--muted); font-size: 12px; }
.swatch[data-color="input"] { background: #1f6feb; } .swatch[data-color="output"] { background: #8250df; }
.swatch[data-color="latency"] { background: #bc4c00; } .notice-inline { color: #cf222e; }
h4 { margin: 8px 0 2px; font-size: 12px; color: var(--muted); text-transform: uppercase; }
.time, .dur { font-size: 11px; color: var(--muted); font-variant-numeric: tabular-nums; white-space: nowrap; } .dur { color: #8250df; }
.badge { font-size: 11px; padding: 0 6px; border-radius: 10px; white-space: nowrap; border: 1px solid currentColor; }
.badge-retry { color: #9a6700; background: #fff8c5; } .badge-fallback { color: #bc4c00; background: #fff1e5; }
.badge-reset, .badge-partial, .badge-incomplete { color: #8250df; background: #fbefff; } .badge-complete { color: #1a7f37; }
.badge-failed { color: #cf222e; background: #ffebe9; } .badge-paused { color: #9a6700; background: #fff8c5; }
.event.notice-event > .row .select { border-left-color: #bc4c00; }
.banner { border-radius: 8px; padding: 8px 12px; margin: 8px 0; border: 1px solid; }
.banner-failed { background: #ffebe9; border-color: #cf222e; color: #82071e; } .banner-paused { background: #fff8c5; border-color: #d4a72c; }
.banner ul { margin: 4px 0 0; padding-left: 18px; } .code { font-family: ui-monospace, monospace; font-weight: 600; }
.type-filter { display: flex; flex-wrap: wrap; gap: 4px; margin: 0 0 6px; }
.chip { font-size: 11px; padding: 1px 8px; border-radius: 12px; font-family: ui-monospace, monospace; }
.chip[aria-pressed="true"] { background: var(--sel); border-color: #54aeff; } .chip[aria-pressed="false"] { color: var(--muted); text-decoration: line-through; }
.timeline-scroll { height: 70vh; overflow: auto; position: relative; border: 1px solid var(--line); border-radius: 6px; }
.window-inner { position: relative; } .timeline.windowed { position: absolute; top: 0; left: 0; right: 0; will-change: transform; }
.timeline.windowed .event { height: 30px; margin: 0; overflow: hidden; } .timeline.windowed .event > .row { height: 28px; }
.fields { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; font-size: 12px; }
.field { display: contents; } .field .label { color: var(--muted); } .field .value { font-family: ui-monospace, monospace; word-break: break-word; white-space: pre-wrap; }
.event-meta { font-size: 12px; margin-bottom: 4px; } .tools { margin: 0; padding-left: 16px; font-size: 12px; }
.partial-calls { list-style: none; padding: 0; margin: 4px 0; font-size: 12px; } .partial-calls li.incomplete { border-left: 3px dashed #8250df; padding-left: 6px; }
.ops { border-collapse: collapse; font-size: 12px; width: 100%; margin: 4px 0; } .ops th, .ops td { border: 1px solid var(--line); padding: 2px 6px; text-align: left; vertical-align: top; }
.ops td.before { background: var(--del); font-family: ui-monospace, monospace; word-break: break-all; } .ops td.after { background: var(--add); font-family: ui-monospace, monospace; word-break: break-all; }
`;
