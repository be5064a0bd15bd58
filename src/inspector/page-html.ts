/** The inspector's HTML shell. Static: every piece of session data is added by the script as text nodes. */
const STATUS_OPTIONS = ["running", "interrupted", "completed", "failed", "awaiting_approval", "idle"]
  .map((status) => `<option value="${status}">${status.replace("_", " ")}</option>`)
  .join("");

export function pageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Nous inspector</title>
<link rel="stylesheet" href="/assets/inspector.css">
</head>
<body>
<header class="top">
  <h1><a href="#/">Nous inspector</a></h1>
  <span id="live" class="live" role="status" aria-live="polite"></span>
  <span id="notice" class="notice" role="alert"></span>
</header>
<div class="layout">
  <nav class="sessions" aria-label="Sessions">
    <form id="filters" role="search">
      <label>Search <input id="search" type="search" placeholder="id, agent or model" autocomplete="off"></label>
      <label>Status <select id="status"><option value="">all</option>${STATUS_OPTIONS}</select></label>
    </form>
    <ul id="session-list" class="session-list"></ul>
    <button id="more" type="button" hidden>More sessions</button>
  </nav>
  <main id="main" tabindex="-1"><p class="empty">Select a session.</p></main>
</div>
<script type="module" src="/assets/inspector.js"></script>
</body>
</html>`;
}
