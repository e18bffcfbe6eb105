import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { findControlCharacter } from '../../common/control-character.js';
import type { Logger } from '../../common/logger.js';
import { isWellFormedGroupJid } from '../../common/whatsapp-jid.js';
import {
  InvertedReportRangeError,
  ReportRangeTooLongError,
  UnknownReportGroupError,
  listGroups,
  KeptEngagementReports,
  readMemberPage,
  searchMembers,
  type MemberPage,
} from '../../lake/index.js';
import { resolveEchartsBundle } from '../report/echarts-bundles.js';
import { isReportDay, REPORT_DAY_RULE } from '../report/report-day.js';
import { DASHBOARD_CLIENT_SCRIPT } from './dashboard-client-script.js';
import {
  DASHBOARD_CSP,
  hrefWith,
  memberHref,
  renderErrorPage,
  renderMemberPage,
  renderOverviewPage,
  renderSearchPage,
  type DashboardFilters,
  type GroupChoice,
} from './dashboard-pages.js';
import { startKeptReportRefresher, type KeptReportRefresher } from './kept-report-refresher.js';
import { memberPathsFor } from './member-paths.js';

/** Dependencies of {@link buildDashboardApp}. */
export interface DashboardDeps {
  pool: pg.Pool;
  /** The Basic auth password (any user name) or bearer token; ≥ 16 characters. */
  token: string;
  logger: Logger;
  /**
   * How old the overview's numbers may be (ADR 0034): a report counted at most this long ago is served from
   * `engagement_kept_reports`, and a refresher recounts the pages asked for before they reach it. 0 (the default
   * here) counts every page: exact at commit.
   */
  reportMaxAgeMs?: number;
}

/** The overview with no filter: counted as the dashboard starts, so the first page is served kept. */
const OVERVIEW = { groupJid: null, from: null, to: null, lurkerDays: 30, topMembers: 15 } as const;

// An optional filter: absent or empty is none. The group and member boxes forgive spaces around the text; a day is
// read as `wa-lake report` reads `--from`/`--to`, so `" 2025-06-01"` is refused, not trimmed.
const optional = (
  check: (value: string) => boolean,
  message: string,
  isTrimmed = true
): z.ZodType<string | null, unknown> =>
  z
    .string()
    .optional()
    .transform((value) => {
      const text = isTrimmed ? value?.trim() : value;
      return text === undefined || text === '' ? null : text;
    })
    .refine((value) => value === null || check(value), message);

// The query of every page; `member` is the member filter's text (a name, participant id or member id).
const querySchema = z.object({
  group: optional(isWellFormedGroupJid, 'group must be a group JID such as 120363…@g.us'),
  from: optional(isReportDay, `from must be a day as ${REPORT_DAY_RULE}, without spaces`, false),
  to: optional(isReportDay, `to must be a day as ${REPORT_DAY_RULE}, without spaces`, false),
  member: z.string().max(200, 'member must be at most 200 characters').optional(),
});
type DashboardQuery = z.output<typeof querySchema>;

/** Why the filters of a query cannot be read before their own rules: one given twice, or a control character. */
function describeMalformedFilters(query: unknown): string | undefined {
  const values = typeof query === 'object' && query !== null ? (query as Record<string, unknown>) : {};
  for (const key of Object.keys(querySchema.shape)) {
    const value = values[key];
    if (Array.isArray(value)) return `give each filter once: ${key} was given ${String(value.length)} times`;
    const control = typeof value === 'string' ? findControlCharacter(value) : null;
    if (control !== null) return `${key} must not contain a control character (${control.codePoint})`;
  }
  return undefined;
}

