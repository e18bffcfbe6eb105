/**
 * The two Web UI screenshots of docs/runbook.md "Reading encrypted payloads" (ADR 0010), from
 * the real thing: a `temporal` dev server whose UI has `--ui-codec-endpoint` pointing at a real
 * `wa-lake codec-server`, one `deliverEvent` started through an encrypting client (no worker: the input
 * is what matters), and headless Chromium. First shot: the input decoded by the codec server. Second
 * shot: the same page after the codec server is stopped — ciphertext only. Called by
 * scripts/capture-ui-screenshots.ts (`--only privacy` runs just these).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Browser } from 'playwright-core';
import { loadCodecServerConfig } from '../codec-server/config.js';
import { startCodecServer } from '../codec-server/server.js';
import { createRootLogger } from '../common/logger.js';
import { envPayloadEncryptionKeys, formatPayloadEncryptionKey } from '../common/payload-encryption-keys.js';
import { createDataConverter } from '../common/temporal-data-converter.js';
import { findFreePort } from '../dev-stack/tcp-ports.js';
import { startTemporalDevServer } from '../dev-stack/temporal-dev-server.js';
import type { DeliverEventInput } from '../workflows/contracts.js';

const EVENT_ID = '8a1f2b3c-4d5e-5f60-8a7b-9c0d1e2f3a4b';
const GROUP = '120363000000000001@g.us';
const MESSAGE_TEXT = 'Bom dia, grupo! Reunião às 19h';

/**
 * Captures `ui-codec-decoded.png` and `ui-codec-encrypted.png` into `outDir`.
 * @param cliPath - the `temporal` binary.
 */
export async function capturePrivacyScreenshots(browser: Browser, cliPath: string, outDir: string): Promise<void> {
  const keys = formatPayloadEncryptionKey('screenshots', randomBytes(32));
  const uiPort = await findFreePort();
  const token = randomBytes(24).toString('hex');
  const codec = await startCodecServer({
    config: loadCodecServerConfig({
      CODEC_SERVER_PORT: '0',
      CODEC_SERVER_TOKEN: token,
      CODEC_SERVER_CORS_ORIGINS: `http://127.0.0.1:${uiPort}`,
      PAYLOAD_ENCRYPTION_KEYS: keys,
    }),
    logger: createRootLogger({ level: 'warn' }),
  });
  let isCodecRunning = true;
  // Every caller needs the token (ADR 0028); a throwaway server's token may stand in its Web UI's endpoint.
  const temporal = await startTemporalDevServer({ cliPath, uiPort, uiCodecEndpoint: `${codec.url}/${token}` });
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const client = new Client({
      connection,
      namespace: 'default',
      dataConverter: createDataConverter(envPayloadEncryptionKeys.parse(keys)),
    });
    const payload = {
      key: { remoteJid: GROUP, id: '3EB0A0000000000000000001', participant: '100000000000001@lid' },
      messageTimestamp: 1748772060,
      pushName: 'Member 1',
      message: { conversation: MESSAGE_TEXT },
    };
    const input: DeliverEventInput = {
      eventId: EVENT_ID,
      type: 'messages.upsert',
      chatJid: GROUP,
      body: JSON.stringify({
        type: 'messages.upsert',
        chat_jid: GROUP,
        payload,
        captured_at: '2025-06-01T10:01:00.000Z',
      }),
    };
    const handle = await client.workflow.start('deliverEvent', {
      workflowId: EVENT_ID,
      taskQueue: 'wa-lake-delivery-screenshots',
      args: [input],
    });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const url = `${temporal.uiUrl ?? ''}/namespaces/default/workflows/${EVENT_ID}/${handle.firstExecutionRunId}/history`;
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.getByText('Reunião').first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1_000);
    await page.screenshot({ path: join(outDir, 'ui-codec-decoded.png') });
    process.stdout.write(`wrote ${join(outDir, 'ui-codec-decoded.png')}\n`);

    await codec.close();
    isCodecRunning = false;
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.getByText(EVENT_ID).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(2_000);
    if ((await page.getByText('Reunião').count()) > 0)
      throw new Error('the message text is readable without the codec');
    await page.screenshot({ path: join(outDir, 'ui-codec-encrypted.png') });
    process.stdout.write(`wrote ${join(outDir, 'ui-codec-encrypted.png')}\n`);
  } finally {
    if (isCodecRunning) await codec.close();
    await connection.close();
    await temporal.stop();
  }
}
