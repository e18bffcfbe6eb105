/**
 * SQL expressions naming the three inputs of the allow-list for one recipient: each must be a column (or
 * parameter) reachable from the row the {@link recipientAllowListJoins} are added to.
 */
export interface AllowListInputs {
  /** The sending account (`varchar(100)`, e.g. `ak.account_id`). */
  accountId: string;
  /** The normalized recipient JID (`text`: a phone JID or a group JID). */
  toJid: string;
  /** `boolean`: true for a group JID, false for a phone JID. */
  isGroup: string;
}

/**
 * The send allow-list (architecture.md §12 "Validation before accepting", ADR 0009), written once for
 * both places that apply it: the accept statement (`send-intent-statement.ts`) and the ask-only check
 * `SendAdminRepository.isRecipientAllowed` (which the send demo waits on). Allowed: a phone JID with an
 * opt-in for the account; a group known to the lake (the collector snapshots every group it is in) in
 * which, when the account's own participant ids are recorded (`send_accounts`), one of them is a current
 * member (no `left_at`).
 *
 * Every lookup is a `LATERAL (… LIMIT 1)`, which the planner cannot flatten into a join: it stays an
 * index probe per row whatever it estimates for the rows it is joined to (as a plain join, the accept
 * statement's generic plan scanned whole tables). Table aliases start with `allow_`.
 *
 * @param inputs SQL expressions for the account, the recipient JID and whether it is a group; they are
 *   pasted into the SQL, so they must be trusted text (column names), never request values.
 * @returns the `LEFT JOIN LATERAL …` clauses to append after the `FROM` item that provides `inputs`.
 */
export function recipientAllowListJoins(inputs: AllowListInputs): string {
  const { accountId, toJid, isGroup } = inputs;
  return `
      LEFT JOIN LATERAL (SELECT participant_ids FROM send_accounts WHERE account_id = ${accountId} LIMIT 1) allow_acct ON true
      LEFT JOIN LATERAL (SELECT true AS ok FROM whatsapp_groups WHERE ${isGroup} AND jid = ${toJid} LIMIT 1) allow_grp ON true
      LEFT JOIN LATERAL (SELECT true AS ok FROM whatsapp_group_memberships
                          WHERE ${isGroup} AND group_jid = ${toJid} AND left_at IS NULL
                            AND participant_id = ANY (allow_acct.participant_ids) LIMIT 1) allow_member ON true
      LEFT JOIN LATERAL (SELECT true AS ok FROM send_opt_ins
                          WHERE NOT ${isGroup} AND account_id = ${accountId} AND phone_jid = ${toJid} LIMIT 1) allow_opt ON true`;
}

/**
 * The allow-list's verdict (architecture.md §12, ADR 0009; the rule is stated on
 * {@link recipientAllowListJoins}) as a `boolean` SQL expression over the `allow_*` aliases those joins
 * add: true when the recipient is allowed, never null.
 *
 * @param isGroup the same trusted SQL expression passed as `inputs.isGroup` to the joins.
 */
export function recipientIsAllowedSql(isGroup: string): string {
  return `CASE
             WHEN ${isGroup} THEN allow_grp.ok IS NOT NULL
               AND (COALESCE(cardinality(allow_acct.participant_ids), 0) = 0 OR allow_member.ok IS NOT NULL)
             ELSE allow_opt.ok IS NOT NULL
           END`;
}
