/** The inline style and script of the HTML report (no network assets, no external fonts). */

export const HTML_STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #fff;
  --create: #1a7f37; --update: #9a6700; --adopt: #0969da; --delete: #cf222e; --conflict: #8250df;
  --failed: #cf222e; --skip: #59636e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --line: #3d444d;
  --bg: #0d1117; } }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); margin: 2rem auto; max-width: 72rem; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.meta, .muted { color: var(--muted); }
.word-diff pre { white-space: pre-wrap; }
.summary { display: flex; flex-wrap: wrap; gap: .75rem; margin: 1.25rem 0; }
.stat { border: 1px solid var(--line); border-radius: 6px; padding: .5rem 1rem; min-width: 6rem; }
.stat .n { display: block; font-size: 1.6rem; font-weight: 600; }
.filter { display: flex; flex-wrap: wrap; gap: .5rem; margin: 1rem 0; }
.filter button { font: inherit; border: 1px solid var(--line); border-radius: 2rem; padding: .2rem .8rem;
  background: transparent; color: inherit; cursor: pointer; }
.filter button[aria-pressed="true"] { background: var(--fg); color: var(--bg); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid var(--line); }
td table { margin: .25rem 0; font-size: 13px; } td table th, td table td { border: 1px solid var(--line); }
.badge { font-weight: 600; white-space: nowrap; }
.a-create { color: var(--create); } .a-update { color: var(--update); } .a-adopt { color: var(--adopt); }
.a-delete { color: var(--delete); } .a-conflict { color: var(--conflict); }
.a-failed { color: var(--failed); } .a-skip { color: var(--skip); }
tr.task > td.item { padding-left: 1.75rem; }
.error { color: var(--failed); } code { font-size: 12px; }
.links { margin-top: .25rem; } .links a { color: var(--adopt); }
table.writes caption { text-align: left; color: var(--muted); }
.old { text-decoration: line-through; color: var(--muted); }
`;

/** Filter buttons: show only the rows of one action (works from file://, no server). */
export const HTML_SCRIPT = `
(function () {
  var buttons = Array.prototype.slice.call(document.querySelectorAll("button[data-filter]"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr[data-action]"));
  function show(filter) {
    rows.forEach(function (row) {
      row.hidden = filter !== "all" && row.getAttribute("data-action") !== filter;
    });
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-filter") === filter));
    });
  }
  buttons.forEach(function (b) {
    b.addEventListener("click", function () { show(b.getAttribute("data-filter")); });
  });
})();
`;
