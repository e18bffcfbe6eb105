import type { Command } from 'commander';
import { z } from 'zod';
import { envPostgresUrl, parseConfig } from '../../common/config-schema.js';
import { createPool, normalizeRecipient, SendAdminRepository } from '../../lake/index.js';
import { printLine } from './shared.js';

const DEFAULT_ACCOUNT = 'default';

async function withAdmin(run: (admin: SendAdminRepository) => Promise<void>): Promise<void> {
  const { DATABASE_URL } = parseConfig(z.object({ DATABASE_URL: envPostgresUrl }), process.env);
  const pool = createPool(DATABASE_URL, { max: 1 });
  try {
    await run(new SendAdminRepository(pool));
  } finally {
    await pool.end();
  }
}

function toRecipientJid(value: string): string {
  const recipient = normalizeRecipient(value);
  if (!recipient) throw new Error(`"${value}" is neither a phone number with country code nor a group JID`);
  return recipient.jid;
}

/**
 * Registers `wa-lake test-recipients add|remove|list` and `wa-lake accounts approve` (ADR 0015, ADR
 * 0015): a test key sends only to the account's test recipients, a live key only for an approved account.
 */
export function registerSendEnvironmentCommands(program: Command): void {
  const recipients = program
    .command('test-recipients')
    .description('the numbers and groups a test API key may send to');
  recipients
    .command('add')
    .argument('<recipient>', 'international number (digits with country code) or group JID')
    .option('--account <id>', 'sending account', DEFAULT_ACCOUNT)
    .option('--note <text>', 'whose number it is')
    .action(async (value: string, options: { account: string; note?: string }) => {
      const jid = toRecipientJid(value);
      await withAdmin(async (admin) => {
        await admin.addTestRecipient(options.account, jid, options.note ?? null);
        printLine(`test recipient ${jid} added for account ${options.account}`);
      });
    });
  recipients
    .command('remove')
    .argument('<recipient>')
    .option('--account <id>', 'sending account', DEFAULT_ACCOUNT)
    .action(async (value: string, options: { account: string }) => {
      const jid = toRecipientJid(value);
      await withAdmin(async (admin) => {
        const removed = await admin.removeTestRecipient(options.account, jid);
        printLine(removed > 0 ? `test recipient ${jid} removed` : `no test recipient ${jid}`);
      });
    });
  recipients
    .command('list')
    .option('--account <id>', 'sending account', DEFAULT_ACCOUNT)
    .action(async (options: { account: string }) => {
      await withAdmin(async (admin) => {
        const entries = await admin.listTestRecipients(options.account);
        if (entries.length === 0) printLine(`no test recipients for account ${options.account}`);
        for (const entry of entries) printLine(`${entry.jid}  ${entry.createdAt.toISOString()}  ${entry.note ?? ''}`);
      });
    });

  const accounts = program.command('accounts').description('sending accounts of the send API');
  accounts
    .command('approve')
    .description('approve an account for live sending (its live keys work from now on)')
    .argument('<account>')
    .action(async (accountId: string) => {
      await withAdmin(async (admin) => {
        // A mistyped id would approve an account nobody uses: approved all the same, but said (as `members link`).
        if (!(await admin.isKnownAccount(accountId)))
          process.stderr.write(
            `warning: no API key names the account ${accountId} yet; it is approved for live sending all the same ` +
              '(check the id: wa-lake api-keys list)\n'
          );
        const changed = await admin.approveAccount(accountId);
        printLine(
          changed ? `account ${accountId} approved for live sending` : `account ${accountId} was already approved`
        );
      });
    });
}
