import { type Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { envPostgresUrl, parseConfig } from '../../common/config-schema.js';
import { envPayloadEncryptionKeys, type PayloadEncryptionKeys } from '../../common/payload-encryption-keys.js';
import { generateWebhookSecret } from '../../common/standard-webhook-signature.js';
import { sealWebhookSecret } from '../../common/webhook-secret-box.js';
import { checkWebhookUrl, resolveAllWithDns, webhookUrlPolicyFromEnv } from '../../common/webhook-url-policy.js';
import { phoneDigitsOfJid } from '../../common/whatsapp-jid.js';
import {
  type ApiKeyRecord,
  type SendEnvironment,
  createPool,
  generateApiKey,
  normalizeRecipient,
  SendAdminRepository,
} from '../../lake/index.js';
import { planWebhookChange } from './api-key-webhook.js';
import { ChangeNotConfirmedError, confirmChange } from './confirm.js';
import { integerInRange } from './option-parsers.js';
import { failLine, printLine } from './shared.js';

const DEFAULT_ACCOUNT = 'default';
/** Shortest id or key prefix `api-keys revoke` acts on without `--yes` (ADR 0014 decision 5). */
const MIN_REVOKE_PREFIX = 8;

async function withAdmin(
  run: (admin: SendAdminRepository, encryptionKeys: PayloadEncryptionKeys) => Promise<void>
): Promise<void> {
  const { DATABASE_URL, PAYLOAD_ENCRYPTION_KEYS } = parseConfig(
    z.object({ DATABASE_URL: envPostgresUrl, PAYLOAD_ENCRYPTION_KEYS: envPayloadEncryptionKeys }),
    process.env
  );
  const pool = createPool(DATABASE_URL, { max: 1 });
  try {
    await run(new SendAdminRepository(pool), PAYLOAD_ENCRYPTION_KEYS);
  } finally {
    await pool.end();
  }
}

/**
 * The webhook URL as stored, after the save-time check of ADR 0014 (scheme, credentials, every notation of a
 * private address, and every address the name resolves to now). A note is printed when the name does not
 * resolve yet.
 * @throws Error naming the URL and why it is refused.
 */
async function toWebhookUrl(value: string): Promise<string> {
  const checked = await checkWebhookUrl(value, webhookUrlPolicyFromEnv(process.env), resolveAllWithDns);
  if (!checked.ok) throw new Error(`webhook URL "${value}" is refused: it ${checked.reason}`);
  if (checked.note !== null) printLine(`note: ${checked.note}`);
  return checked.url;
}

interface CreateKeyOptions {
  name: string;
  account: string;
  webhookUrl?: string;
  self?: string[];
  yes?: boolean;
  daily?: number;
  monthly?: number;
  environment: SendEnvironment;
}

function toEnvironment(value: string): SendEnvironment {
  if (value !== 'test' && value !== 'live') throw new InvalidArgumentError('must be test or live.');
  return value;
}

/** One line per key, as `api-keys list` and an ambiguous `revoke` print it. */
function describeKey(key: ApiKeyRecord): string {
  const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active';
  const quota = `daily ${key.dailyLimit ?? '-'} monthly ${key.monthlyLimit ?? '-'}`;
  const account = key.isAccountApproved ? 'approved' : 'not approved';
  return `${key.id}  ${key.keyPrefix}…  ${key.accountId} (${account})  ${key.name}  ${key.environment}  ${state}  ${quota}`;
}

function toPhoneJid(phone: string): string {
  const recipient = normalizeRecipient(phone);
  if (recipient?.kind !== 'phone') throw new Error(`"${phone}" is not a phone number with country code`);
  return recipient.jid;
}

/**
 * Shows how `--self` changes the account's own ids (every key of the account uses them, and a wrong id breaks
 * its group sends) and asks for confirmation when it replaces ids already set (ADR 0014 decision 5).
 * @throws ChangeNotConfirmedError when a replacement is not confirmed; nothing is created then.
 */
async function confirmSelfChange(
  admin: SendAdminRepository,
  accountId: string,
  next: readonly string[],
  yes: boolean | undefined
): Promise<void> {
  const current = await admin.findAccountParticipants(accountId);
  const same = current.length === next.length && current.every((id) => next.includes(id));
  if (same) return;
  const shown = (ids: readonly string[]): string => (ids.length === 0 ? '(none)' : ids.join(' '));
  printLine(`account ${accountId}: own ids ${shown(current)} -> ${shown(next)} (for every key of the account)`);
  if (current.length === 0) return;
  if (!(await confirmChange(`replace the own ids of account ${accountId}?`, yes))) {
    throw new ChangeNotConfirmedError(`replacing the own ids of account ${accountId}`);
  }
}

/**
 * The one key `idOrPrefix` names (an unambiguous prefix of its id or shown key prefix), or null after saying why
 * not (no match, or the matches listed) with exit code 1.
 */
async function findOneKey(admin: SendAdminRepository, idOrPrefix: string): Promise<ApiKeyRecord | null> {
  const matches = await admin.findApiKeysByPrefix(idOrPrefix);
  const exact = matches.filter((key) => key.id === idOrPrefix.toLowerCase() || key.keyPrefix === idOrPrefix);
  const chosen = exact.length === 1 ? exact : matches;
  if (chosen.length === 1) return chosen[0] ?? null;
  if (chosen.length === 0) failLine(`no API key whose id or key prefix starts with ${idOrPrefix}`);
  else
    failLine(
      `${idOrPrefix} matches ${chosen.length} keys; give more of the id or key prefix:`,
      ...chosen.map(describeKey)
    );
  return null;
}

/**
 * `wa-lake api-keys webhook <key> [--url U] [--rotate-secret] [--remove]` (ADR 0017): changes where a key's status
 * webhooks go and the secret they are signed with, without a new key. A new secret is printed once.
 */
async function changeKeyWebhook(
  idOrPrefix: string,
  options: { url?: string; rotateSecret?: boolean; remove?: boolean; yes?: boolean }
): Promise<void> {
  const url = options.url === undefined ? undefined : await toWebhookUrl(options.url);
  await withAdmin(async (admin, encryptionKeys) => {
    const key = await findOneKey(admin, idOrPrefix);
    if (key === null) return;
    const label = `key ${key.id} (${key.keyPrefix}…)`;
    const plan = planWebhookChange(key, { ...options, url });
    if (plan.kind === 'change' && idOrPrefix.length < MIN_REVOKE_PREFIX && options.yes !== true) {
      failLine(
        `refused: "${idOrPrefix}" is shorter than ${MIN_REVOKE_PREFIX} characters; give more of the id or ` +
          'key prefix (wa-lake api-keys list), or pass --yes'
      );
      return;
    }
    if (plan.kind === 'refuse') {
      failLine(`refused for ${label}: ${plan.reason}`);
      return;
    }
    if (plan.kind === 'show') {
      printLine(
        `${label}: webhook URL ${key.webhookUrl ?? '(none)'}, signing secret ${key.hasWebhookSecret ? 'set' : 'none'}`
      );
      return;
    }
    const secret = plan.newSecret ? generateWebhookSecret() : null;
    await admin.updateApiKeyWebhook(key.id, {
      ...(plan.webhookUrl === undefined ? {} : { webhookUrl: plan.webhookUrl }),
      ...(secret === null ? {} : { sealedWebhookSecret: sealWebhookSecret(secret, encryptionKeys) }),
    });
    if (plan.webhookUrl === null) printLine(`${label}: webhook removed; its messages send no more status webhooks`);
    else if (plan.webhookUrl !== undefined)
      printLine(`${label}: webhook URL ${key.webhookUrl ?? '(none)'} -> ${plan.webhookUrl}`);
    if (secret !== null) {
      printLine(`webhook signing secret: ${secret}`);
      printLine(
        'store it now: it is not shown again. Webhooks from now on are signed with it; the receiver’s refusals ' +
          'meanwhile (401/403) are retried and alerted (status_webhook_unauthorized) until it verifies with it'
      );
      if (!encryptionKeys)
        printLine('note: PAYLOAD_ENCRYPTION_KEYS is unset, so the webhook secret is stored in clear');
    }
  });
}

/**
 * Registers `wa-lake api-keys create|list|revoke` and `wa-lake opt-in add|remove|list` (architecture.md §12,
 * ADR 0009). Keys are printed once at creation; only their SHA-256 is stored.
 */
export function registerSendAdminCommands(program: Command): void {
  const keys = program.command('api-keys').description('API keys of the send API (POST /api/v1/messages)');
  keys
    .command('create')
    .description('create a key and print it once')
    .requiredOption('--name <name>', 'who uses the key')
    .option('--account <id>', 'sending account (one collector per account)', DEFAULT_ACCOUNT)
    .option('--webhook-url <url>', 'where state changes of this key’s messages are POSTed')
    .option(
      '--self <participantId...>',
      'the account’s own LID / phone JID, to check group membership (replaces them for every key of the account)'
    )
    .option('--yes', 'confirm a --self change without being asked')
    .option(
      '--environment <env>',
      'test (only to test recipients) or live (approved accounts only)',
      toEnvironment,
      'live'
    )
    .option('--daily <n>', 'most messages accepted per UTC day (429 beyond)', integerInRange(0, 2_000_000_000))
    .option('--monthly <n>', 'most messages accepted per UTC month (429 beyond)', integerInRange(0, 2_000_000_000))
    .action(async (options: CreateKeyOptions) => {
      const webhookUrl = options.webhookUrl === undefined ? null : await toWebhookUrl(options.webhookUrl);
      await withAdmin(async (admin, encryptionKeys) => {
        if (options.self) await confirmSelfChange(admin, options.account, options.self, options.yes);
        const generated = generateApiKey();
        // Status webhooks (ADR 0011): a per-key Standard Webhooks secret, shown once.
        const webhookSecret = webhookUrl === null ? null : generateWebhookSecret();
        const id = await admin.createApiKey({
          name: options.name,
          accountId: options.account,
          keyHash: generated.hash,
          keyPrefix: generated.prefix,
          webhookUrl,
          sealedWebhookSecret: webhookSecret === null ? null : sealWebhookSecret(webhookSecret, encryptionKeys),
          environment: options.environment,
          dailyLimit: options.daily ?? null,
          monthlyLimit: options.monthly ?? null,
        });
        if (options.self) await admin.setAccountParticipants(options.account, options.self);
        printLine(`created key ${id} (${generated.prefix}…) for account ${options.account} (${options.environment})`);
        const [created] = await admin.findApiKeysByPrefix(id);
        if (options.environment === 'live' && created?.isAccountApproved === false) {
          printLine(
            `note: account ${options.account} is not approved for live sending: wa-lake accounts approve ${options.account}`
          );
        }
        printLine(`x-api-key: ${generated.key}`);
        if (webhookSecret !== null) {
          printLine(`webhook signing secret: ${webhookSecret}`);
          if (!encryptionKeys)
            printLine('note: PAYLOAD_ENCRYPTION_KEYS is unset, so the webhook secret is stored in clear');
        }
        printLine('store them now: they are not shown again (only the key’s hash is kept)');
      });
    });
  keys
    .command('list')
    .description('list keys (prefix, account, state)')
    .action(async () => {
      await withAdmin(async (admin) => {
        const all = await admin.listApiKeys();
        if (all.length === 0) printLine('no API keys (create one with: wa-lake api-keys create --name <name>)');
        else printLine('id  key prefix  account (approval)  name  environment  state  quota');
        for (const key of all) printLine(describeKey(key));
      });
    });
  keys
    .command('revoke')
    .description(
      `revoke a key by an unambiguous prefix (at least ${MIN_REVOKE_PREFIX} characters) of its id or shown key prefix`
    )
    .argument('<idOrPrefix>')
    .option('--yes', `revoke on a prefix shorter than ${MIN_REVOKE_PREFIX} characters when it matches one key`)
    .action(async (idOrPrefix: string, options: { yes?: boolean }) => {
      if (idOrPrefix.length < MIN_REVOKE_PREFIX && options.yes !== true) {
        failLine(
          `refused: "${idOrPrefix}" is shorter than ${MIN_REVOKE_PREFIX} characters; give more of the id or ` +
            'key prefix (wa-lake api-keys list), or pass --yes'
        );
        return;
      }
      await withAdmin(async (admin) => {
        const key = await findOneKey(admin, idOrPrefix);
        if (key === null) return;
        if (key.revokedAt !== null || !(await admin.revokeApiKey(key.id))) {
          // Idempotent: the operator's intent (this key no longer works) already holds.
          printLine(`key ${key.id} (${key.keyPrefix}…) was already revoked`);
        } else {
          printLine(`revoked key ${key.id} (${key.keyPrefix}…)`);
        }
      });
    });

  keys
    .command('webhook')
    .description('change where a key’s status webhooks go (--url), its signing secret (--rotate-secret), or remove it')
    .argument('<idOrPrefix>', 'an unambiguous prefix of the key’s id or shown key prefix')
    .option('--url <url>', 'the new webhook URL (a key without a signing secret gets one)')
    .option('--rotate-secret', 'a new signing secret, printed once')
    .option('--remove', 'no more status webhooks for this key’s messages')
    .option('--yes', `change on a prefix shorter than ${MIN_REVOKE_PREFIX} characters when it matches one key`)
    .action(changeKeyWebhook);

  keys
    .command('enable-webhook')
    .description("send status changes to a key's webhook again after it was disabled (5 days failing, or 410)")
    .argument('<idOrPrefix>', `the key's id or shown key prefix (at least ${MIN_REVOKE_PREFIX} characters)`)
    .action(async (idOrPrefix: string) => {
      await withAdmin(async (admin) => {
        const matches = idOrPrefix.length < MIN_REVOKE_PREFIX ? [] : await admin.findApiKeysByPrefix(idOrPrefix);
        const [key] = matches;
        if (key === undefined || matches.length > 1) {
          failLine(
            key === undefined
              ? `no API key whose id or key prefix starts with ${idOrPrefix} (give at least ${MIN_REVOKE_PREFIX} characters)`
              : `${idOrPrefix} matches ${matches.length} keys; give more of the id or key prefix`
          );
          return;
        }
        const reason = await admin.enableStatusWebhook(key.id);
        printLine(
          reason === null
            ? `the status webhook of key ${key.id} (${key.keyPrefix}…) was not disabled`
            : `enabled the status webhook of key ${key.id} (${key.keyPrefix}…) again; it had been disabled: ${reason}. ` +
                'Status changes while it was disabled were not sent.'
        );
      });
    });

  const optIn = program.command('opt-in').description('numbers that agreed to receive direct messages');
  optIn
    .command('add')
    .argument('<phone>', 'international number, digits with country code')
    .option('--account <id>', 'sending account', DEFAULT_ACCOUNT)
    .option('--note <text>', 'where the consent came from')
    .action(async (phone: string, options: { account: string; note?: string }) => {
      await withAdmin(async (admin) => {
        const jid = toPhoneJid(phone);
        await admin.addOptIn(options.account, jid, options.note ?? null);
        // The number as stored, so a typo in the input shows before the first send.
        printLine(`opted in +${phoneDigitsOfJid(jid) ?? ''} (${jid}) for account ${options.account}`);
      });
    });
  optIn
    .command('remove')
    .argument('<phone>')
    .option('--account <id>', 'sending account', DEFAULT_ACCOUNT)
    .action(async (phone: string, options: { account: string }) => {
      await withAdmin(async (admin) => {
        const removed = await admin.removeOptIn(options.account, toPhoneJid(phone));
        printLine(removed > 0 ? 'opt-in removed' : 'no such opt-in');
      });
    });
  optIn
    .command('list')
    .option('--account <id>', 'sending account', DEFAULT_ACCOUNT)
    .action(async (options: { account: string }) => {
      await withAdmin(async (admin) => {
        const entries = await admin.listOptIns(options.account);
        if (entries.length === 0) printLine(`no opt-ins for account ${options.account}`);
        for (const entry of entries)
          printLine(`${entry.phoneJid}  ${entry.createdAt.toISOString()}  ${entry.note ?? ''}`);
      });
    });
}
