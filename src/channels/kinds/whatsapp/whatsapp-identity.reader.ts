import type {
  IdentityLink,
  InboundIdentity,
  ItemRefusal,
} from '../../webhooks/inbound-notification';
import {
  isRefusal,
  PHONE,
  readId,
  readInstant,
  recordAt,
  refuse,
  unacceptable,
} from '../meta/meta-notification.reader';
import { isBusinessScopedUserId } from './whatsapp-number-forms';

/*
 * What WhatsApp's notifications say about who a person is (issue 19, identity): a phone and a
 * BSUID side by side, a changed number, a changed BSUID. The webhook inbox links the forms
 * (IdentityChangesHandler); docs/webhooks.md, "Identity", says what each link does.
 */

const phoneOf = (value: unknown): string | null =>
  typeof value === 'string' && PHONE.test(value)
    ? value.startsWith('+')
      ? value
      : `+${value}`
    : null;
const bsuidOf = (value: unknown): string | null =>
  typeof value === 'string' && isBusinessScopedUserId(value) ? value : null;
const present = (forms: (string | null)[]): string[] =>
  forms.filter((form): form is string => form !== null);

/** A status that names its recipient by phone (`recipient_id`) and BSUID (`recipient_user_id`). */
export function statusIdentity(status: Record<string, unknown>): IdentityLink | undefined {
  const forms = present([phoneOf(status.recipient_id), bsuidOf(status.recipient_user_id)]);
  return forms.length === 2 ? { forms, left: null, source: 'status' } : undefined;
}

/**
 * A system message about the sender (`user_changed_number`: `from` is the old number,
 * `system.wa_id` the new one and `system.user_id` its BSUID; `user_changed_user_id`:
 * `system.previous_user_id` became `system.user_id`).
 */
export function systemIdentity(message: Record<string, unknown>): IdentityLink | undefined {
  const system = recordAt(message, 'system');
  if (!system) return undefined;
  if (system.type === 'user_changed_number') {
    const current = phoneOf(system.wa_id ?? system.new_wa_id);
    const forms = present([current, bsuidOf(system.user_id)]);
    const left = phoneOf(message.from);
    if (forms.length === 0) return undefined;
    return { forms, left: left !== current ? left : null, source: 'system_message' };
  }
  if (system.type === 'user_changed_user_id') {
    const forms = present([
      bsuidOf(system.user_id),
      bsuidOf(system.previous_user_id),
      phoneOf(message.from),
    ]);
    return forms.length > 1 ? { forms, left: null, source: 'system_message' } : undefined;
  }
  return undefined;
}

/**
 * One item of a `user_id_update` notification: `{ wa_id, user_id: { previous, current },
 * timestamp }` (Meta's May 2026 BSUID page; since August 2026 the same news comes as a
 * `user_changed_user_id` system message, and both are read).
 */
export function readUserIdUpdate(
  update: unknown,
  account: string | undefined,
): InboundIdentity | ItemRefusal {
  if (typeof update !== 'object' || update === null || Array.isArray(update)) {
    return refuse('invalid_field', 'is not an object');
  }
  const bad = unacceptable(update);
  if (bad) return bad;
  const item = update as Record<string, unknown>;
  const ids = recordAt(item, 'user_id');
  const current = readId(ids?.current, 'user_id.current');
  if (isRefusal(current)) return current;
  if (!isBusinessScopedUserId(current)) {
    return refuse('invalid_field', 'user_id.current is not a business-scoped user id');
  }
  const at = readInstant(item.timestamp, 'timestamp', 'seconds');
  if (isRefusal(at)) return at;
  return {
    kind: 'identity',
    account,
    at,
    link: {
      forms: present([current, bsuidOf(ids?.previous), phoneOf(item.wa_id)]),
      left: null,
      source: 'user_id_update',
    },
  };
}
