import type pg from 'pg';

/**
 * A warning when `ENGAGEMENT_TIME_ZONE` names another zone than the one the lake stores (ADR 0029): the variable
 * is read by `wa-lake rebuild` only (docs/configuration.md), so a user who sets it and runs `report` or
 * `import-export` would otherwise read days in a zone they did not choose without being told. Null when they agree
 * or the variable is unset. A value that is no IANA zone (`Mars/Base`) is said to be one, not advised to rebuild.
 */
export async function engagementZoneWarning(pool: pg.Pool, env: NodeJS.ProcessEnv): Promise<string | null> {
  const wanted = env['ENGAGEMENT_TIME_ZONE']?.trim();
  if (!wanted) return null;
  // Advising `wa-lake rebuild` for a zone it then refuses would send the user in a circle.
  if (!isIanaTimeZone(wanted)) {
    return (
      `warning: ENGAGEMENT_TIME_ZONE is ${wanted}, which is not a valid IANA time zone (such as America/Sao_Paulo ` +
      'or UTC); fix or unset it: `wa-lake rebuild` refuses it\n'
    );
  }
  const { rows } = await pool.query<{ tz: string }>('SELECT wa_engagement_time_zone() AS tz');
  const stored = rows[0]?.tz ?? 'UTC';
  return wanted === stored
    ? null
    : `warning: ENGAGEMENT_TIME_ZONE is ${wanted}, but the lake's engagement days and the default zone of ` +
        `import-export are ${stored}, stored by the last \`wa-lake rebuild\`; run \`wa-lake rebuild\` to store ${wanted}\n`;
}

/** Whether `zone` is a time zone name this Node knows (IANA, as `Intl` reads it). */
export function isIanaTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
