import { isErasurePseudonym } from '../../common/erase-member-references.js';
import { isPnUser, phoneDigitsOfJid } from '../../common/whatsapp-jid.js';
import { MEMBER_PAGE_LIST_LIMIT, type EngagementReport, type MemberPage, type MemberSearch } from '../../lake/index.js';
import { chartBody, COUNT_AXIS, type ChartSpec } from '../report/chart-svg.js';
import { maskPhone, memberLabel } from '../report/render-charts.js';
import {
  describeReportScope,
  escapeHtml,
  memberCell,
  REPORT_STYLE,
  renderReportSections,
  tableCells as cells,
  tableText,
} from '../report/render-html.js';
import type { MemberPaths } from './member-paths.js';

/** The filters every page carries (ADR 0025): a group, a range of local days, a member search. */
export interface DashboardFilters {
  group: string | null;
  from: string | null;
  to: string | null;
}

/** A group of the filter's list. */
export interface GroupChoice {
  groupJid: string;
  subject: string | null;
}

// Scripts only from the dashboard itself (its script and the bundled ECharts), nothing fetched from elsewhere.
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const STYLE = `${REPORT_STYLE}
  nav { display: flex; gap: 16px; align-items: baseline; border-bottom: 1px solid #ddd; padding-bottom: 8px; }
  nav a { color: #1a5fb4; } form.filters { display: flex; gap: 10px; flex-wrap: wrap; align-items: end; margin: 12px 0; }
  form.filters label { display: flex; flex-direction: column; font-size: 0.85em; color: #444; }
  .echart { width: 100%; } dl.identity { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }`;

