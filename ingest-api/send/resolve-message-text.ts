import type { SendTemplatesRepository } from '../../lake/index.js';
import { IngestHttpError } from '../errors.js';
import { renderTemplate } from '../../lake/index.js';
import { checkTextLength, type SendRequest } from './send-request.js';

/** The text a message will send, and the template version it was rendered from (null for free text). */
export interface MessageText {
  text: string;
  template: { id: string; version: number } | null;
}

/**
 * The text of a send request (ADR 0015): the free `text`, or the template's version rendered
 * with `variables`. A live key (`mayUseDrafts` false) renders the newest approved version; a test key the newest
 * version that is not archived, so a draft can be tried before approval. Errors are returned, not thrown,
 * because the route answers them only after the idempotency lookup (a replay still gets 200):
 * 422 `WA_ERR_TEMPLATE_NOT_FOUND` (no such template, or every version archived),
 * 422 `WA_ERR_TEMPLATE_NOT_APPROVED` (live key, no approved version),
 * 422 `WA_ERR_TEMPLATE_VARIABLE_MISSING` / `WA_ERR_TEMPLATE_VARIABLE_UNKNOWN` (naming the variables),
 * 422 `WA_ERR_TEXT_TOO_LONG` (rendered text over `SEND_TEXT_MAX_CHARS`).
 *
 * @throws DatabaseUnavailableError / DatabaseBusyError from the template lookup.
 */
export async function resolveMessageText(
  request: SendRequest,
  context: {
    accountId: string;
    mayUseDrafts: boolean;
    templates: Pick<SendTemplatesRepository, 'resolve'>;
    textMaxChars: number;
  }
): Promise<MessageText | { rejection: IngestHttpError }> {
  if (!request.template) return { text: request.text ?? '', template: null };
  const { ref, variables } = request.template;
  const resolved = await context.templates.resolve(context.accountId, ref);
  const version = context.mayUseDrafts ? resolved.latest : resolved.latestApproved;
  if (resolved.latest === null) {
    return { rejection: new IngestHttpError('WA_ERR_TEMPLATE_NOT_FOUND', `no template "${ref}" for this account`) };
  }
  if (version === null) {
    return {
      rejection: new IngestHttpError(
        'WA_ERR_TEMPLATE_NOT_APPROVED',
        `template "${ref}" has no approved version, and a live key sends only approved ones`
      ),
    };
  }
  const rendered = renderTemplate(version.body, version.variables, variables);
  if ('problem' in rendered) {
    const { missing, unknown } = rendered.problem;
    const rejection =
      missing.length > 0
        ? new IngestHttpError(
            'WA_ERR_TEMPLATE_VARIABLE_MISSING',
            `template "${ref}" version ${version.version} needs variable(s): ${missing.join(', ')}`,
            missing.map((name) => ({ field: `variables.${name}`, message: 'missing' }))
          )
        : new IngestHttpError(
            'WA_ERR_TEMPLATE_VARIABLE_UNKNOWN',
            `template "${ref}" version ${version.version} declares no variable(s): ${unknown.join(', ')}`,
            unknown.map((name) => ({ field: `variables.${name}`, message: 'not declared by the template' }))
          );
    return { rejection };
  }
  try {
    checkTextLength(rendered.text, context.textMaxChars);
  } catch (err) {
    if (err instanceof IngestHttpError) return { rejection: err };
    throw err;
  }
  return { text: rendered.text, template: { id: version.templateId, version: version.version } };
}
