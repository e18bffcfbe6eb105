import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { queryRows } from '../pool.js';
import { isUuidText } from '../../common/uuid-text.js';

/** State of one template version (ADR 0015). */
export type TemplateVersionStatus = 'draft' | 'approved' | 'archived';

/** One version of a template, as listed and as rendered. */
export interface TemplateVersion {
  templateId: string;
  name: string;
  accountId: string;
  version: number;
  body: string;
  variables: string[];
  status: TemplateVersionStatus;
  createdAt: Date;
}

/** What a send request naming a template can use: the newest approved and the newest unarchived version. */
export interface ResolvedTemplate {
  latestApproved: TemplateVersion | null;
  latest: TemplateVersion | null;
}

const SELECT_VERSIONS = `
  SELECT t.id AS template_id, t.name, t.account_id, v.version, v.body, v.variables, v.status, v.created_at
    FROM send_templates t JOIN send_template_versions v ON v.template_id = t.id`;
// A template is named by its id or its friendly name, within one account.
const MATCHES_REF = `t.account_id = $1 AND (t.name = $2 OR ($3::uuid IS NOT NULL AND t.id = $3::uuid))`;

function toVersion(row: Record<string, unknown>): TemplateVersion {
  return {
    templateId: row['template_id'] as string,
    name: row['name'] as string,
    accountId: row['account_id'] as string,
    version: row['version'] as number,
    body: row['body'] as string,
    variables: row['variables'] as string[],
    status: row['status'] as TemplateVersionStatus,
    createdAt: row['created_at'] as Date,
  };
}

/**
 * Message templates (ADR 0015): the SQL behind `wa-lake templates add|list|approve|archive`
 * and the send API's template lookup. Methods throw DatabaseUnavailableError / DatabaseBusyError when
 * PostgreSQL cannot serve them.
 */
export class SendTemplatesRepository {
  constructor(private readonly pool: pg.Pool) {}

  private run(sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
    return queryRows<Record<string, unknown>>(this.pool, sql, params);
  }

  /**
   * Adds a new `draft` version of the template `name` of `accountId` (creating the template on first use).
   * @returns the template id and the new version number (1 for a new template).
   */
  async addVersion(input: {
    accountId: string;
    name: string;
    body: string;
    variables: readonly string[];
  }): Promise<{ templateId: string; version: number }> {
    const rows = await this.run(
      `WITH t AS (
         INSERT INTO send_templates (id, account_id, name) VALUES ($1, $2, $3)
         ON CONFLICT (account_id, name) DO UPDATE SET name = EXCLUDED.name
         RETURNING id
       )
       INSERT INTO send_template_versions (template_id, version, body, variables)
       SELECT t.id, COALESCE((SELECT max(version) FROM send_template_versions WHERE template_id = t.id), 0) + 1, $4, $5
         FROM t
       RETURNING template_id, version`,
      [randomUUID(), input.accountId, input.name, input.body, input.variables]
    );
    return { templateId: rows[0]?.['template_id'] as string, version: rows[0]?.['version'] as number };
  }

  /** Every version of the account's templates, by name then version. */
  async list(accountId: string): Promise<TemplateVersion[]> {
    const rows = await this.run(`${SELECT_VERSIONS} WHERE t.account_id = $1 ORDER BY t.name, v.version`, [accountId]);
    return rows.map(toVersion);
  }

  /** The newest approved and newest unarchived versions of the template `ref` (id or name). */
  async resolve(accountId: string, ref: string): Promise<ResolvedTemplate> {
    const rows = await this.run(
      `${SELECT_VERSIONS} WHERE ${MATCHES_REF} AND v.status <> 'archived' ORDER BY v.version DESC`,
      [accountId, ref, isUuidText(ref) ? ref : null]
    );
    const versions = rows.map(toVersion);
    return { latest: versions[0] ?? null, latestApproved: versions.find((v) => v.status === 'approved') ?? null };
  }

  /**
   * Approves one version (`version`, or the newest draft when null). @returns the approved versions (empty when
   * there was no such draft).
   */
  async approve(accountId: string, ref: string, version: number | null): Promise<TemplateVersion[]> {
    return this.setStatus(accountId, ref, version, 'approved', `v.status = 'draft'`);
  }

  /** Archives one version, or every unarchived version when `version` is null. @returns the archived versions. */
  async archive(accountId: string, ref: string, version: number | null): Promise<TemplateVersion[]> {
    return this.setStatus(accountId, ref, version, 'archived', `v.status <> 'archived'`);
  }

  private async setStatus(
    accountId: string,
    ref: string,
    version: number | null,
    status: 'approved' | 'archived',
    from: string
  ): Promise<TemplateVersion[]> {
    const stamp = status === 'approved' ? 'approved_at' : 'archived_at';
    // Approving without a version takes the newest draft only; archiving without one takes them all.
    const pick =
      version !== null
        ? 'AND v.version = $4'
        : status === 'approved'
          ? `AND v.version = (SELECT max(d.version) FROM send_template_versions d
                               WHERE d.template_id = t.id AND d.status = 'draft')`
          : '';
    const rows = await this.run(
      `WITH target AS (
         SELECT v.template_id, v.version FROM send_templates t JOIN send_template_versions v ON v.template_id = t.id
          WHERE ${MATCHES_REF} AND ${from} ${pick}
       )
       UPDATE send_template_versions v SET status = '${status}', ${stamp} = now()
         FROM target WHERE v.template_id = target.template_id AND v.version = target.version
       RETURNING v.template_id, v.version`,
      version !== null
        ? [accountId, ref, isUuidText(ref) ? ref : null, version]
        : [accountId, ref, isUuidText(ref) ? ref : null]
    );
    const changed = new Set(rows.map((row) => `${String(row['template_id'])}#${String(row['version'])}`));
    return (await this.list(accountId)).filter((v) => changed.has(`${v.templateId}#${v.version}`));
  }
}