/** `path` with the filters (and `extra`) as its query string; empty values are left out. */
export function hrefWith(path: string, filters: DashboardFilters, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams();
  if (filters.group) query.set('group', filters.group);
  if (filters.from) query.set('from', filters.from);
  if (filters.to) query.set('to', filters.to);
  for (const [key, value] of Object.entries(extra)) query.set(key, value);
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** A member page's address: the participant's path segment (a phone JID sealed) in the path, the filters in the query. */
export const memberHref = (participantId: string, filters: DashboardFilters, paths: MemberPaths): string =>
  hrefWith(`/members/${encodeURIComponent(paths.segmentOf(participantId))}`, filters);

/**
 * The address a table links a participant to: their member page, or none for an erasure pseudonym
 * (`erased-<uuid>@erased`), which has no page and is shown as plain text.
 */
const linkedMemberHref = (participantId: string, filters: DashboardFilters, paths: MemberPaths): string | undefined =>
  isErasurePseudonym(participantId) ? undefined : memberHref(participantId, filters, paths);

/** A chart drawn in the browser by the bundled ECharts from its option (see DASHBOARD_CLIENT_SCRIPT). */
export function renderBrowserChart(chart: ChartSpec): string {
  return `<figure class="chart" id="${chart.id}"><figcaption>${escapeHtml(chart.title)}</figcaption><div class="echart" style="height:${String(chart.height)}px" data-option="${escapeHtml(JSON.stringify(chart.option))}"></div></figure>`;
}

function renderFilterForm(filters: DashboardFilters, groups: readonly GroupChoice[], member = ''): string {
  // The group asked for stays selected when the list lacks it (the lake down, a group known only by its messages).
  const asked = filters.group;
  const choices =
    asked === null || groups.some((g) => g.groupJid === asked)
      ? groups
      : [...groups, { groupJid: asked, subject: null }];
  const options = choices
    .map(
      (g) =>
        `<option value="${escapeHtml(g.groupJid)}"${g.groupJid === filters.group ? ' selected' : ''}>${escapeHtml(g.subject ?? g.groupJid)}</option>`
    )
    .join('');
  return `<form class="filters" method="get" action="/" id="filters">
<label>group<select name="group"><option value="">all groups</option>${options}</select></label>
<label>from<input type="date" name="from" value="${escapeHtml(filters.from ?? '')}"></label>
<label>to<input type="date" name="to" value="${escapeHtml(filters.to ?? '')}"></label>
<label>member<input type="search" name="member" placeholder="name or id" value="${escapeHtml(member)}"></label>
<button type="submit">show</button></form>`;
}

/** A whole dashboard page: navigation, the filters, the content; the scripts come from the dashboard itself. */
export function renderDashboardPage(options: {
  title: string;
  filters: DashboardFilters;
  groups: readonly GroupChoice[];
  body: string;
  member?: string;
}): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · wa-lake</title><style>${STYLE}</style></head>
<body>
<nav><b>wa-lake</b><a href="${escapeHtml(hrefWith('/', options.filters))}">overview</a><a href="${escapeHtml(hrefWith('/members', options.filters))}">members</a></nav>
${renderFilterForm(options.filters, options.groups, options.member ?? '')}
<h1>${escapeHtml(options.title)}</h1>
${options.body}
<script src="/assets/echarts.min.js"></script><script src="/assets/dashboard.js"></script>
</body></html>
`;
}

/** When a page's numbers were counted, and how old the dashboard lets them be (ADR 0034); 0 = counted per page. */
export interface ReportFreshness {
  asOf: Date;
  maxAgeMs: number;
}

/** "numbers as of 10:42:05 UTC, at most 5 minutes old": said only when the dashboard serves kept reports. */
function describeFreshness(freshness: ReportFreshness): string {
  if (freshness.maxAgeMs <= 0) return '';
  const at = freshness.asOf.toISOString().replace('T', ' ').slice(0, 19);
  const seconds = Math.round(freshness.maxAgeMs / 1000);
  const limit = seconds % 60 === 0 ? `${String(seconds / 60)} min` : `${String(seconds)} s`;
  return `<p class="meta" id="report-as-of">numbers as of ${at} UTC (kept at most ${limit})</p>\n`;
}

/** The overview: the report's content, charts drawn in the browser, top members linked to their pages. */
export function renderOverviewPage(
  report: EngagementReport,
  filters: DashboardFilters,
  groups: GroupChoice[],
  paths: MemberPaths,
  freshness: ReportFreshness = { asOf: new Date(), maxAgeMs: 0 }
): string {
  const subject = groups.find((group) => group.groupJid === report.groupJid)?.subject ?? null;
  const body = `<p class="meta">${escapeHtml(describeReportScope(report, subject))}</p>
${describeFreshness(freshness)}${renderReportSections(report, {
    memberHref: (participantId) => linkedMemberHref(participantId, filters, paths),
    renderChart: renderBrowserChart,
  })}`;
  const title = report.groupJid === null ? 'Engagement' : `Engagement · ${subject ?? report.groupJid}`;
  return renderDashboardPage({ title, filters, groups, body });
}

/** The member search's results: each links to the member's page; a count says when only the first are listed. */
export function renderSearchPage(
  text: string,
  search: MemberSearch,
  filters: DashboardFilters,
  groups: GroupChoice[],
  paths: MemberPaths
): string {
  const { hits, total } = search;
  const rows = hits
    .map(
      (hit) =>
        `<tr>${memberCell(memberLabel(hit), linkedMemberHref(hit.participantId, filters, paths))}<td>${tableText(hit.memberId ?? '')}</td></tr>`
    )
    .join('');
  const body =
    text === ''
      ? '<p>Type a name, a participant id, a member id or a whole phone number in the member box.</p>'
      : `${total > hits.length ? `<p class="meta" id="member-hits-count">first ${String(hits.length)} of ${String(total)} members: type more of the name to narrow the search</p>` : ''}<table id="member-hits"><tr><th>member</th><th>member id</th></tr>${rows}</table>${hits.length === 0 ? '<p>No member matches.</p>' : ''}`;
  return renderDashboardPage({ title: 'Members', filters, groups, body, member: text });
}

/** A participant id as the page shows it: a phone JID masked (ADR 0020), a LID as it is. */
const participantLabel = (participantId: string): string =>
  isPnUser(participantId) ? maskPhone(phoneDigitsOfJid(participantId) ?? '') : participantId;

/** The count of a list the member page shows at most {@link MEMBER_PAGE_LIST_LIMIT} of, and which it lists. */
function listedCount(id: string, shown: number, total: number, noun: string, which: string): string {
  const all = `${String(total)} ${noun}${total === 1 ? '' : 's'}`;
  const text = shown < total ? `${all}, ${which} ${String(MEMBER_PAGE_LIST_LIMIT)} listed` : all;
  return `<p class="meta" id="${id}">${escapeHtml(text)}</p>`;
}

/** One person's page: who they are, their groups, activity, levels, replies given and received. */
export function renderMemberPage(
  page: MemberPage,
  filters: DashboardFilters,
  groups: GroupChoice[],
  paths: MemberPaths
): string {
  const ids = page.participants
    .map((p) => {
      const phone = p.phoneJid ? ` (phone ${maskPhone(phoneDigitsOfJid(p.phoneJid) ?? '')})` : '';
      const next = p.succeededBy ? ` — LID changed, now ${escapeHtml(p.succeededBy)}` : '';
      return `<li>${escapeHtml(participantLabel(p.participantId))}${escapeHtml(phone)}${next}</li>`;
    })
    .join('');
  const names = page.names
    .map(
      (n) =>
        `<tr>${cells([memberLabel({ displayName: n.name, displayNameIsPhone: false }), n.kind, n.firstSeenAt, n.lastSeenAt])}</tr>`
    )
    .join('');
  const groupRows = page.groups
    .map(
      (g) =>
        `<tr>${cells([g.subject ?? g.groupJid, g.role, g.joinedAt?.slice(0, 10) ?? null, g.leftAt?.slice(0, 10) ?? null, g.messages, g.replies, g.reactionsGiven, g.activeDays])}</tr>`
    )
    .join('');
  const levelRows = page.levels
    .map((l) => `<tr>${cells([l.month.slice(0, 7), l.levelName ?? 'none', l.movement])}</tr>`)
    .join('');
  const replyRows = page.replies
    .map(
      (r) =>
        `<tr>${memberCell(memberLabel(r), linkedMemberHref(r.participantId, filters, paths))}${cells([r.repliesGiven, r.mentionsGiven, r.repliesReceived, r.mentionsReceived])}</tr>`
    )
    .join('');
  const unansweredRows = page.unanswered
    .map((u) => `<tr>${cells([u.sentAt, u.groupJid, u.isQuestion ? 'question' : 'first message', u.messageId])}</tr>`)
    .join('');
  const { started, answered, medianMinutes } = page.conversations;
  const activity = renderBrowserChart({
    id: 'member-activity',
    title: 'Activity per day',
    ...chartBody({
      legend: { top: 0 },
      grid: { top: 40, left: 60, right: 20, bottom: 40 },
      xAxis: { type: 'category', data: page.days.map((d) => d.day) },
      yAxis: COUNT_AXIS,
      series: (['messages', 'replies', 'reactionsGiven'] as const).map((key) => ({
        name: key === 'reactionsGiven' ? 'reactions given' : key,
        type: 'bar',
        data: page.days.map((d) => d[key]),
      })),
    }),
  });
  const body = `<dl class="identity" id="identity"><dt>member id</dt><dd>${escapeHtml(page.memberId ?? '—')}</dd>
<dt>counted as</dt><dd>${escapeHtml(participantLabel(page.personKey))}</dd><dt>WhatsApp ids</dt><dd><ul>${ids}</ul></dd>
<dt>conversations started</dt><dd>${String(started)}, ${String(answered)} answered${medianMinutes === null ? '' : `, median first response ${medianMinutes.toFixed(0)} min`}</dd></dl>
<h2>Groups</h2>
<table id="member-groups"><tr><th>group</th><th>role</th><th>joined</th><th>left</th><th>messages</th><th>replies</th><th>reactions given</th><th>active days</th></tr>${groupRows}</table>
${activity}
<h2>Level by month</h2>
<table id="member-levels"><tr><th>month</th><th>level</th><th>movement</th></tr>${levelRows}</table>
<h2>Replies and mentions, given and received</h2>
${listedCount('reply-partners-count', page.replies.length, page.replyPartnersTotal, 'participant', 'the busiest')}
<table id="member-replies"><tr><th>with</th><th>replies given</th><th>mentions given</th><th>replies received</th><th>mentions received</th></tr>${replyRows}</table>
<h2>Unanswered within 24 h</h2>
${listedCount('unanswered-count', page.unanswered.length, page.unansweredTotal, 'message', 'the latest')}
<table id="member-unanswered"><tr><th>sent</th><th>group</th><th>what</th><th>message id</th></tr>${unansweredRows}</table>
<h2>Names seen</h2>
<table id="member-names"><tr><th>name</th><th>kind</th><th>first seen</th><th>last seen</th></tr>${names}</table>`;
  const subject = groups.find((group) => group.groupJid === filters.group)?.subject ?? null;
  const scope =
    filters.group === null ? 'all groups' : `group ${subject ? `${subject} (${filters.group})` : filters.group}`;
  const range = `<p class="meta">${escapeHtml(scope)}, ${escapeHtml(page.from)} to ${escapeHtml(page.to)} (times in ${escapeHtml(page.timeZone)})</p>`;
  return renderDashboardPage({ title: memberLabel(page), filters, groups, body: range + body });
}

/** A page for a request the dashboard cannot answer (bad filter, unknown group or member). */
export function renderErrorPage(
  title: string,
  message: string,
  filters: DashboardFilters,
  groups: GroupChoice[]
): string {
  return renderDashboardPage({ title, filters, groups, body: `<p class="error">${escapeHtml(message)}</p>` });
}