/** The most hits the member search lists; the page says how many match in all. */
const SEARCH_HITS_LISTED = 50;

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** The password of a Basic credential, or the bearer token; undefined without either. */
function presentedSecret(authorization: string | undefined): string | undefined {
  const [scheme, value] = (authorization ?? '').split(' ', 2);
  if (scheme?.toLowerCase() === 'bearer') return value;
  if (scheme?.toLowerCase() !== 'basic' || value === undefined) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/**
 * Builds `wa-lake dashboard` (ADR 0025, docs/engagement.md "Dashboard") without listening: the report's
 * pages with group, period and member filters (`/`), a member search (`/members?member=…`) and a page per person
 * (`/members/<participant>`), every request behind HTTP Basic auth (password = the token, any user name) or a
 * bearer token. Pages come with a CSP that lets them load scripts from the dashboard only: its own script and the
 * ECharts bundle it serves from node_modules. Request URLs are not logged (they may name members).
 */
export function buildDashboardApp(deps: DashboardDeps): FastifyInstance {
  const loggerInstance: FastifyBaseLogger = deps.logger.child({ component: 'dashboard' });
  const app = Fastify({
    loggerInstance,
    logController: new LogController({ disableRequestLogging: true }),
  });
  const tokenDigest = digest(deps.token);
  const paths = memberPathsFor(deps.token);
  // The bundled ECharts (no CDN: the page makes no request outside the dashboard), read once as the dashboard
  // starts: importing this module reads nothing, and a missing bundle stops the start instead of a page.
  const echartsBundle = readFileSync(resolveEchartsBundle('browser'));
  const maxAgeMs = deps.reportMaxAgeMs ?? 0;
  const keptReports = new KeptEngagementReports(deps.pool, maxAgeMs);
  let refresher: KeptReportRefresher | null = null;
  if (maxAgeMs > 0) {
    app.addHook('onReady', (done) => {
      refresher = startKeptReportRefresher(keptReports, {
        intervalMs: Math.min(60_000, Math.max(1_000, Math.round(maxAgeMs / 4))),
        warm: OVERVIEW,
        logger: deps.logger.child({ component: 'dashboard' }),
      });
      done();
    });
    app.addHook('onClose', async () => refresher?.stop());
  }

  app.addHook('onRequest', async (request, reply) => {
    const secret = presentedSecret(request.headers.authorization);
    if (secret === undefined || !timingSafeEqual(digest(secret), tokenDigest)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Basic realm="wa-lake dashboard", charset="UTF-8"')
        .type('text/plain; charset=utf-8')
        .send('the dashboard token is required (Basic auth password or Bearer token)');
    }
    void reply
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store');
  });

  const html = (reply: FastifyReply, page: string, status = 200): FastifyReply =>
    reply.code(status).type('text/html; charset=utf-8').send(page);
  // A refused query: "Bad period" for a from after its to, as the pages say when a defaulted end makes it so.
  const parseQuery = (
    query: unknown
  ): { filters: DashboardFilters; query: DashboardQuery } | { title: string; refusal: string } => {
    const malformed = describeMalformedFilters(query);
    if (malformed !== undefined) return { title: 'Bad filter', refusal: malformed };
    const parsed = querySchema.safeParse(query);
    if (!parsed.success)
      return { title: 'Bad filter', refusal: parsed.error.issues.map((issue) => issue.message).join('; ') };
    const { group, from, to } = parsed.data;
    if (from !== null && to !== null && from > to)
      return { title: 'Bad period', refusal: `from ${from} is after to ${to}` };
    return { filters: { group, from, to }, query: parsed.data };
  };
  const groups = (): Promise<GroupChoice[]> => listGroups(deps.pool);
  const empty: DashboardFilters = { group: null, from: null, to: null };

  // A failure the pages do not name (the lake unreachable, a query refused) is logged, never shown: its text may be
  // PostgreSQL's and name tables, and the page says only where to look.
  app.setErrorHandler(async (err, request, reply) => {
    const status = typeof err === 'object' && err !== null && 'statusCode' in err ? Number(err.statusCode) : 500;
    if (status >= 400 && status < 500)
      return reply.code(status).type('text/plain; charset=utf-8').send('the request is not one the dashboard reads');
    loggerInstance.error({ err }, 'dashboard page failed');
    // The form keeps the filters asked for, so the same page is one click away once the lake answers again.
    const parsed = parseQuery(request.query);
    const page = renderErrorPage(
      'Dashboard error',
      'the page could not be read from the lake: see the dashboard log',
      'refusal' in parsed ? empty : parsed.filters,
      []
    );
    return html(reply, page, 500);
  });

  app.get('/', async (request, reply) => {
    const parsed = parseQuery(request.query);
    if ('refusal' in parsed)
      return html(reply, renderErrorPage(parsed.title, parsed.refusal, empty, await groups()), 400);
    const { filters, query } = parsed;
    if (query.member?.trim()) return reply.redirect(hrefWith('/members', filters, { member: query.member.trim() }));
    try {
      const { report, asOf } = await keptReports.read({
        ...OVERVIEW,
        groupJid: filters.group,
        from: filters.from,
        to: filters.to,
      });
      return html(reply, renderOverviewPage(report, filters, await groups(), paths, { asOf, maxAgeMs }));
    } catch (err) {
      if (err instanceof UnknownReportGroupError)
        return html(reply, renderErrorPage('Unknown group', err.message, empty, await groups()), 404);
      if (err instanceof InvertedReportRangeError)
        return html(
          reply,
          renderErrorPage(
            'Bad period',
            err.describe((end) => end),
            filters,
            await groups()
          ),
          400
        );
      if (err instanceof ReportRangeTooLongError)
        return html(reply, renderErrorPage('Bad period', err.message, filters, await groups()), 400);
      throw err;
    }
  });

  app.get('/members', async (request, reply) => {
    const parsed = parseQuery(request.query);
    if ('refusal' in parsed)
      return html(reply, renderErrorPage(parsed.title, parsed.refusal, empty, await groups()), 400);
    const text = parsed.query.member?.trim() ?? '';
    const search = text === '' ? { hits: [], total: 0 } : await searchMembers(deps.pool, text, SEARCH_HITS_LISTED);
    const [only] = search.hits;
    if (search.total === 1 && only) return reply.redirect(memberHref(only.participantId, parsed.filters, paths));
    return html(reply, renderSearchPage(text, search, parsed.filters, await groups(), paths));
  });

  app.get<{ Params: { participant: string } }>('/members/:participant', async (request, reply) => {
    const parsed = parseQuery(request.query);
    if ('refusal' in parsed)
      return html(reply, renderErrorPage(parsed.title, parsed.refusal, empty, await groups()), 400);
    const participantId = paths.participantOf(request.params.participant);
    const { filters } = parsed;
    let page: MemberPage | null;
    try {
      page =
        participantId === undefined
          ? null
          : await readMemberPage(deps.pool, {
              participantId,
              groupJid: filters.group,
              from: filters.from,
              to: filters.to,
            });
    } catch (err) {
      if (err instanceof UnknownReportGroupError)
        return html(reply, renderErrorPage('Unknown group', err.message, empty, await groups()), 404);
      if (err instanceof InvertedReportRangeError) {
        const why = `from ${err.from} is after to ${err.to} (the day of the lake's last message when to is not given)`;
        return html(reply, renderErrorPage('Bad period', why, filters, await groups()), 400);
      }
      throw err;
    }
    if (page === null)
      return html(
        reply,
        renderErrorPage('Unknown member', 'the lake has not seen this member', filters, await groups()),
        404
      );
    return html(reply, renderMemberPage(page, filters, await groups(), paths));
  });

  app.get('/assets/echarts.min.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'max-age=86400').send(echartsBundle)
  );
  app.get('/assets/dashboard.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(DASHBOARD_CLIENT_SCRIPT)
  );
  return app;
}
