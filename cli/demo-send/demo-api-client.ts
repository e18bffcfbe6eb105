import { randomUUID } from 'node:crypto';
import type { PlannedMessage } from './send-demo-plan.js';

/** One message the API accepted, with the plan it came from. */
export interface Accepted {
  id: string;
  plan: PlannedMessage;
}

/** `POST /api/v1/messages` over real HTTP, remembering each body so one can be replayed verbatim. */
export class DemoApiClient {
  requested = 0;
  accepted = 0;
  replays = 0;
  private readonly sentBodies = new Map<string, { idempotencyKey: string; body: string }>();

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    /** What a message with `hasLink` links to. */
    private readonly linkUrl: string
  ) {}

  /** Requests one planned message. @throws when the API does not answer a first 202 (not a replay). */
  async request(plan: PlannedMessage, index: number): Promise<Accepted> {
    const body = JSON.stringify({
      to: plan.to,
      ...(plan.template
        ? { template: plan.template.name, variables: plan.template.variables }
        : { text: `wa-lake demo #${index + 1}: ${plan.label}${plan.hasLink ? ` ${this.linkUrl}` : ''}` }),
      category: plan.category,
      ...(plan.deliverInMs !== undefined ? { deliver_by: new Date(Date.now() + plan.deliverInMs).toISOString() } : {}),
      metadata: { demo: true },
    });
    const idempotencyKey = randomUUID();
    const { status, json, isReplayed } = await this.post(body, idempotencyKey);
    if (status !== 202 || isReplayed || typeof json['id'] !== 'string') {
      throw new Error(`demo-send: POST /api/v1/messages answered ${status}: ${JSON.stringify(json)}`);
    }
    this.accepted += 1;
    this.sentBodies.set(json['id'], { idempotencyKey, body });
    return { id: json['id'], plan };
  }

  /**
   * Sends a request again with the same Idempotency-Key and body. @returns true when answered with the first
   * answer again (202, same id, status `queued`) marked `Idempotent-Replayed: true` (ADR 0030).
   */
  async replay(id: string): Promise<boolean> {
    const original = this.sentBodies.get(id);
    if (!original) return false;
    this.replays += 1;
    const { status, json, isReplayed } = await this.post(original.body, original.idempotencyKey);
    return status === 202 && isReplayed && json['id'] === id && json['status'] === 'queued';
  }

  /**
   * A request the API must refuse (ADR 0015), sent with `apiKey` (default: this client's key); not
   * counted as requested. @returns the status and `code` of the answer.
   */
  async refused(body: Record<string, unknown>, apiKey = this.apiKey): Promise<{ status: number; code: string }> {
    const response = await fetch(`${this.baseUrl}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': randomUUID() },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    return { status: response.status, code: typeof json['code'] === 'string' ? json['code'] : '' };
  }

  private async post(
    body: string,
    idempotencyKey: string
  ): Promise<{ status: number; json: Record<string, unknown>; isReplayed: boolean }> {
    this.requested += 1;
    const response = await fetch(`${this.baseUrl}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': this.apiKey, 'idempotency-key': idempotencyKey },
      body,
    });
    return {
      status: response.status,
      json: (await response.json()) as Record<string, unknown>,
      isReplayed: response.headers.get('idempotent-replayed') === 'true',
    };
  }
}
