import { ComposeInput } from '../../src/scheduler/delivery/message-composer';

// Every use is a new occurrence, so the LLM composer's per-occurrence reuse does not join tests.
let occurrence = 0;

/** What the delivery worker asks a message composer for (unit and e2e composer specs). */
export const composeInput: ComposeInput = {
  followUpId: 'fu_1',
  prompt: 'Lembre o cliente da consulta: {{title}}',
  title: 'Dentista amanhã às 15h',
  description: 'Trazer exames',
  phone: '+5511987654321',
  // WhatsApp's limit.
  textLength: 4096,
  get occurrenceAt() {
    return Date.UTC(2030, 0, 1, 12) + occurrence++;
  },
};
