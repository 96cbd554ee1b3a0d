"""The report's stylesheet, inlined into every HTML report.

Inline because the report must stay one file that renders the same offline, from an email
attachment or a CI artefact store. System fonts only (no web fonts to fetch), and a print
section so the report can be filed as a PDF with its colours and without clipped cards.
"""

from __future__ import annotations

CSS = """
:root {
  --ink: #1f2937; --muted: #6b7280; --faint: #9ca3af; --line: #e5e7eb; --paper: #ffffff;
  --wash: #f6f7f9; --accent: #334155;
  --deploy: #1a7f37; --deploy-bg: #e7f5ea; --warn: #b26a00; --warn-bg: #fff4db;
  --block: #c42b2b; --block-bg: #fdeaea; --neutral: #64748b; --neutral-bg: #eef1f5;
  --unsupported: #e69b00; --unsupported-bg: #fff1c9;
  --contradicted: #c42b2b; --contradicted-bg: #fddede;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--wash); color: var(--ink);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
    "Noto Sans", "DejaVu Sans", sans-serif;
  -webkit-print-color-adjust: exact; print-color-adjust: exact;
}
.page { max-width: 1100px; margin: 0 auto; padding: 32px 28px 64px; }
h1, h2, h3, h4 { line-height: 1.25; margin: 0; }
h2 {
  font-size: 20px;
  margin: 40px 0 14px;
  padding-bottom: 8px;
  border-bottom: 1px solid var(--line);
}
h2 .count { color: var(--muted); font-weight: 500; font-size: 15px; margin-left: 6px; }
a { color: #1d4ed8; text-decoration: none; }
a:hover { text-decoration: underline; }
code, .mono {
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
  font-size: 0.86em;
}
.muted { color: var(--muted); }
.num { font-variant-numeric: tabular-nums; text-align: right; white-space: nowrap; }

/* masthead */
.masthead { background: var(--paper); border: 1px solid var(--line); border-radius: 12px;
  padding: 24px 28px; box-shadow: 0 1px 2px rgba(15, 23, 42, .04);
  border-top: 6px solid var(--neutral); }
.masthead.deploy { border-top-color: var(--deploy); }
.masthead.warn { border-top-color: var(--warn); }
.masthead.block { border-top-color: var(--block); }
.eyebrow {
  text-transform: uppercase;
  letter-spacing: .08em;
  font-size: 12px;
  color: var(--muted);
  font-weight: 600;
}
.title-row { display: flex; align-items: center; gap: 16px; flex-wrap: wrap; margin: 6px 0 16px; }
.title-row h1 { font-size: 28px; font-weight: 700; }
.title-row h1 .on { color: var(--muted); font-weight: 400; }
.badge { display: inline-block; border-radius: 999px; padding: 5px 16px; font-weight: 800;
  letter-spacing: .08em; text-transform: uppercase; font-size: 14px; color: #fff;
  background: var(--neutral); }
.badge.deploy { background: var(--deploy); } .badge.warn { background: var(--warn); }
.badge.block { background: var(--block); }
.verdict-line { font-size: 15px; color: var(--ink); margin: -6px 0 16px; }
.meta {
  display: grid;
  grid-template-columns: repeat(4, minmax(0, 1fr));
  gap: 8px 24px;
  margin: 0;
}
.meta .wide { grid-column: span 2; }
.meta div { min-width: 0; }
.meta dt {
  font-size: 11.5px;
  text-transform: uppercase;
  letter-spacing: .06em;
  color: var(--muted);
}
.meta dd { margin: 0; overflow-wrap: anywhere; font-size: 13.5px; }

/* summary cards */
.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; }
.card {
  background: var(--paper);
  border: 1px solid var(--line);
  border-radius: 10px;
  padding: 14px 16px;
}
.card .k {
  font-size: 12px;
  color: var(--muted);
  text-transform: uppercase;
  letter-spacing: .05em;
  font-weight: 600;
}
.card .v { font-size: 28px; font-weight: 700; margin-top: 2px; font-variant-numeric: tabular-nums; }
.card .s { font-size: 12.5px; color: var(--muted); }
.card.bad .v { color: var(--block); }
.card.good .v { color: var(--deploy); }
.card.meh .v { color: var(--warn); }
.bar {
  height: 6px;
  border-radius: 3px;
  background: var(--block-bg);
  margin-top: 8px;
  overflow: hidden;
}
.bar span { display: block; height: 100%; background: var(--deploy); }

/* tables */
table { width: 100%; border-collapse: collapse; background: var(--paper); font-size: 13.5px; }
.table-wrap {
  border: 1px solid var(--line);
  border-radius: 10px;
  overflow-x: auto;
  background: var(--paper);
}
th, td {
  padding: 7px 9px;
  border-bottom: 1px solid var(--line);
  text-align: left;
  vertical-align: top;
}
th { font-size: 11.5px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted);
  font-weight: 600; background: #fafbfc; white-space: nowrap; }
tr:last-child td { border-bottom: 0; }
td.cat { font-weight: 600; }
.pill { display: inline-block; border-radius: 999px; padding: 1px 9px; font-size: 12px;
  font-weight: 600;
  background: var(--neutral-bg); color: var(--neutral); white-space: nowrap; }
.pill.deploy { background: var(--deploy-bg); color: var(--deploy); }
.pill.warn { background: var(--warn-bg); color: var(--warn); }
.pill.block { background: var(--block-bg); color: var(--block); }
.delta-up { color: var(--block); } .delta-down { color: var(--deploy); }

/* charts */
.charts { display: grid; grid-template-columns: 1.25fr 1fr; gap: 14px; }
.panel {
  background: var(--paper);
  border: 1px solid var(--line);
  border-radius: 10px;
  padding: 14px 16px;
  min-width: 0;
}
.panel.wide { grid-column: 1 / -1; }
.panel h3 { font-size: 14px; margin-bottom: 8px; }
.note { font-size: 12.5px; color: var(--muted); margin: 8px 0 0; }
svg.chart { display: block; max-width: 100%; height: auto; font-family: inherit; }
.trend-table { margin-top: 10px; }

/* failures */
.toc {
  background: var(--paper);
  border: 1px solid var(--line);
  border-radius: 10px;
  padding: 8px 0;
  margin: 0;
  list-style: none;
  columns: 2;
  column-gap: 0;
}
.toc li {
  padding: 5px 16px;
  break-inside: avoid;
  display: flex;
  gap: 8px;
  align-items: baseline;
  font-size: 13.5px;
}
.toc .id { font-weight: 700; white-space: nowrap; }
.toc .why {
  margin-left: auto;
  display: flex;
  gap: 4px;
  flex-wrap: wrap;
  justify-content: flex-end;
}
.prompt-card { background: var(--paper); border: 1px solid var(--line);
  border-left: 5px solid var(--block);
  border-radius: 10px; padding: 18px 22px; margin: 16px 0; }
.prompt-card > header {
  display: flex;
  gap: 10px;
  align-items: center;
  flex-wrap: wrap;
  margin-bottom: 12px;
}
.prompt-card h3 { font-size: 18px; }
.prompt-card .top { margin-left: auto; font-size: 12.5px; }
.tag { display: inline-block; border-radius: 6px; padding: 1px 8px; font-size: 12px;
  font-weight: 600;
  background: var(--neutral-bg); color: var(--accent); white-space: nowrap; }
.tag.contradicted { background: var(--contradicted-bg); color: var(--contradicted); }
.tag.unsupported { background: var(--unsupported-bg); color: #8a5a00; }
.tag.failed { background: var(--block-bg); color: var(--block); }
.tag.error { background: #1f2937; color: #fff; }
.turn { border-top: 1px dashed var(--line); padding-top: 12px; margin-top: 12px; }
.turn:first-of-type { border-top: 0; padding-top: 0; margin-top: 0; }
.turn-head {
  font-size: 12px;
  text-transform: uppercase;
  letter-spacing: .06em;
  color: var(--muted);
  font-weight: 700;
  margin-bottom: 6px;
}
.lbl {
  font-size: 11.5px;
  text-transform: uppercase;
  letter-spacing: .06em;
  color: var(--muted);
  font-weight: 600;
  margin: 10px 0 4px;
}
.prompt-text {
  margin: 0;
  padding: 8px 12px;
  background: var(--wash);
  border-radius: 8px;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}
.response { margin: 0; padding: 10px 14px; border: 1px solid var(--line); border-radius: 8px;
  white-space: pre-wrap;
  overflow-wrap: anywhere; line-height: 1.7; }
.response.error { border-color: var(--block); background: var(--block-bg); color: var(--block); }
mark { color: inherit; border-radius: 3px; padding: 1px 0; }
mark.contradicted {
  background: var(--contradicted-bg);
  box-shadow: inset 0 -2px 0 var(--contradicted);
}
mark.unsupported {
  background: var(--unsupported-bg);
  box-shadow: inset 0 -2px 0 var(--unsupported);
}
mark.error-span {
  background: transparent; color: var(--contradicted); font-weight: 700; border-radius: 0;
  text-decoration: underline wavy var(--contradicted); text-decoration-skip-ink: none;
  text-underline-offset: 3px;
}
sup.ref { font-size: 10.5px; font-weight: 700; margin-left: 1px; }
sup.ref a { color: var(--block); }
.claims { display: grid; gap: 10px; margin-top: 6px; }
.claim { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; }
.claim.contradicted { border-left: 4px solid var(--contradicted); }
.claim.unsupported { border-left: 4px solid var(--unsupported); }
.claim-head { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; font-size: 13px; }
.claim-head .ref { font-weight: 800; }
.claim-text { margin: 6px 0; font-style: italic; }
.justification { margin: 4px 0 8px; font-size: 13.5px; }
.evidence { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; }
.evidence li { background: var(--wash); border-radius: 6px; padding: 7px 10px; font-size: 13px; }
.evidence .src { font-weight: 600; }
.evidence .sep { color: var(--faint); margin: 0 4px; }
.evidence .scores {
  float: right;
  color: var(--muted);
  font-size: 12px;
  font-variant-numeric: tabular-nums;
}
.evidence .excerpt {
  display: block;
  color: #374151;
  margin-top: 3px;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}
.evidence .used { color: var(--deploy); font-weight: 700; font-size: 11.5px; margin-left: 6px; }
.citations { display: flex; gap: 6px; flex-wrap: wrap; }
.cite { display: inline-flex; gap: 6px; align-items: center; border: 1px solid var(--line);
  border-radius: 6px;
  padding: 2px 8px; font-size: 12.5px; background: #fff; overflow-wrap: anywhere; }
.cite.ok { border-color: #b7dfc0; background: var(--deploy-bg); }
.cite.bad { border-color: #f2b8b8; background: var(--block-bg); }
.cite .st { font-weight: 700; font-size: 11px; text-transform: uppercase; }
.cite.ok .st { color: var(--deploy); } .cite.bad .st { color: var(--block); }
.checks td.name { white-space: nowrap; font-weight: 600; width: 1%; }
.checks td.res { white-space: nowrap; width: 1%; }
.ok-text { color: var(--deploy); font-weight: 700; }
.bad-text { color: var(--block); font-weight: 700; }
.passed-note { font-size: 12.5px; color: var(--muted); margin-top: 4px; }
.empty {
  background: var(--paper);
  border: 1px solid var(--line);
  border-radius: 10px;
  padding: 18px 22px;
  color: var(--deploy);
  font-weight: 600;
}
.passing td { padding: 4px 9px; font-size: 13px; vertical-align: baseline; }
.passing td.prompt { color: #374151; max-width: 0; width: 100%; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; }
footer.foot {
  margin-top: 48px;
  font-size: 12px;
  color: var(--muted);
  border-top: 1px solid var(--line);
  padding-top: 12px;
}

@media (max-width: 820px) {
  .meta { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .cards { grid-template-columns: repeat(2, 1fr); }
  .charts { grid-template-columns: 1fr; }
  .toc { columns: 1; }
}
@media print {
  @page { size: A4; margin: 12mm 10mm; }
  body { background: #fff; font-size: 9.5pt; }
  .page { max-width: none; padding: 0; }
  .masthead, .card, .panel, .prompt-card, .table-wrap, .toc { box-shadow: none; }
  .meta { grid-template-columns: repeat(4, minmax(0, 1fr)); }
  .cards { grid-template-columns: repeat(4, 1fr); gap: 8px; }
  .card .v { font-size: 20pt; }
  .table-wrap { overflow: visible; }
  table { font-size: 8.5pt; }
  th, td { padding: 4px 5px; }
  th { font-size: 7.5pt; letter-spacing: .02em; }
  .charts { grid-template-columns: 1fr; }
  .toc { columns: 2; }
  .prompt-card, .claim, .panel, .card, tr, .toc li, .evidence li { break-inside: avoid; }
  h2, h3, .lbl { break-after: avoid; }
  .prompt-card { break-inside: auto; }
  a { color: inherit; }
  .top { display: none; }
}
"""
