import { describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  STRICT_WEBHOOK_URL_POLICY,
  type ResolveAll,
  type WebhookUrlPolicy,
} from '../../../common/webhook-url-policy.js';

/** A resolver that answers from a table and fails like ENOTFOUND otherwise (no real DNS in unit tests). */
function resolverOf(table: Record<string, string[]>): ResolveAll {
  return (hostname) => {
    const addresses = table[hostname];
    if (addresses === undefined) return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
}

const resolveAll = resolverOf({
  'hooks.example.com': ['93.184.215.14'],
  'rebind.example.com': ['93.184.215.14', '127.0.0.1'],
  'internal.example.com': ['10.1.2.3'],
  'v6.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
});

// ADR 0014: the 22 hostile forms tried against `api-keys create --webhook-url`, and more.
const HOSTILE: [string, RegExp][] = [
  ['http://hooks.example.com/hook', /only https/],
  ['https://127.0.0.1/hook', /loopback/],
  ['https://127.0.0.2:8443/hook', /loopback/],
  ['https://localhost/hook', /local or metadata host/],
  ['https://api.localhost/hook', /local or metadata host/],
  ['https://0.0.0.0/hook', /unspecified/],
  ['https://0/hook', /unspecified/],
  ['https://[::1]/hook', /loopback/],
  ['https://[::]/hook', /unspecified/],
  ['https://169.254.169.254/latest/meta-data/', /linkLocal/],
  ['https://metadata.google.internal/computeMetadata/v1/', /local or metadata host/],
  ['https://[fd00:ec2::254]/latest/meta-data/', /uniqueLocal/],
  ['https://100.100.100.200/latest/meta-data/', /carrierGradeNat/],
  ['https://2130706433/hook', /127\.0\.0\.1 \(loopback\)/],
  ['https://0x7f000001/hook', /127\.0\.0\.1 \(loopback\)/],
  ['https://0x7f.0.0.1/hook', /127\.0\.0\.1 \(loopback\)/],
  ['https://0177.0.0.1/hook', /127\.0\.0\.1 \(loopback\)/],
  ['https://127.1/hook', /127\.0\.0\.1 \(loopback\)/],
  ['https://[::ffff:127.0.0.1]/hook', /loopback/],
  ['https://[::ffff:a9fe:a9fe]/hook', /linkLocal/],
  ['https://10.0.0.1/hook', /private/],
  ['https://172.16.0.1/hook', /private/],
  ['https://192.168.1.1/hook', /private/],
  ['https://[fe80::1]/hook', /linkLocal/],
  ['https://224.0.0.1/hook', /multicast/],
  ['https://[ff02::1]/hook', /multicast/],
  ['https://255.255.255.255/hook', /broadcast/],
  ['https://[2002:7f00:1::]/hook', /6to4/],
  ['https://user:secret@hooks.example.com/hook', /user name or password/],
  ['https://token@hooks.example.com/hook', /user name or password/],
  ['file:///etc/passwd', /only https/],
  ['gopher://127.0.0.1:6379/_FLUSHALL', /only https/],
  ['ftp://hooks.example.com/hook', /only https/],
  ['javascript:alert(1)', /only https/],
  ['hooks.example.com/hook', /not an absolute URL/],
  ['https://rebind.example.com/hook', /resolves to 127\.0\.0\.1 \(loopback\)/],
  ['https://internal.example.com/hook', /resolves to 10\.1\.2\.3 \(private\)/],
];

describe('checkWebhookUrl (ADR 0014)', () => {
  it.each(HOSTILE)('refuses %s under the strict policy', async (url, reason) => {
    const checked = await checkWebhookUrl(url, STRICT_WEBHOOK_URL_POLICY, resolveAll);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.reason).toMatch(reason);
  });

  it.each([
    ['https://hooks.example.com/hook', 'https://hooks.example.com/hook'],
    ['https://HOOKS.example.com:8443/a?b=1', 'https://hooks.example.com:8443/a?b=1'],
    ['https://93.184.215.14/hook', 'https://93.184.215.14/hook'],
    ['https://v6.example.com/hook', 'https://v6.example.com/hook'],
  ])('accepts the public URL %s', async (url, stored) => {
    expect(await checkWebhookUrl(url, STRICT_WEBHOOK_URL_POLICY, resolveAll)).toEqual({
      ok: true,
      url: stored,
      note: null,
    });
  });

  it('accepts a name that does not resolve yet, with a note that every delivery checks it again', async () => {
    const checked = await checkWebhookUrl('https://crm.example/hook', STRICT_WEBHOOK_URL_POLICY, resolveAll);
    expect(checked).toEqual({
      ok: true,
      url: 'https://crm.example/hook',
      note: 'crm.example does not resolve now; every delivery checks it again',
    });
  });

  it('lets development allow http and private addresses, yet never credentials or other schemes', async () => {
    const dev: WebhookUrlPolicy = { allowHttp: true, allowPrivate: true };
    expect(await checkWebhookUrl('http://127.0.0.1:9/hook', dev, resolveAll)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('https://rebind.example.com/hook', dev, resolveAll)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('http://u:p@127.0.0.1/hook', dev, resolveAll)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('gopher://127.0.0.1/', dev, resolveAll)).toMatchObject({ ok: false });
    const httpOnly: WebhookUrlPolicy = { allowHttp: true, allowPrivate: false };
    expect(await checkWebhookUrl('http://hooks.example.com/hook', httpOnly, resolveAll)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('http://127.0.0.1/hook', httpOnly, resolveAll)).toMatchObject({ ok: false });
  });
});
